// Package judge decides whether a message's values are valid against their
// schemas and says why not: every schema check of one message (a
// protocol.Check, a value at a place in the message and the schema it must
// pass) becomes schema findings, once-per-trace warnings and, when asked,
// observations of each verdict.
//
// A check is judged by the first of these strategies that can decide it,
// in this order (Trace.Message, in this file):
//
//  1. the observation hook (Options.Observe): the general validator's
//     verdict is recorded for a second validator to compare; it costs the
//     fast path's speed;
//  2. the typed fast path (Fast): a value the generated Go types decode
//     strictly and validate is valid, and nothing else runs;
//  3. big arrays: a huge line's huge arrays are judged element by element,
//     so that a million bad elements do not become a million findings;
//  4. splitting into parts (protocol.Schemas.SplitCheck): an envelope apart
//     from its payload, each part asked of the memo and the fast path
//     before it is validated, so that a message wrong in one part is not
//     validated whole;
//  5. the memo (docvalid.Memo): a value that agrees with one judged before
//     on everything the validation read is judged and explained the same;
//  6. the document validator (docvalid.ValidateDoc): the value is
//     validated off the parsed document, without building it;
//  7. the jsonschema/v6 fallback: a schema the document validator declines
//     is validated on the value built as map[string]any;
//  8. the wider unstable schema (Check.Alt): a value wrong by the stable
//     schema but valid by the version's unstable additions is one warning;
//  9. near misses (members.go): a valid value's members that no schema of
//     its type defines are judged each by its own rule.
//
// Whatever strategy decides, the findings are the same: the strategies
// change only the time a check takes. The package's tests and the
// validator's hold them to that, comparing each strategy with jsonschema/v6
// alone (Options.Oracle, Options.Whole).
package judge

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/explain"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/internal/docvalid"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/pkg/wire"
	"github.com/agentproto/agentproto/schema/registry"
)

// Fast is a faster path than the general schema validator, for example
// the generated Go types decoded strictly and checked with their Validate
// methods (typed.Checker). Codec returns the codec of the schema with $id
// schemaID; false when there is none, and the general validator judges
// the schema's values. The judge asks once per schema and keeps the
// answer, then asks the codec about each value (wire.Codec.CheckAt) over a
// decoder it reuses: true vouches for the value, and when the codec also
// saw every member of it defined by the schema, no near miss is looked
// for. Implementations must be safe for concurrent use.
type Fast interface {
	Codec(schemaID string) (wire.Codec, bool)
}

// Options configure a Judge. The zero value judges with the document
// validator and its memo, jsonschema/v6 where the document validator
// declines, and no fast path.
type Options struct {
	// Fast, if set, is asked first about each value.
	Fast Fast
	// Observe records the general validator's verdict of every check in
	// Verdict.Seen (it costs the fast path's speed).
	Observe bool

	// The switches below are for tests, which compare the strategies.

	// Whole validates every check whole, never split into parts.
	Whole bool
	// Oracle validates failing values with jsonschema/v6 on values built
	// as map[string]any, never with the document validator or its memo:
	// the reference the other strategies are held to.
	Oracle bool
	// NoMemo explains every failure from the parsed document, keeping no
	// outcome.
	NoMemo bool
	// Explained, if set, is told of each failure explained and its
	// findings.
	Explained func(f Failure, findings []finding.Finding)
}

// Judge judges values against schemas. It is safe for concurrent use.
type Judge struct {
	opts      Options
	reg       *registry.Registry
	schemas   *protocol.Schemas
	docs      *explain.Docs
	memo      *docvalid.Memo // nil: none kept
	elsewhere *explain.Elsewhere
	// docJudged and docDeclined count the failing values the document
	// validator judged, and those whose schema it left to jsonschema/v6.
	docJudged, docDeclined atomic.Int64
}

// New returns a judge of the schemas of reg's versions, compiled in
// schemas as they are needed.
func New(reg *registry.Registry, schemas *protocol.Schemas, opts Options) *Judge {
	j := &Judge{
		opts: opts, reg: reg, schemas: schemas,
		docs:      explain.NewDocs(reg.FS(), reg.IDPrefix()),
		elsewhere: explain.NewElsewhere(reg, schemas),
	}
	if !opts.NoMemo && !opts.Oracle {
		j.memo = docvalid.NewMemo()
	}
	return j
}

// Stats count what the judge's strategies decided, for the tests.
type Stats struct {
	// DocJudged counts the failing values the document validator judged,
	// DocDeclined those it left to jsonschema/v6.
	DocJudged, DocDeclined int
	// MemoHits counts the values the memo answered for.
	MemoHits int
}

// Stats returns what the judge's strategies have decided so far.
func (j *Judge) Stats() Stats {
	s := Stats{DocJudged: int(j.docJudged.Load()), DocDeclined: int(j.docDeclined.Load())}
	if j.memo != nil {
		s.MemoHits = j.memo.Hits()
	}
	return s
}

// Trace is the judge of one trace's messages, once its protocol is
// known: failures are explained naming the protocol's types, and members
// a type lacks are looked up in the protocol's other versions.
type Trace struct {
	j     *Judge
	file  string
	proto string
	x     *explain.Explainer
}

// Trace returns the judge of the messages of the trace named file, of
// protocol proto.
func (j *Judge) Trace(file, proto string) *Trace {
	return &Trace{j: j, file: file, proto: proto, x: explain.New(proto, j.docs)}
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

// Verdict is what judging a message found; Message appends to it.
type Verdict struct {
	// Out holds the errors: schema findings and members no version defines.
	Out []finding.Finding
	// Once holds the warnings a trace reports once each (by message).
	Once []finding.Finding
	// Seen holds the observations, with Options.Observe.
	Seen []Observation
}

// Scratch is what a goroutine that judges messages reuses from one to the
// next: the fast path's decoder, the skeletons the memo walked, and the
// verdicts of the parts of a check. The zero Scratch is ready; it is not
// safe for concurrent use.
type Scratch struct {
	dec    wire.Decoder
	shapes docvalid.Shapes
	// The failures of a check by its schema and by its wider one, and
	// the outcomes of the first's parts, reused from check to check.
	narrow, wide []Failure
	outs         []outcome
}

// MaxPerLine is the most findings a line reports one by one; the judge
// stops judging a huge array's elements past it (see bigArrays).
const MaxPerLine = 20

// Message judges every schema check of m, appending what it finds to v.
func (t *Trace) Message(m *protocol.Message, sc *Scratch, v *Verdict) {
	sc.shapes.Reset()
	for _, ck := range m.Checks {
		t.check(ck, m, sc, v)
	}
	v.Out = oneCause(v.Out)
}

// check judges one check of m: the strategies in the package's order.
func (t *Trace) check(ck protocol.Check, m *protocol.Message, sc *Scratch, v *Verdict) {
	j := t.j
	ptr := ck.Pointer()
	// 1. The observation hook.
	if j.opts.Observe {
		ck.Value = valueOf(m, ck)
		v.Seen = append(v.Seen, t.observe(m, ck.Schema, ptr, ck.Value))
	}
	// 2. The typed fast path.
	if valid, known := j.fast(ck.Schema, ptr, m, &sc.dec); valid {
		if !known {
			t.nearMisses(v, m, ck.Schema, ck)
		}
		return
	}
	// The document validator reads the parsed document; jsonschema/v6
	// as the oracle and a huge line's arrays read built values.
	if j.opts.Oracle || len(m.Data) >= bigLine {
		ck.Value = valueOf(m, ck)
	}
	// 3. Big arrays.
	if len(m.Data) >= bigLine {
		if fs := t.bigArrays(ck, m.Line); len(fs) > 0 {
			v.Out = append(v.Out, fs...)
			return
		}
	}
	// 4 to 7. The parts of the value, each by the memo, the fast path,
	// the document validator or jsonschema/v6.
	if ck.Alt == nil {
		n := len(v.Out)
		sc.narrow, _ = t.validateParts(ck, t.split(ck, m), m, sc, nil, sc.narrow[:0], nil, false)
		v.Out = t.explain(v.Out, sc.narrow, m.Line)
		if len(v.Out) == n {
			// 9. Near misses of a valid value.
			t.nearMisses(v, m, ck.Schema, ck)
		}
		return
	}
	// Each schema is validated once; an error is explained from that one
	// validation.
	narrow, done := t.validateParts(ck, t.split(ck, m), m, sc, nil, sc.narrow[:0], sc.outs[:0], true)
	sc.narrow, sc.outs = narrow, done
	if len(narrow) == 0 {
		t.nearMisses(v, m, ck.Schema, ck)
		return
	}
	// 8. The wider unstable schema.
	t.checkWider(ck, ptr, m, sc, v, narrow, done)
}

// checkWider judges a value wrong by its stable schema against the wider
// schema of the version's unstable additions: valid by it, the value is
// one warning (and its near misses by the wider schema); wrong by both, it
// is explained by the stable schema, unless the wider one finds other
// faults (then the stable schema's complaints are about the additions,
// not the mistake).
func (t *Trace) checkWider(ck protocol.Check, ptr string, m *protocol.Message, sc *Scratch, v *Verdict, narrow []Failure, done []outcome) {
	alt := ck
	alt.Schema = ck.Alt
	wide, same := t.wider(alt, ptr, m, sc, narrow, done)
	if t.j.opts.Observe {
		v.Seen = append(v.Seen, t.observe(m, ck.Alt, ptr, ck.Value))
	}
	if len(wide) == 0 {
		v.Once = append(v.Once, finding.Finding{Line: m.Line, Severity: finding.Warning, Rule: ck.AltRule, Pointer: ptr, Message: ck.AltNote, Dialect: ck.AltVersion})
		t.nearMisses(v, m, ck.Alt, ck)
		return
	}
	n := len(v.Out)
	v.Out = t.explain(v.Out, narrow, m.Line)
	if same {
		return
	}
	wf := t.explain(nil, wide, m.Line)
	if samePointers(v.Out[n:], wf) {
		return
	}
	v.Out = v.Out[:n]
	for _, f := range wf {
		f.Dialect = ck.AltVersion
		v.Out = append(v.Out, f)
	}
}

// observe is the general validator's verdict of the value at ptr in m by
// sch, as the observation hook records it.
func (t *Trace) observe(m *protocol.Message, sch *protocol.Schema, ptr string, value any) Observation {
	return Observation{File: t.file, Line: m.Line, SchemaID: sch.ID, Pointer: ptr, Value: value, Valid: sch.Valid(value)}
}

// valueOf is the value a check reads: the one the rules gave, else the
// value at the check's location, built from the message's Doc.
func valueOf(m *protocol.Message, ck protocol.Check) any {
	if ck.Value != nil {
		return ck.Value
	}
	return m.AtPath(ck.Loc)
}

// fast asks the fast path, if there is one, whether the value at ptr in
// the message is certainly valid against s, and for a valid value also
// whether it saw every member of it defined by the schema. d is the
// decoder the codec reads from, which fast resets.
func (j *Judge) fast(s *protocol.Schema, ptr string, m *protocol.Message, d *wire.Decoder) (valid, known bool) {
	if j.opts.Fast == nil {
		return false, false
	}
	c := s.Codec(j.opts.Fast.Codec)
	if c == nil {
		return false, false
	}
	d.Reset(m.Data)
	d.SetEnds(&m.Doc)
	return c.CheckAt(d, ptr)
}

// bigLine is the size from which a failing line's huge arrays are checked
// element by element before the whole value is (see bigArrays).
const bigLine = 1 << 20

// bigArray is the length from which an array counts as huge.
const bigArray = 1024

// bigArrays checks the elements of the huge arrays of a failing check's
// value one by one, stopping after MaxPerLine+1 failures, and returns their
// findings: nil when they all pass, and then the value is checked whole. A
// general validator reports every failing element of an array at once, so
// a line of a million bad elements would otherwise cost gigabytes.
func (t *Trace) bigArrays(ck protocol.Check, line int) []finding.Finding {
	var out []finding.Finding
	failed := 0
	for _, a := range ck.Schema.BigArrays(ck.Value, bigArray) {
		for i, el := range a.Value {
			err := a.Items.Validate(el)
			if err == nil {
				continue
			}
			loc := append(append(append([]string(nil), ck.Loc...), a.Loc...), strconv.Itoa(i))
			out = append(out, t.x.Explain(protocol.Check{Schema: a.Items, Loc: loc, Value: el}, err, line)...)
			if failed++; failed > MaxPerLine {
				return out
			}
		}
	}
	return out
}

// split is the parts of ck (protocol.Schemas.SplitCheck), none when the
// judge validates checks whole.
func (t *Trace) split(ck protocol.Check, m *protocol.Message) []protocol.Check {
	if t.j.opts.Whole {
		return nil
	}
	if ck.Value == nil {
		if node := m.Doc.FindPath(ck.Loc); node >= 0 {
			return t.j.schemas.SplitCheckDoc(ck, &m.Doc, node)
		}
		return nil
	}
	return t.j.schemas.SplitCheck(ck)
}

// Failure is a part of a check and its validation error. Doc, when set,
// holds the value at node Node: Err is the document validator's tree of
// it; otherwise Err is jsonschema/v6's.
type Failure struct {
	Check protocol.Check
	Err   error
	Doc   *jsonscan.Doc
	Node  int
	memo  *docvalid.Outcome // Err's explanation, kept by the memo
}

// outcome is how a part of a check fared: the schema and place it was
// validated at, and its failure if it failed (nil if it passed).
type outcome struct {
	schema *protocol.Schema
	ptr    string
	fail   *Failure
}

// validateParts validates a check the fast path did not vouch for, part by
// part (none: ck is validated whole), and asks the memo and the fast path
// about each part first: a message wrong in its envelope is not validated
// in its payload too, nor one wrong in a session id in its update. It
// takes the outcome of a part that done holds (the same schema at the
// same place, so the same verdict) rather than validating it again, and
// returns the failures appended to v and, if keep, the outcome of each
// part appended to outs.
func (t *Trace) validateParts(ck protocol.Check, parts []protocol.Check, m *protocol.Message, sc *Scratch, done []outcome, v []Failure, outs []outcome, keep bool) ([]Failure, []outcome) {
	if len(parts) == 0 {
		if f := t.validateOne(ck, m, &sc.shapes); f != nil {
			v = append(v, *f)
		}
		return v, outs
	}
parts:
	for _, p := range parts {
		ptr := p.Pointer()
		for _, o := range done {
			if o.schema == p.Schema && o.ptr == ptr {
				if o.fail != nil {
					v = append(v, *o.fail)
				}
				if keep {
					outs = append(outs, o)
				}
				continue parts
			}
		}
		o := outcome{schema: p.Schema, ptr: ptr}
		if f, failed, found := t.remembered(p, m, &sc.shapes); found {
			// What the memo kept is the document validator's own
			// verdict: the fast path could only agree.
			if failed {
				v = append(v, f)
				if keep {
					kept := f
					o.fail = &kept
				}
			}
		} else if valid, _ := t.j.fast(p.Schema, ptr, m, &sc.dec); !valid {
			if f := t.validateOne(p, m, &sc.shapes); f != nil {
				o.fail = f
				v = append(v, *f)
			}
		} else {
			t.seed(p, m, &sc.shapes)
		}
		if keep {
			outs = append(outs, o)
		}
	}
	return v, outs
}

// validateOne validates one value: by the memo and the document validator
// where the schema allows, else with jsonschema/v6 on the built value; nil
// when the value is valid.
func (t *Trace) validateOne(ck protocol.Check, m *protocol.Message, sh *docvalid.Shapes) *Failure {
	if f, decided := t.validateDoc(ck, m, sh); decided {
		return f
	}
	// 7. The jsonschema/v6 fallback.
	ck.Value = valueOf(m, ck)
	if err := ck.Schema.Validate(ck.Value); err != nil {
		return &Failure{Check: ck, Err: err}
	}
	return nil
}

// docTarget is what a check of the parsed document reads: ck's compiled
// schema and the node of m's document at ck's location; ok is false when
// the schema did not compile or the value is absent.
func docTarget(ck protocol.Check, m *protocol.Message) (sch *jsonschema.Schema, node int, ok bool) {
	sch, err := ck.Schema.Compiled()
	if err != nil {
		return nil, -1, false
	}
	node = m.Doc.FindPath(ck.Loc)
	return sch, node, node >= 0
}

// validateDoc validates one value off the message's parsed document,
// through the memo where there is one; decided is false when the value is
// left to jsonschema/v6 (the oracle, a schema the document validator does
// not evaluate, an absent value).
func (t *Trace) validateDoc(ck protocol.Check, m *protocol.Message, sh *docvalid.Shapes) (f *Failure, decided bool) {
	j := t.j
	if j.opts.Oracle {
		return nil, false
	}
	sch, node, ok := docTarget(ck, m)
	if !ok {
		return nil, false
	}
	if j.memo != nil {
		// 5. The memo, which runs the document validator for a value
		// it does not know.
		out, ok := j.memo.Check(t.x, ck, sch, &m.Doc, node, sh)
		if !j.counted(ok) || out == nil {
			return nil, ok
		}
		return &Failure{Check: ck, Err: out.Err, memo: out}, true
	}
	// 6. The document validator.
	verr, ok := docvalid.ValidateDoc(sch, &m.Doc, node)
	if !j.counted(ok) || verr == nil {
		return nil, ok
	}
	return &Failure{Check: ck, Err: verr, Doc: &m.Doc, Node: node}, true
}

// counted counts a value the document validator judged (ok) or declined,
// and returns ok.
func (j *Judge) counted(ok bool) bool {
	if ok {
		j.docJudged.Add(1)
	} else {
		j.docDeclined.Add(1)
	}
	return ok
}

// remembered is the part's outcome as the memo kept it, if it kept one for
// a value validated and explained alike: its failure, if failed; found is
// false when it did not (or the check is not one it keeps).
func (t *Trace) remembered(ck protocol.Check, m *protocol.Message, sh *docvalid.Shapes) (f Failure, failed, found bool) {
	if t.j.memo == nil {
		return Failure{}, false, false
	}
	sch, node, ok := docTarget(ck, m)
	if !ok {
		return Failure{}, false, false
	}
	out, found := t.j.memo.Lookup(ck, sch, &m.Doc, node, sh)
	if !found || out == nil {
		return Failure{}, false, found
	}
	return Failure{Check: ck, Err: out.Err, memo: out}, true, true
}

// seed hands a part the fast path found valid to the memo (see
// docvalid.Memo.Seed): when messages keep failing the same way, their
// other parts are alike too, and the memo answers for them for less than
// decoding them again.
func (t *Trace) seed(ck protocol.Check, m *protocol.Message, sh *docvalid.Shapes) {
	if t.j.memo == nil {
		return
	}
	if sch, node, ok := docTarget(ck, m); ok {
		t.j.memo.Seed(t.x, ck, sch, &m.Doc, node, sh)
	}
}

// wider validates alt, the wider schema of a check whose narrow schema
// gave narrow with the parts done. A part of the same schema at the same
// place is not validated again; and when one of them failed, the wider
// schema certainly fails too, so the fast path is not asked about the
// whole. same reports that the verdict is narrow's own, failure for
// failure: it explains the same way.
func (t *Trace) wider(alt protocol.Check, ptr string, m *protocol.Message, sc *Scratch, narrow []Failure, done []outcome) (v []Failure, same bool) {
	parts := t.split(alt, m)
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
	if !fails && len(parts) == 0 {
		if valid, _ := t.j.fast(alt.Schema, ptr, m, &sc.dec); valid {
			return nil, false
		}
	}
	v, _ = t.validateParts(alt, parts, m, sc, done, sc.wide[:0], nil, false)
	sc.wide = v
	if len(v) != len(narrow) {
		return v, false
	}
	for i := range v {
		if v[i].Err != narrow[i].Err || v[i].Check.Schema != narrow[i].Check.Schema || !slices.Equal(v[i].Check.Loc, narrow[i].Check.Loc) {
			return v, false
		}
	}
	return v, true
}

// explain appends to out the findings of the failures of a check, in the
// order one validation of the whole value gives them.
func (t *Trace) explain(out []finding.Finding, v []Failure, line int) []finding.Finding {
	n := len(out)
	for _, f := range v {
		k := len(out)
		switch verr, ok := f.Err.(*jsonschema.ValidationError); {
		case f.memo != nil:
			out = f.memo.AppendFindings(out, f.Check, line)
		case ok && f.Doc != nil:
			out = append(out, t.x.ExplainDoc(f.Check, verr, f.Doc, f.Node, line)...)
		default:
			out = append(out, t.x.Explain(f.Check, f.Err, line)...)
		}
		if t.j.opts.Explained != nil {
			t.j.opts.Explained(f, out[k:])
		}
	}
	if len(v) > 1 {
		added := out[n:]
		sort.SliceStable(added, func(i, j int) bool { return added[i].Pointer < added[j].Pointer })
	}
	return out
}

// oneCause drops a schema finding that repeats an earlier one at the same
// pointer with the same words, but for the schema named in parentheses: an
// envelope and its payload schema both rejecting an array payload are one
// mistake, reported once.
func oneCause(out []finding.Finding) []finding.Finding {
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
func samePointers(a, b []finding.Finding) bool {
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
