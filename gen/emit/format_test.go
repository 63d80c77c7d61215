package emit

import (
	"bytes"
	"go/format"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// generatedFiles lists the committed generated Go files of the module.
func generatedFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return fs.SkipDir
		}
		if strings.HasSuffix(p, "_gen.go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("only %d generated files found", len(files))
	}
	return files
}

// TestFormatChunkedIsGofmt: formatting a run of declarations at a time
// gives what formatting the whole file gives, cut wherever it may be cut
// (size 1) or in larger runs, on every generated file of the module, both
// as committed and with its blank lines removed (as the generator's
// unformatted output has none).
func TestFormatChunkedIsGofmt(t *testing.T) {
	for _, p := range generatedFiles(t) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var dense []byte
		for _, l := range bytes.SplitAfter(src, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				dense = append(dense, l...)
			}
		}
		for _, in := range [][]byte{src, dense} {
			want, err := format.Source(in)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			for _, size := range []int{1, 64 << 10} {
				got, err := formatChunked(in, size, 0)
				if err != nil {
					t.Fatalf("%s, runs of %d: %v", p, size, err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%s, runs of %d bytes: differs from gofmt of the whole file at byte %d", p, size, firstDiff(got, want))
				}
			}
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestFormatChunkedCuts: the cuts fall before doc comments of top-level
// declarations after the imports, never inside a declaration, before a
// declaration without a doc comment, nor before a comment that trails a
// line.
func TestFormatChunkedCuts(t *testing.T) {
	src := []byte("package p\n\nimport \"fmt\"\n// A is a.\ntype A struct {\n// x is x.\nX int\n}\nvar v = 1 // trailing\n// F is f.\nfunc F() {\n// inside\nfmt.Println()\n}\n// G is g.\n// Two lines.\nfunc G() {}\n")
	var got []string
	for _, c := range declCuts(src, 1) {
		got = append(got, strings.SplitN(string(src[c:]), "\n", 2)[0])
	}
	if strings.Join(got, "|") != "// A is a.|// F is f.|// G is g." {
		t.Errorf("cuts before %q", got)
	}
}
