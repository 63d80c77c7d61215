package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copySchemas copies the registry's list of versions and the protocol
// folders of the repository's schema folder into a temporary one, so that
// the command can write bundles there.
func copySchemas(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "..", "..", "..", "schema")
	dst := t.TempDir()
	versions, err := os.ReadFile(filepath.Join(src, "versions.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, "versions.json"), versions, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, proto := range []string{"acp", "arcp", "arcan"} {
		err := filepath.WalkDir(filepath.Join(src, proto), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(src, p)
			if err != nil {
				return err
			}
			if d.IsDir() {
				return os.MkdirAll(filepath.Join(dst, rel), 0o755)
			}
			if strings.HasSuffix(p, ".bundle.json") || !strings.HasSuffix(p, ".json") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func runCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestWriteThenCheck(t *testing.T) {
	schemaDir := copySchemas(t)
	docsDir := filepath.Join(t.TempDir(), "docs")
	args := []string{"-schema", schemaDir, "-docs", docsDir}

	// Nothing generated yet: every file is stale.
	code, _, stderr := runCmd(append(args, "-check")...)
	if code != 1 {
		t.Fatalf("check before generating: exit %d, want 1", code)
	}
	for _, want := range []string{"arcp.bundle.json", "arcp-rfc0001.bundle.json", "acp.bundle.json", "arcan.bundle.json", "acp-v1.md", "acp-v2.md", "arcp-v1.1.md", "arcp-rfc0001.md", "arcan-v1.md", "README.md"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("check before generating does not list %s:\n%s", want, stderr)
		}
	}

	code, stdout, stderr := runCmd(args...)
	if code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "wrote ") {
		t.Errorf("generate reported nothing: %q", stdout)
	}
	if code, _, stderr := runCmd(append(args, "-check")...); code != 0 {
		t.Fatalf("check after generating: exit %d: %s", code, stderr)
	}
	// A second run changes nothing.
	if code, stdout, _ := runCmd(args...); code != 0 || stdout != "" {
		t.Errorf("second run: exit %d, output %q; want 0 and nothing written", code, stdout)
	}

	// A hand edit and a bundle no version produces make the check fail.
	page := filepath.Join(docsDir, "arcp-v1.1.md")
	if err := os.WriteFile(page, []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(schemaDir, "arcp", "old.bundle.json")
	if err := os.WriteFile(orphan, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A page no version produces (one page per protocol, from before the
	// pages were split per version).
	oldPage := filepath.Join(docsDir, "arcp.md")
	if err := os.WriteFile(oldPage, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCmd(append(args, "-check")...)
	if code != 1 || !strings.Contains(stderr, page) || !strings.Contains(stderr, orphan) || !strings.Contains(stderr, oldPage) {
		t.Errorf("check after edits: exit %d, stderr:\n%s\nwant exit 1 naming %s and %s", code, stderr, page, orphan)
	}
	if strings.Contains(stderr, "acp-v1.md") {
		t.Errorf("check lists a fresh file:\n%s", stderr)
	}
	if code, _, stderr := runCmd(args...); code != 0 {
		t.Fatalf("regenerate: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("the orphaned bundle is still there: %v", err)
	}
	if _, err := os.Stat(oldPage); !os.IsNotExist(err) {
		t.Errorf("the orphaned page is still there: %v", err)
	}
	if code, _, stderr := runCmd(append(args, "-check")...); code != 0 {
		t.Errorf("check after regenerating: exit %d: %s", code, stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	if code, _, _ := runCmd("-nope"); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
	if code, _, _ := runCmd("extra"); code != 2 {
		t.Errorf("extra argument: exit %d, want 2", code)
	}
	if code, _, stderr := runCmd("-schema", t.TempDir(), "-docs", t.TempDir()); code != 2 || !strings.Contains(stderr, "versions.json") {
		t.Errorf("empty schema folder: exit %d, stderr %q; want 2 and a message", code, stderr)
	}
}
