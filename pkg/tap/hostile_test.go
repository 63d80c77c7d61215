package tap

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// TestRecordingTakesTheNextFreeName: a relay restarted on a record folder
// that already holds recordings goes on with the next free name (the trace
// and every sidecar free), and overwrites nothing.
func TestRecordingTakesTheNextFreeName(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"0001.jsonl":     "old trace\n",
		"0001.jsonl.dir": "c2r\n",
		"0002.jsonl.dir": "orphan sidecar\n", // its trace is free, its sidecar is not
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var seq atomic.Int64
	name := func(n int64) string { return fmt.Sprintf("%04d.jsonl", n) }
	p, files, err := createRecording(dir, &seq, name, ".dir")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		f.Close()
	}
	if p != filepath.Join(dir, "0003.jsonl") || len(files) != 2 || files[1].Name() != p+".dir" {
		t.Errorf("created %s (%d files), want 0003.jsonl and its sidecar", p, len(files))
	}
	if _, err := os.Stat(filepath.Join(dir, "0002.jsonl")); !os.IsNotExist(err) {
		t.Errorf("0002.jsonl was left behind when its sidecar's name was taken: %v", err)
	}
	for name, want := range map[string]string{"0001.jsonl": "old trace\n", "0002.jsonl.dir": "orphan sidecar\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("%s was changed: %q", name, b)
		}
	}
	p, files, err = createRecording(dir, &seq, name, ".dir")
	if err != nil || p != filepath.Join(dir, "0004.jsonl") {
		t.Errorf("next: %s, %v; want 0004.jsonl", p, err)
	}
	for _, f := range files {
		f.Close()
	}
}
