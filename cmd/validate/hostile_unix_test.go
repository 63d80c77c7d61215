//go:build unix

package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runWithin runs the command and fails the test when it has not ended
// within limit: the classes below would otherwise hang the test binary, so
// the deadline is the only way to see the bound.
func runWithin(t *testing.T, limit time.Duration, args ...string) (int, string, string) {
	t.Helper()
	type res struct {
		code     int
		out, err string
	}
	done := make(chan res, 1)
	go func() {
		c, o, e := runCLI(t, "", args...)
		done <- res{c, o, e}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.err
	case <-time.After(limit):
		t.Fatalf("validate %s did not end within %v", strings.Join(args, " "), limit)
	}
	return 0, "", ""
}

// TestWalkReadsOnlyRegularFiles: a walked folder's symbolic links are
// followed only to regular files inside the folders named. A link with a
// trace's name to /dev/urandom, to a FIFO no one writes, to a folder or to
// a file outside is an io finding and is never opened; a FIFO of its own
// is never opened either; a link to a trace inside the folder is read.
func TestWalkReadsOnlyRegularFiles(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	trace := acpInit + "\n" + acpInitResp + "\n"
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "a.jsonl"), trace)
	write(filepath.Join(outside, "secret.jsonl"), trace)
	if err := syscall.Mkfifo(filepath.Join(outside, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "own.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "capture"), 0o644); err != nil {
		t.Fatal(err)
	}
	link("a.jsonl", "b.jsonl")
	link(filepath.Join(outside, "fifo"), "pipe.jsonl")
	link(filepath.Join(outside, "fifo"), "pipe") // no extension: would be opened to sniff
	link(filepath.Join(outside, "secret.jsonl"), "out.jsonl")
	link(outside, "dir.jsonl")
	if _, err := os.Stat("/dev/urandom"); err == nil {
		link("/dev/urandom", "x.jsonl")
		link("/dev/urandom", "noext")
	}
	code, out, _ := runWithin(t, 20*time.Second, "--no-config", "--format", "json", root)
	if code != exitUsage {
		t.Errorf("exit %d, want %d (links that are not read are io findings)", code, exitUsage)
	}
	want := map[string]string{
		"pipe.jsonl": "a symbolic link to a FIFO",
		"own.jsonl":  "not a regular file (a FIFO)",
		"out.jsonl":  "outside the folders named",
		"dir.jsonl":  "a symbolic link to a folder",
	}
	if _, err := os.Stat("/dev/urandom"); err == nil {
		want["x.jsonl"] = "a symbolic link to a device"
	}
	for name, msg := range want {
		if !strings.Contains(out, `"file":"`+filepath.Join(root, name)+`","line":0,"severity":"error"`) || !strings.Contains(out, msg) {
			t.Errorf("%s: want an io finding saying %q:\n%s", name, msg, out)
		}
	}
	for _, name := range []string{"a.jsonl", "b.jsonl"} {
		if !strings.Contains(out, `"file":"`+filepath.Join(root, name)+`","protocol":"acp"`) {
			t.Errorf("%s was not read as a trace:\n%s", name, out)
		}
	}
	for _, name := range []string{"pipe", "noext", "capture"} {
		if strings.Contains(out, filepath.Join(root, name)+`"`) {
			t.Errorf("%s, not a regular file, was reported:\n%s", name, out)
		}
	}
	// Named, the file outside is read: the rule is about what a walk
	// finds, not about what the user asks for.
	if code, out, _ := runWithin(t, 20*time.Second, "--no-config", filepath.Join(root, "out.jsonl")); code != exitOK {
		t.Errorf("a named link to a trace: exit %d\n%s", code, out)
	}
}

// TestOpenRegularRefusesSwappedPath: a walked path that is a FIFO by the
// time it is opened is refused at once, not waited on.
func TestOpenRegularRefusesSwappedPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := openRegular(p)
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("openRegular(FIFO) = %v, want a refusal naming a FIFO", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("openRegular waited on a FIFO with no writer")
	}
}

// blockedWriter is an output nobody reads: every write waits forever.
type blockedWriter struct{ never chan struct{} }

func (b blockedWriter) Write(p []byte) (int, error) {
	<-b.never
	return 0, nil
}

// TestTapEndsWhenStderrIsNotRead: when nothing reads the tap's stderr,
// where live findings go, the tap still ends once the agent has: its
// outputs are given a bounded time to be taken after the session.
func TestTapEndsWhenStderrIsNotRead(t *testing.T) {
	done := make(chan int, 1)
	go func() {
		stderr := blockedWriter{never: make(chan struct{})}
		done <- run(context.Background(), []string{"--", "sh", "-c", "yes x | head -20000"}, strings.NewReader(""), io.Discard, stderr, plugins{})
	}()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit %d, want the agent's 0", code)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the tap did not end: it waits on a stderr nobody reads")
	}
}

// TestTapHonoursMaxLine: the tap's --max-line bounds what the relay holds
// of an agent's line, not only what is validated: a longer line stops the
// recording and live validation with a message naming the flag, and is
// still relayed byte for byte.
func TestTapHonoursMaxLine(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "s.jsonl")
	var out, errb strings.Builder
	code := run(context.Background(), []string{"--max-line", "1KiB", "--record", rec, "--", "sh", "-c", `head -c 100000 /dev/zero | tr '\0' a; echo; echo '{"jsonrpc":"2.0","method":"x"}'`},
		strings.NewReader(""), &out, &errb, plugins{})
	if code != exitOK {
		t.Errorf("exit %d", code)
	}
	if out.Len() != 100001+len(`{"jsonrpc":"2.0","method":"x"}`)+1 {
		t.Errorf("relayed %d bytes, want every byte", out.Len())
	}
	for _, want := range []string{"a2c line is longer than 1024 bytes (--max-line): recording stopped", "live validation stopped at line 1"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}
