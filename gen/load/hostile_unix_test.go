//go:build unix

package load

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRefFIFO: a named pipe is refused by stat, never opened (opening one
// for reading waits for a writer: protogen used to hang there), whether a
// $ref names it or a folder walk meets it.
func TestRefFIFO(t *testing.T) {
	dir := writeTree(t, map[string]string{"in/schema.json": refSchema("pipe.schema")})
	if err := syscall.Mkfifo(filepath.Join(dir, "in", "pipe.schema"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	_, err := resolveAll(t, New(), filepath.Join(dir, "in"))
	if err == nil || !strings.Contains(err.Error(), `$ref "pipe.schema"`) || !strings.Contains(err.Error(), "is a named pipe: schemas are read only from regular files") {
		t.Fatalf("got %v, want the regular-file rule", err)
	}

	if err := syscall.Mkfifo(filepath.Join(dir, "in", "pipe.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = New().AddPaths(filepath.Join(dir, "in"))
	if err == nil || !strings.Contains(err.Error(), "is a named pipe") {
		t.Fatalf("walking a folder with a named pipe: %v", err)
	}
}
