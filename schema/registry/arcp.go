package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
)

// ARCPTable is an ARCP version's (or dialect's) dispatch table: its message
// types, job event kinds, the features that gate members, and the known
// SDKs' deviations from it.
type ARCPTable struct {
	Protocol string `json:"protocol"`
	Version  string `json:"version"`
	// VendorEventKind is a regular expression for event kinds outside
	// the reserved ones that receivers ignore (x-vendor.*).
	VendorEventKind string          `json:"vendor_event_kind"`
	Messages        []*ARCPMessage  `json:"messages"`
	Events          []*ARCPEvent    `json:"events"`
	FieldFeatures   []*FieldFeature `json:"field_features"`
	// Rules are the protocol's sequencing rules: the ones a trace can show
	// and no single message's schema can, each with the interpreter check
	// that applies it (or why none does).
	Rules []*ARCPRule `json:"rules"`
	// Leases says how the lease checks read operations and costs.
	Leases *ARCPLeases `json:"leases"`

	// Deviations are the known SDKs' departures from this version, from
	// deviations.json beside the dispatch table.
	Deviations []*Deviation `json:"-"`
	// Signals are format traits that point at an SDK without departing
	// from the protocol (id shapes, key spellings), from deviations.json.
	Signals []*Signal `json:"-"`

	vendorKind *regexp.Regexp
}

// ARCPMessage is one message type.
type ARCPMessage struct {
	Type   string `json:"type"`
	Schema string `json:"schema"`
	// Feature is the negotiated feature the type needs ("" for none).
	Feature string `json:"feature"`
	// Direction is the sender: "client" or "runtime".
	Direction string `json:"direction"`
	// Since is the protocol version that introduced the type.
	Since string `json:"since"`
	// Sequenced messages carry the session's gap-free event_seq.
	Sequenced bool `json:"sequenced"`
	// Terminal messages end their job.
	Terminal bool `json:"terminal"`
	// Handshake marks the messages that open a session.
	Handshake bool `json:"handshake"`
	// SupersededBy names the type that replaces this one.
	SupersededBy string `json:"superseded_by"`

	// Effect is what the message does to the state the rules follow:
	// "hello" (opens or resumes a session on a connection), "welcome"
	// (announces the session), "resume", "submit", "refuse" (answers a
	// submit without a job), "accept", "subscribe" (attaches to a job) or
	// "list" (names existing jobs); "" for none.
	Effect string `json:"effect"`
	// Job is where the effect finds the job ids ("*" allowed).
	Job string `json:"job"`
	// Session is where a welcome names the session.
	Session string `json:"session"`
	// Features is where a hello or welcome lists its feature flags.
	Features string `json:"features"`
	// ResumeSession and ResumeSeq are where a resume names the session
	// and the last event_seq the client processed; ResumeFlat is a member
	// whose presence marks a resume that names no session.
	ResumeSession string `json:"resume_session"`
	ResumeSeq     string `json:"resume_seq"`
	ResumeFlat    string `json:"resume_flat"`

	// Principal is where a hello names who speaks (its bearer token):
	// idempotency keys are the principal's.
	Principal string `json:"principal"`
	// Interval is where a welcome gives the heartbeat interval in
	// seconds; Agents where it lists the agent inventory.
	Interval string `json:"interval"`
	Agents   string `json:"agents"`
	// Key and Params are where a submit carries its idempotency key and
	// the parameters an identical resubmission repeats.
	Key    string `json:"key"`
	Params string `json:"params"`
	// Agent is where a submit names the agent it asks for, or where an
	// acceptance, subscription or listing names the resolved agent
	// (Entries: the listing's entries, each with job_id and agent).
	Agent   string `json:"agent"`
	Entries string `json:"entries"`
	// Trace lists where the message carries its trace id, the first
	// present wins; Parent is where an acceptance names the delegating
	// job.
	Trace  StringList `json:"trace"`
	Parent string     `json:"parent"`
	// Time is where the message carries its sender's own clock.
	Time string `json:"time"`
	// Code is where a refusal or error carries its error code, and
	// Status where a terminal message carries its final status.
	Code   string `json:"code"`
	Status string `json:"status"`
	// Lease, Expires and Budget are where a submit asks for a lease, or
	// where an acceptance or subscription states the effective lease, its
	// expiry and its budget counters.
	Lease   string `json:"lease"`
	Expires string `json:"expires"`
	Budget  string `json:"budget"`
}

// ARCPRule is one sequencing rule of the protocol. Check names the
// interpreter that applies it; the other members are its parameters, as
// schema/arcp/README.md describes them. A rule without Check is documented
// but not checked, and Unchecked says why.
type ARCPRule struct {
	ID        string `json:"id"`
	Section   string `json:"section"`
	Keyword   string `json:"keyword"`
	Text      string `json:"text"`
	Check     string `json:"check"`
	Unchecked string `json:"unchecked"`
	// Finding selects one of the check's findings ("gap", "order", …).
	Finding string `json:"finding"`
	// Scope "started" applies the rule only in a session whose start is
	// in the trace.
	Scope string `json:"scope"`
	// Types and Type are the message types the rule looks at; Kind
	// narrows a job.event rule to one event kind.
	Types []string `json:"types"`
	Type  string   `json:"type"`
	Kind  string   `json:"kind"`
	// Job points at the job a message is about.
	Job string `json:"job"`
	// OpenedBy lists the effects that make a job known to the session.
	OpenedBy []string `json:"opened_by"`
	// Left, Op and Right compare two numbers of one message.
	Left  string `json:"left"`
	Op    string `json:"op"`
	Right string `json:"right"`
	// Result, Index and More locate a streamed result's id, chunk index
	// and continuation flag; Inline lists where an inline result sits.
	Result string   `json:"result"`
	Index  string   `json:"index"`
	More   string   `json:"more"`
	Inline []string `json:"inline"`
	// Key is the member of an answer that names its request; Request is
	// the request's type and RequestKey the member the key echoes.
	Key        string `json:"key"`
	Request    string `json:"request"`
	RequestKey string `json:"request_key"`
	// Value is bounded by Bound ("sequence": the highest event_seq sent).
	Value string `json:"value"`
	Bound string `json:"bound"`
	// Code is the error code a check looks for, and Want the value it
	// expects with it (a final status).
	Code string `json:"code"`
	Want string `json:"want"`
}

// AppliesTo reports whether the rule looks at messages of type typ.
func (r *ARCPRule) AppliesTo(typ string) bool {
	return r.Type == typ || slices.Contains(r.Types, typ)
}

// Signal is a format trait of an SDK: a value at Pointer (in messages of
// Types, or any) that matches Matches (or is present, when Matches is
// empty). It names the SDK without being a deviation.
type Signal struct {
	ID      string     `json:"id"`
	SDK     string     `json:"sdk"`
	Label   string     `json:"label"`
	Types   []string   `json:"types"`
	Pointer StringList `json:"pointer"`
	Matches string     `json:"matches"`

	re *regexp.Regexp
}

// SDKs returns the dialect names of the SDKs the signal points at, the
// most typical first.
func (s *Signal) SDKs() []string { return slugs(s.SDK) }

// Match reports whether a string value shows the signal.
func (s *Signal) Match(v any) bool {
	if s.re == nil {
		return true
	}
	str, ok := v.(string)
	return ok && s.re.MatchString(str)
}

// ARCPEvent is one reserved job event kind.
type ARCPEvent struct {
	Kind    string `json:"kind"`
	Schema  string `json:"schema"`
	Feature string `json:"feature"`
	Since   string `json:"since"`
	// MessageSchema, if set, is a schema of the whole job.event message
	// narrowed to this kind: equivalent to the message type's schema for
	// an event of this kind, and cheaper to explain a failure with.
	MessageSchema string `json:"message_schema"`

	// Effect is what the event does to its job's lease state:
	// "operation" (the agent attempts an operation through the lease),
	// "outcome" (how an operation ended) or "cost" (a cost or budget
	// metric); "" for none.
	Effect string `json:"effect"`
	// Call is where an operation or outcome names its call; Tool and Args
	// are the operation's tool and arguments; Code is where an outcome
	// carries its error code, and Result where it carries a success.
	Call   string `json:"call"`
	Tool   string `json:"tool"`
	Args   string `json:"args"`
	Code   string `json:"code"`
	Result string `json:"result"`
	// Name, Value and Unit locate a metric's name, amount and currency.
	Name  string `json:"name"`
	Value string `json:"value"`
	Unit  string `json:"unit"`
}

// ARCPLeases says how operations meet the lease: which tools stand for a
// capability whose target is an argument, which capability other tools
// need, and how cost metrics spend the budget.
type ARCPLeases struct {
	// Targets maps a capability to the arguments that hold an operation's
	// target, for a tool named like the capability (fs.read: path).
	Targets map[string][]string `json:"targets"`
	// ToolCapability is the capability whose patterns name tools.
	ToolCapability string `json:"tool_capability"`
	// BudgetCapability is the capability whose patterns are amounts
	// (currency:decimal), and PatternCapabilities the capabilities whose
	// patterns are globs.
	BudgetCapability string `json:"budget_capability"`
	// CostMetric matches the names of metrics that spend the budget;
	// RemainingMetric is the name of the metric that states what is left.
	CostMetric      string `json:"cost_metric"`
	RemainingMetric string `json:"remaining_metric"`
	// Expired, Exhausted and Denied are the error codes of an operation
	// after the lease expired, after the budget is spent, and outside the
	// lease.
	Expired   string `json:"expired"`
	Exhausted string `json:"exhausted"`
	Denied    string `json:"denied"`
}

// FieldFeature is a member of a message that needs a negotiated feature
// (when its value matches Matches, if set).
type FieldFeature struct {
	Type    string `json:"type"`
	Pointer string `json:"pointer"`
	Feature string `json:"feature"`
	Matches string `json:"matches"`

	re *regexp.Regexp
}

// Match reports whether a string value at the pointer needs the feature.
func (f *FieldFeature) Match(v string) bool { return f.re == nil || f.re.MatchString(v) }

// HasPattern reports whether the feature applies only to some values.
func (f *FieldFeature) HasPattern() bool { return f.re != nil }

// Deviation is one known SDK's departure from canonical ARCP, reported as a
// warning naming the SDK and the canonical form.
type Deviation struct {
	ID           string          `json:"id"`
	SDK          string          `json:"sdk"`
	MessageTypes []string        `json:"message_types"`
	EventKind    string          `json:"event_kind"`
	Pointer      string          `json:"pointer"`
	Canonical    string          `json:"canonical"`
	Detect       DeviationDetect `json:"detect"`
	Note         string          `json:"note"`
	// Label names the deviation in the evidence of a detected dialect
	// ("bare agent entries").
	Label string `json:"label"`
	// NotTerminal marks a deviation whose message, although of a
	// terminal type, does not end its job (an error answering a request).
	NotTerminal bool `json:"not_terminal"`
	// Requirement is the id of the requirement catalogue's row that the
	// deviation departs from.
	Requirement string `json:"requirement"`
}

// DeviationDetect says how a deviation shows in a message.
type DeviationDetect struct {
	Present StringList     `json:"present"`
	Absent  StringList     `json:"absent"`
	Equals  map[string]any `json:"equals"`
	// OneOf maps pointers to the values one of which must be found there.
	OneOf map[string][]any `json:"one_of"`
	// State names a state rule whose finding the deviation explains
	// instead (e.g. a terminal message for a job never accepted).
	State string `json:"state"`
	// Answers, with State, is the message type the deviating message
	// answers: the deviation applies only while one is outstanding.
	Answers string `json:"answers"`
}

// SDKs returns the dialect names of the SDKs that make the deviation
// ("Go SDK, Java SDK" → go-sdk, java-sdk).
func (d *Deviation) SDKs() []string { return slugs(d.SDK) }

func slugs(list string) []string {
	var out []string
	for _, s := range strings.Split(list, ",") {
		if n := Slug(s); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// Slug turns an SDK's name into its dialect name: "Go SDK" → "go-sdk",
// "C# SDK" → "csharp-sdk".
func Slug(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.ReplaceAll(s, "#", "sharp")
	return strings.Join(strings.Fields(s), "-")
}

// StringList decodes a string or an array of strings.
type StringList []string

// UnmarshalJSON accepts "a" or ["a", "b"].
func (l *StringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("want a string or an array of strings: %w", err)
	}
	*l = many
	return nil
}

// DialectCanonical is the name of canonical ARCP among the SDK dialects.
const DialectCanonical = "canonical"

// Dialects returns the SDK dialect names read with this table: canonical
// and every SDK a deviation or a signal names, in table order.
func (t *ARCPTable) Dialects() []string {
	if len(t.Deviations) == 0 && len(t.Signals) == 0 {
		return nil
	}
	out := []string{DialectCanonical}
	seen := map[string]bool{DialectCanonical: true}
	add := func(list []string) {
		for _, s := range list {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	for _, d := range t.Deviations {
		add(d.SDKs())
	}
	for _, s := range t.Signals {
		add(s.SDKs())
	}
	return out
}

// Message returns the entry of a message type, or nil.
func (t *ARCPTable) Message(typ string) *ARCPMessage {
	for _, m := range t.Messages {
		if m.Type == typ {
			return m
		}
	}
	return nil
}

// Event returns the entry of a reserved event kind, or nil.
func (t *ARCPTable) Event(kind string) *ARCPEvent {
	for _, e := range t.Events {
		if e.Kind == kind {
			return e
		}
	}
	return nil
}

// VendorKind reports whether kind is a vendor event kind.
func (t *ARCPTable) VendorKind(kind string) bool {
	return t.vendorKind != nil && t.vendorKind.MatchString(kind)
}

func loadARCP(fsys fs.FS, v *Version, b []byte, check bool) (*ARCPTable, error) {
	t := &ARCPTable{}
	if err := StrictUnmarshal(b, t); err != nil {
		return nil, fmt.Errorf("dispatch.json: %w", err)
	}
	var err error
	if t.VendorEventKind != "" {
		if t.vendorKind, err = regexp.Compile(t.VendorEventKind); err != nil {
			return nil, fmt.Errorf("dispatch.json: vendor_event_kind: %w", err)
		}
	}
	for i, m := range t.Messages {
		if m.Type == "" || m.Schema == "" {
			return nil, fmt.Errorf("dispatch.json: messages[%d] needs type and schema", i)
		}
		if err := CheckFile(check, fsys, v, "message "+m.Type, m.Schema); err != nil {
			return nil, fmt.Errorf("dispatch.json: %w", err)
		}
	}
	for i, e := range t.Events {
		if e.Kind == "" || e.Schema == "" {
			return nil, fmt.Errorf("dispatch.json: events[%d] needs kind and schema", i)
		}
		if err := CheckFile(check, fsys, v, "event "+e.Kind, e.Schema); err != nil {
			return nil, fmt.Errorf("dispatch.json: %w", err)
		}
	}
	for i, r := range t.Rules {
		if r.ID == "" || r.Section == "" || (r.Check == "") == (r.Unchecked == "") {
			return nil, fmt.Errorf("dispatch.json: rules[%d] needs id, section and either check or unchecked", i)
		}
	}
	for _, ff := range t.FieldFeatures {
		if ff.Matches != "" {
			if ff.re, err = regexp.Compile(ff.Matches); err != nil {
				return nil, fmt.Errorf("dispatch.json: field feature %s: %w", ff.Feature, err)
			}
		}
	}
	db, err := fs.ReadFile(fsys, path.Join(v.Folder, "deviations.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Deviations []*Deviation `json:"deviations"`
		Signals    []*Signal    `json:"signals"`
	}
	if err := StrictUnmarshal(db, &doc); err != nil {
		return nil, fmt.Errorf("deviations.json: %w", err)
	}
	for i, d := range doc.Deviations {
		if d.ID == "" || len(d.SDKs()) == 0 || len(d.MessageTypes) == 0 {
			return nil, fmt.Errorf("deviations.json: deviations[%d] needs id, sdk and message_types", i)
		}
	}
	for i, s := range doc.Signals {
		if s.ID == "" || len(s.SDKs()) == 0 || len(s.Pointer) == 0 {
			return nil, fmt.Errorf("deviations.json: signals[%d] needs id, sdk and pointer", i)
		}
		if s.Matches != "" {
			if s.re, err = regexp.Compile(s.Matches); err != nil {
				return nil, fmt.Errorf("deviations.json: signal %s: %w", s.ID, err)
			}
		}
	}
	t.Deviations, t.Signals = doc.Deviations, doc.Signals
	return t, nil
}

// ARCP returns the version's table if it is a version of ARCP, else nil.
func (v *Version) ARCP() *ARCPTable {
	t, _ := v.Table.(*ARCPTable)
	return t
}
