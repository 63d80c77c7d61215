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
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentproto/agentproto/pkg/trace"
	"github.com/agentproto/agentproto/pkg/validate/judge"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/pkg/wire"
	"github.com/agentproto/agentproto/schema/registry"
)

// FastChecker is the seam for a faster path than the general schema
// validator: the generated Go types decoded strictly and checked with
// their Validate methods (typed.Checker). Codec returns the codec of the
// schema with $id schemaID; false when there is none, and the general
// validator checks the schema's values. The engine asks once per schema
// and keeps the answer, then asks the codec about each value
// (wire.Codec.CheckAt) over a decoder it reuses, told where the line's
// arrays and objects end since the engine has parsed the line already:
// true skips the general validator for that value, and when the codec
// also saw every member of it defined by the schema, no near miss is
// looked for. Implementations must be safe for concurrent use.
type FastChecker interface {
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
	// Protocol forces the protocol of every file (a name of the
	// registry's protocols); "" detects it from each file's content.
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
	// Registry, if set, is the registry of versions read, with the
	// schema folder its schemas come from (registry.Load); nil: the
	// embedded one (registry.Embedded).
	Registry *registry.Registry
	// Protocols, if set, are the protocols checked, in the order a
	// file's protocol is tried, instead of Protocols(): with Registry, a
	// protocol of one's own is checked without registering it globally.
	Protocols []Protocol
}

// Observation is one schema check of one message: where, the schema, the
// value and the general validator's verdict.
type Observation = judge.Observation

// Engine validates traces. It is safe for concurrent use by several Check
// calls.
type Engine struct {
	opts    Options
	workers int
	reg     *registry.Registry
	rules   []protocol.Rules // in the order a file's protocol is tried
	schemas *protocol.Schemas
	judge   *judge.Judge
}

// New reads the registry and prepares each protocol's rules; no schema is
// compiled until a trace needs it.
func New(opts Options) (*Engine, error) {
	reg, schemas := opts.Registry, protocol.NewSchemas()
	if reg == nil {
		var err error
		if reg, err = registry.Embedded(); err != nil {
			return nil, fmt.Errorf("validate: %w", err)
		}
	} else {
		schemas = protocol.NewSchemasFS(reg.FS(), reg.IDPrefix())
	}
	protocols := opts.Protocols
	if protocols == nil {
		protocols = Protocols()
	}
	e := &Engine{opts: opts, workers: opts.Workers, reg: reg, schemas: schemas}
	e.setJudge(judge.Options{})
	var names []string
	for _, p := range protocols {
		e.rules = append(e.rules, p.Rules(reg, schemas))
		names = append(names, p.Name)
	}
	if e.workers <= 0 {
		e.workers = runtime.GOMAXPROCS(0)
	}
	if opts.Protocol != "" && e.rulesOf(opts.Protocol) == nil {
		return nil, fmt.Errorf("validate: unknown protocol %q (want %s)", opts.Protocol, strings.Join(names, ", "))
	}
	if opts.Dialect != "" && !e.knownDialect(opts.Dialect) {
		return nil, fmt.Errorf("validate: unknown dialect %q (want one of %s)", opts.Dialect, strings.Join(e.Dialects(opts.Protocol), ", "))
	}
	return e, nil
}

// setJudge makes the engine's judge with o, the fast path and the
// observation hook of the engine's options added: the tests set o's
// switches to compare the judge's strategies.
func (e *Engine) setJudge(o judge.Options) {
	if e.opts.Fast != nil {
		o.Fast = e.opts.Fast
	}
	o.Observe = e.opts.Observe != nil
	e.judge = judge.New(e.reg, e.schemas, o)
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
//
// A check is a pipeline (stages): the trace is read and cut into batches
// of lines (readBatches), then each batch is parsed, its protocol detected
// and its messages stepped through the protocol's rules in order, its
// values judged against their schemas (package judge) on any worker, and
// its findings reported in order; finish reports the end of the trace.
func (e *Engine) Check(ctx context.Context, name string, r io.Reader, fo FileOptions, report func(Finding)) (Summary, error) {
	run := e.newRun(name, fo, report)
	// The batches keep copies of their lines in storage they reuse, so
	// the reader lends its lines; a live trace is read on a goroutine of
	// its own, ahead of the batches, and is given them.
	tr, err := trace.NewReader(r, trace.Options{MaxLine: e.opts.MaxLine, MaxBytes: e.opts.MaxBytes, Format: fo.Format, Borrow: fo.Idle <= 0})
	if err != nil {
		run.emit(Finding{Line: 0, Severity: Error, Rule: RuleIO, Message: fmt.Sprintf("the trace cannot be read: %v", err)})
		run.sum.Detected = []Detected{{File: name}}
		return run.sum, fmt.Errorf("%s: %w", name, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// lines is what the trace reader has read, for the summary; the reader
	// may run on its own goroutine (Idle), hence the atomic.
	var lines atomic.Int64
	ioErr := run.stages(ctx, tr, fo, &lines)
	if err := ctx.Err(); err != nil && ioErr == nil {
		ioErr = err
	}
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

	// annotators read each record for message (annotate), made on first use.
	annotators []protocol.Annotator

	decided  bool // a batch has been seen
	detected bool // the protocol is known
	rules    protocol.Rules
	h        protocol.Handler
	judge    *judge.Trace // the judge of the trace's messages
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
	text       textRun         // consecutive lines of text, not yet reported
}

// newRun returns the state of one Check of the trace named name.
func (e *Engine) newRun(name string, fo FileOptions, report func(Finding)) *fileRun {
	run := &fileRun{e: e, name: name, report: report, message: fo.Message, control: fo.Rules, baseline: fo.Baseline, onceSeen: map[string]bool{}, sum: Summary{Files: 1, ByType: map[string]int{}, ByRule: map[string]int{}}}
	if fo.Directions != nil {
		run.dirs = bufio.NewScanner(fo.Directions)
	}
	return run
}
