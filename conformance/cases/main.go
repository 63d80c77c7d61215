// Command cases runs agentproto's Go validator over trace files and writes,
// for every schema check it makes, the schema's $id, the value checked and
// the Go verdict, one JSON object per line. conformance/check.mjs then has
// ajv judge the same values against the same published schemas; any
// disagreement fails CI.
//
//	go run ./conformance/cases -o cases.jsonl fixtures
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate"
)

type jsonCase struct {
	Where    string `json:"where"`
	Schema   string `json:"schema"`
	Instance any    `json:"instance"`
	Valid    bool   `json:"valid"`
}

func main() {
	out := flag.String("o", "", "the cases file to write (required)")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: cases -o CASES.jsonl DIR|FILE...")
		os.Exit(2)
	}
	n, err := run(*out, flag.Args())
	if err != nil {
		fmt.Fprintf(os.Stderr, "cases: %v\n", err)
		os.Exit(2)
	}
	fmt.Fprintf(os.Stderr, "cases: wrote %d schema checks to %s\n", n, *out)
}

// traces lists the trace files below the arguments: JSONL and SSE files,
// gzip included, in lexical order.
func traces(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		err := filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".sse")) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(files)
	return files, nil
}

func run(out string, args []string) (int, error) {
	files, err := traces(args)
	if err != nil {
		return 0, err
	}
	f, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	n := 0
	var werr error
	e, err := validate.New(validate.Options{Observe: func(o validate.Observation) {
		if werr == nil {
			werr = enc.Encode(jsonCase{Where: fmt.Sprintf("%s:%d", filepath.ToSlash(o.File), o.Line), Schema: o.SchemaID, Instance: o.Value, Valid: o.Valid})
			n++
		}
	}})
	if err != nil {
		f.Close()
		return 0, err
	}
	for _, p := range files {
		tf, err := os.Open(p)
		if err != nil {
			f.Close()
			return n, err
		}
		fo := validate.FileOptions{}
		dir, derr := os.Open(strings.TrimSuffix(p, filepath.Ext(p)) + ".dir")
		if derr == nil {
			fo.Directions = dir
		}
		_, err = e.Check(context.Background(), p, tf, fo, nil)
		tf.Close()
		if derr == nil {
			dir.Close()
		}
		if err != nil {
			f.Close()
			return n, fmt.Errorf("%s: %w", p, err)
		}
	}
	if werr == nil {
		werr = w.Flush()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return n, werr
}
