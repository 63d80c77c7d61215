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
	"github.com/agentproto/agentproto/pkg/trace"
	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
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

type tapOptions struct {
	listen   string
	upstream string
	replay   string
	timeout  time.Duration
	record   string
	findings string
	format   string
	protocol string
	dialect  string
	partial  partialFlag
	maxDepth int
	workers  int
	fast     bool
	summary  bool
	live     bool
	failOn   bool // --fail-on-error
	// formats are the output formats besides outputFormats (plugins).
	formats []outputFormat
}

// runTap runs validate [flags] -- AGENT_CMD [ARGS...].
func runTap(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, pl plugins) int {
	fl := flag.NewFlagSet("validate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	o := tapOptions{formats: pl.formats}
	maxLine := byteSizeFlag(trace.DefaultMaxLine)
	backlog := byteSizeFlag(tap.DefaultBacklog)
	fl.StringVar(&o.listen, "listen", "", "relay HTTP: accept clients on `ADDR` (host:port) and pass them to --upstream")
	fl.StringVar(&o.upstream, "upstream", "", "with --listen: the server's `URL`: ws:// or wss:// for an ARCP runtime (one trace per connection), http:// or https:// for an SSE server (one trace per event stream)")
	fl.StringVar(&o.replay, "replay", "", "play the client side of the ACP `TRACE` (with its .dir sidecar) against the agent, validate what it says and compare the shape of its answers with the recording's; exit 1 on any error or difference")
	fl.DurationVar(&o.timeout, "timeout", 30*time.Second, "with --replay: the longest wait for each answer, and for the agent to exit at the end")
	fl.StringVar(&o.record, "record", "", "write the traffic to `FILE` as it flows, with the direction sidecar FILE.dir (with --listen: a folder, one trace per event stream)")
	fl.StringVar(&o.findings, "findings", "", "write findings to `FILE` (default: standard error)")
	fl.StringVar(&o.format, "format", "text", "findings `format`: text, json or github")
	fl.StringVar(&o.protocol, "protocol", "", "force the `protocol`: acp, arcp or arcan (default: detect)")
	fl.StringVar(&o.dialect, "dialect", "", "force the version or `dialect` the traffic is read as")
	fl.Var(&o.partial, "partial", "read the traffic as a capture that began mid-session (default: decide from it)")
	fl.Var(&maxLine, "max-line", "longest line held and validated, in bytes (suffixes KiB, MiB, GiB); a longer line is relayed but stops the recording and live checks")
	fl.Var(&backlog, "backlog", "most traffic held for a validator that falls behind, in bytes; past it live validation stops (the relay never waits)")
	fl.IntVar(&o.maxDepth, "max-depth", 0, fmt.Sprintf("deepest nesting of a message (default %d)", jsonscan.DefaultMaxDepth))
	fl.IntVar(&o.workers, "workers", 1, "goroutines that parse and validate (the other cores are left to the relay and the agent)")
	fl.BoolVar(&o.fast, "fast", true, "check messages with the generated Go types first")
	fl.BoolVar(&o.summary, "summary", true, "print the summary (text format) when the agent exits")
	fl.BoolVar(&o.live, "check", true, "validate the traffic as it flows (false: only relay and record)")
	fl.BoolVar(&o.failOn, "fail-on-error", false, "exit 1 when the findings include an error, after saying what the agent's own exit status was (for CI; default: the agent's status)")
	fl.Usage = func() {
		fmt.Fprint(stderr, tapUsage)
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "validate: "+format+"\n", a...)
		return exitUsage
	}
	if o.failOn && (o.listen != "" || !o.live) {
		return fail("--fail-on-error needs the live checks of a tap or replay: a relay (--listen) serves until stopped and --check=false only records; run validate on the recording")
	}
	if o.listen != "" && len(fl.Args()) > 0 {
		return fail("--listen relays a network server: give no agent command (unexpected %q)", fl.Args()[0])
	}
	// Parse stops at "--" (which it consumes) or at the first argument
	// that is not a flag: the command must follow "--" directly.
	command := fl.Args()
	if n := len(args) - len(command); o.listen == "" && (n == 0 || args[n-1] != "--") {
		return fail("the agent command must follow --, after every flag: validate [flags] -- AGENT_CMD [ARGS...]")
	}
	if f, ok := lookupFormat(o.format, pl.formats...); !ok || !f.live {
		return fail("unknown --format %q for live findings: want %s", o.format, formatNames(true))
	}
	if maxLine > 1<<31-1 {
		return fail("--max-line %d is too large: at most 2GiB", int64(maxLine))
	}
	if backlog > 1<<40 {
		return fail("--backlog %d is too large", int64(backlog))
	}
	if o.maxDepth < 0 || o.maxDepth > jsonscan.MaxDepthCeiling {
		return fail("--max-depth %d is out of range: want 1 to %d", o.maxDepth, jsonscan.MaxDepthCeiling)
	}

	var eng *validate.Engine
	if o.live {
		eopts := validate.Options{Protocol: o.protocol, Dialect: o.dialect, MaxLine: int(maxLine), MaxDepth: o.maxDepth, Workers: o.workers, Partial: protocol.Partial(o.partial)}
		var err error
		if eng, err = validate.New(pl.engineOptions(eopts, o.fast, false)); err != nil {
			return fail("%v", err)
		}
	}
	if o.listen != "" {
		return runHTTPRelay(ctx, o, eng, int(backlog), stderr)
	}

	// --max-line bounds what the relay holds of a line too, not only
	// what the engine validates.
	cfg := tap.Config{Command: command, Stdin: stdin, Stdout: stdout, Stderr: stderr, Protocol: o.protocol, MaxLine: int(maxLine)}
	if o.record != "" {
		rec, err := os.Create(o.record)
		if err != nil {
			return fail("creating the recording: %v", err)
		}
		defer rec.Close()
		dir, err := os.Create(o.record + ".dir")
		if err != nil {
			return fail("creating the direction sidecar: %v", err)
		}
		defer dir.Close()
		cfg.Record, cfg.Directions = rec, dir
	}

	var sink *findingSink
	var live *tap.Live
	if eng != nil {
		var closeOut func()
		var err error
		if sink, closeOut, err = liveSink(o, stderr); err != nil {
			return fail("%v", err)
		}
		defer closeOut()
		name := o.record
		switch {
		case name != "":
		case o.replay != "":
			name = "replay"
		default:
			name = "stdio"
		}
		// The relay's own context: an interrupt is forwarded to the
		// agent, which decides when the session ends.
		live = tap.StartLive(context.WithoutCancel(ctx), eng, name, o.protocol, int(backlog), sink.add)
		cfg.Observer = live
	}

	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, tap.ForwardedSignals()...)
	defer signal.Stop(sigs)
	cfg.Signals = sigs
	if bp := tap.BrokenPipe(); len(bp) > 0 {
		pipes := make(chan os.Signal, 1)
		signal.Notify(pipes, bp...)
		defer signal.Stop(pipes)
	}

	var res tap.Result
	var diffs []tap.Difference
	var err error
	if o.replay != "" {
		var rr tap.ReplayResult
		rr, err = replay(ctx, o, cfg)
		res, diffs = rr.Result, rr.Differences
	} else {
		res, err = tap.Run(context.WithoutCancel(ctx), cfg)
	}
	// The session is over: from now on, what the tap says on stderr is
	// given tapOutputWait to be taken, so that a stderr nobody reads
	// cannot keep the tap from ending.
	msgs := newDeadlineWriter(stderr, tapOutputWait)
	var diffSum validate.Summary // the differences, for the summary
	for _, d := range diffs {
		if sink != nil {
			f := validate.Finding{File: o.replay, Line: d.Line, Severity: validate.Error, Protocol: "acp", Rule: validate.RuleReplay, Message: d.Message}
			diffSum.Add(f)
			sink.add(f)
		} else {
			fmt.Fprintf(msgs, "%s:%d: error: %s [replay]\n", escapeText(o.replay), d.Line, escapeText(d.Message))
		}
	}
	code := res.ExitCode
	if o.replay != "" {
		code = exitOK
		if len(diffs) > 0 {
			code = exitFindings
		}
	}
	if err != nil {
		fmt.Fprintf(msgs, "validate: %s\n", escapeText(err.Error()))
		switch {
		case errors.Is(err, errReplayInput):
			code = exitUsage
		case errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist):
			code = 127
		case errors.Is(err, tap.ErrStart):
			code = 126
		}
	}
	if res.RecordErr != nil {
		fmt.Fprintf(msgs, "validate: %s\n", escapeText(res.RecordErr.Error()))
	}
	if live != nil {
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
		if o.failOn && sum.Errors > 0 && err == nil {
			errs := fmt.Sprintf("%d errors", sum.Errors)
			if sum.Errors == 1 {
				errs = "an error"
			}
			fmt.Fprintf(msgs, "validate: the agent exited with status %d; exiting 1 because the findings include %s (--fail-on-error)\n", res.ExitCode, errs)
			code = exitFindings
		}
	}
	return code
}

// findingSink writes findings from a goroutine of its own, so that a slow
// findings output never holds up validation, let alone the relay: when its
// queue is full, a finding is dropped and counted. add is safe for
// concurrent use, and after finish (a relay's connection still open when
// the relay stops): the finding is dropped.
type findingSink struct {
	p       *printer
	ch      chan validate.Finding
	final   chan *validate.Summary
	done    chan struct{}
	dropped atomic.Int64
	mu      sync.Mutex
	closed  bool
}

func newFindingSink(p *printer, depth int) *findingSink {
	s := &findingSink{p: p, ch: make(chan validate.Finding, depth), final: make(chan *validate.Summary, 1), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for f := range s.ch {
			if s.p.werr != nil {
				// The output failed or is stuck: count what is lost.
				s.dropped.Add(1)
				continue
			}
			s.p.finding(f)
			if len(s.ch) == 0 {
				s.p.flush()
			}
		}
		if sum := <-s.final; sum != nil {
			s.p.summary(*sum)
		}
		s.p.flush()
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

// runHTTPRelay runs --listen ADDR --upstream URL until ctx ends; with eng,
// each connection or event stream is checked as it flows.
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
	return newFindingSink(newPrinter(o.format, out, o.formats...), 4096), closeOut, nil
}

func runHTTPRelay(ctx context.Context, o tapOptions, eng *validate.Engine, backlog int, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "validate: "+format+"\n", a...)
		return exitUsage
	}
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
		check = &tap.RelayCheck{Engine: eng, Backlog: backlog, Report: rc.sink.add, Done: func(name string, sum validate.Summary, st tap.LiveStats, err error) {
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
