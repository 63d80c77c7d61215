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
