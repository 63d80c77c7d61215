package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVersionFlag: -version prints one line naming the command and its
// module, and nothing else runs (no -pkg needed).
func TestVersionFlag(t *testing.T) {
	for _, flag := range []string{"-version", "--version"} {
		var out, errb bytes.Buffer
		if code := run([]string{flag}, &out, &errb); code != 0 || errb.Len() > 0 {
			t.Fatalf("%s: exit %d, stderr %q", flag, code, errb.String())
		}
		if !regexp.MustCompile(`^protogen github\.com/agentproto/agentproto \S+.*, go1\.\d+.*\n$`).MatchString(out.String()) {
			t.Errorf("%s: %q, want protogen, the module, its version and the Go version on one line", flag, out.String())
		}
	}
}

// TestVersionFromCheckout builds protogen in a git checkout of this tree
// (a fresh repository whose entries link to this one: a git worktree is
// not stamped by the go command) and reads -version: it names the
// checkout's revision, and says "modified" once the checkout has a change
// that is not committed.
func TestVersionFromCheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds protogen; skipped with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	co := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(co, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	cmd := func(name string, args ...string) string {
		t.Helper()
		c := exec.Command(name, args...)
		c.Dir = co
		// -trimpath: the packages' compiled forms do not depend on the
		// folder, so the build cache serves them.
		c.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-trimpath -buildvcs=true",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.test", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.test")
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	cmd("git", "init", "-q")
	cmd("git", "add", "-A")
	cmd("git", "-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", "checkout")
	rev := strings.TrimSpace(cmd("git", "rev-parse", "HEAD"))
	bin := filepath.Join(t.TempDir(), "protogen")
	version := func() string {
		t.Helper()
		cmd(goBin, "build", "-o", bin, "./cmd/protogen")
		out, err := exec.Command(bin, "--version").CombinedOutput()
		if err != nil {
			t.Fatalf("protogen --version: %v\n%s", err, out)
		}
		return string(out)
	}
	clean := version()
	if !strings.Contains(clean, "revision "+rev[:12]+",") {
		t.Fatalf("built from a clean checkout at %s: %q", rev, clean)
	}
	if err := os.WriteFile(filepath.Join(co, "change.txt"), []byte("not committed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := version(); !strings.Contains(got, "revision "+rev[:12]+" (modified)") {
		t.Fatalf("built from a checkout with a change: %q", got)
	}
}
