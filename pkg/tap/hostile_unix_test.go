//go:build unix

package tap

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunEndsWhenAChildHoldsStdout: an agent that exits but leaves a child
// holding its stdout ends the run WaitDelay after it exited, not when the
// child does; what the agent wrote is relayed and recorded. Only a
// deadline can show that a run ends.
func TestRunEndsWhenAChildHoldsStdout(t *testing.T) {
	var out, rec bytes.Buffer
	done := make(chan Result, 1)
	go func() {
		res, err := Run(context.Background(), Config{
			Command:   []string{"sh", "-c", `sleep 60 & echo '{"jsonrpc":"2.0","method":"hi"}'; exit 3`},
			Stdout:    &out,
			Record:    &rec,
			WaitDelay: 100 * time.Millisecond,
		})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	select {
	case res := <-done:
		if res.ExitCode != 3 {
			t.Errorf("exit code %d, want the agent's 3", res.ExitCode)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the run waited for the agent's child, not for the agent")
	}
	if want := `{"jsonrpc":"2.0","method":"hi"}` + "\n"; out.String() != want || rec.String() != want {
		t.Errorf("relayed %q and recorded %q, want %q", out.String(), rec.String(), want)
	}
}

// TestRunEndsWhenAChildHoldsStderr: the same for a child holding the
// agent's stderr when stderr is not a file (it is copied by a goroutine
// Wait waits for).
func TestRunEndsWhenAChildHoldsStderr(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := Run(context.Background(), Config{
			Command:   []string{"sh", "-c", `sleep 60 >/dev/null & echo bye >&2`},
			Stdout:    &bytes.Buffer{},
			Stderr:    struct{ io.Writer }{io.Discard}, // not a file
			WaitDelay: 100 * time.Millisecond,
		}); err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the run waited for the child holding stderr")
	}
}

// floodAgent writes ACP notifications without end, after writing its
// process id to pidFile.
func floodAgent(pidFile string) []string {
	return []string{"sh", "-c", `echo $$ > "$0"; while :; do echo '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}'; done`, pidFile}
}

// gone reports whether the process whose id pidFile holds has ended
// (or is a zombie no one will wait for), waiting up to limit for it.
func gone(t *testing.T, pidFile string, limit time.Duration) bool {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the agent wrote no process id: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("process id %q: %v", b, err)
	}
	for end := time.Now().Add(limit); ; time.Sleep(20 * time.Millisecond) {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil && os.IsNotExist(err) {
			return true
		}
		if err == nil {
			if _, rest, ok := strings.Cut(string(st), ") "); ok && strings.HasPrefix(rest, "Z") {
				return true
			}
		} else if syscall.Kill(pid, 0) != nil {
			return true // no /proc here: the signal test is all there is
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// runBounded runs cfg and fails the test if the run has not ended within
// limit.
func runBounded(t *testing.T, cfg Config, limit time.Duration) Result {
	t.Helper()
	type out struct {
		res Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := Run(context.Background(), cfg)
		done <- out{res, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatal(o.err)
		}
		return o.res
	case <-time.After(limit):
		t.Fatalf("the run did not end within %v", limit)
	}
	return Result{}
}

// TestRunEndsWhenTheClientStopsReading: when the client closes its end of
// the agent's output while the agent writes, the run ends at once with the
// status of an agent whose reader went away (141, a broken pipe), the
// agent is gone, and the recording and its sidecar hold the same lines.
func TestRunEndsWhenTheClientStopsReading(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	go func() {
		_, _ = io.ReadFull(r, make([]byte, 1000))
		r.Close()
	}()
	var rec, dirs bytes.Buffer
	res := runBounded(t, Config{Command: floodAgent(pidFile), Stdout: w, Record: &rec, Directions: &dirs, WaitDelay: 10 * time.Second}, 5*time.Second)
	if res.ExitCode != 141 {
		t.Errorf("exit code %d, want 141 (the agent's broken pipe)", res.ExitCode)
	}
	if !gone(t, pidFile, 5*time.Second) {
		t.Error("the agent is still running")
	}
	lines, sidecar := bytes.Count(rec.Bytes(), []byte("\n")), bytes.Count(dirs.Bytes(), []byte("\n"))
	if lines == 0 || lines != sidecar || lines != res.Lines[AgentToClient] {
		t.Errorf("recorded %d lines, the sidecar %d, counted %d: want the same, and some", lines, sidecar, res.Lines[AgentToClient])
	}
}

// TestRunStopsAQuietAgentWhenTheClientHasGone: an agent that stops
// writing once its client has gone, and never exits by itself, is sent
// the broken pipe a write would have brought, with the processes it
// started: the run ends within WaitDelay of that.
func TestRunStopsAQuietAgentWhenTheClientHasGone(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	res := runBounded(t, Config{
		Command:   []string{"sh", "-c", `echo '{"jsonrpc":"2.0","method":"x"}'; sleep 60 & echo $! > "$0"; wait`, pidFile},
		Stdout:    errWriter{},
		WaitDelay: 200 * time.Millisecond,
	}, 10*time.Second)
	if res.ExitCode != 141 {
		t.Errorf("exit code %d, want 141", res.ExitCode)
	}
	if !gone(t, pidFile, 5*time.Second) {
		t.Error("the agent's child is still running")
	}
}

// errWriter is a client that has gone: every write fails.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, syscall.EPIPE }
