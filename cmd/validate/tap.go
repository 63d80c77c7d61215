package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/tap"
	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/report"
)

// isTap reports whether args ask for a tap: validate [flags] -- AGENT_CMD
// [ARGS...] (flags, then "--", then a command), or a network relay
// (--listen ADDR).
func isTap(args []string) bool {
	for i, a := range args {
		if a == "--" {
			return i+1 < len(args)
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "listen" {
			return true
		}
	}
	return false
}

const tapUsage = `validate as a tap: run an agent and check its traffic as it flows.

Usage:
  validate [flags] -- AGENT_CMD [ARGS...]
  validate --listen ADDR --upstream ws://HOST/arcp [--record DIR]
  validate --listen ADDR --upstream http://HOST [--record DIR]

The agent runs as a child process. This process's standard input goes to
the agent and the agent's standard output comes back on standard output,
byte for byte, so an editor can launch
  validate --record session.jsonl -- my-agent --acp
in place of
  my-agent --acp
and see no difference. The agent's standard error passes through, signals
are forwarded to it, and its exit status is this command's. Findings go to
--findings FILE or to standard error, never to standard output; the
recording (with its FILE.dir direction sidecar) is written line by line,
so validate FILE later reports the same findings.

The tap ends with the editor. An editor that stops reading (it closed the
pipe, crashed or was closed) has the agent's output closed at once: the
agent meets the broken pipe it would meet without the tap, and its status
(141) is this command's; an agent that writes no more is sent that signal
after 2 s, with the processes it started. An editor that closes the
agent's input is passed that end, and the tap ends when the agent does.
What was recorded until then is kept, the recording and its sidecar line
for line.

With --replay TRACE, this command is the client: it sends the recorded
client messages to the agent in order, answers the agent's requests as the
recording did, validates everything the agent says and compares the shape
of its answers (methods, kinds, error codes, update variants; not ids or
text) with the recording's: any recorded session becomes a regression test.

With --listen and a ws:// or wss:// --upstream, this command is a WebSocket
relay in front of an ARCP runtime: each client connection is relayed to the
runtime frame by frame, unchanged, and with --record DIR each connection is
written to DIR/NNNN.jsonl with its .dir sidecar. With an http:// or https://
--upstream it is an HTTP relay in front of a server that streams
Server-Sent Events (an Arcan daemon): each request is passed on and each
response streamed back unchanged, and each event stream is written to
DIR/NNNN-PATH.sse as it flows. Each connection or event stream is also
checked as it flows, as the stdio tap checks (--check=false: not), with
findings naming its recording: they are those validate DIR reports later.
Either runs until interrupted, and then prints the summary.

Exit status: the agent's (128+N when signal N ended it); with --replay, 0
when the agent's traffic has no error and matches the recording's shape, 1
otherwise. 127 when the agent cannot be found, 126 when it cannot be
started, 2 for bad flags.

Flags:
`

// tapOptions are the flags of the tap, replay and relay: the check flags
// and their own.
type tapOptions struct {
	checkFlags
	listen   string
	upstream string
	replay   string
	timeout  time.Duration
	record   string
	findings string
	backlog  byteSizeFlag
	live     bool
	failOn   bool // --fail-on-error
	// formats are the output formats besides report's (plugins).
	formats []report.Format
}

// registerOwn defines the flags of the tap, replay and relay that a check
// of recorded traces does not take.
func (o *tapOptions) registerOwn(fl *flag.FlagSet) {
	o.backlog = byteSizeFlag(tap.DefaultBacklog)
	fl.StringVar(&o.listen, "listen", "", "relay HTTP: accept clients on `ADDR` (host:port) and pass them to --upstream")
	fl.StringVar(&o.upstream, "upstream", "", "with --listen: the server's `URL`: ws:// or wss:// for an ARCP runtime (one trace per connection), http:// or https:// for an SSE server (one trace per event stream)")
	fl.StringVar(&o.replay, "replay", "", "play the client side of the ACP `TRACE` (with its .dir sidecar) against the agent, validate what it says and compare the shape of its answers with the recording's; exit 1 on any error or difference")
	fl.DurationVar(&o.timeout, "timeout", 30*time.Second, "with --replay: the longest wait for each answer, and for the agent to exit at the end")
	fl.StringVar(&o.record, "record", "", "write the traffic to `FILE` as it flows, with the direction sidecar FILE.dir (with --listen: a folder, one trace per event stream)")
	fl.StringVar(&o.findings, "findings", "", "write findings to `FILE` (default: standard error)")
	fl.Var(&o.backlog, "backlog", "most traffic held for a validator that falls behind, in bytes; past it live validation stops (the relay never waits)")
	fl.BoolVar(&o.live, "check", true, "validate the traffic as it flows (false: only relay and record)")
	fl.BoolVar(&o.failOn, "fail-on-error", false, "exit 1 when the findings include an error, after saying what the agent's own exit status was (for CI; default: the agent's status)")
}

// tapFlagSet is the flag set of the tap, replay and relay, parsing into o:
// their own flags and the check flags, as the live modes read them.
func tapFlagSet(o *tapOptions, stderr io.Writer, pl plugins) *flag.FlagSet {
	fl := flag.NewFlagSet("validate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	o.registerOwn(fl)
	o.checkFlags.register(fl, liveMode, pl.protocolNames())
	fl.Usage = func() {
		fmt.Fprint(stderr, tapUsage)
		fl.PrintDefaults()
	}
	return fl
}

// runTap runs validate [flags] -- AGENT_CMD [ARGS...], a replay or a relay:
// it parses the flags, starts the checks, and runs the relay or the agent.
func runTap(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, pl plugins) int {
	o, command, code, ok := parseTap(args, stderr, pl)
	if !ok {
		return code
	}
	var eng *validate.Engine
	if o.live {
		var err error
		if eng, err = validate.New(pl.engineOptions(o.checkFlags.engineOptions(), o.fast, false)); err != nil {
			return usageError(stderr, "%v", err)
		}
	}
	if o.listen != "" {
		return runHTTPRelay(ctx, o, eng, stderr)
	}
	return runAgent(ctx, o, eng, command, stdin, stdout, stderr)
}

// usageError says what is wrong on stderr and returns exitUsage.
func usageError(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "validate: "+format+"\n", a...)
	return exitUsage
}

// parseTap parses and checks the flags of the tap, replay and relay, and
// returns them and the agent command; when ok is false, the run ends with
// code (the help was asked for, or a flag is wrong: said on stderr).
func parseTap(args []string, stderr io.Writer, pl plugins) (o tapOptions, command []string, code int, ok bool) {
	o.formats = pl.formats
	fl := tapFlagSet(&o, stderr, pl)
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, nil, exitOK, false
		}
		return o, nil, exitUsage, false
	}
	fail := func(format string, a ...any) (tapOptions, []string, int, bool) {
		return o, nil, usageError(stderr, format, a...), false
	}
	if o.failOn && (o.listen != "" || !o.live) {
		return fail("--fail-on-error needs the live checks of a tap or replay: a relay (--listen) serves until stopped and --check=false only records; run validate on the recording")
	}
	if o.listen != "" && len(fl.Args()) > 0 {
		return fail("--listen relays a network server: give no agent command (unexpected %q)", fl.Args()[0])
	}
	// Parse stops at "--" (which it consumes) or at the first argument
	// that is not a flag: the command must follow "--" directly.
	command = fl.Args()
	if n := len(args) - len(command); o.listen == "" && (n == 0 || args[n-1] != "--") {
		return fail("the agent command must follow --, after every flag: validate [flags] -- AGENT_CMD [ARGS...]")
	}
	if f, ok := report.Lookup(o.format, pl.formats...); !ok || !f.Live {
		return fail("unknown --format %q for live findings: want %s", o.format, report.Names(true))
	}
	if o.maxLine > 1<<31-1 {
		return fail("--max-line %d is too large: at most 2GiB", int64(o.maxLine))
	}
	if o.backlog > 1<<40 {
		return fail("--backlog %d is too large", int64(o.backlog))
	}
	if o.maxDepth < 0 || o.maxDepth > jsonscan.MaxDepthCeiling {
		return fail("--max-depth %d is out of range: want 1 to %d", o.maxDepth, jsonscan.MaxDepthCeiling)
	}
	return o, command, exitOK, true
}

// runAgent runs the agent command (a tap, or with --replay a replay),
// checking its traffic with eng if set, and returns the exit status.
func runAgent(ctx context.Context, o tapOptions, eng *validate.Engine, command []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// --max-line bounds what the relay holds of a line too, not only
	// what the engine validates.
	cfg := tap.Config{Command: command, Stdin: stdin, Stdout: stdout, Stderr: stderr, Protocol: o.protocol, MaxLine: int(o.maxLine)}
	closeRecording, err := openRecording(o.record, &cfg)
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	defer closeRecording()
	var sink *findingSink
	var live *tap.Live
	if eng != nil {
		var closeOut func()
		if sink, closeOut, err = liveSink(o, stderr); err != nil {
			return usageError(stderr, "%v", err)
		}
		defer closeOut()
		// The relay's own context: an interrupt is forwarded to the
		// agent, which decides when the session ends.
		live = tap.StartLive(context.WithoutCancel(ctx), eng, liveName(o), o.protocol, int(o.backlog), sink.add)
		cfg.Observer = live
	}
	defer forwardSignals(&cfg)()

	var s sessionEnd
	if o.replay != "" {
		var rr tap.ReplayResult
		rr, s.err = replay(ctx, o, cfg)
		s.res, s.diffs = rr.Result, rr.Differences
	} else {
		s.res, s.err = tap.Run(context.WithoutCancel(ctx), cfg)
	}
	return s.report(o, sink, live, stderr)
}

// openRecording creates --record FILE and its direction sidecar for cfg;
// closeRecording closes them.
func openRecording(name string, cfg *tap.Config) (closeRecording func(), err error) {
	if name == "" {
		return func() {}, nil
	}
	rec, err := os.Create(name)
	if err != nil {
		return nil, fmt.Errorf("creating the recording: %w", err)
	}
	dir, err := os.Create(name + ".dir")
	if err != nil {
		rec.Close()
		return nil, fmt.Errorf("creating the direction sidecar: %w", err)
	}
	cfg.Record, cfg.Directions = rec, dir
	return func() {
		dir.Close()
		rec.Close()
	}, nil
}

// liveName is the file name the live findings of a tap or replay carry:
// the recording's, if any.
func liveName(o tapOptions) string {
	switch {
	case o.record != "":
		return o.record
	case o.replay != "":
		return "replay"
	}
	return "stdio"
}

// forwardSignals has the signals an agent gets forwarded to cfg's agent,
// and keeps a broken pipe from ending this process; stop undoes both.
func forwardSignals(cfg *tap.Config) (stop func()) {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, tap.ForwardedSignals()...)
	cfg.Signals = sigs
	var pipes chan os.Signal
	if bp := tap.BrokenPipe(); len(bp) > 0 {
		pipes = make(chan os.Signal, 1)
		signal.Notify(pipes, bp...)
	}
	return func() {
		if pipes != nil {
			signal.Stop(pipes)
		}
		signal.Stop(sigs)
	}
}

// sessionEnd is how an agent's session ended: the tap's or replay's result,
// the replay's differences from the recording, and what went wrong.
type sessionEnd struct {
	res   tap.Result
	diffs []tap.Difference
	err   error
}

// report says how the session ended (the replay's differences, errors,
// the live findings' summary) and returns the exit status.
func (s sessionEnd) report(o tapOptions, sink *findingSink, live *tap.Live, stderr io.Writer) int {
	// The session is over: from now on, what the tap says on stderr is
	// given tapOutputWait to be taken, so that a stderr nobody reads
	// cannot keep the tap from ending.
	msgs := newDeadlineWriter(stderr, tapOutputWait)
	var diffSum validate.Summary // the differences, for the summary
	for _, d := range s.diffs {
		if sink != nil {
			f := validate.Finding{File: o.replay, Line: d.Line, Severity: validate.Error, Protocol: tap.ReplayProtocol, Rule: validate.RuleReplay, Message: d.Message}
			diffSum.Add(f)
			sink.add(f)
		} else {
			fmt.Fprintf(msgs, "%s:%d: error: %s [replay]\n", escapeText(o.replay), d.Line, escapeText(d.Message))
		}
	}
	code := s.exitCode(o)
	if s.err != nil {
		fmt.Fprintf(msgs, "validate: %s\n", escapeText(s.err.Error()))
	}
	if s.res.RecordErr != nil {
		fmt.Fprintf(msgs, "validate: %s\n", escapeText(s.res.RecordErr.Error()))
	}
	if live == nil {
		return code
	}
	sum, st, lerr := live.Close()
	if lerr != nil {
		fmt.Fprintf(msgs, "validate: %s\n", escapeText(lerr.Error()))
	}
	// The summary counts what was printed: the replay's differences
	// too, not only the live findings.
	sum.Merge(diffSum)
	var showSum *validate.Summary
	if st.Lines > 0 && (o.format != "text" || o.summary) {
		showSum = &sum
	}
	if o.replay != "" && code == exitOK && sum.Errors > 0 {
		code = exitFindings
	}
	if dropped, ok := sink.finish(showSum, tapOutputWait); !ok {
		if o.findings == "" {
			msgs.giveUp() // the same stderr: it is not being read
		}
		fmt.Fprintln(msgs, "validate: the findings output did not take the last findings in time")
	} else if dropped > 0 {
		fmt.Fprintf(msgs, "validate: %d findings were dropped because the findings output did not keep up; run validate on the recording for all of them\n", dropped)
	}
	if o.failOn && sum.Errors > 0 && s.err == nil {
		errs := fmt.Sprintf("%d errors", sum.Errors)
		if sum.Errors == 1 {
			errs = "an error"
		}
		fmt.Fprintf(msgs, "validate: the agent exited with status %d; exiting 1 because the findings include %s (--fail-on-error)\n", s.res.ExitCode, errs)
		code = exitFindings
	}
	return code
}

// exitCode is the session's exit status before the live findings count:
// the agent's, or the replay's verdict on its differences; for a session
// that went wrong, the status that says how.
func (s sessionEnd) exitCode(o tapOptions) int {
	code := s.res.ExitCode
	if o.replay != "" {
		code = exitOK
		if len(s.diffs) > 0 {
			code = exitFindings
		}
	}
	switch {
	case s.err == nil:
	case errors.Is(s.err, errReplayInput):
		code = exitUsage
	case errors.Is(s.err, exec.ErrNotFound) || errors.Is(s.err, os.ErrNotExist):
		code = 127
	case errors.Is(s.err, tap.ErrStart):
		code = 126
	}
	return code
}

// findingSink writes findings from a goroutine of its own, so that a slow
// findings output never holds up validation, let alone the relay: when its
// queue is full, a finding is dropped and counted. add is safe for
// concurrent use, and after finish (a relay's connection still open when
// the relay stops): the finding is dropped.
type findingSink struct {
	p       report.Writer
	ch      chan validate.Finding
	final   chan *validate.Summary
	done    chan struct{}
	dropped atomic.Int64
	mu      sync.Mutex
	closed  bool
}

func newFindingSink(p report.Writer, depth int) *findingSink {
	s := &findingSink{p: p, ch: make(chan validate.Finding, depth), final: make(chan *validate.Summary, 1), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		var sides report.Totals // the findings of each side at fault
		for f := range s.ch {
			if s.p.Err() != nil {
				// The output failed or is stuck: count what is lost.
				s.dropped.Add(1)
				continue
			}
			s.p.Finding(f)
			sides.AddSide(f)
			if len(s.ch) == 0 {
				s.p.Flush()
			}
		}
		if sum := <-s.final; sum != nil {
			// The totals a later validate of the recording gives,
			// each side's counts with them.
			sides.Summary = *sum
			s.p.End(sides)
		}
		s.p.Flush()
	}()
	return s
}

// add queues a finding, or drops it when the output is behind.
func (s *findingSink) add(f validate.Finding) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.dropped.Add(1)
		return
	}
	select {
	case s.ch <- f:
	default:
		s.dropped.Add(1)
	}
}

// finish writes the summary (if sum is set) after the queued findings and
// waits at most wait for the output to take them; ok is false when it did
// not. dropped counts the findings not written.
func (s *findingSink) finish(sum *validate.Summary, wait time.Duration) (dropped int64, ok bool) {
	s.mu.Lock()
	s.closed = true
	close(s.ch)
	s.mu.Unlock()
	s.final <- sum
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-s.done:
		return s.dropped.Load(), true
	case <-t.C:
		return s.dropped.Load(), false
	}
}

// errReplayInput marks a recording a replay cannot read.
var errReplayInput = errors.New("replay")

// replay runs --replay: the recording's client side against the agent.
func replay(ctx context.Context, o tapOptions, cfg tap.Config) (tap.ReplayResult, error) {
	tr, err := os.Open(o.replay)
	if err != nil {
		return tap.ReplayResult{}, fmt.Errorf("%w: opening the recording: %w", errReplayInput, err)
	}
	defer tr.Close()
	side := findSidecar(o.replay)
	if side == "" {
		return tap.ReplayResult{}, fmt.Errorf("%w: %s has no .dir sidecar: a replay needs each message's direction", errReplayInput, o.replay)
	}
	dr, err := os.Open(side)
	if err != nil {
		return tap.ReplayResult{}, fmt.Errorf("%w: opening the direction sidecar: %w", errReplayInput, err)
	}
	defer dr.Close()
	rr, err := tap.Replay(context.WithoutCancel(ctx), tap.ReplayConfig{
		Command: cfg.Command, Stderr: cfg.Stderr, Trace: tr, Directions: dr, MaxLine: cfg.MaxLine,
		Record: cfg.Record, RecordDirections: cfg.Directions, Observer: cfg.Observer, Timeout: o.timeout,
	})
	if err != nil && errors.Is(err, tap.ErrRecording) {
		err = fmt.Errorf("%w: %w", errReplayInput, err)
	}
	return rr, err
}

// liveSink is where live findings go, in --format: the --findings file,
// or stderr. closeOut closes the file.
func liveSink(o tapOptions, stderr io.Writer) (sink *findingSink, closeOut func(), err error) {
	out, closeOut := stderr, func() {}
	if o.findings != "" {
		f, err := os.Create(o.findings)
		if err != nil {
			return nil, nil, fmt.Errorf("creating the findings file: %w", err)
		}
		out, closeOut = f, func() { f.Close() }
	}
	return newFindingSink(newWriter(o.format, out, report.Options{NoSummary: !o.summary}, o.formats...), 4096), closeOut, nil
}

// runHTTPRelay runs --listen ADDR --upstream URL until ctx ends; with eng,
// each connection or event stream is checked as it flows.
func runHTTPRelay(ctx context.Context, o tapOptions, eng *validate.Engine, stderr io.Writer) int {
	fail := func(format string, a ...any) int { return usageError(stderr, format, a...) }
	u, err := url.Parse(o.upstream)
	switch {
	case o.upstream == "":
		return fail("--listen needs --upstream, the server to relay to")
	case err != nil:
		return fail("--upstream: %v", err)
	}
	if o.record != "" {
		if err := os.MkdirAll(o.record, 0o755); err != nil {
			return fail("creating the recording folder: %v", err)
		}
	}
	recorded := func(path string, err error) {
		if err != nil {
			fmt.Fprintf(stderr, "validate: %s: %s\n", escapeText(path), escapeText(err.Error()))
			return
		}
		fmt.Fprintf(stderr, "validate: recorded %s\n", escapeText(path))
	}
	var rc *relayChecks
	var check *tap.RelayCheck
	if eng != nil {
		sink, closeOut, err := liveSink(o, stderr)
		if err != nil {
			return fail("%v", err)
		}
		defer closeOut()
		rc = &relayChecks{sink: sink}
		check = &tap.RelayCheck{Engine: eng, Backlog: int(o.backlog), Report: rc.sink.add, Done: func(name string, sum validate.Summary, st tap.LiveStats, err error) {
			rc.done(sum, st)
			if err != nil {
				fmt.Fprintf(stderr, "validate: %s: %s\n", escapeText(name), escapeText(err.Error()))
			}
		}}
	}
	var h http.Handler
	if u.Scheme == "ws" || u.Scheme == "wss" {
		h, err = tap.NewWSRelay(tap.WSConfig{Upstream: u, RecordDir: o.record, Recorded: recorded, Check: check})
	} else {
		h, err = tap.NewHTTPRelay(tap.HTTPConfig{Upstream: u, RecordDir: o.record, Recorded: recorded, Check: check})
	}
	if err != nil {
		return fail("--upstream %s: %v", escapeText(o.upstream), err)
	}
	if rc != nil {
		// The findings of the traces checked to the end, and the
		// summary of them all, once the relay has stopped.
		defer rc.finish(o, stderr)
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fail("--listen: %v", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
	fmt.Fprintf(stderr, "validate: relaying http://%s to %s\n", ln.Addr(), escapeText(u.String()))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fail("serving: %v", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		// Open event streams do not end by themselves.
		_ = srv.Close()
	}
	return exitOK
}

// relayChecks gathers the live checks of a relay's traces.
type relayChecks struct {
	sink  *findingSink
	mu    sync.Mutex
	sum   validate.Summary
	lines int
}

// done counts a trace whose check has ended.
func (r *relayChecks) done(sum validate.Summary, st tap.LiveStats) {
	r.mu.Lock()
	r.sum.Merge(sum)
	r.lines += st.Lines
	r.mu.Unlock()
}

// finish writes the summary of the traces checked to the end, as the stdio
// tap does at the agent's exit, and says what the findings output lost.
func (r *relayChecks) finish(o tapOptions, stderr io.Writer) {
	msgs := newDeadlineWriter(stderr, tapOutputWait)
	r.mu.Lock()
	sum, lines := r.sum, r.lines
	r.mu.Unlock()
	var showSum *validate.Summary
	if lines > 0 && (o.format != "text" || o.summary) {
		showSum = &sum
	}
	if dropped, ok := r.sink.finish(showSum, tapOutputWait); !ok {
		if o.findings == "" {
			msgs.giveUp() // the same stderr: it is not being read
		}
		fmt.Fprintln(msgs, "validate: the findings output did not take the last findings in time")
	} else if dropped > 0 {
		fmt.Fprintf(msgs, "validate: %d findings were dropped because the findings output did not keep up (or came from a connection still open at the end); run validate on the recordings for all of them\n", dropped)
	}
}
