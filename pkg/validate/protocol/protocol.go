// Package protocol is what a protocol's rules plug into: the Message the
// engine hands them line by line, the schema Checks they ask for, the
// compiled Schemas, the Rules and Handler interfaces each protocol package
// (rules/acp, rules/arcp, rules/arcan) implements, and the Annotator with
// which a protocol tells a reader of a trace what each message is (its
// brief, its sessions or jobs, the lifecycles it moves). It also holds the
// small helpers the rules share: JSON pointers over parsed values, bounded
// state (Recent) and inert rendering of input in messages.
package protocol

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/finding"
)

// Message is one record of a trace on its way through the engine.
//
// The record is parsed once, into Doc; the rules read what they need from
// it by JSON pointer (String, StringIs, Has, Strings), and a value is built
// as map[string]any, []any and json.Number only where one is asked for
// (Value, Obj, At), so that a line nobody looks into costs no values.
type Message struct {
	Line  int          // 1-based line of the record
	Index int          // 0-based position among the trace's records
	Data  []byte       // the record's bytes; never modified
	Doc   jsonscan.Doc // the parsed record
	// Dir is the direction a sidecar gave the record (one of the
	// protocol's Directions), or "".
	Dir string

	// From is the side that sent the message ("client", "agent",
	// "runtime"), as the rules decided it: the sidecar's direction, else
	// the sender the method or message table names, else the sender of
	// the request a response answers; "" when it cannot be told. Findings
	// on the message blame it unless they name another side.
	From string

	// Set by the rules:

	// Label names the message type for the summary ("session/update").
	Label string
	// Checks are the schema checks to run on the message.
	Checks []Check
	// State are the findings of the state rules.
	State []finding.Finding
	// RTSchema is the $id of the message's own schema, for --roundtrip,
	// and RTPointer where its value sits in the record.
	RTSchema, RTPointer string
	// Version, if set, names the schema version the message was checked
	// against when it differs from the trace's ("v1-unstable").
	Version string
	// Answers is the line of the request the message answers, as the
	// rules paired them; 0 for none.
	Answers int

	value any  // the whole value, once built
	built bool // value is set

	// The values the last pointers led into ("/params/update" for
	// "/params/update/sessionUpdate"), with their nodes: the rules read
	// several members of the same few.
	parents    [4]parent
	nextParent int
	// last is the last pointer find followed, and where it led: the
	// rules often test one member (a tag) against several values.
	last parent
}

// parent is a pointer and the Doc's node it leads to (-1: none).
type parent struct {
	ptr  string
	node int
}

// find follows a JSON pointer into the Doc; -1 if it leads nowhere. A
// member of the root is read directly; a deeper one from its parent,
// which is found the same way and kept.
func (m *Message) find(ptr string) int {
	if ptr == m.last.ptr && ptr != "" {
		return m.last.node
	}
	n := m.walk(ptr)
	m.last = parent{ptr, n}
	return n
}

// walk is find without the last pointer kept.
func (m *Message) walk(ptr string) int {
	i := strings.LastIndexByte(ptr, '/')
	if i < 0 {
		return m.Doc.Find(ptr)
	}
	tok := ptr[i+1:]
	if strings.IndexByte(tok, '~') >= 0 {
		return m.Doc.Find(ptr) // an escaped last token
	}
	if i == 0 {
		return m.Doc.Child(m.Doc.Root(), tok)
	}
	for _, p := range m.parents {
		if p.ptr == ptr[:i] && p.ptr != "" {
			return m.Doc.Child(p.node, tok)
		}
	}
	node := m.find(ptr[:i])
	m.parents[m.nextParent] = parent{ptr[:i], node}
	m.nextParent = (m.nextParent + 1) % len(m.parents)
	return m.Doc.Child(node, tok)
}

// Value returns the record's value as jsonscan.Parse builds it (numbers as
// json.Number), built on the first call.
func (m *Message) Value() any {
	if !m.built {
		m.value, m.built = m.Doc.Value(m.Doc.Root()), true
	}
	return m.value
}

// Obj returns Value when it is an object, else nil.
func (m *Message) Obj() map[string]any {
	o, _ := m.Value().(map[string]any)
	return o
}

// IsObject reports whether the record is a JSON object.
func (m *Message) IsObject() bool { return m.Doc.Type(m.Doc.Root()) == jsonscan.Object }

// Has reports whether a JSON pointer reaches a value (null included).
func (m *Message) Has(ptr string) bool { return m.find(ptr) >= 0 }

// String returns the string at a JSON pointer, if there is one.
func (m *Message) String(ptr string) (string, bool) { return m.Doc.String(m.find(ptr)) }

// StringBytes is String without making a string: a slice of the record's
// bytes when the string has no escapes (not to be kept past the message).
func (m *Message) StringBytes(ptr string) ([]byte, bool) { return m.Doc.StringBytes(m.find(ptr)) }

// StringIs reports whether the value at a JSON pointer is the string want.
func (m *Message) StringIs(ptr, want string) bool { return m.Doc.StringIs(m.find(ptr), want) }

// At builds the value at a JSON pointer; nil if it leads nowhere. Once the
// whole value is built, its parts are not built again.
func (m *Message) At(ptr string) any {
	if ptr == "" || m.built {
		return At(m.Value(), ptr)
	}
	return m.Doc.Value(m.find(ptr))
}

// AtPath builds the value at a location; nil if it leads nowhere. Once the
// whole value is built, its parts are not built again.
func (m *Message) AtPath(loc []string) any {
	if len(loc) == 0 || m.built {
		return Lookup(m.Value(), loc)
	}
	return m.Doc.Value(m.Doc.FindPath(loc))
}

// Resolve is the package's Resolve on the message: every value a pointer
// with "*" tokens reaches, with where it is. A pointer without "*" builds
// only the value it reaches.
func (m *Message) Resolve(ptr string) []Located {
	if strings.Contains(ptr, "*") {
		return Resolve(m.Value(), SplitPointer(ptr))
	}
	if !m.Has(ptr) {
		return nil
	}
	return []Located{{SplitPointer(ptr), m.At(ptr)}}
}

// Locate returns where the first value a pointer with "*" tokens reaches
// is (Resolve's first location), without building it when the pointer has
// no "*".
func (m *Message) Locate(ptr string) ([]string, bool) {
	if strings.Contains(ptr, "*") {
		if found := Resolve(m.Value(), SplitPointer(ptr)); len(found) > 0 {
			return found[0].Loc, true
		}
		return nil, false
	}
	return SplitPointer(ptr), m.Has(ptr)
}

// Present reports whether a pointer with "*" tokens reaches any value:
// len(Resolve(ptr)) > 0, without building what it reaches.
func (m *Message) Present(ptr string) bool {
	if strings.Contains(ptr, "*") {
		return len(Resolve(m.Value(), SplitPointer(ptr))) > 0
	}
	return m.Has(ptr)
}

// AbsentSomewhere is the package's AbsentSomewhere on the message: whether
// the pointer's last token is missing from an object the rest reaches.
func (m *Message) AbsentSomewhere(ptr string) bool {
	toks := SplitPointer(ptr)
	if len(toks) == 0 {
		return false
	}
	if strings.Contains(ptr, "*") {
		return AbsentSomewhere(m.Value(), toks)
	}
	parent := m.Doc.FindPath(toks[:len(toks)-1])
	return m.Doc.Type(parent) == jsonscan.Object && m.Doc.Member(parent, toks[len(toks)-1]) < 0
}

// Strings returns the string values a pointer reaches, where a "*" token
// stands for every element of an array (and every member of an object, in
// key order).
func (m *Message) Strings(ptr string) []string {
	if !strings.Contains(ptr, "*") {
		if s, ok := m.String(ptr); ok {
			return []string{s}
		}
		return nil
	}
	return Strings(m.Value(), ptr)
}

// Add records a state finding on the message's line, blaming its sender.
func (m *Message) Add(sev finding.Severity, rule, ptr, format string, args ...any) {
	m.State = append(m.State, finding.Finding{Line: m.Line, Severity: sev, Rule: rule, Pointer: ptr, Message: fmt.Sprintf(format, args...), Side: m.From})
}

// Breach records a state finding that shows the catalogue row req broken
// by the message's sender.
func (m *Message) Breach(req string, sev finding.Severity, rule, ptr, format string, args ...any) {
	m.State = append(m.State, finding.Finding{Line: m.Line, Severity: sev, Rule: rule, Pointer: ptr, Message: fmt.Sprintf(format, args...), Side: m.From, Requirement: req})
}

// Check is one schema to validate one value of a message against.
type Check struct {
	Schema *Schema
	Loc    []string // where the value sits in the message
	// Ptr is Loc as a JSON pointer, when the rules have it at hand (see
	// Pointer); "" with a non-empty Loc means it is made from Loc.
	Ptr   string
	Value any // the value at Loc; nil: the engine builds it from the message when it needs it
	// Skip drops schema findings at locations (relative to Value) that
	// another finding reports better.
	Skip func(loc []string) bool
	// Alt, if set, is a wider schema the value may pass instead (the
	// version's unstable additions). A value that fails Schema but passes
	// Alt gets one warning, rule AltRule with message AltNote, once per
	// trace and note, instead of errors; a value that fails both is
	// explained against Alt, as version AltVersion.
	Alt        *Schema
	AltRule    string
	AltNote    string
	AltVersion string
	// NearMiss asks, for a value its schema accepts, for a warning on
	// each member the schema does not define whose name is a near miss
	// of one it does (the protocol's objects are open, so the receiver
	// silently drops it).
	NearMiss bool
	// Closed asks, for a value its schema accepts, for an error on each
	// member the schema does not define (other than _meta): the
	// protocol's types take no members of one's own (ACP reserves every
	// name for its later versions). It implies NearMiss's hint.
	Closed bool
}

// Pointer is the JSON pointer of the check's location: Ptr, else one made
// from Loc.
func (c *Check) Pointer() string {
	if c.Ptr != "" || len(c.Loc) == 0 {
		return c.Ptr
	}
	return Pointer(c.Loc)
}

// Rules is one protocol's support. Implementations are safe for concurrent
// use; the per-trace state lives in the Handler that Start returns.
type Rules interface {
	// Name is the protocol's name, as the registry writes it.
	Name() string
	// Identify reports whether a message belongs to the protocol, from
	// the members that mark it.
	Identify(obj map[string]any) bool
	// Dialects lists the names --dialect accepts for the protocol.
	Dialects() []string
	// Directions lists the values a direction sidecar may hold for the
	// protocol's traces (nil: sidecars are not read).
	Directions() []string
	// Start begins a trace given its first messages (parsed, in order).
	Start(first []*Message, opts Start) (Handler, error)
}

// Disowner is implemented by Rules whose Identify also takes in another
// protocol that looks alike (any JSON-RPC 2.0 carries ACP's "jsonrpc").
// When a trace's protocol is detected rather than forced, the engine asks
// it about the trace's first messages (in order; those that did not parse
// have a nil Obj) before starting the rules.
type Disowner interface {
	// Disown reports, when the messages show the trace is another
	// protocol, the line to name and a finding's message that says what
	// the trace looks like; "" when the trace is the protocol's.
	Disown(first []*Message) (line int, why string)
}

// RuleDoc documents one rule of a protocol: its name, what it finds, and
// the catalogue rows its findings show broken. A rule may have several
// (one per set of rows and versions); one of them, with no rows of its
// own, describes the rule as a whole: its Severity and Text, from which
// the rule table of cmd/validate/README.md, the SARIF rules' help and the
// HTML report's are made.
type RuleDoc struct {
	Name    string
	Summary string
	// Severity is what the rule reports: "error", "warning", or
	// "error / warning" for a rule that reports both.
	Severity string
	// Text is what the rule catches, in Markdown (code in backquotes), as
	// one paragraph.
	Text string
	// Requirements are the ids of the rows the rule checks; the first is
	// the one a finding names when the rule did not name one.
	Requirements []string
	// Versions, if set, are the only versions whose traces the rule
	// checks (the method tables of the others lack what it reads).
	Versions []string
}

// Checks reports whether the rule checks row id in traces of version.
func (d RuleDoc) Checks(id, version string) bool {
	if len(d.Versions) > 0 && !slices.Contains(d.Versions, version) {
		return false
	}
	return slices.Contains(d.Requirements, id)
}

// Catalogued is implemented by Rules whose findings name the requirement
// they show broken and the side at fault.
type Catalogued interface {
	// RuleDocs lists the protocol's own rules, and the rows each engine
	// rule (schema, json, …) stands for in the protocol.
	RuleDocs() []RuleDoc
	// Blame completes a finding on m that names no requirement or side
	// (the engine's schema and JSON findings, and the rules' own where
	// the rule's first row is meant). It is called from any goroutine
	// and reads only m.From, m.Dir and the finding.
	Blame(f *finding.Finding, m *Message)
}

// Reporter is implemented by Handlers that tell the summary what a trace
// showed beyond its findings.
type Reporter interface {
	// Exercised lists the ids of the catalogue rows whose situation the
	// trace reached, so that they were checked (broken or not).
	Exercised() []string
	// Catalogue is the requirement catalogue of the version the trace
	// was read as.
	Catalogue() []string
	// Peers names the implementations on each side, as the trace
	// announces them.
	Peers() []finding.Peer
}

// Start is what the user said about a trace.
type Start struct {
	// Dialect is the version or dialect the user forced (one of
	// Dialects), or "" to detect it.
	Dialect string
	// Partial says whether the trace is a capture that began mid-session:
	// PartialAuto decides from the trace.
	Partial Partial
}

// Partial says how to read a trace's beginning.
type Partial int

const (
	// PartialAuto reads a trace whose first messages refer to state it
	// never saw as a capture that began mid-session.
	PartialAuto Partial = iota
	// PartialYes reads every trace as a mid-session capture.
	PartialYes
	// PartialNo reads every trace as complete: state it never saw is an
	// error.
	PartialNo
)

// Handler follows one trace of a protocol.
type Handler interface {
	// Step picks the schema checks of m and applies the state rules. It
	// runs sequentially, in trace order.
	Step(m *Message)
	// Lost tells the state that a record could not be read: the rules
	// must not invent errors for what it may have held.
	Lost(m *Message)
	// Finish reports what the end of the trace reveals.
	Finish(lastLine int) []finding.Finding
	// Dialect names the schema set or SDK dialect in use.
	Dialect() string
	// Note says in one line how the trace was read and why ("acp v2:
	// initialize protocolVersion 2, line 1"), or "".
	Note() string
}

// Exercise is a set of the catalogue rows a trace exercised, for a
// Reporter: rows are noted by id, or by the rule whose check ran (each of
// the rule's rows).
type Exercise struct {
	ids    map[string]bool
	byRule map[string][]string
}

// NewExercise returns an empty set that maps rule names to their rows as
// docs say.
func NewExercise(docs []RuleDoc) *Exercise {
	e := &Exercise{ids: map[string]bool{}, byRule: map[string][]string{}}
	for _, d := range docs {
		e.byRule[d.Name] = append(e.byRule[d.Name], d.Requirements...)
	}
	return e
}

// Row notes one row, and reports whether it was noted before.
func (e *Exercise) Row(id string) (before bool) {
	if e.ids[id] {
		return true // most calls: a look-up costs less than a store
	}
	e.ids[id] = true
	return false
}

// Rule notes every row of a rule whose check ran.
func (e *Exercise) Rule(name string) {
	for _, id := range e.byRule[name] {
		e.ids[id] = true
	}
}

// IDs lists the rows noted, sorted.
func (e *Exercise) IDs() []string {
	out := make([]string, 0, len(e.ids))
	for id := range e.ids {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}
