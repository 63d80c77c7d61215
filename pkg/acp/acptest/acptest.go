// Package acptest checks an ACP implementation's traffic in its own tests:
// every line one end of a connection reads and writes goes to the
// validator's live checks (the engine of cmd/validate, through package
// tap), so a Go agent's or client's go test fails on any ACP requirement it
// breaks, with the finding (its JSON pointer, requirement and the side at
// fault) and the message that broke it as the test's message.
//
// Wrap the streams an agent serves on:
//
//	r, w := acptest.Agent(t, fromClient, toClient)
//	side := acprpc.NewAgentSide(r, w)
//
// or take both ends of an in-memory connection from Pipe. The package
// imports the validator; the generated connection (package acprpc) and
// types do not.
package acptest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/agentproto/agentproto/pkg/tap"
	"github.com/agentproto/agentproto/pkg/validate"
)

// Check records one end of a connection and checks it live. Its Reader
// and Writer are the wrapped streams; every method is safe for concurrent
// use.
type Check struct {
	// Reader and Writer are the streams the end under test uses in place
	// of the ones given to New.
	Reader io.Reader
	Writer io.Writer

	mu       sync.Mutex
	live     *tap.Live
	lines    [][]byte  // every complete line, in recording order
	partial  [2][]byte // the unfinished line of each direction
	findings []validate.Finding
	closed   bool
}

// Side is the end of the connection under test.
type Side int

// The two ends.
const (
	AgentSide  Side = iota // r carries the client's messages, w the agent's
	ClientSide             // r carries the agent's messages, w the client's
)

// New starts checking the end side of a connection that reads r and
// writes w. Close ends the check and returns its findings.
func New(side Side, r io.Reader, w io.Writer) (*Check, error) {
	eng, err := validate.New(validate.Options{Protocol: "acp", Workers: 1})
	if err != nil {
		return nil, fmt.Errorf("acptest: starting the validator: %w", err)
	}
	c := &Check{}
	c.live = tap.StartLive(context.Background(), eng, "acp", "acp", 0, func(f validate.Finding) {
		c.mu.Lock()
		c.findings = append(c.findings, f)
		c.mu.Unlock()
	})
	in, out := tap.ClientToAgent, tap.AgentToClient
	if side == ClientSide {
		in, out = out, in
	}
	c.Reader = &reader{r: r, c: c, d: in}
	c.Writer = &writer{w: w, c: c, d: out}
	return c, nil
}

// observe records the complete lines of p, which travelled the way d.
func (c *Check) observe(d tap.Direction, p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	buf := append(c.partial[d], p...)
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		line := append([]byte(nil), buf[:i+1]...)
		c.lines = append(c.lines, line)
		c.live.Line(d, line)
		buf = buf[i+1:]
	}
	c.partial[d] = append(c.partial[d][:0], buf...)
}

type reader struct {
	r io.Reader
	c *Check
	d tap.Direction
}

func (r *reader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.c.observe(r.d, p[:n])
	return n, err
}

type writer struct {
	w io.Writer
	c *Check
	d tap.Direction
}

// Write records what is written before it is passed on, so that the
// recording stays in causal order: the peer cannot answer a line that is
// not yet recorded.
func (w *writer) Write(p []byte) (int, error) {
	w.c.observe(w.d, p)
	return w.w.Write(p)
}

// Close closes the wrapped writer, when it can be closed.
func (w *writer) Close() error {
	if c, ok := w.w.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// Close ends the check (later traffic is not checked) and returns every
// finding, errors and warnings, in line order.
func (c *Check) Close() ([]validate.Finding, error) {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	_, _, err := c.live.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.findings, err
}

// Line returns the recorded line n (1-based) without its newline, "" when
// there is none.
func (c *Check) Line(n int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n < 1 || n > len(c.lines) {
		return ""
	}
	return string(bytes.TrimRight(c.lines[n-1], "\r\n"))
}

// Agent wraps the streams of an agent under test (r: what the client
// sends, w: where the agent writes) and, when the test ends, fails it with
// every error finding and logs every warning.
func Agent(t testing.TB, r io.Reader, w io.Writer) (io.Reader, io.Writer) {
	t.Helper()
	return start(t, AgentSide, r, w)
}

// Client wraps the streams of a client under test (r: what the agent
// sends, w: where the client writes) as Agent does.
func Client(t testing.TB, r io.Reader, w io.Writer) (io.Reader, io.Writer) {
	t.Helper()
	return start(t, ClientSide, r, w)
}

func start(t testing.TB, side Side, r io.Reader, w io.Writer) (io.Reader, io.Writer) {
	t.Helper()
	c, err := New(side, r, w)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Report(t, c) })
	return c.Reader, c.Writer
}

// Report closes c and fails t with each error finding (and the line that
// broke it), logging each warning.
func Report(t testing.TB, c *Check) {
	t.Helper()
	findings, err := c.Close()
	if err != nil {
		t.Errorf("acptest: %v", err)
	}
	for _, f := range findings {
		msg := fmt.Sprintf("ACP %s, line %d: %s: %s [%s]\n\t%s", f.Severity, f.Line, f.Pointer, f.Message, f.Tag(), c.Line(f.Line))
		if f.Severity == validate.Error {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
}

// Pipe returns both ends of an in-memory connection: the agent's (it reads
// agentR and writes agentW) and the client's. The agent's end is checked as
// Agent checks it; the pipes are closed when the test ends, before the
// findings are reported.
func Pipe(t testing.TB) (agentR io.Reader, agentW io.Writer, clientR io.Reader, clientW io.Writer) {
	t.Helper()
	ar, cw := io.Pipe()
	cr, aw := io.Pipe()
	agentR, agentW = Agent(t, ar, aw)
	t.Cleanup(func() {
		cw.Close()
		aw.Close()
	})
	return agentR, agentW, cr, cw
}
