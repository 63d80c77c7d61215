package arcp

import (
	"encoding/json"

	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// This file applies the effects of the messages that open, resume or
// answer a connection: hello, resume and welcome.

// connection applies a hello's, resume's or welcome's effect, and reports
// whether the message had one (nothing else of the table applies to it).
func (s *state) connection(m *protocol.Message, entry *registry.ARCPMessage, typ string) bool {
	switch entry.Effect {
	case effHello:
		s.helloSent(m, entry)
	case effResume:
		if rsid, ok := m.String(entry.ResumeSession); ok {
			s.resume(m, rsid, entry.ResumeSeq)
		}
	case effWelcome:
		s.welcome(m, entry, typ)
	default:
		return false
	}
	return true
}

// helloSent starts a connection and keeps what the hello asked for until
// a welcome answers it.
func (s *state) helloSent(m *protocol.Message, entry *registry.ARCPMessage) {
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
}

// welcome answers the hello: the session it announces starts (or goes on)
// on a new connection with what the two sides negotiated.
func (s *state) welcome(m *protocol.Message, entry *registry.ARCPMessage, typ string) {
	if s.hello != nil {
		m.Answers = s.hello.line
	}
	if wsid, ok := m.String(entry.Session); ok {
		s.welcomeSession(m, entry, s.session(wsid), typ)
	}
	s.welcomed = true
	s.hello = nil
}

// welcomeSession records what a welcome tells of its session.
func (s *state) welcomeSession(m *protocol.Message, entry *registry.ARCPMessage, ss *session, typ string) {
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
			s.negotiated(ss, fl)
		}
	}
	s.inventory(m, ss, typ)
}

// negotiated sets the session's features: what both sides listed, when
// the hello is in the trace; else what the welcome says.
func (s *state) negotiated(ss *session, welcomed []any) {
	ss.features = stringSet(welcomed)
	if s.hello != nil && s.hello.offered != nil {
		for f := range ss.features {
			if !s.hello.offered[f] {
				delete(ss.features, f)
			}
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
