// Package acp holds the validator's rules for ACP (Agent Client Protocol)
// traces: JSON-RPC 2.0 messages between an editor (the client) and a coding
// agent.
//
// What each ACP version means is data, in the registry (schema/registry):
// per method its kind, the side that handles it, its params and result
// schemas, the capability that gates it and its effects on state (creates
// or introduces sessions, uses one, creates or updates tool calls, offers
// and chooses permission options). This package is the interpreter of
// those tables; its rules name no method. Only the annotator (annotate.go),
// which tells a person reading the trace what each message is, names the
// members and methods one looks for.
//
// The version is the trace's own: initialize's protocolVersion picks it,
// and without an initialize (a capture that began mid-session) the methods
// seen decide. ACP v1 traces are read with the stable schemas, and the
// first use of each unstable addition (a method, a variant, a member) is
// one warning rather than errors; --dialect v1 makes them errors and
// --dialect v1-unstable accepts them silently.
package acp

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/agentproto/agentproto/internal/suggest"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// Rules are ACP's rules; New makes them. They are safe for concurrent use.
type Rules struct {
	reg     *registry.Registry
	schemas *protocol.Schemas

	mu       sync.Mutex
	compiled map[string]*tables // by version name

	// methodNames lists the methods of every ACP version, made once,
	// when a trace's detection first asks (Disown).
	methodNames func() []string
}

// New returns ACP's rules over the registry's ACP versions.
func New(reg *registry.Registry, schemas *protocol.Schemas) *Rules {
	r := &Rules{reg: reg, schemas: schemas, compiled: map[string]*tables{}}
	r.methodNames = sync.OnceValue(r.allMethodNames)
	return r
}

// Name is "acp".
func (*Rules) Name() string { return "acp" }

// Dialects lists the ACP versions and dialects.
func (r *Rules) Dialects() []string { return r.reg.DialectNames("acp") }

// Directions are the values of an ACP direction sidecar: client to agent,
// agent to client.
func (*Rules) Directions() []string { return []string{c2a, a2c} }

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

// Identify: ACP messages carry "jsonrpc"; a dialect's other records carry
// the keys its table lists.
func (r *Rules) Identify(o map[string]any) bool {
	if _, ok := o["jsonrpc"]; ok {
		return true
	}
	return r.record(o) != nil
}

// mcpMethods are methods of the Model Context Protocol that ACP does not
// define: their presence says a JSON-RPC trace is MCP traffic.
var mcpMethods = map[string]bool{
	"notifications/initialized": true, "tools/list": true, "tools/call": true,
	"resources/list": true, "resources/read": true, "resources/templates/list": true,
	"resources/subscribe": true, "prompts/list": true, "prompts/get": true,
	"logging/setLevel": true, "completion/complete": true, "sampling/createMessage": true,
	"roots/list": true, "elicitation/create": true, "notifications/tools/list_changed": true,
	"notifications/resources/updated": true, "notifications/progress": true, "notifications/message": true,
}

// Disown looks at the first batch of a file detected as ACP (by its
// "jsonrpc" member) and says, when its requests and notifications show it
// is another JSON-RPC protocol, what it looks like: MCP (by its methods, or
// an initialize whose protocolVersion is a date), or JSON-RPC none of whose
// methods is an ACP method or a near miss of one. A batch without methods
// (only answers) or with any ACP method, extension method or misspelt ACP
// method is ACP. It returns the line of the first request and the message.
func (r *Rules) Disown(first []*protocol.Message) (int, string) {
	known := r.methodNames()
	var methods []string
	seen := map[string]bool{}
	line := 0
	var mcp, mcpM []string
	for _, msg := range first {
		o := msg.Obj()
		if o == nil {
			continue
		}
		if _, ok := o["jsonrpc"]; !ok {
			return 0, "" // an ACP record of a dialect without JSON-RPC
		}
		m, ok := o["method"].(string)
		if !ok {
			continue
		}
		if line == 0 {
			line = msg.Line
		}
		if seen[m] {
			continue // judged already
		}
		if m == "initialize" {
			if v, ok := protocol.Lookup(o, []string{"params", "protocolVersion"}).(string); ok && len(v) == 10 && strings.Count(v, "-") == 2 {
				mcp = append(mcp, fmt.Sprintf("an initialize whose protocolVersion is the date %s", protocol.Quote(v)))
				continue
			}
		}
		if strings.HasPrefix(m, "_") || slices.Contains(known, m) || suggest.Near(m, known) != "" {
			return 0, ""
		}
		if mcpMethods[m] && len(mcpM) < 3 {
			mcpM = append(mcpM, protocol.Quote(m))
		}
		seen[m] = true
		if len(methods) < 4 {
			methods = append(methods, protocol.Quote(m))
		}
	}
	if len(mcpM) > 0 {
		mcp = append(mcp, "the methods "+strings.Join(mcpM, ", "))
	}
	switch {
	case len(mcp) > 0:
		return line, fmt.Sprintf("this looks like MCP (Model Context Protocol) traffic, not the Agent Client Protocol: JSON-RPC 2.0 with %s. agentproto checks ACP, ARCP and Arcan traces, so this file is not checked further; check MCP traffic with an MCP tool, or use --protocol acp if it really is ACP", strings.Join(mcp, " and "))
	case len(methods) > 0:
		return line, fmt.Sprintf("this is JSON-RPC 2.0, but none of its methods is an ACP method (it uses %s): agentproto checks ACP, ARCP and Arcan traces, so this file is not checked further; if it is ACP of a version agentproto does not know yet, use --protocol acp to check it anyway", strings.Join(methods, ", "))
	}
	return 0, ""
}

// allMethodNames lists the methods of every ACP version (Rules.methodNames
// makes the list once).
func (r *Rules) allMethodNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range r.reg.Versions("acp") {
		if v.ACP() == nil {
			continue
		}
		for _, m := range v.ACP().Methods {
			if !seen[m.Method] {
				seen[m.Method] = true
				out = append(out, m.Method)
			}
		}
	}
	return out
}

// record returns the dialect version whose non-JSON-RPC record o is.
func (r *Rules) record(o map[string]any) *registry.Version {
	if _, ok := o["jsonrpc"]; ok {
		return nil
	}
	has := func(k string) bool { _, ok := o[k]; return ok }
	for _, v := range r.reg.Versions("acp") {
		for _, rec := range v.ACP().Records {
			if rec.Matches(has) {
				return v
			}
		}
	}
	return nil
}

// tables are one version's method table with its schemas compiled.
type tables struct {
	v                               *registry.Version
	request, notification, response *protocol.Schema
	methods                         map[key]*method // by name and kind
	names                           []string        // method names, sorted
	records                         []record
	// Where params and results sit, shared by every check (read only).
	atParams, atResult []string
	// ptrParams and ptrResult are atParams and atResult as pointers.
	ptrParams, ptrResult string
}

type method struct {
	*registry.ACPMethod
	v              *registry.Version
	params, result *protocol.Schema
	// The conditions of Effects.Sessions and Effects.ToolCalls, one list
	// each, in the same order.
	sessionWhen, toolCallWhen [][]cond
	// The summary's names of its answers ("session/new response").
	responseLabel, errorLabel string
	// The conditions of Effects.Advertises, ConfigOptions and
	// TurnState, made once.
	adWhen               []ads
	configWhen, turnWhen []cond
	elicitWhen           []cond
	formWhen             []cond
}

// ads is one offer of Effects.Advertises with its conditions, and its
// pointer cut at its "*" (base, then the rest after it; star is set when
// it has one).
type ads struct {
	*registry.ACPAdvertisement
	when       []cond
	base, rest string
	star       bool
	agents     bool // the capability is the agent's, not the client's
}

// cond is one condition of an effect: the string at a pointer.
type cond struct{ ptr, want string }

// conds lists the conditions of a When map, by pointer.
func conds(when map[string]string) []cond {
	out := make([]cond, 0, len(when))
	for p, w := range when {
		out = append(out, cond{p, w})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ptr < out[j].ptr })
	return out
}

type record struct {
	*registry.ACPRecord
	schema *protocol.Schema
}

// key is a method table's key: a method's name and kind.
type key struct{ name, kind string }

func methodKey(name, kind string) key { return key{name, kind} }

func (r *Rules) tables(v *registry.Version) (*tables, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t := r.compiled[v.Name]; t != nil {
		return t, nil
	}
	t := &tables{v: v, methods: map[key]*method{}, atParams: []string{"params"}, atResult: []string{"result"}, ptrParams: "/params", ptrResult: "/result"}
	var err error
	get := func(ref string) *protocol.Schema {
		if err != nil {
			return nil
		}
		var s *protocol.Schema
		s, err = r.schemas.Get(v.SchemaID(ref))
		return s
	}
	env := v.ACP().Envelope
	t.request = get(env + "#/$defs/Request")
	t.notification = get(env + "#/$defs/Notification")
	t.response = get(env + "#/$defs/Response")
	if err != nil {
		return nil, fmt.Errorf("%s: envelope: %w", v, err)
	}
	for _, m := range v.ACP().Methods {
		mm := &method{ACPMethod: m, v: v, params: get(m.Params), result: get(m.Result), responseLabel: m.Method + " response", errorLabel: m.Method + " error"}
		for _, se := range m.Effects.Sessions {
			mm.sessionWhen = append(mm.sessionWhen, conds(se.When))
		}
		for _, tc := range m.Effects.ToolCalls {
			mm.toolCallWhen = append(mm.toolCallWhen, conds(tc.When))
		}
		for i := range m.Effects.Advertises {
			ad := &m.Effects.Advertises[i]
			a := ads{ACPAdvertisement: ad, when: conds(ad.When), base: ad.At, agents: agentsCapability(ad, m.Handler)}
			if b, r, ok := strings.Cut(ad.At, "/*"); ok {
				a.base, a.rest, a.star = b, r, true
			}
			mm.adWhen = append(mm.adWhen, a)
		}
		if c := m.Effects.ConfigOptions; c != nil {
			mm.configWhen = conds(c.When)
		}
		if t := m.Effects.TurnState; t != nil {
			mm.turnWhen = conds(t.When)
		}
		if e := m.Effects.Elicitation; e != nil {
			mm.elicitWhen = conds(e.When)
		}
		if f := m.Effects.Form; f != nil {
			mm.formWhen = conds(f.When)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: method %s: %w", v, m.Method, err)
		}
		t.methods[methodKey(m.Method, m.Kind)] = mm
	}
	t.names = v.ACP().MethodNames()
	sort.Strings(t.names)
	for _, rec := range v.ACP().Records {
		s := get(rec.Schema)
		if err != nil {
			return nil, fmt.Errorf("%s: record %s: %w", v, rec.Record, err)
		}
		t.records = append(t.records, record{rec, s})
	}
	r.compiled[v.Name] = t
	return t, nil
}

// agentsCapability reports whether the capability an offer needs is the
// agent's: v1 names it so, and v2, whose pointers are the same for both
// sides, needs the capability of the side that receives the offer (the
// handler of a request's params, the sender of the request of a result).
func agentsCapability(ad *registry.ACPAdvertisement, handler string) bool {
	if !strings.HasPrefix(ad.Capability, "/capabilities/") {
		return strings.HasPrefix(ad.Capability, "/agentCapabilities/")
	}
	inResult := strings.HasPrefix(ad.At+"/", "/result/")
	return (handler == registry.HandlerAgent) != inResult
}

// Start picks the version of a trace and returns its state.
func (r *Rules) Start(first []*protocol.Message, opts protocol.Start) (protocol.Handler, error) {
	v, why, strict := r.pick(first, opts.Dialect)
	if v == nil {
		return nil, fmt.Errorf("no ACP version in the registry")
	}
	t, err := r.tables(v)
	if err != nil {
		return nil, err
	}
	s := newState(r.reg, t, why, opts.Partial)
	s.tablesOf, s.strict = r.tables, strict
	if !strict {
		// The version's unstable additions are accepted, each first use
		// a warning.
		for _, x := range r.reg.Extensions(v) {
			xt, err := r.tables(x)
			if err != nil {
				return nil, err
			}
			s.ext = append(s.ext, xt)
		}
	}
	return newBatching(s), nil
}

// pick names the version of a trace: the one the user forced; else a
// dialect whose records or member spellings the first messages show; else
// the version initialize's protocolVersion names; else the version whose
// methods the first messages use; else the default. strict is set when the
// user named the version, so that its extensions are not accepted.
func (r *Rules) pick(first []*protocol.Message, dialect string) (v *registry.Version, why string, strict bool) {
	def := r.reg.Default("acp")
	if dialect != "" {
		if v := r.reg.Lookup("acp", dialect); v != nil {
			return v, "--dialect " + dialect, true
		}
	}
	for _, m := range first {
		if m.Obj() == nil {
			continue
		}
		if v := r.record(m.Obj()); v != nil {
			return v, fmt.Sprintf("its records, line %d", m.Line), false
		}
	}
	if v := r.snakeDialect(first); v != nil {
		return v, "snake_case session_id members", false
	}
	// initialize names the version: the client's proposal, until the
	// agent's answer names the version the connection speaks (a client
	// proposes its latest, an agent that does not support it answers
	// with its own), when the state changes to it. The answer decides
	// here only when the trace holds no request: a live check and a
	// check of its recording then read every line the same way, however
	// the lines were batched.
	if n, line, who, ok := r.wireVersion(first, def); ok {
		if v := r.reg.ByWireVersion("acp", int(n)); v != nil {
			return v, fmt.Sprintf("initialize %s protocolVersion %d, line %d", who, n, line), false
		}
		return def, fmt.Sprintf("initialize %s protocolVersion %d, which no known version has; read as %s, line %d", who, n, def.Title, line), false
	}
	// No initialize: the version whose tables know the most of the
	// methods used.
	best, bestScore := def, r.score(def, first)
	for _, v := range r.reg.Versions("acp") {
		if v.Dialect || v.Extends != "" || v == def {
			continue
		}
		if s := r.score(v, first); s > bestScore {
			best, bestScore = v, s
		}
	}
	if best != def {
		return best, "the methods of its first messages (no initialize)", false
	}
	return def, "the default (no initialize in the first messages)", false
}

// wireVersion finds the protocol version initialize names in the first
// messages: the request's (the version proposed), else, in a trace that
// lacks the request, the answer's.
func (r *Rules) wireVersion(first []*protocol.Message, def *registry.Version) (n int64, line int, who string, ok bool) {
	init := def.ACP().Initialize()
	if init == nil {
		return 0, 0, "", false
	}
	for _, want := range []string{"request", "response"} {
		for _, m := range first {
			if m.Obj() == nil {
				continue
			}
			name, _ := m.Obj()["method"].(string)
			_, isResult := m.Obj()["result"]
			if want == "request" && name != init.Method || want == "response" && !isResult {
				continue
			}
			for _, ptr := range init.Effects.VersionAt {
				if v, found := protocol.IntValue(protocol.At(m.Obj(), ptr)); found && (want == "request") == strings.HasPrefix(ptr, "/params/") {
					return v, m.Line, want, true
				}
			}
			if want == "request" {
				break // the first initialize request names it
			}
		}
	}
	return 0, 0, "", false
}

// score counts the first messages whose method v (or an extension of it)
// knows, less those it does not.
func (r *Rules) score(v *registry.Version, first []*protocol.Message) int {
	tabs := append([]*registry.Version{v}, r.reg.Extensions(v)...)
	n := 0
	for _, m := range first {
		name, ok := m.Obj()["method"].(string)
		if !ok || strings.HasPrefix(name, "_") {
			continue
		}
		known := false
		for _, t := range tabs {
			known = known || len(t.ACP().Named(name)) > 0
		}
		if known {
			n++
		} else {
			n--
		}
	}
	return n
}

// snakeDialect returns a dialect whose JSON-RPC messages carry snake_case
// session_id where ACP has sessionId, if the first messages do.
func (r *Rules) snakeDialect(first []*protocol.Message) *registry.Version {
	for _, m := range first {
		for _, k := range []string{"params", "result"} {
			p, ok := m.Obj()[k].(map[string]any)
			if !ok {
				continue
			}
			_, snake := p["session_id"]
			_, camel := p["sessionId"]
			if snake && !camel {
				for _, v := range r.reg.Versions("acp") {
					if v.Dialect {
						return v
					}
				}
			}
		}
	}
	return nil
}
