package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGrowingFileIsReadToItsSizeAtOpen: a trace appended to while it is
// checked is checked as it was when opened, so a writer faster than the
// reader cannot keep the check going: what is appended after the open is
// not read.
func TestGrowingFileIsReadToItsSizeAtOpen(t *testing.T) {
	p := filepath.Join(t.TempDir(), "grow.jsonl")
	first := strings.Repeat(acpInit+"\n", 100)
	if err := os.WriteFile(p, []byte(first), 0o644); err != nil {
		t.Fatal(err)
	}
	r, c, err := openTrace(p, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	w, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Appended after the open, between the reads: ten times the size.
	more := []byte(strings.Repeat(acpNew+"\n", 1000))
	buf := make([]byte, 512)
	var got []byte
	for {
		if _, err := w.Write(more); err != nil {
			t.Fatal(err)
		}
		n, err := r.Read(buf)
		got = append(got, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > len(first) {
			t.Fatalf("read %d bytes of a file that had %d when opened", len(got), len(first))
		}
	}
	if string(got) != first {
		t.Errorf("read %d bytes, want the %d the file had when opened", len(got), len(first))
	}
}
