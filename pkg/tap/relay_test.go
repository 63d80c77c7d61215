//go:build unix

package tap

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for a writer and a later reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// observed keeps what an Observer saw.
type observed struct {
	mu    sync.Mutex
	lines []string
}

func (o *observed) Line(d Direction, line []byte) {
	o.mu.Lock()
	o.lines = append(o.lines, d.String()+" "+string(line))
	o.mu.Unlock()
}

func TestRelayEchoRecordsEachRequestBeforeItsAnswer(t *testing.T) {
	cmd, env := childCmd(t, "echo")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var rec, dirs lockedBuffer
	obs := &observed{}
	done := make(chan Result, 1)
	go func() {
		res, err := Run(context.Background(), Config{Command: cmd, Env: env, Stdin: inR, Stdout: outW, Record: &rec, Directions: &dirs, Observer: obs})
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		done <- res
	}()
	out := bufio.NewReader(outR)
	var sent []string
	for i := 0; i < 50; i++ {
		// Each line is written in two pieces: the relay must pass the
		// first on without waiting for the line's end.
		line := strings.Replace(sampleLine, "sess-1", "sess-"+string(rune('a'+i%26)), 1)
		half := len(line) / 2
		if _, err := inW.Write([]byte(line[:half])); err != nil {
			t.Fatal(err)
		}
		if _, err := inW.Write([]byte(line[half:])); err != nil {
			t.Fatal(err)
		}
		got, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the echo of line %d: %v", i+1, err)
		}
		if got != line {
			t.Fatalf("echo of line %d: got %q, want %q", i+1, got, line)
		}
		sent = append(sent, line)
	}
	inW.Close()
	if rest, err := io.ReadAll(out); err != nil || len(rest) > 0 {
		t.Fatalf("after the last echo: %q, %v; want the end of output", rest, err)
	}
	res := <-done
	if res.ExitCode != 0 || res.RecordErr != nil {
		t.Fatalf("exit %d, record error %v", res.ExitCode, res.RecordErr)
	}
	var wantRec, wantDirs strings.Builder
	var wantObs []string
	for _, l := range sent {
		wantRec.WriteString(l + l)
		wantDirs.WriteString("c2a\na2c\n")
		wantObs = append(wantObs, "c2a "+l, "a2c "+l)
	}
	if rec.String() != wantRec.String() {
		t.Errorf("recording differs from the traffic:\n got %q\nwant %q", rec.String(), wantRec.String())
	}
	if dirs.String() != wantDirs.String() {
		t.Errorf("sidecar: got %q, want %q", dirs.String(), wantDirs.String())
	}
	if strings.Join(obs.lines, "") != strings.Join(wantObs, "") {
		t.Errorf("observer saw %d lines, want %d in recording order", len(obs.lines), len(wantObs))
	}
	if res.Lines != [2]int{50, 50} {
		t.Errorf("Lines = %v, want [50 50]", res.Lines)
	}
}

func TestCrashingChildLeavesCompleteRecordingAndItsStatus(t *testing.T) {
	cmd, env := childCmd(t, "crash")
	dir := t.TempDir()
	recPath := filepath.Join(dir, "s.jsonl")
	recF, err := os.Create(recPath)
	if err != nil {
		t.Fatal(err)
	}
	dirF, err := os.Create(recPath + ".dir")
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr lockedBuffer
	req := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n"
	res, err := Run(context.Background(), Config{Command: cmd, Env: env, Stdin: strings.NewReader(req), Stdout: &stdout, Stderr: &stderr, Record: recF, Directions: dirF})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	recF.Close()
	dirF.Close()
	if res.ExitCode != 3 {
		t.Errorf("exit code %d, want the child's 3", res.ExitCode)
	}
	wantOut := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","method":"session/up`
	if stdout.String() != wantOut {
		t.Errorf("stdout %q, want %q", stdout.String(), wantOut)
	}
	if stderr.String() != "child: crashing\n" {
		t.Errorf("stderr %q, want the child's", stderr.String())
	}
	gotRec, _ := os.ReadFile(recPath)
	gotDirs, _ := os.ReadFile(recPath + ".dir")
	// The unfinished last line is kept, ended by a newline.
	if want := req + wantOut + "\n"; string(gotRec) != want {
		t.Errorf("recording %q, want %q", gotRec, want)
	}
	if string(gotDirs) != "c2a\na2c\na2c\n" {
		t.Errorf("sidecar %q", gotDirs)
	}
}

func TestSignalsAreForwarded(t *testing.T) {
	cmd, env := childCmd(t, "signal")
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	sigs := make(chan os.Signal, 1)
	done := make(chan Result, 1)
	go func() {
		res, err := Run(context.Background(), Config{Command: cmd, Env: env, Stdin: inR, Stdout: outW, Signals: sigs})
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		done <- res
	}()
	if _, err := bufio.NewReader(outR).ReadString('\n'); err != nil {
		t.Fatalf("waiting for the child: %v", err)
	}
	sigs <- syscall.SIGTERM
	go io.Copy(io.Discard, outR)
	select {
	case res := <-done:
		if res.ExitCode != 42 {
			t.Errorf("exit code %d, want 42 (the child saw SIGTERM)", res.ExitCode)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the child did not exit after SIGTERM was forwarded")
	}
}

func TestSignalDeathIs128PlusSignal(t *testing.T) {
	res, err := Run(context.Background(), Config{Command: []string{"sh", "-c", "kill -TERM $$"}})
	if errors.Is(err, exec.ErrNotFound) {
		t.Skip("no sh on this system")
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 128+int(syscall.SIGTERM) {
		t.Errorf("exit code %d, want %d", res.ExitCode, 128+int(syscall.SIGTERM))
	}
}

func TestMissingCommandIsAStartError(t *testing.T) {
	_, err := Run(context.Background(), Config{Command: []string{filepath.Join(t.TempDir(), "no-such-agent")}})
	if !errors.Is(err, ErrStart) {
		t.Fatalf("err = %v, want ErrStart", err)
	}
}

func TestLongLineStopsRecordingNotRelay(t *testing.T) {
	cmd, env := childCmd(t, "drain")
	var rec lockedBuffer
	in := "short\n" + strings.Repeat("x", 100) + "\nafter\n"
	res, err := Run(context.Background(), Config{Command: cmd, Env: env, Stdin: &slowReader{s: in, n: 10}, Record: &rec, MaxLine: 50})
	if err != nil {
		t.Fatal(err)
	}
	if res.RecordErr == nil || !strings.Contains(res.RecordErr.Error(), "longer than 50 bytes") {
		t.Errorf("RecordErr = %v, want the long line named", res.RecordErr)
	}
	if rec.String() != "short\n" {
		t.Errorf("recording %q, want only what came before the long line", rec.String())
	}
	if res.ExitCode != 0 {
		t.Errorf("exit code %d: the child should have read all its input", res.ExitCode)
	}
}

// slowReader returns s n bytes at a time.
type slowReader struct {
	s string
	n int
}

func (r *slowReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	k := min(r.n, len(r.s), len(p))
	copy(p, r.s[:k])
	r.s = r.s[k:]
	return k, nil
}
