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
	"bytes"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
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
	return &state{t: t, runs: protocol.NewRecent[*run](maxRuns), seqs: protocol.NewRecent[*uint64](maxRuns), reg: r.reg, exercised: protocol.NewExercise(RuleDocs())}, nil
}

// state follows the runs of one Arcan AgentEvent stream.
type state struct {
	t    *tables
	runs *protocol.Recent[*run] // the last maxRuns runs
	// seqs are the last store sequence of each session branch.
	seqs *protocol.Recent[*uint64]
	// ev is the node of the event being read: the line's root, or a
	// store record's event.
	ev int
	// key is room for a store branch's key.
	key   []byte
	lossy bool // a line could not be read
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
	// iteration is the current iteration; opened is set when its
	// iteration_started is in the trace.
	iteration            int64
	hasIteration, opened bool
	maxIterations        uint64
	hasMax               bool
	session              string
	hasSession           bool
	// The current iteration's model turn: whether its model_output came,
	// its stop reason and directive count, the directive events so far,
	// and whether it requested a tool call.
	modelOut, hasCount, toolTurn bool
	stopReason                   string
	directiveCount, directives   uint64
	revision                     uint64
	hasRevision                  bool
	calls                        map[string]uint8    // tool call id -> callRequested, callEnded
	approvals                    map[string]bool     // approvals requested, not resolved
	texts                        map[uint64]struct{} // hashes of the texts streamed
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
		emitShape(m, "", d.Root(), s.t.v.Arcan().StoreShape, true)
		s.storeSequence(m)
	}
	if e := s.t.v.Arcan().Event(tag); e != nil {
		if e.Shape != nil {
			s.exercised.Rule(RuleEmitShape)
		}
		emitShape(m, base, ev, e.Shape, false)
		tagFirst(m, base, ev)
		s.notWritten(m, base, &e.Effects)
	}
	s.ev = ev
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
// schema's annotations (registry.EmitShape); store is set for a store
// record's own members.
func emitShape(m *protocol.Message, ptr string, at int, shape *registry.EmitShape, store bool) {
	if shape == nil {
		return
	}
	d := &m.Doc
	if shape.Items != nil {
		i := 0
		d.Elements(at, func(e int) bool {
			emitShape(m, ptr+"/"+strconv.Itoa(i), e, shape.Items, false)
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
		row := "arcan.shape.usage-counters-written"
		switch {
		case store:
			row = "arcan.store.parent-id-written"
		case a.Value:
			row = "arcan.shape.value-members-written"
		case a.Nullable:
			row = "arcan.shape.null-options-written"
		}
		m.Breach(row, finding.Warning, RuleEmitShape, ptr, "%q is missing: Arcan always writes it%s, and a consumer written against Arcan's output may rely on it (Arcan's own reader fills it in)", a.Name, how)
	}
	for _, name := range shape.Omitted {
		if d.Type(d.Member(at, name)) == jsonscan.Null {
			m.Breach("arcan.shape.unset-optional-omitted", finding.Warning, RuleEmitShape, ptr+"/"+jsonscan.EscapePointer(name), "%q is null: Arcan leaves it out when it is unset and never writes null, so a consumer written against Arcan's output may not expect null (Arcan's own reader takes null as unset)", name)
		}
	}
	for _, name := range shape.Free {
		if v := d.Member(at, name); v >= 0 {
			if _, _, _, found := unsorted(d, v); found {
				sortedKeys(m, ptr+"/"+jsonscan.EscapePointer(name), v)
			}
		}
	}
	for _, c := range shape.Members {
		if v := d.Member(at, c.Name); v >= 0 {
			emitShape(m, ptr+"/"+jsonscan.EscapePointer(c.Name), v, c.Shape, false)
		}
	}
}

// rules applies the run rules to an event, from the effects its variant
// declares in the version's dispatch table; base is where the event sits
// in the line ("" bare, "/event" in a store record).
func (s *state) rules(m *protocol.Message, tag string, base string) {
	runID, ok := s.str(m, "/run_id")
	if !ok {
		return
	}
	e := s.t.v.Arcan().Event(tag)
	if e == nil {
		return
	}
	eff := &e.Effects
	r, _ := s.runs.Get(runID)
	if r == nil {
		r = &run{partial: s.lossy}
		s.runs.Put(runID, r)
	}
	s.exercised.Rule(RuleRunNotStarted)
	s.exercised.Rule(RuleEventAfterFinish)
	before := len(m.State)
	switch {
	case eff.StartsRun:
		if r.finished {
			m.Breach("arcan.run.started-once", finding.Error, RuleEventAfterFinish, "", "run %q starts again after its run_finished: a run id is used for one run only", runID)
		} else if r.started {
			m.Breach("arcan.run.started-once", finding.Error, RuleEventAfterFinish, "", "run %q started twice: run_started comes once, first", runID)
		}
		r.started = true
		if n, ok := s.uint(m, eff.MaxIterations); ok && eff.MaxIterations != "" {
			r.maxIterations, r.hasMax = n, true
		}
	case r.finished:
		m.Breach("arcan.run.finished-last", finding.Error, RuleEventAfterFinish, "", "%s after run %q finished: run_finished is the last event of a run", tag, runID)
	case r.errored && !eff.FinishesRun:
		m.Breach("arcan.run.only-finished-after-error", finding.Error, RuleEventAfterFinish, "", "%s after run %q errored: only run_finished may follow run_errored", tag, runID)
	case !r.started && eff.ErrorsRun:
		// The daemon reports a run that failed before it could start
		// with run_errored alone.
	case !r.started && !r.partial:
		m.Add(finding.Error, RuleRunNotStarted, "", "%s for run %q before its run_started: run_started is the first event of every run", tag, runID)
	}
	if len(m.State) > before {
		return // the line's finding is its place in the run's lifecycle
	}
	// whole: the run's events are in the trace from its run_started on,
	// so what the run has not shown did not happen.
	whole := r.started && !r.partial
	s.session(m, r, base, runID)
	current := s.iteration(m, r, eff, tag, base, runID, whole)
	if current && r.opened {
		s.turn(m, r, eff, tag, base, runID)
	}
	if eff.RequestsCall != "" {
		s.exercised.Row(RowCallIDUnique)
		if id, ok := s.str(m, eff.RequestsCall); ok {
			if r.calls == nil {
				r.calls = map[string]uint8{}
			}
			if r.calls[id] != 0 {
				m.Breach(RowCallIDUnique, finding.Warning, RuleToolCallID, base+eff.RequestsCall, "call id %q is requested a second time in run %q: Arcan names each tool call of a run with its own id, and a result could not say which call it answers", id, runID)
			} else {
				r.calls[id] = callRequested
			}
			r.toolTurn = true
		}
	}
	if eff.EndsCall != "" {
		s.exercised.Rule(RuleUnknownCallID)
		s.exercised.Row(RowOneOutcome)
		if id, ok := s.str(m, eff.EndsCall); ok && !s.lossy {
			switch r.calls[id] {
			case 0:
				m.Add(finding.Error, RuleUnknownCallID, base+eff.EndsCall, "%s for call %q, which no tool_call_requested of run %q asked for", tag, id, runID)
			case callEnded:
				m.Breach(RowOneOutcome, finding.Warning, RuleToolCallID, base+eff.EndsCall, "a second outcome (%s) for call %q of run %q: Arcan gives each tool call one outcome, tool_call_completed or tool_call_failed", tag, id, runID)
			default:
				r.calls[id] = callEnded
			}
		}
	}
	if eff.Revision != "" {
		s.exercised.Row(RowRevisionSteps)
		if rev, ok := s.uint(m, eff.Revision); ok {
			if r.hasRevision && rev != r.revision+1 && !(rev == r.revision && rev == math.MaxUint64) {
				m.Breach(RowRevisionSteps, finding.Warning, RuleStatePatch, base+eff.Revision, "revision %d after revision %d in run %q: Arcan's state revision goes up by one with each applied patch, so the next patch has revision %d", rev, r.revision, runID, r.revision+1)
			}
			r.revision, r.hasRevision = rev, true
		}
	}
	if eff.Patch != "" {
		s.exercised.Row(RowPatchFormat)
		patchFormat(m, s.node(m, eff.Patch), base, eff.Patch)
	}
	if eff.Text != "" {
		if t, ok := s.strBytes(m, eff.Text); ok {
			if r.texts == nil {
				r.texts = map[uint64]struct{}{}
			}
			r.texts[maphash.Bytes(textSeed, t)] = struct{}{}
		}
	}
	if eff.RequestsApproval != "" {
		if id, ok := s.str(m, eff.RequestsApproval); ok {
			if r.approvals == nil {
				r.approvals = map[string]bool{}
			}
			r.approvals[id] = true
		}
	}
	if eff.ResolvesApproval != "" {
		s.exercised.Row(RowApprovalAnswers)
		if id, ok := s.str(m, eff.ResolvesApproval); ok && !s.lossy && whole {
			if !r.approvals[id] {
				m.Breach(RowApprovalAnswers, finding.Warning, RuleApprovalID, base+eff.ResolvesApproval, "approval_resolved for approval %q, which no unresolved approval_requested of run %q asked for", id, runID)
			}
			delete(r.approvals, id)
		}
	}
	if eff.ErrorsRun {
		r.errored = true
	}
	if eff.FinishesRun {
		if whole && !r.finished {
			s.finished(m, r, eff, base, runID)
		}
		r.finished = true
		r.calls, r.texts, r.approvals = nil, nil, nil // no longer needed; keep the state small
	}
}

// callRequested and callEnded are a tool call's states in run.calls.
const (
	callRequested uint8 = 1 + iota
	callEnded
)

// textSeed hashes the texts a run streamed.
var textSeed = maphash.MakeSeed()

// uintAt reads the unsigned integer literal at ptr, from the line's root.
func uintAt(m *protocol.Message, ptr string) (uint64, bool) {
	return docUint(&m.Doc, m.Doc.Find(ptr))
}

// docUint reads node i as serde reads a u32, u64 or usize: an integer
// literal of digits alone, within 64 bits.
func docUint(d *jsonscan.Doc, i int) (uint64, bool) {
	if i < 0 || d.Type(i) != jsonscan.Number {
		return 0, false
	}
	raw := d.Raw(i)
	if len(raw) == 0 {
		return 0, false
	}
	var n uint64
	for _, c := range raw {
		if c < '0' || c > '9' || n > (math.MaxUint64-uint64(c-'0'))/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// node is the node at ptr below the event being read (s.ev): the line's
// root, or a store record's event.
func (s *state) node(m *protocol.Message, ptr string) int {
	d := &m.Doc
	at := s.ev
	for len(ptr) > 0 && at >= 0 {
		ptr = ptr[1:]
		tok := ptr
		if i := strings.IndexByte(ptr, '/'); i >= 0 {
			tok, ptr = ptr[:i], ptr[i:]
		} else {
			ptr = ""
		}
		if strings.IndexByte(tok, '~') >= 0 {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		}
		at = d.Child(at, tok)
	}
	return at
}

func (s *state) str(m *protocol.Message, ptr string) (string, bool) {
	return m.Doc.String(s.node(m, ptr))
}

func (s *state) strBytes(m *protocol.Message, ptr string) ([]byte, bool) {
	return m.Doc.StringBytes(s.node(m, ptr))
}

func (s *state) uint(m *protocol.Message, ptr string) (uint64, bool) {
	return docUint(&m.Doc, s.node(m, ptr))
}

// session: every event of a run names the run's session.
func (s *state) session(m *protocol.Message, r *run, base, runID string) {
	at := s.node(m, "/session_id")
	b, ok := m.Doc.StringBytes(at)
	if !ok {
		sid, ok := m.Doc.String(at) // escaped: decode it
		if !ok {
			return
		}
		b = []byte(sid)
	}
	s.exercised.Row(RowSameSession)
	switch {
	case !r.hasSession:
		r.session, r.hasSession = string(b), true
	case string(b) != r.session:
		m.Breach(RowSameSession, finding.Warning, RuleRunSession, base+"/session_id", "run %q belongs to session %q, but this event names session %q: every event of a run carries its run's session", runID, r.session, b)
	}
}

// iteration follows the run's iterations; it reports whether the event
// belongs to the current one (or names none).
func (s *state) iteration(m *protocol.Message, r *run, eff *registry.ArcanEffects, tag, base, runID string, whole bool) bool {
	if eff.Iteration == "" {
		return true
	}
	n, ok := s.uint(m, eff.Iteration)
	if !ok || n > math.MaxUint32 {
		return false // not a u32: the schema's finding
	}
	it := int64(n)
	s.exercised.Rule(RuleIterationOrder)
	switch {
	case r.hasIteration && it < r.iteration:
		m.Add(finding.Error, RuleIterationOrder, base+eff.Iteration, "iteration %d after iteration %d in run %q: iterations never go back", it, r.iteration, runID)
		return false
	case eff.StartsIteration:
		if whole {
			s.exercised.Row(RowIterationConsecutive)
			s.exercised.Row(RowIterationWithinMax)
			want := r.iteration + 1
			switch {
			case r.hasMax && n > r.maxIterations:
				m.Breach(RowIterationWithinMax, finding.Warning, RuleIterationSequence, base+eff.Iteration, "iteration %d of run %q is beyond its max_iterations %d: Arcan ends a run that used its budget with run_errored (max iteration budget exceeded) instead of starting another iteration", it, runID, r.maxIterations)
			case it != want:
				m.Breach(RowIterationConsecutive, finding.Warning, RuleIterationSequence, base+eff.Iteration, "iteration %d starts after iteration %d in run %q: Arcan numbers a run's iterations 1, 2, 3, … with none skipped or repeated, so this one would be %d", it, r.iteration, runID, want)
			}
		}
		r.iteration, r.hasIteration, r.opened = it, true, true
		r.modelOut, r.hasCount, r.directives = false, false, 0
		return true
	case r.hasIteration && it == r.iteration:
		if whole {
			s.exercised.Row(RowIterationStartFirst)
		}
		return true
	case whole:
		// An event of an iteration the run has not started.
		s.exercised.Row(RowIterationStartFirst)
		now := "has started no iteration"
		if r.hasIteration {
			now = fmt.Sprintf("is in iteration %d", r.iteration)
		}
		m.Breach(RowIterationStartFirst, finding.Warning, RuleIterationSequence, base+eff.Iteration, "%s carries iteration %d, but run %q %s: the events of an iteration follow its iteration_started, and carry its number", tag, it, runID, now)
		return false
	default:
		// A run first seen mid-way: take the iteration as it comes.
		r.iteration, r.hasIteration, r.opened = it, true, false
		return true
	}
}

// turn checks an event's place in its iteration: context_compacted before
// the model turn's model_output, the directives' events after it, and no
// more directive events than the turn had directives.
func (s *state) turn(m *protocol.Message, r *run, eff *registry.ArcanEffects, tag, base, runID string) {
	switch eff.Turn {
	case registry.ArcanBeforeModel:
		s.exercised.Row(RowCompactionFirst)
		if r.modelOut {
			m.Breach(RowCompactionFirst, finding.Warning, RuleTurnOrder, "", "%s after iteration %d's model_output in run %q: Arcan compacts the context before it calls the model", tag, r.iteration, runID)
		}
	case registry.ArcanModelOutput:
		r.modelOut = true
		r.stopReason, _ = s.str(m, eff.StopReason)
		r.directiveCount, r.hasCount = s.uint(m, eff.DirectiveCount)
		r.directives = 0
		r.toolTurn = false
	case registry.ArcanAfterModel:
		s.exercised.Row(RowModelOutputFirst)
		if !r.modelOut {
			m.Breach(RowModelOutputFirst, finding.Warning, RuleTurnOrder, "", "%s before iteration %d's model_output in run %q: Arcan emits model_output first, then one event per directive of the model's turn", tag, r.iteration, runID)
			return
		}
		if eff.Directive && r.hasCount {
			s.exercised.Row(RowDirectiveCount)
			r.directives++
			if r.directives > r.directiveCount {
				m.Breach(RowDirectiveCount, finding.Warning, RuleTurnOrder, "", "%s is directive event %d of iteration %d in run %q, whose model_output has directive_count %d: each directive yields one event", tag, r.directives, r.iteration, runID, r.directiveCount)
			}
		}
	}
}

// finished checks how a run whose whole history is in the trace ended:
// total_iterations, the reason against the last model turn or the error,
// and a final answer that was streamed.
func (s *state) finished(m *protocol.Message, r *run, eff *registry.ArcanEffects, base, runID string) {
	if eff.TotalIterations != "" {
		s.exercised.Row(RowTotalIterations)
		if n, ok := s.uint(m, eff.TotalIterations); ok && n <= math.MaxUint32 {
			want := uint64(0)
			if r.hasIteration {
				want = uint64(r.iteration)
			}
			if n != want {
				m.Breach(RowTotalIterations, finding.Warning, RuleRunOutcome, base+eff.TotalIterations, "total_iterations %d, but the last iteration run %q started is %d: Arcan reports the number of the last iteration_started (0 when there was none)", n, runID, want)
			}
		}
	}
	if eff.Reason != "" {
		t := s.t.v.Arcan()
		if reason, ok := s.str(m, eff.Reason); ok && t.KnownReason(reason) {
			switch {
			case r.errored:
				s.exercised.Row(RowErroredReason)
				if !slices.Contains(t.ErrorReasons, reason) {
					m.Breach(RowErroredReason, finding.Warning, RuleRunOutcome, base+eff.Reason, "run %q reported run_errored but finishes with reason %q: after an error Arcan finishes with one of %s", runID, reason, strings.Join(t.ErrorReasons, ", "))
				}
			case r.stopReason != "" && !r.toolTurn:
				s.exercised.Row(RowReasonFollows)
				if want, ok := t.RunReasons[r.stopReason]; ok && reason != want {
					m.Breach(RowReasonFollows, finding.Warning, RuleRunOutcome, base+eff.Reason, "run %q finishes with reason %q after a model turn that stopped with %q and no error: Arcan finishes such a run with %q", runID, reason, r.stopReason, want)
				}
			}
		}
	}
	if eff.FinalAnswer != "" {
		s.exercised.Row(RowFinalAnswerStreamed)
		if t, ok := s.strBytes(m, eff.FinalAnswer); ok {
			if _, sent := r.texts[maphash.Bytes(textSeed, t)]; !sent {
				m.Breach(RowFinalAnswerStreamed, finding.Warning, RuleRunOutcome, base+eff.FinalAnswer, "run %q's final_answer was not streamed: Arcan sends a final answer as a text_delta of the same text before run_finished repeats it", runID)
			}
		}
	}
}

// patchFormat checks that a json_patch StatePatch holds an RFC 6902
// operation array: objects with a string op and path.
func patchFormat(m *protocol.Message, at int, base, ptr string) {
	d := &m.Doc
	if at < 0 || !d.StringIs(d.Member(at, "format"), "json_patch") {
		return
	}
	p := d.Member(at, "patch")
	if p < 0 {
		return
	}
	ok := d.Type(p) == jsonscan.Array
	if ok {
		d.Elements(p, func(e int) bool {
			_, op := d.String(d.Member(e, "op"))
			_, path := d.String(d.Member(e, "path"))
			ok = d.Type(e) == jsonscan.Object && op && path
			return ok
		})
	}
	if !ok {
		m.Breach(RowPatchFormat, finding.Warning, RuleStatePatch, base+ptr+"/patch", "a json_patch patch is an RFC 6902 array of operations, each with a string op and path; Arcan could not apply this one to the state")
	}
}

// storeSequence: the latest store numbers a session branch's records 1, 2,
// 3, …; a record whose sequence is not one more than its branch's previous
// record's is out of step (a record from an older store has none).
func (s *state) storeSequence(m *protocol.Message) {
	st := &s.t.v.Arcan().Store
	if st.Sequence == "" {
		return
	}
	seq, ok := uintAt(m, st.Sequence)
	if !ok {
		return
	}
	s.exercised.Row(RowStoreSequence)
	session, branch := keyBytes(m, st.Session), keyBytes(m, st.Branch)
	s.key = append(append(append(s.key[:0], session...), 0), branch...)
	prev, ok := s.seqs.GetBytes(s.key)
	if !ok {
		prev = new(uint64)
		s.seqs.Put(string(s.key), prev)
	} else if seq != *prev+1 && !s.lossy {
		m.Breach(RowStoreSequence, finding.Warning, RuleStoreSequence, st.Sequence, "sequence %d after sequence %d in session %q, branch %q: the store numbers a branch's records one after another, so this one would be %d", seq, *prev, session, branch, *prev+1)
	}
	*prev = seq
}

// tagFirst: Arcan writes part_type first (serde's internal tagging), then
// the variant's fields; its reader takes the tag anywhere.
func tagFirst(m *protocol.Message, base string, ev int) {
	first := true
	m.Doc.MemberBytes(ev, func(key []byte, _ int) bool {
		first = string(key) == "part_type"
		return false
	})
	if !first {
		m.Breach("arcan.shape.tag-first", finding.Warning, RuleEmitShape, base+"/part_type", "\"part_type\" is not the first member: Arcan writes the tag first, then the variant's fields, and a consumer matching Arcan's bytes may rely on it (Arcan's own reader finds the tag anywhere)")
	}
}

// unsorted finds the first object, depth first, at or under node at whose
// keys are not in ascending order, as Arcan's serde_json writes the objects
// of a free-form JSON value (sorted maps, at every depth). It returns the
// object's path below at, last token first, and the key that comes too
// late with the one before it; the path is built only for what it finds.
func unsorted(d *jsonscan.Doc, at int) (rpath []string, late, prev []byte, found bool) {
	switch d.Type(at) {
	case jsonscan.Object:
		escaped := false
		d.MemberBytes(at, func(key []byte, _ int) bool {
			escaped = escaped || bytes.IndexByte(key, '\\') >= 0
			if prev != nil && bytes.Compare(prev, key) > 0 {
				late = key
				return false
			}
			prev = key
			return true
		})
		if escaped {
			// Compare the keys as they read, not as they are written.
			prev, late = nil, nil
			d.Members(at, func(key string, _ int) bool {
				if prev != nil && string(prev) > key {
					late = []byte(key)
					return false
				}
				prev = []byte(key)
				return true
			})
		}
		if late != nil {
			return nil, late, prev, true
		}
		child := -1
		d.MemberBytes(at, func(_ []byte, v int) bool {
			rpath, late, prev, found = unsorted(d, v)
			child = v
			return !found
		})
		if found {
			d.Members(at, func(key string, v int) bool {
				if v == child {
					rpath = append(rpath, key)
					return false
				}
				return true
			})
		}
		return rpath, late, prev, found
	case jsonscan.Array:
		i := 0
		d.Elements(at, func(e int) bool {
			rpath, late, prev, found = unsorted(d, e)
			if found {
				rpath = append(rpath, strconv.Itoa(i))
			}
			i++
			return !found
		})
		return rpath, late, prev, found
	}
	return nil, nil, nil, false
}

// sortedKeys reports the first object of the free-form value at node at
// (ptr) whose keys are out of Arcan's order.
func sortedKeys(m *protocol.Message, ptr string, at int) {
	rpath, late, prev, found := unsorted(&m.Doc, at)
	if !found {
		return
	}
	for k := len(rpath) - 1; k >= 0; k-- {
		ptr += "/" + jsonscan.EscapePointer(rpath[k])
	}
	m.Breach("arcan.shape.value-keys-sorted", finding.Warning, RuleEmitShape, ptr, "key %q comes after %q: Arcan writes free-form JSON values with their object keys sorted, at every depth, and a consumer matching Arcan's bytes may rely on it", late, prev)
}

// notWritten: members Arcan never writes in an event (ToolResult's extras
// on tool_call_completed's summary), and a run's usage written although
// the run used no tokens.
func (s *state) notWritten(m *protocol.Message, base string, eff *registry.ArcanEffects) {
	d := &m.Doc
	for _, nw := range eff.NotWritten {
		at := s.node(m, nw.At)
		if at < 0 || d.Type(at) != jsonscan.Object {
			continue
		}
		for _, name := range nw.Members {
			if d.Member(at, name) >= 0 {
				m.Breach(nw.Row, finding.Warning, RuleEmitShape, base+nw.At+"/"+jsonscan.EscapePointer(name), "%q is here, but Arcan never writes it in this object; a consumer written against Arcan's output does not expect it (Arcan's own reader ignores it)", name)
			}
		}
	}
	if eff.UsageIfTokens != "" {
		at := s.node(m, eff.UsageIfTokens)
		if d.Type(at) != jsonscan.Object {
			return
		}
		in, ok1 := docUint(d, d.Member(at, "input_tokens"))
		out, ok2 := docUint(d, d.Member(at, "output_tokens"))
		if (ok1 || ok2) && in == 0 && out == 0 {
			m.Breach("arcan.shape.run-usage-only-when-tokens", finding.Warning, RuleEmitShape, base+eff.UsageIfTokens, "%q counts no input or output tokens: Arcan writes a run's usage only when the run used tokens, and leaves it out otherwise", eff.UsageIfTokens[strings.LastIndexByte(eff.UsageIfTokens, '/')+1:])
		}
	}
}

// keyBytes is the string at ptr as bytes, decoded if it has escapes.
func keyBytes(m *protocol.Message, ptr string) []byte {
	if b, ok := m.StringBytes(ptr); ok {
		return b
	}
	if s, ok := m.String(ptr); ok {
		return []byte(s)
	}
	return nil
}
