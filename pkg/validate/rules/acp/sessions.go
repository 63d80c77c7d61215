package acp

// What a message does to the sessions and tool calls the state follows,
// and what the capabilities of each side permit it to call.

import (
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/suggest"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// capability checks that the peer advertised what a method needs: a peer
// must not call a method whose capability the other side did not set.
func (s *state) capability(m *protocol.Message, entry *method) {
	check := func(ptr, what, at string) {
		var init map[string]any
		var who, from string
		if entry.Handler == registry.HandlerClient {
			init, who, from = s.clientInit, "client", "initialize request's params"
		} else {
			init, who, from = s.agentInit, "agent", "initialize response's result"
		}
		if init == nil || entry.Handler == registry.HandlerBoth {
			return // not seen: the trace began after initialization
		}
		s.exercise(gateRow(ptr))
		if protocol.Truthy(protocol.At(init, ptr)) {
			return
		}
		m.Breach(gateRow(ptr), finding.Error, RuleCapability, at, "%s needs the %s capability %s, which the %s does not set; a peer must not call it unless it is advertised", what, who, ptr, from)
	}
	if entry.Capability != "" {
		check(entry.Capability, entry.Method, "/method")
	}
	if c := entry.Effects.CapabilityByValue; c != nil {
		if v, ok := m.String(c.Value); ok && len(v) <= suggest.MaxName {
			check(strings.ReplaceAll(c.Capability, "{}", v), fmt.Sprintf("%s with %s %s", entry.Method, c.Value, protocol.Quote(v)), c.Value)
		}
	}
}

// sessionRules applies the method's session and tool-call effects.
func (s *state) sessionRules(m *protocol.Message, entry *method, req *request, hasID bool) {
	ef := &entry.Effects
	if p := ef.AdoptsSession; p != "" {
		// A session from before the trace (or from another connection)
		// that the request brings in: known from here on.
		if sid, ok := m.String(p); ok {
			s.known(sid)
		}
	}
	for i, se := range ef.Sessions {
		if !when(m, entry.sessionWhen[i]) {
			continue
		}
		if sid, ok := m.String(se.Creates); ok {
			if _, known := s.sessions.Get(sid); !known {
				s.sessions.Put(sid, &session{fresh: true, setUp: true, toolCalls: protocol.NewRecent[uint8](maxToolCalls)})
			}
		}
	}
	if ef.Session == "" {
		return
	}
	sidBytes, ok := m.StringBytes(ef.Session)
	if !ok {
		return
	}
	s.exercise(reqSessionKnown)
	sess, known := s.sessions.GetBytes(sidBytes)
	if !known {
		sid := string(sidBytes)
		switch {
		case hasID:
			// The receiver decides: an error answer refuses it
			// properly, a result shows the session existed.
			req.adopt = sid
			return
		case s.midSession || s.creating > 0 || s.lossy:
			// From before the capture, a session whose creation is
			// still being answered, or one an unreadable line may
			// have introduced.
		case s.sessions.Forgotten(sid):
			s.windowNote(m, ef.Session)
		default:
			m.Add(finding.Error, RuleUnknownSession, ef.Session, "unknown session %s: no answer to a request that creates, loads, resumes, forks or lists sessions introduced it in this trace", protocol.Quote(sid))
		}
		sess = s.known(sid)
	}
	for i := range ef.ToolCalls {
		tc := &ef.ToolCalls[i]
		if !when(m, entry.toolCallWhen[i]) {
			continue
		}
		if tc.Creates != "" {
			if id, ok := m.String(tc.Creates); ok && sess.fresh {
				_, had := sess.toolCalls.Get(id)
				if tc.Unique {
					s.exercise(reqToolCallUnique)
				}
				if had && tc.Unique && !s.lossy {
					m.Breach(reqToolCallUnique, finding.Warning, RuleIDs, tc.Creates, "tool call %s was announced before in session %s: a tool_call announces a new tool call, whose id is unique within the session; later news of it is a tool_call_update", protocol.Quote(clip(id)), protocol.Quote(string(sidBytes)))
				}
				if !had {
					sess.toolCalls.Put(id, toolSeen)
				}
				if idb, ok := m.StringBytes(tc.Creates); ok {
					s.toolStatus(m, tc, sess, idb, id, !had)
				}
			}
			continue
		}
		idBytes, ok := m.StringBytes(tc.Updates)
		if ok {
			s.exercise(reqToolCallKnown)
		}
		if !ok || !sess.fresh || s.lossy {
			continue // a session whose history began before the trace, or a line lost
		}
		if _, seen := sess.toolCalls.GetBytes(idBytes); seen {
			s.toolStatus(m, tc, sess, idBytes, "", false)
			continue
		}
		id := string(idBytes)
		if sess.toolCalls.Forgotten(id) {
			s.windowNote(m, tc.Updates)
		} else {
			m.Add(finding.Error, RuleUnknownToolCall, tc.Updates, "update of unknown tool call %s: announce it first (a tool_call update) in session %s", protocol.Quote(id), protocol.Quote(string(sidBytes)))
		}
		sess.toolCalls.Put(id, toolSeen) // report it once
	}
}

// when reports whether every condition holds.
func when(m *protocol.Message, cs []cond) bool {
	for _, c := range cs {
		if !m.StringIs(c.ptr, c.want) {
			return false
		}
	}
	return true
}

// known makes a session known (whose history began elsewhere) and returns
// it.
func (s *state) known(sid string) *session {
	sess, ok := s.sessions.Get(sid)
	if !ok {
		sess = &session{}
		s.sessions.Put(sid, sess)
	}
	return sess
}

// windowNote says once that a check was skipped because the state had to
// forget old entries to stay bounded.
func (s *state) windowNote(m *protocol.Message, ptr string) {
	if s.once("window") {
		m.Add(finding.Warning, finding.RuleStateWindow, ptr, "this trace holds more sessions, tool calls or requests than the validator remembers one by one; ids it had to forget are not reported as unknown, and a few checks on them were skipped")
	}
}
