// Package validate checks recorded agent-protocol traffic (ARCP, ACP and
// Arcan AgentEvent traces) line by line against the schemas in schema/ and
// against the protocol state rules no schema can express, and reports
// findings that name the line, the JSON pointer, the rule and the fix.
//
// An Engine is built once (it compiles every schema named by the dispatch
// tables) and is safe for concurrent use; Check validates one trace. Lines
// are parsed and validated on all cores and reported in order, and memory is
// bounded by the largest line and the protocol state, not by the trace.
package validate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/trace"
	"github.com/agentproto/agentproto/schema"
)

// FastChecker is the seam for a faster path than the general schema
// validator, for example generated Go types decoded strictly and checked
// with their Validate methods. Check reports whether the value at pointer
// (a JSON pointer into line, "" for the whole line) is certainly valid
// against the schema with $id schemaID. True skips the general validator for
// that value; false, or any doubt, runs it, and its findings are reported.
// Implementations must be safe for concurrent use.
type FastChecker interface {
	Check(schemaID, pointer string, line []byte) bool
}

// Roundtripper decodes the value at pointer in line (a JSON pointer, "" for
// the whole line) into typed values and encodes it again, to catch what a
// typed implementation would lose or change. diffs, one sentence each,
// become "roundtrip" findings; err means the value could not be decoded or
// encoded at all. schemaID is the $id of the message's own schema (an ACP
// method's params or result, an ARCP message type, an Arcan variant or store
// record). Implementations must be safe for concurrent use.
type Roundtripper interface {
	Roundtrip(schemaID, pointer string, line []byte) (diffs []string, err error)
}

// RoundtripFunc adapts a function to Roundtripper.
type RoundtripFunc func(schemaID, pointer string, line []byte) ([]string, error)

// Roundtrip calls f.
func (f RoundtripFunc) Roundtrip(schemaID, pointer string, line []byte) ([]string, error) {
	return f(schemaID, pointer, line)
}

// Options configure an Engine.
type Options struct {
	// Protocol forces the protocol of every file ("acp", "arcp" or
	// "arcan"); "" detects it from each file's content.
	Protocol string
	// Dialect forces the ARCP dialect ("canonical", "go-sdk" or
	// "rust-sdk"); "" detects it.
	Dialect string
	// MaxLine is the longest line kept, in bytes (0: trace.DefaultMaxLine).
	MaxLine int
	// MaxDepth bounds the nesting of a message (0: jsonscan.DefaultMaxDepth).
	MaxDepth int
	// Workers is the number of goroutines that parse and validate lines
	// (0: GOMAXPROCS).
	Workers int
	// Fast, if set, is asked first about each schema check.
	Fast FastChecker
	// Roundtrip, if set, is run on every message that parsed.
	Roundtrip Roundtripper
	// Observe, if set, is told the verdict of every schema check, in line
	// order, from one goroutine. The conformance harness uses it to have a
	// second validator (ajv) judge the same values against the same
	// schemas. Observing runs the general validator on every check, so it
	// costs the fast path's speed.
	Observe func(Observation)
}

// Observation is one schema check of one message.
type Observation struct {
	File     string
	Line     int
	SchemaID string // the $id (with fragment) of the schema
	Pointer  string // where the value sits in the message
	Value    any    // the value, as the engine parsed it (numbers as json.Number)
	Valid    bool   // the general validator's verdict
}

// Engine validates traces. It is safe for concurrent use by several Check
// calls. A protocol's schemas are compiled once, the first time a trace of
// that protocol is checked.
type Engine struct {
	opts    Options
	tables  map[string]*table // by folder below schema/, e.g. "acp/v1"
	workers int

	mu       sync.Mutex // guards the compiler and the caches below
	set      *schemaSet
	acp      map[string]*acpTables // by table folder
	arcp     *arcpTables
	arcpErr  error
	arcan    map[string]*table
	docsOnce sync.Once
	titles   map[string]string
	docs     map[string]any
}

// New reads the embedded dispatch tables and prepares the schema compiler.
func New(opts Options) (*Engine, error) {
	switch opts.Protocol {
	case "", "acp", "arcp", "arcan":
	default:
		return nil, fmt.Errorf("validate: unknown protocol %q (want acp, arcp or arcan)", opts.Protocol)
	}
	c, err := schema.NewCompiler()
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	tables, err := loadTables(schema.Files)
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	e := &Engine{
		opts: opts, tables: tables, workers: opts.Workers,
		set: &schemaSet{c: c, byID: map[string]*compiled{}},
		acp: map[string]*acpTables{}, arcan: map[string]*table{},
	}
	if e.workers <= 0 {
		e.workers = runtime.GOMAXPROCS(0)
	}
	if opts.Dialect != "" && !e.knownDialect(opts.Dialect) {
		return nil, fmt.Errorf("validate: unknown dialect %q (want %s, %s or %s for ARCP, or a schema version such as %s)", opts.Dialect, dialectCanonical, dialectGo, dialectRust, strings.Join(e.versions(), ", "))
	}
	return e, nil
}

func (e *Engine) knownDialect(d string) bool {
	switch d {
	case dialectCanonical, dialectGo, dialectRust:
		return true
	}
	for _, v := range e.versions() {
		if v == d {
			return true
		}
	}
	return false
}

// versions lists the schema versions and dialects of ACP and Arcan, for
// --dialect.
func (e *Engine) versions() []string {
	var out []string
	for _, t := range e.tables {
		if family(t.Protocol, "acp") || family(t.Protocol, "arcan") {
			out = append(out, t.Version)
		}
	}
	sort.Strings(out)
	return out
}

// family reports whether a table's protocol belongs to protocol: "acp"
// covers ACP's versions and its dialects ("acp-vtcode").
func family(tableProtocol, protocol string) bool {
	return tableProtocol == protocol || strings.HasPrefix(tableProtocol, protocol+"-")
}

// defaultVersion is the schema version a protocol's traces are read as when
// neither --dialect nor the trace says otherwise: ACP v1, the protocol in
// use (v2 is a draft, read only with --dialect v2); "" for the highest
// stable version.
func defaultVersion(protocol string) string {
	if protocol == "acp" {
		return "v1"
	}
	return ""
}

// pick returns the table of protocol for dialect: the table of that version
// (or dialect) if there is one, else the protocol's default version, else
// the highest stable version of the protocol itself (one without a "-"
// suffix such as "-unstable"), else its highest version.
func (e *Engine) pick(protocol, dialect string) *table {
	if dialect == "" {
		if d := defaultVersion(protocol); d != "" {
			if t := e.pick(protocol, d); t != nil && t.Version == d {
				return t
			}
		}
	}
	var stable, all []*table
	for _, t := range e.tables {
		if !family(t.Protocol, protocol) {
			continue
		}
		if dialect != "" && t.Version == dialect {
			return t
		}
		if t.Protocol != protocol {
			continue
		}
		all = append(all, t)
		if !strings.Contains(t.Version, "-") {
			stable = append(stable, t)
		}
	}
	if len(stable) > 0 {
		all = stable
	}
	if len(all) == 0 {
		return nil
	}
	sort.Slice(all, func(i, j int) bool { return all[i].dir < all[j].dir })
	return all[len(all)-1]
}

// Supported reports whether the engine has the schemas of protocol.
func (e *Engine) Supported(protocol string) bool {
	return e.pick(protocol, "") != nil
}

// acpFor compiles, once, the ACP tables of dialect ("" for the default).
func (e *Engine) acpFor(dialect string) (*acpTables, error) {
	t := e.pick("acp", dialect)
	if t == nil {
		return nil, fmt.Errorf("no ACP schemas")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if a := e.acp[t.dir]; a != nil {
		return a, nil
	}
	a, err := newACPTables(t, e.set)
	if err != nil {
		return nil, err
	}
	e.acp[t.dir] = a
	return a, nil
}

// arcpFor compiles, once, the ARCP schema sets.
func (e *Engine) arcpFor() (*arcpTables, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.arcp == nil && e.arcpErr == nil {
		e.arcp, e.arcpErr = newARCPTables(e.tables, e.set)
		if e.arcp == nil && e.arcpErr == nil {
			e.arcpErr = fmt.Errorf("no ARCP schemas")
		}
	}
	return e.arcp, e.arcpErr
}

// arcanFor compiles, once, the Arcan table to use.
func (e *Engine) arcanFor() (*table, error) {
	t := e.pick("arcan", e.opts.Dialect)
	if t == nil {
		return nil, fmt.Errorf("no Arcan schemas")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.arcan[t.dir] == nil {
		if err := t.compile(e.set); err != nil {
			return nil, fmt.Errorf("%s: %w", t.dir, err)
		}
		e.arcan[t.dir] = t
	}
	return t, nil
}

// schemaDocs returns the titles and documents of the schema files, read
// once, for explanations.
func (e *Engine) schemaDocs() (map[string]string, map[string]any) {
	e.docsOnce.Do(func() { e.titles, e.docs = titles(schema.Files) })
	return e.titles, e.docs
}

// FileOptions are the per-file inputs of Check.
type FileOptions struct {
	// Directions, if set, is an ACP direction sidecar: one "c2a" (client to
	// agent) or "a2c" (agent to client) per message of the trace, in order.
	Directions io.Reader
	// Format forces the framing (JSONL or SSE); nil sniffs it.
	Format *trace.Format
	// Progress, if set, is called from time to time with the lines read so
	// far.
	Progress func(lines int)
}

// Check validates one trace read from r, named name in findings. Findings go
// to report in line order, from the calling goroutine. The error is an I/O
// failure (r failed, corrupt gzip data, a bad sidecar): the findings reported
// before it stand, and the summary counts them.
func (e *Engine) Check(ctx context.Context, name string, r io.Reader, fo FileOptions, report func(Finding)) (Summary, error) {
	run := &fileRun{e: e, name: name, report: report, sum: Summary{Files: 1, ByType: map[string]int{}, ByRule: map[string]int{}}}
	if fo.Directions != nil {
		run.dirs = bufio.NewScanner(fo.Directions)
	}
	tr, err := trace.NewReader(r, trace.Options{MaxLine: e.opts.MaxLine, Format: fo.Format})
	if err != nil {
		return run.sum, fmt.Errorf("%s: %w", name, err)
	}
	run.sse = tr.Format() == trace.SSE

	type batch struct {
		msgs []*message
		err  error
	}
	batches := make(chan batch, 2)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(batches)
		const maxMsgs, maxBytes = 1024, 8 << 20
		var b batch
		size := 0
		send := func() bool {
			select {
			case batches <- b:
				b, size = batch{}, 0
				return true
			case <-ctx.Done():
				return false
			}
		}
		for index := 0; ; index++ {
			if ctx.Err() != nil {
				return
			}
			rec, err := tr.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					b.err = err
				}
				if len(b.msgs) > 0 || b.err != nil {
					send()
				}
				return
			}
			b.msgs = append(b.msgs, &message{rec: rec, index: index})
			size += len(rec.Data)
			if len(b.msgs) >= maxMsgs || size >= maxBytes {
				if !send() {
					return
				}
				if fo.Progress != nil {
					fo.Progress(tr.Lines())
				}
			}
		}
	}()
	var ioErr error
	for b := range batches {
		if len(b.msgs) > 0 {
			if err := run.process(b.msgs); err != nil && ioErr == nil {
				ioErr = err
			}
		}
		if b.err != nil && ioErr == nil {
			ioErr = b.err
			run.ioFailed = true
			run.emit(Finding{Line: tr.Lines() + 1, Severity: Error, Rule: RuleIO, Message: fmt.Sprintf("reading stopped: %v", b.err)})
		}
	}
	if err := ctx.Err(); err != nil && ioErr == nil {
		ioErr = err
	}
	run.finish(tr.Lines())
	if ioErr != nil {
		return run.sum, fmt.Errorf("%s: %w", name, ioErr)
	}
	return run.sum, nil
}

// message is one record of a trace on its way through the pipeline.
type message struct {
	rec   trace.Record
	index int // 0-based position among the records

	value any
	obj   map[string]any // value, when it is an object
	bad   *Finding       // the record could not be read or parsed

	label  string  // message type for the summary, e.g. "session/update"
	checks []check // schema checks, set by the protocol's step
	state  []Finding
	out    []Finding     // schema findings, set by the validation stage
	seen   []Observation // schema verdicts, for Options.Observe
	dir    string        // ACP direction from a sidecar
	// rtSchema is the $id of the message's own schema for --roundtrip,
	// and rtPointer where its value sits in the line.
	rtSchema, rtPointer string
}

// check is one schema to validate one value of a message against.
type check struct {
	c     *compiled
	loc   []string // where the value sits in the message
	value any
	// skip drops issues at locations another check reports better.
	skip func(loc []string) bool
}

// add records a state finding.
func (m *message) add(sev Severity, rule, ptr, format string, args ...any) {
	m.state = append(m.state, Finding{Line: m.rec.Line, Severity: sev, Rule: rule, Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

// validate runs the check with the general validator, returning findings.
func (x *explainer) run(ck check, line int) []Finding {
	err := ck.c.schema.Validate(ck.value)
	if err == nil {
		return nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return []Finding{{Line: line, Severity: Error, Rule: RuleSchema, Pointer: pointer(ck.loc), Message: err.Error()}}
	}
	var out []Finding
	for _, is := range x.explain(verr, ck.value) {
		if ck.skip != nil && ck.skip(is.loc) {
			continue
		}
		loc := append(append([]string(nil), ck.loc...), is.loc...)
		out = append(out, Finding{Line: line, Severity: Error, Rule: RuleSchema, Pointer: pointer(loc), Message: is.msg})
	}
	return out
}

// valid reports whether value passes c, without explaining.
func valid(c *compiled, value any) bool {
	return c != nil && c.schema.Validate(value) == nil
}

// handler is one protocol's dispatch and state for one trace.
type handler interface {
	// step picks the schemas for m and applies the state rules; it runs
	// sequentially, in trace order.
	step(m *message)
	// lost tells the state that a message could not be read: the rules
	// must not invent errors for what it may have held.
	lost(m *message)
	// finish reports what the end of the trace reveals.
	finish(lastLine int) []Finding
	// dialect names the schema set or SDK dialect in use.
	dialect() string
}

// fileRun is the state of one Check.
type fileRun struct {
	e      *Engine
	name   string
	report func(Finding)
	sum    Summary
	sse    bool
	dirs   *bufio.Scanner

	decided  bool // a batch has been seen
	detected bool // the protocol is known
	protocol string
	h        handler
	x        *explainer
	// skipAll is set when the file matches no protocol: its one finding
	// has been reported and the rest is only counted.
	skipAll  bool
	ioFailed bool // reading stopped early
}

func (r *fileRun) emit(f Finding) {
	f.File = r.name
	if f.Protocol == "" {
		f.Protocol = r.protocol
	}
	if f.Dialect == "" && r.h != nil {
		f.Dialect = r.h.dialect()
	}
	r.sum.Add(f)
	if r.report != nil {
		r.report(f)
	}
}

// parallel calls f(0..n-1) on up to workers goroutines.
func parallel(n, workers int, f func(i int)) {
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(workers)
	for w := 0; w < workers; w++ {
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

func (r *fileRun) process(msgs []*message) error {
	e := r.e
	r.sum.Messages += len(msgs)
	// Stage 1, parallel: parse.
	parallel(len(msgs), e.workers, func(i int) {
		m := msgs[i]
		if m.rec.Err != nil {
			m.bad = &Finding{Line: m.rec.Line, Severity: Error, Rule: RuleLineTooLong, Message: m.rec.Err.Error()}
			return
		}
		v, err := jsonscan.Parse(m.rec.Data, e.opts.MaxDepth)
		if err != nil {
			m.bad = parseFinding(m.rec.Line, err)
			return
		}
		m.value = v
		m.obj, _ = v.(map[string]any)
	})
	if !r.detected && !r.skipAll {
		if err := r.decide(msgs); err != nil {
			r.skipAll = true
			return err
		}
	}
	var dirErr error
	if r.dirs != nil && r.protocol == "acp" {
		for _, m := range msgs {
			if !r.dirs.Scan() {
				if err := r.dirs.Err(); err != nil {
					dirErr = fmt.Errorf("direction sidecar: %w", err)
				} else {
					dirErr = fmt.Errorf("direction sidecar: it has fewer lines than the trace has messages (none for line %d)", m.rec.Line)
				}
				r.dirs = nil
				break
			}
			m.dir = strings.TrimSpace(r.dirs.Text())
			if m.dir != "c2a" && m.dir != "a2c" {
				dirErr = fmt.Errorf("direction sidecar: line %d holds %q; each line must be c2a or a2c", m.index+1, m.dir)
				r.dirs = nil
				break
			}
		}
	}
	if r.skipAll {
		return dirErr
	}
	// Stage 2, sequential: dispatch and protocol state.
	if r.h != nil {
		for _, m := range msgs {
			if m.bad != nil {
				r.h.lost(m)
			} else {
				r.h.step(m)
				if m.label != "" {
					r.sum.ByType[r.protocol+" "+m.label]++
				}
			}
		}
	}
	// Stage 3, parallel: schema checks (and round trips).
	parallel(len(msgs), e.workers, func(i int) {
		m := msgs[i]
		for _, ck := range m.checks {
			if e.opts.Observe != nil {
				m.seen = append(m.seen, Observation{File: r.name, Line: m.rec.Line, SchemaID: ck.c.id, Pointer: pointer(ck.loc), Value: ck.value, Valid: ck.c.schema.Validate(ck.value) == nil})
			}
			if e.opts.Fast != nil && e.opts.Fast.Check(ck.c.id, pointer(ck.loc), m.rec.Data) {
				continue
			}
			m.out = append(m.out, r.x.run(ck, m.rec.Line)...)
		}
		if e.opts.Roundtrip != nil && m.bad == nil && m.rtSchema != "" && len(m.out) == 0 {
			// Only for messages valid by their schema: an invalid one
			// is explained by its schema findings already.
			diffs, err := e.opts.Roundtrip.Roundtrip(m.rtSchema, m.rtPointer, m.rec.Data)
			if err != nil {
				m.out = append(m.out, Finding{Line: m.rec.Line, Severity: Error, Rule: RuleRoundtrip, Pointer: m.rtPointer, Message: fmt.Sprintf("the typed round trip fails: %v", err)})
			}
			for _, d := range diffs {
				m.out = append(m.out, Finding{Line: m.rec.Line, Severity: Error, Rule: RuleRoundtrip, Pointer: m.rtPointer, Message: d})
			}
		}
	})
	// Stage 4: report in order.
	for _, m := range msgs {
		for _, o := range m.seen {
			e.opts.Observe(o)
		}
		if m.bad != nil {
			r.emit(*m.bad)
			continue
		}
		for _, f := range m.out {
			r.emit(f)
		}
		for _, f := range m.state {
			if f.Severity == Error && f.Rule != RuleSchema && schemaAt(m.out, f.Pointer) {
				// The value is already wrong by its schema: one
				// problem, one finding.
				continue
			}
			r.emit(f)
		}
	}
	return dirErr
}

func schemaAt(out []Finding, ptr string) bool {
	for _, f := range out {
		if f.Rule == RuleSchema && f.Pointer == ptr && ptr != "" {
			return true
		}
	}
	return false
}

func parseFinding(line int, err error) *Finding {
	var pe *jsonscan.Error
	msg := err.Error()
	ptr := ""
	if errors.As(err, &pe) {
		ptr = pe.Pointer
		msg = fmt.Sprintf("not valid JSON: %s (byte %d of the line)", pe.Msg, pe.Offset+1)
	}
	return &Finding{Line: line, Severity: Error, Rule: RuleJSON, Pointer: ptr, Message: msg}
}

// finish reports end-of-trace findings and completes the summary.
func (r *fileRun) finish(lines int) {
	r.sum.Lines = lines
	defer func() {
		d := Detected{File: r.name, Protocol: r.protocol}
		if r.h != nil {
			d.Dialect = r.h.dialect()
		}
		if d.Protocol == "acp" && d.Dialect == "vtcode" {
			d.Note = VTCodeNote
		}
		r.sum.Detected = []Detected{d}
	}()
	if !r.decided {
		// Nothing was read at all.
		r.decided = true
		if r.ioFailed {
			return // the io finding says why
		}
		r.emit(Finding{Line: 1, Severity: Error, Rule: RuleEmpty, Message: "the file holds no message (it is empty or blank): nothing to validate"})
		return
	}
	if r.h != nil && !r.skipAll {
		for _, f := range r.h.finish(lines) {
			r.emit(f)
		}
	}
}
