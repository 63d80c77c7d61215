package tap

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/agentproto/agentproto/pkg/validate"
)

// DefaultBacklog is the most trace bytes Live holds for a validator that
// has fallen behind, when StartLive is given 0.
const DefaultBacklog = 64 << 20

// Live validates the recorded lines as they arrive, with the same engine,
// the same order and the same direction sidecar as a later check of the
// recording, so it reports the same findings. It is an Observer: Line only
// appends to a bounded queue and never waits for the engine. When the
// engine falls more than the backlog behind, live validation stops (the
// findings reported until then stand) and Stats says where: a check that
// skipped lines would report false errors.
type Live struct {
	trace, dirs *queue
	cancel      context.CancelFunc
	done        chan struct{}

	mu       sync.Mutex
	sum      validate.Summary
	err      error
	lines    int
	stopped  int // the line at which validation gave up (0: it did not)
	stopping bool
	why      string           // why validation gave up
	shown    validate.Summary // the findings passed on
	report   func(validate.Finding)
	start    func() // starts the engine, at the first line
	started  bool
	protocol string    // forced, or "" (see SidecarNames)
	names    [2][]byte // the sidecar's lines, chosen at the first line
}

// LiveStats say how much of the traffic was validated live.
type LiveStats struct {
	// Lines is the number of lines observed.
	Lines int
	// StoppedAt is the first line not validated, when the validator fell
	// further behind than the backlog allows; 0 when every line was.
	StoppedAt int
}

// StartLive starts checking, with eng, the trace named name (the name
// findings carry: the recording's path, so that they match a later check of
// it). protocol is the one the engine is told to assume, if any: it
// chooses the direction names as the recorder does (SidecarNames). report is called with each finding in line order from one
// goroutine; it should not block for long (it delays validation, never the
// relay). The engine starts with the first line: a run that saw none
// reports nothing. backlog bounds the bytes queued for the engine (0:
// DefaultBacklog).
func StartLive(ctx context.Context, eng *validate.Engine, name, protocol string, backlog int, report func(validate.Finding)) *Live {
	return newLive(ctx, eng, name, protocol, backlog, true, report)
}

// StartLiveStream is StartLive for a trace recorded without a direction
// sidecar, such as an Arcan event stream (Server-Sent Events, whose
// messages say who sent them): the lines are given to the engine as they
// are, framing sniffed from the first line as a later check of the
// recording sniffs it, and the direction Line is given is not used.
func StartLiveStream(ctx context.Context, eng *validate.Engine, name string, backlog int, report func(validate.Finding)) *Live {
	return newLive(ctx, eng, name, "", backlog, false, report)
}

func newLive(ctx context.Context, eng *validate.Engine, name, protocol string, backlog int, sidecar bool, report func(validate.Finding)) *Live {
	if backlog <= 0 {
		backlog = DefaultBacklog
	}
	ctx, cancel := context.WithCancel(ctx)
	// The sidecar queue holds at most a direction (4 bytes) per message
	// of at least 2 bytes: bounded by the trace's backlog, it is given the
	// same bound so that no queue of the tap grows without one.
	l := &Live{trace: newQueue(backlog), cancel: cancel, done: make(chan struct{}), report: report, protocol: protocol}
	fo := validate.FileOptions{Idle: LiveIdle}
	if sidecar {
		l.dirs = newQueue(backlog)
		fo.Directions = l.dirs
	}
	l.start = func() {
		go func() {
			defer close(l.done)
			// Idle hands each pause's lines to the checks at once, so
			// that findings come while the session runs.
			sum, err := eng.Check(ctx, name, l.trace, fo, l.emit)
			l.mu.Lock()
			l.sum, l.err = sum, err
			l.mu.Unlock()
		}()
	}
	return l
}

// LiveIdle is how long a pause in the traffic must last before the lines
// read so far are checked: short enough to be live, long enough that a
// request and its immediate answer are usually checked together.
const LiveIdle = 5 * time.Millisecond

// emit passes a finding on, unless validation has given up: the engine's
// verdicts at a cut it did not choose (a request "never answered") would
// be false.
func (l *Live) emit(f validate.Finding) {
	l.mu.Lock()
	stopping := l.stopping
	l.mu.Unlock()
	if stopping {
		return
	}
	l.mu.Lock()
	l.shown.Add(f)
	l.mu.Unlock()
	if l.report != nil {
		l.report(f)
	}
}

// Line queues one line (with its newline) for the engine, and its
// direction (the engine reads one per line, blank lines included).
func (l *Live) Line(d Direction, line []byte) {
	if !l.lockLine() {
		return
	}
	if l.dirs == nil {
		if !l.trace.push(line) {
			l.stopLocked("it fell more than its backlog behind the traffic")
			return
		}
		l.mu.Unlock()
		return
	}
	names := l.names
	if names[0] == nil {
		n := SidecarNames(l.protocol, line)
		names = [2][]byte{[]byte(n[0] + "\n"), []byte(n[1] + "\n")}
		if !Blank(line, l.lines == 1) {
			l.names = names
		}
	}
	// The direction first: the engine reads it after the line.
	if !l.dirs.push(names[d]) || !l.trace.push(line) {
		l.stopLocked("it fell more than its backlog behind the traffic")
		return
	}
	l.mu.Unlock()
}

// LongLine is told of a line longer than the relay's --max-line, which is
// neither recorded nor held: live validation stops there, since the
// engine cannot be given the line, and what it would report after it
// (answers to a request it did not see) would be false.
func (l *Live) LongLine(d Direction, size int) {
	l.lost(fmt.Sprintf("a %s line is longer than --max-line (%d bytes read of it)", d, size))
}

// lost is told that a line of the traffic was neither recorded nor held
// (why says so): live validation stops there, as at a LongLine.
func (l *Live) lost(why string) {
	if l.lockLine() {
		l.stopLocked(why)
	}
}

// lockLine counts a line of the traffic, starting validation at the
// first, and reports whether validation still runs; then l.mu is held,
// else it is released.
func (l *Live) lockLine() bool {
	l.mu.Lock()
	l.lines++
	if !l.started {
		l.started = true
		l.start()
	}
	if l.stopping {
		l.mu.Unlock()
		return false
	}
	return true
}

// stopLocked gives up live validation at the current line; l.mu is held
// and is released.
func (l *Live) stopLocked(why string) {
	l.stopping = true
	l.stopped = l.lines
	l.why = why
	l.mu.Unlock()
	l.cancel()
	l.closeQueues()
}

func (l *Live) closeQueues() {
	l.trace.close()
	if l.dirs != nil {
		l.dirs.close()
	}
}

// Close ends the trace and waits for the engine to report the last
// findings. The summary counts what was validated; the error is the
// engine's (a cancelled context when validation gave up).
func (l *Live) Close() (validate.Summary, LiveStats, error) {
	l.closeQueues()
	l.mu.Lock()
	started := l.started
	l.started = true // no engine starts after Close
	l.mu.Unlock()
	if started {
		<-l.done
	}
	l.cancel()
	l.mu.Lock()
	defer l.mu.Unlock()
	st := LiveStats{Lines: l.lines, StoppedAt: l.stopped}
	if l.stopping {
		// The engine's counts include what it found at a cut it did
		// not choose (an empty trace, a cancelled read), which was not
		// reported: count what was.
		sum := l.sum
		sum.Errors, sum.Warnings, sum.ByRule = l.shown.Errors, l.shown.Warnings, l.shown.ByRule
		return sum, st, fmt.Errorf("live validation stopped at line %d: %s", l.stopped, l.why)
	}
	return l.sum, st, l.err
}

// queue is a byte pipe whose writer never blocks: push fails instead when
// more than limit bytes wait (limit 0: no limit). Read blocks until there
// are bytes or the queue is closed.
//
// The reader is woken when wakeBytes wait or wakeDelay after the first
// byte arrived, not on every push: waking the validator for each message
// would take the CPU the relay needs at the moment it forwards.
type queue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte
	off    int
	limit  int
	closed bool
	ready  bool        // the reader may take what waits
	timer  *time.Timer // makes the queue ready wakeDelay after it filled
}

const (
	wakeBytes = 64 << 10
	wakeDelay = 2 * time.Millisecond
)

func newQueue(limit int) *queue {
	q := &queue{limit: limit}
	q.cond = sync.NewCond(&q.mu)
	q.timer = time.AfterFunc(time.Hour, q.wake)
	q.timer.Stop()
	return q
}

// wake lets the reader take what waits.
func (q *queue) wake() {
	q.mu.Lock()
	q.ready = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

func (q *queue) push(p []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	if q.limit > 0 && len(q.buf)-q.off+len(p) > q.limit {
		return false
	}
	if q.off > 0 && q.off >= len(q.buf)/2 {
		n := copy(q.buf, q.buf[q.off:])
		q.buf, q.off = q.buf[:n], 0
	}
	was := len(q.buf) - q.off
	q.buf = append(q.buf, p...)
	switch {
	case len(q.buf)-q.off >= wakeBytes:
		q.ready = true
		q.cond.Broadcast()
	case was == 0:
		q.timer.Reset(wakeDelay)
	}
	return true
}

func (q *queue) Read(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for (q.off == len(q.buf) || !q.ready) && !q.closed {
		q.cond.Wait()
	}
	if q.off == len(q.buf) {
		return 0, io.EOF
	}
	n := copy(p, q.buf[q.off:])
	q.off += n
	if q.off == len(q.buf) {
		q.buf, q.off, q.ready = q.buf[:0], 0, false
	}
	return n, nil
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.timer.Stop()
	q.cond.Broadcast()
	q.mu.Unlock()
}
