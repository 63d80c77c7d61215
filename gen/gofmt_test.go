package gen_test

import (
	"bytes"
	"go/format"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/gen"
)

// TestOutputIsGofmt: what Generate writes is gofmt's formatting of it,
// for every schema of testdata that generates (each alone) and for the
// hostile one. Declarations are formatted a type at a time and put
// together without formatting the file again, so this holds the pieces
// and their joins to gofmt's rules.
func TestOutputIsGofmt(t *testing.T) {
	var schemas []string
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), "compile-out-") {
			return fs.SkipDir
		}
		if strings.HasSuffix(p, ".json") {
			schemas = append(schemas, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	schemas = append(schemas, writeHostile(t, t.TempDir()))
	checked := 0
	for _, p := range schemas {
		for _, defsOnly := range []bool{false, true} {
			src, err := gen.Generate(gen.Config{Inputs: []string{p}, Package: "p", DefsOnly: defsOnly})
			if err != nil {
				continue // only what generates must be formatted
			}
			want, err := format.Source(src)
			if err != nil {
				t.Fatalf("%s: the output does not parse: %v", p, err)
			}
			if !bytes.Equal(src, want) {
				t.Errorf("%s (defs only %v): the output is not gofmt's", p, defsOnly)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("only %d outputs checked: the corpus is missing", checked)
	}
}
