package validate

// The schema checks of a message: the fast path first, then the general
// validator part by part, the wider schema of the unstable additions, and
// the explanation of what failed.

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/explain"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/pkg/wire"
	"github.com/agentproto/agentproto/schema/registry"
)

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

// scratch is what a goroutine that checks messages reuses from one to
// the next: the fast path's decoder and the skeletons the memo walked.
type scratch struct {
	dec    wire.Decoder
	shapes explain.Shapes
	// The verdicts of a check by its schema and by its wider one, and
	// the outcomes of the first's parts, reused from check to check.
	narrow, wide verdict
	outs         []outcome
}

// checkItem runs one message's schema checks and round trip, with sc's
// decoder for the fast path's decoding.
func (r *fileRun) checkItem(it *item, sc *scratch) {
	e := r.e
	m := &it.m
	d := &sc.dec
	sc.shapes.Reset()
	for _, ck := range m.Checks {
		ptr := ck.Pointer()
		if e.opts.Observe != nil {
			ck.Value = valueOf(m, ck)
			it.seen = append(it.seen, Observation{File: r.name, Line: m.Line, SchemaID: ck.Schema.ID, Pointer: ptr, Value: ck.Value, Valid: ck.Schema.Valid(ck.Value)})
		}
		if valid, known := e.fastKnown(ck.Schema, ptr, m, d); valid {
			if !known {
				r.nearMisses(it, ck.Schema, ck)
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
			n := len(it.out)
			it.out = r.explain(it.out, r.validate(ck, m, sc), m.Line)
			if len(it.out) == n {
				r.nearMisses(it, ck.Schema, ck)
			}
			continue
		}
		// Each schema is validated once; an error is explained from
		// that one validation.
		narrowErr, done := r.validateParts(ck, r.split(ck, m), m, sc, nil, sc.narrow[:0], sc.outs[:0], true)
		sc.narrow, sc.outs = narrowErr, done
		if len(narrowErr) == 0 {
			r.nearMisses(it, ck.Schema, ck)
			continue
		}
		alt := ck
		alt.Schema = ck.Alt
		wideErr, same := r.wider(alt, ptr, m, sc, narrowErr, done)
		if e.opts.Observe != nil {
			it.seen = append(it.seen, Observation{File: r.name, Line: m.Line, SchemaID: ck.Alt.ID, Pointer: ptr, Value: ck.Value, Valid: ck.Alt.Valid(ck.Value)})
		}
		if len(wideErr) == 0 {
			it.once = append(it.once, Finding{Line: m.Line, Severity: Warning, Rule: ck.AltRule, Pointer: ptr, Message: ck.AltNote, Dialect: ck.AltVersion})
			r.nearMisses(it, ck.Alt, ck)
			continue
		}
		// Wrong by both: explain by the stable schema, unless the
		// wider one finds other faults (then the stable schema's
		// complaints are about the additions, not the mistake).
		n := len(it.out)
		it.out = r.explain(it.out, narrowErr, m.Line)
		if same {
			continue
		}
		wide := r.explain(nil, wideErr, m.Line)
		if samePointers(it.out[n:], wide) {
			continue
		}
		it.out = it.out[:n]
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
func (r *fileRun) validateOne(ck protocol.Check, m *protocol.Message, sh *explain.Shapes) *failure {
	if f, decided := r.validateDoc(ck, m, sh); decided {
		return f
	}
	ck.Value = valueOf(m, ck)
	if err := ck.Schema.Validate(ck.Value); err != nil {
		return &failure{ck: ck, err: err}
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

// remembered is the part's outcome as the engine's memo kept it, if it
// kept one for a value validated and explained alike: its failure, if
// failed; found is false when it did not (or the check is not one it
// keeps).
func (r *fileRun) remembered(ck protocol.Check, m *protocol.Message, sh *explain.Shapes) (f failure, failed, found bool) {
	if r.e.memo == nil || r.e.oracle {
		return failure{}, false, false
	}
	sch, node, ok := docTarget(ck, m)
	if !ok {
		return failure{}, false, false
	}
	out, found := r.e.memo.Lookup(ck, sch, &m.Doc, node, sh)
	if !found || out == nil {
		return failure{}, false, found
	}
	return failure{ck: ck, err: out.Err, memo: out}, true, true
}

// seed hands a part the fast path found valid to the engine's memo (see
// explain.Memo.Seed): when messages keep failing the same way, their other
// parts are alike too, and the memo answers for them for less than
// decoding them again.
func (r *fileRun) seed(ck protocol.Check, m *protocol.Message, sh *explain.Shapes) {
	if r.e.memo == nil || r.e.oracle {
		return
	}
	if sch, node, ok := docTarget(ck, m); ok {
		r.e.memo.Seed(r.x, ck, sch, &m.Doc, node, sh)
	}
}

// validateDoc is validateOne from the message's parsed document, through
// the engine's memo where the check allows; decided is false when the
// value is left to jsonschema/v6 (the oracle engine, a schema the
// document validator does not evaluate, an absent value).
func (r *fileRun) validateDoc(ck protocol.Check, m *protocol.Message, sh *explain.Shapes) (f *failure, decided bool) {
	if r.e.oracle {
		return nil, false
	}
	sch, node, ok := docTarget(ck, m)
	if !ok {
		return nil, false
	}
	if r.e.memo != nil {
		out, ok := r.e.memo.Check(r.x, ck, sch, &m.Doc, node, sh)
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
func (r *fileRun) validate(ck protocol.Check, m *protocol.Message, sc *scratch) verdict {
	v, _ := r.validateParts(ck, r.split(ck, m), m, sc, nil, sc.narrow[:0], nil, false)
	sc.narrow = v
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
// and returns the verdict appended to v and, if keep, the outcome of each
// part appended to outs.
func (r *fileRun) validateParts(ck protocol.Check, parts []protocol.Check, m *protocol.Message, sc *scratch, done []outcome, v verdict, outs []outcome, keep bool) (verdict, []outcome) {
	if len(parts) == 0 {
		if f := r.validateOne(ck, m, &sc.shapes); f != nil {
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
		if f, failed, found := r.remembered(p, m, &sc.shapes); found {
			// What the memo kept is the document validator's own
			// verdict: the fast path could only agree.
			if failed {
				v = append(v, f)
				if keep {
					kept := f
					o.fail = &kept
				}
			}
		} else if !r.e.fast(p.Schema, ptr, m, &sc.dec) {
			if f := r.validateOne(p, m, &sc.shapes); f != nil {
				o.fail = f
				v = append(v, *f)
			}
		} else {
			r.seed(p, m, &sc.shapes)
		}
		if keep {
			outs = append(outs, o)
		}
	}
	return v, outs
}

// wider validates alt, the wider schema of a check whose narrow schema
// gave narrow with the parts done. A part of the same schema at the same
// place is not validated again; and when one of them failed, the wider
// schema certainly fails too, so the fast path is not asked about the
// whole. same reports that the verdict is narrow's own, failure for
// failure: it explains the same way.
func (r *fileRun) wider(alt protocol.Check, ptr string, m *protocol.Message, sc *scratch, narrow verdict, done []outcome) (v verdict, same bool) {
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
	if !fails && len(parts) == 0 && r.e.fast(alt.Schema, ptr, m, &sc.dec) {
		return nil, false
	}
	v, _ = r.validateParts(alt, parts, m, sc, done, sc.wide[:0], nil, false)
	sc.wide = v
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

// explain appends to out the findings of a verdict, in the order one
// validation of the whole value gives them.
func (r *fileRun) explain(out []Finding, v verdict, line int) []Finding {
	n := len(out)
	for _, f := range v {
		k := len(out)
		switch verr, ok := f.err.(*jsonschema.ValidationError); {
		case f.memo != nil:
			out = f.memo.AppendFindings(out, f.ck, line)
		case ok && f.doc != nil:
			out = append(out, r.x.ExplainDoc(f.ck, verr, f.doc, f.node, line)...)
		default:
			out = append(out, r.x.Explain(f.ck, f.err, line)...)
		}
		if r.e.explained != nil {
			r.e.explained(f, out[k:])
		}
	}
	if len(v) > 1 {
		added := out[n:]
		sort.SliceStable(added, func(i, j int) bool { return added[i].Pointer < added[j].Pointer })
	}
	return out
}

// nearMisses adds a warning for each member of the check's value, valid by
// sch, that is a near miss of a member sch defines, if the check asks. A
// member another version of the protocol defines at the same type is named
// as such instead.
func (r *fileRun) nearMisses(it *item, sch *protocol.Schema, ck protocol.Check) {
	if ck.Closed {
		r.undefined(it, sch, ck)
		return
	}
	if !ck.NearMiss {
		return
	}
	for _, ms := range sch.NearMisses(valueOf(&it.m, ck)) {
		loc := append(append([]string(nil), ck.Loc...), ms.Loc...)
		msg := fmt.Sprintf("unknown member %s is a near miss of %s, which this object defines: a receiver ignores %s, so its value is lost; did you mean %s?",
			protocol.Quote(ms.Key), protocol.Quote(ms.Want), protocol.Quote(ms.Key), protocol.Quote(ms.Want))
		if d := r.elsewhere(ms); d.Found() {
			msg = fmt.Sprintf("unknown member %s is not defined by this type", protocol.Quote(ms.Key)) + d.Hint()
		}
		it.once = append(it.once, Finding{Line: it.m.Line, Severity: Warning, Rule: RuleNearMiss, Pointer: protocol.Pointer(loc), Message: msg})
	}
}

// elsewhere looks up a member the check's type lacks in the other versions
// of the file's protocol.
func (r *fileRun) elsewhere(ms protocol.Miss) explain.Defined {
	if r.rules == nil {
		return explain.Defined{}
	}
	return r.e.elsewhere.Lookup(r.rules.Name(), ms.Types, ms.Key)
}

// undefined judges each member of the check's value, valid by sch (the
// widest schema the value may pass), that sch does not define. What the
// member is decides the verdict, each its own rule:
//   - an addition of the version's unstable schema: the unstable warning,
//     at the member;
//   - a member another version of the protocol defines: the
//     other-version warning, naming it (an error when that version is
//     only the version's own additions: the trace is read strictly);
//   - a member an earlier release defined and the version has removed:
//     the retired warning, naming the releases and what replaced it;
//   - a member no release ever defined: the custom-member error, since
//     the protocol reserves every name of its types (a near miss of a
//     member it defines says which one was meant).
func (r *fileRun) undefined(it *item, sch *protocol.Schema, ck protocol.Check) {
	v := valueOf(&it.m, ck)
	misses := sch.Undefined(v)
	var wide map[string]bool // the members the wider schema defines too
	if ck.Alt != nil && sch != ck.Alt && len(misses) > 0 {
		wide = map[string]bool{}
		for _, ms := range misses {
			wide[protocol.Pointer(ms.Loc)] = true
		}
		for _, ms := range ck.Alt.Undefined(v) {
			delete(wide, protocol.Pointer(ms.Loc))
		}
	}
	for _, ms := range misses {
		loc := append(append([]string(nil), ck.Loc...), ms.Loc...)
		ptr := protocol.Pointer(loc)
		key := protocol.Quote(ms.Key)
		if wide[protocol.Pointer(ms.Loc)] {
			it.once = append(it.once, Finding{Line: it.m.Line, Severity: Warning, Rule: ck.AltRule, Pointer: ptr, Dialect: ck.AltVersion,
				Message: fmt.Sprintf("member %s is not part of %s but an addition of %s: a peer that implements only the stable protocol ignores it, so its value is lost there; --dialect %s accepts it silently", key, r.titleOf(ck.Schema.ID), r.versionTitle(ck.AltVersion), ck.AltVersion)})
			continue
		}
		if d := r.elsewhere(ms); d.Found() {
			msg := fmt.Sprintf("member %s is not defined by this type", key) + d.Hint()
			if d.OnlyExtensions() {
				// The version's own additions on a trace read
				// strictly as the version (--dialect): the reader
				// asked for them to be errors.
				it.out = append(it.out, Finding{Line: it.m.Line, Severity: Error, Rule: RuleCustomMember, Pointer: ptr, Message: msg})
				continue
			}
			it.once = append(it.once, Finding{Line: it.m.Line, Severity: Warning, Rule: RuleOtherVersion, Pointer: ptr, Message: msg})
			continue
		}
		if h, title, ok := r.retiredMember(v, ms); ok {
			it.once = append(it.once, Finding{Line: it.m.Line, Severity: Warning, Rule: RuleRetired, Pointer: ptr, Message: retiredMessage(ms.Key, h, title)})
			continue
		}
		msg := fmt.Sprintf("member %s is not defined by this type, and no earlier release defined it: the protocol's types take no members of one's own (every name is kept for its later versions); put custom data in _meta", key)
		if ms.Want != "" {
			msg = fmt.Sprintf("member %s is not defined by this type: a receiver ignores it, so its value is lost; did you mean %s?", key, protocol.Quote(ms.Want))
		}
		it.out = append(it.out, Finding{Line: it.m.Line, Severity: Error, Rule: RuleCustomMember, Pointer: ptr, Message: msg})
	}
}

// retiredMember looks a member up in the history of the version of the
// types it was judged against, and returns what the history says with
// the title of that version.
func (r *fileRun) retiredMember(v any, ms protocol.Miss) (registry.HistoryMember, string, bool) {
	if len(ms.Types) == 0 {
		return registry.HistoryMember{}, "", false
	}
	ver := r.e.reg.ForID(ms.Types[0])
	h, err := r.e.reg.History(ver)
	if h == nil || err != nil {
		return registry.HistoryMember{}, "", false
	}
	obj, _ := protocol.Lookup(v, ms.Loc[:len(ms.Loc)-1]).(map[string]any)
	hm, ok := h.Member(ms.Types, ms.Key, obj)
	if !ok {
		return registry.HistoryMember{}, "", false
	}
	return hm, r.baseTitle(ver), true
}

// retiredMessage says of member key what the history says of it.
func retiredMessage(key string, h registry.HistoryMember, title string) string {
	var sb strings.Builder
	if len(h.When) == 2 {
		fmt.Fprintf(&sb, "member %s belongs to the variant selected by %s %s, which %s of %s defined and which has since been removed",
			protocol.Quote(key), h.When[0], protocol.Quote(h.When[1]), h.Releases(), title)
	} else {
		fmt.Fprintf(&sb, "member %s was defined here by %s of %s and has since been removed", protocol.Quote(key), h.Releases(), title)
	}
	sb.WriteString(": a peer built against a current release ignores it, so its value is lost there")
	if h.Successor != "" {
		sb.WriteString("; " + h.Successor + " took its place")
	}
	return sb.String()
}

// titleOf is the title of the version whose folder holds the schema id.
func (r *fileRun) titleOf(id string) string {
	if v := r.e.reg.ForID(id); v != nil {
		return v.Title
	}
	return "this version"
}

// versionTitle is the title of the file's protocol's version name.
func (r *fileRun) versionTitle(name string) string {
	if r.rules != nil {
		if v := r.e.reg.Lookup(r.rules.Name(), name); v != nil {
			return v.Title
		}
	}
	return name
}

// baseTitle is the title of v, or of the version it extends: a release
// history is the protocol's, unstable schema and all.
func (r *fileRun) baseTitle(v *registry.Version) string {
	if v == nil {
		return "the protocol"
	}
	return r.e.reg.Base(v).Title
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
