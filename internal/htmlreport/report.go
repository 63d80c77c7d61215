// Package htmlreport renders checked traces as one self-contained HTML page:
// per trace, the peers, the protocol and version and why, the counts; a
// timeline with the client and the agent in two lanes, one row per message,
// requests linked to their answers; sessions, jobs and runs to filter by;
// tool calls, permission requests, plans, terminals, jobs and runs as
// lifecycles; and every finding at its message, with its pointer
// highlighted in the pretty-printed JSON.
//
// The page loads nothing and runs nothing from a trace: the trace's text is
// data (JSON in a script element of a non-script type, with <, > and &
// escaped), the page's one script puts it on screen as text only, and a
// Content-Security-Policy allows that script and that style sheet, by their
// hashes, and nothing else.
//
// A report of several traces opens on an overview: the run's totals, the
// findings by side and by rule, and a table of the traces, worst first,
// sortable and filtered by side, rule and text, each row a link to its
// trace.
//
// A Report is fed as the engine runs (each record as a Message, the
// findings, each trace's summary) and written once at the end. It knows no
// protocol: what a message shows (its brief, its sessions, jobs or runs,
// the lifecycles it moves, the implementation it names) comes with the
// Message, as the message's protocol read it, and how to draw each
// protocol's traces comes in Options.Protocols.
//
// Past a bound (Options.MaxRows, Options.MaxBytes) it keeps only the
// messages of a trace around its findings; past Options.MaxListed traces
// the table lists the worst, and past Options.MaxDetailed traces or
// Options.MaxDetailBytes of their data the page holds the messages of the
// worst only. Each time it says what it
// left out, and how to see it.
package htmlreport

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentproto/agentproto/internal/spool"
	"github.com/agentproto/agentproto/internal/textsafe"
	"github.com/agentproto/agentproto/pkg/validate/finding"
)

// Options bound a report.
type Options struct {
	// MaxRows is the number of messages of one trace kept whole; past
	// it only those within Context messages of a finding are kept (0:
	// DefaultMaxRows).
	MaxRows int
	// MaxBytes bounds the text of the messages kept, per trace, the same
	// way (0: DefaultMaxBytes).
	MaxBytes int
	// MaxLine is the longest text of one message shown; a longer one is
	// cut, and the report says so (0: DefaultMaxLine).
	MaxLine int
	// Context is the number of messages kept on each side of a finding
	// once a trace is past its bound (0: DefaultContext).
	Context int
	// Title heads the page ("" : "agentproto trace report").
	Title string
	// RuleHelp, if set, describes a rule in a sentence ("" for none),
	// shown with each finding of the rule.
	RuleHelp func(rule string) string
	// MaxListed is the number of traces the overview's table lists,
	// the worst (most errors, then most warnings) (0:
	// DefaultMaxListed). The others are counted, not listed.
	MaxListed int
	// MaxDetailed is the number of traces whose messages the page
	// holds, the worst; MaxDetailBytes bounds their data, the worst
	// trace's always held (0: DefaultMaxDetailed,
	// DefaultMaxDetailBytes). The table lists the others with their
	// counts, and says how to see their messages.
	MaxDetailed    int
	MaxDetailBytes int64
	// Protocols says how to draw each protocol's traces; a protocol not
	// in it gets two lanes, client and agent, and traffic both ways.
	Protocols []Protocol
}

// Message is one record of a trace: its text, what the engine made of it,
// and what its protocol reads in it.
type Message struct {
	Line int // 1-based line of the record
	// Data is the record's bytes, read only during the call.
	Data []byte
	// Label is the message type ("session/prompt"); "" if none.
	Label string
	// From is "client", "agent" or "" (not told).
	From string
	// Answers is the line of the request the message answers (0: none).
	Answers int
	// Parsed reports whether the record was read whole and parsed.
	Parsed bool

	// Brief says in one line what the message is.
	Brief string
	// Groups name the sessions, jobs or runs the message belongs to.
	Groups []string
	// Steps are the steps of lifecycles the message takes, in order; a
	// step may land on an earlier line (an answer telling what its
	// request began).
	Steps []Step
	// Peer is the implementation the message announces (Side "client"
	// or "agent"); the zero Peer for none.
	Peer finding.Peer
	// Pairs is the line of the request the protocol pairs the message
	// with where Answers is 0 (0: none).
	Pairs int
}

// Step is one step of a lifecycle: its kind and id ("tool call" "c1"),
// the group it belongs to, its state after the step and the line of the
// step.
type Step struct {
	Kind, ID, Group, State string
	Line                   int
}

// Defaults of Options.
const (
	DefaultMaxRows        = 50000
	DefaultMaxBytes       = 48 << 20
	DefaultMaxLine        = 64 << 10
	DefaultContext        = 3
	DefaultMaxListed      = 10000
	DefaultMaxDetailed    = 10000
	DefaultMaxDetailBytes = 64 << 20
)

// Report collects traces, their messages and their findings. A trace that
// has ended leaves counts, its row of the overview if it is among the
// Options.MaxListed worst, and its data, if it is among the
// Options.MaxDetailed worst, in a spool (in memory while small, then in a
// temporary file): memory does not grow with the number of traces.
type Report struct {
	opts     Options
	traces   []*traceData // not yet ended and counted, in order
	seq      int          // traces begun
	details  spool.Spool  // the JSON of traces' data, one after another
	listed   worstHeap    // the rows of the table
	detailed worstHeap    // the traces whose data is in details
	unlisted tally
	totals   totals
	sides    map[string]*tally
	byRule   map[string]*tally
	rules    map[string]string
	err      error
}

// New returns an empty report.
func New(o Options) *Report {
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.Context <= 0 {
		o.Context = DefaultContext
	}
	if o.Title == "" {
		o.Title = "agentproto trace report"
	}
	if o.MaxListed <= 0 {
		o.MaxListed = DefaultMaxListed
	}
	if o.MaxDetailed <= 0 {
		o.MaxDetailed = DefaultMaxDetailed
	}
	o.MaxDetailed = min(o.MaxDetailed, o.MaxListed)
	if o.MaxDetailBytes <= 0 {
		o.MaxDetailBytes = DefaultMaxDetailBytes
	}
	return &Report{opts: o, rules: map[string]string{}, sides: map[string]*tally{}, byRule: map[string]*tally{}}
}

// row is one message of a trace, as kept.
type row struct {
	n       int // 0-based position among the trace's messages
	line    int
	from    string
	label   string
	answers int
	parsed  bool
	text    string
	cut     int // bytes left out of text
	facts   facts
}

// shownFinding is a finding as the page shows it.
type shownFinding struct {
	line                   int
	warning                bool
	rule, pointer, message string
	requirement, side      string
}

// traceData is one trace of the report.
type traceData struct {
	n        int // 1-based, in the order the traces began
	name     string
	view     *view
	rows     []*row
	findings []shownFinding
	sum      finding.Summary
	ended    bool

	seen     int // messages told
	bytes    int // text kept
	bounded  bool
	ring     []*row // recent messages not kept (yet), once bounded
	keepNext int    // messages still to keep after a finding
	omitted  int
	ranges   [][2]int // lines of the messages left out, merged
	cutLines int
}

// trace returns the trace named name: the last one if it has that name
// and has not ended, else a new one.
func (r *Report) trace(name string) *traceData {
	if n := len(r.traces); n > 0 && r.traces[n-1].name == name && !r.traces[n-1].ended {
		return r.traces[n-1]
	}
	r.seq++
	t := &traceData{n: r.seq, name: name, view: newView()}
	r.traces = append(r.traces, t)
	return t
}

// Message adds the next message of the trace named file.
func (r *Report) Message(file string, m Message) {
	t := r.trace(file)
	rw := &row{n: t.seen, line: m.Line, from: m.From, label: m.Label, answers: m.Answers, parsed: m.Parsed}
	t.seen++
	data := m.Data
	if len(data) > r.opts.MaxLine {
		rw.cut = len(data) - r.opts.MaxLine
		data = data[:r.opts.MaxLine]
		t.cutLines++
	}
	rw.text = inert(string(data))
	rw.facts = t.view.observe(rw.line, &m)
	if !t.bounded && (len(t.rows) >= r.opts.MaxRows || t.bytes+len(rw.text) > r.opts.MaxBytes) {
		t.bounded = true
	}
	if !t.bounded || t.keepNext > 0 {
		if t.bounded {
			t.keepNext--
		}
		t.keep(rw)
		return
	}
	t.ring = append(t.ring, rw)
	// The ring holds the message a finding may come for and the
	// Context messages before it.
	if len(t.ring) > r.opts.Context+1 {
		t.drop(t.ring[0])
		t.ring = t.ring[1:]
	}
}

func (t *traceData) keep(rw *row) {
	t.rows = append(t.rows, rw)
	t.bytes += len(rw.text)
}

func (t *traceData) drop(rw *row) {
	t.omitted++
	if n := len(t.ranges); n > 0 && t.ranges[n-1][1] < rw.line && t.lastKeptBefore(rw.line) < t.ranges[n-1][1] {
		t.ranges[n-1][1] = rw.line
		return
	}
	t.ranges = append(t.ranges, [2]int{rw.line, rw.line})
}

// lastKeptBefore returns the line of the last kept message before line.
func (t *traceData) lastKeptBefore(line int) int {
	if n := len(t.rows); n > 0 {
		return t.rows[n-1].line
	}
	return 0
}

// Finding adds a finding of the trace f.File.
func (r *Report) Finding(f finding.Finding) {
	t := r.trace(f.File)
	t.findings = append(t.findings, shownFinding{
		line: f.Line, warning: f.Severity == finding.Warning, rule: inert(f.Rule), pointer: inert(f.Pointer), message: inert(f.Message),
		requirement: inert(f.Requirement), side: inert(f.Side),
	})
	if !t.bounded || f.Line <= 0 {
		return
	}
	// Keep the message and those before it still held, and the next few.
	for _, rw := range t.ring {
		t.keep(rw)
	}
	t.ring = t.ring[:0]
	t.keepNext = r.opts.Context
}

// End closes the trace file with its summary.
func (r *Report) End(file string, sum finding.Summary) {
	r.trace(file).end(sum)
	r.keepEnded()
}

// end closes the trace with its summary.
func (t *traceData) end(sum finding.Summary) {
	for _, rw := range t.ring {
		t.drop(rw)
	}
	t.ring = nil
	t.sum = sum
	t.ended = true
}

// inert shows the characters a browser may act on rather than show (C1
// controls, line and paragraph separators, bidirectional controls) as \u
// escapes, and invalid UTF-8 as \x escapes. Inside a JSON string an escape
// stands for the same character, so a message stays the same JSON; other
// text only looks different.
func inert(s string) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || unsafeRune(r) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var sb strings.Builder
	sb.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&sb, `\x%02x`, s[i])
		case unsafeRune(r):
			fmt.Fprintf(&sb, `\u%04x`, r)
		default:
			sb.WriteString(s[i : i+size])
		}
		i += size
	}
	return sb.String()
}

func unsafeRune(r rune) bool { return r >= 0x80 && textsafe.Unsafe(r) }

// sortedCounts lists a count map most frequent first, then by name.
func sortedCounts(m map[string]int) [][2]any {
	keys := finding.SortedKeys(m)
	out := make([][2]any, len(keys))
	for i, k := range keys {
		out[i] = [2]any{inert(k), m[k]}
	}
	return out
}
