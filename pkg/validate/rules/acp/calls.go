package acp

import (
	"strings"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// This file handles a call: a request or a notification of a method the
// version knows, from its sender and shape to the request kept for its
// answer.

// call handles a request (hasID) or a notification, name found at at;
// idAt is the node of its id.
func (s *state) call(m *protocol.Message, name string, at methodAt, idAt int, hasID bool) {
	m.Label = name
	f := s.find(name, at, hasID)
	if !hasID && m.Dir != "" {
		s.noteNotified(m, name)
	}
	entry, ext := f.entry, f.ext
	if entry == nil {
		s.unknownMethod(m, name, idAt, hasID)
		return
	}
	if ext != nil && s.once("method "+name) {
		m.Add(finding.Warning, finding.RuleUnstable, "/method", "%s is not part of %s but of %s: a peer that implements only the stable protocol answers \"method not found\" (a notification it ignores); --dialect %s accepts it silently", protocol.Quote(name), s.t.v.Title, ext.v.Title, ext.v.Name)
	}
	dir := s.sender(m, entry, name)
	hasParams := s.callShape(m, entry, name, f.wrongKind)
	// The state follows the widest table: an extension's entry for the
	// same method may add effects (a child session its new variant
	// announces). Schemas stay those of the entry found.
	eff := f.eff
	// On the stack: only a request that awaits its answer is kept.
	req := &request{line: m.Line, dir: dir, name: name, m: entry, eff: eff}
	requestScope(m, req, &eff.Effects, hasID)
	s.initOrder(m, eff, entry, name, dir, hasParams, hasID)
	if s.stateful() {
		if r := eff.Effects.InitRow; r != "" {
			s.exercise(r)
		}
		s.capability(m, eff)
		s.sessionRules(m, eff, req, hasID)
		if p := eff.Effects.OffersOptions; p != "" {
			req.options = m.Strings(p)
		}
	}
	if eff.Effects.CreatesSession != "" {
		s.creating++
	}
	var kept *request // the request as kept, for what its answer checks
	if hasID && readableID(&m.Doc, idAt) {
		kept = s.keep(m, req, eff, idAt, dir)
	}
	if s.stateful() {
		s.behaviour(m, eff, kept)
		s.conduct(m, eff, kept)
	}
}

// noteNotified remembers the last notification each side sent.
func (s *state) noteNotified(m *protocol.Message, name string) {
	if s.notified == nil {
		s.notified = map[string]lastNotif{}
	}
	s.notified[m.Dir] = lastNotif{name, m.Line}
}

// sender is the side that sent a call: the sidecar says who sent the
// line; without it, the method table says who may. A sidecar that
// contradicts the table is reported.
func (s *state) sender(m *protocol.Message, entry *method, name string) string {
	dir := m.Dir
	if entry.Handler != registry.HandlerBoth {
		s.exercise(reqMethodSide)
	}
	switch entry.Handler {
	case registry.HandlerAgent:
		if dir == a2c {
			m.Add(finding.Error, RuleDirection, "/method", "%s is handled by the agent, so only the client sends it, but the direction sidecar says this line goes from agent to client", name)
		} else {
			dir = c2a
		}
	case registry.HandlerClient:
		if dir == c2a {
			m.Add(finding.Error, RuleDirection, "/method", "%s is handled by the client, so only the agent sends it, but the direction sidecar says this line goes from client to agent", name)
		} else {
			dir = a2c
		}
	}
	m.From = sideOf(dir)
	return dir
}

// callShape checks that a call is the kind its method is (a request with
// an id, a notification without) and has the params its method needs,
// adds the params check, and reports whether the call has params.
func (s *state) callShape(m *protocol.Message, entry *method, name string, wrongKind bool) bool {
	if wrongKind && entry.Kind == registry.KindNotification {
		m.Add(finding.Error, finding.RuleSchema, "/id", "%s is a notification: it must not carry an \"id\" (a receiver sends no answer)", name)
	}
	if wrongKind && entry.Kind == registry.KindRequest {
		m.Add(finding.Error, finding.RuleSchema, "", "%s is a request: it needs an \"id\", which the answer repeats", name)
	}
	hasParams := m.Has("/params")
	if entry.params != nil {
		m.RTSchema, m.RTPointer = entry.params.ID, "/params"
		if !hasParams {
			m.Add(finding.Error, finding.RuleSchema, "/params", "%s needs \"params\" (acp: %s)", name, entry.Params)
		} else {
			s.exercise(reqNoRootFields)
			m.Checks = append(m.Checks, s.withExt(m, protocol.Check{Schema: entry.params, Loc: s.t.atParams, Ptr: s.t.ptrParams, NearMiss: true, Closed: true}, entry, func(x *method) *protocol.Schema { return x.params }, "params"))
		}
	}
	return hasParams
}

// requestScope notes in req the session a request names, where its
// answer's checks need it, and the session it closes.
func requestScope(m *protocol.Message, req *request, ef *registry.ACPEffects, hasID bool) {
	if hasID && (ef.StartsTurn != "" || ef.CancelledOutcome != nil || ef.Replay != "" || ef.ConfigOptions != nil || ef.BlocksTurn != "") {
		// The answer's checks need the session the request names.
		for _, p := range [...]string{ef.Session, ef.AdoptsSession, ef.StartsTurn} {
			if p != "" && req.sid == "" {
				req.sid, _ = m.String(p)
			}
		}
	}
	if p := ef.ClosesSession; p != "" {
		req.closes, req.closing = m.String("/params" + strings.TrimPrefix(p, "/params"))
	}
}

// initOrder follows initialize: what the client advertised in it, and a
// call sent before it (or, by the client, before its answer), reported
// once.
func (s *state) initOrder(m *protocol.Message, eff, entry *method, name, dir string, hasParams, hasID bool) {
	switch {
	case eff.Effects.Initializes:
		s.initialized = true
		s.clientInit, _ = m.At("/params").(map[string]any)
		if !hasParams && entry.params != nil {
			// Missing (and reported): they advertise nothing.
			s.clientInit = map[string]any{}
		}
	case !s.initialized && !s.warnedInit && !s.midSession && s.stateful():
		// Once: later messages would repeat the same news.
		s.warnedInit = true
		s.exercise(reqInitFirst)
		m.Breach(s.initRow(eff), finding.Error, RuleNotInitialized, "/method", "%s before initialize: the client must send initialize first, and nothing else may be exchanged until it is answered (later messages before initialize are not reported again)", name)
	case s.initialized && !s.initAnswered && !s.warnedInit && hasID && dir == c2a && s.stateful():
		s.warnedInit = true
		m.Breach(s.initRow(eff), finding.Error, RuleNotInitialized, "/method", "%s before initialize was answered: the client waits for the agent's answer, which names the version and capabilities the connection has, before it sends anything else (later messages are not reported again)", name)
	}
}

// keep keeps a copy of a request that awaits its answer, under its id as
// dir's, and returns it (nil if the id makes no key).
func (s *state) keep(m *protocol.Message, req *request, eff *method, idAt int, dir string) *request {
	k, ok := s.idKey(dir, m, idAt)
	if !ok {
		return nil
	}
	kept := new(request)
	*kept = *req
	if eff.Effects.Terminal != nil && kept.sid == "" && eff.Effects.Session != "" {
		// Its answer's terminal belongs to the session.
		kept.sid, _ = m.String(eff.Effects.Session)
	}
	if s.stateful() {
		prev, _ := s.pending.GetBytes(k)
		s.pendingReused(m, prev, kept)
	}
	s.pending.Put(string(k), kept)
	return kept
}

// initRow is the row a method sent too early breaks: its own (effect
// InitRow), else the handshake's. The method's own row is in play
// whenever it is sent.
func (s *state) initRow(eff *method) string {
	if r := eff.Effects.InitRow; r != "" {
		return r
	}
	return reqInitFirst
}
