// Package arcp holds the validator's rules for ARCP traces: each envelope
// against its message type's schema (and job events against their kind's),
// the known SDKs' deviations from canonical ARCP v1.1 as warnings naming the
// SDK, and the session and job rules no schema can express.
package arcp

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/internal/suggest"
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
	types    []string // known message types, sorted
	kinds    []string // known event kinds, sorted
}

func (r *Rules) set(v *registry.Version) (*set, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.compiled[v.Name]; s != nil {
		return s, nil
	}
	s := &set{v: v, t: v.ARCP, messages: map[string]*protocol.Schema{}, events: map[string]*protocol.Schema{}}
	for _, m := range v.ARCP.Messages {
		c, err := r.schemas.Get(v.SchemaID(m.Schema))
		if err != nil {
			return nil, fmt.Errorf("%s: message %s: %w", v, m.Type, err)
		}
		s.messages[m.Type] = c
		s.types = append(s.types, m.Type)
	}
	for _, e := range v.ARCP.Events {
		c, err := r.schemas.Get(v.SchemaID(e.Schema))
		if err != nil {
			return nil, fmt.Errorf("%s: event %s: %w", v, e.Kind, err)
		}
		s.events[e.Kind] = c
		s.kinds = append(s.kinds, e.Kind)
	}
	sort.Strings(s.types)
	sort.Strings(s.kinds)
	r.compiled[v.Name] = s
	return s, nil
}

// Start reads a trace as the forced dialect, or detects it from the first
// messages: a dialect version whose own message types appear (the Rust
// SDK's), else the SDK that every deviation seen names, else canonical.
func (r *Rules) Start(first []*protocol.Message, opts protocol.Start) (protocol.Handler, error) {
	forced := opts.Dialect
	canon := r.reg.Default("arcp")
	if canon == nil {
		return nil, fmt.Errorf("no ARCP version in the registry")
	}
	st := &state{
		sessions: protocol.NewRecent[bool](maxSessions),
		lastSeq:  protocol.NewRecent[int64](maxSessions),
		jobs:     protocol.NewRecent[*job](maxJobs),
		listJobs: protocol.NewRecent[bool](maxSessions),
	}
	v := canon
	st.dial = registry.DialectCanonical
	switch {
	case forced == "":
		v, st.dial = r.detect(first, canon)
	case r.reg.Lookup("arcp", forced) != nil:
		v = r.reg.Lookup("arcp", forced)
		st.dial = forced
		if v == canon {
			st.dial = registry.DialectCanonical
		}
	default:
		st.dial = forced // an SDK dialect read with the default version
	}
	var err error
	if st.set, err = r.set(v); err != nil {
		return nil, err
	}
	return st, nil
}

func (r *Rules) detect(msgs []*protocol.Message, canon *registry.Version) (*registry.Version, string) {
	for _, v := range r.reg.Versions("arcp") {
		if !v.Dialect {
			continue
		}
		for _, m := range msgs {
			if m.Obj == nil {
				continue
			}
			typ, _ := m.Obj["type"].(string)
			if v.ARCP.Message(typ) != nil && canon.ARCP.Message(typ) == nil {
				return v, v.Name
			}
		}
	}
	var common map[string]bool
	for _, m := range msgs {
		if m.Obj == nil {
			continue
		}
		for _, d := range canon.ARCP.Deviations {
			if d.Detect.State != "" || !matches(d, m.Obj) {
				continue
			}
			sdks := map[string]bool{}
			for _, sdk := range d.SDKs() {
				sdks[sdk] = true
			}
			if common == nil {
				common = sdks
				continue
			}
			for k := range common {
				if !sdks[k] {
					delete(common, k)
				}
			}
		}
	}
	if len(common) == 0 {
		return canon, registry.DialectCanonical
	}
	if common["go-sdk"] {
		return canon, "go-sdk"
	}
	names := make([]string, 0, len(common))
	for k := range common {
		names = append(names, k)
	}
	sort.Strings(names)
	return canon, names[0]
}

// state follows one ARCP trace: one or more sessions, possibly cut at a
// resume.
type state struct {
	set  *set
	dial string

	sawHello    bool                    // a fresh session.hello (no resume): the trace holds the session's start
	welcomed    bool                    // a session.welcome has been seen
	sessions    *protocol.Recent[bool]  // session ids announced by welcome or resume
	features    map[string]bool         // negotiated features; nil until a welcome lists them
	offered     map[string]bool         // features the last hello offered
	lastSeq     *protocol.Recent[int64] // last event_seq by session (and sending side)
	jobs        *protocol.Recent[*job]  // the last maxJobs jobs
	listJobs    *protocol.Recent[bool]  // outstanding session.list_jobs envelope ids
	openSubmits int                     // job.submit messages not yet accepted
	lossy       bool                    // a line could not be read
}

type job struct {
	session            string // the session it was accepted in
	accepted, terminal bool
	chunked            bool
}

// Bounds of the ARCP state (see recent).
const (
	maxSessions = 4096
	maxJobs     = 1 << 16
)

func (s *state) Dialect() string { return s.dial }

func (s *state) Note() string { return "" }

func (s *state) Finish(int) []finding.Finding { return nil }

// lost: an unreadable line may have carried the next event_seq, an
// acceptance or a list_jobs request; the rules restart from what follows.
func (s *state) Lost(*protocol.Message) {
	s.lastSeq = protocol.NewRecent[int64](maxSessions)
	s.lossy = true
}

// matches reports whether the deviation's detection holds for message o.
func matches(d *registry.Deviation, o map[string]any) bool {
	typ, _ := o["type"].(string)
	ok := false
	for _, t := range d.MessageTypes {
		if t == typ {
			ok = true
		}
	}
	if !ok {
		return false
	}
	if d.EventKind != "" {
		p, _ := o["payload"].(map[string]any)
		if k, _ := p["kind"].(string); k != d.EventKind {
			return false
		}
	}
	if len(d.Detect.Present) > 0 {
		found := false
		for _, ptr := range d.Detect.Present {
			if len(protocol.Resolve(o, protocol.SplitPointer(ptr))) > 0 {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	for _, ptr := range d.Detect.Absent {
		if !protocol.AbsentSomewhere(o, protocol.SplitPointer(ptr)) {
			return false
		}
	}
	for ptr, want := range d.Detect.Equals {
		vals := protocol.Resolve(o, protocol.SplitPointer(ptr))
		if len(vals) == 0 || !protocol.JSONEqual(vals[0].Value, want) {
			return false
		}
	}
	return true
}

// step dispatches one ARCP message and applies the state rules.
func (s *state) Step(m *protocol.Message) {
	o := m.Obj
	if o == nil {
		m.Add(finding.Error, finding.RuleSchema, "", "an ARCP message must be a JSON object (an envelope with arcp, id, type and payload), got %s", protocol.Describe(m.Value))
		return
	}
	typV, ok := o["type"]
	typ, isStr := typV.(string)
	if !ok || !isStr {
		m.Label = "untyped"
		if !ok {
			m.Add(finding.Error, finding.RuleSchema, "", "missing required field \"type\": every ARCP envelope names its message type (arcp: Envelope)")
		} else {
			m.Add(finding.Error, finding.RuleSchema, "/type", "wrong type: got %s, want string (arcp: Envelope)", strings.TrimPrefix(strings.TrimPrefix(protocol.Describe(typV), "an "), "a "))
		}
		return
	}
	set := s.set
	sch := set.messages[typ]
	if sch == nil {
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
		return
	}
	m.Label = typ
	ck := protocol.Check{Schema: sch, Value: o}
	m.RTSchema = sch.ID
	payload, _ := o["payload"].(map[string]any)

	// Event kinds: reserved kinds have a body schema; vendor kinds are
	// ignored by receivers; anything else is rejected.
	kind := ""
	if typ == "job.event" && payload != nil {
		kind, _ = payload["kind"].(string)
		m.Label = typ + " " + kind
		if kind != "" && set.events[kind] == nil {
			if set.t.VendorKind(kind) {
				m.Label = typ + " (vendor kind)"
			} else {
				msg := fmt.Sprintf("unknown event kind %s: ARCP %s reserves %s, and other kinds must be in the x-vendor. namespace (arcp: JobEventPayload)", protocol.Quote(kind), set.t.Version, strings.Join(set.kinds, ", "))
				if near := suggest.Near(kind, set.kinds); near != "" {
					msg += fmt.Sprintf("; did you mean %q?", near)
				}
				// The event payload's schema admits reserved and vendor
				// kinds only: a schema finding, with the list.
				m.Add(finding.Error, finding.RuleSchema, "/payload/kind", "%s", msg)
				ck.Skip = func(l []string) bool { return protocol.HasPrefix(l, []string{"payload"}) }
				m.Label = typ + " (unknown kind)"
			}
		}
	}

	// Dialect deviations: a warning each, and the schema's complaint at the
	// same place is left to the warning.
	var devLocs [][]string
	for _, d := range set.t.Deviations {
		if d.Detect.State != "" || !matches(d, o) {
			continue
		}
		ptr := where(d, o)
		m.Add(finding.Warning, finding.RuleDeviationPrefix+d.ID, ptr, "%s dialect: %s; canonical ARCP v1.1 has %s. %s", d.SDK, describeDeviation(d), d.Canonical, d.Note)
		devLocs = append(devLocs, protocol.SplitPointer(ptr))
	}
	if len(devLocs) > 0 {
		prev := ck.Skip
		ck.Skip = func(l []string) bool {
			if prev != nil && prev(l) {
				return true
			}
			for _, dl := range devLocs {
				if protocol.HasPrefix(l, dl) || len(dl) > 0 && len(l) == len(dl)-1 && protocol.HasPrefix(dl, l) {
					return true
				}
			}
			return false
		}
	}
	m.Checks = append(m.Checks, ck)
	s.rules(m, typ, kind, o, payload)
}

// where points at the deviation in o: the first field whose presence gave
// it away, or the place of the missing field, or the table's pointer.
func where(d *registry.Deviation, o map[string]any) string {
	for _, p := range d.Detect.Present {
		if found := protocol.Resolve(o, protocol.SplitPointer(p)); len(found) > 0 {
			return protocol.Pointer(found[0].Loc)
		}
	}
	for _, p := range d.Detect.Absent {
		toks := protocol.SplitPointer(p)
		if len(toks) == 0 {
			continue
		}
		last := toks[len(toks)-1]
		for _, f := range protocol.Resolve(o, toks[:len(toks)-1]) {
			if pm, ok := f.Value.(map[string]any); ok {
				if _, has := pm[last]; !has {
					return protocol.Pointer(append(f.Loc, last))
				}
			}
		}
	}
	if found := protocol.Resolve(o, protocol.SplitPointer(d.Pointer)); len(found) > 0 {
		return protocol.Pointer(found[0].Loc)
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
	}
	return fmt.Sprintf("sends %s %s", strings.Join(d.MessageTypes, "/"), d.Pointer)
}

// state applies the ARCP rules no schema can express.
func (s *state) rules(m *protocol.Message, typ, kind string, o, payload map[string]any) {
	set := s.set
	sid, hasSID := o["session_id"].(string)
	jobID, _ := o["job_id"].(string)
	entry := set.t.Message(typ)
	sequenced, terminal := entry != nil && entry.Sequenced, entry != nil && entry.Terminal

	switch typ {
	case "session.hello", "session.open":
		s.offered = featureSet(payload)
		if res, ok := payload["resume"].(map[string]any); ok {
			// A resume: the session and its events began before the
			// trace did (or on an earlier connection).
			rsid, _ := res["session_id"].(string)
			if rsid != "" {
				s.sessions.Put(rsid, true)
				if seq, ok := protocol.IntValue(res["last_event_seq"]); ok {
					s.lastSeq.Put(rsid, seq)
				}
			}
		} else if payload != nil && payload["resume_token"] == nil {
			s.sawHello = true
		}
	case "session.resume":
		if hasSID {
			s.sessions.Put(sid, true)
			if seq, ok := protocol.IntValue(payload["last_event_seq"]); ok {
				s.lastSeq.Put(sid, seq)
			}
		}
	case "session.welcome", "session.accepted":
		if typ == "session.accepted" {
			if psid, ok := payload["session_id"].(string); ok {
				sid, hasSID = psid, true
			}
		}
		if hasSID {
			s.sessions.Put(sid, true)
		}
		s.welcomed = true
		if wf := featureSet(payload); wf != nil {
			// Negotiated: what both sides listed, when the hello is in
			// the trace; else what the welcome says.
			s.features = wf
			if s.offered != nil {
				for f := range wf {
					if !s.offered[f] {
						delete(s.features, f)
					}
				}
			}
		}
		return
	}

	// Session ids must be those the runtime announced, and a job's
	// messages carry the session the job was accepted in.
	if _, known := s.sessions.Get(sid); hasSID && s.welcomed && !known {
		m.Add(finding.Error, finding.RuleSessionMismatch, "/session_id", "session_id %q differs from the session the welcome announced (%s): every message of a session carries its id", sid, sortedSet(s.sessions.Keys()))
	} else if j, _ := s.jobs.Get(jobID); hasSID && jobID != "" && typ != "job.accepted" && j != nil && j.session != "" && j.session != sid {
		// (A job.accepted places the job: an idempotent retry may
		// accept the same job again in a new session.)
		m.Add(finding.Error, finding.RuleSessionMismatch, "/session_id", "job %q belongs to session %q, but this message carries session_id %q", jobID, j.session, sid)
	}

	// Features used must have been negotiated.
	if s.features != nil {
		if entry != nil && entry.Feature != "" && !s.features[entry.Feature] {
			m.Add(finding.Error, finding.RuleFeatureNotNegotiated, "/type", "%s needs the %q feature, which was not negotiated (hello and welcome share: %s)", typ, entry.Feature, featureList(s.features))
		}
		if ev := set.t.Event(kind); ev != nil && ev.Feature != "" && !s.features[ev.Feature] {
			m.Add(finding.Error, finding.RuleFeatureNotNegotiated, "/payload/kind", "%s events need the %q feature, which was not negotiated (hello and welcome share: %s)", kind, ev.Feature, featureList(s.features))
		}
		for _, ff := range set.t.FieldFeatures {
			if ff.Type != typ || s.features[ff.Feature] {
				continue
			}
			for _, f := range protocol.Resolve(o, protocol.SplitPointer(ff.Pointer)) {
				if ff.HasPattern() {
					str, ok := f.Value.(string)
					if !ok || !ff.Match(str) {
						continue
					}
				}
				m.Add(finding.Error, finding.RuleFeatureNotNegotiated, protocol.Pointer(f.Loc), "%s needs the %q feature, which was not negotiated (hello and welcome share: %s)", protocol.Pointer(f.Loc), ff.Feature, featureList(s.features))
				break
			}
		}
	}

	// event_seq: strictly increasing and gap-free per session.
	if seq, ok := protocol.IntValue(o["event_seq"]); ok && sequenced {
		// One sequence per session and sending side (the Rust dialect
		// numbers the client's messages too).
		key := sid
		if entry != nil && entry.Direction == "client" {
			key += "\x00client"
		}
		if last, seen := s.lastSeq.Get(key); seen {
			switch {
			case seq <= last:
				m.Add(finding.Error, finding.RuleSeqOrder, "/event_seq", "event_seq %d after %d: the session's sequence must strictly increase", seq, last)
				seq = last
			case seq > last+1:
				missing := fmt.Sprint(last + 1)
				if seq > last+2 {
					missing = fmt.Sprintf("%d to %d", last+1, seq-1)
				}
				m.Add(finding.Error, finding.RuleSeqGap, "/event_seq", "event_seq jumps from %d to %d: %s missing; the sequence is gap-free", last, seq, missing)
			}
		}
		s.lastSeq.Put(key, seq)
	}

	switch typ {
	case "job.submit", "tool.invoke":
		s.openSubmits++
	case "job.accepted":
		if s.openSubmits > 0 {
			s.openSubmits--
		}
		if id, ok := payload["job_id"].(string); ok && jobID == "" {
			jobID = id
		}
		if jobID != "" {
			j := s.job(jobID)
			j.accepted = true
			if hasSID {
				j.session = sid
			}
		}
	case "session.list_jobs":
		if id, ok := o["id"].(string); ok {
			s.listJobs.Put(id, true)
		}
	case "job.subscribed":
		// A job one subscribes to was accepted, perhaps on another
		// connection.
		if id, ok := payload["job_id"].(string); ok {
			s.job(id).accepted = true
		}
	case "session.jobs":
		// Listed jobs exist: they were accepted before.
		if list, ok := payload["jobs"].([]any); ok {
			for _, it := range list {
				if e, ok := it.(map[string]any); ok {
					if id, ok := e["job_id"].(string); ok {
						s.job(id).accepted = true
					}
				}
			}
		}
		if rid, ok := payload["request_id"].(string); ok {
			if _, asked := s.listJobs.Get(rid); asked {
				s.listJobs.Delete(rid)
			} else if s.sawHello && !s.lossy {
				m.Add(finding.Error, finding.RuleListJobsUnanswered, "/payload/request_id", "session.jobs answers request %q, but no outstanding session.list_jobs has that id", rid)
			}
		}
	case "job.event":
		if kind == "result_chunk" && jobID != "" {
			s.job(jobID).chunked = true
		}
	}

	if terminal && jobID != "" {
		j, _ := s.jobs.Get(jobID)
		switch {
		case j != nil && j.terminal:
			m.Add(finding.Error, finding.RuleTerminalTwice, "/job_id", "second terminal message for job %q: a job ends with exactly one job.result or job.error", jobID)
		case (j == nil || !j.accepted) && s.sawHello && !s.lossy:
			if s.unacceptedDeviation(m, typ) {
				break
			}
			m.Add(finding.Error, finding.RuleTerminalBeforeAccepted, "/job_id", "%s for job %q, which was not accepted: a job.accepted comes before any terminal message", typ, jobID)
		}
		j = s.job(jobID)
		j.terminal = true
		if typ == "job.result" && j.chunked {
			if _, ok := payload["result_id"]; !ok && payload != nil {
				m.Add(finding.Error, finding.RuleResultIDMissing, "/payload", "job.result ends a result streamed in result_chunk events, so it must carry result_id")
			}
		}
	}
}

// unacceptedDeviation reports a terminal message for a never-accepted job
// as the known SDK behaviour that answers a refused submit that way.
func (s *state) unacceptedDeviation(m *protocol.Message, typ string) bool {
	for _, d := range s.set.t.Deviations {
		if d.Detect.State != finding.RuleTerminalBeforeAccepted || s.openSubmits == 0 {
			continue
		}
		okType := false
		for _, t := range d.MessageTypes {
			okType = okType || t == typ
		}
		if !okType {
			continue
		}
		s.openSubmits--
		m.Add(finding.Warning, finding.RuleDeviationPrefix+d.ID, d.Pointer, "%s dialect: a refused submit is answered with %s for a job that was never accepted; canonical ARCP v1.1 answers with %s. %s", d.SDK, typ, d.Canonical, d.Note)
		return true
	}
	return false
}

// featureSet reads payload.capabilities.features, or nil.
func featureSet(payload map[string]any) map[string]bool {
	caps, ok := payload["capabilities"].(map[string]any)
	if !ok {
		return nil
	}
	fl, ok := caps["features"].([]any)
	if !ok {
		return nil
	}
	out := make(map[string]bool, len(fl))
	for _, f := range fl {
		if fs, ok := f.(string); ok {
			out[fs] = true
		}
	}
	return out
}

func (s *state) job(id string) *job {
	j, _ := s.jobs.Get(id)
	if j == nil {
		j = &job{}
		s.jobs.Put(id, j)
	}
	return j
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
