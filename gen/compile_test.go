package gen_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/gen"
)

// TestOutputCompiles: protogen never succeeds with code that does not
// compile. Every schema of testdata/compile (the shapes that used to give
// Go errors: required self-reference and mutual recursion, duplicate enum
// values, member names that are keywords, method names, non-ASCII or
// empty), every schema of testdata/warnings, and every schema of
// testdata/errors that generates without
// -strict is generated into a package of its own, and go vet must pass on
// all of them.
func TestOutputCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles generated packages; skipped with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to compile the output with")
	}
	var schemas []string
	for _, glob := range []string{"testdata/compile/*.json", "testdata/warnings/*.json", "testdata/errors/*.json"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		schemas = append(schemas, m...)
	}
	// The packages must be inside the module to import pkg/wire; a folder
	// under testdata is left out of ./... patterns.
	dir, err := os.MkdirTemp("testdata", "compile-out-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	generated := 0
	for i, f := range schemas {
		src, err := gen.Generate(gen.Config{Inputs: []string{f}, Package: "p"})
		if err != nil {
			if strings.Contains(f, "errors") {
				continue // an error is fine; only success must compile
			}
			t.Errorf("%s: %v", f, err)
			continue
		}
		pkgDir := filepath.Join(dir, fmt.Sprintf("p%03d", i))
		if err := os.MkdirAll(pkgDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkgDir, "p.go"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		generated++
	}
	if generated < 8 {
		t.Fatalf("only %d schemas generated: the corpus is missing", generated)
	}
	out, err := exec.Command(goBin, "vet", "./"+filepath.ToSlash(dir)+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go vet of the generated packages failed: %v\n%s", err, out)
	}
}
