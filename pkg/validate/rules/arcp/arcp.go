// Package arcp holds the validator's rules for ARCP traces: each envelope
// against its message type's schema (and job events against their kind's),
// the known SDKs' deviations from canonical ARCP v1.1 as warnings naming the
// SDK, and the session and job rules no schema can express.
package arcp

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/internal/suggest"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// Rules are ARCP's rules; New makes them.
type Rules struct {
	reg     *registry.Registry
	schemas *protocol.Schemas

	mu       sync.Mutex
	compiled map[string]*set // by version name
}

// New returns ARCP's rules over the registry's ARCP versions and dialects.
func New(reg *registry.Registry, schemas *protocol.Schemas) *Rules {
	return &Rules{reg: reg, schemas: schemas, compiled: map[string]*set{}}
}

// Name is "arcp".
func (*Rules) Name() string { return "arcp" }

// Identify: ARCP envelopes carry "arcp" and "type".
func (*Rules) Identify(o map[string]any) bool {
	_, a := o["arcp"]
	_, t := o["type"]
	return a && t
}

// Dialects lists the ARCP versions and SDK dialects.
func (r *Rules) Dialects() []string { return r.reg.DialectNames("arcp") }

// Directions are the values of an ARCP direction sidecar: client to
// runtime, runtime to client.
func (*Rules) Directions() []string { return []string{"c2r", "r2c"} }

// set is one ARCP version's table with its schemas compiled.
type set struct {
	v        *registry.Version
	t        *registry.ARCPTable
	messages map[string]*protocol.Schema
	events   map[string]*protocol.Schema
	byKind   map[string]*protocol.Schema // whole messages narrowed to one event kind
	from     map[string]string           // the sending side of each message type
	types    []string                    // known message types, sorted
	kinds    []string                    // known event kinds, sorted
	rules    ruleSet                     // the table's checked rules, by check
	devRules []string                    // the rule name of each deviation a row is bound to, by index ("" for the others)
	patterns map[string]*regexp.Regexp   // the format rules' patterns, by rule
}

func (r *Rules) set(v *registry.Version) (*set, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.compiled[v.Name]; s != nil {
		return s, nil
	}
	s := &set{v: v, t: v.ARCP(), messages: map[string]*protocol.Schema{}, events: map[string]*protocol.Schema{}, byKind: map[string]*protocol.Schema{}, from: map[string]string{}}
	for _, m := range v.ARCP().Messages {
		c, err := r.schemas.Get(v.SchemaID(m.Schema))
		if err != nil {
			return nil, fmt.Errorf("%s: message %s: %w", v, m.Type, err)
		}
		s.messages[m.Type] = c
		s.from[m.Type] = m.Direction
		s.types = append(s.types, m.Type)
	}
	for _, e := range v.ARCP().Events {
		c, err := r.schemas.Get(v.SchemaID(e.Schema))
		if err != nil {
			return nil, fmt.Errorf("%s: event %s: %w", v, e.Kind, err)
		}
		s.events[e.Kind] = c
		s.kinds = append(s.kinds, e.Kind)
		if e.MessageSchema != "" {
			mc, err := r.schemas.Get(v.SchemaID(e.MessageSchema))
			if err != nil {
				return nil, fmt.Errorf("%s: event %s: %w", v, e.Kind, err)
			}
			s.byKind[e.Kind] = mc
		}
	}
	sort.Strings(s.types)
	sort.Strings(s.kinds)
	for _, d := range v.ARCP().Deviations {
		name := finding.RuleDeviationPrefix + d.ID
		if !slices.ContainsFunc(RuleDocs(), func(doc protocol.RuleDoc) bool { return doc.Name == name }) {
			name = "" // no row is bound to it: nothing to note
		}
		s.devRules = append(s.devRules, name)
	}
	if err := s.compileRules(); err != nil {
		return nil, fmt.Errorf("%s: %w", v, err)
	}
	r.compiled[v.Name] = s
	return s, nil
}

// Start reads a trace as the forced dialect, or detects it from the first
// messages: a dialect version whose own message types appear (the Rust
// SDK's), else the SDK that the deviations and format signals point at
// most specifically (detectSDK), else canonical.
func (r *Rules) Start(first []*protocol.Message, opts protocol.Start) (protocol.Handler, error) {
	forced := opts.Dialect
	canon := r.reg.Default("arcp")
	if canon == nil {
		return nil, fmt.Errorf("no ARCP version in the registry")
	}
	st := newState(r.reg)
	st.partial = opts.Partial
	v := canon
	st.dial = registry.DialectCanonical
	switch {
	case forced == "":
		v, st.dial, st.note = r.detect(first, canon)
	case r.reg.Lookup("arcp", forced) != nil:
		v = r.reg.Lookup("arcp", forced)
		st.dial = forced
		if v == canon {
			st.dial = registry.DialectCanonical
		}
		st.note = forced + ": forced with --dialect"
	default:
		st.dial = forced // an SDK dialect read with the default version
		st.note = forced + ": forced with --dialect"
	}
	var err error
	if st.set, err = r.set(v); err != nil {
		return nil, err
	}
	return st, nil
}

func (r *Rules) detect(msgs []*protocol.Message, canon *registry.Version) (*registry.Version, string, string) {
	for _, v := range r.reg.Versions("arcp") {
		if !v.Dialect {
			continue
		}
		for _, m := range msgs {
			if m.Obj() == nil {
				continue
			}
			typ, _ := m.Obj()["type"].(string)
			if v.ARCP().Message(typ) != nil && canon.ARCP().Message(typ) == nil {
				return v, v.Name, fmt.Sprintf("%s: message type %s, line %d", v.Name, protocol.Quote(typ), m.Line)
			}
		}
	}
	name, note := detectSDK(canon.ARCP(), msgs)
	return canon, name, note
}

func (s *state) Dialect() string { return s.dial }

func (s *state) Note() string { return s.note }

func (s *state) Finish(lastLine int) []finding.Finding { return s.unacknowledged(lastLine) }

// matches reports whether the deviation's detection holds for message m,
// whose type is typ. The type and event kind are compared first; values
// are built only where a detection compares them, or where a pointer has
// "*" tokens.
func matches(d *registry.Deviation, typ string, m *protocol.Message) bool {
	if !slices.Contains(d.MessageTypes, typ) {
		return false
	}
	if d.EventKind != "" && !m.StringIs("/payload/kind", d.EventKind) {
		return false
	}
	if len(d.Detect.Present) > 0 {
		found := false
		for _, ptr := range d.Detect.Present {
			if m.Present(ptr) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	for _, ptr := range d.Detect.Absent {
		if !m.AbsentSomewhere(ptr) {
			return false
		}
	}
	for ptr, want := range d.Detect.Equals {
		vals := m.Resolve(ptr)
		if len(vals) == 0 || !protocol.JSONEqual(vals[0].Value, want) {
			return false
		}
	}
	for ptr, wants := range d.Detect.OneOf {
		vals := m.Resolve(ptr)
		if len(vals) == 0 {
			return false
		}
		hit := false
		for _, w := range wants {
			hit = hit || protocol.JSONEqual(vals[0].Value, w)
		}
		if !hit {
			return false
		}
	}
	return true
}

// begin judges, at the trace's first message, whether it is a capture that
// began mid-session: its first message neither opens nor resumes a session
// (by the table's effects). The rules already skip what needs a session's
// start when the trace does not hold it; this says so once.
func (s *state) begin(m *protocol.Message, typ string) {
	if s.begun {
		return
	}
	s.begun = true
	if e := s.set.t.Message(typ); e != nil && (e.Effect == effHello || e.Effect == effResume) || s.partial == protocol.PartialNo {
		return
	}
	m.Add(finding.Warning, finding.RulePartialCapture, "/type", "the trace begins mid-session: its first message is %s, not the opening or resumption of a session; rules that need a session's start are not applied to what came before line %d", protocol.Quote(typ), m.Line)
}

// Step dispatches one ARCP message and applies the state rules.
func (s *state) Step(m *protocol.Message) {
	typ, ok := typeOf(m)
	if !ok {
		return
	}
	s.sender(m, typ)
	s.exercised.Row("arcp.envelope.defined-type")
	sch := s.set.messages[typ]
	if sch == nil {
		s.unknownType(m, typ)
		return
	}
	m.Label = typ
	s.exercised.Row("arcp.schema.shape")
	s.begin(m, typ)
	ck := protocol.Check{Schema: sch}
	m.RTSchema = sch.ID
	kind := s.eventKind(m, typ, &ck)
	s.exerciseSchema(m, typ, kind)
	devs, notTerminal := s.dialectDeviations(m, typ)
	if len(devs) > 0 {
		ck.Skip = skipDeviations(ck.Skip, devs, m)
	}
	m.Checks = append(m.Checks, ck)
	s.deviated = len(devs) > 0
	s.apply(m, typ, kind, notTerminal)
}

// typeOf is an envelope's message type; it reports a message that is no
// object or names no type, and labels the untyped.
func typeOf(m *protocol.Message) (string, bool) {
	if !m.IsObject() {
		m.Add(finding.Error, finding.RuleSchema, "", "an ARCP message must be a JSON object (an envelope with arcp, id, type and payload), got %s", protocol.Describe(m.Value()))
		return "", false
	}
	ok := m.Has("/type")
	typ, isStr := m.String("/type")
	if !ok || !isStr {
		m.Label = "untyped"
		if !ok {
			m.Add(finding.Error, finding.RuleSchema, "", "missing required field \"type\": every ARCP envelope names its message type (arcp: Envelope)")
		} else {
			m.Add(finding.Error, finding.RuleSchema, "/type", "wrong type: got %s, want string (arcp: Envelope)", strings.TrimPrefix(strings.TrimPrefix(protocol.Describe(m.At("/type")), "an "), "a "))
		}
		return "", false
	}
	return typ, true
}

// sender notes who sent the message: as its direction says, else as the
// table says its type's sender is.
func (s *state) sender(m *protocol.Message, typ string) {
	switch {
	case m.Dir == "c2r":
		m.From = "client"
	case m.Dir == "r2c":
		m.From = "runtime"
	default:
		if f := s.set.from[typ]; f == "client" || f == "runtime" {
			m.From = f
		}
	}
}

// unknownType reports a message type the version does not have: a vendor
// type is ignored by receivers, anything else is an error.
func (s *state) unknownType(m *protocol.Message, typ string) {
	set := s.set
	m.Label = "unknown type"
	if strings.HasPrefix(typ, "x-vendor.") {
		m.Add(finding.Warning, finding.RuleUnknownType, "/type", "vendor message type %s is not part of ARCP %s: a receiver that does not know it ignores it", protocol.Quote(typ), set.t.Version)
		return
	}
	msg := fmt.Sprintf("unknown message type %s: ARCP %s has %s", protocol.Quote(typ), set.t.Version, strings.Join(set.types, ", "))
	if near := suggest.Near(typ, set.types); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	m.Add(finding.Error, finding.RuleUnknownType, "/type", "%s", msg)
}

// eventKind is the kind of a job.event ("" for other messages), with the
// check narrowed to it. Reserved kinds have a body schema; vendor kinds
// are ignored by receivers; anything else is rejected.
func (s *state) eventKind(m *protocol.Message, typ string, ck *protocol.Check) string {
	set := s.set
	if typ != "job.event" || m.Doc.Type(m.Doc.Find("/payload")) != jsonscan.Object {
		return ""
	}
	kind, _ := m.String("/payload/kind")
	m.Label = typ + " " + kind
	if nk := set.byKind[kind]; nk != nil {
		// The message schema narrowed to the kind: the same verdict,
		// and a failure is explained without the other kinds.
		ck.Schema = nk
	}
	if kind == "" || set.events[kind] != nil {
		return kind
	}
	if set.t.VendorKind(kind) {
		m.Label = typ + " (vendor kind)"
		return kind
	}
	msg := fmt.Sprintf("unknown event kind %s: ARCP %s reserves %s, and other kinds must be in the x-vendor. namespace (arcp: JobEventPayload)", protocol.Quote(kind), set.t.Version, strings.Join(set.kinds, ", "))
	if near := suggest.Near(kind, set.kinds); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	// The event payload's schema admits reserved and vendor
	// kinds only: a schema finding, with the list.
	m.Add(finding.Error, finding.RuleSchema, "/payload/kind", "%s", msg)
	ck.Skip = func(l []string) bool { return protocol.HasPrefix(l, []string{"payload"}) }
	m.Label = typ + " (unknown kind)"
	return kind
}

// dialectDeviations warns of the dialect deviations the message shows (each once
// in a trace), and reports whether one of them says it is not terminal.
func (s *state) dialectDeviations(m *protocol.Message, typ string) ([]*registry.Deviation, bool) {
	set := s.set
	var devs []*registry.Deviation
	notTerminal := false
	for i, d := range set.t.Deviations {
		if d.Detect.State != "" || !slices.Contains(d.MessageTypes, typ) {
			continue
		}
		if set.devRules[i] != "" {
			s.exercised.Rule(set.devRules[i]) // looked for
		}
		if !matches(d, typ, m) {
			continue
		}
		notTerminal = notTerminal || d.NotTerminal
		if s.firstDeviation(d.ID) {
			m.Add(finding.Warning, finding.RuleDeviationPrefix+d.ID, where(d, m), "%s dialect: %s; canonical ARCP v1.1 has %s. %s%s", d.SDK, describeDeviation(d), d.Canonical, d.Note, onceNote)
		}
		devs = append(devs, d)
	}
	return devs, notTerminal
}

// skipDeviations leaves the schema's complaints at the deviations' places
// to their warnings (and prev's to prev). Where the deviations are is
// looked up only for a message the schema finds fault with (before its
// report).
func skipDeviations(prev func([]string) bool, devs []*registry.Deviation, m *protocol.Message) func([]string) bool {
	var devLocs [][]string
	return func(l []string) bool {
		if prev != nil && prev(l) {
			return true
		}
		if devLocs == nil {
			for _, d := range devs {
				devLocs = append(devLocs, protocol.SplitPointer(where(d, m)))
			}
		}
		for _, dl := range devLocs {
			if protocol.HasPrefix(l, dl) || len(dl) > 0 && len(l) == len(dl)-1 && protocol.HasPrefix(dl, l) {
				return true
			}
		}
		return false
	}
}

// where points at the deviation in m: the first field whose presence gave
// it away, or the place of the missing field, or the table's pointer.
func where(d *registry.Deviation, m *protocol.Message) string {
	for _, p := range d.Detect.Present {
		if loc, ok := m.Locate(p); ok {
			return protocol.Pointer(loc)
		}
	}
	for _, p := range d.Detect.Absent {
		toks := protocol.SplitPointer(p)
		if len(toks) == 0 {
			continue
		}
		if !strings.Contains(p, "*") {
			if m.AbsentSomewhere(p) {
				return protocol.Pointer(toks)
			}
			continue
		}
		last := toks[len(toks)-1]
		for _, f := range protocol.Resolve(m.Value(), toks[:len(toks)-1]) {
			if pm, ok := f.Value.(map[string]any); ok {
				if _, has := pm[last]; !has {
					return protocol.Pointer(append(f.Loc, last))
				}
			}
		}
	}
	if loc, ok := m.Locate(d.Pointer); ok {
		return protocol.Pointer(loc)
	}
	return strings.ReplaceAll(d.Pointer, "*", "0")
}

func describeDeviation(d *registry.Deviation) string {
	switch {
	case len(d.Detect.Present) > 0:
		return fmt.Sprintf("sends %s", strings.Join(d.Detect.Present, " and "))
	case len(d.Detect.Absent) > 0:
		return fmt.Sprintf("leaves out %s", strings.Join(d.Detect.Absent, " and "))
	case len(d.Detect.Equals) > 0:
		var parts []string
		for k, v := range d.Detect.Equals {
			parts = append(parts, fmt.Sprintf("%s = %s", k, protocol.Display(v)))
		}
		sort.Strings(parts)
		return "sends " + strings.Join(parts, " and ")
	case len(d.Detect.OneOf) > 0:
		var parts []string
		for k, vs := range d.Detect.OneOf {
			vals := make([]string, len(vs))
			for i, v := range vs {
				vals[i] = protocol.Display(v)
			}
			parts = append(parts, fmt.Sprintf("%s as one of %s", k, strings.Join(vals, ", ")))
		}
		sort.Strings(parts)
		return "sends " + strings.Join(parts, " and ")
	}
	return fmt.Sprintf("sends %s %s", strings.Join(d.MessageTypes, "/"), d.Pointer)
}

// sortedSet quotes and lists a few ids.
func sortedSet(ids []string) string {
	sort.Strings(ids)
	more := ""
	if len(ids) > 5 {
		ids, more = ids[:5], ", …"
	}
	out := make([]string, len(ids))
	for i, k := range ids {
		out[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(out, ", ") + more
}

func featureList(m map[string]bool) string {
	if len(m) == 0 {
		return "none"
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
