// Package arcan holds the validator's rules for Arcan AgentEvent streams
// (bare events, SSE frames, or session-store records): each event against
// its part_type's schema, and the run rules no schema can express
// (run_started first, nothing after run_finished, iterations never going
// back, tool results answering requested call ids).
//
// Arcan's peers are serde programs, so the schemas say what Arcan's reader
// accepts: a member with a serde default or an Option may be absent, an
// Option may be null, and an integer must be written as an integer literal
// (1.0 and 1e2 are floats to serde_json). What Arcan itself always writes
// is kept in the schemas' annotations (x-always-emitted,
// x-omitted-when-none); a message that differs from it is valid, and gets
// an emit-shape warning, because a consumer written against Arcan's output
// may rely on that shape.
package arcan

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/internal/suggest"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// Rules are Arcan's rules; New makes them.
type Rules struct {
	reg     *registry.Registry
	schemas *protocol.Schemas

	mu       sync.Mutex
	compiled map[string]*tables // by version name
}

// New returns Arcan's rules over the registry's Arcan versions.
func New(reg *registry.Registry, schemas *protocol.Schemas) *Rules {
	return &Rules{reg: reg, schemas: schemas, compiled: map[string]*tables{}}
}

// Name is "arcan".
func (*Rules) Name() string { return "arcan" }

// Identify: Arcan events carry part_type, bare or under "event" in a
// session-store record.
func (*Rules) Identify(o map[string]any) bool {
	if _, ok := o["part_type"]; ok {
		return true
	}
	if ev, ok := o["event"].(map[string]any); ok {
		if _, ok := ev["part_type"]; ok {
			return true
		}
	}
	return false
}

// Marks says what marks an Arcan event, for a trace no protocol
// recognises.
func (*Rules) Marks() (what, members string) { return "Arcan events", `"part_type"` }

// Dialects lists the Arcan versions.
func (r *Rules) Dialects() []string { return r.reg.DialectNames("arcan") }

// Directions: an event stream flows one way; no sidecar.
func (*Rules) Directions() []string { return nil }

// tables are one Arcan version's compiled schemas.
type tables struct {
	v      *registry.Version
	events map[string]*protocol.Schema
	store  *protocol.Schema
	tags   []string
}

func (r *Rules) tables(v *registry.Version) (*tables, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t := r.compiled[v.Name]; t != nil {
		return t, nil
	}
	t := &tables{v: v, events: map[string]*protocol.Schema{}}
	for _, e := range v.Arcan().Events {
		s, err := r.schemas.Get(v.SchemaID(e.Schema))
		if err != nil {
			return nil, fmt.Errorf("%s: event %s: %w", v, e.PartType, err)
		}
		t.events[e.PartType] = s
		t.tags = append(t.tags, e.PartType)
	}
	sort.Strings(t.tags)
	var err error
	if t.store, err = r.schemas.Get(v.SchemaID(v.Arcan().StoreRecord)); err != nil {
		return nil, fmt.Errorf("%s: store record: %w", v, err)
	}
	r.compiled[v.Name] = t
	return t, nil
}

// Start reads a trace as the forced version, or the default one.
func (r *Rules) Start(_ []*protocol.Message, opts protocol.Start) (protocol.Handler, error) {
	dialect := opts.Dialect
	v := r.reg.Default("arcan")
	if dialect != "" {
		if w := r.reg.Lookup("arcan", dialect); w != nil {
			v = w
		}
	}
	if v == nil {
		return nil, fmt.Errorf("no Arcan version in the registry")
	}
	t, err := r.tables(v)
	if err != nil {
		return nil, err
	}
	return &state{t: t, runs: protocol.NewRecent[*run](maxRuns), reg: r.reg, exercised: protocol.NewExercise(RuleDocs())}, nil
}

// state follows the runs of one Arcan AgentEvent stream.
type state struct {
	t     *tables
	runs  *protocol.Recent[*run] // the last maxRuns runs
	lossy bool                   // a line could not be read
	// exercised are the catalogue rows whose check ran on an event of
	// the stream.
	exercised *protocol.Exercise
	reg       *registry.Registry
}

// Exercised lists the catalogue rows whose check ran on the stream.
func (s *state) Exercised() []string { return s.exercised.IDs() }

// Catalogue lists the ids of the version's requirement rows.
func (s *state) Catalogue() []string { return s.reg.RequirementIDs(s.t.v) }

// Peers: the stream names no implementation.
func (s *state) Peers() []finding.Peer { return nil }

type run struct {
	started, errored, finished bool
	partial                    bool // first seen after an unreadable line
	iteration                  int64
	hasIteration               bool
	calls                      map[string]bool
}

// maxRuns bounds the runs remembered (see recent); far more than run at
// once.
const maxRuns = 1 << 16

func (s *state) Dialect() string { return s.t.v.Name }

func (s *state) Note() string { return "" }

func (s *state) Finish(int) []finding.Finding { return nil }

// lost: an unreadable line may have started a run or requested a call, so
// runs first seen after it are not held to those rules.
func (s *state) Lost(*protocol.Message) { s.lossy = true }

func (s *state) Step(m *protocol.Message) {
	m.From = "agent" // the stream's only writer
	s.exercised.Rule(finding.RuleSchema)
	if !m.IsObject() {
		m.Add(finding.Error, finding.RuleSchema, "", "an Arcan event must be a JSON object tagged by part_type, got %s", protocol.Describe(m.Value()))
		return
	}
	d := &m.Doc
	ev := d.Root()
	var loc []string
	if !m.Has("/part_type") && s.t.store != nil {
		if inner := d.Member(ev, "event"); inner >= 0 {
			// A session-store record: the record's own fields against
			// the store schema, the event against its variant's schema.
			m.Checks = append(m.Checks, protocol.Check{Schema: s.t.store, Skip: func(l []string) bool {
				return len(l) > 0 && l[0] == "event"
			}})
			loc = []string{"event"}
			m.RTSchema = s.t.store.ID
			if d.Type(inner) != jsonscan.Object {
				m.Label = "store record"
				m.Add(finding.Error, finding.RuleSchema, "/event", "the record's event must be an AgentEvent object, got %s", protocol.Describe(d.Value(inner)))
				return
			}
			ev = inner
		}
	}
	base := protocol.Pointer(loc)
	tagAt := d.Member(ev, "part_type")
	if tagAt < 0 {
		m.Label = "untagged"
		m.Add(finding.Error, finding.RuleSchema, base, "missing required field \"part_type\": every AgentEvent is tagged with one of %s (arcan: AgentEvent)", strings.Join(s.t.tags, ", "))
		return
	}
	tag, _ := d.String(tagAt)
	sch := s.t.events[tag]
	if sch == nil {
		m.Label = "unknown part_type"
		msg := fmt.Sprintf("%s is not one of %s (arcan: AgentEvent); Arcan rejects unknown variants", protocol.Display(d.Value(tagAt)), strings.Join(s.t.tags, ", "))
		for _, k := range s.t.tags {
			if tag != "" && suggest.Fold(k) == suggest.Fold(tag) {
				msg += fmt.Sprintf("; did you mean %q? tags are snake_case", k)
				break
			}
		}
		m.Add(finding.Error, finding.RuleSchema, base+"/part_type", "%s", msg)
		return
	}
	m.Label = tag
	if d.Depth() > serdeMaxDepth {
		evv, _ := m.AtPath(loc).(map[string]any)
		serdeDepth(m, evv, loc)
	}
	m.Checks = append(m.Checks, protocol.Check{Schema: sch, Loc: loc})
	if m.RTSchema == "" {
		m.RTSchema = sch.ID
	}
	if loc != nil {
		emitShape(m, "", d.Root(), s.t.v.Arcan().StoreShape)
	}
	if e := s.t.v.Arcan().Event(tag); e != nil {
		if e.Shape != nil {
			s.exercised.Rule(RuleEmitShape)
		}
		emitShape(m, base, ev, e.Shape)
	}
	s.rules(m, tag, base)
}

// serdeMaxDepth is how deeply arrays and objects may nest in a line that
// serde_json reads with its default recursion limit (128, one taken per
// level before it checks): 127 levels, the event object itself included.
const serdeMaxDepth = 127

// serdeDepth reports an event nested deeper than Arcan's reader goes:
// serde_json stops with "recursion limit exceeded". The event's own depth
// is len(loc) (a store record adds one level), and the finding points at
// the first array or object, in member order, that is one level too deep.
func serdeDepth(m *protocol.Message, ev map[string]any, loc []string) {
	if maxDepth(ev, len(loc)+1) <= serdeMaxDepth {
		return
	}
	at, _ := firstTooDeep(ev, len(loc)+1, append([]string(nil), loc...))
	m.Add(finding.Error, finding.RuleJSON, protocol.Pointer(at), "arrays and objects nest more than %d levels deep here: Arcan's reader (serde_json, with its default recursion limit) rejects the line with \"recursion limit exceeded\"", serdeMaxDepth)
}

// maxDepth is the deepest nesting of arrays and objects in v, whose own
// depth is depth when it is one; it stops counting past serdeMaxDepth.
func maxDepth(v any, depth int) int {
	deepest := depth - 1
	visit := func(c any) {
		if depth > serdeMaxDepth || deepest > serdeMaxDepth {
			return
		}
		if d := maxDepth(c, depth+1); d > deepest {
			deepest = d
		}
	}
	switch t := v.(type) {
	case map[string]any:
		deepest = depth
		for _, c := range t {
			visit(c)
		}
	case []any:
		deepest = depth
		for _, c := range t {
			visit(c)
		}
	}
	return deepest
}

// firstTooDeep returns the location of the first container, in member
// order (sorted names, then indexes), nested deeper than serdeMaxDepth.
func firstTooDeep(v any, depth int, loc []string) ([]string, bool) {
	switch t := v.(type) {
	case map[string]any:
		if depth > serdeMaxDepth {
			return loc, true
		}
		keys := make([]string, 0, len(t))
		for k, c := range t {
			switch c.(type) {
			case map[string]any, []any:
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			if at, ok := firstTooDeep(t[k], depth+1, append(loc, k)); ok {
				return at, true
			}
		}
	case []any:
		if depth > serdeMaxDepth {
			return loc, true
		}
		for i, c := range t {
			if at, ok := firstTooDeep(c, depth+1, append(loc, strconv.Itoa(i))); ok {
				return at, true
			}
		}
	}
	return nil, false
}

// emitShape warns, rule emit-shape, where the object at ptr differs from
// what Arcan writes: a member it always writes is absent, or a member it
// leaves out when unset is null. Arcan's reader accepts both; a consumer
// written against Arcan's output may not. The members come from the
// schema's annotations (registry.EmitShape).
func emitShape(m *protocol.Message, ptr string, at int, shape *registry.EmitShape) {
	if shape == nil {
		return
	}
	d := &m.Doc
	if shape.Items != nil {
		i := 0
		d.Elements(at, func(e int) bool {
			emitShape(m, ptr+"/"+strconv.Itoa(i), e, shape.Items)
			i++
			return true
		})
		return
	}
	if d.Type(at) != jsonscan.Object {
		return
	}
	for _, a := range shape.Always {
		if d.Member(at, a.Name) >= 0 {
			continue
		}
		how := ""
		if a.Nullable {
			how = ", as null when there is none"
		}
		m.Add(finding.Warning, RuleEmitShape, ptr, "%q is missing: Arcan always writes it%s, and a consumer written against Arcan's output may rely on it (Arcan's own reader fills it in)", a.Name, how)
	}
	for _, name := range shape.Omitted {
		if d.Type(d.Member(at, name)) == jsonscan.Null {
			m.Add(finding.Warning, RuleEmitShape, ptr+"/"+jsonscan.EscapePointer(name), "%q is null: Arcan leaves it out when it is unset and never writes null, so a consumer written against Arcan's output may not expect null (Arcan's own reader takes null as unset)", name)
		}
	}
	for _, c := range shape.Members {
		if v := d.Member(at, c.Name); v >= 0 {
			emitShape(m, ptr+"/"+jsonscan.EscapePointer(c.Name), v, c.Shape)
		}
	}
}

func (s *state) rules(m *protocol.Message, tag string, base string) {
	runID, ok := m.String(base + "/run_id")
	if !ok {
		return
	}
	r, _ := s.runs.Get(runID)
	if r == nil {
		r = &run{calls: map[string]bool{}, partial: s.lossy}
		s.runs.Put(runID, r)
	}
	s.exercised.Rule(RuleRunNotStarted)
	s.exercised.Rule(RuleEventAfterFinish)
	switch {
	case tag == "run_started":
		if r.finished {
			m.Add(finding.Error, RuleEventAfterFinish, "", "run %q starts again after its run_finished: a run id is used for one run only", runID)
		} else if r.started {
			m.Add(finding.Error, RuleEventAfterFinish, "", "run %q started twice: run_started comes once, first", runID)
		}
		r.started = true
	case r.finished:
		m.Add(finding.Error, RuleEventAfterFinish, "", "%s after run %q finished: run_finished is the last event of a run", tag, runID)
	case r.errored && tag != "run_finished":
		m.Add(finding.Error, RuleEventAfterFinish, "", "%s after run %q errored: only run_finished may follow run_errored", tag, runID)
	case !r.started && tag == "run_errored":
		// The daemon reports a run that failed before it could start
		// with run_errored alone.
	case !r.started && !r.partial:
		m.Add(finding.Error, RuleRunNotStarted, "", "%s for run %q before its run_started: run_started is the first event of every run", tag, runID)
	}
	if it, ok := protocol.IntValue(m.At(base + "/iteration")); ok {
		s.exercised.Rule(RuleIterationOrder)
		if r.hasIteration && it < r.iteration {
			m.Add(finding.Error, RuleIterationOrder, base+"/iteration", "iteration %d after iteration %d in run %q: iterations never go back", it, r.iteration, runID)
		} else {
			r.iteration, r.hasIteration = it, true
		}
	}
	switch tag {
	case "tool_call_requested":
		if id, ok := m.String(base + "/call/call_id"); ok {
			if r.calls == nil {
				r.calls = map[string]bool{}
			}
			r.calls[id] = true
		}
	case "tool_call_completed":
		s.exercised.Rule(RuleUnknownCallID)
		if id, ok := m.String(base + "/result/call_id"); ok && !r.calls[id] && !s.lossy {
			m.Add(finding.Error, RuleUnknownCallID, base+"/result/call_id", "tool_call_completed for call %q, which no tool_call_requested of run %q asked for", id, runID)
		}
	case "tool_call_failed":
		s.exercised.Rule(RuleUnknownCallID)
		if id, ok := m.String(base + "/call_id"); ok && !r.calls[id] && !s.lossy {
			m.Add(finding.Error, RuleUnknownCallID, base+"/call_id", "tool_call_failed for call %q, which no tool_call_requested of run %q asked for", id, runID)
		}
	case "run_errored":
		r.errored = true
	case "run_finished":
		r.finished = true
		r.calls = nil // no longer needed; keep the state small
	}
}
