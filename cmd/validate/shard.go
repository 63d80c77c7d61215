package main

import (
	"fmt"
	"hash/fnv"
	"iter"
	"path/filepath"
	"strconv"
	"strings"
)

// shardFlag is --shard K/N: check only the traces whose path falls in
// shard K of N. A trace's shard is a hash of its path as the walk names it
// (with forward slashes), so the partition is the same on every machine and
// in every run, whatever the files hold, how large they are or the order
// the file system lists them in; N runs with K = 1 … N together check
// every trace once. The zero value is no sharding.
type shardFlag struct{ k, n int }

func (s *shardFlag) String() string {
	if s.n == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.k, s.n)
}

func (s *shardFlag) Set(v string) error {
	ks, ns, ok := strings.Cut(strings.TrimSpace(v), "/")
	k, kerr := strconv.Atoi(ks)
	n, nerr := strconv.Atoi(ns)
	if !ok || kerr != nil || nerr != nil || n < 1 || k < 1 || k > n {
		return fmt.Errorf("want K/N with 1 <= K <= N, such as 2/4, got %q", v)
	}
	s.k, s.n = k, n
	return nil
}

// of returns the shard, 1 to n, that the trace named name falls in.
func shardOf(name string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(filepath.ToSlash(name)))
	return int(h.Sum64()%uint64(n)) + 1
}

// filter keeps the inputs of shard K: a path that cannot be read is
// reported by the shard it falls in, like a trace.
func (s shardFlag) filter(in iter.Seq[input]) iter.Seq[input] {
	return func(yield func(input) bool) {
		for i := range in {
			if shardOf(i.name, s.n) == s.k && !yield(i) {
				return
			}
		}
	}
}
