package arcp

import (
	"encoding/json"
	"hash/fnv"
	"hash/maphash"
	"math"
	"strings"
	"time"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// This file holds the checks of what a session's peers do over time: the
// end of a connection, the identity of messages and jobs, who may cancel,
// heartbeats, delegation and agent versions. Like state.go they read the
// table's effects and members and name no message type.

// More checks an ARCP rule may name.
const (
	checkEnded          = "ended"          // nothing after a message with effect "end"
	checkUnacknowledged = "unacknowledged" // a request its answer never came for
	checkUnique         = "unique"         // one sender's envelope ids
	checkIdempotent     = "idempotent"     // findings "new-job", "reused"
	checkCancel         = "cancel"         // findings "authority", "outcome"
	checkHeartbeat      = "heartbeat"      // a ping unanswered past the interval
	checkTrace          = "trace"          // a delegated job keeps its parent's trace
	checkVersion        = "version"        // findings "code", "changed"
)

func init() {
	for _, c := range []string{checkEnded, checkUnacknowledged, checkUnique, checkIdempotent, checkCancel, checkHeartbeat, checkTrace, checkVersion} {
		knownChecks[c] = true
	}
}

// More effects.
const (
	effEnd       = "end"       // ends the connection: nothing follows on it
	effCancel    = "cancel"    // asks to cancel the job
	effCancelled = "cancelled" // acknowledges a cancellation
)

// Bounds of the behaviour state.
const (
	maxIDs     = 1 << 14 // envelope ids remembered per connection
	maxKeys    = 4096    // idempotency keys remembered
	maxSubmits = 64      // unanswered submits per session
)

// seenID is where an envelope id was first sent, and what it carried.
type seenID struct {
	line int
	sum  uint64
}

// keyed is the job an idempotency key resolved to, and the parameters of
// the submission that made it.
type keyed struct {
	sum  uint64
	job  string
	line int
}

// submit is a job.submit waiting for its answer.
type submit struct {
	line  int
	key   string              // principal and idempotency key, "" without a key
	sum   uint64              // the parameters
	agent string              // the agent asked for
	trace string              // the trace id it carried
	lease map[string][]string // the lease it asked for, nil if none
}

// ping is a heartbeat waiting for its pong.
type ping struct {
	line int
	from string
	at   time.Time
}

// sumValue is a digest of a JSON value, the same for equal values
// whatever their members' order.
func sumValue(v any) uint64 {
	b, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return 0
	}
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// idSeed seeds the digests of messages whose envelope ids are compared.
var idSeed = maphash.MakeSeed()

func sumBytes(b []byte) uint64 { return maphash.Bytes(idSeed, b) }

// traceID is the trace id of a trace_id member: the value itself (v1.0:
// 32 hex digits), or the trace-id field of a W3C traceparent (v1.1 §11
// carries "the traceparent value", whose span id changes per job).
func traceID(s string) string {
	if parts := strings.Split(s, "-"); len(parts) == 4 && len(parts[1]) == 32 {
		return strings.ToLower(parts[1])
	}
	return strings.ToLower(s)
}

// firstString is the first of the pointers holding a string, and where.
func firstString(m *protocol.Message, ptrs []string) (string, string) {
	for _, p := range ptrs {
		if v, ok := m.String(p); ok && v != "" {
			return v, p
		}
	}
	return "", ""
}

// timeAt reads a timestamp member.
func timeAt(m *protocol.Message, ptr string) (time.Time, bool) {
	if ptr == "" {
		return time.Time{}, false
	}
	s, ok := m.String(ptr)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil && t.Year() > 1
}

// opposite is the other peer.
func opposite(side string) string {
	switch side {
	case "client":
		return "runtime"
	case "runtime":
		return "client"
	}
	return ""
}

// uniqueID reports an envelope id a sender already used on the connection
// for another message. A byte-identical repeat is a transport duplicate,
// which the id exists to let a receiver drop.
func (s *state) uniqueID(m *protocol.Message) {
	for _, r := range s.each(checkUnique) {
		id, ok := m.StringBytes(r.Value)
		if !ok || len(id) == 0 {
			continue
		}
		// Keyed by sender and session as well: interleaved connections
		// of several sessions (an event fanned out to a subscriber) may
		// share ids. A digest stands for the key, so that remembering an
		// id costs no allocation.
		sid, _ := m.StringBytes("/session_id")
		var h maphash.Hash
		h.SetSeed(idSeed)
		h.WriteString(m.From)
		h.WriteByte(0)
		h.Write(sid)
		h.WriteByte(0)
		h.Write(id)
		k := h.Sum64()
		sum := sumBytes(m.Data)
		if prev, seen := s.ids[k]; seen {
			if prev.sum != sum {
				m.Add(finding.Error, r.ID, r.Value, "envelope id %s was already used by line %d, a different message from the same sender on this connection: the id is a per-message unique identifier (ARCP v1.0 §5.1; v1.1 §5 keeps the member), and a receiver that drops duplicates by id loses this message", protocol.Quote(string(id)), prev.line)
			}
			continue
		}
		if s.ids == nil || len(s.ids) >= maxIDs {
			s.ids = make(map[uint64]seenID) // past the bound, older ids are no longer compared
		}
		s.ids[k] = seenID{line: m.Line, sum: sum}
	}
}

// newConnection forgets the envelope ids: a hello opens a connection, and
// a resumed one may replay earlier messages with their ids.
func (s *state) newConnection() { s.ids = nil }

// ended reports a message of a session after a message that ended its
// connection (v1.0's session.bye), unless a hello or resume opened it
// again.
func (s *state) ended(m *protocol.Message, ss *session, typ string) {
	if ss == nil {
		return
	}
	rs := s.each(checkEnded)
	if len(rs) == 0 {
		return
	}
	if ss.endedAt > 0 && !s.lossy {
		m.Add(finding.Error, rs[0].ID, "/type", "%s after session.bye (line %d): ARCP v1.0 §6.4 says no message follows session.bye on the transport. (v1.1 §6.7 ends a session with session.close, acknowledged by session.closed; a new connection may resume the session)", typ, ss.endedAt)
	}
}

// closeRequests follows requests whose answer the runtime owes
// (session.close → session.closed): still owed when the trace ends, they
// are reported there.
func (s *state) closeRequests(m *protocol.Message, ss *session, sid, typ string) {
	for _, r := range s.each(checkUnacknowledged) {
		switch {
		case typ == r.Request:
			if ss.owed == nil {
				ss.owed = map[string]*owed{}
			}
			if ss.owed[r.ID] == nil {
				ss.owed[r.ID] = &owed{line: m.Line, sid: sid, rule: r}
			}
		case typ == r.Type:
			delete(ss.owed, r.ID)
		default:
			if o := ss.owed[r.ID]; o != nil && m.From == opposite(s.set.from[r.Request]) {
				o.after = true
			}
		}
	}
}

// owed is a request waiting for its answer.
type owed struct {
	line  int
	sid   string
	after bool // the answering peer sent something else after it
	rule  *registry.ARCPRule
}

// unacknowledged reports, at the end of the trace, the requests whose
// answer never came: an error where the answering peer went on sending in
// the session, a warning where the trace may have been cut just after.
func (s *state) unacknowledged(lastLine int) []finding.Finding {
	if s.lossy {
		return nil
	}
	var out []finding.Finding
	for _, sid := range s.sessions.Keys() {
		ss, _ := s.sessions.Get(sid)
		if ss == nil || !ss.started {
			continue
		}
		for _, o := range ss.owed {
			r := o.rule
			f := finding.Finding{Line: lastLine, Severity: finding.Error, Rule: r.ID, Requirement: ruleRow(r.ID), Side: opposite(s.set.from[r.Request])}
			if o.after {
				f.Message = r.Request + " on line " + itoa(o.line) + " (session " + protocol.Quote(sid) + ") was never acknowledged with " + r.Type + ", although the " + f.Side + " went on sending in the session: ARCP v1.1 §6.7 has the runtime acknowledge a close with " + r.Type + " (v1.0 closed with session.bye, which has no acknowledgement)"
			} else {
				f.Severity = finding.Warning
				f.Message = r.Request + " on line " + itoa(o.line) + " (session " + protocol.Quote(sid) + ") was never acknowledged with " + r.Type + " before the trace ends: ARCP v1.1 §6.7 has the runtime acknowledge a close (if the trace was cut short, this is expected)"
			}
			out = append(out, f)
		}
	}
	return out
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// submitted queues a job.submit of a session until its answer.
func (s *state) submitted(m *protocol.Message, ss *session, entry *registry.ARCPMessage) {
	if len(ss.submits) >= maxSubmits {
		ss.submits = ss.submits[:0]
		ss.ambiguous = true
	}
	sub := submit{line: m.Line}
	if entry.Key != "" {
		if k, ok := m.String(entry.Key); ok && k != "" {
			sub.key = ss.principal + "\x00" + k
			sub.sum = sumValue(m.At(entry.Params))
		}
	}
	if entry.Agent != "" {
		sub.agent, _ = m.String(entry.Agent)
	}
	sub.trace, _ = firstString(m, entry.Trace)
	if entry.Lease != "" {
		sub.lease, _ = readGrants(m.At(entry.Lease))
	}
	ss.submits = append(ss.submits, sub)
}

// answered takes the submit a runtime's answer (acceptance or refusal)
// answers: the session's one outstanding submit. With several outstanding
// the pairing is not certain (a runtime may answer out of order), so the
// checks that need it skip, and the queue starts again.
func (s *state) answered(ss *session) (submit, bool) {
	switch n := len(ss.submits); {
	case n == 0:
		return submit{}, false
	case n == 1 && !ss.ambiguous:
		sub := ss.submits[0]
		ss.submits = ss.submits[:0]
		return sub, true
	default:
		ss.submits = ss.submits[:0]
		ss.ambiguous = false
		return submit{}, false
	}
}

// accepted checks a job.accepted: a resubmission with the same key and
// parameters names the job of the first; a new job has an id of its own;
// a delegated job keeps its parent's trace; the agent version is noted.
func (s *state) accepted(m *protocol.Message, ss *session, entry *registry.ARCPMessage, started bool) {
	id, ok := m.String(entry.Job)
	if !ok || id == "" {
		return
	}
	parent := ""
	if entry.Parent != "" {
		parent, _ = m.String(entry.Parent)
	}
	var sub submit
	paired := false
	if parent == "" && ss != nil {
		sub, paired = s.answered(ss)
	}
	prev, _ := s.jobs.Get(id)
	known := prev != nil && prev.opened[effAccept]
	forgotten := prev == nil && s.jobs.Forgotten(id)

	if r := s.set.rules.find(checkIdempotent, "new-job"); r != nil && paired && sub.key != "" {
		s.exercised.Rule(r.ID)
		if s.keys == nil {
			s.keys = protocol.NewRecent[keyed](maxKeys)
		}
		if k, seen := s.keys.Get(sub.key); seen {
			if k.sum == sub.sum && k.job != id {
				m.Add(finding.Error, r.ID, entry.Job, "job %s accepts a resubmission (line %d) with the idempotency key and the parameters of the submission that was accepted as job %s (line %d): ARCP v1.1 §7.2 returns the same job.accepted for it, and v1.0 §7.2 resolves it to the same job_id", protocol.Quote(id), sub.line, protocol.Quote(k.job), k.line)
			}
		} else {
			s.keys.Put(sub.key, keyed{sum: sub.sum, job: id, line: sub.line})
		}
	}
	if r := s.set.rules.find(checkIdempotent, "reused"); r != nil && (paired || parent != "") && started && !forgotten {
		s.exercised.Rule(r.ID)
		resubmit := false
		if paired && sub.key != "" && s.keys != nil {
			k, _ := s.keys.Get(sub.key)
			resubmit = k.job == id
		}
		if known && !resubmit {
			what := "a new submission (line " + itoa(sub.line) + ")"
			if parent != "" {
				what = "a delegation by job " + protocol.Quote(parent)
			} else if sub.key != "" {
				what = "a submission (line " + itoa(sub.line) + ") whose idempotency key is not the one that made it"
			}
			m.Add(finding.Warning, r.ID, entry.Job, "job_id %s was already accepted in this trace, and %s gets it again: a job_id identifies one job (ARCP v1.0 §5.1, §7.2: only a resubmission with the same idempotency key resolves to an existing job)", protocol.Quote(id), what)
		}
	}

	j := s.job(id)
	if tr, _ := firstString(m, entry.Trace); tr != "" {
		if j.trace == "" {
			j.trace = tr
		}
	} else if paired && sub.trace != "" && j.trace == "" {
		j.trace = sub.trace
	}
	if parent != "" {
		s.delegated(m, entry, j, parent)
	}
	s.leaseAccepted(m, entry, j, sub, paired, parent)
	s.credentialsIssued(m, entry.Type, j, id, parent, started)
	if entry.Agent != "" {
		if a, ok := m.String(entry.Agent); ok {
			s.resolved(m, j, id, a, entry.Agent)
		}
	}
}

// delegated checks that a child job keeps its parent's trace id.
func (s *state) delegated(m *protocol.Message, entry *registry.ARCPMessage, child *job, parent string) {
	r := s.set.rules.find(checkTrace, "")
	if r == nil {
		return
	}
	p, _ := s.jobs.Get(parent)
	if p == nil || p.trace == "" {
		return
	}
	s.exercised.Rule(r.ID)
	tr, where := firstString(m, entry.Trace)
	if tr == "" || traceID(tr) == traceID(p.trace) {
		return
	}
	m.Add(finding.Error, r.ID, where, "delegated job's trace_id %s differs from its parent %s's %s: a delegated job inherits the parent's trace_id (ARCP v1.0 §10.3), and the runtime forwards the trace context to sub-agents (v1.1 §11; v1.1 carries the traceparent, whose trace-id part is compared here)", protocol.Quote(tr), protocol.Quote(parent), protocol.Quote(p.trace))
}

// resolved notes the agent version a job runs, and reports a change.
func (s *state) resolved(m *protocol.Message, j *job, id, agent, ptr string) {
	name, ver, pinned := strings.Cut(agent, "@")
	if !pinned || ver == "" {
		return
	}
	r := s.set.rules.find(checkVersion, "changed")
	if r == nil {
		return
	}
	s.exercised.Rule(r.ID)
	if j.agent == "" {
		j.agent, j.agentLine = agent, m.Line
		return
	}
	pname, pver, _ := strings.Cut(j.agent, "@")
	if pname == name && pver != ver && !j.terminal {
		m.Add(finding.Error, r.ID, ptr, "job %s runs %s here, but line %d resolved it to %s: once resolved, a job's agent version is fixed and the runtime MUST NOT migrate a running job to another version (ARCP v1.1 §7.5)", protocol.Quote(id), protocol.Quote(agent), j.agentLine, protocol.Quote(j.agent))
	}
}

// listed notes the agents a listing reports for its jobs.
func (s *state) listed(m *protocol.Message, entry *registry.ARCPMessage) {
	if entry.Entries == "" || entry.Agent == "" {
		return
	}
	list, ok := m.At(entry.Entries).([]any)
	if !ok {
		return
	}
	field := strings.TrimPrefix(entry.Agent, "/")
	jobField := strings.TrimPrefix(entry.Job[strings.LastIndex(entry.Job, "/"):], "/")
	for i, e := range list {
		o, ok := e.(map[string]any)
		if !ok {
			continue
		}
		id, _ := o[jobField].(string)
		agent, _ := o[field].(string)
		if id == "" || agent == "" {
			continue
		}
		j, _ := s.jobs.Get(id)
		if j == nil {
			continue
		}
		s.resolved(m, j, id, agent, entry.Entries+"/"+itoa(i)+"/"+field)
	}
}

// refused checks a refusal of a submit that pinned an agent version the
// welcome's inventory does not list for a listed agent: its code is the
// version's, not another.
func (s *state) refused(m *protocol.Message, ss *session, entry *registry.ARCPMessage) {
	sub, paired := s.answered(ss)
	r := s.set.rules.find(checkVersion, "code")
	if r == nil || !paired || ss.agents == nil || entry.Code == "" {
		return
	}
	name, ver, pinned := strings.Cut(sub.agent, "@")
	if !pinned {
		return
	}
	versions, listed := ss.agents[name]
	if !listed {
		return
	}
	s.exercised.Rule(r.ID)
	for _, v := range versions {
		if v == ver {
			return
		}
	}
	code, _ := m.String(entry.Code)
	if code == r.Code {
		return
	}
	m.Add(finding.Warning, r.ID, entry.Code, "the submit on line %d asks for %s, and the welcome lists %s with versions %s only: an unavailable version is answered with %s (ARCP v1.1 §7.5, §12), not %s", sub.line, protocol.Quote(sub.agent), protocol.Quote(name), strings.Join(versions, ", "), r.Code, protocol.Quote(code))
}

// inventory reads a welcome's agent inventory: name → versions, for the
// v1.1 entries that list versions.
func inventory(v any) map[string][]string {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := map[string][]string{}
	for _, e := range list {
		o, ok := e.(map[string]any)
		if !ok {
			continue
		}
		name, _ := o["name"].(string)
		vs, ok := o["versions"].([]any)
		if name == "" || !ok {
			continue
		}
		var versions []string
		for _, v := range vs {
			if s, ok := v.(string); ok {
				versions = append(versions, s)
			}
		}
		out[name] = versions
	}
	return out
}

// cancel follows job.cancel and job.cancelled: only the session that
// submitted a job may cancel it, and a cancelled job ends cancelled.
func (s *state) cancel(m *protocol.Message, ss *session, sid string, entry *registry.ARCPMessage, jobID string, started bool) {
	if jobID == "" {
		return
	}
	j, _ := s.jobs.Get(jobID)
	switch entry.Effect {
	case effCancel:
		if j == nil {
			j = s.job(jobID)
		}
		if j.cancelFrom == nil {
			j.cancelFrom = map[string]int{}
		}
		if len(j.cancelFrom) < maxStreams {
			j.cancelFrom[sid] = m.Line
		}
	case effCancelled:
		if j == nil {
			return
		}
		j.cancelled = m.Line
		r := s.find(checkCancel, "authority")
		line, asked := j.cancelFrom[sid]
		if r == nil || !asked || !started || s.lossy {
			return
		}
		delete(j.cancelFrom, sid)
		if j.subscribers[sid] && !j.acceptedIn[sid] {
			m.Add(finding.Error, r.ID, "/type", "%s honours the job.cancel of line %d, sent by session %s, which only subscribed to job %s: subscription MUST NOT confer cancel authority (ARCP v1.1 §7.6, §14); only the submitting session may cancel", m.Label, line, protocol.Quote(sid), protocol.Quote(jobID))
		}
	}
}

// outcome checks a terminal message's final status against the job's
// cancellation and its code.
func (s *state) outcome(m *protocol.Message, entry *registry.ARCPMessage, j *job, replay bool) {
	r := s.find(checkCancel, "outcome")
	if r == nil || replay || entry.Status == "" {
		return
	}
	status, _ := m.String(entry.Status)
	if status == r.Want {
		return
	}
	if entry.Code != "" {
		if code, ok := m.String(entry.Code); ok && code == r.Code {
			m.Add(finding.Error, r.ID, entry.Status, "a job that ends with code %s has final_status %s: a cancelled job ends with final_status %s (ARCP v1.0 §7.4 MUST; v1.1 §7.4 emits code %s with final_status %s)", r.Code, protocol.Quote(status), protocol.Quote(r.Want), r.Code, protocol.Quote(r.Want))
			return
		}
	}
	if j != nil && j.cancelled > 0 && !s.lossy {
		m.Add(finding.Error, r.ID, entry.Status, "job %s was acknowledged cancelled (line %d) but ends with final_status %s: after a cancellation the runtime emits job.error with code %s and final_status %s (ARCP v1.0 §7.4 MUST; v1.1 §7.4)", protocol.Quote(mustString(m, "/job_id")), j.cancelled, protocol.Quote(status), r.Code, protocol.Quote(r.Want))
	}
}

func mustString(m *protocol.Message, ptr string) string {
	s, _ := m.String(ptr)
	return s
}

// heartbeat follows pings: a ping the other peer has not answered when its
// own clock, in a message it sends, is past the ping's sent_at plus the
// negotiated interval was not answered within the interval.
func (s *state) heartbeat(m *protocol.Message, ss *session, entry *registry.ARCPMessage, typ string) {
	for _, r := range s.each(checkHeartbeat) {
		switch typ {
		case r.Request:
			if ss.interval <= 0 || m.From == "" || entry.Time == "" {
				continue
			}
			nonce, ok := m.String(r.RequestKey)
			t, okT := timeAt(m, entry.Time)
			if !ok || !okT {
				continue
			}
			if ss.pings == nil {
				ss.pings = protocol.NewRecent[ping](maxPending)
			}
			ss.pings.Put(nonce, ping{line: m.Line, from: m.From, at: t})
			ss.openPings++
			continue
		case r.Type:
			if ss.pings != nil {
				if nonce, ok := m.String(r.Key); ok {
					if _, open := ss.pings.Get(nonce); open {
						ss.pings.Delete(nonce)
						ss.openPings--
					}
				}
			}
		}
		if ss.openPings <= 0 || m.From == "" || entry.Time == "" {
			continue
		}
		t, ok := timeAt(m, entry.Time)
		if !ok {
			continue
		}
		deadline := time.Duration(ss.interval * float64(time.Second))
		for _, nonce := range ss.pings.Keys() {
			p, _ := ss.pings.Get(nonce)
			if p.from == m.From || t.Sub(p.at) <= deadline {
				continue
			}
			ss.pings.Delete(nonce)
			ss.openPings--
			m.Add(finding.Error, r.ID, entry.Time, "the ping of line %d (nonce %s, sent_at %s) is still unanswered at %s by this peer's own clock, %s after it, beyond the negotiated heartbeat_interval_sec %s: the receiver of a ping responds with session.pong within the interval (ARCP v1.1 §6.4)", p.line, protocol.Quote(nonce), p.at.Format(time.RFC3339Nano), t.Format(time.RFC3339Nano), t.Sub(p.at).Round(time.Millisecond), formatSeconds(ss.interval))
		}
	}
}

func formatSeconds(f float64) string {
	if f == math.Trunc(f) {
		return itoa(int(f))
	}
	b, _ := json.Marshal(f)
	return string(b)
}

// addSession notes a session that accepted (or subscribed to) a job.
func addSession(accepted, subscribed *map[string]bool, accept bool, sid string) {
	m := subscribed
	if accept {
		m = accepted
	}
	if *m == nil {
		*m = map[string]bool{}
	}
	if len(*m) < maxStreams {
		(*m)[sid] = true
	}
}

// ruleRow is the first catalogue row of a rule.
func ruleRow(rule string) string {
	for _, d := range RuleDocs() {
		if d.Name == rule && len(d.Requirements) > 0 {
			return d.Requirements[0]
		}
	}
	return ""
}
