package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// inCI reports whether the tests run in CI (CI set, as CI systems and
// .ci/run set it): there a test whose setup fails fails, rather than skip,
// so that what it proves is never silently left unproved.
func inCI() bool { return os.Getenv("CI") != "" }

// skipOutsideCI skips t with why, or fails it in CI.
func skipOutsideCI(t *testing.T, format string, a ...any) {
	t.Helper()
	if inCI() {
		t.Fatalf(format, a...)
	}
	t.Skipf(format, a...)
}

// offlineGo is the environment in which the README's go commands run in
// tests: no module proxy (the module cache must hold the dependencies),
// go.mod and go.sum updated as needed, no workspace, and binaries
// installed into gobin.
func offlineGo(gobin string) []string {
	return []string{"GOPROXY=off", "GOSUMDB=off", "GOFLAGS=-mod=mod", "GOWORK=off", "GOBIN=" + gobin}
}

// readmeSection returns the fenced blocks of the given language in the
// root README's section titled title.
func readmeSection(t *testing.T, title, lang string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## "+title+"\n")
	if !ok {
		t.Fatalf("README.md has no %s section", title)
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	var blocks []string
	for _, part := range strings.Split(sec, "```"+lang+"\n")[1:] {
		body, _, _ := strings.Cut(part, "```")
		blocks = append(blocks, body)
	}
	return blocks
}

// TestREADMEInstall runs the README's install commands as written, offline
// (the module proxy off, the dependencies from the module cache): from a
// clone, go install puts validate and protogen in GOBIN and the installed
// validate checks a bundled trace; in a fresh module beside the clone, the
// replace and go mod edit -tool lines make go tool protogen run, with the
// module proxy off and again with it on (as a user has it: a proxy that
// does not serve the unpublished module must not stop them). The clone is
// this checkout, reached through a symlink named as the clone would be.
func TestREADMEInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the commands and a scratch module; skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	blocks := readmeSection(t, "Install", "sh")
	if len(blocks) != 2 {
		t.Fatalf("the Install section has %d sh blocks, want 2 (from a clone; in your module)", len(blocks))
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	work, gobin := t.TempDir(), t.TempDir()
	clone := filepath.Join(work, "agentproto")
	if err := os.Symlink(root, clone); err != nil {
		t.Fatal(err)
	}
	path := "PATH=" + gobin + string(os.PathListSeparator) + os.Getenv("PATH")
	env := append(os.Environ(), offlineGo(gobin)...)
	env = append(env, path)
	shIn := func(env []string, dir, cmd string) string {
		t.Helper()
		c := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", cmd)
		c.Dir, c.Env = dir, env
		out, err := c.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) && strings.Contains(string(out), "module lookup disabled by GOPROXY=off") {
			skipOutsideCI(t, "%s: the module cache lacks a dependency and the proxy is off:\n%s", cmd, out)
		}
		if errors.As(err, &ee) && regexp.MustCompile(`dial tcp|no such host|proxyconnect|i/o timeout|connection refused`).Match(out) {
			skipOutsideCI(t, "%s: the module proxy cannot be reached:\n%s", cmd, out)
		}
		if err != nil {
			t.Fatalf("README command %q in %s: %v\n%s", cmd, dir, err, out)
		}
		return string(out)
	}
	sh := func(dir, cmd string) string { t.Helper(); return shIn(env, dir, cmd) }

	// From a clone: the clone itself needs the network.
	dir := work
	var ran []string
	for _, cmd := range strings.Split(strings.TrimSpace(blocks[0]), "\n") {
		switch {
		case strings.HasPrefix(cmd, "git clone "):
			if cmd != "git clone https://github.com/agentproto/agentproto" {
				t.Fatalf("clone line %q does not clone github.com/agentproto/agentproto into agentproto", cmd)
			}
		case cmd == "cd agentproto":
			dir = clone
		default:
			out := sh(dir, cmd)
			ran = append(ran, cmd)
			if cmd == "validate --version" && !strings.HasPrefix(out, "validate github.com/agentproto/agentproto ") {
				t.Errorf("%s: %q, want the command and its module", cmd, out)
			}
			if strings.HasPrefix(cmd, "validate fixtures/") && !strings.Contains(out, "0 errors") {
				t.Errorf("%s: the installed validate reports errors on a valid trace:\n%s", cmd, out)
			}
		}
	}
	if len(ran) < 2 || !regexp.MustCompile(`^go install (\./cmd/\w+ ?)+$`).MatchString(ran[0]) {
		t.Fatalf("the install block runs %q: want go install ./cmd/..., then a use of the installed command", ran)
	}
	for _, name := range []string{"validate", "protogen"} {
		if _, err := os.Stat(filepath.Join(gobin, name)); err != nil {
			t.Errorf("go install did not install %s: %v", name, err)
		}
	}

	// In a fresh module beside the clone, with the proxy off, then on (the
	// environment's GOPROXY, proxy.golang.org by default: it answers 403
	// for the unpublished module, which stops go get -tool).
	online := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOBIN="+gobin, path)
	for _, mode := range []struct {
		name string
		env  []string
	}{{"down-offline", env}, {"down-online", online}} {
		mod := filepath.Join(work, mode.name)
		if err := os.Mkdir(mod, 0o755); err != nil {
			t.Fatal(err)
		}
		shIn(mode.env, mod, "go mod init example.test/down")
		var last string
		for _, cmd := range strings.Split(strings.TrimSpace(blocks[1]), "\n") {
			if strings.Contains(cmd, "go get ") {
				t.Fatalf("the module recipe runs %q: go get asks the proxy before the replace, and fails where it answers 403", cmd)
			}
			last = shIn(mode.env, mod, cmd)
		}
		if !strings.HasPrefix(last, "protogen github.com/agentproto/agentproto ") || !strings.Contains(last, " => ../agentproto") {
			t.Errorf("%s: the module recipe ends with %q, want protogen's version, built from the clone the replace names", mode.name, last)
		}
		gomod, err := os.ReadFile(filepath.Join(mod, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(gomod), "tool github.com/agentproto/agentproto/cmd/protogen") {
			t.Errorf("%s: go.mod does not list protogen as a tool:\n%s", mode.name, gomod)
		}
	}
}

// TestREADMENoProxyInstall: no command the README shows fetches agentproto
// from a module proxy (@latest or @version), which cannot work while the
// module is not published; prose may say so, code blocks may not.
func TestREADMENoProxyInstall(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(string(b), "```")
	for i := 1; i < len(parts); i += 2 {
		for _, line := range strings.Split(parts[i], "\n") {
			if strings.Contains(line, "agentproto/agentproto/cmd/") && strings.Contains(line, "@") {
				t.Errorf("README code block fetches from a proxy: %q", strings.TrimSpace(line))
			}
		}
	}
}
