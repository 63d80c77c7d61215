//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests below run the tap as the editor runs it: this test binary
// acting as validate (asMain), with real pipes for its stdin and stdout,
// and an agent that writes its process id to a file so that the test can
// see it is gone. Each is bounded by a deadline, the only way to see
// that the tap ends.

const updateLine = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`

// tapProcess starts validate --record REC -- sh -c SCRIPT PIDFILE with
// pipes for stdin and stdout, and returns the command and the test's
// ends of the pipes.
func tapProcess(t *testing.T, dir, script string) (*exec.Cmd, io.WriteCloser, io.ReadCloser) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "--record", filepath.Join(dir, "s.jsonl"), "--findings", filepath.Join(dir, "findings.txt"), "--", "sh", "-c", script, filepath.Join(dir, "pid"))
	cmd.Env = append(os.Environ(), asMain+"=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, in, out
}

// waitWithin waits for cmd and returns its exit status, failing the test
// if it has not ended within limit.
func waitWithin(t *testing.T, cmd *exec.Cmd, limit time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(limit):
		t.Fatalf("the tap did not end within %v", limit)
	}
	return -1
}

// agentGone reports whether the agent, whose process id dir/pid holds,
// has ended, waiting up to 5 s for it.
func agentGone(t *testing.T, dir string) bool {
	t.Helper()
	return pidGone(t, filepath.Join(dir, "pid"), 5*time.Second)
}

// sameLines checks that the recording and its sidecar hold the same
// count of lines, at least min.
func sameLines(t *testing.T, dir string, min int) {
	t.Helper()
	rec, err := os.ReadFile(filepath.Join(dir, "s.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	side, err := os.ReadFile(filepath.Join(dir, "s.jsonl.dir"))
	if err != nil {
		t.Fatal(err)
	}
	n, m := bytes.Count(rec, []byte("\n")), bytes.Count(side, []byte("\n"))
	if n != m || n < min {
		t.Errorf("the recording holds %d lines and its sidecar %d: want the same, at least %d", n, m, min)
	}
}

// TestTapEndsWhenTheEditorStopsReading: the editor closes the tap's
// stdout while the agent writes. The tap ends at once with the agent's
// broken pipe (141), the agent is gone, and what was recorded is kept.
func TestTapEndsWhenTheEditorStopsReading(t *testing.T) {
	dir := t.TempDir()
	cmd, in, out := tapProcess(t, dir, `echo $$ > "$0"; while :; do echo '`+updateLine+`'; done`)
	defer in.Close()
	if _, err := io.ReadFull(out, make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	out.Close()
	if code := waitWithin(t, cmd, 5*time.Second); code != 141 {
		t.Errorf("exit %d, want 141 (a broken pipe)", code)
	}
	if !agentGone(t, dir) {
		t.Error("the agent is still running")
	}
	sameLines(t, dir, 1)
}

// TestTapEndsWithTheAgentWhenTheEditorClosesItsInput: the editor closes
// the tap's stdin while the agent waits for a request. The agent sees the
// end of its input, and the tap ends when it does, with its status.
func TestTapEndsWithTheAgentWhenTheEditorClosesItsInput(t *testing.T) {
	dir := t.TempDir()
	cmd, in, out := tapProcess(t, dir, `echo $$ > "$0"; while read -r l; do echo "$l"; done; exit 7`)
	defer out.Close()
	req := `{"jsonrpc":"2.0","id":1,"method":"session/cancel_x"}` + "\n"
	if _, err := io.WriteString(in, req); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(req))
	if _, err := io.ReadFull(out, got); err != nil || string(got) != req {
		t.Fatalf("read %q, %v: want the echo", got, err)
	}
	in.Close()
	if code := waitWithin(t, cmd, 5*time.Second); code != 7 {
		t.Errorf("exit %d, want the agent's 7", code)
	}
	if !agentGone(t, dir) {
		t.Error("the agent is still running")
	}
	sameLines(t, dir, 2)
}

// TestTapEndsWhenTheEditorIsKilled: the editor that started the tap is
// killed, and with it go its ends of the tap's pipes. The tap ends at
// once, whether the agent writes (its broken pipe) or waits for input
// (the end of it), and leaves no agent behind.
func TestTapEndsWhenTheEditorIsKilled(t *testing.T) {
	for name, script := range map[string]string{
		"writing": `echo $$ > "$0"; while :; do echo '` + updateLine + `'; sleep 0.01; done`,
		"waiting": `echo $$ > "$0"; echo '` + updateLine + `'; while read -r l; do :; done`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			// The editor: a shell that starts the tap in the background,
			// says its process id, and waits.
			tapPid := filepath.Join(dir, "tap.pid")
			editor := exec.Command("sh", "-c", `"$0" --record "$1/s.jsonl" --findings "$1/findings.txt" -- sh -c "$2" "$1/pid" & echo $! > "$3"; wait`, exe, dir, script, tapPid)
			editor.Env = append(os.Environ(), asMain+"=1")
			in, err := editor.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out, err := editor.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := editor.Start(); err != nil {
				t.Fatal(err)
			}
			// The agent has started once its first line comes through.
			if _, err := io.ReadFull(out, make([]byte, 10)); err != nil {
				t.Fatal(err)
			}
			_ = editor.Process.Kill()
			_ = editor.Wait()
			in.Close()
			out.Close()
			if !pidGone(t, tapPid, 10*time.Second) {
				t.Fatal("the tap did not end within 10s of its editor's death")
			}
			if !agentGone(t, dir) {
				t.Error("the agent is still running")
			}
			sameLines(t, dir, 1)
		})
	}
}

// pidGone waits up to limit for the process whose id file holds to end
// (a zombie no one waits for has ended), and kills it if it has not.
func pidGone(t *testing.T, file string, limit time.Duration) bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(pid, syscall.SIGKILL) }()
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if os.IsNotExist(err) {
			return true
		}
		if err == nil {
			if _, rest, ok := strings.Cut(string(st), ") "); ok && strings.HasPrefix(rest, "Z") {
				return true
			}
		} else if syscall.Kill(pid, 0) != nil {
			return true
		}
	}
	return false
}
