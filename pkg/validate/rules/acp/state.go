package acp

import (
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/internal/suggest"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// Bounds of the state (see protocol.Recent): past them the oldest entries
// are forgotten, and a forgotten id is never reported as unknown.
const (
	maxAnswered  = 1 << 12
	maxPending   = 1 << 16
	maxSessions  = 1 << 12
	maxToolCalls = 1 << 14
)

// state follows one ACP connection (or several interleaved).
type state struct {
	idScratch []byte // the keys of the message's id (idKey)
	reg       *registry.Registry
	t         *tables
	ext       []*tables // the version's extensions, accepted with a warning
	tabs      []*tables // t and then ext, once they are known
	// alts are the wider checks of methods an extension redefines, by
	// the method's entry, then its params (0) and result (1); an alt
	// with no schema is none. Keyed by pointer, so that they hash
	// cheaply.
	alts map[*method]*[2]*alt
	// found keeps what find gives, by table, name and kind.
	found   [][][2]*found
	why     string // how the version was chosen
	partial protocol.Partial

	begun       bool           // the trace's beginning has been judged
	midSession  bool           // the capture began mid-session
	initialized bool           // an initialize request has been seen
	warnedInit  bool           // not-initialized was reported
	clientInit  map[string]any // the initialize params, once seen
	agentInit   map[string]any // the initialize result, once seen
	creating    int            // requests that create sessions, unanswered

	pending  *protocol.Recent[*request] // outstanding requests by sender and id
	answered *protocol.Recent[bool]     // answered requests by sender and id
	sessions *protocol.Recent[*session] // known sessions
	lossy    bool                       // a line could not be read

	warned protocol.Once // once-per-trace warnings already given

	// tablesOf compiles another version's tables (Rules.tables), for the
	// version initialize's answer names; strict is set when the user
	// named the version, which then never changes.
	tablesOf func(*registry.Version) (*tables, error)
	strict   bool

	exercised    map[string]bool // requirements whose situation the trace reached
	authMethods  string          // where the initialize result lists auth methods
	initAnswered bool            // an initialize was answered
	invalid      bool            // a message was neither request, notification nor response
	stepped      bool            // a message has been seen
}

type request struct {
	line int
	dir  string // sender of the request
	name string
	m    *method // nil for an unknown or extension method
	eff  *method // the entry whose effects apply (the widest table's)
	// closes is the session the request closes if it succeeds (the
	// effect ClosesSession), and closing whether it names one.
	closes  string
	closing bool
	options []string // option ids the request offers
	adopt   string   // an unknown session it refers to: it exists if answered with a result
	// sid is the session the request names, and cancelled is set when
	// that session's turn was cancelled while the request waited.
	sid       string
	cancelled bool
}

type session struct {
	// fresh: created in this trace, so its whole history is here and its
	// tool calls can be checked.
	fresh     bool
	toolCalls *protocol.Recent[bool]
	turns     *turnState // made when a turn, replay or config list first needs it
}

func newState(reg *registry.Registry, t *tables, why string, partial protocol.Partial) *state {
	return &state{
		reg: reg, t: t, why: why, partial: partial,
		pending:  protocol.NewRecent[*request](maxPending),
		answered: protocol.NewRecent[bool](maxAnswered),
		sessions: protocol.NewRecent[*session](maxSessions),
	}
}

func (s *state) Dialect() string { return s.t.v.Name }

func (s *state) Note() string {
	if s.t.v.Note != "" {
		return s.t.v.Note
	}
	return fmt.Sprintf("%s: %s", s.t.v.Title, s.why)
}

func (s *state) Finish(lastLine int) []finding.Finding { return s.unfinishedWork(lastLine) }

// Lost: an unreadable line may have been a request, so an answer to an
// unknown id is no longer an error.
func (s *state) Lost(m *protocol.Message) {
	s.lossy = true
	m.From = sideOf(m.Dir)
}

// stateful reports whether the session, tool-call, permission and
// capability rules apply: they follow ACP's handshake and session model,
// which a dialect without an initialize method does not share. Response
// matching applies to every JSON-RPC dialect.
func (s *state) stateful() bool { return s.t.v.ACP.Initialize() != nil }

// once reports whether the warning keyed k is given for the first time.
func (s *state) once(k string) bool { return s.warned.First(k) }

func (s *state) Step(m *protocol.Message) {
	if !s.stepped {
		s.stepped = true
		for _, id := range [...]string{reqSchema, reqUTF8, reqAgentStdout, reqClientStdin, reqInitFirst} {
			s.exercise(id)
		}
	}
	if !m.IsObject() {
		m.Add(finding.Error, finding.RuleSchema, "", "an ACP message must be a JSON object (a JSON-RPC 2.0 request, notification or response), got %s", protocol.Describe(m.Value()))
		return
	}
	s.idScratch = s.idScratch[:0]
	d := &m.Doc
	member := func(k string) int { return d.Member(d.Root(), k) }
	if member("jsonrpc") < 0 {
		has := func(k string) bool { return member(k) >= 0 }
		for _, rec := range s.t.records {
			if rec.Matches(has) {
				// A dialect's non-JSON-RPC line (VT Code's streamed
				// updates and tool results).
				m.Label = rec.Record
				m.RTSchema = rec.schema.ID
				m.Checks = append(m.Checks, protocol.Check{Schema: rec.schema})
				return
			}
		}
	}
	method, idAt := member("method"), member("id")
	hasMethod, hasID := method >= 0, idAt >= 0
	switch {
	case hasMethod:
		if !hasID {
			m.Checks = append(m.Checks, protocol.Check{Schema: s.t.notification})
		} else {
			m.Checks = append(m.Checks, protocol.Check{Schema: s.t.request})
		}
		nb, ok := d.StringBytes(method)
		if !ok {
			m.Label = "invalid"
			s.invalid = true
			return // the envelope check reports the method's type
		}
		if hasID && !readableID(d, idAt) {
			// Its receiver cannot answer it by id: it may answer
			// with a null id.
			s.invalid = true
		}
		name, at := s.methodName(nb)
		s.begin(m, name, false)
		s.call(m, name, at, idAt, hasID)
	case hasID || d.Type(member("result")) > jsonscan.Null || d.Type(member("error")) > jsonscan.Null:
		m.Checks = append(m.Checks, protocol.Check{Schema: s.t.response})
		s.begin(m, "", true)
		s.response(m, idAt)
	default:
		m.Label = "invalid"
		s.invalid = true
		m.Add(finding.Error, finding.RuleSchema, "", "neither a request, a notification nor a response: an ACP message has \"method\" (a request or notification) or \"id\" with \"result\" or \"error\" (a response)")
	}
}

// begin judges, at the trace's first message, whether it is a capture that
// began mid-session: its first message is neither the handshake nor a
// request that starts state (session/new without initialize is still an
// error), but something that refers to what came before.
func (s *state) begin(m *protocol.Message, name string, response bool) {
	if s.begun || !s.stateful() {
		return
	}
	if !response && strings.HasPrefix(name, "_") {
		return // extension traffic says nothing either way
	}
	s.begun = true
	switch s.partial {
	case protocol.PartialYes:
		s.midSession = true
	case protocol.PartialNo:
		return
	default:
		if !response {
			for _, e := range s.lookupAll(name) {
				if e.Effects.Initializes || e.Effects.CreatesSession != "" || e.Effects.AdoptsSession != "" {
					return
				}
			}
		}
		s.midSession = true
	}
	what, ptr := "a response", "/id"
	if !response {
		what, ptr = protocol.Quote(name), "/method"
	}
	m.Add(finding.Warning, finding.RulePartialCapture, ptr, "the trace begins mid-session: its first message is %s, not initialize; checks that need the handshake or a session's start are skipped for what happened before line %d (--partial=false to check everything)", what, m.Line)
}

// lookupAll returns every entry named name in the version and its
// extensions.
func (s *state) lookupAll(name string) []*method {
	var out []*method
	for _, t := range s.tables() {
		for _, k := range []string{registry.KindRequest, registry.KindNotification} {
			if e := t.methods[methodKey(name, k)]; e != nil {
				out = append(out, e)
			}
		}
	}
	return out
}

// methodName returns the method name b spells: the tables' own string
// when a table knows the method, so that reading a known method's name
// allocates nothing, with where it is; a name no table knows is at table
// -1.
func (s *state) methodName(b []byte) (string, methodAt) {
	for ti, t := range s.tables() {
		names := t.names
		lo, hi := 0, len(names)
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if names[mid] < string(b) {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo < len(names) && names[lo] == string(b) {
			return names[lo], methodAt{ti, lo}
		}
	}
	return string(b), methodAt{-1, 0}
}

// methodAt is where a method name is in the state's tables:
// tables()[table].names[index].
type methodAt struct{ table, index int }

// found is what lookup and widest give for a method name, called as a
// request or as a notification.
type found struct {
	entry, eff *method
	ext        *tables
	wrongKind  bool
}

// find is lookup and widest, kept per name and kind: the tables do not
// change during a trace, and a trace calls few methods many times.
func (s *state) find(n string, at methodAt, hasID bool) found {
	if at.table < 0 {
		return s.resolve(n, hasID)
	}
	if s.found == nil {
		s.found = make([][][2]*found, len(s.tables()))
	}
	if s.found[at.table] == nil {
		s.found[at.table] = make([][2]*found, len(s.tables()[at.table].names))
	}
	k := 0
	if hasID {
		k = 1
	}
	slot := &s.found[at.table][at.index][k]
	if *slot == nil {
		f := s.resolve(n, hasID)
		*slot = &f
	}
	return **slot
}

// resolve is find without keeping the answer.
func (s *state) resolve(n string, hasID bool) found {
	var f found
	f.entry, f.ext, f.wrongKind = s.lookup(n, hasID)
	if f.entry != nil {
		f.eff = s.widest(f.entry)
	}
	return f
}

// lookup finds the entry of name as a request (hasID) or notification:
// in the version, else in an extension (ext set). If the name exists only
// as the other kind, that entry comes back with wrongKind set.
func (s *state) lookup(name string, hasID bool) (e *method, ext *tables, wrongKind bool) {
	kind, other := registry.KindNotification, registry.KindRequest
	if hasID {
		kind, other = other, kind
	}
	tabs := s.tables()
	for _, k := range []string{kind, other} {
		for i, t := range tabs {
			if e := t.methods[methodKey(name, k)]; e != nil {
				if i > 0 {
					ext = t
				}
				return e, ext, k != kind
			}
		}
	}
	return nil, nil, false
}

// call handles a request (hasID) or a notification, name found at at;
// idAt is the node of its id.
func (s *state) call(m *protocol.Message, name string, at methodAt, idAt int, hasID bool) {
	m.Label = name
	f := s.find(name, at, hasID)
	entry, ext, wrongKind := f.entry, f.ext, f.wrongKind
	if entry == nil {
		s.unknownMethod(m, name, idAt, hasID)
		return
	}
	if ext != nil && s.once("method "+name) {
		m.Add(finding.Warning, finding.RuleUnstable, "/method", "%s is not part of %s but of %s: a peer that implements only the stable protocol answers \"method not found\" (a notification it ignores); --dialect %s accepts it silently", protocol.Quote(name), s.t.v.Title, ext.v.Title, ext.v.Name)
	}
	// The sender: the sidecar says who sent the line; without it, the
	// method table says who may.
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
			m.Checks = append(m.Checks, s.withExt(protocol.Check{Schema: entry.params, Loc: s.t.atParams, Ptr: s.t.ptrParams, NearMiss: true, Closed: true}, entry, func(x *method) *protocol.Schema { return x.params }, "params"))
		}
	}
	// The state follows the widest table: an extension's entry for the
	// same method may add effects (a child session its new variant
	// announces). Schemas stay those of the entry found.
	eff := f.eff
	// On the stack: only a request that awaits its answer is kept.
	req := &request{line: m.Line, dir: dir, name: name, m: entry, eff: eff}
	if ef := &eff.Effects; hasID && (ef.StartsTurn != "" || ef.CancelledOutcome != nil || ef.Replay != "" || ef.ConfigOptions != nil) {
		// The answer's checks need the session the request names.
		for _, p := range [...]string{ef.Session, ef.AdoptsSession, ef.StartsTurn} {
			if p != "" && req.sid == "" {
				req.sid, _ = m.String(p)
			}
		}
	}
	if p := eff.Effects.ClosesSession; p != "" {
		req.closes, req.closing = m.String("/params" + strings.TrimPrefix(p, "/params"))
	}

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
		m.Add(finding.Error, RuleNotInitialized, "/method", "%s before initialize: the client must send initialize first, and nothing else may be exchanged until it is answered (later messages before initialize are not reported again)", name)
	case s.initialized && !s.initAnswered && !s.warnedInit && hasID && dir == c2a && s.stateful():
		s.warnedInit = true
		m.Add(finding.Error, RuleNotInitialized, "/method", "%s before initialize was answered: the client waits for the agent's answer, which names the version and capabilities the connection has, before it sends anything else (later messages are not reported again)", name)
	}
	if s.stateful() {
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
	if hasID {
		if k, ok := s.idKey(dir, m, idAt); ok {
			kept = new(request)
			*kept = *req
			s.pending.Put(string(k), kept)
		}
	}
	if s.stateful() {
		s.behaviour(m, eff, kept)
	}
}

// widest returns the last extension's entry for the same method and kind,
// or entry.
func (s *state) widest(entry *method) *method {
	for _, x := range s.ext {
		if xe := x.methods[methodKey(entry.Method, entry.Kind)]; xe != nil {
			entry = xe
		}
	}
	return entry
}

// tables returns the version's tables and then its extensions'.
func (s *state) tables() []*tables {
	if len(s.tabs) != 1+len(s.ext) {
		s.tabs = append(append(s.tabs[:0], s.t), s.ext...)
	}
	return s.tabs
}

// alt is the wider schema of a check, with its warning; a nil schema is
// none.
type alt struct {
	schema        *protocol.Schema
	version, note string
}

// withExt gives a check of a method of the version that an extension
// redefines the extension's schema as the wider alternative.
func (s *state) withExt(ck protocol.Check, entry *method, part func(*method) *protocol.Schema, what string) protocol.Check {
	if entry.v != s.t.v {
		return ck // already the extension's schema
	}
	i := 0 // params
	if what == "result" {
		i = 1
	}
	if s.alts == nil {
		s.alts = map[*method]*[2]*alt{}
	}
	parts := s.alts[entry]
	if parts == nil {
		parts = new([2]*alt)
		s.alts[entry] = parts
	}
	a := parts[i]
	if a == nil {
		a = &alt{}
		for _, x := range s.ext {
			xe := x.methods[methodKey(entry.Method, entry.Kind)]
			if xe == nil || part(xe) == nil || part(xe).ID == ck.Schema.ID {
				continue
			}
			*a = alt{schema: part(xe), version: x.v.Name, note: fmt.Sprintf("%s %s use additions of %s that %s lacks (a member, variant or value): a peer that implements only the stable protocol rejects or drops them; --dialect %s accepts them silently", entry.Method, what, x.v.Title, s.t.v.Title, x.v.Name)}
			break
		}
		parts[i] = a
	}
	if a.schema != nil {
		ck.Alt, ck.AltRule, ck.AltVersion, ck.AltNote = a.schema, finding.RuleUnstable, a.version, a.note
	}
	return ck
}

func (s *state) unknownMethod(m *protocol.Message, name string, idAt int, hasID bool) {
	m.Label = "unknown method"
	m.From = sideOf(m.Dir)
	switch near := suggest.Near(name, s.t.names); {
	case strings.HasPrefix(name, "_"):
		// ACP reserves names starting with "_" for extensions: a
		// receiver that does not know one ignores it (notification) or
		// answers "method not found" (request). That is the protocol
		// working, not a finding; the summary counts them.
		m.Label = "extension method"
	case near != "":
		// A misspelling of a method of the version: a defect.
		m.Add(finding.Error, RuleUnknownMethod, "/method", "unknown method %s: %s has no such method, and a receiver answers \"method not found\"; did you mean %q?", protocol.Quote(name), s.t.v.Title, near)
	case s.elsewhere(name) != "":
		// A method of another version: a receiver that does not
		// know it answers "method not found" (or ignores a
		// notification), which the protocol allows. A warning, so that
		// a peer probing for a newer method does not fail a build.
		m.Add(finding.Warning, RuleUnknownMethod, "/method", "method %s is not part of %s: a receiver that does not know it answers \"method not found\" (a notification it ignores); it is a method of %s", protocol.Quote(name), s.t.v.Title, s.elsewhere(name))
	default:
		// No version of ACP has it, and it is not an extension: names
		// outside the spec's must start with "_".
		m.Breach(reqMethodPrefix, finding.Error, RuleUnknownMethod, "/method", "method %s is part of no ACP version: a method of one's own must start with \"_\" (%s), so that it cannot collide with a future method of the protocol; a receiver answers \"method not found\"", protocol.Quote(name), protocol.Quote("_"+name))
	}
	if hasID {
		if k, ok := s.idKey(m.Dir, m, idAt); ok {
			s.pending.Put(string(k), &request{line: m.Line, dir: m.Dir, name: name})
		}
	}
}

// elsewhere names the other versions of the protocol that define a method.
func (s *state) elsewhere(name string) string {
	var out []string
	for _, v := range s.reg.Versions("acp") {
		if v != s.t.v && len(v.ACP.Named(name)) > 0 {
			out = append(out, v.Title)
		}
	}
	return strings.Join(out, " and ")
}

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
	ef := entry.Effects
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
				s.sessions.Put(sid, &session{fresh: true, toolCalls: protocol.NewRecent[bool](maxToolCalls)})
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
	for i, tc := range ef.ToolCalls {
		if !when(m, entry.toolCallWhen[i]) {
			continue
		}
		if tc.Creates != "" {
			if id, ok := m.String(tc.Creates); ok && sess.fresh {
				sess.toolCalls.Put(id, true)
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
			continue
		}
		id := string(idBytes)
		if sess.toolCalls.Forgotten(id) {
			s.windowNote(m, tc.Updates)
		} else {
			m.Add(finding.Error, RuleUnknownToolCall, tc.Updates, "update of unknown tool call %s: announce it first (a tool_call update) in session %s", protocol.Quote(id), protocol.Quote(string(sidBytes)))
		}
		sess.toolCalls.Put(id, true) // report it once
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
	type cand struct {
		key []byte
		req *request
	}
	// The keys of the id as each side's, read from the line's bytes.
	var cands [3]cand
	var keys [3][]byte
	nc, nk := 0, 0
	for _, from := range [...]string{c2a, a2c, ""} {
		if m.Dir != "" && from != opposite(m.Dir) && from != "" {
			continue
		}
		if k, ok := s.idKey(from, m, idAt); ok {
			keys[nk] = k
			nk++
			if r, _ := s.pending.GetBytes(k); r != nil {
				cands[nc] = cand{k, r}
				nc++
			}
		}
	}
	if nc == 0 {
		for _, k := range keys[:nk] {
			if _, ok := s.answered.GetBytes(k); ok {
				m.Add(finding.Error, RuleDuplicateResponse, "/id", "second response to request id %s: each request is answered exactly once", protocol.Display(m.Doc.Value(idAt)))
				return
			}
		}
		for _, k := range keys[:nk] {
			if s.pending.Forgotten(string(k)) || s.answered.Forgotten(string(k)) {
				s.windowNote(m, "/id")
				return
			}
		}
		if (s.initialized || !s.stateful()) && !s.lossy && !s.midSession {
			m.Add(finding.Error, RuleUnansweredResponse, "/id", "response with id %s answers no outstanding request: no request with this id was sent (or it was already answered)", protocol.Display(m.Doc.Value(idAt)))
		}
		return
	}
	hasResult := m.Has("/result")
	var result any // built only where it is read
	pick := 0
	if nc > 1 {
		// Both sides number their requests from 0, so the same id can
		// be outstanding in both directions. Take the one request whose
		// result schema the result fits; if none fits, the one whose
		// result schema defines more of its members; else the newer
		// request: a request made while another waits (the agent's
		// while the client's prompt runs) is answered first.
		newer := 0
		if cands[1].req.line > cands[0].req.line {
			newer = 1
		}
		pick = newer
		if hasResult {
			result = m.At("/result")
			fits, best, bestOverlap := -1, -1, 0
			for i, c := range cands[:nc] {
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
				pick = fits
			case best >= 0:
				pick = best
			}
		}
	}
	req := cands[pick].req
	key := string(cands[pick].key)
	m.From = sideOf(opposite(req.dir))
	m.Answers = req.line
	if req.eff != nil && req.eff.Effects.Initializes && hasResult {
		s.answeredVersion(m, req)
	}
	s.pending.Delete(key)
	s.answered.Put(key, true)
	if req.eff != nil && req.eff.Effects.CreatesSession != "" && s.creating > 0 {
		s.creating--
	}
	if req.m == nil {
		m.Label = "response (unknown method)"
		if s.stateful() && m.Has("/error") && !hasResult {
			s.answeredError(m, req)
		}
		if hasResult && s.stateful() {
			s.answeredUnknown(m, req)
		}
		if hasResult {
			// What an extension method (or one this version does not
			// know) creates is not in the tables: every id its answer
			// names may be a session, and is not reported as unknown.
			s.adoptStrings(m.At("/result"), 0)
		}
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
		m.RTSchema, m.RTPointer = req.m.result.ID, "/result"
		s.exercise(reqNoRootFields)
		m.Checks = append(m.Checks, s.withExt(protocol.Check{Schema: req.m.result, Loc: s.t.atResult, Ptr: s.t.ptrResult, NearMiss: true, Closed: true}, req.m, func(x *method) *protocol.Schema { return x.result }, "result"))
	}
	if !s.stateful() {
		return
	}
	s.answeredEffects(m, req)
	s.answeredBehaviour(m, req)
	if req.eff.Effects.Initializes {
		s.initAnswered = true
	}
}

// maxAdopted bounds the strings an unknown method's answer may make known.
const maxAdopted = 256

// adoptStrings makes every string in v known as a session id (a bounded
// number, a bounded depth).
func (s *state) adoptStrings(v any, depth int) int {
	n := 0
	switch v := v.(type) {
	case string:
		if len(v) <= 256 {
			s.known(v)
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
func (s *state) agreed(m *protocol.Message, ef registry.ACPEffects) {
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
	ef := req.eff.Effects
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
			s.sessions.Put(sid, &session{fresh: true, toolCalls: protocol.NewRecent[bool](maxToolCalls)})
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
