package arcp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// This file is the one interpreter of an ARCP table's state: the effects
// of dispatch.json's messages (hello, welcome, resume, submit, refuse,
// accept, subscribe, list) and its rules, each applied by the check it
// names. It knows no message type; the tables give them all.

// Checks an ARCP rule may name (registry.ARCPRule.Check).
const (
	checkSequence     = "sequence"      // findings "gap", "order"
	checkSession      = "session"       // session ids the welcome announced
	checkFeatures     = "features"      // negotiated features
	checkJobOpen      = "job-open"      // a job message for a job the session knows
	checkTerminal     = "terminal"      // findings "twice", "after"
	checkCompare      = "compare"       // two numbers of one message
	checkChunks       = "chunks"        // findings "gap", "after-last"
	checkStreamResult = "stream-result" // findings "missing", "unknown", "open", "inline"
	checkAnswers      = "answers"       // an answer names an outstanding request
	checkBound        = "bound"         // a value bounded by the sequence sent
)

var knownChecks = map[string]bool{
	checkSequence: true, checkSession: true, checkFeatures: true, checkJobOpen: true, checkTerminal: true,
	checkCompare: true, checkChunks: true, checkStreamResult: true, checkAnswers: true, checkBound: true,
}

// Effects a message may have (registry.ARCPMessage.Effect).
const (
	effHello     = "hello"
	effWelcome   = "welcome"
	effResume    = "resume"
	effSubmit    = "submit"
	effRefuse    = "refuse"
	effAccept    = "accept"
	effSubscribe = "subscribe"
	effList      = "list"
)

// ruleSet is a table's checked rules, grouped by check.
type ruleSet map[string][]*registry.ARCPRule

// find returns the rule of a check with the given finding, or nil.
func (rs ruleSet) find(check, fnd string) *registry.ARCPRule {
	for _, r := range rs[check] {
		if r.Finding == fnd {
			return r
		}
	}
	return nil
}

// compileRules groups the table's checked rules and refuses a rule the
// interpreter cannot apply or whose name findings cannot carry.
func (s *set) compileRules() error {
	s.rules = ruleSet{}
	for _, r := range s.t.Rules {
		if r.Check == "" {
			continue
		}
		if !knownChecks[r.Check] {
			return fmt.Errorf("rule %s: unknown check %q", r.ID, r.Check)
		}
		if !knownRule(r.ID) {
			return fmt.Errorf("rule %s: not a rule name findings may carry (add it to RuleDocs)", r.ID)
		}
		s.rules[r.Check] = append(s.rules[r.Check], r)
	}
	return s.compilePatterns()
}

// Bounds of the ARCP state (see protocol.Recent).
const (
	maxSessions = 4096
	maxJobs     = 1 << 16
	maxPending  = 4096 // outstanding requests per session and rule
	maxStreams  = 64   // streamed results per job
)

// state follows one ARCP trace: one or more sessions on one or more
// connections, possibly cut at a resume.
type state struct {
	set        *set
	dial, note string

	sessions    *protocol.Recent[*session]
	jobs        *protocol.Recent[*job]
	hello       *hello // the last hello, until a welcome answers it
	welcomed    bool   // a welcome has been seen
	openSubmits int    // submits not yet accepted or refused
	lossy       bool   // a line could not be read
	begun       bool   // the trace's first message has been judged
	partial     protocol.Partial
	deviations  protocol.Once // the deviations reported, by id
	// exercised are the catalogue rows whose check ran on a message of
	// the trace (the rule evaluated it, whether or not it applied).
	exercised *protocol.Exercise
	reg       *registry.Registry

	ids  map[uint64]seenID       // the envelope ids of the connection, by digest of sender, session and id
	keys *protocol.Recent[keyed] // the jobs idempotency keys resolved to

	costRE *regexp.Regexp // the names of metrics that spend a budget

	deviated     bool   // a deviation explains the message being judged
	lastTime     []byte // the last time a message carried, as sent
	lastTimeLine int
	credentials  *protocol.Recent[issued] // the jobs credential values were issued to, by digest
}

// onceNote ends a deviation warning: the first of a trace is reported.
const onceNote = " (Reported at its first occurrence in the trace; later messages with the same deviation are not listed again.)"

// firstDeviation reports whether the deviation id is met for the first
// time in the trace: a deviation an SDK makes in every message of a kind
// is one fact about the SDK, reported once, not a warning per line.
func (s *state) firstDeviation(id string) bool { return s.deviations.First(id) }

// hello is what a hello asked for.
type hello struct {
	offered   map[string]bool // its features, nil if it listed none
	fresh     bool            // not a resume: the session starts in the trace
	line      int             // where it was sent
	principal string          // who speaks, as its credentials say
}

// session is what the trace showed of one session.
type session struct {
	started  bool            // its first welcome answered a fresh hello in the trace
	features map[string]bool // negotiated; nil until a welcome lists them
	last     map[bool]int64  // last event_seq by sending side (true: client)
	high     int64           // highest event_seq seen, across resumes
	sent     bool            // high is known: the trace holds the session's sequence from a known point
	pending  map[string]*protocol.Recent[int]
	asked    map[string]*protocol.Recent[int] // the line of the last request under each key, by rule

	principal string              // the hello's credentials, scoping idempotency keys
	interval  float64             // the heartbeat interval in seconds, 0 if none was negotiated
	agents    map[string][]string // the welcome's inventory: agent → versions
	endedAt   int                 // the line of the message that ended the connection, 0 if none
	owed      map[string]*owed    // requests the other peer owes an answer, by rule
	submits   []submit            // submits not answered yet
	ambiguous bool                // answers can no longer be paired with submits
	pings     *protocol.Recent[ping]
	openPings int

	ackLine  int   // the client's last acknowledgement, 0 if none on this connection
	sinceAck int   // the runtime's events since it
	gapSeq   int64 // the first event_seq after a gap the client has not resumed from, 0 if none
	gapLine  int
}

// job is what the trace showed of one job.
type job struct {
	sessions    map[string]bool // the sessions that accepted or subscribed to it
	opened      map[string]bool // the effects that made it known (accept, subscribe, list)
	terminal    bool
	termSeq     int64
	termHasSeq  bool
	streams     map[string]*stream // by result id
	acceptedNow bool               // accepted in a session that started in the trace

	acceptedIn  map[string]bool // the sessions that accepted it
	subscribers map[string]bool // the sessions that subscribed to it
	cancelFrom  map[string]int  // the line of each session's job.cancel
	cancelled   int             // the line of its job.cancelled, 0 if none
	trace       string          // its trace id
	agent       string          // the agent version it runs (name@version)
	agentLine   int
	lease       *lease          // its effective lease, once an acceptance or subscription stated it
	credIDs     map[string]bool // the credentials its acceptance issued, nil if not seen
}

// stream is one streamed result of a job.
type stream struct {
	next   int64 // the chunk index expected next
	closed bool  // a chunk with more: false was seen
}

func newState(reg *registry.Registry) *state {
	return &state{
		sessions:  protocol.NewRecent[*session](maxSessions),
		jobs:      protocol.NewRecent[*job](maxJobs),
		exercised: protocol.NewExercise(RuleDocs()),
		reg:       reg,
	}
}

// find is the set's rule of a check with the given finding, noted as
// exercised.
func (s *state) find(check, fnd string) *registry.ARCPRule {
	r := s.set.rules.find(check, fnd)
	if r != nil {
		s.exercised.Rule(r.ID)
	}
	return r
}

// each is the set's rules of a check, each noted as exercised.
func (s *state) each(check string) []*registry.ARCPRule {
	rs := s.set.rules[check]
	for _, r := range rs {
		s.exercised.Rule(r.ID)
	}
	return rs
}

// Exercised lists the catalogue rows whose check ran on the trace.
func (s *state) Exercised() []string { return s.exercised.IDs() }

// Catalogue lists the ids of the version's requirement rows.
func (s *state) Catalogue() []string { return s.reg.RequirementIDs(s.set.v) }

// Peers: ARCP names its implementations in hello and welcome, which the
// summary does not show yet.
func (s *state) Peers() []finding.Peer { return nil }

// Lost: an unreadable line may have carried the next event_seq, an
// acceptance, a request or a chunk; the rules that need them stop, and the
// sequences restart from what follows.
func (s *state) Lost(*protocol.Message) {
	s.lossy = true
	for _, k := range s.sessions.Keys() {
		if ss, ok := s.sessions.Get(k); ok {
			ss.last = map[bool]int64{}
		}
	}
}

func (s *state) session(id string) *session {
	ss, _ := s.sessions.Get(id)
	if ss == nil {
		ss = &session{last: map[bool]int64{}, pending: map[string]*protocol.Recent[int]{}, asked: map[string]*protocol.Recent[int]{}}
		s.sessions.Put(id, ss)
	}
	return ss
}

func (s *state) job(id string) *job {
	j, _ := s.jobs.Get(id)
	if j == nil {
		j = &job{opened: map[string]bool{}}
		s.jobs.Put(id, j)
	}
	return j
}

// apply runs the effects and rules of the table on one message.
func (s *state) apply(m *protocol.Message, typ, kind string, notTerminal bool) {
	entry := s.set.t.Message(typ)
	if entry == nil {
		return
	}
	sid, hasSID := m.String("/session_id")

	s.uniqueID(m)
	s.unsequenced(m, entry, typ)
	s.format(m, typ)
	s.clock(m, entry)
	switch entry.Effect {
	case effHello:
		s.newConnection()
		h := &hello{fresh: true, line: m.Line}
		if entry.Principal != "" {
			h.principal, _ = m.String(entry.Principal)
		}
		if entry.Features != "" {
			if fl, ok := m.At(entry.Features).([]any); ok {
				h.offered = stringSet(fl)
			}
		}
		if entry.ResumeFlat != "" && m.At(entry.ResumeFlat) != nil {
			h.fresh = false
		}
		if entry.ResumeSession != "" {
			if rsid, ok := m.String(entry.ResumeSession); ok {
				h.fresh = false
				s.resume(m, rsid, entry.ResumeSeq)
			}
		}
		s.hello = h
		return
	case effResume:
		if rsid, ok := m.String(entry.ResumeSession); ok {
			s.resume(m, rsid, entry.ResumeSeq)
		}
		return
	case effWelcome:
		if s.hello != nil {
			m.Answers = s.hello.line
		}
		if wsid, ok := m.String(entry.Session); ok {
			ss := s.session(wsid)
			if s.hello != nil && s.hello.fresh && !ss.sent {
				ss.started, ss.sent = true, true
			}
			ss.endedAt = 0 // a new connection
			ss.ackLine, ss.gapSeq = 0, 0
			if s.hello != nil && s.hello.principal != "" {
				ss.principal = s.hello.principal
			}
			if entry.Interval != "" {
				if n, ok := m.At(entry.Interval).(json.Number); ok {
					ss.interval, _ = n.Float64()
				}
			}
			if entry.Agents != "" {
				if inv := inventory(m.At(entry.Agents)); inv != nil {
					ss.agents = inv
				}
			}
			if entry.Features != "" {
				if fl, ok := m.At(entry.Features).([]any); ok {
					// Negotiated: what both sides listed, when the
					// hello is in the trace; else what the welcome says.
					ss.features = stringSet(fl)
					if s.hello != nil && s.hello.offered != nil {
						for f := range ss.features {
							if !s.hello.offered[f] {
								delete(ss.features, f)
							}
						}
					}
				}
			}
			s.inventory(m, ss, typ)
		}
		s.welcomed = true
		s.hello = nil
		return
	}

	_, knownSession := s.sessions.Get(sid)
	var ss *session
	if hasSID {
		ss = s.session(sid)
	}
	started := ss != nil && ss.started && !s.lossy
	jobID, _ := m.String("/job_id")

	if ss != nil {
		s.ended(m, ss, typ)
		if entry.Effect == effEnd {
			ss.endedAt = m.Line
		}
		s.closeRequests(m, ss, sid, typ)
		s.heartbeat(m, ss, entry, typ)
	}

	// Session ids must be those the runtime announced, and a job's
	// messages carry the session the job was accepted in.
	if r := s.find(checkSession, ""); r != nil && hasSID {
		if s.welcomed && !knownSession {
			m.Add(finding.Error, r.ID, "/session_id", "session_id %s differs from every session a welcome announced (%s): every message of a session carries its id", protocol.Quote(sid), sortedSet(s.knownSessions()))
		} else if j, _ := s.jobs.Get(jobID); jobID != "" && entry.Effect != effAccept && entry.Effect != effSubscribe && j != nil && len(j.sessions) > 0 && !j.sessions[sid] {
			// (An accept places the job: an idempotent retry may accept
			// the same job again in a new session; a subscription
			// attaches it to the subscriber's session.)
			m.Add(finding.Error, r.ID, "/session_id", "job %s belongs to session %s, which accepted or subscribed to it, but this message carries session_id %s", protocol.Quote(jobID), sortedSet(mapKeys(j.sessions)), protocol.Quote(sid))
		}
	}

	if r := s.find(checkFeatures, ""); r != nil && ss != nil && ss.features != nil {
		s.features(m, r, ss, entry, typ, kind)
	}

	// event_seq: strictly increasing and gap-free per session and sending
	// side; a value not above the highest seen is a replay.
	seq, hasSeq := protocol.IntValue(m.At("/event_seq"))
	hasSeq = hasSeq && entry.Sequenced
	replay := false
	if hasSeq && ss != nil {
		client := entry.Direction == "client"
		replay = ss.sent && seq <= ss.high
		if last, seen := ss.last[client]; seen {
			s.each(checkSequence)
			switch {
			case seq <= last:
				if r := s.find(checkSequence, "order"); r != nil {
					m.Add(finding.Error, r.ID, "/event_seq", "event_seq %d after %d: the session's sequence must strictly increase", seq, last)
				}
				seq = last
			case seq > last+1:
				if !client {
					ss.gapSeq, ss.gapLine = seq, m.Line
				}
				if r := s.find(checkSequence, "gap"); r != nil {
					missing := fmt.Sprint(last + 1)
					if seq > last+2 {
						missing = fmt.Sprintf("%d to %d", last+1, seq-1)
					}
					m.Add(finding.Error, r.ID, "/event_seq", "event_seq jumps from %d to %d: %s missing; the sequence is gap-free", last, seq, missing)
				}
			}
		}
		ss.last[client] = seq
		if !client {
			ss.sinceAck++
		}
		if !client && (!ss.sent || seq > ss.high) {
			ss.high, ss.sent = seq, true
		}
	}

	if ss != nil {
		s.acked(m, ss, typ)
		s.versioned(m, ss, typ)
	}

	// Effects on jobs.
	switch entry.Effect {
	case effSubmit:
		s.future(m, typ)
		s.openSubmits++
		if ss != nil {
			s.submitted(m, ss, entry)
		}
	case effRefuse:
		if s.openSubmits > 0 {
			s.openSubmits--
		}
		if ss != nil {
			s.refused(m, ss, entry)
		}
	case effCancel, effCancelled:
		if hasSID {
			s.cancel(m, ss, sid, entry, jobID, started)
		}
	case effAccept, effSubscribe, effList:
		if entry.Effect == effAccept {
			s.accepted(m, ss, entry, started)
		}
		if entry.Effect == effAccept && s.openSubmits > 0 {
			s.openSubmits--
		}
		ids := m.Strings(entry.Job)
		if len(ids) == 0 && jobID != "" && entry.Effect != effList {
			ids = []string{jobID}
		}
		for _, id := range ids {
			j := s.job(id)
			j.opened[entry.Effect] = true
			if hasSID && entry.Effect != effList && len(j.sessions) < maxStreams {
				if j.sessions == nil {
					j.sessions = map[string]bool{}
				}
				j.sessions[sid] = true
			}
			if entry.Effect == effAccept {
				j.acceptedNow = j.acceptedNow || started
			}
			if hasSID && (entry.Effect == effAccept || entry.Effect == effSubscribe) {
				addSession(&j.acceptedIn, &j.subscribers, entry.Effect == effAccept, sid)
			}
			if entry.Effect == effSubscribe && j.lease == nil {
				j.lease = s.leaseOf(m, entry)
			}
			if entry.Effect == effSubscribe && entry.Agent != "" {
				if a, ok := m.String(entry.Agent); ok {
					s.resolved(m, j, id, a, entry.Agent)
				}
			}
		}
		if entry.Effect == effList {
			s.listed(m, entry)
		}
	}

	// Requests and their answers; values bounded by the sequence.
	if ss != nil {
		for _, r := range s.each(checkAnswers) {
			s.answers(m, r, ss, typ, started)
		}
		for _, r := range s.each(checkBound) {
			if r.Type != typ || !ss.sent || s.lossy {
				continue
			}
			if v, ok := protocol.IntValue(m.At(r.Value)); ok && v > ss.high {
				m.Add(finding.Error, r.ID, r.Value, "acknowledges event_seq %d, but the highest event_seq sent in the session is %d: a client acknowledges only what it received", v, ss.high)
			}
		}
	}
	for _, r := range s.each(checkCompare) {
		if r.Type == typ && (r.Kind == "" || r.Kind == kind) {
			s.compare(m, r)
		}
	}

	if notTerminal || jobID == "" {
		return
	}
	j, _ := s.jobs.Get(jobID)
	forgotten := j == nil && s.jobs.Forgotten(jobID)

	// Terminal messages: one per job; a replay (an event_seq not above the
	// terminal's) is not a second one.
	if entry.Terminal {
		s.each(checkTerminal)
		if j != nil && j.terminal {
			if !(hasSeq && j.termHasSeq && seq <= j.termSeq) {
				if r := s.find(checkTerminal, "twice"); r != nil {
					m.Add(finding.Error, r.ID, "/job_id", "second terminal message for job %s: a job ends with exactly one job.result or job.error", protocol.Quote(jobID))
				}
			}
			return
		}
	} else if j != nil && j.terminal && hasSeq && !replay && (!j.termHasSeq || seq > j.termSeq) {
		for _, r := range s.each(checkTerminal) {
			if r.Finding == "after" && r.AppliesTo(typ) {
				m.Add(finding.Error, r.ID, "/job_id", "%s for job %s after its terminal message (event_seq %d): an ended job sends nothing more", typ, protocol.Quote(jobID), j.termSeq)
			}
		}
	}

	// Job messages need a job the session knows.
	for _, r := range s.each(checkJobOpen) {
		if !r.AppliesTo(typ) || !started || forgotten || replay {
			continue
		}
		id := jobID
		if r.Job != "" {
			id, _ = m.String(r.Job)
		}
		if id == "" {
			continue
		}
		if jj, _ := s.jobs.Get(id); jj != nil && opened(jj, r.OpenedBy) {
			continue
		}
		if s.stateDeviation(m, r.ID, typ) {
			continue
		}
		m.Add(finding.Error, r.ID, "/job_id", "%s for job %s, which this session never accepted, subscribed to or resumed: job messages belong to the session's own jobs", typ, protocol.Quote(id))
	}

	j = s.job(jobID)
	if kind != "" {
		s.rotated(m, typ, kind, j, jobID, replay)
	}
	if entry.Terminal {
		s.leaseEnd(m, entry, j, replay)
		s.outcome(m, entry, j, replay)
		s.streamResult(m, j, typ, replay)
		j.terminal = true
		j.termSeq, j.termHasSeq = seq, hasSeq
	}
	for _, r := range s.each(checkChunks) {
		if r.Type == typ && (r.Kind == "" || r.Kind == kind) && !replay {
			s.chunk(m, r, j, started)
			break
		}
	}
	if kind != "" && j.lease != nil {
		if ev := s.set.t.Event(kind); ev != nil && ev.Effect != "" {
			s.leaseEvent(m, entry, ev, j, replay)
		}
	}
}

// resume restarts a session's sequence at the last event_seq the client
// processed; the session and its jobs began before (or on another
// connection).
func (s *state) resume(m *protocol.Message, sid string, seqPtr string) {
	ss := s.session(sid)
	ss.gapSeq, ss.ackLine = 0, 0
	if seqPtr == "" {
		return
	}
	if seq, ok := protocol.IntValue(m.At(seqPtr)); ok {
		ss.last[false] = seq
		if !ss.sent || seq > ss.high {
			ss.high, ss.sent = seq, true
		}
	}
}

func opened(j *job, by []string) bool {
	for _, e := range by {
		if j.opened[e] {
			return true
		}
	}
	return false
}

// stateDeviation reports a rule's finding as the known SDK behaviour that
// explains it, when a deviation names that rule and (if it answers a
// request type) a submit is outstanding.
func (s *state) stateDeviation(m *protocol.Message, rule, typ string) bool {
	for _, d := range s.set.t.Deviations {
		if d.Detect.State != rule {
			continue
		}
		okType := false
		for _, t := range d.MessageTypes {
			okType = okType || t == typ
		}
		if !okType || (d.Detect.Answers != "" && s.openSubmits == 0) {
			continue
		}
		if d.Detect.Answers != "" {
			s.openSubmits--
		}
		if s.firstDeviation(d.ID) {
			m.Add(finding.Warning, finding.RuleDeviationPrefix+d.ID, d.Pointer, "%s dialect: %s for a job that was never accepted, where canonical ARCP v1.1 answers with %s. %s%s", d.SDK, typ, d.Canonical, d.Note, onceNote)
		}
		return true
	}
	return false
}

// features checks a message type, event kind or member gated by a feature
// against the session's negotiated features.
func (s *state) features(m *protocol.Message, r *registry.ARCPRule, ss *session, entry *registry.ARCPMessage, typ, kind string) {
	t := s.set.t
	if entry.Feature != "" && !ss.features[entry.Feature] {
		m.Add(finding.Error, r.ID, "/type", "%s needs the %q feature, which was not negotiated (hello and welcome share: %s)", typ, entry.Feature, featureList(ss.features))
	}
	if ev := t.Event(kind); ev != nil && ev.Feature != "" && !ss.features[ev.Feature] {
		m.Add(finding.Error, r.ID, "/payload/kind", "%s events need the %q feature, which was not negotiated (hello and welcome share: %s)", kind, ev.Feature, featureList(ss.features))
	}
	for _, ff := range t.FieldFeatures {
		if ff.Type != typ || ss.features[ff.Feature] {
			continue
		}
		for _, f := range m.Resolve(ff.Pointer) {
			if ff.HasPattern() {
				str, ok := f.Value.(string)
				if !ok || !ff.Match(str) {
					continue
				}
			}
			m.Add(finding.Error, r.ID, protocol.Pointer(f.Loc), "%s needs the %q feature, which was not negotiated (hello and welcome share: %s)", memberName(f.Loc), ff.Feature, featureList(ss.features))
			break
		}
	}
}

// answers follows one request/answer pair of a session: a request of type
// r.Request is outstanding under its key until an answer of type r.Type
// names it; an answer that names none is reported in a session whose start
// is in the trace.
func (s *state) answers(m *protocol.Message, r *registry.ARCPRule, ss *session, typ string, started bool) {
	key := func(ptr string) (string, bool) {
		if ptr == "" {
			return "", true
		}
		return m.String(ptr)
	}
	p := ss.pending[r.ID]
	if typ == r.Request {
		if k, ok := key(r.RequestKey); ok {
			if p == nil {
				p = protocol.NewRecent[int](maxPending)
				ss.pending[r.ID] = p
			}
			n, _ := p.Get(k)
			p.Put(k, n+1)
			a := ss.asked[r.ID]
			if a == nil {
				a = protocol.NewRecent[int](maxPending)
				ss.asked[r.ID] = a
			}
			a.Put(k, m.Line)
		}
	}
	if typ != r.Type {
		return
	}
	k, ok := key(r.Key)
	if !ok {
		return
	}
	if p != nil {
		if n, _ := p.Get(k); n > 0 {
			if a := ss.asked[r.ID]; a != nil {
				m.Answers, _ = a.Get(k)
			}
			if n == 1 {
				p.Delete(k)
			} else {
				p.Put(k, n-1)
			}
			return
		}
		if p.Forgotten(k) {
			return
		}
	}
	if !started {
		return
	}
	ptr := r.Key
	if ptr == "" {
		m.Add(finding.Error, r.ID, "/type", "%s answers no %s of this session: it is sent only in reply to one", typ, r.Request)
		return
	}
	m.Add(finding.Error, r.ID, ptr, "%s names %s, but no %s of this session with that %s is waiting for an answer", typ, protocol.Quote(k), r.Request, r.RequestKey)
}

// compare checks Left Op Right when both numbers are present.
func (s *state) compare(m *protocol.Message, r *registry.ARCPRule) {
	lv := m.At(r.Left)
	rv := m.At(r.Right)
	c, both := compareNumbers(lv, rv)
	if !both {
		return
	}
	ok := true
	switch r.Op {
	case "<=":
		ok = c <= 0
	case "<":
		ok = c < 0
	case ">=":
		ok = c >= 0
	case ">":
		ok = c > 0
	}
	if !ok {
		m.Add(finding.Error, r.ID, r.Left, "%s is %s and %s is %s: ARCP v1.1 §%s wants %s %s %s", memberName(protocol.SplitPointer(r.Left)), protocol.Display(lv), r.Right, protocol.Display(rv), r.Section, r.Left, r.Op, r.Right)
	}
}

// compareNumbers compares two JSON numbers exactly (-1, 0, 1), and reports
// whether both are numbers it reads. Integers that fit an int64, the usual
// case, are compared as such; others as exact rationals.
func compareNumbers(a, b any) (int, bool) {
	an, aok := a.(json.Number)
	bn, bok := b.(json.Number)
	if !aok || !bok {
		return 0, false
	}
	ai, aerr := strconv.ParseInt(string(an), 10, 64)
	bi, berr := strconv.ParseInt(string(bn), 10, 64)
	if aerr == nil && berr == nil {
		return cmp.Compare(ai, bi), true
	}
	l, okL := number(an)
	r, okR := number(bn)
	if !okL || !okR {
		return 0, false
	}
	return l.Cmp(r), true
}

// number reads a JSON number exactly. Its cost stays bounded: at most 128
// characters, and an exponent of at most three digits.
func number(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok || len(n) > 128 {
		return nil, false
	}
	if i := strings.IndexAny(string(n), "eE"); i >= 0 && len(strings.TrimLeft(string(n[i+1:]), "+-")) > 3 {
		return nil, false
	}
	return new(big.Rat).SetString(string(n))
}

// chunk follows one result_chunk: indexes 0, 1, 2… per result id, nothing
// after the chunk with more: false.
func (s *state) chunk(m *protocol.Message, r *registry.ARCPRule, j *job, started bool) {
	rid, ok := m.String(r.Result)
	if !ok {
		return
	}
	idx, ok := protocol.IntValue(m.At(r.Index))
	if !ok {
		return
	}
	more, _ := m.At(r.More).(bool)
	if j.streams == nil {
		j.streams = map[string]*stream{}
	}
	st := j.streams[rid]
	gap := s.find(checkChunks, "gap")
	switch {
	case st == nil:
		if len(j.streams) >= maxStreams {
			return
		}
		st = &stream{}
		j.streams[rid] = st
		// The first chunk seen is 0, unless the trace joined the
		// stream late (a subscription, a resume, a cut capture).
		if idx != 0 && gap != nil && started && j.acceptedNow && !s.lossy {
			m.Add(finding.Error, gap.ID, r.Index, "chunk_seq %d is the first chunk of result %s, which starts at 0: chunks 0 to %d are missing", idx, protocol.Quote(rid), idx-1)
		}
	case st.closed:
		if after := s.find(checkChunks, "after-last"); after != nil {
			m.Add(finding.Error, after.ID, r.Result, "a chunk of result %s after its last chunk (more: false): the result was complete", protocol.Quote(rid))
		}
	case idx != st.next && gap != nil && !s.lossy:
		what := fmt.Sprintf("chunk %d is missing", st.next)
		if idx > st.next+1 {
			what = fmt.Sprintf("chunks %d to %d are missing", st.next, idx-1)
		} else if idx < st.next {
			what = fmt.Sprintf("chunk %d was already sent", idx)
		}
		m.Add(finding.Error, gap.ID, r.Index, "chunk_seq %d of result %s where %d comes next: %s; chunks are numbered 0, 1, 2… in order", idx, protocol.Quote(rid), st.next, what)
	}
	st.next = idx + 1
	if !more {
		st.closed = true
	}
}

// streamResult checks a terminal message of a job that streamed its
// result: it carries the streamed result's id, the stream is complete, and
// no inline result is mixed in.
func (s *state) streamResult(m *protocol.Message, j *job, typ string, replay bool) {
	if len(j.streams) == 0 || replay {
		return
	}
	var rs []*registry.ARCPRule
	for _, r := range s.each(checkStreamResult) {
		if r.Type == typ {
			rs = append(rs, r)
		}
	}
	get := func(f string) *registry.ARCPRule {
		for _, r := range rs {
			if r.Finding == f {
				return r
			}
		}
		return nil
	}
	if r := get("inline"); r != nil {
		for _, p := range r.Inline {
			if m.At(p) != nil {
				m.Add(finding.Error, r.ID, p, "an inline result after result_chunk events: a job streams its result or sends it inline, never both")
				return
			}
		}
	}
	var ptr string
	for _, r := range rs {
		ptr = r.Result
	}
	if ptr == "" {
		return
	}
	rid, has := m.String(ptr)
	if !has {
		if r := get("missing"); r != nil {
			m.Add(finding.Error, r.ID, parent(ptr), "%s ends a result streamed in result_chunk events, so it must carry %s", typ, ptr)
		}
		return
	}
	st := j.streams[rid]
	if st == nil {
		if r := get("unknown"); r != nil && len(j.streams) < maxStreams {
			m.Add(finding.Error, r.ID, ptr, "result_id %s is not the id of this job's result_chunk events (%s): it must reference the streamed result", protocol.Quote(rid), sortedSet(streamIDs(j)))
		}
		return
	}
	if r := get("open"); r != nil && !st.closed && !s.lossy {
		m.Add(finding.Error, r.ID, ptr, "result %s is referenced before its last chunk (more: false) was sent: chunk %d was the last, and more chunks were announced", protocol.Quote(rid), st.next-1)
	}
}

func streamIDs(j *job) []string { return mapKeys(j.streams) }

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// parent is the pointer to the object holding ptr's member.
func parent(ptr string) string {
	toks := protocol.SplitPointer(ptr)
	if len(toks) == 0 {
		return ""
	}
	return protocol.Pointer(toks[:len(toks)-1])
}

func (s *state) knownSessions() []string { return s.sessions.Keys() }

// stringSet turns a list of strings into a set.
func stringSet(l []any) map[string]bool {
	out := make(map[string]bool, len(l))
	for _, f := range l {
		if fs, ok := f.(string); ok {
			out[fs] = true
		}
	}
	return out
}

// memberName names the member at loc for a message whose pointer already
// says where it is: "lease_constraints" rather than the pointer again.
func memberName(loc []string) string {
	if len(loc) == 0 {
		return "the message"
	}
	return protocol.Quote(loc[len(loc)-1])
}
