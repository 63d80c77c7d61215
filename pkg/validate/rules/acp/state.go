package acp

import (
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/finding"
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
	ob     obligations   // cursors given, terminals unreleased

	// tablesOf compiles another version's tables (Rules.tables), for the
	// version initialize's answer names; strict is set when the user
	// named the version, which then never changes.
	tablesOf func(*registry.Version) (*tables, error)
	strict   bool

	exercised    *protocol.Exercise // requirements whose situation the trace reached
	noted        [32]string         // rows exercise noted, by a hash of the id (a cache of exercised)
	authMethods  string             // where the initialize result lists auth methods
	initAnswered bool               // an initialize was answered
	// unreadable counts the lines whose id a receiver could not read
	// (not JSON, or neither request, notification nor response, or an
	// id of the wrong type) and that no null-id answer answered yet.
	unreadable int
	stepped    bool // a message has been seen
	// notified is each side's latest notification that no null-id
	// answer answered yet, by direction: what such an answer may be
	// answering.
	notified map[string]lastNotif
	// closeOwed is the line of an initialize answer naming a version the
	// client cannot speak (closeVersion), until the client's next message.
	closeOwed    int
	closeVersion int64
	closeAbove   bool
	// otherBody: initialize was answered with another version's body,
	// reported as one finding; its members are not judged one by one.
	otherBody bool
}

// lastNotif is a notification a null-id answer may answer.
type lastNotif struct {
	name string
	line int
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
	// cancelledBy is the method that cancelled the turn (session/cancel,
	// or session/close, which cancels as it does).
	cancelledBy string
	replay      string // when the answer replays the session's history (registry.Replay…)
	// cancelRequested is the line of the $/cancel_request its sender sent
	// for it, 0 if none.
	cancelRequested int
	// baseline says what the request's content is when every agent
	// accepts all of it (effect BaselineContent): "text" when it is only
	// text, "baseline" when it is only the baseline types, else "".
	baseline string
	// roots are the root directories of the session the request sets up
	// (effect Roots); accepts is what it carries that every agent
	// accepts (effect MustAccept); form is the form of a form-mode
	// elicitation (effect Form).
	roots   []string
	accepts *registry.ACPMustAccept
	form    *formAsked
	// twin is the earlier request of the same sender whose id this one
	// reused while it was pending: it awaits its answer too.
	twin *request
}

type session struct {
	// fresh: created in this trace, so its whole history is here and its
	// tool calls can be checked.
	fresh bool
	// toolCalls are its tool calls, each with its progress (toolSeen,
	// toolPending, toolRunning).
	toolCalls *protocol.Recent[uint8]
	turns     *turnState // made when a turn, replay or config list first needs it
	// setUp: created, loaded or resumed on this connection, not only
	// heard of; roots are its root directories where known; configLine
	// is the line of the answer that last offered config options for it.
	setUp      bool
	cwd        string // its working directory, where known
	roots      []string
	configLine int
	// modes are the ids of the modes it offers, and options its config
	// options, once an answer offered them.
	modes   []string
	options map[string]configOffer
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

func (s *state) Finish(lastLine int) []finding.Finding {
	if !s.stateful() {
		return nil
	}
	return append(s.unanswered(lastLine), s.unfinishedWork(lastLine)...)
}

// Lost: an unreadable line may have been a request, so an answer to an
// unknown id is no longer an error.
func (s *state) Lost(m *protocol.Message) {
	s.lossy = true
	s.unreadable++
	m.From = sideOf(m.Dir)
}

// stateful reports whether the session, tool-call, permission and
// capability rules apply: they follow ACP's handshake and session model,
// which a dialect without an initialize method does not share. Response
// matching applies to every JSON-RPC dialect.
func (s *state) stateful() bool { return s.t.v.ACP().Initialize() != nil }

// once reports whether the warning keyed k is given for the first time.
func (s *state) once(k string) bool { return s.warned.First(k) }

func (s *state) Step(m *protocol.Message) {
	if !s.stepped {
		s.stepped = true
		for _, id := range [...]string{reqSchema, reqUTF8, reqAgentStdout, reqClientStdin, reqInitFirst, "acp.transport.no-embedded-newline"} {
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
			s.unreadable++
			return // the envelope check reports the method's type
		}
		if hasID && !readableID(d, idAt) {
			// Its receiver cannot answer it by id: it may answer
			// with a null id.
			s.unreadable++
		}
		if hasID && s.stateful() {
			s.requestID(m, idAt)
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
		s.unreadable++
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
func (s *state) withExt(m *protocol.Message, ck protocol.Check, entry *method, part func(*method) *protocol.Schema, what string) protocol.Check {
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
