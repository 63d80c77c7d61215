package acp

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// This file holds the checks of behaviour the spec requires beyond each
// message's shape: how turns end when cancelled, when history may be
// replayed, how the version is negotiated, what a capability permits to
// offer, and how unknown and advertised methods are answered. Like the
// rest of the package they read the method tables' effects and name no
// method.

// JSON-RPC error codes the checks read.
const (
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// Why a session must stay quiet: after the answer that ended a cancelled
// turn, or after the answer to a load, no conversation entry may come until
// the next turn starts.
const (
	quietNone = iota
	quietCancelled
	quietLoaded
)

// maxAsks bounds the requests a turn is known to wait on; past it, later
// ones are not checked against a cancel.
const maxAsks = 256

// turnState is what a session's turns and replays have left to check.
type turnState struct {
	turn      *request   // the prompt that runs, or nil
	asks      []*request // requests of the agent's the turn waits on
	quiet     int        // quietNone, quietCancelled or quietLoaded
	quietLine int        // the answer that made it quiet
	quietRow  string     // the row a replay after that answer breaks
	resuming  *request   // a resume not yet answered
	config    []string   // the ids of the config options last listed
	hasConfig bool       // config is known
	fg        foreground // the foreground state the session reports
	v2        v2Turn     // what v2's checks of the session's work keep
}

// Peers names the client and the agent from initialize's clientInfo and
// agentInfo.
func (s *state) Peers() []finding.Peer {
	var out []finding.Peer
	for _, p := range []struct {
		side string
		info any
	}{{sideClient, infoOf(s.clientInit, "clientInfo")}, {sideAgent, infoOf(s.agentInit, "agentInfo")}} {
		info, ok := p.info.(map[string]any)
		if !ok {
			continue
		}
		name, _ := info["name"].(string)
		version, _ := info["version"].(string)
		if name == "" && version == "" {
			continue
		}
		out = append(out, finding.Peer{Side: p.side, Name: clip(name), Version: clip(version)})
	}
	return out
}

// infoOf returns the implementation member of an initialize message:
// v1's clientInfo or agentInfo, v2's info.
func infoOf(init map[string]any, v1 string) any {
	if info, ok := init[v1]; ok {
		return info
	}
	return init["info"]
}

// clip bounds a name the trace gives, on a character boundary.
func clip(s string) string {
	if len(s) <= protocol.MaxEcho {
		return s
	}
	n := protocol.MaxEcho
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// turns returns the turn state of the session sid, nil if the session is
// not known.
func (s *state) turns(sid string) *turnState {
	sess, ok := s.sessions.Get(sid)
	if !ok {
		return nil
	}
	if sess.turns == nil {
		sess.turns = &turnState{}
	}
	return sess.turns
}

// turnsAt is turns of the session id at ptr, read without a copy where
// the session has no turn state yet.
func (s *state) turnsAt(m *protocol.Message, ptr string) *turnState {
	sb, ok := m.StringBytes(ptr)
	if !ok {
		return nil
	}
	sess, _ := s.sessions.GetBytes(sb)
	if sess == nil {
		return nil
	}
	if sess.turns == nil {
		sess.turns = &turnState{}
	}
	return sess.turns
}

// behaviour applies the checks of a request or notification, once a
// request is kept (req is the kept request, so that its answer finds what
// the checks note on it; nil for a notification).
func (s *state) behaviour(m *protocol.Message, eff *method, req *request) {
	ef := &eff.Effects
	s.exercise(reqMethodPrefix)
	if req == nil {
		// A notification: that no answer follows it is in play.
		s.exercise(reqNoNotifAnswer)
		s.exercise(reqNullID)
	}
	s.advertises(m, eff.adWhen, "/params/")
	if p := ef.CancelsTurn; p != "" {
		if sid, ok := m.String(p); ok {
			if ts := s.turns(sid); ts != nil {
				s.cancelForeground(ts, eff.Method)
				if ts.turn != nil {
					ts.turn.cancelled, ts.turn.cancelledBy = true, eff.Method
				}
				for _, a := range ts.asks {
					a.cancelled, a.cancelledBy = true, eff.Method
				}
			}
		}
	}
	if p := ef.StartsTurn; p != "" && req != nil {
		if sid, ok := m.String(p); ok {
			if ts := s.turns(sid); ts != nil {
				ts.turn, ts.asks, ts.quiet = req, nil, quietNone
				s.askedTurn(ts)
			}
		}
	}
	if ef.CancelledOutcome != nil && ef.Session != "" && req != nil {
		if sid, ok := m.String(ef.Session); ok {
			if ts := s.turns(sid); ts != nil && ts.turn != nil && len(ts.asks) < maxAsks {
				ts.asks = append(ts.asks, req)
			}
		}
	}
	if ef.Replay != "" && ef.AdoptsSession != "" && req != nil {
		req.replay = ef.Replay
		if p := ef.ReplayIf; p != "" && m.Has(p) && m.Doc.Type(m.Doc.Find(p)) != jsonscan.Null {
			req.replay = registry.ReplayBeforeAnswer
		}
		if sid, ok := m.String(ef.AdoptsSession); ok {
			if ts := s.turns(sid); ts != nil && req.replay == registry.ReplayNever {
				ts.resuming = req
			}
		}
	}
	if c := ef.Conversation; c != nil && ef.Session != "" {
		s.conversation(m, ef, c)
	}
	if r := ef.SchemaRows; r != nil {
		for _, id := range r.Params {
			s.exercise(id)
		}
	}
	for _, p := range ef.Paths {
		s.absolutePaths(m, p)
	}
	s.openValues(m, ef.OpenValues, "/params/")

	if (ef.TurnState != nil || ef.UserMessage != nil) && ef.Session != "" {
		if ts := s.turnsAt(m, ef.Session); ts != nil {
			if ef.UserMessage != nil {
				s.userMessage(m, ef, ts)
			}
			if t := ef.TurnState; t != nil && when(m, eff.turnWhen) {
				s.turnState(m, ts, t)
			}
		}
	}
	if a := ef.AuthMethod; a != nil {
		s.authMethod(m, a, ef.Requires != nil)
	}
	if p := ef.CancelsRequest; p != "" {
		s.cancelsRequest(m, p)
	}
	if c := ef.Cursor; c != nil {
		s.cursorSent(m, c)
	}
	if e := ef.Elicitation; e != nil {
		s.elicitation(m, e, eff.elicitWhen)
	}
	if b := ef.BaselineContent; b != nil && req != nil {
		s.baselineContent(m, req, b)
	}
	s.terminalReleased(m, ef)
	if cl := ef.ConfigOptions; cl != nil && !cl.Complete && ef.Session != "" && when(m, eff.configWhen) {
		if ts := s.turnsAt(m, ef.Session); ts != nil {
			ts.config, ts.hasConfig = m.Strings(cl.At), true
		}
	}
	s.v2Sent(m, eff, req)
}

// conversation checks a notification that may carry a conversation entry:
// none may come while a resume replays nothing, nor after the answer that
// ended a cancelled turn or a load, until the next turn.
func (s *state) conversation(m *protocol.Message, ef *registry.ACPEffects, c *registry.ACPTagSet) {
	tb, ok := m.StringBytes(c.At)
	if !ok || !c.Has(string(tb)) {
		return
	}
	sb, ok := m.StringBytes(ef.Session)
	if !ok {
		return
	}
	sess, _ := s.sessions.GetBytes(sb)
	if sess == nil || sess.turns == nil {
		return // nothing to keep quiet
	}
	ts := sess.turns
	tag, sid := string(tb), string(sb)
	switch {
	case ts.resuming != nil:
		m.Breach(reqResumeNoReplay, finding.Error, RuleHistoryReplay, c.At, "an update of type %s while session/resume of session %s (line %d) is unanswered: resuming restores a session without replaying its history; only session/load replays it", protocol.Quote(tag), protocol.Quote(sid), ts.resuming.line)
		ts.resuming = nil // once per resume
	case ts.turn != nil:
	case ts.quiet == quietCancelled:
		m.Breach(reqUpdatesBefore, finding.Error, RuleCancellation, c.At, "an update of type %s for session %s after the answer that ended its cancelled turn (line %d): every update of a cancelled turn must be sent before the prompt is answered (later ones are not reported)", protocol.Quote(tag), protocol.Quote(sid), ts.quietLine)
		ts.quiet = quietNone
	case ts.quiet == quietLoaded:
		m.Breach(ts.quietRow, finding.Error, RuleHistoryReplay, c.At, "an update of type %s for session %s after the answer that asked for its history (line %d): the agent replays the whole history first and answers last (later ones are not reported)", protocol.Quote(tag), protocol.Quote(sid), ts.quietLine)
		ts.quiet = quietNone
	}
}

// advertises checks the offers a message makes at pointers under prefix
// ("/params/" in a request or notification, "/result/" in an answer)
// against the capabilities of the side that receives them. It reads the
// parsed message in place: most messages offer nothing gated.
func (s *state) advertises(m *protocol.Message, list []ads, prefix string) {
	for i := range list {
		ad := &list[i]
		if !strings.HasPrefix(ad.At+"/", prefix) || !when(m, ad.when) {
			continue
		}
		init, who, from := s.clientInit, "client", "initialize request's params"
		if ad.agents {
			init, who, from = s.agentInit, "agent", "initialize response's result"
		}
		if init == nil {
			continue
		}
		id := gateRow(ad.Capability)
		d := &m.Doc
		base := d.Find(ad.base)
		check := func(node, index int) {
			if d.Type(node) != jsonscan.Object || !whereHolds(d, node, ad.Where) {
				return
			}
			if ad.Present != "" && child(d, node, ad.Present) < 0 {
				return
			}
			s.exercise(id)
			if protocol.Truthy(protocol.At(init, ad.Capability)) {
				return
			}
			what, at := describeWhere(ad.Where), ad.base
			if index >= 0 {
				at += "/" + strconv.Itoa(index) + ad.rest
			}
			if ad.Present != "" {
				what, at = strings.TrimPrefix(ad.Present, "/"), at+ad.Present
			}
			m.Breach(id, finding.Error, RuleCapability, at, "this (%s) needs the %s capability %s, which the %s does not set: a peer uses only what the other side advertised", what, who, ad.Capability, from)
		}
		if !ad.star {
			if base >= 0 {
				check(base, -1)
			}
			continue
		}
		i := 0
		d.Elements(base, func(el int) bool {
			node := el
			if ad.rest != "" {
				node = child(d, el, ad.rest)
			}
			if node >= 0 {
				check(node, i)
			}
			i++
			return true
		})
	}
}

// child follows a relative pointer (of tokens without escapes) from node.
func child(d *jsonscan.Doc, node int, ptr string) int {
	for ptr != "" && node >= 0 {
		ptr = strings.TrimPrefix(ptr, "/")
		tok, rest, _ := strings.Cut(ptr, "/")
		node, ptr = d.Child(node, tok), rest
	}
	return node
}

// whereHolds reports whether each pointer of where, relative to node,
// leads to its string.
func whereHolds(d *jsonscan.Doc, node int, where map[string]string) bool {
	for p, want := range where {
		if !d.StringIs(child(d, node, p), want) {
			return false
		}
	}
	return true
}

// describeWhere renders the conditions of an offer ("type \"boolean\"").
func describeWhere(where map[string]string) string {
	var parts []string
	for p, want := range where {
		parts = append(parts, strings.TrimPrefix(p, "/")+" "+protocol.Quote(want))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// answeredBehaviour checks a successful answer to req.
func (s *state) answeredBehaviour(m *protocol.Message, req *request) {
	ef := &req.eff.Effects
	s.advertises(m, req.eff.adWhen, "/result/")
	s.openValues(m, ef.OpenValues, "/result/")
	if req.cancelRequested != 0 {
		s.exercise(reqCancelRequestAnswer) // a result: allowed
	}
	if ef.CreatesFile != "" {
		s.exercise(reqWriteCreates)
	}
	switch req.baseline {
	case "text":
		s.exercise(reqTextSupported)
	case "baseline":
		s.exercise(reqBaselineContent)
	}
	if c := ef.Cursor; c != nil {
		s.cursorGiven(m, c)
	}
	if t := ef.Terminal; t != nil {
		s.terminalCreated(m, req, t)
	}
	if req.closing && req.closes != "" {
		s.sessionClosed(m, req.closes)
	}
	if r := ef.SchemaRows; r != nil {
		for _, id := range r.Result {
			s.exercise(id)
		}
	}
	if ef.Baseline {
		s.exercise(reqBaselineMethods)
	}
	if ef.Initializes {
		s.exercise(reqAgentVersion)
		s.authMethods = strings.TrimPrefix(ef.AuthMethods, "/result")
		row := s.versionRow()
		for _, ptr := range ef.VersionAt {
			if !strings.HasPrefix(ptr, "/result/") {
				continue
			}
			if n, ok := protocol.IntValue(m.At(ptr)); ok && s.reg.ByWireVersion("acp", int(n)) == nil {
				m.Breach(row, finding.Error, RuleVersion, ptr, "the agent answers protocol version %d, which no ACP version has: it must answer with the version the client asked for if it supports it, else with the latest version it supports (%s)", n, s.knownVersions())
			}
		}
	}
	if p := ef.CreatesSession; p != "" {
		s.exercise(reqUniqueSession)
	}
	switch {
	case ef.StartsTurn != "" && ef.MessageID != "":
		// The answer accepts the prompt; the session's state
		// reports say when the work ends.
		s.acceptedTurn(m, req)
	case ef.StartsTurn != "":
		s.endTurn(m, req, false)
	}
	if ef.CancelledOutcome != nil {
		s.answeredAsk(m, req, ef.CancelledOutcome)
	}
	if req.replay != "" && req.sid != "" {
		if ts := s.turns(req.sid); ts != nil {
			switch req.replay {
			case registry.ReplayBeforeAnswer:
				row := ef.ReplayRow
				if row == "" {
					row = reqLoadReplay
				}
				s.exercise(row)
				ts.quiet, ts.quietLine, ts.quietRow = quietLoaded, m.Line, row
			case registry.ReplayNever:
				s.exercise(reqResumeNoReplay)
				ts.resuming = nil
			}
		}
	}
	if cl := ef.ConfigOptions; cl != nil && strings.HasPrefix(cl.At, "/result/") {
		s.configList(m, req, cl)
	}
	if req.m != nil && req.m.Capability != "" {
		s.exercise(reqAdvertisedWorks)
	}
	s.v2Answered(m, req, false, 0, false)
}

// versionRow names the row a wrong initialize answer breaks: the fallback
// row when the client asked for a version no ACP version has, else the
// general one.
func (s *state) versionRow() string {
	if v, ok := protocol.IntValue(protocol.At(s.clientInit, "/protocolVersion")); ok && s.reg.ByWireVersion("acp", int(v)) == nil {
		s.exercise(reqFallbackVersion)
		return reqFallbackVersion
	}
	return reqAgentVersion
}

// knownVersions lists the wire versions of ACP's versions.
func (s *state) knownVersions() string {
	var out []string
	seen := map[int]bool{}
	for _, v := range s.reg.Versions("acp") {
		if v.WireVersion > 0 && !seen[v.WireVersion] {
			seen[v.WireVersion] = true
			out = append(out, fmt.Sprint(v.WireVersion))
		}
	}
	return "ACP has " + strings.Join(out, " and ")
}

// endTurn checks the answer that ends a turn (errored: a JSON-RPC error):
// a cancelled turn ends with the cancelled stop reason.
func (s *state) endTurn(m *protocol.Message, req *request, errored bool) {
	ts := s.turns(req.sid)
	if ts != nil && ts.turn == req {
		ts.turn, ts.asks = nil, nil
	}
	if !req.cancelled {
		return
	}
	sr := req.eff.Effects.StopReason
	s.exercise(reqCancelledReason)
	s.exercise(reqCancelNoError)
	s.exercise(reqUpdatesBefore)
	if ts != nil {
		ts.quiet, ts.quietLine = quietCancelled, m.Line
	}
	if sr == nil {
		return
	}
	if errored {
		m.Breach(reqCancelNoError, finding.Error, RuleCancellation, "/error", "the client cancelled this turn (%s), and the agent answered the prompt with an error: it must answer with stopReason %s, even when the cancellation made the work fail", req.cancelledBy, protocol.Quote(sr.Cancelled))
		return
	}
	if got, ok := m.String(sr.At); ok && got != sr.Cancelled {
		m.Breach(reqCancelledReason, finding.Error, RuleCancellation, sr.At, "the client cancelled this turn (%s), and the agent answered stopReason %s: a cancelled turn must end with stopReason %s", req.cancelledBy, protocol.Quote(got), protocol.Quote(sr.Cancelled))
	}
}

// answeredAsk checks the client's answer to an agent's request that its
// session's turn waited on: once the turn is cancelled, the answer is the
// cancelled outcome.
func (s *state) answeredAsk(m *protocol.Message, req *request, out *registry.ACPValue) {
	if !req.cancelled {
		return
	}
	s.exercise(reqPermissionCancel)
	if got, ok := m.String(out.At); ok && got != out.Value {
		m.Breach(reqPermissionCancel, finding.Error, RuleCancellation, out.At, "the client cancelled the turn (%s) while this request waited, and then answered %s: every request the cancelled turn waits on must be answered %s", req.cancelledBy, protocol.Quote(got), protocol.Quote(out.Value))
	}
}

// configList checks an answer that lists a session's config options: a
// complete list names every option the session had, unless the set
// changed (a new option appears).
func (s *state) configList(m *protocol.Message, req *request, cl *registry.ACPConfigList) {
	sid, ok := m.String(req.eff.Effects.CreatesSession)
	if !ok {
		sid = req.sid
	}
	ts := s.turns(sid)
	if ts == nil {
		return
	}
	ids := m.Strings(cl.At)
	if cl.Complete {
		s.exercise(reqConfigComplete)
		if ts.hasConfig && !m.Has("/error") {
			var missing []string
			fresh := false
			for _, id := range ids {
				fresh = fresh || !slices.Contains(ts.config, id)
			}
			for _, id := range ts.config {
				if !slices.Contains(ids, id) {
					missing = append(missing, id)
				}
			}
			if len(missing) > 0 && !fresh {
				m.Breach(reqConfigComplete, finding.Error, RuleConfigOptions, strings.TrimSuffix(strings.TrimSuffix(cl.At, "/id"), "/*"), "the answer lists %d config options but leaves out %s, which the session has: it must list every option with its current value", len(ids), quoteList(missing))
			}
		}
	}
	ts.config, ts.hasConfig = ids, true
}

// answeredError checks a JSON-RPC error answer to req.
func (s *state) answeredError(m *protocol.Message, req *request) {
	code, hasCode := protocol.IntValue(m.At("/error/code"))
	s.cancelledAnswer(m, req, code, hasCode)
	s.createsFile(m, req, code, hasCode)
	s.refusedBaseline(m, req, code, hasCode)
	s.refusedMustAccept(m, req)
	if req.eff != nil {
		s.refusedNotFound(m, req, code, hasCode)
	}
	if req.m == nil {
		// A method the version does not define: unless it is an
		// extension the receiver may implement, "method not found".
		s.exercise(reqAnswerCustom)
		if strings.HasPrefix(req.name, "_") || s.elsewhere(req.name) != "" || s.retired(req.name) != nil {
			return
		}
		if hasCode && code != codeMethodNotFound {
			m.Breach(reqAnswerCustom, finding.Error, RuleMethodNotFound, "/error/code", "%s is no method of ACP, and the answer's error code is %d: a request for a method the receiver does not implement is answered %d (method not found)", protocol.Quote(req.name), code, codeMethodNotFound)
		}
		return
	}
	ef := &req.eff.Effects
	s.v2Answered(m, req, true, code, hasCode)
	if req.replay == registry.ReplayNever && req.sid != "" {
		// A refused resume restores nothing: what the session sends
		// next is not history under a pending resume.
		if ts := s.turns(req.sid); ts != nil && ts.resuming == req {
			ts.resuming = nil
		}
	}
	if ef.CancelledOutcome != nil && req.cancelled {
		s.exercise(reqPermissionCancel)
		m.Breach(reqPermissionCancel, finding.Error, RuleCancellation, "/error", "the client cancelled the turn (%s) while this request waited, and then answered it with an error: every request the cancelled turn waits on is answered with outcome %s", req.cancelledBy, protocol.Quote(ef.CancelledOutcome.Value))
	}
	if ef.Initializes && !s.initAnswered {
		s.exercise(reqAgentVersion)
		// A version the agent lacks is no invalid params: it answers
		// with its own.
		if v, ok := protocol.IntValue(protocol.At(s.clientInit, "/protocolVersion")); ok && v >= 0 && v <= 0xffff {
			m.Breach(s.versionRow(), finding.Error, RuleVersion, "/error", "the agent refused initialize for protocol version %d with an error: when it does not support the version the client asks for, it answers with the latest version it supports, and the client decides whether to go on", v)
		}
	}
	if ef.StartsTurn != "" {
		s.endTurn(m, req, true)
	}
	if ef.Baseline {
		s.exercise(reqBaselineMethods)
		if hasCode && code == codeMethodNotFound {
			m.Breach(reqBaselineMethods, finding.Error, RuleMethodNotFound, "/error/code", "%s is a method every agent implements, and it was answered %d (method not found)", req.m.Method, codeMethodNotFound)
		}
	}
	if req.m.Capability != "" && hasCode && code == codeMethodNotFound && req.m.Handler == registry.HandlerAgent && s.agentInit != nil {
		s.exercise(reqAdvertisedWorks)
		if protocol.Truthy(protocol.At(s.agentInit, req.m.Capability)) {
			m.Breach(reqAdvertisedWorks, finding.Error, RuleMethodNotFound, "/error/code", "the agent advertised %s in its initialize answer, and then answered %s with %d (method not found): a method whose capability is advertised must be implemented", req.m.Capability, req.m.Method, codeMethodNotFound)
		}
	}
}

// answeredUnknown checks a successful answer to a method the version does
// not define.
func (s *state) answeredUnknown(m *protocol.Message, req *request) {
	s.exercise(reqAnswerCustom)
	if strings.HasPrefix(req.name, "_") || s.elsewhere(req.name) != "" || s.retired(req.name) != nil || req.name == "" {
		return
	}
	m.Breach(reqAnswerCustom, finding.Error, RuleMethodNotFound, "/result", "%s is no method of ACP (and not an extension: those start with \"_\"), yet it was answered with a result: the receiver must answer %d (method not found)", protocol.Quote(req.name), codeMethodNotFound)
}

// nullID checks a response with a null id: JSON-RPC sends one only to
// answer a request whose id could not be read, never a notification.
func (s *state) nullID(m *protocol.Message) {
	s.exercise(reqNullID)
	if s.unreadable > 0 {
		s.unreadable-- // it answers a line that could not be read
		return
	}
	// The notification it answers: the latest of the other side's not
	// yet so answered (either side's when the direction is not known).
	var n *lastNotif
	for _, d := range [...]string{opposite(m.Dir), c2a, a2c} {
		if d != "" && (m.Dir == "" || d == opposite(m.Dir)) && s.notified[d].line > 0 && (n == nil || s.notified[d].line > n.line) {
			c := s.notified[d]
			n = &c
			s.notified[d] = lastNotif{}
		}
	}
	if n != nil {
		m.Breach(reqNoNotifAnswer, finding.Error, RuleNotificationAnswer, "/id", "a response with a null id, answering the %s notification on line %d: a notification gets no answer at all, and a null id answers only a request whose id could not be read", protocol.Quote(n.name), n.line)
		return
	}
	m.Breach(reqNullID, finding.Error, RuleNotificationAnswer, "/id", "a response with a null id, though every line before it that could not be read has had its answer: a null id answers only a request whose id could not be read, and a notification gets no answer at all")
}

// eachString calls f with each string at ptr ("*" for every element), its
// node and its pointer, read from the parsed message in place; the pointer
// is made only when f asks for it.
func eachString(m *protocol.Message, ptr string, f func(v []byte, at func() string)) {
	d := &m.Doc
	base, rest, star := strings.Cut(ptr, "/*")
	visit := func(node, index int) {
		v, ok := d.StringBytes(node)
		if !ok {
			return
		}
		f(v, func() string {
			if index < 0 {
				return base
			}
			return base + "/" + strconv.Itoa(index) + rest
		})
	}
	node := d.Find(base)
	if !star {
		visit(node, -1)
		return
	}
	if strings.Contains(rest, "/*") {
		eachNested(m, base, rest, f)
		return
	}
	i := 0
	d.Elements(node, func(el int) bool {
		if rest != "" {
			el = child(d, el, rest)
		}
		visit(el, i)
		i++
		return true
	})
}

// absolutePaths checks that the file-system paths at ptr are absolute:
// the protocol has no relative paths.
func (s *state) absolutePaths(m *protocol.Message, ptr string) {
	id := pathRow(ptr)
	eachString(m, ptr, func(p []byte, at func() string) {
		s.exercise(id)
		if !absolute(p) {
			m.Breach(id, finding.Error, RuleAbsolutePath, at(), "path %s is relative: every file-system path the protocol carries is absolute (the agent resolves nothing against its own working directory)", protocol.Quote(string(p)))
		}
	})
}

// openValues checks the members of open sets at pointers under prefix: a
// value the version does not define is one of one's own, and starts with
// "_" (the others are kept for the protocol's later versions).
func (s *state) openValues(m *protocol.Message, list []registry.ACPOpenValue, prefix string) {
	for _, ov := range list {
		if !strings.HasPrefix(ov.At, prefix) || !whenMap(m, ov.When) {
			continue
		}
		eachString(m, ov.At, func(v []byte, at func() string) {
			s.exercise(ov.Requirement)
			if len(v) > 0 && v[0] == '_' || slices.Contains(ov.Known, string(v)) {
				return
			}
			m.Breach(ov.Requirement, finding.Error, RuleOpenValue, at(), "%s is none of %s: a value of one's own starts with \"_\" (%s); the others are kept for later versions of ACP", protocol.Quote(string(v)), strings.Join(ov.Known, ", "), protocol.Quote("_"+string(v)))
		})
	}
}

// absolute reports whether p is an absolute path: POSIX (/…), a Windows
// drive (C:\… or C:/…) or a UNC path (\\server\…).
func absolute(p []byte) bool {
	switch {
	case len(p) > 0 && p[0] == '/':
		return true
	case len(p) > 2 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z'):
		return true
	case len(p) > 1 && p[0] == '\\' && p[1] == '\\':
		return true
	}
	return false
}

// pathRow names the row of a path member: the session's working
// directory and roots have rows of their own.
func pathRow(ptr string) string {
	if id, ok := v2PathRows[ptr]; ok {
		return id
	}
	switch {
	case strings.HasSuffix(ptr, "/additionalDirectories/*"):
		return reqAdditionalAbsolute
	case ptr == "/params/cwd":
		return reqCwdAbsolute
	}
	return reqPathsAbsolute
}
