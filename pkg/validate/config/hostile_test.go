package config

import (
	"fmt"
	"math/rand"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// backtrack is the plain recursive matcher: the oracle of the linear one
// on small inputs, where its cost does not matter.
func backtrack(g, p []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			for i := 0; i <= len(p); i++ {
				if backtrack(g[1:], p[i:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 {
			return false
		}
		if ok, _ := path.Match(g[0], p[0]); !ok {
			return false
		}
		g, p = g[1:], p[1:]
	}
	return len(p) == 0
}

// TestMatchIsLinear: a glob of many ** against a deep path that it does
// not match costs at most one segment comparison per glob segment and path
// segment; the backtracking matcher tried every way the ** could split
// the path (8 ** against 30 folders: 12 s).
func TestMatchIsLinear(t *testing.T) {
	for _, stars := range []int{1, 8, 12, 40} {
		g := strings.Split(strings.Repeat("**/", stars)+"nomatch", "/")
		var segs []string
		for i := 0; i < 30; i++ {
			segs = append(segs, fmt.Sprintf("d%d", i))
		}
		p := append(segs, "t.jsonl")
		steps := 0
		if matchSegs(g, p, &steps) {
			t.Fatalf("%d **: matched", stars)
		}
		if bound := len(g) * len(p); steps > bound {
			t.Errorf("%d ** against %d segments: %d comparisons, want at most %d", stars, len(p), steps, bound)
		}
	}
}

// TestMatchAgreesWithBacktracking: the linear matcher gives the verdict of
// the recursive one on random globs and paths.
func TestMatchAgreesWithBacktracking(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pick := func(alts []string, n int) []string {
		var out []string
		for i := 0; i < n; i++ {
			out = append(out, alts[rng.Intn(len(alts))])
		}
		return out
	}
	globSegs := []string{"**", "a", "b", "*", "a*", "?", "**"}
	pathSegs := []string{"a", "b", "ab", "c"}
	for i := 0; i < 20000; i++ {
		g := pick(globSegs, 1+rng.Intn(6))
		p := pick(pathSegs, rng.Intn(7))
		if got, want := matchSegs(g, p, nil), backtrack(g, p); got != want {
			t.Fatalf("matchSegs(%q, %q) = %v, the recursive matcher says %v", g, p, got, want)
		}
	}
}

// TestLoadRefusesHugeFile: a config over MaxSize is refused before it is
// parsed, and loading it allocates about MaxSize, not the file's size (a
// 50 MB file took 1.7 GB).
func TestLoadRefusesHugeFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	entry := `{"files":["x/**"],"disable":["schema"]},`
	if _, err := f.WriteString(`{"overrides":[` + strings.Repeat(entry, 50<<20/len(entry)) + `{"files":["y"]}]}`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Load(p)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "larger than 1024 KiB") {
		t.Fatalf("Load of a 50 MB config: %v, want a size error", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*MaxSize {
		t.Errorf("Load of a 50 MB config allocated %d bytes, want at most %d", alloc, 8*MaxSize)
	}
}
