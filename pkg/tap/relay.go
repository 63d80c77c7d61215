package tap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Direction is the way a line travels.
type Direction uint8

// The two directions of an ACP stdio connection.
const (
	ClientToAgent Direction = iota // the client wrote it to the agent's stdin
	AgentToClient                  // the agent wrote it on its stdout
)

// String is the direction as the sidecar spells it: c2a or a2c.
func (d Direction) String() string {
	if d == AgentToClient {
		return "a2c"
	}
	return "c2a"
}

// Observer sees every recorded line, in the recording's order, from the
// relay's goroutines, one call at a time. line includes its newline and is
// only valid during the call. Line must not block: it runs on the relay's
// path.
type Observer interface {
	Line(d Direction, line []byte)
}

// DefaultMaxLine is the longest line Config.MaxLine lets the recorder hold
// while it waits for the line's end.
const DefaultMaxLine = 1 << 30

// DefaultWaitDelay is how long, after the agent has exited, Run goes on
// reading an output that a child the agent left running still holds open,
// when Config.WaitDelay is 0.
const DefaultWaitDelay = 2 * time.Second

// LongLineObserver is an Observer that is also told of a line longer than
// Config.MaxLine, which it is not given: size is the bytes read of it when
// it passed the limit.
type LongLineObserver interface {
	Observer
	LongLine(d Direction, size int)
}

// Config describes one relayed run.
type Config struct {
	// Command is the agent's program and its arguments.
	Command []string
	// Env is the child's environment (nil: this process's).
	Env []string
	// Dir is the child's working directory ("": this process's).
	Dir string

	// Stdin is what the client writes; its end closes the agent's stdin.
	Stdin io.Reader
	// Stdout receives the agent's output. If it is an io.Closer it is
	// closed when the agent closes its stdout, so the client sees the end.
	Stdout io.Writer
	// Stderr receives the agent's standard error (nil: discarded). An
	// *os.File is handed to the child as it is.
	Stderr io.Writer

	// Record, if set, receives every line, in arrival order, as it is
	// complete. Each write holds whole lines.
	Record io.Writer
	// Directions, if set, receives the direction of each recorded line,
	// one per line, written with it: c2a or a2c, or for ARCP c2r or r2c
	// (see Protocol).
	Directions io.Writer
	// Observer, if set, sees each recorded line.
	Observer Observer
	// Protocol names the protocol for the sidecar's direction names
	// (SidecarNames): "" decides from the first line.
	Protocol string
	// MaxLine bounds the part of a line held while its end has not arrived
	// (0: DefaultMaxLine). A longer line is not held: it stops the
	// recording (the relay goes on, byte for byte); Result.RecordErr says
	// so, and the rest of the line is passed on without being kept.
	MaxLine int
	// WaitDelay bounds how long the relay goes on reading the agent's
	// output after the agent has exited (0: DefaultWaitDelay): a child
	// the agent left running may hold the output open without end. When
	// it passes, the output is closed, and the run ends.
	WaitDelay time.Duration

	// Signals are forwarded to the child until it exits.
	Signals <-chan os.Signal
}

// Result is the outcome of a run.
type Result struct {
	// ExitCode is the child's exit status; a child ended by a signal is
	// 128 plus the signal's number, as shells report it.
	ExitCode int
	// Lines counts the lines recorded in each direction.
	Lines [2]int
	// RecordErr is why recording stopped early, if it did: a write to
	// Record or Directions failed, or a line was longer than MaxLine.
	RecordErr error
}

// ErrStart wraps the error of a child that could not be started.
var ErrStart = errors.New("starting the agent")

// Run starts the agent and relays until it exits and its output has been
// passed on. Cancelling ctx kills the child. The error is a child that could
// not be started (wrapping ErrStart and the exec error) or a failure to wait
// for it; relaying and recording failures do not end the run.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if len(cfg.Command) == 0 {
		return Result{}, fmt.Errorf("%w: no command given", ErrStart)
	}
	cmd := exec.CommandContext(ctx, cfg.Command[0], cfg.Command[1:]...)
	cmd.Env, cmd.Dir = cfg.Env, cfg.Dir
	cmd.Stderr = cfg.Stderr
	delay := cfg.WaitDelay
	if delay <= 0 {
		delay = DefaultWaitDelay
	}
	// A stderr that is not a file is copied by a goroutine Wait waits
	// for; a child that holds it must not hold Wait.
	cmd.WaitDelay = delay
	setProcAttr(cmd)
	toAgent, err := cmd.StdinPipe()
	if err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrStart, err)
	}
	// The agent's stdout is a pipe of the relay's own, not StdoutPipe:
	// Wait must be able to return while a child of the agent still holds
	// the pipe's other end, and the reader can be given a deadline.
	fromAgent, agentOut, err := os.Pipe()
	if err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrStart, err)
	}
	cmd.Stdout = agentOut
	if err := cmd.Start(); err != nil {
		_ = fromAgent.Close()
		_ = agentOut.Close()
		return Result{}, fmt.Errorf("%w %s: %w", ErrStart, cfg.Command[0], err)
	}
	_ = agentOut.Close() // the child has its copy
	rec := newRecorder(cfg)

	exited := make(chan struct{})
	if cfg.Signals != nil {
		go func() {
			for {
				select {
				case s := <-cfg.Signals:
					// A child that has just exited cannot be signalled:
					// nothing is lost.
					_ = cmd.Process.Signal(s)
				case <-exited:
					return
				}
			}
		}()
	}
	// Client to agent: ends with the client's input (closing the agent's
	// stdin) or when the agent stops reading. It is not waited for: a
	// client may keep its end open after the agent has gone.
	go func() {
		if cfg.Stdin != nil {
			pump(cfg.Stdin, toAgent, ClientToAgent, rec)
		}
		_ = toAgent.Close()
	}()
	// Agent to client: read to the end, or until WaitDelay after the
	// agent exited, whichever is first. When the client stops reading,
	// the agent's output is closed at once: the agent is where a plain
	// agent whose reader went away would be (its next write fails with
	// a broken pipe), and nobody is left to read what it says.
	pumped := make(chan struct{})
	clientGone := false
	go func() {
		defer close(pumped)
		if !pump(fromAgent, cfg.Stdout, AgentToClient, rec) {
			clientGone = true
			_ = fromAgent.Close()
		}
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var werr error
	select {
	case <-pumped:
		if clientGone {
			werr = stopAgent(cmd, waited, delay)
		} else {
			werr = <-waited
		}
	case werr = <-waited:
		t := time.NewTimer(delay)
		select {
		case <-pumped:
		case <-t.C:
			// A child holds the output: what it writes from now on is
			// not relayed.
			if fromAgent.SetReadDeadline(time.Now()) != nil {
				_ = fromAgent.Close() // no deadlines on this system's pipes
			}
			<-pumped
		}
		t.Stop()
	}
	if c, ok := cfg.Stdout.(io.Closer); ok {
		_ = c.Close()
	}
	_ = fromAgent.Close()
	close(exited)
	res := rec.finish()
	res.ExitCode = exitCode(cmd.ProcessState)
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) && !errors.Is(werr, exec.ErrWaitDelay) {
		return res, fmt.Errorf("waiting for the agent: %w", werr)
	}
	return res, nil
}

// stopAgent ends the session of an agent whose client has gone: its
// output is closed, so an agent that writes meets the broken pipe a plain
// agent would. One that goes on without writing is sent what that write
// would have brought (SIGPIPE where there is one) after delay, and killed
// after delay more, with the processes of its group (the agent's own
// group: setProcAttr). It returns what Wait returned.
func stopAgent(cmd *exec.Cmd, waited <-chan error, delay time.Duration) error {
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case err := <-waited:
		return err
	case <-t.C:
	}
	if !signalBrokenPipe(cmd.Process) {
		killGroup(cmd.Process)
		return <-waited
	}
	t.Reset(delay)
	select {
	case err := <-waited:
		return err
	case <-t.C:
		killGroup(cmd.Process)
		return <-waited
	}
}

// pump copies src to dst chunk by chunk, recording each chunk's complete
// lines before the chunk is passed on. It stops when src ends or dst fails
// (the reader on the other side has gone), and then records the pending
// partial line, if any. It reports false when dst failed.
func pump(src io.Reader, dst io.Writer, d Direction, rec *recorder) (delivered bool) {
	defer rec.end(d)
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			rec.chunk(d, buf[:n])
			if dst != nil {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return false
				}
			}
		}
		if err != nil {
			return true
		}
	}
}

// recorder splits both directions into lines and writes them, in the order
// they complete, to the recording and the observer.
type recorder struct {
	mu      sync.Mutex
	cfg     Config
	max     int
	pending [2][]byte // the start of each direction's unfinished line
	skip    [2]bool   // the rest of an over-long line is being passed over
	ended   [2]bool
	out     []byte // lines of one chunk, written at once
	dirs    []byte
	lines   [2]int
	seen    bool      // a line has been recorded (a byte order mark is only first)
	names   [2][]byte // the sidecar's lines, chosen at the first message
	err     error     // recording stopped
	lost    bool      // a line was lost (lose): nothing more is observed
	done    bool      // the run is over: nothing more is recorded
}

func newRecorder(cfg Config) *recorder {
	r := &recorder{cfg: cfg, max: cfg.MaxLine}
	if r.max <= 0 {
		r.max = DefaultMaxLine
	}
	return r
}

// chunk records the lines p completes in direction d. A line longer than
// the limit is never held whole: past the limit its start is dropped,
// the recording stops, and the rest of it, up to its newline, is passed
// over.
func (r *recorder) chunk(d Direction, p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || r.ended[d] || r.lost {
		return
	}
	r.out, r.dirs = r.out[:0], r.dirs[:0]
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if r.skip[d] {
			if i < 0 {
				break
			}
			r.skip[d] = false
			p = p[i+1:]
			continue
		}
		if i < 0 {
			if len(r.pending[d])+len(p) > r.max {
				r.long(d, len(r.pending[d])+len(p))
				break
			}
			r.pending[d] = append(r.pending[d], p...)
			break
		}
		if len(r.pending[d])+i+1 > r.max+1 { // the newline is not counted
			r.long(d, len(r.pending[d])+i)
			p = p[i+1:]
			r.skip[d] = false
			continue
		}
		line := p[:i+1]
		if len(r.pending[d]) > 0 {
			r.pending[d] = append(r.pending[d], line...)
			line = r.pending[d]
		}
		r.add(d, line)
		r.pending[d] = r.pending[d][:0]
		p = p[i+1:]
	}
	r.write()
}

// long handles a line of direction d found longer than the limit after
// size bytes: the recording stops, its start is dropped, the rest is
// skipped up to its newline, and the observer is told if it asks.
func (r *recorder) long(d Direction, size int) {
	r.stop(fmt.Errorf("a %s line is longer than %d bytes (--max-line): recording stopped", d, r.max))
	r.pending[d] = nil
	r.skip[d] = true
	r.lines[d]++
	if o, ok := r.cfg.Observer.(LongLineObserver); ok {
		o.LongLine(d, size)
	}
}

// add records one line (ending in a newline) of direction d, and its
// direction: the sidecar holds one per line, blank lines included, so
// that a reader finds line k's at entry k.
func (r *recorder) add(d Direction, line []byte) {
	first := !r.seen
	r.seen = true
	names := r.names
	if names[0] == nil {
		// The names come from the first message; a blank line before it
		// gets the protocol's default names.
		n := SidecarNames(r.cfg.Protocol, line)
		names = [2][]byte{[]byte(n[0] + "\n"), []byte(n[1] + "\n")}
		if !Blank(line, first) {
			r.names = names
		}
	}
	r.lines[d]++
	if r.err == nil {
		r.out = append(r.out, line...)
		r.dirs = append(r.dirs, names[d]...)
	}
	if r.cfg.Observer != nil {
		r.cfg.Observer.Line(d, line)
	}
}

// Blank reports whether a recorded line holds no message: white space
// only, after a UTF-8 byte order mark if it is the first line. A trace's
// reader skips such lines; the sidecar still gives each its direction.
func Blank(line []byte, first bool) bool {
	if first {
		line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
	}
	return len(bytes.TrimSpace(line)) == 0
}

// write puts out the lines collected by add.
func (r *recorder) write() {
	if r.err != nil || len(r.out) == 0 {
		return
	}
	if r.cfg.Record != nil {
		if _, err := r.cfg.Record.Write(r.out); err != nil {
			r.stop(fmt.Errorf("writing the recording: %w", err))
			return
		}
	}
	if r.cfg.Directions != nil {
		if _, err := r.cfg.Directions.Write(r.dirs); err != nil {
			r.stop(fmt.Errorf("writing the direction sidecar: %w", err))
		}
	}
}

// wanted reports whether a line read now would be recorded or observed:
// a relay that holds lines only for these need not hold it.
func (r *recorder) wanted() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || r.lost {
		return false
	}
	return r.cfg.Observer != nil || (r.err == nil && (r.cfg.Record != nil || r.cfg.Directions != nil))
}

// lose stops the recording with err: a line of direction d could not be
// held, and is neither recorded nor observed. An observer that can be
// told (a Live) stops there too, since what follows a missing line would
// be judged wrongly.
func (r *recorder) lose(d Direction, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stop(err)
	if r.lost {
		return
	}
	r.lost = true
	r.lines[d]++
	if o, ok := r.cfg.Observer.(interface{ lost(why string) }); ok {
		o.lost(err.Error())
	}
}

func (r *recorder) stop(err error) {
	if r.err == nil {
		r.err = err
	}
}

// end records direction d's unfinished line, if any, with a newline added
// so the next line of the other direction stays a line of its own.
func (r *recorder) end(d Direction) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endLocked(d)
}

func (r *recorder) endLocked(d Direction) {
	if r.done || r.ended[d] {
		return
	}
	r.ended[d] = true
	if len(r.pending[d]) == 0 || r.skip[d] {
		return
	}
	r.out, r.dirs = r.out[:0], r.dirs[:0]
	r.pending[d] = append(r.pending[d], '\n')
	r.add(d, r.pending[d])
	r.pending[d] = nil
	r.write()
}

// finish ends the recording: the client's unfinished line, if any, is
// recorded, and nothing read later is.
func (r *recorder) finish() Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endLocked(ClientToAgent)
	r.endLocked(AgentToClient)
	r.done = true
	return Result{Lines: r.lines, RecordErr: r.err}
}
