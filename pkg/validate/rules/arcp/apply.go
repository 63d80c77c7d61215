package arcp

import (
	"fmt"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// This file is apply: the effects and rules of the table on one message,
// in the order they run. The connection's messages are in connection.go,
// the jobs' in jobs.go.

// step is what apply knows of the message it judges.
type step struct {
	entry     *registry.ARCPMessage
	typ, kind string

	sid     string
	hasSID  bool
	known   bool     // a message before this one named its session
	ss      *session // the session it carries, nil if none
	started bool     // its session started in the trace, and no line was lost
	jobID   string

	seq    int64 // its event_seq (the last one, when it is out of order)
	hasSeq bool  // it carries the event_seq of a sequenced message
	replay bool  // its event_seq is not above the highest the session sent
}

// apply runs the effects and rules of the table on one message.
func (s *state) apply(m *protocol.Message, typ, kind string, notTerminal bool) {
	entry := s.set.t.Message(typ)
	if entry == nil {
		return
	}
	s.uniqueID(m)
	s.unsequenced(m, entry, typ)
	s.format(m, typ)
	s.clock(m, entry)
	if s.connection(m, entry, typ) {
		return
	}
	var st step // on the stack: a message costs no allocation of it
	s.scope(&st, m, entry, typ, kind)
	s.sessionRules(m, &st)
	s.sequence(m, &st)
	if st.ss != nil {
		s.acked(m, st.ss, typ)
		s.versioned(m, st.ss, typ)
	}
	s.jobEffects(m, &st)
	s.requests(m, &st)
	if notTerminal || st.jobID == "" {
		return
	}
	s.jobRules(m, &st)
}

// scope finds the session and job a message belongs to, into st.
func (s *state) scope(st *step, m *protocol.Message, entry *registry.ARCPMessage, typ, kind string) {
	*st = step{entry: entry, typ: typ, kind: kind}
	st.sid, st.hasSID = m.String("/session_id")
	_, st.known = s.sessions.Get(st.sid)
	if st.hasSID {
		st.ss = s.session(st.sid)
	}
	st.started = st.ss != nil && st.ss.started && !s.lossy
	st.jobID, _ = m.String("/job_id")
}

// sessionRules applies the rules of the session a message carries: the
// end of its connection, its requests, heartbeats, its id and its
// negotiated features.
func (s *state) sessionRules(m *protocol.Message, st *step) {
	if ss := st.ss; ss != nil {
		s.ended(m, ss, st.typ)
		if st.entry.Effect == effEnd {
			ss.endedAt = m.Line
		}
		s.closeRequests(m, ss, st.sid, st.typ)
		s.heartbeat(m, ss, st.entry, st.typ)
	}
	if r := s.find(checkSession, ""); r != nil && st.hasSID {
		s.sessionID(m, r, st)
	}
	if r := s.find(checkFeatures, ""); r != nil && st.ss != nil && st.ss.features != nil {
		s.features(m, r, st.ss, st.entry, st.typ, st.kind)
	}
}

// sessionID checks that session ids are those the runtime announced, and
// that a job's messages carry the session the job was accepted in.
func (s *state) sessionID(m *protocol.Message, r *registry.ARCPRule, st *step) {
	sid, jobID, effect := st.sid, st.jobID, st.entry.Effect
	if s.welcomed && !st.known {
		m.Add(finding.Error, r.ID, "/session_id", "session_id %s differs from every session a welcome announced (%s): every message of a session carries its id", protocol.Quote(sid), sortedSet(s.knownSessions()))
	} else if j, _ := s.jobs.Get(jobID); jobID != "" && effect != effAccept && effect != effSubscribe && j != nil && len(j.sessions) > 0 && !j.sessions[sid] {
		// (An accept places the job: an idempotent retry may accept
		// the same job again in a new session; a subscription
		// attaches it to the subscriber's session.)
		m.Add(finding.Error, r.ID, "/session_id", "job %s belongs to session %s, which accepted or subscribed to it, but this message carries session_id %s", protocol.Quote(jobID), sortedSet(mapKeys(j.sessions)), protocol.Quote(sid))
	}
}

// sequence follows event_seq: strictly increasing and gap-free per session
// and sending side; a value not above the highest seen is a replay.
func (s *state) sequence(m *protocol.Message, st *step) {
	st.seq, st.hasSeq = protocol.IntValue(m.At("/event_seq"))
	st.hasSeq = st.hasSeq && st.entry.Sequenced
	ss := st.ss
	if !st.hasSeq || ss == nil {
		return
	}
	client := st.entry.Direction == "client"
	st.replay = ss.sent && st.seq <= ss.high
	if last, seen := ss.last[client]; seen {
		st.seq = s.nextSeq(m, ss, client, last, st.seq)
	}
	ss.last[client] = st.seq
	if !client {
		ss.sinceAck++
	}
	if !client && (!ss.sent || st.seq > ss.high) {
		ss.high, ss.sent = st.seq, true
	}
}

// nextSeq checks an event_seq against the side's last one, and returns the
// value the sequence goes on from: the last one, if seq is out of order.
func (s *state) nextSeq(m *protocol.Message, ss *session, client bool, last, seq int64) int64 {
	s.each(checkSequence)
	switch {
	case seq <= last:
		if r := s.find(checkSequence, "order"); r != nil {
			m.Add(finding.Error, r.ID, "/event_seq", "event_seq %d after %d: the session's sequence must strictly increase", seq, last)
		}
		return last
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
	return seq
}

// requests pairs requests with their answers, checks values bounded by
// the sequence, and compares the numbers a rule relates.
func (s *state) requests(m *protocol.Message, st *step) {
	if ss := st.ss; ss != nil {
		for _, r := range s.each(checkAnswers) {
			s.answers(m, r, ss, st.typ, st.started)
		}
		for _, r := range s.each(checkBound) {
			if r.Type != st.typ || !ss.sent || s.lossy {
				continue
			}
			if v, ok := protocol.IntValue(m.At(r.Value)); ok && v > ss.high {
				m.Add(finding.Error, r.ID, r.Value, "acknowledges event_seq %d, but the highest event_seq sent in the session is %d: a client acknowledges only what it received", v, ss.high)
			}
		}
	}
	for _, r := range s.each(checkCompare) {
		if r.Type == st.typ && (r.Kind == "" || r.Kind == st.kind) {
			s.compare(m, r)
		}
	}
}
