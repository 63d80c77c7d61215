//go:build unix

package tap

import (
	"bytes"
	"context"
	"io"
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
