package acp

// How a response is matched to the request it answers, and what a
// successful answer does to the state.

import (
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// maxAdopted bounds the strings an unknown method's answer may make known.
const maxAdopted = 256

// response matches a response to the request it answers, picks the result
// schema from that request's method and applies the method's effects.
func (s *state) response(m *protocol.Message, idAt int) {
	m.Label = "response"
	m.From = sideOf(m.Dir)
	if m.Doc.Type(idAt) <= jsonscan.Null {
		// JSON-RPC answers with a null id when it could not read the
		// request's id; it answers nothing we can follow.
		if s.stateful() && m.Doc.Type(idAt) == jsonscan.Null {
			s.nullID(m)
		}
		return
	}
	s.exercise(reqAnswerKnownID)
	s.exercise(reqAnswerOnce)
	ids := s.answerable(m, idAt)
	if ids.nc == 0 {
		s.answersNothing(m, idAt, ids.keys[:ids.nk])
		return
	}
	hasResult := m.Has("/result")
	req := s.settle(m, ids.cands[pickRequest(m, ids.cands[:ids.nc], hasResult)], hasResult)
	if req.m == nil {
		s.unknownAnswered(m, req, hasResult)
		return
	}
	m.Label = req.m.responseLabel
	if m.Has("/error") && !hasResult {
		m.Label = req.m.errorLabel
		if s.stateful() {
			s.answeredError(m, req)
			if req.eff.Effects.Initializes {
				s.initAnswered = true
			}
		}
		return
	}
	if !hasResult {
		return
	}
	if req.m.result != nil {
		s.checkResult(m, req)
	}
	if !s.stateful() {
		return
	}
	s.answeredEffects(m, req)
	s.answeredBehaviour(m, req)
	s.conductAnswer(m, req)
	if req.eff.Effects.Initializes {
		s.initAnswered = true
	}
}

// candidate is a pending request a response's id may answer, under its key.
type candidate struct {
	key []byte
	req *request
}

// answerIDs are the keys of a response's id as each side's, read from the
// line's bytes, and the pending requests under them.
type answerIDs struct {
	cands  [3]candidate
	keys   [3][]byte
	nc, nk int
}

// answerable finds the pending requests a response's id may answer: the
// id as the other side's (as each side's, when the direction is unknown).
func (s *state) answerable(m *protocol.Message, idAt int) answerIDs {
	var ids answerIDs
	for _, from := range [...]string{c2a, a2c, ""} {
		if m.Dir != "" && from != opposite(m.Dir) && from != "" {
			continue
		}
		if k, ok := s.idKey(from, m, idAt); ok {
			ids.keys[ids.nk] = k
			ids.nk++
			if r, _ := s.pending.GetBytes(k); r != nil {
				ids.cands[ids.nc] = candidate{k, r}
				ids.nc++
			}
		}
	}
	return ids
}

// answersNothing reports a response whose id no pending request has: a
// second response, one whose request is past the window, or one that
// answers no request.
func (s *state) answersNothing(m *protocol.Message, idAt int, keys [][]byte) {
	for _, k := range keys {
		if _, ok := s.answered.GetBytes(k); ok {
			m.Add(finding.Error, RuleDuplicateResponse, "/id", "second response to request id %s: each request is answered exactly once", protocol.Display(m.Doc.Value(idAt)))
			return
		}
	}
	for _, k := range keys {
		if s.pending.Forgotten(string(k)) || s.answered.Forgotten(string(k)) {
			s.windowNote(m, "/id")
			return
		}
	}
	if (s.initialized || !s.stateful()) && !s.lossy && !s.midSession {
		m.Add(finding.Error, RuleUnansweredResponse, "/id", "response with id %s answers no outstanding request: no request with this id was sent (or it was already answered)", protocol.Display(m.Doc.Value(idAt)))
	}
}

// pickRequest chooses which of the pending requests a response answers.
// Both sides number their requests from 0, so the same id can be
// outstanding in both directions. Take the one request whose result schema
// the result fits; if none fits, the one whose result schema defines more
// of its members; else the newer request: a request made while another
// waits (the agent's while the client's prompt runs) is answered first.
func pickRequest(m *protocol.Message, cands []candidate, hasResult bool) int {
	if len(cands) < 2 {
		return 0
	}
	newer := 0
	if cands[1].req.line > cands[0].req.line {
		newer = 1
	}
	if !hasResult {
		return newer
	}
	result := m.At("/result")
	fits, best, bestOverlap := -1, -1, 0
	for i, c := range cands {
		if c.req.m == nil || c.req.m.result == nil {
			continue
		}
		if c.req.m.result.Valid(result) {
			if fits >= 0 {
				fits = newer // both fit
				break
			}
			fits = i
		}
		if o := c.req.m.result.Overlap(result); o > bestOverlap {
			best, bestOverlap = i, o
		} else if o == bestOverlap && o > 0 {
			best = newer // as close as each other
		}
	}
	switch {
	case fits >= 0:
		return fits
	case best >= 0:
		return best
	}
	return newer
}

// settle records that the response answers the candidate's request (or,
// of two requests of one id, the one twinAnswered picks) and returns that
// request.
func (s *state) settle(m *protocol.Message, c candidate, hasResult bool) *request {
	req := c.req
	key := string(c.key)
	rest := (*request)(nil) // a request of the same id that still awaits its answer
	if req.twin != nil {
		req, rest = s.twinAnswered(m, req, hasResult)
	}
	m.From = sideOf(opposite(req.dir))
	m.Answers = req.line
	if req.eff != nil && req.eff.Effects.Initializes && hasResult {
		s.answeredVersion(m, req)
	}
	if rest != nil {
		s.pending.Put(key, rest)
	} else {
		s.pending.Delete(key)
		s.answered.Put(key, true)
	}
	if req.eff != nil && req.eff.Effects.CreatesSession != "" && s.creating > 0 {
		s.creating--
	}
	return req
}

// unknownAnswered follows the answer to a request of a method the version
// does not know.
func (s *state) unknownAnswered(m *protocol.Message, req *request, hasResult bool) {
	m.Label = "response (unknown method)"
	if s.stateful() && m.Has("/error") && !hasResult {
		s.answeredError(m, req)
	}
	if hasResult && s.stateful() {
		s.answeredUnknown(m, req)
		s.customAnswered(m, req)
	}
	if hasResult {
		// What an extension method (or one this version does not
		// know) creates is not in the tables: every id its answer
		// names may be a session, and is not reported as unknown.
		s.adoptStrings(m.At("/result"), 0)
	}
}

// checkResult checks a result against its method's result schema, and an
// initialize result against the version it settles.
func (s *state) checkResult(m *protocol.Message, req *request) {
	m.RTSchema, m.RTPointer = req.m.result.ID, "/result"
	s.exercise(reqNoRootFields)
	ck := s.withExt(m, protocol.Check{Schema: req.m.result, Loc: s.t.atResult, Ptr: s.t.ptrResult, NearMiss: true, Closed: true}, req.m, func(x *method) *protocol.Schema { return x.result }, "result")
	if req.eff.Effects.Initializes && s.stateful() {
		s.exercise(reqAgreeVersion)
	}
	if req.eff.Effects.Initializes && s.stateful() && s.t.v.WireVersion == 1 {
		if other := s.initializedAs(m, req); other != nil {
			// One cause: the body is another version's, said
			// once, rather than each of its members.
			ck.Skip = func([]string) bool { return true }
			s.otherBody = true
			m.Breach(reqAgreeVersion, finding.Error, RuleVersion, "/result", "the agent answered protocolVersion %d, so this connection speaks %s, but the rest of its answer is %s's initialize result (it fails %s's and passes %s's): once initialize settles a version, both sides follow that version's specification. An agent that supports version %d answers with that version's initialize result; one that does not answers the latest version it supports (%d), and the client decides whether to go on",
				s.t.v.WireVersion, s.t.v.Title, other.Title, s.t.v.Title, other.Title, s.t.v.WireVersion, other.WireVersion)
		}
	}
	m.Checks = append(m.Checks, ck)
}

// adoptStrings makes every string in v known as a session id (a bounded
// number, a bounded depth).
func (s *state) adoptStrings(v any, depth int) int {
	n := 0
	switch v := v.(type) {
	case string:
		if len(v) <= 256 {
			// Made by this connection's extension: set up here.
			s.known(v).setUp = true
			n++
		}
	case map[string]any:
		for _, c := range v {
			if depth < 8 && n < maxAdopted {
				n += s.adoptStrings(c, depth+1)
			}
		}
	case []any:
		for _, c := range v {
			if depth < 8 && n < maxAdopted {
				n += s.adoptStrings(c, depth+1)
			}
		}
	}
	return n
}

// answeredVersion changes the version the trace is read as to the one
// initialize's answer names, if it is another version of ACP and the user
// did not name one: the answer, and all that follows, is of the version the
// agent chose.
func (s *state) answeredVersion(m *protocol.Message, req *request) {
	if s.strict || s.tablesOf == nil || s.t.v.Dialect || s.initAnswered {
		return
	}
	for _, ptr := range req.eff.Effects.VersionAt {
		if !strings.HasPrefix(ptr, "/result/") {
			continue
		}
		n, ok := protocol.IntValue(m.At(ptr))
		if !ok {
			continue
		}
		v := s.reg.ByWireVersion("acp", int(n))
		if v == nil || v == s.t.v || v.WireVersion == s.t.v.WireVersion {
			return
		}
		t, err := s.tablesOf(v)
		if err != nil {
			return
		}
		var ext []*tables
		for _, x := range s.reg.Extensions(v) {
			xt, err := s.tablesOf(x)
			if err != nil {
				return
			}
			ext = append(ext, xt)
		}
		s.t, s.ext, s.tabs, s.found, s.alts = t, ext, nil, nil, nil
		s.why = fmt.Sprintf("initialize response protocolVersion %d, line %d", n, m.Line)
		if e := t.methods[methodKey(req.m.Method, req.m.Kind)]; e != nil {
			req.m, req.eff = e, s.widest(e)
		}
		return
	}
}

// agreed notes that the initialize answer confirms the version the trace
// is read as: the version is the one the answer names, whether or not the
// answer was among the messages the version was first picked from (a live
// check may start before the answer arrives).
func (s *state) agreed(m *protocol.Message, ef *registry.ACPEffects) {
	if !strings.HasPrefix(s.why, "initialize request ") {
		return
	}
	for _, ptr := range ef.VersionAt {
		if !strings.HasPrefix(ptr, "/result/") {
			continue
		}
		if n, ok := protocol.IntValue(m.At(ptr)); ok && int(n) == s.t.v.WireVersion {
			s.why = fmt.Sprintf("initialize response protocolVersion %d, line %d", n, m.Line)
		}
	}
}

// answeredEffects applies what a successful answer does.
func (s *state) answeredEffects(m *protocol.Message, req *request) {
	ef := &req.eff.Effects
	// Pointers into the answer are written /result/...: they are
	// evaluated on the response message itself.
	if ef.Initializes {
		s.agentInit, _ = m.At("/result").(map[string]any)
		s.agreed(m, ef)
	}
	if req.adopt != "" {
		s.known(req.adopt)
	}
	if p := ef.CreatesSession; p != "" {
		if sid, ok := m.String(p); ok {
			if _, known := s.sessions.Get(sid); known {
				m.Breach(reqUniqueSession, finding.Error, RuleDuplicateSession, p, "session id %s is already in use in this trace: each new session gets an id of its own", protocol.Quote(sid))
			}
			s.sessions.Put(sid, &session{fresh: true, setUp: true, toolCalls: protocol.NewRecent[uint8](maxToolCalls)})
		}
	}
	for _, p := range ef.IntroducesSessions {
		for _, sid := range m.Strings(p) {
			s.known(sid)
		}
	}
	if req.closing {
		if sess, ok := s.sessions.Get(req.closes); ok {
			// Closed: its tool calls are no longer needed. Late
			// notifications for it are not reported.
			sess.fresh, sess.toolCalls = false, nil
		}
	}
	if p := ef.ChoosesOption; p != "" {
		opt, ok := m.String(p)
		if !ok {
			return
		}
		s.exercise(reqOfferedOption)
		for _, x := range req.options {
			if x == opt {
				return
			}
		}
		m.Add(finding.Error, RulePermissionOption, p, "option %s was not offered: the request on line %d offered %s", protocol.Quote(opt), req.line, quoteList(req.options))
	}
}

func quoteList(list []string) string {
	if len(list) == 0 {
		return "no options"
	}
	if len(list) > 10 {
		list = append(list[:10:10], "…")
	}
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = protocol.Quote(s)
	}
	return strings.Join(q, ", ")
}

// initializedAs returns the other ACP version whose initialize result the
// answer is, when it is not this version's: an agent that answered this
// version's number with another version's body. Only an answer that fails
// this version's schema is tried against the others.
func (s *state) initializedAs(m *protocol.Message, req *request) *registry.Version {
	res := m.At("/result")
	n, ok := protocol.IntValue(protocol.At(res, "/protocolVersion"))
	if !ok || int(n) != s.t.v.WireVersion || req.m.result.Valid(res) || s.tablesOf == nil {
		return nil
	}
	for _, v := range s.reg.Versions("acp") {
		if v.Dialect || v.Extends != "" || v.WireVersion == 0 || v.WireVersion == s.t.v.WireVersion {
			continue
		}
		t, err := s.tablesOf(v)
		if err != nil {
			continue
		}
		for _, om := range t.methods {
			if om.Effects.Initializes && om.result != nil && om.result.Valid(res) {
				return v
			}
		}
	}
	return nil
}
