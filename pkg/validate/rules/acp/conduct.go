package acp

// How a session is set up and used, each read from an effect of the
// method tables: members the spec's text asks for, what every agent
// accepts, prompts only on sessions set up here, paths inside a session's
// roots, tool calls reported running, no new work after a cancel, modes
// and config options offered both ways and in step, W3C trace context in
// _meta, custom methods advertised, and a connection left when the agent
// answers a version the client lacks.

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/jsonpointer"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// The rows they check.
const (
	reqAfterSetup       = "acp.prompt.after-setup"
	reqRootBoundary     = "acp.session.root-boundary"
	reqReportInProgress = "acp.tool-call.report-in-progress"
	reqCancelStopTools  = "acp.prompt.cancel-stop-tools"
	reqPreferConfig     = "acp.config.prefer-over-modes"
	reqUseConfig        = "acp.config.client-use-config-options"
	reqSendBoth         = "acp.config.send-both"
	reqModesInSync      = "acp.config.modes-in-sync"
	reqTraceKeys        = "acp.ext.meta-trace-keys"
	reqAdvertiseCustom  = "acp.ext.advertise-custom"
	reqAdvertiseInMeta  = "acp.ext.advertise-in-meta"
	reqIgnoreUnknown    = "acp.ext.ignore-unknown-notification"
	reqClientClose      = "acp.init.client-close-unsupported"
	reqReleaseAfterKill = "acp.terminal.release-after-kill"
	reqTerminalNoAuth   = "acp.auth.terminal-no-authenticate"
)

// Rules of this file.
const (
	RuleExpectedMember = "expected-member"     // a member the spec's text asks for, missing
	RuleSessionSetup   = "session-setup"       // a prompt on a session not set up here, or a stdio MCP server refused
	RuleRoots          = "session-roots"       // a file-system request outside the session's roots (a warning)
	RuleToolProgress   = "tool-progress"       // a tool call completed without being reported running (a warning)
	RuleModes          = "modes"               // modes and config options not offered both ways, out of step, or set_mode used beside config options
	RuleTraceContext   = "trace-context"       // _meta's trace context keys holding something else (a warning)
	RuleExtensions     = "extensions"          // a custom method served but not advertised (a warning)
	RuleUnsupported    = "unsupported-version" // a client that goes on after the agent answered a version it lacks (a warning)
)

// severity is the finding a breach of row id is: an error for a MUST or
// MUST NOT, a warning for what the spec only recommends.
func (s *state) severity(id string) finding.Severity {
	if q := s.reg.FindRequirement("acp", s.t.v.Name, id); q != nil && strings.HasPrefix(q.Level, "MUST") {
		return finding.Error
	}
	return finding.Warning
}

// expects checks the members the spec's text asks for (effect Expects)
// under prefix, "/params/" in a call and "/result/" in its answer.
func (s *state) expects(m *protocol.Message, list []registry.ACPExpected, prefix string) {
	for _, x := range list {
		if !strings.HasPrefix(x.At, prefix) {
			continue
		}
		s.exercise(x.Requirement)
		if m.Doc.Type(m.Doc.Find(x.At)) > jsonscan.Null {
			continue
		}
		parent, name := path.Split(x.At)
		if !m.Has(strings.TrimSuffix(parent, "/")) {
			continue // the schema reports the missing parent
		}
		// The schema decides a message's shape: where the docs ask for
		// more, the finding is a warning that names both texts.
		why := "the docs ask for it"
		if s.severity(x.Requirement) == finding.Error {
			why = "the docs require it, though the schema leaves it optional (a warning: the schema decides a message's shape)"
		}
		m.Breach(x.Requirement, finding.Warning, RuleExpectedMember, x.At, "no %s: %s; %s", protocol.Quote(name), why, s.rowSummary(x.Requirement))
	}
}

// rowSummary is the catalogue's statement of a row.
func (s *state) rowSummary(id string) string {
	q := s.reg.FindRequirement("acp", s.t.v.Name, id)
	if q == nil || q.Summary == "" {
		return id
	}
	sum := strings.TrimSuffix(q.Summary, ".")
	if len(sum) > 1 && sum[0] >= 'A' && sum[0] <= 'Z' && sum[1] >= 'a' && sum[1] <= 'z' {
		sum = string(sum[0]+'a'-'A') + sum[1:]
	}
	return sum
}

// conduct runs this file's checks of a request or notification; req is the
// request as kept (nil for a notification or an unreadable id).
func (s *state) conduct(m *protocol.Message, eff *method, req *request) {
	ef := &eff.Effects
	s.traceContext(m, "/params/_meta")
	s.clientGoesOn(m)
	s.expects(m, ef.Expects, "/params/")
	if req != nil && len(ef.MustAccept) > 0 {
		s.mustAccept(m, req, ef.MustAccept)
	}
	if req != nil && len(ef.Roots) > 0 {
		for _, p := range ef.Roots {
			req.roots = append(req.roots, m.Strings(p)...)
		}
	}
	if p := ef.SetUp; p != "" {
		s.setUp(m, p)
	}
	for _, p := range ef.WithinRoots {
		s.withinRoots(m, ef.Session, p)
	}
	if p := ef.ConfigSupersedes; p != "" {
		s.modesCalled(m, p)
	}
	if p := ef.SameCwd; p != "" && ef.AdoptsSession != "" {
		s.sameCwd(m, ef.AdoptsSession, p)
	}
	if c := ef.Chooses; c != nil && ef.Session != "" {
		s.choice(m, ef.Session, c)
	}
	if p := ef.OffersOptions; p != "" {
		s.uniqueOptions(m, p)
	}
	if t := ef.Terminal; t != nil && (t.Uses != "" || t.Embeds != "") && ef.Session != "" {
		s.terminalUsed(m, ef.Session, t)
	}
	if ef.Work && req != nil && ef.Session != "" {
		s.workAfterCancel(m, ef.Session, "/method", eff.Method)
	}
	if t := ef.Terminal; t != nil && t.Kills != "" {
		s.terminalKilled(m, ef.Session, t.Kills)
	}
	if f := ef.Form; f != nil && req != nil && when(m, eff.formWhen) {
		s.form(m, req, f)
	}
}

// conductAnswer runs this file's checks of a successful answer to req.
func (s *state) conductAnswer(m *protocol.Message, req *request) {
	ef := &req.eff.Effects
	s.traceContext(m, "/result/_meta")
	if !(ef.Initializes && s.otherBody) {
		s.expects(m, ef.Expects, "/result/")
	}
	if ef.Initializes {
		s.versionAnswered(m)
	}
	var sess *session
	if p := ef.CreatesSession; p != "" {
		if sid, ok := m.String(p); ok {
			sess, _ = s.sessions.Get(sid)
		}
	} else if ef.AdoptsSession != "" && req.sid != "" {
		sess = s.known(req.sid)
	}
	for _, p := range ef.SetsUp {
		if sid, ok := m.String(p); ok {
			s.known(sid).setUp = true
		}
	}
	if sess != nil {
		sess.setUp = true
		if len(req.roots) > 0 {
			sess.roots = req.roots
			sess.cwd = req.roots[0]
		}
	}
	if l := ef.Listed; l != nil {
		s.listed(m, l)
	}
	if md := ef.Modes; md != nil {
		s.modesAnswered(m, md, sess)
	}
	if ef.Form != nil && req.form != nil {
		s.formAnswered(m, req, ef.Form)
	}
	if ef.NotFoundRow != "" {
		s.exercise(ef.NotFoundRow) // answered with a result, as it should be
	}
}

// mustAccept notes on a request what it carries that every agent accepts
// (effect MustAccept), for its answer.
func (s *state) mustAccept(m *protocol.Message, req *request, list []registry.ACPMustAccept) {
	for i := range list {
		a := &list[i]
		for _, el := range m.Resolve(a.At) {
			o, ok := el.Value.(map[string]any)
			if !ok {
				continue
			}
			if v, has := o[strings.TrimPrefix(a.Unless, "/")]; has && v != a.Is {
				continue
			}
			s.exercise(a.Requirement)
			req.accepts = a
			return
		}
	}
}

// refusedMustAccept checks an error answer to a request that carried what
// every agent accepts: an error that names it refuses what may not be.
func (s *state) refusedMustAccept(m *protocol.Message, req *request) {
	a := req.accepts
	if a == nil {
		return
	}
	msg, _ := m.String("/error/message")
	data, _ := m.String("/error/data")
	text := strings.ToLower(msg + " " + data)
	for _, w := range a.Words {
		if !strings.Contains(text, strings.ToLower(w)) {
			return
		}
	}
	m.Breach(a.Requirement, s.severity(a.Requirement), RuleSessionSetup, "/error", "the request on line %d carried %s, and its error answer refuses it (%s): %s", req.line, a.What, protocol.Quote(clip(msg)), s.rowSummary(a.Requirement))
}

// setUp checks that the session a request names was set up on this
// connection (effect SetUp): created, loaded or resumed here, not only
// listed or never heard of.
func (s *state) setUp(m *protocol.Message, p string) {
	sidBytes, ok := m.StringBytes(p)
	if !ok {
		return
	}
	s.exercise(reqAfterSetup)
	if s.midSession || s.lossy || s.creating > 0 {
		return
	}
	sess, known := s.sessions.GetBytes(sidBytes)
	if known && (sess.setUp || sess.fresh) {
		return // the common case, read without a copy
	}
	sid := string(sidBytes)
	switch {
	case !known && s.sessions.Forgotten(sid):
		return
	case !known:
		m.Breach(reqAfterSetup, finding.Error, RuleSessionSetup, p, "a prompt for session %s, which no session/new, session/load or session/resume set up on this connection: the client prompts only a session it set up here, after initialize", protocol.Quote(clip(sid)))
	case !sess.setUp && !sess.fresh:
		m.Breach(reqAfterSetup, finding.Error, RuleSessionSetup, p, "a prompt for session %s, which this connection only heard of (a list named it) and never loaded or resumed: the client prompts only a session it set up here", protocol.Quote(clip(sid)))
	default:
		return
	}
	// Said once per session.
	s.known(sid).setUp = true
}

// withinRoots checks that a path a request carries lies inside the roots
// of its session (cwd and additional directories), where they are known.
func (s *state) withinRoots(m *protocol.Message, sessionAt, p string) {
	sidBytes, ok := m.StringBytes(sessionAt)
	if !ok {
		return
	}
	sess, known := s.sessions.GetBytes(sidBytes)
	if !known || len(sess.roots) == 0 {
		return
	}
	eachString(m, p, func(b []byte, at func() string) {
		s.exercise(reqRootBoundary)
		if !absolute(b) {
			return // a relative path is reported as such
		}
		file := string(b)
		for _, r := range sess.roots {
			if within(file, r) {
				return
			}
		}
		m.Breach(reqRootBoundary, finding.Warning, RuleRoots, at(), "path %s is outside the roots of session %s (%s): the agent keeps its file-system operations inside the session's working directory and additional directories", protocol.Quote(clip(file)), protocol.Quote(clip(string(sidBytes))), quoteList(sess.roots))
	})
}

// within reports whether file is root or below it, "/" and "\" alike.
func within(file, root string) bool {
	f := strings.ReplaceAll(file, `\`, "/")
	r := strings.TrimRight(strings.ReplaceAll(root, `\`, "/"), "/")
	if r == "" {
		return true // the file system's root
	}
	f = path.Clean(f)
	return strings.EqualFold(f, r) || len(f) > len(r) && f[len(r)] == '/' && strings.EqualFold(f[:len(r)], r)
}

// Tool call progress as sessions.go keeps it, per tool call.
const (
	toolSeen    uint8 = iota + 1 // announced, its status unknown or of no interest
	toolPending                  // announced and not yet reported running
	toolRunning                  // reported running
)

// toolStatus follows the status of a tool call that a notification
// creates or updates (the effect's Status): one reported done by a status
// only a run reaches (Ran) was reported running before.
//
// It reads the message in place and stores only a change of progress:
// most updates of a tool call carry no status, or the one it had.
func (s *state) toolStatus(m *protocol.Message, tc *registry.ACPToolCallEffect, sess *session, id []byte, key string, created bool) {
	if tc.Status == "" || sess.toolCalls == nil {
		return
	}
	st, has := m.StringBytes(tc.Status)
	if !has && created && tc.Default != "" {
		st, has = []byte(tc.Default), true
	}
	if !has {
		return
	}
	prev, _ := sess.toolCalls.GetBytes(id)
	next := prev
	switch {
	case string(st) == tc.Running:
		next = toolRunning
	case ranStatus(tc.Ran, st):
		s.exercise(reqReportInProgress)
		if prev == toolPending && !created {
			m.Breach(reqReportInProgress, finding.Warning, RuleToolProgress, tc.Status, "tool call %s is reported %s without having been reported %s: when the agent starts running a tool call it says so, so that the client can show it running", protocol.Quote(clip(string(id))), protocol.Quote(string(st)), protocol.Quote(tc.Running))
		}
		next = toolSeen
	case created:
		next = toolPending
	}
	if next != prev {
		if key == "" {
			key = string(id)
		}
		sess.toolCalls.Put(key, next)
	}
	if created {
		s.workAfterCancel(m, "/params/sessionId", tc.Creates, "a new tool call")
	}
}

// ranStatus reports whether st is one of the statuses only a run reaches.
func ranStatus(ran []string, st []byte) bool {
	for _, r := range ran {
		if string(st) == r {
			return true
		}
	}
	return false
}

// workAfterCancel checks a request or tool call that starts work for the
// session at sessionAt: none starts once the client cancelled its turn.
func (s *state) workAfterCancel(m *protocol.Message, sessionAt, ptr, what string) {
	sid, ok := m.StringBytes(sessionAt)
	if !ok {
		return
	}
	sess, known := s.sessions.GetBytes(sid)
	if !known || sess.turns == nil {
		return // no turn, no reported work: nothing to cancel
	}
	ts := sess.turns
	// A turn that a prompt's answer ends (v1), or work that the
	// session's reported states follow (v2).
	by := ""
	switch {
	case ts.turn != nil:
		if ts.turn.cancelled {
			by = ts.turn.cancelledBy
		}
	case ts.fg.working:
		if ts.fg.cancelled {
			by = ts.fg.cancelledBy
		}
	default:
		return
	}
	s.exercise(reqCancelStopTools)
	if by != "" {
		if ptr == "/method" {
			what = "a " + what + " request"
		}
		m.Breach(reqCancelStopTools, finding.Warning, RuleCancellation, ptr, "%s after the client cancelled the work (%s): on a cancel the agent stops the work's tool calls as soon as it can and starts no new ones", what, by)
	}
}

// terminalKilled notes that a terminal's command was killed: the terminal
// is still to be released.
func (s *state) terminalKilled(m *protocol.Message, sessionAt, p string) {
	sid, ok := m.String(sessionAt)
	id, ok2 := m.String(p)
	if !ok || !ok2 {
		return
	}
	for i := range s.ob.terminals[sid] {
		if t := &s.ob.terminals[sid][i]; t.id == id {
			s.exercise(reqReleaseAfterKill)
			t.killed = m.Line
		}
	}
}

// modesCalled checks a request of the older modes API (effect
// ConfigSupersedes) on a session that offers config options.
func (s *state) modesCalled(m *protocol.Message, p string) {
	sid, ok := m.String(p)
	if !ok {
		return
	}
	sess, known := s.sessions.Get(sid)
	if !known {
		return
	}
	s.exercise(reqPreferConfig)
	if sess.configLine > 0 {
		m.Breach(reqPreferConfig, finding.Warning, RuleModes, "/method", "%s on session %s, whose config options include the mode (line %d): a client that is given config options changes settings with them, not through the older modes API", m.Label, protocol.Quote(clip(sid)), sess.configLine)
	}
}

// modesAnswered checks an answer that gives a session's modes and config
// options: offered both ways, and in step.
func (s *state) modesAnswered(m *protocol.Message, md *registry.ACPModes, sess *session) {
	opts, hasOpts := m.At(md.Options).([]any)
	hasModes := m.Doc.Type(m.Doc.Find(md.Modes)) == jsonscan.Object
	mirror := -1
	for i, o := range opts {
		if protocol.At(o, md.Category) == md.Mirror {
			mirror = i
			break
		}
	}
	if sess != nil && mirror >= 0 {
		sess.configLine = m.Line // modes can be set as config options
	}
	s.settingsOffered(m, md, sess, opts)
	if mirror < 0 && !hasModes {
		return
	}
	s.exercise(reqSendBoth)
	switch {
	case mirror >= 0 && !hasModes:
		m.Breach(reqSendBoth, finding.Warning, RuleModes, md.Modes, "a config option of category %s but no modes: while clients move to config options, an agent with modes offers them both ways, so that a client that knows only modes still sees them", protocol.Quote(md.Mirror))
		return
	case hasOpts && mirror < 0:
		m.Breach(reqSendBoth, finding.Warning, RuleModes, md.Options, "modes, and config options with none of category %s: while clients move to config options, an agent with modes offers them both ways, so that a client that uses config options sees them too", protocol.Quote(md.Mirror))
		return
	case mirror < 0:
		return
	}
	s.exercise(reqModesInSync)
	cur, _ := m.String(md.Modes + md.Current)
	val := protocol.At(opts[mirror], md.Value)
	if v, ok := val.(string); ok && cur != "" && v != cur {
		m.Breach(reqModesInSync, finding.Warning, RuleModes, jsonpointer.JoinIndex(md.Options, mirror)+md.Value, "the %s config option's current value is %s, and the modes' current mode is %s: an agent that offers both keeps them in step", protocol.Quote(md.Mirror), protocol.Quote(v), protocol.Quote(cur))
	}
}

// traceparent is W3C Trace Context's traceparent of version 00 (and the
// same shape for later versions, which may add fields after a "-").
var traceparent = regexp.MustCompile(`^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(-.*)?$`)

// traceContext checks the members of a _meta object that W3C Trace
// Context reserves (the table's Trace keys).
func (s *state) traceContext(m *protocol.Message, at string) {
	tr := s.t.v.ACP().Trace
	if tr == nil || !slices.Contains(tr.At, at) {
		return
	}
	node := m.Doc.Find(at)
	if m.Doc.Type(node) != jsonscan.Object {
		return
	}
	for _, k := range tr.Keys {
		v := m.Doc.Member(node, k)
		if v < 0 {
			continue
		}
		s.exercise(reqTraceKeys)
		str, ok := m.Doc.String(v)
		switch {
		case !ok:
			m.Breach(reqTraceKeys, finding.Warning, RuleTraceContext, at+"/"+k, "_meta.%s is %s: the key is kept for W3C Trace Context, whose values are strings", k, protocol.Describe(m.Doc.Value(v)))
		case k == "traceparent" && !validTraceparent(str):
			m.Breach(reqTraceKeys, finding.Warning, RuleTraceContext, at+"/"+k, "_meta.traceparent is %s, not a W3C traceparent (00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>, ids not all zero): the key is kept for W3C Trace Context", protocol.Quote(clip(str)))
		}
	}
}

// validTraceparent reports whether v is a W3C traceparent: the shape, a
// version other than ff, and ids that are not all zeros.
func validTraceparent(v string) bool {
	if !traceparent.MatchString(v) || v[:2] == "ff" {
		return false
	}
	return v[3:35] != strings.Repeat("0", 32) && v[36:52] != strings.Repeat("0", 16)
}

// customAnswered checks a result to a custom ("_") request: the side that
// serves it advertises its extensions in its capabilities' _meta.
func (s *state) customAnswered(m *protocol.Message, req *request) {
	if !strings.HasPrefix(req.name, "_") || s.midSession {
		return
	}
	caps := s.t.v.ACP().Capabilities
	server := sideOf(opposite(req.dir))
	init := s.agentInit
	if server == sideClient {
		init = s.clientInit
	}
	p, ok := caps[server]
	if !ok || init == nil {
		return
	}
	s.exercise(reqAdvertiseCustom)
	meta, _ := protocol.At(init, p+"/_meta").(map[string]any)
	if len(meta) > 0 {
		return
	}
	m.Breach(reqAdvertiseCustom, finding.Warning, RuleExtensions, "/result", "the %s serves the custom method %s, but its capabilities (%s in initialize) advertise no extension in _meta: a side that serves custom methods says so there, so that its peer can check before calling", server, protocol.Quote(clip(req.name)), p)
}

// versionAnswered notes an initialize answer that names a version the
// client cannot speak: one above the version it asked for (its newest),
// or one no ACP version has. The client then closes the connection.
func (s *state) versionAnswered(m *protocol.Message) {
	asked, ok := protocol.IntValue(protocol.At(s.clientInit, "/protocolVersion"))
	if !ok {
		return
	}
	s.exercise(reqClientClose)
	for _, p := range s.initVersionAt() {
		if n, ok := protocol.IntValue(m.At(p)); ok && (n > asked || s.reg.ByWireVersion("acp", int(n)) == nil) {
			s.closeOwed, s.closeVersion, s.closeAbove = m.Line, n, n > asked
		}
	}
}

// initVersionAt lists where an initialize answer names its version.
func (s *state) initVersionAt() []string {
	var out []string
	if e := s.t.v.ACP().Initialize(); e != nil {
		for _, p := range e.Effects.VersionAt {
			if strings.HasPrefix(p, "/result/") {
				out = append(out, p)
			}
		}
	}
	return out
}

// clientGoesOn checks a client's message after the agent answered a
// version the client cannot speak: it should have closed the connection.
func (s *state) clientGoesOn(m *protocol.Message) {
	if s.closeOwed == 0 || m.From != sideClient {
		return
	}
	line := s.closeOwed
	s.closeOwed = 0
	why := "which no ACP version has"
	if s.closeAbove {
		why = "above the version this client asked for, which is the newest it implements"
	}
	m.Breach(reqClientClose, finding.Warning, RuleUnsupported, "/method", "the agent answered protocol version %d on line %d, %s, and the client went on: a client that does not implement the version the agent answers closes the connection", s.closeVersion, line, why)
}
