// Package sharedref locates the reference material that sits beside the
// repository as ../shared (protocol schemas, docs and examples). Tests that
// read it call Dir, which skips the test when a clone has no ../shared.
package sharedref

import (
	"os"
	"path/filepath"
	"testing"
)

// Root returns the repository root (the nearest directory above the working
// directory that holds go.mod), or "" if there is none.
func Root() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Dir returns the absolute path of ../shared joined with elem, or skips tb
// with a message naming what is missing when it is absent.
func Dir(tb testing.TB, elem ...string) string {
	tb.Helper()
	root := Root()
	if root == "" {
		tb.Skip("reference material not found: no go.mod above the working directory")
	}
	p := filepath.Join(append([]string{root, "..", "shared"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("reference material %s is absent (it sits beside the repository as ../shared in CI); skipping", p)
	}
	return p
}
