// Package validate checks recorded agent-protocol traffic (ARCP, ACP and
// Arcan AgentEvent traces) line by line against the schemas in schema/ and
// against the protocol state rules no schema can express, and reports
// findings that name the line, the JSON pointer, the rule and the fix.
//
// An Engine is built once and is safe for concurrent use; Check validates
// one trace. What each protocol version means comes from the registry
// (schema/registry) and is applied by one rules package per protocol
// (rules/acp, rules/arcp, rules/arcan); schemas are compiled when a trace
// first needs them. Lines are parsed and validated on all cores and reported
// in order, and memory is bounded by the largest line and the protocol
// state, not by the trace.
//
// What a team intends is applied where findings are emitted, before they
// are counted: a RuleControl (FileOptions.Rules) drops a rule's findings or
// turns its errors into warnings, and a Baseline (FileOptions.Baseline)
// holds back the findings already known. A trace that cannot be read to its
// end is always an io finding, whatever the settings.
package validate

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/trace"
	"github.com/agentproto/agentproto/pkg/validate/explain"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/pkg/wire"
	"github.com/agentproto/agentproto/schema"
	"github.com/agentproto/agentproto/schema/registry"
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

// KnownChecker is a FastChecker that can also tell, of a value it vouches
// for, that every member of every object in it is one the schema defines:
// such a value holds no near miss of a defined member, and the engine does
// not look for one.
type KnownChecker interface {
	FastChecker
	CheckKnown(schemaID, pointer string, line []byte) (valid, known bool)
}

// A DecoderChecker is a KnownChecker that reads the line from a decoder
// the engine prepares and reuses, one per batch of lines: reset over the
// line (wire.Decoder.Reset) and told where the line's arrays and objects
// end (wire.Decoder.SetEnds), since the engine has parsed the line
// strictly already; values the checker would only step over need not be
// read again.
type DecoderChecker interface {
	KnownChecker
	CheckKnownDecoder(d *wire.Decoder, schemaID, pointer string) (valid, known bool)
}

// A CodecChecker is a DecoderChecker whose verdicts are those of a
// wire.Codec per schema (wire.Codec.CheckAt). The engine asks for a
// schema's codec once and keeps it with the schema, instead of naming the
// schema by its $id for every value it checks.
type CodecChecker interface {
	DecoderChecker
	// Codec returns the codec of the schema with $id schemaID; false
	// when there is none, and the general validator checks its values.
	Codec(schemaID string) (wire.Codec, bool)
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
	// Dialect forces the version or dialect a trace is read as (a name
	// of Dialects, such as "v1-unstable" for ACP or "go-sdk" for ARCP);
	// "" detects it from each trace.
	Dialect string
	// Partial says whether traces are captures that began mid-session
	// (protocol.PartialAuto: decide from each trace).
	Partial protocol.Partial
	// MaxLine is the longest line kept, in bytes (0: trace.DefaultMaxLine).
	MaxLine int
	// MaxBytes is the most read of one trace, decompressed (0:
	// trace.DefaultMaxBytes); past it the file ends with an io finding.
	MaxBytes int64
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
// calls.
type Engine struct {
	opts    Options
	workers int
	reg     *registry.Registry
	rules   []protocol.Rules // in the order a file's protocol is tried
	docs    *explain.Docs
	// acpNames lists the methods of every ACP version (acpMethodNames),
	// made once, when a file first asks.
	acpNames func() []string
	// whole validates every check whole, never split by
	// protocol.Schemas.Split: the tests compare both ways.
	whole bool
	// oracle validates failing values with jsonschema/v6 on values built
	// as map[string]any, as every engine did before explain.ValidateDoc:
	// the differential tests' reference.
	oracle  bool
	known   KnownChecker   // Options.Fast, if it is one
	dec     DecoderChecker // Options.Fast, if it is one
	codecs  CodecChecker   // Options.Fast, if it is one
	schemas *protocol.Schemas
	// docValidated and docDeclined count the failing values
	// explain.ValidateDoc judged, and those whose schema it left to
	// jsonschema/v6, for the tests.
	docValidated, docDeclined atomic.Int64
	// memo keeps the document validator's outcomes (nil: none kept).
	memo *explain.Memo
}

// New reads the registry and prepares each protocol's rules; no schema is
// compiled until a trace needs it.
func New(opts Options) (*Engine, error) {
	reg, err := registry.Embedded()
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	schemas := protocol.NewSchemas()
	e := &Engine{
		opts: opts, workers: opts.Workers, reg: reg, schemas: schemas,
		docs: explain.NewDocs(schema.Files, schema.IDPrefix),
		memo: explain.NewMemo(),
	}
	for _, p := range registered() {
		e.rules = append(e.rules, p.rules(reg, schemas))
	}
	if e.workers <= 0 {
		e.workers = runtime.GOMAXPROCS(0)
	}
	e.acpNames = sync.OnceValue(e.acpMethodNames)
	e.known, _ = opts.Fast.(KnownChecker)
	e.dec, _ = opts.Fast.(DecoderChecker)
	e.codecs, _ = opts.Fast.(CodecChecker)
	if opts.Protocol != "" && e.rulesOf(opts.Protocol) == nil {
		return nil, fmt.Errorf("validate: unknown protocol %q (want %s)", opts.Protocol, strings.Join(registry.Protocols(), ", "))
	}
	if opts.Dialect != "" && !e.knownDialect(opts.Dialect) {
		return nil, fmt.Errorf("validate: unknown dialect %q (want one of %s)", opts.Dialect, strings.Join(e.Dialects(""), ", "))
	}
	return e, nil
}

func (e *Engine) rulesOf(protocol string) protocol.Rules {
	for _, r := range e.rules {
		if r.Name() == protocol {
			return r
		}
	}
	return nil
}

// Dialects lists the names Options.Dialect accepts for protocol ("" for
// every protocol), each once: exactly the names a trace can be detected as.
func (e *Engine) Dialects(protocol string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range e.rules {
		if protocol == "" || r.Name() == protocol {
			for _, d := range r.Dialects() {
				if !seen[d] {
					seen[d] = true
					out = append(out, d)
				}
			}
		}
	}
	return out
}

func (e *Engine) knownDialect(d string) bool {
	protocol := e.opts.Protocol
	for _, n := range e.Dialects(protocol) {
		if n == d {
			return true
		}
	}
	return false
}

// Supported reports whether the engine has rules for protocol.
func (e *Engine) Supported(protocol string) bool { return e.rulesOf(protocol) != nil }

// FileOptions are the per-file inputs of Check.
type FileOptions struct {
	// Directions, if set, is an ACP direction sidecar: one "c2a" (client to
	// agent) or "a2c" (agent to client) per line of the trace (blank and
	// unreadable lines included), in order.
	Directions io.Reader
	// Format forces the framing (JSONL or SSE); nil sniffs it.
	Format *trace.Format
	// Progress, if set, is called from time to time with the lines read so
	// far.
	Progress func(lines int)
	// Rules, if set, drops the findings of disabled rules and reports the
	// errors of rules turned down as warnings, before they are counted.
	Rules *RuleControl
	// Baseline, if set, holds back the findings it knows of: they are
	// neither counted nor reported.
	Baseline *Baseline
	// Message, if set, is given every record of the trace, in order,
	// from the calling goroutine, each just before its findings are
	// reported: for a view of the whole trace, such as an HTML report.
	Message func(MessageInfo)
	// Idle, for live traffic, hands the lines read so far on for checking
	// once no new line has arrived for this long, so that findings come as
	// messages do; 0 checks in batches of many lines, as a file is best
	// checked. The first batch still waits for the same idle time, so that
	// what detection sees is what a later check of the recording sees in
	// an interactive session.
	Idle time.Duration
}

// Check validates one trace read from r, named name in findings. Findings go
// to report in line order, from the calling goroutine. The error is an I/O
// failure (r failed, corrupt gzip data, a bad sidecar): the findings reported
// before it stand, and the summary counts them.
func (e *Engine) Check(ctx context.Context, name string, r io.Reader, fo FileOptions, report func(Finding)) (Summary, error) {
	run := &fileRun{e: e, name: name, report: report, message: fo.Message, control: fo.Rules, baseline: fo.Baseline, onceSeen: map[string]bool{}, sum: Summary{Files: 1, ByType: map[string]int{}, ByRule: map[string]int{}}}
	if fo.Directions != nil {
		run.dirs = bufio.NewScanner(fo.Directions)
	}
	// The batches keep copies of their lines in storage they reuse, so
	// the reader lends its lines; a live trace is read on a goroutine of
	// its own, ahead of the batches, and is given them.
	tr, err := trace.NewReader(r, trace.Options{MaxLine: e.opts.MaxLine, MaxBytes: e.opts.MaxBytes, Format: fo.Format, Borrow: fo.Idle <= 0})
	if err != nil {
		run.emit(Finding{Line: 0, Severity: Error, Rule: RuleIO, Message: fmt.Sprintf("the trace cannot be read: %v", err)})
		run.sum.Detected = []Detected{{File: name}}
		return run.sum, fmt.Errorf("%s: %w", name, err)
	}

	batches := make(chan *batch, 2)
	free := make(chan *batch, maxInFlight)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// lines is what the trace reader has read, for the summary; the reader
	// may run on its own goroutine (Idle), hence the atomic.
	var lines atomic.Int64
	next := func() (trace.Record, error) {
		rec, err := tr.Next()
		lines.Store(int64(tr.Lines()))
		return rec, err
	}
	type read struct {
		rec trace.Record
		err error
	}
	var reads chan read
	if fo.Idle > 0 {
		// Live: a goroutine blocks on the trace while the batcher below
		// waits for a line or for the idle time, whichever comes first.
		reads = make(chan read, 64)
		go func() {
			defer close(reads)
			for {
				rec, err := next()
				select {
				case reads <- read{rec, err}:
				case <-ctx.Done():
					return
				}
				if err != nil {
					return
				}
			}
		}()
	}
	go func() {
		defer close(batches)
		// Batches of 128 records: about ten are alive at once (in
		// flight, queued, being filled), and their items, nodes and
		// lines are most of the memory a run touches. 512 made a 4.6 MB
		// trace fault in 28% more pages and cost 4% more CPU, for no
		// gain in throughput.
		const maxItems, maxBytes = 128, 1 << 20
		b := reuse(free)
		size := 0
		flush := func() bool {
			b.seal()
			if !send(ctx, batches, b) {
				return false
			}
			b, size = reuse(free), 0
			return true
		}
		var idle *time.Timer
		if fo.Idle > 0 {
			idle = time.NewTimer(fo.Idle)
			defer idle.Stop()
		}
		for index := 0; ; index++ {
			if ctx.Err() != nil {
				return
			}
			var rec trace.Record
			var err error
			if reads == nil {
				rec, err = next()
			} else {
				idle.Reset(fo.Idle)
				select {
				case r, ok := <-reads:
					if !ok {
						return
					}
					rec, err = r.rec, r.err
				case <-idle.C:
					if len(b.items) > 0 && !flush() {
						return
					}
					index--
					continue
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					b.err = err
					b.errLine = int(lines.Load()) + 1
				}
				if len(b.items) > 0 || b.err != nil {
					flush()
				}
				return
			}
			b.add(rec, index)
			size += len(rec.Data)
			if len(b.items) >= maxItems || size >= maxBytes {
				if !flush() {
					return
				}
				if fo.Progress != nil {
					fo.Progress(int(lines.Load()))
				}
			}
		}
	}()
	var ioErr error
	publish := func(b *batch) {
		if len(b.items) > 0 {
			if err := run.publish(b); err != nil && ioErr == nil {
				ioErr = err
			}
		}
		if b.err != nil && ioErr == nil {
			ioErr = b.err
			run.ioFailed = true
			run.emit(Finding{Line: b.errLine, Severity: Error, Rule: RuleIO, Message: fmt.Sprintf("reading stopped: %v", b.err)})
		}
		recycle(free, b)
	}
	if e.workers <= 1 {
		// One goroutine does every stage of a batch in turn.
		for b := range batches {
			run.parse(b)
			run.step(b)
			run.check(b)
			publish(b)
		}
	} else {
		run.pipeline(ctx, batches, publish)
	}
	if err := ctx.Err(); err != nil && ioErr == nil {
		ioErr = err
	}
	run.view(run.protocol(), run.dialect())
	run.finish(int(lines.Load()))
	if ioErr != nil {
		if !run.ioFailed {
			// A sidecar or a cancelled run: the trace was not checked
			// to its end, and every output format says so.
			run.emit(Finding{Line: 0, Severity: Error, Rule: RuleIO, Message: fmt.Sprintf("checking stopped: %v", ioErr)})
		}
		return run.sum, fmt.Errorf("%s: %w", name, ioErr)
	}
	return run.sum, nil
}

// item is one record of a trace on its way through the pipeline: the
// message the rules see, and what the engine adds to it.
type item struct {
	m    protocol.Message
	err  error         // the record could not be read whole (trace.Record.Err)
	bad  *Finding      // the record could not be read or parsed
	out  []Finding     // schema findings, set by the validation stage
	once []Finding     // warnings given once per trace (by message)
	seen []Observation // schema verdicts, for Options.Observe
	// checks holds the message's first checks (an envelope and its
	// params or result), so that most messages allocate none.
	checks [2]protocol.Check
}

// fileRun is the state of one Check.
type fileRun struct {
	e      *Engine
	name   string
	report func(Finding)
	// message is FileOptions.Message.
	message func(MessageInfo)
	sum     Summary
	dirs    *bufio.Scanner
	// dirLines counts the sidecar's entries read: one per line of the
	// trace, blank and unreadable lines included.
	dirLines int
	// dirEnded is set when the sidecar ran out or was refused, dirShort
	// when it ran out.
	dirEnded, dirShort bool

	control  *RuleControl
	baseline *Baseline

	decided  bool // a batch has been seen
	detected bool // the protocol is known
	rules    protocol.Rules
	h        protocol.Handler
	x        *explain.Explainer
	// skipAll is set when the file matches no protocol: its one finding
	// has been reported and the rest is only counted.
	skipAll bool
	notes   []Finding // found by the in-order stage, for the batch's report

	// Owned by the goroutine that reports.
	ioFailed   bool                 // reading stopped early
	onceSeen   map[string]bool      // the once-per-trace warnings reported
	typeNames  map[[2]string]string // "proto label" by proto and label, for ByType
	outProto   string               // the protocol and dialect findings name
	outDialect string
	violated   map[string]bool // the requirements the reported findings name
}

func (r *fileRun) protocol() string {
	if r.rules == nil {
		return ""
	}
	return r.rules.Name()
}

func (r *fileRun) dialect() string {
	if r.h == nil {
		return ""
	}
	return r.h.Dialect()
}

// note keeps a finding of the in-order stage, to be reported with the
// batch it was found in.
func (r *fileRun) note(f Finding) { r.notes = append(r.notes, f) }

// view sets the protocol and dialect that findings reported from now on
// name, as the in-order stage knew them after the batch being reported.
func (r *fileRun) view(proto, dialect string) { r.outProto, r.outDialect = proto, dialect }

func (r *fileRun) emit(f Finding) {
	f.File = r.name
	f.Pointer = cutPointer(f.Pointer)
	if f.Protocol == "" {
		f.Protocol = r.outProto
	}
	if f.Dialect == "" {
		f.Dialect = r.outDialect
	}
	f, keep := r.control.apply(f)
	if !keep || r.baseline.match(f) {
		return
	}
	if f.Requirement != "" {
		if r.violated == nil {
			r.violated = map[string]bool{}
		}
		r.violated[f.Requirement] = true
	}
	r.sum.Add(f)
	if r.report != nil {
		r.report(f)
	}
}

// fast asks the fast path, if there is one, whether the value at ptr in
// the message is certainly valid against s.
func (e *Engine) fast(s *protocol.Schema, ptr string, m *protocol.Message, d *wire.Decoder) bool {
	valid, _ := e.fastKnown(s, ptr, m, d)
	return valid
}

// valueOf is the value a check reads: the one the rules gave, else the
// value at the check's location, built from the message's Doc.
func valueOf(m *protocol.Message, ck protocol.Check) any {
	if ck.Value != nil {
		return ck.Value
	}
	return m.AtPath(ck.Loc)
}

// fastKnown is fast, and for a valid value also whether the fast path saw
// every member of it defined by the schema (see KnownChecker). d is the
// decoder a DecoderChecker reads from, which fastKnown resets.
func (e *Engine) fastKnown(s *protocol.Schema, ptr string, m *protocol.Message, d *wire.Decoder) (valid, known bool) {
	switch {
	case e.codecs != nil:
		c := s.Codec(e.codecs.Codec)
		if c == nil {
			return false, false
		}
		d.Reset(m.Data)
		d.SetEnds(&m.Doc)
		return c.CheckAt(d, ptr)
	case e.dec != nil:
		d.Reset(m.Data)
		d.SetEnds(&m.Doc)
		return e.dec.CheckKnownDecoder(d, s.ID, ptr)
	case e.known != nil:
		return e.known.CheckKnown(s.ID, ptr, m.Data)
	case e.opts.Fast != nil:
		return e.opts.Fast.Check(s.ID, ptr, m.Data), false
	}
	return false, false
}

// bigLine is the size from which a failing line's huge arrays are checked
// element by element before the whole value is (see bigArrays).
const bigLine = 1 << 20

// bigArrays checks the elements of the huge arrays of a failing check's
// value one by one, stopping after maxPerLine+1 failures, and returns their
// findings: nil when they all pass, and then the value is checked whole. A
// general validator reports every failing element of an array at once, so
// a line of a million bad elements would otherwise cost gigabytes.
func (r *fileRun) bigArrays(ck protocol.Check, line int) []Finding {
	var out []Finding
	failed := 0
	for _, a := range ck.Schema.BigArrays(ck.Value, bigArray) {
		for i, el := range a.Value {
			err := a.Items.Validate(el)
			if err == nil {
				continue
			}
			loc := append(append(append([]string(nil), ck.Loc...), a.Loc...), strconv.Itoa(i))
			out = append(out, r.x.Explain(protocol.Check{Schema: a.Items, Loc: loc, Value: el}, err, line)...)
			if failed++; failed > maxPerLine {
				return out
			}
		}
	}
	return out
}

// bigArray is the length from which an array counts as huge.
const bigArray = 1024

// maxPerLine is the most findings reported one by one for a line; the rest
// are counted in one too-many finding, so that output and memory stay
// proportional to what a person can read.
const maxPerLine = 20

// batch is a run of records on its way through the stages of a check.
// Once reported, a batch goes back to the reader to be filled again, so
// that its items and nodes are allocated once per run rather than once a
// line.
type batch struct {
	items   []*item
	slabs   [][]item // where the items live, filled in order
	used    int      // slabs in use, the last perhaps in part
	fill    int      // items in use in the last slab in use
	nodes   jsonscan.Arena
	text    lineStore    // the lines' bytes
	dec     wire.Decoder // the fast path's, for the batch's checks
	err     error        // reading stopped after these items
	errLine int          // the line reading stopped at
	// Set by the in-order stage (step).
	notes          []Finding // its findings, reported before the items'
	skip           bool      // the file matches no protocol: counted only
	stepErr        error     // a sidecar failed, or the rules did not start
	proto, dialect string    // what the batch's findings name
	// Closed when the stage is done, in the pipeline.
	parsed, checked chan struct{}
}

func newBatch() *batch {
	return &batch{parsed: make(chan struct{}), checked: make(chan struct{})}
}

// reuse returns a reported batch from free, emptied, or a new one. Its
// slabs keep their items until add writes over them or seal clears what
// add did not reach.
func reuse(free <-chan *batch) *batch {
	select {
	case b := <-free:
		*b = batch{items: b.items[:0], slabs: b.slabs, nodes: b.nodes, text: b.text, parsed: make(chan struct{}), checked: make(chan struct{})}
		b.nodes.Reset()
		b.text.reset()
		return b
	default:
		return newBatch()
	}
}

// recycle hands a reported batch back to the reader, if it has room.
func recycle(free chan<- *batch, b *batch) {
	select {
	case free <- b:
	default:
	}
}

// add appends a record to the batch. Items are allocated in chunks, a few
// first (a live batch is often one message), then many. A slab's length is
// how far its items hold anything: filled now, or by the batch's last use
// (until seal).
func (b *batch) add(rec trace.Record, index int) {
	if b.used == 0 || b.fill == cap(b.slabs[b.used-1]) {
		if b.used == len(b.slabs) {
			b.slabs = append(b.slabs, make([]item, 0, min(8+8*len(b.items), 128)))
		}
		b.used++
		b.fill = 0
	}
	s := &b.slabs[b.used-1]
	if b.fill == len(*s) {
		*s = (*s)[:b.fill+1]
	}
	it := &(*s)[b.fill]
	b.fill++
	// One write over the whole item, whatever its last use left in it.
	*it = item{err: rec.Err, m: protocol.Message{Line: rec.Line, Index: index, Data: b.text.keep(rec.Data)}}
	it.m.Checks = it.checks[:0]
	b.items = append(b.items, it)
}

// seal clears the items a last use of the batch filled and this one did
// not reach, so that no record outlives its report, before the batch goes
// on its way.
func (b *batch) seal() {
	for i := range b.slabs {
		s := &b.slabs[i]
		keep := 0
		switch {
		case i < b.used-1:
			continue // full
		case i == b.used-1:
			keep = b.fill
		}
		clear((*s)[keep:])
		*s = (*s)[:keep]
	}
}

// lineStore holds a batch's lines: short ones are copied into chunks
// that the batch keeps when it is reused, a long one gets an array of its
// own.
type lineStore struct {
	chunks [][]byte
	used   int // chunks in use, the last perhaps in part
}

// lineChunk is the size of a lineStore's chunks, at most: the first is
// firstLineChunk, and each new one twice the one before, so that a short
// trace costs little.
const lineChunk, firstLineChunk = 64 << 10, 4 << 10

// keep returns a copy of line (nil for nil). The copy's capacity ends with
// it, so appending to one line never touches another.
func (s *lineStore) keep(line []byte) []byte {
	if line == nil {
		return nil
	}
	if len(line) > lineChunk/4 {
		return bytes.Clone(line)
	}
	if s.used == 0 || cap(s.chunks[s.used-1])-len(s.chunks[s.used-1]) < len(line) {
		size := max(len(line), min(firstLineChunk<<min(s.used, 8), lineChunk))
		switch {
		case s.used == len(s.chunks):
			s.chunks = append(s.chunks, make([]byte, 0, size))
		case cap(s.chunks[s.used]) < len(line):
			s.chunks[s.used] = make([]byte, 0, size) // the old one was too small
		}
		s.chunks[s.used] = s.chunks[s.used][:0]
		s.used++
	}
	c := &s.chunks[s.used-1]
	i := len(*c)
	*c = append(*c, line...)
	return (*c)[i:len(*c):len(*c)]
}

// reset makes the store reuse its chunks from the first: the lines it
// returned before must no longer be used.
func (s *lineStore) reset() { s.used = 0 }

// pipeline runs the stages of a check on their own goroutines, so that
// the in-order stages (the protocol state of one batch, the report of
// another) overlap with the parsing and schema checks of others on every
// worker, with no barrier between batches: batches are parsed and checked
// by whichever worker is free, stepped in order by one goroutine and
// reported in order by the calling one. At most a few batches are in
// flight, so memory stays bounded.
func (r *fileRun) pipeline(ctx context.Context, batches <-chan *batch, publish func(*batch)) {
	workers := r.e.workers
	toParse := make(chan *batch, workers+1)
	toCheck := make(chan *batch, workers+1)
	toStep := make(chan *batch, workers+1)
	toReport := make(chan *batch, workers+1)
	// A slot for every batch between dispatch and report: whatever the
	// number of workers, at most maxInFlight batches are held.
	slots := make(chan struct{}, min(2*workers+2, maxInFlight))
	var wg sync.WaitGroup
	// Dispatch: every batch is parsed by some worker and stepped in order.
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(toParse)
		defer close(toStep)
		for b := range batches {
			if !send(ctx, slots, struct{}{}) || !send(ctx, toStep, b) || !send(ctx, toParse, b) {
				return
			}
		}
	}()
	// Workers: checks first (they free memory), then parses.
	wg.Add(workers)
	for range workers {
		go func() {
			defer wg.Done()
			parse, check := toParse, toCheck
			for parse != nil || check != nil {
				var b *batch
				ok, checking := false, true
				select {
				case b, ok = <-check:
				case <-ctx.Done():
					return
				default:
					select {
					case b, ok = <-check:
					case b, ok = <-parse:
						checking = false
					case <-ctx.Done():
						return
					}
				}
				switch {
				case !ok && checking:
					check = nil
				case !ok:
					parse = nil
				case checking:
					r.check(b)
					close(b.checked)
				default:
					r.parse(b)
					close(b.parsed)
				}
			}
		}()
	}
	// The in-order stage.
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(toCheck)
		defer close(toReport)
		for b := range toStep {
			if !wait(ctx, b.parsed) {
				return
			}
			r.step(b)
			if !send(ctx, toCheck, b) || !send(ctx, toReport, b) {
				return
			}
		}
	}()
	for b := range toReport {
		if !wait(ctx, b.checked) {
			break
		}
		publish(b)
		<-slots
	}
	wg.Wait()
}

// send sends v on ch unless ctx is done first, and reports whether it
// sent.
func send[T any](ctx context.Context, ch chan<- T, v T) bool {
	select {
	case ch <- v:
		return true
	case <-ctx.Done():
		return false
	}
}

// wait waits for done to be closed unless ctx is done first, and reports
// whether it was.
func wait(ctx context.Context, done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// maxInFlight bounds the batches a check holds at once (each at most 1 MB
// of text, and its parsed values), on machines with many cores.
const maxInFlight = 16

// parse parses a batch's records (any goroutine).
func (r *fileRun) parse(b *batch) {
	a := &b.nodes
	for _, it := range b.items {
		if it.err != nil {
			it.bad = &Finding{Line: it.m.Line, Severity: Error, Rule: RuleLineTooLong, Message: it.err.Error()}
			continue
		}
		d, err := a.Parse(it.m.Data, r.e.opts.MaxDepth)
		if err != nil {
			it.bad = parseFinding(it.m.Line, err)
			continue
		}
		it.m.Doc = d
	}
}

// step is the in-order stage (one goroutine, batches in order): detection,
// the direction sidecar, dispatch and the protocol state.
func (r *fileRun) step(b *batch) {
	defer func() {
		b.notes, r.notes = r.notes, nil
		b.proto, b.dialect = r.protocol(), r.dialect()
	}()
	if !r.detected && !r.skipAll {
		if err := r.decide(b.items); err != nil {
			r.skipAll = true
			b.skip, b.stepErr = true, err
			return
		}
	}
	b.stepErr = r.directions(b.items)
	if r.skipAll {
		b.skip = true
		return
	}
	if r.h != nil {
		for _, it := range b.items {
			if it.bad != nil {
				r.h.Lost(&it.m)
			} else {
				r.h.Step(&it.m)
			}
		}
	}
}

// check runs a batch's schema checks and round trips (any goroutine).
func (r *fileRun) check(b *batch) {
	if b.skip {
		return
	}
	for _, it := range b.items {
		r.checkItem(it, &b.dec)
	}
}

// checkItem runs one message's schema checks and round trip, with d for
// the fast path's decoding.
func (r *fileRun) checkItem(it *item, d *wire.Decoder) {
	e := r.e
	m := &it.m
	for _, ck := range m.Checks {
		ptr := ck.Pointer()
		if e.opts.Observe != nil {
			ck.Value = valueOf(m, ck)
			it.seen = append(it.seen, Observation{File: r.name, Line: m.Line, SchemaID: ck.Schema.ID, Pointer: ptr, Value: ck.Value, Valid: ck.Schema.Valid(ck.Value)})
		}
		if valid, known := e.fastKnown(ck.Schema, ptr, m, d); valid {
			if !known {
				it.nearMisses(ck.Schema, ck)
			}
			continue
		}
		// The general path reads the parsed document (see validateOne);
		// jsonschema/v6 and a huge line's arrays read built values.
		if r.e.oracle || len(m.Data) >= bigLine {
			ck.Value = valueOf(m, ck)
		}
		if len(m.Data) >= bigLine {
			if fs := r.bigArrays(ck, m.Line); len(fs) > 0 {
				it.out = append(it.out, fs...)
				continue
			}
		}
		if ck.Alt == nil {
			fs := r.explain(r.validate(ck, m, d), m.Line)
			if len(fs) == 0 {
				it.nearMisses(ck.Schema, ck)
			}
			it.out = append(it.out, fs...)
			continue
		}
		// Each schema is validated once; an error is explained from
		// that one validation.
		narrowErr, done := r.validateParts(ck, r.split(ck, m), m, d, nil)
		if narrowErr == nil {
			it.nearMisses(ck.Schema, ck)
			continue
		}
		alt := ck
		alt.Schema = ck.Alt
		wideErr, same := r.wider(alt, ptr, m, d, narrowErr, done)
		if e.opts.Observe != nil {
			it.seen = append(it.seen, Observation{File: r.name, Line: m.Line, SchemaID: ck.Alt.ID, Pointer: ptr, Value: ck.Value, Valid: ck.Alt.Valid(ck.Value)})
		}
		if wideErr == nil {
			it.once = append(it.once, Finding{Line: m.Line, Severity: Warning, Rule: ck.AltRule, Pointer: ptr, Message: ck.AltNote, Dialect: ck.AltVersion})
			it.nearMisses(ck.Alt, ck)
			continue
		}
		// Wrong by both: explain by the stable schema, unless the
		// wider one finds other faults (then the stable schema's
		// complaints are about the additions, not the mistake).
		narrow := r.explain(narrowErr, m.Line)
		if same {
			it.out = append(it.out, narrow...)
			continue
		}
		wide := r.explain(wideErr, m.Line)
		if samePointers(narrow, wide) {
			it.out = append(it.out, narrow...)
			continue
		}
		for _, f := range wide {
			f.Dialect = ck.AltVersion
			it.out = append(it.out, f)
		}
	}
	it.out = oneCause(it.out)
	if e.opts.Roundtrip != nil && it.bad == nil && m.RTSchema != "" && len(it.out) == 0 {
		// Only for messages valid by their schema: an invalid one
		// is explained by its schema findings already.
		diffs, err := e.opts.Roundtrip.Roundtrip(m.RTSchema, m.RTPointer, m.Data)
		if err != nil {
			it.out = append(it.out, Finding{Line: m.Line, Severity: Error, Rule: RuleRoundtrip, Pointer: m.RTPointer, Message: fmt.Sprintf("the typed round trip fails: %v", err)})
		}
		for _, d := range diffs {
			it.out = append(it.out, Finding{Line: m.Line, Severity: Error, Rule: RuleRoundtrip, Pointer: m.RTPointer, Message: d})
		}
	}
}

// typeName is the summary's name of a message type: "acp session/update".
func (r *fileRun) typeName(proto, label string) string {
	k := [2]string{proto, label}
	n, ok := r.typeNames[k]
	if !ok {
		if r.typeNames == nil {
			r.typeNames = map[[2]string]string{}
		}
		n = proto + " " + label
		r.typeNames[k] = n
	}
	return n
}

// publish reports a batch's findings in order (the calling goroutine) and
// returns the in-order stage's error.
func (r *fileRun) publish(b *batch) error {
	e := r.e
	r.view(b.proto, b.dialect)
	r.sum.Messages += len(b.items)
	for _, f := range b.notes {
		r.emit(f)
	}
	if b.skip {
		for _, it := range b.items {
			r.tell(it)
		}
		return b.stepErr
	}
	for _, it := range b.items {
		if it.bad == nil && it.m.Label != "" {
			r.sum.ByType[r.typeName(b.proto, it.m.Label)]++
		}
	}
	items := b.items
	for _, it := range items {
		for _, o := range it.seen {
			e.opts.Observe(o)
		}
		r.tell(it)
		if it.bad != nil {
			f := *it.bad
			r.blame(&f, &it.m)
			r.emit(f)
			continue
		}
		n := 0
		more := func(f Finding) {
			if n++; n <= maxPerLine {
				r.blame(&f, &it.m)
				r.emit(f)
			}
		}
		for _, f := range it.once {
			if !r.onceSeen[f.Message] {
				r.onceSeen[f.Message] = true
				more(f)
			}
		}
		for _, f := range it.out {
			more(f)
		}
		for _, f := range it.m.State {
			if f.Severity == Error && f.Rule != RuleSchema && schemaAt(it.out, f.Pointer) {
				// The value is already wrong by its schema: one
				// problem, one finding.
				continue
			}
			more(f)
		}
		if n > maxPerLine {
			r.emit(Finding{Line: it.m.Line, Severity: Error, Rule: RuleTooMany, Message: fmt.Sprintf("and %d more findings on this line, not listed one by one (the first %d are above)", n-maxPerLine, maxPerLine), Side: it.m.From})
		}
	}
	return b.stepErr
}

// blame completes a finding on m with the requirement it shows broken and
// the side at fault, as the protocol's rules name them.
func (r *fileRun) blame(f *Finding, m *protocol.Message) {
	if f.Side == "" {
		f.Side = m.From
	}
	if c, ok := r.rules.(protocol.Catalogued); ok && f.Requirement == "" {
		c.Blame(f, m)
	}
}

// verdict is the validation of a check: each failing part with its
// error; nil when the value is valid.
type verdict []failure

// failure is a part of a check and its validation error. doc, when set,
// holds the value at its node: err is explain.ValidateDoc's tree of it.
type failure struct {
	ck   protocol.Check
	err  error
	doc  *jsonscan.Doc
	node int
	memo *explain.Outcome // err's explanation, kept by the engine's memo
}

// validateOne validates a check the fast path did not vouch for, from
// the message's parsed document where the schema allows (see
// explain.ValidateDoc), else with jsonschema/v6 on the built value; nil
// when the value is valid.
func (r *fileRun) validateOne(ck protocol.Check, m *protocol.Message) *failure {
	if f, decided := r.validateDoc(ck, m); decided {
		return f
	}
	ck.Value = valueOf(m, ck)
	if err := ck.Schema.Validate(ck.Value); err != nil {
		return &failure{ck: ck, err: err}
	}
	return nil
}

// remembered is the part's outcome as the engine's memo kept it, if it
// kept one for a value validated and explained alike; found is false when
// it did not (or the check is not one it keeps).
func (r *fileRun) remembered(ck protocol.Check, m *protocol.Message) (f *failure, found bool) {
	if r.e.memo == nil || r.e.oracle || ck.Skip != nil {
		return nil, false
	}
	sch, err := ck.Schema.Compiled()
	if err != nil {
		return nil, false
	}
	node := m.Doc.FindPath(ck.Loc)
	if node < 0 {
		return nil, false
	}
	out, found := r.e.memo.Lookup(ck, sch, &m.Doc, node)
	if !found || out == nil {
		return nil, found
	}
	return &failure{ck: ck, err: out.Err, memo: out}, true
}

// validateDoc is validateOne from the message's parsed document, through
// the engine's memo where the check allows; decided is false when the
// value is left to jsonschema/v6 (the oracle engine, a schema the
// document validator does not evaluate, an absent value).
func (r *fileRun) validateDoc(ck protocol.Check, m *protocol.Message) (f *failure, decided bool) {
	if r.e.oracle {
		return nil, false
	}
	sch, err := ck.Schema.Compiled()
	if err != nil {
		return nil, false
	}
	node := m.Doc.FindPath(ck.Loc)
	if node < 0 {
		return nil, false
	}
	if r.e.memo != nil && ck.Skip == nil {
		out, ok := r.e.memo.Check(r.x, ck, sch, &m.Doc, node)
		if !ok {
			r.e.docDeclined.Add(1)
			return nil, false
		}
		r.e.docValidated.Add(1)
		if out == nil {
			return nil, true
		}
		return &failure{ck: ck, err: out.Err, memo: out}, true
	}
	verr, ok := explain.ValidateDoc(sch, &m.Doc, node)
	if !ok {
		r.e.docDeclined.Add(1)
		return nil, false
	}
	r.e.docValidated.Add(1)
	if verr == nil {
		return nil, true
	}
	return &failure{ck: ck, err: verr, doc: &m.Doc, node: node}, true
}

// validate validates a check the fast path did not vouch for. A schema
// that splits (protocol.Schemas.Split) is validated part by part, and the
// fast path is asked about each part first: a message wrong in its
// envelope is not validated in its payload too, nor one wrong in a session
// id in its update. Otherwise the check is validated whole.
func (r *fileRun) validate(ck protocol.Check, m *protocol.Message, d *wire.Decoder) verdict {
	v, _ := r.validateParts(ck, r.split(ck, m), m, d, nil)
	return v
}

// split is the parts of ck (protocol.Schemas.SplitCheck), none when the
// engine validates checks whole.
func (r *fileRun) split(ck protocol.Check, m *protocol.Message) []protocol.Check {
	if r.e.whole {
		return nil
	}
	if ck.Value == nil {
		if node := m.Doc.FindPath(ck.Loc); node >= 0 {
			return r.e.schemas.SplitCheckDoc(ck, &m.Doc, node)
		}
		return nil
	}
	return r.e.schemas.SplitCheck(ck)
}

// outcome is how a part of a check fared: the schema and place it was
// validated at, and its failure if it failed (nil if it passed).
type outcome struct {
	schema *protocol.Schema
	ptr    string
	fail   *failure
}

// validateParts is validate with ck's parts given (none: ck is validated
// whole). It takes the outcome of a part that done holds (the same schema
// at the same place, so the same verdict) rather than validating it again,
// and returns the outcome of each part with the verdict.
func (r *fileRun) validateParts(ck protocol.Check, parts []protocol.Check, m *protocol.Message, d *wire.Decoder, done []outcome) (verdict, []outcome) {
	if len(parts) == 0 {
		if f := r.validateOne(ck, m); f != nil {
			return verdict{*f}, nil
		}
		return nil, nil
	}
	var v verdict
	outs := make([]outcome, 0, len(parts))
parts:
	for _, p := range parts {
		ptr := p.Pointer()
		for _, o := range done {
			if o.schema == p.Schema && o.ptr == ptr {
				if o.fail != nil {
					v = append(v, *o.fail)
				}
				outs = append(outs, o)
				continue parts
			}
		}
		o := outcome{schema: p.Schema, ptr: ptr}
		if f, found := r.remembered(p, m); found {
			// What the memo kept is the document validator's own
			// verdict: the fast path could only agree.
			if f != nil {
				o.fail = f
				v = append(v, *f)
			}
		} else if !r.e.fast(p.Schema, ptr, m, d) {
			if f := r.validateOne(p, m); f != nil {
				o.fail = f
				v = append(v, *f)
			}
		}
		outs = append(outs, o)
	}
	return v, outs
}

// wider validates alt, the wider schema of a check whose narrow schema
// gave narrow with the parts done. A part of the same schema at the same
// place is not validated again; and when one of them failed, the wider
// schema certainly fails too, so the fast path is not asked about the
// whole. same reports that the verdict is narrow's own, failure for
// failure: it explains the same way.
func (r *fileRun) wider(alt protocol.Check, ptr string, m *protocol.Message, d *wire.Decoder, narrow verdict, done []outcome) (v verdict, same bool) {
	parts := r.split(alt, m)
	fails := false
	for _, p := range parts {
		for _, o := range done {
			if o.fail != nil && o.schema == p.Schema && o.ptr == p.Pointer() {
				fails = true
			}
		}
	}
	// A wider schema that splits is judged part by part, each part asked
	// of the memo and the fast path first: asking the fast path about
	// the whole as well would decode every part twice when the value is
	// wrong by both, as every line of a trace with one systematic error
	// is.
	if !fails && len(parts) == 0 && r.e.fast(alt.Schema, ptr, m, d) {
		return nil, false
	}
	v, _ = r.validateParts(alt, parts, m, d, done)
	if len(v) != len(narrow) {
		return v, false
	}
	for i := range v {
		if v[i].err != narrow[i].err || v[i].ck.Schema != narrow[i].ck.Schema || !slices.Equal(v[i].ck.Loc, narrow[i].ck.Loc) {
			return v, false
		}
	}
	return v, true
}

// explain turns a verdict into findings, in the order one validation of
// the whole value gives them.
func (r *fileRun) explain(v verdict, line int) []Finding {
	var out []Finding
	for _, f := range v {
		if f.memo != nil {
			for _, fd := range f.memo.Findings {
				fd.Line = line
				out = append(out, fd)
			}
			continue
		}
		if verr, ok := f.err.(*jsonschema.ValidationError); ok && f.doc != nil {
			out = append(out, r.x.ExplainDoc(f.ck, verr, f.doc, f.node, line)...)
			continue
		}
		out = append(out, r.x.Explain(f.ck, f.err, line)...)
	}
	if len(v) > 1 {
		sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	}
	return out
}

// directions reads one sidecar line per record, for protocols that take a
// direction sidecar.
func (r *fileRun) directions(items []*item) error {
	if r.dirs == nil || r.rules == nil {
		return nil
	}
	allowed := r.rules.Directions()
	if len(allowed) == 0 {
		return nil
	}
	for _, it := range items {
		// Entry k is line k's: skip those of the lines that hold no
		// record (blank lines).
		var d string
		for r.dirLines < it.m.Line {
			if !r.dirs.Scan() {
				err := r.dirs.Err()
				r.dirs, r.dirEnded = nil, true
				if err != nil {
					return fmt.Errorf("direction sidecar: %w", err)
				}
				// Short: the rest of the trace is read without
				// directions, and the end of the trace says so.
				r.dirShort = true
				return nil
			}
			r.dirLines++
			d = strings.TrimSpace(r.dirs.Text())
		}
		ok := false
		for _, a := range allowed {
			ok = ok || d == a
		}
		if !ok {
			r.dirs, r.dirEnded = nil, true
			return fmt.Errorf("direction sidecar: line %d holds %s; each line must be %s", r.dirLines, protocol.Quote(d), strings.Join(allowed, " or "))
		}
		it.m.Dir = d
	}
	return nil
}

// nearMisses adds a warning for each member of the check's value, valid by
// sch, that is a near miss of a member sch defines, if the check asks.
func (it *item) nearMisses(sch *protocol.Schema, ck protocol.Check) {
	if ck.Closed {
		it.undefined(sch, ck)
		return
	}
	if !ck.NearMiss {
		return
	}
	for _, ms := range sch.NearMisses(valueOf(&it.m, ck)) {
		loc := append(append([]string(nil), ck.Loc...), ms.Loc...)
		it.once = append(it.once, Finding{Line: it.m.Line, Severity: Warning, Rule: RuleNearMiss, Pointer: protocol.Pointer(loc),
			Message: fmt.Sprintf("unknown member %s is a near miss of %s, which this object defines: a receiver ignores %s, so its value is lost; did you mean %s?",
				protocol.Quote(ms.Key), protocol.Quote(ms.Want), protocol.Quote(ms.Key), protocol.Quote(ms.Want))})
	}
}

// undefined adds an error for each member of the check's value, valid by
// sch (the widest schema the value may pass), that sch does not define.
func (it *item) undefined(sch *protocol.Schema, ck protocol.Check) {
	v := valueOf(&it.m, ck)
	var wide map[string]bool // the members the wider schema defines too
	if ck.Alt != nil && sch != ck.Alt {
		wide = map[string]bool{}
		for _, ms := range sch.Undefined(v) {
			wide[protocol.Pointer(ms.Loc)] = true
		}
		for _, ms := range ck.Alt.Undefined(v) {
			delete(wide, protocol.Pointer(ms.Loc))
		}
		if len(wide) > 0 {
			// An addition of the unstable schema: the same warning as
			// a value only it accepts.
			it.once = append(it.once, Finding{Line: it.m.Line, Severity: Warning, Rule: ck.AltRule, Pointer: ck.Pointer(), Message: ck.AltNote, Dialect: ck.AltVersion})
		}
	}
	for _, ms := range sch.Undefined(v) {
		if wide[protocol.Pointer(ms.Loc)] {
			continue
		}
		loc := append(append([]string(nil), ck.Loc...), ms.Loc...)
		msg := fmt.Sprintf("member %s is not defined by this type: the protocol's types take no members of one's own (every name is kept for its later versions); put custom data in _meta", protocol.Quote(ms.Key))
		if ms.Want != "" {
			msg = fmt.Sprintf("member %s is not defined by this type: a receiver ignores it, so its value is lost; did you mean %s?", protocol.Quote(ms.Key), protocol.Quote(ms.Want))
		}
		it.out = append(it.out, Finding{Line: it.m.Line, Severity: Error, Rule: RuleCustomMember, Pointer: protocol.Pointer(loc), Message: msg})
	}
}

// maxToken is the longest pointer token a finding repeats: input keys can
// be megabytes long.
const maxToken = protocol.MaxEcho

// cutPointer shortens the over-long tokens of a pointer to maxToken bytes
// with "...": the place stays readable, the output stays small.
func cutPointer(p string) string {
	if len(p) <= 4*maxToken {
		return p
	}
	toks := strings.Split(p, "/")
	for i, t := range toks {
		if len(t) > maxToken {
			n := maxToken - 3
			for n > 0 && !utf8.RuneStart(t[n]) {
				n--
			}
			toks[i] = t[:n] + "..."
		}
	}
	return strings.Join(toks, "/")
}

// oneCause drops a schema finding that repeats an earlier one at the same
// pointer with the same words, but for the schema named in parentheses: an
// envelope and its payload schema both rejecting an array payload are one
// mistake, reported once.
func oneCause(out []Finding) []Finding {
	if len(out) < 2 {
		return out
	}
	seen := make(map[string]bool, len(out))
	keep := out[:0]
	for _, f := range out {
		k := f.Pointer + "\x00" + f.Rule + "\x00" + causeText(f.Message)
		if seen[k] {
			continue
		}
		seen[k] = true
		keep = append(keep, f)
	}
	return keep
}

// causeText is a schema message without its trailing "(proto: Type)".
func causeText(msg string) string {
	if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
		return msg[:i]
	}
	return msg
}

// samePointers reports whether two lists of findings point at the same
// places.
func samePointers(a, b []Finding) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Pointer != b[i].Pointer {
			return false
		}
	}
	return true
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
		if pe.Kind == jsonscan.NumberTooLong {
			msg = fmt.Sprintf("%s (byte %d of the line): valid JSON, but no protocol number needs more than %d digits or an exponent beyond ±%d, so the line is not checked further", pe.Msg, pe.Offset+1, jsonscan.MaxNumberDigits, jsonscan.MaxNumberExponent)
		}
	}
	return &Finding{Line: line, Severity: Error, Rule: RuleJSON, Pointer: ptr, Message: msg}
}

// finish reports end-of-trace findings and completes the summary.
func (r *fileRun) finish(lines int) {
	r.sum.Lines = lines
	defer func() {
		d := Detected{File: r.name, Protocol: r.protocol()}
		if r.h != nil {
			d.Dialect = r.h.Dialect()
			d.Note = r.h.Note()
		}
		if rep, ok := r.h.(protocol.Reporter); ok {
			d.Peers = rep.Peers()
			d.Coverage = r.coverage(rep)
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
		for _, f := range r.h.Finish(lines) {
			r.emit(f)
		}
	}
	r.sidecarCount(lines)
}

// sidecarCount warns once when the direction sidecar holds another number
// of entries than the trace has lines: one of them was cut or is another
// trace's, and the directions read may be shifted.
func (r *fileRun) sidecarCount(lines int) {
	n := r.dirLines
	switch {
	case r.dirShort:
	case r.dirs == nil || lines == 0:
		return
	default:
		for n <= lines && r.dirs.Scan() {
			n++
		}
		if n == lines {
			return
		}
	}
	more := "fewer"
	if n > lines {
		more = "more"
	}
	r.emit(Finding{Line: 0, Severity: Warning, Rule: RuleSidecar, Message: fmt.Sprintf("the direction sidecar holds %s entries (%d) than the trace has lines (%d): it holds one direction per line of the trace, blank and unreadable lines included; the directions read may be shifted, and lines past its end were read without one", more, n, lines)})
}

// coverage sorts the rows of the trace's catalogue by what the trace showed
// of them.
func (r *fileRun) coverage(rep protocol.Reporter) *Coverage {
	rows := rep.Catalogue()
	if len(rows) == 0 {
		return nil
	}
	checked := map[string]bool{}
	if c, ok := r.rules.(protocol.Catalogued); ok {
		version := r.dialect()
		for _, d := range c.RuleDocs() {
			for _, id := range d.Requirements {
				checked[id] = checked[id] || d.Checks(id, version)
			}
		}
	}
	exercised := map[string]bool{}
	for _, id := range rep.Exercised() {
		exercised[id] = true
	}
	cov := &Coverage{}
	for _, id := range rows {
		switch {
		case r.violated[id]:
			cov.Violated = append(cov.Violated, id)
		case !checked[id]:
			cov.Unchecked = append(cov.Unchecked, id)
		case exercised[id]:
			cov.Exercised = append(cov.Exercised, id)
		default:
			cov.Unexercised = append(cov.Unexercised, id)
		}
	}
	for _, l := range [][]string{cov.Exercised, cov.Violated, cov.Unexercised, cov.Unchecked} {
		sort.Strings(l)
	}
	return cov
}
