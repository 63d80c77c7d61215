package validate

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/pkg/wire"
)

// acpTables are the compiled ACP method table and envelopes.
type acpTables struct {
	t                               *table
	request, notification, response *compiled
	methodNames                     []string
}

func newACPTables(t *table, set *schemaSet) (*acpTables, error) {
	if err := t.compile(set); err != nil {
		return nil, fmt.Errorf("%s: %w", t.dir, err)
	}
	env := t.Envelope
	if env == "" {
		env = "jsonrpc.json"
	}
	a := &acpTables{t: t}
	var err error
	if a.request, err = set.get(t.dir, env+"#/$defs/Request"); err != nil {
		return nil, fmt.Errorf("acp envelope: %w", err)
	}
	if a.notification, err = set.get(t.dir, env+"#/$defs/Notification"); err != nil {
		return nil, fmt.Errorf("acp envelope: %w", err)
	}
	if a.response, err = set.get(t.dir, env+"#/$defs/Response"); err != nil {
		return nil, fmt.Errorf("acp envelope: %w", err)
	}
	for name := range t.methods {
		a.methodNames = append(a.methodNames, name)
	}
	sort.Strings(a.methodNames)
	return a, nil
}

// Directions of an ACP message.
const (
	c2a = "c2a" // client to agent
	a2c = "a2c" // agent to client
)

func opposite(dir string) string {
	switch dir {
	case c2a:
		return a2c
	case a2c:
		return c2a
	}
	return ""
}

// acpState follows one ACP connection (or several interleaved).
type acpState struct {
	tb *acpTables

	initialized bool           // an initialize request has been seen
	warnedInit  bool           // not-initialized was reported
	clientInit  map[string]any // the initialize params, once seen
	agentInit   map[string]any // the initialize result, once seen

	pending  *recent[*acpRequest] // outstanding requests by sender and id
	answered *recent[bool]        // recently answered requests by sender and id
	sessions *recent[*acpSession] // known session ids
	lossy    bool                 // a line could not be read
}

type acpRequest struct {
	line    int
	dir     string // sender of the request
	method  string
	entry   *methodEntry
	params  map[string]any
	options []string // session/request_permission option ids
}

type acpSession struct {
	toolCalls *recent[bool]
}

func newACPSession() *acpSession { return &acpSession{toolCalls: newRecent[bool](maxToolCalls)} }

func newACP(tb *acpTables) *acpState {
	return &acpState{
		tb:       tb,
		pending:  newRecent[*acpRequest](maxPending),
		answered: newRecent[bool](maxAnswered),
		sessions: newRecent[*acpSession](maxSessions),
	}
}

func (s *acpState) dialect() string { return s.tb.t.Version }

// stateful reports whether the session, tool-call, permission and
// capability rules apply: they follow ACP's own session model (initialize,
// sessionId, toolCallId), which a dialect such as VT Code's does not share.
// Response matching applies to every JSON-RPC dialect.
func (s *acpState) stateful() bool { return s.tb.t.methods["initialize"] != nil }

func (s *acpState) finish(int) []Finding { return nil }

// lost: an unreadable line may have been a request, so an answer to an
// unknown id is no longer an error.
func (s *acpState) lost(*message) { s.lossy = true }

// idKey renders a request id so that the string "1" and the number 1 differ.
func idKey(dir string, id any) (string, bool) {
	switch v := id.(type) {
	case string:
		return dir + " s:" + v, true
	case json.Number:
		return dir + " n:" + string(v), true
	}
	return "", false
}

func (s *acpState) step(m *message) {
	o := m.obj
	if o == nil {
		m.add(Error, RuleSchema, "", "an ACP message must be a JSON object (a JSON-RPC 2.0 request, notification or response), got %s", wire.Describe(m.value))
		return
	}
	method, hasMethod := o["method"]
	id, hasID := o["id"]
	if _, rpc := o["jsonrpc"]; !rpc {
		for _, rec := range s.tb.t.Records {
			if rec.matches(o) {
				// A dialect's non-JSON-RPC line (VT Code's streamed
				// updates and tool results).
				m.label = rec.Record
				m.rtSchema = rec.schema.id
				m.checks = append(m.checks, check{c: rec.schema, value: o})
				return
			}
		}
	}
	switch {
	case hasMethod:
		name, _ := method.(string)
		if !hasID {
			m.checks = append(m.checks, check{c: s.tb.notification, value: o})
		} else {
			m.checks = append(m.checks, check{c: s.tb.request, value: o})
		}
		if _, ok := method.(string); !ok {
			m.label = "invalid"
			return // the envelope check reports the method's type
		}
		s.call(m, name, id, hasID)
	case hasID || o["result"] != nil || o["error"] != nil:
		m.checks = append(m.checks, check{c: s.tb.response, value: o})
		s.response(m, id)
	default:
		m.label = "invalid"
		m.add(Error, RuleSchema, "", "neither a request, a notification nor a response: an ACP message has \"method\" (a request or notification) or \"id\" with \"result\" or \"error\" (a response)")
	}
}

// call handles a request (hasID) or a notification.
func (s *acpState) call(m *message, name string, id any, hasID bool) {
	o := m.obj
	entry := s.tb.t.methods[name]
	m.label = name
	if entry == nil {
		if strings.HasPrefix(name, "_") {
			// ACP reserves names starting with "_" for extensions: a
			// receiver that does not know one ignores it (notification)
			// or answers "method not found" (request). That is the
			// protocol working, not a finding; the summary counts them.
			m.label = "extension method"
		} else {
			msg := fmt.Sprintf("unknown method %q: ACP v1 has no such method, and a receiver answers \"method not found\"", name)
			if near := nearMethod(name, s.tb.methodNames); near != "" {
				msg += fmt.Sprintf("; did you mean %q?", near)
			} else {
				msg += "; extension methods must start with \"_\""
			}
			m.add(Error, RuleUnknownMethod, "/method", "%s", msg)
			m.label = "unknown method"
		}
		if hasID {
			if k, ok := idKey(m.dir, id); ok {
				s.pending.put(k, &acpRequest{line: m.rec.Line, dir: m.dir, method: name})
			}
		}
		return
	}
	// The sender: the sidecar says who sent the line; without it, the
	// method table says who may.
	dir := m.dir
	switch entry.Handler {
	case "agent":
		if dir == a2c {
			m.add(Error, RuleDirection, "/method", "%s is handled by the agent, so only the client sends it, but the direction sidecar says this line goes from agent to client", name)
		} else {
			dir = c2a
		}
	case "client":
		if dir == c2a {
			m.add(Error, RuleDirection, "/method", "%s is handled by the client, so only the agent sends it, but the direction sidecar says this line goes from client to agent", name)
		} else {
			dir = a2c
		}
	}
	if entry.Kind == "notification" && hasID {
		m.add(Error, RuleSchema, "/id", "%s is a notification: it must not carry an \"id\" (a receiver sends no answer)", name)
	}
	if entry.Kind == "request" && !hasID {
		m.add(Error, RuleSchema, "", "%s is a request: it needs an \"id\", which the answer repeats", name)
	}
	params, hasParams := o["params"]
	if entry.params != nil {
		m.rtSchema, m.rtPointer = entry.params.id, "/params"
		if !hasParams {
			params = map[string]any{}
			m.add(Error, RuleSchema, "/params", "%s needs \"params\" (acp: %s)", name, entry.Params)
		} else {
			m.checks = append(m.checks, check{c: entry.params, loc: []string{"params"}, value: params})
		}
	}
	pm, _ := params.(map[string]any)

	if name == "initialize" {
		s.initialized = true
		s.clientInit = pm
	} else if !s.initialized && !s.warnedInit && s.tb.t.methods["initialize"] != nil {
		// Once: a recording that began mid-connection would otherwise
		// flag every line.
		s.warnedInit = true
		m.add(Error, RuleNotInitialized, "/method", "%s before initialize: the client must send initialize first, and nothing else may be exchanged until it is answered (later messages before initialize are not reported again)", name)
	}
	if s.stateful() {
		s.capability(m, entry)
		if name == "elicitation/create" && pm != nil {
			s.elicitationMode(m, pm)
		}
		s.sessionRules(m, name, pm)
	}

	if hasID {
		k, ok := idKey(dir, id)
		if ok {
			req := &acpRequest{line: m.rec.Line, dir: dir, method: name, entry: entry, params: pm}
			if name == "session/request_permission" {
				req.options = optionIDs(pm)
			}
			s.pending.put(k, req)
		}
	}
}

// capability checks that the peer advertised what a method needs.
func (s *acpState) capability(m *message, entry *methodEntry) {
	if entry.Capability == "" {
		return
	}
	var init map[string]any
	var who, from string
	if entry.Handler == "client" {
		init, who, from = s.clientInit, "client", "initialize request's params"
	} else {
		init, who, from = s.agentInit, "agent", "initialize response's result"
	}
	if init == nil {
		return // not seen: the trace began after initialization
	}
	v := lookup(init, splitPointer(entry.Capability))
	if truthy(v) {
		return
	}
	m.add(Error, RuleCapability, "/method", "%s needs the %s capability %s, which the %s does not set; a peer must not call it unless it is advertised", entry.Method, who, entry.Capability, from)
}

// elicitationMode checks that elicitation/create uses a mode the client
// advertised under clientCapabilities.elicitation.
func (s *acpState) elicitationMode(m *message, pm map[string]any) {
	mode, ok := pm["mode"].(string)
	if !ok || s.clientInit == nil {
		return
	}
	ptr := "/clientCapabilities/elicitation/" + mode
	if truthy(lookup(s.clientInit, splitPointer(ptr))) {
		return
	}
	m.add(Error, RuleCapability, "/params/mode", "elicitation mode %q needs the client capability %s, which the initialize request's params does not set", mode, ptr)
}

// truthy reports whether an advertised capability is on: true, or an object
// (ACP advertises some capabilities as objects whose presence enables them).
func truthy(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case map[string]any:
		return true
	}
	return false
}

func splitPointer(p string) []string { return wire.SplitPointer(p) }

// sessionRules applies the session and tool-call rules to a request or
// notification.
func (s *acpState) sessionRules(m *message, name string, pm map[string]any) {
	if pm == nil {
		return
	}
	sid, ok := pm["sessionId"].(string)
	if !ok {
		return
	}
	switch name {
	case "session/new", "session/list":
		return
	case "session/load", "session/resume":
		// A session from before the trace began (or from another
		// connection): it becomes known here.
		if _, ok := s.sessions.get(sid); !ok {
			s.sessions.put(sid, newACPSession())
		}
		return
	}
	sess, _ := s.sessions.get(sid)
	if sess == nil {
		m.add(Error, RuleUnknownSession, "/params/sessionId", "unknown session %q: no session/new answer, session/load or session/resume in this trace introduced it", sid)
		sess = newACPSession()
		s.sessions.put(sid, sess) // report it once
	}
	switch name {
	case "session/update":
		u, _ := pm["update"].(map[string]any)
		if u == nil {
			return
		}
		tc, _ := u["toolCallId"].(string)
		switch u["sessionUpdate"] {
		case "tool_call":
			if tc != "" {
				sess.toolCalls.put(tc, true)
			}
		case "tool_call_update":
			if _, known := sess.toolCalls.get(tc); tc != "" && !known {
				m.add(Error, RuleUnknownToolCall, "/params/update/toolCallId", "tool_call_update for unknown tool call %q: announce it first with a tool_call update in session %q", tc, sid)
				sess.toolCalls.put(tc, true)
			}
		}
	case "session/request_permission":
		if tcall, ok := pm["toolCall"].(map[string]any); ok {
			if tc, ok := tcall["toolCallId"].(string); ok {
				sess.toolCalls.put(tc, true)
			}
		}
	}
}

func optionIDs(pm map[string]any) []string {
	opts, _ := pm["options"].([]any)
	var out []string
	for _, o := range opts {
		if om, ok := o.(map[string]any); ok {
			if id, ok := om["optionId"].(string); ok {
				out = append(out, id)
			}
		}
	}
	return out
}

// response matches a response to the request it answers and picks the
// result schema from that request's method.
func (s *acpState) response(m *message, id any) {
	o := m.obj
	m.label = "response"
	if id == nil {
		// JSON-RPC answers with a null id when it could not read the
		// request's id; it answers nothing we can follow.
		return
	}
	type cand struct {
		key string
		req *acpRequest
	}
	var cands []cand
	for _, from := range []string{c2a, a2c, ""} {
		if m.dir != "" && from != opposite(m.dir) && from != "" {
			continue
		}
		if k, ok := idKey(from, id); ok {
			if r, _ := s.pending.get(k); r != nil {
				cands = append(cands, cand{k, r})
			}
		}
	}
	if len(cands) == 0 {
		for _, from := range []string{c2a, a2c, ""} {
			if m.dir != "" && from != opposite(m.dir) && from != "" {
				continue
			}
			if k, ok := idKey(from, id); ok && s.isAnswered(k) {
				m.add(Error, RuleDuplicateResponse, "/id", "second response to request id %s: each request is answered exactly once", display(id))
				return
			}
		}
		if (s.initialized || s.tb.t.methods["initialize"] == nil) && !s.lossy {
			m.add(Error, RuleUnansweredResponse, "/id", "response with id %s answers no outstanding request: no request with this id was sent (or it was already answered)", display(id))
		}
		return
	}
	result, hasResult := o["result"]
	pick := 0
	if len(cands) > 1 {
		// Both sides number their requests from 0, so the same id can
		// be outstanding in both directions: take the request whose
		// result schema this result fits, else the older one.
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].req.line < cands[j].req.line })
		if hasResult {
			for i, c := range cands {
				if c.req.entry != nil && c.req.entry.result != nil && valid(c.req.entry.result, result) {
					pick = i
					break
				}
			}
		}
	}
	req := cands[pick].req
	s.pending.delete(cands[pick].key)
	s.answered.put(cands[pick].key, true)
	if req.entry == nil {
		m.label = "response (unknown method)"
		return
	}
	m.label = req.method + " response"
	if _, isErr := o["error"]; isErr && !hasResult {
		m.label = req.method + " error"
		return
	}
	if !hasResult {
		return
	}
	if req.entry.result != nil {
		m.rtSchema, m.rtPointer = req.entry.result.id, "/result"
		m.checks = append(m.checks, check{c: req.entry.result, loc: []string{"result"}, value: result})
	}
	rm, _ := result.(map[string]any)
	if !s.stateful() {
		return
	}
	switch req.method {
	case "initialize":
		s.agentInit = rm
	case "session/new":
		if sid, ok := rm["sessionId"].(string); ok {
			s.introduce(sid)
		}
	case "session/list":
		// Listed sessions exist: a client may load, resume or delete them.
		list, _ := rm["sessions"].([]any)
		for _, it := range list {
			if im, ok := it.(map[string]any); ok {
				if sid, ok := im["sessionId"].(string); ok {
					s.introduce(sid)
				}
			}
		}
	case "session/request_permission":
		out, _ := rm["outcome"].(map[string]any)
		if out == nil || out["outcome"] != "selected" {
			return
		}
		opt, ok := out["optionId"].(string)
		if !ok {
			return
		}
		for _, o := range req.options {
			if o == opt {
				return
			}
		}
		m.add(Error, RulePermissionOption, "/result/outcome/optionId", "option %q was not offered: the request on line %d offered %s", opt, req.line, quoteList(req.options))
	}
}

// Bounds of the ACP state (see recent): a rule looks back over at most this
// many answered requests, outstanding requests, sessions and tool calls per
// session. A duplicate answer to an older request is reported as an
// unanswered response: an error either way.
const (
	maxAnswered  = 4096
	maxPending   = 1 << 16
	maxSessions  = 1 << 12
	maxToolCalls = 1 << 14
)

func (s *acpState) isAnswered(key string) bool {
	_, ok := s.answered.get(key)
	return ok
}

// introduce makes a session id known.
func (s *acpState) introduce(sid string) {
	if _, ok := s.sessions.get(sid); !ok {
		s.sessions.put(sid, newACPSession())
	}
}

func quoteList(list []string) string {
	if len(list) == 0 {
		return "no options"
	}
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// nearMethod suggests a known method for a misspelt one.
func nearMethod(name string, known []string) string {
	f := fold(name)
	for _, k := range known {
		if fold(k) == f {
			return k
		}
	}
	best, bestD := "", 3
	for _, k := range known {
		if d := levenshtein(f, fold(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}
