package arcp

import (
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// This file applies the effects of the messages that make, refuse, cancel
// and list jobs, and the rules of a job's own messages: one terminal
// message, a job the session knows, its credentials, lease and chunks.

// jobEffects applies a message's effect on jobs.
func (s *state) jobEffects(m *protocol.Message, st *step) {
	switch st.entry.Effect {
	case effSubmit:
		s.future(m, st.typ)
		s.openSubmits++
		if st.ss != nil {
			s.submitted(m, st.ss, st.entry)
		}
	case effRefuse:
		if s.openSubmits > 0 {
			s.openSubmits--
		}
		if st.ss != nil {
			s.refused(m, st.ss, st.entry)
		}
	case effCancel, effCancelled:
		if st.hasSID {
			s.cancel(m, st.ss, st.sid, st.entry, st.jobID, st.started)
		}
	case effAccept, effSubscribe, effList:
		s.opens(m, st)
	}
}

// opens applies an acceptance, subscription or listing: the jobs it names
// become known to the session.
func (s *state) opens(m *protocol.Message, st *step) {
	entry := st.entry
	if entry.Effect == effAccept {
		s.accepted(m, st.ss, entry, st.started)
		if s.openSubmits > 0 {
			s.openSubmits--
		}
	}
	ids := m.Strings(entry.Job)
	if len(ids) == 0 && st.jobID != "" && entry.Effect != effList {
		ids = []string{st.jobID}
	}
	for _, id := range ids {
		s.openJob(m, st, id)
	}
	if entry.Effect == effList {
		s.listed(m, entry)
	}
}

// openJob records that the message's effect made job id known.
func (s *state) openJob(m *protocol.Message, st *step, id string) {
	entry, sid := st.entry, st.sid
	j := s.job(id)
	j.opened[entry.Effect] = true
	if st.hasSID && entry.Effect != effList && len(j.sessions) < maxStreams {
		if j.sessions == nil {
			j.sessions = map[string]bool{}
		}
		j.sessions[sid] = true
	}
	if entry.Effect == effAccept {
		j.acceptedNow = j.acceptedNow || st.started
	}
	if st.hasSID && (entry.Effect == effAccept || entry.Effect == effSubscribe) {
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

// jobRules applies the rules of a message that names a job.
func (s *state) jobRules(m *protocol.Message, st *step) {
	j, _ := s.jobs.Get(st.jobID)
	forgotten := j == nil && s.jobs.Forgotten(st.jobID)
	if s.secondTerminal(m, st, j) {
		return
	}
	s.jobOpen(m, st, forgotten)
	s.jobProgress(m, st, s.job(st.jobID))
}

// secondTerminal checks that a job has one terminal message and sends
// nothing after it, and reports whether the message is a second terminal
// one (a replay, an event_seq not above the terminal's, is not). j is the
// job, nil if the trace has not shown it.
func (s *state) secondTerminal(m *protocol.Message, st *step, j *job) bool {
	if st.entry.Terminal {
		s.each(checkTerminal)
		if j == nil || !j.terminal {
			return false
		}
		if !(st.hasSeq && j.termHasSeq && st.seq <= j.termSeq) {
			if r := s.find(checkTerminal, "twice"); r != nil {
				m.Add(finding.Error, r.ID, "/job_id", "second terminal message for job %s: a job ends with exactly one job.result or job.error", protocol.Quote(st.jobID))
			}
		}
		return true
	}
	if j != nil && j.terminal && st.hasSeq && !st.replay && (!j.termHasSeq || st.seq > j.termSeq) {
		for _, r := range s.each(checkTerminal) {
			if r.Finding == "after" && r.AppliesTo(st.typ) {
				m.Add(finding.Error, r.ID, "/job_id", "%s for job %s after its terminal message (event_seq %d): an ended job sends nothing more", st.typ, protocol.Quote(st.jobID), j.termSeq)
			}
		}
	}
	return false
}

// jobOpen checks that job messages name a job the session knows.
func (s *state) jobOpen(m *protocol.Message, st *step, forgotten bool) {
	for _, r := range s.each(checkJobOpen) {
		if !r.AppliesTo(st.typ) || !st.started || forgotten || st.replay {
			continue
		}
		id := st.jobID
		if r.Job != "" {
			id, _ = m.String(r.Job)
		}
		if id == "" {
			continue
		}
		if jj, _ := s.jobs.Get(id); jj != nil && opened(jj, r.OpenedBy) {
			continue
		}
		if s.stateDeviation(m, r.ID, st.typ) {
			continue
		}
		m.Add(finding.Error, r.ID, "/job_id", "%s for job %s, which this session never accepted, subscribed to or resumed: job messages belong to the session's own jobs", st.typ, protocol.Quote(id))
	}
}

// jobProgress follows what a job's message tells of the job: rotated
// credentials, its end, its streamed results and its lease.
func (s *state) jobProgress(m *protocol.Message, st *step, j *job) {
	typ, kind, replay := st.typ, st.kind, st.replay
	if kind != "" {
		s.rotated(m, typ, kind, j, st.jobID, replay)
	}
	if st.entry.Terminal {
		s.leaseEnd(m, st.entry, j, replay)
		s.outcome(m, st.entry, j, replay)
		s.streamResult(m, j, typ, replay)
		j.terminal = true
		j.termSeq, j.termHasSeq = st.seq, st.hasSeq
	}
	for _, r := range s.each(checkChunks) {
		if r.Type == typ && (r.Kind == "" || r.Kind == kind) && !replay {
			s.chunk(m, r, j, st.started)
			break
		}
	}
	if kind != "" && j.lease != nil {
		if ev := s.set.t.Event(kind); ev != nil && ev.Effect != "" {
			s.leaseEvent(m, st.entry, ev, j, replay)
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
