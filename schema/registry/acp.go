package registry

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// ACPTable is an ACP version's dispatch table: its JSON-RPC envelope, its
// methods and, for a dialect that is not all JSON-RPC, its other records.
type ACPTable struct {
	Protocol string `json:"protocol"`
	Version  string `json:"version"`
	// Envelope is the file whose $defs Request, Notification and Response
	// are the JSON-RPC envelopes.
	Envelope string `json:"envelope"`
	// Trace says where every message keeps W3C Trace Context, whose
	// members of _meta are reserved for it.
	Trace *ACPTrace `json:"trace"`
	// Capabilities says, by side, where the initialize params (client)
	// or result (agent) keep that side's capabilities.
	Capabilities map[string]string `json:"capabilities"`
	Methods      []*ACPMethod      `json:"methods"`
	Records      []*ACPRecord      `json:"records"`
}

// Kinds and handlers of ACP methods.
const (
	KindRequest      = "request"
	KindNotification = "notification"
	HandlerAgent     = "agent"
	HandlerClient    = "client"
	HandlerBoth      = "both"
)

// ACPMethod is one method of the table. A name may appear twice, once as a
// request and once as a notification, each with its own handler.
type ACPMethod struct {
	Method string `json:"method"`
	// Kind is "request" or "notification".
	Kind string `json:"kind"`
	// Handler is the side that receives it: "agent", "client" or "both".
	Handler string `json:"handler"`
	// Params and Result are schema files of the folder ("" for none).
	Params string `json:"params"`
	Result string `json:"result"`
	// Capability is a JSON pointer into the initialize exchange that must
	// be set before the method may be called: into the initialize params
	// for a method the client handles, into the result for one the agent
	// handles.
	Capability string `json:"capability"`
	// Effects are what the message does to the protocol state.
	Effects ACPEffects `json:"effects"`
}

// ACPEffects are what one method does to the state a validator follows.
// Pointers are JSON pointers into the whole message (request or
// notification for params, the response for /result); a "*" token stands
// for every array element.
type ACPEffects struct {
	// Initializes marks the handshake: its params are the client's
	// capabilities and its result the agent's.
	Initializes bool `json:"initializes"`
	// VersionAt points to the protocol version the message names.
	VersionAt []string `json:"version_at"`
	// Session points to a session id that must be known: introduced
	// earlier in the trace (or, in a capture that began mid-session,
	// before it).
	Session string `json:"session"`
	// AdoptsSession points to a session id from before the trace, or from
	// another connection, that the request brings in (load, resume).
	AdoptsSession string `json:"adopts_session"`
	// CreatesSession points, in a successful answer, to the id of a new,
	// empty session: its whole history is in the trace from then on.
	CreatesSession string `json:"creates_session"`
	// IntroducesSessions point, in a successful answer, to ids of
	// sessions that exist from then on but whose history began elsewhere
	// (a fork's copy of its parent, the sessions a list returns).
	IntroducesSessions []string `json:"introduces_sessions"`
	// Sessions introduce sessions the message itself names (a child
	// session announced on its parent), each when its conditions hold.
	Sessions []ACPSessionEffect `json:"sessions"`
	// ClosesSession points to a session id that, once the request is
	// answered without an error, no longer exists.
	ClosesSession string `json:"closes_session"`
	// ToolCalls are the method's effects on tool calls, each applying
	// when its conditions hold.
	ToolCalls []ACPToolCallEffect `json:"tool_calls"`
	// OffersOptions points to the ids of the options a request offers; the
	// answer's ChoosesOption must be one of them.
	OffersOptions string `json:"offers_options"`
	ChoosesOption string `json:"chooses_option"`
	// CapabilityByValue is a capability named by a member's value (the
	// elicitation mode), checked like Capability.
	CapabilityByValue *ACPValueCapability `json:"capability_by_value"`

	// StartsTurn points to the session whose turn a request starts (a
	// prompt); the request's answer ends the turn.
	StartsTurn string `json:"starts_turn"`
	// StopReason says where the answer that ends a turn gives its reason,
	// and the reason a cancelled turn must end with.
	StopReason *ACPStopReason `json:"stop_reason"`
	// CancelsTurn points to the session whose running turn the message
	// cancels (session/cancel; session/close cancels as it does).
	CancelsTurn string `json:"cancels_turn"`
	// Conversation marks the notifications that carry an entry of the
	// conversation (a message chunk, a tool call, a plan) rather than news
	// about the session: those whose tag at At is one of Values.
	Conversation *ACPTagSet `json:"conversation"`
	// Replay says when the agent replays the history of the session a
	// request names: ReplayBeforeAnswer (load: all of it, then the
	// answer, nothing after), ReplayNever (resume: none before the
	// answer).
	Replay string `json:"replay"`
	// ReplayIf, if set, points to a member whose presence (not null) asks
	// for the history: the request then replays it as ReplayBeforeAnswer
	// does, whatever Replay says. ReplayRow is the catalogue row a replay
	// after the answer breaks ("" for acp.session.load-replay-first).
	ReplayIf  string `json:"replay_if"`
	ReplayRow string `json:"replay_row"`
	// CancelledOutcome is what the answer to the request must hold when
	// its session's turn was cancelled while it waited.
	CancelledOutcome *ACPValue `json:"cancelled_outcome"`
	// Advertises are offers the message makes that a capability of the
	// other side must permit (a terminal auth method, a boolean config
	// option).
	Advertises []ACPAdvertisement `json:"advertises"`
	// AuthMethods points to the auth methods an answer advertises, and
	// AuthMethod to the one a request uses.
	AuthMethods string         `json:"auth_methods"`
	AuthMethod  *ACPAuthMethod `json:"auth_method"`
	// ConfigOptions points to the ids of the session config options a
	// message lists, each with their current value.
	ConfigOptions *ACPConfigList `json:"config_options"`
	// TurnState marks the notifications that report the session's
	// foreground state (v2's state_update), and MessageID points, in the
	// answer to a request that starts a turn, to the id of the user
	// message the agent must then report; UserMessage marks the updates
	// that report it.
	TurnState   *ACPTurnState `json:"turn_state"`
	MessageID   string        `json:"message_id"`
	UserMessage *ACPMessageID `json:"user_message"`
	// Paths point to the file-system paths a message carries, which must
	// be absolute (a "*" token for every element).
	Paths []string `json:"paths"`
	// Baseline marks a method every agent implements: it is never
	// answered "method not found".
	Baseline bool `json:"baseline"`
	// Lifecycle marks a method that changes which later messages are
	// valid (the handshake, a login, a session's start, a prompt): in a
	// version with JSON-RPC batches it is sent on a line of its own,
	// never inside a batch.
	Lifecycle bool `json:"lifecycle"`
	// OpenValues are members whose values form an open set: a value the
	// version does not define is one of one's own, and starts with "_"
	// (ACP v2's open enums and union tags).
	OpenValues []ACPOpenValue `json:"open_values"`
	// SchemaRows are the requirement catalogue's rows that the method's
	// params and result schemas enforce, beyond the schema row itself:
	// a message of the method exercises them.
	SchemaRows *ACPSchemaRows `json:"schema_rows"`

	// CancelsRequest points to the id of a request of the sender's that
	// the message cancels ($/cancel_request): its answer is then a result
	// or the request-cancelled error, nothing else.
	CancelsRequest string `json:"cancels_request"`
	// CreatesFile points to a path the request may create: a missing
	// file is no reason to fail it (fs/write_text_file).
	CreatesFile string `json:"creates_file"`
	// Cursor says where a paged request sends its cursor and its answer
	// gives the next one: a cursor sent is one an answer gave.
	Cursor *ACPCursor `json:"cursor"`
	// BaselineContent points to the types of the content a request
	// carries (a "*" token for every block) that every agent accepts
	// (Values): a request with only those is never refused as invalid.
	BaselineContent *ACPTagSet `json:"baseline_content"`
	// Elicitation is a URL-mode elicitation the message opens (Opens: its
	// id; URL: where the user goes) or completes (Completes: its id): an
	// id is not reused while its elicitation is open, and a completion
	// names one that is.
	Elicitation *ACPElicitation `json:"elicitation"`
	// InitRow is the catalogue row of the method's own that sending it
	// before initialize is answered breaks (session/list's, say), where
	// the general row of the handshake would be less precise.
	InitRow string `json:"init_row"`
	// Terminal says where a request's answer gives the id of a terminal
	// it created (Creates, in the result) or a request names one it
	// releases (Releases, in the params): a session is not closed while
	// one of its terminals is unreleased.
	Terminal *ACPTerminal `json:"terminal"`
	// Expects are members that the spec's text asks for where the schema
	// leaves them optional (session/resume's mcpServers, the initialize
	// info and capabilities): a message without one breaks the row named,
	// an error where the row is a MUST and a warning where it is a SHOULD.
	Expects []ACPExpected `json:"expects"`
	// MustAccept are what a request may carry that every agent supports
	// (a stdio MCP server): an error answer whose message names it (all
	// of Words) refuses what may not be refused.
	MustAccept []ACPMustAccept `json:"must_accept"`
	// SetUp points to a session id that must have been set up on this
	// connection (created, loaded or resumed), not only heard of (listed).
	SetUp string `json:"set_up"`
	// SetsUp point, in a successful answer, to sessions it set up on this
	// connection beside those it creates or adopts (a fork's copy).
	SetsUp []string `json:"sets_up"`
	// Roots point, in a request that sets up a session, to the session's
	// root directories; WithinRoots to paths that a request keeps inside
	// the roots of its session.
	Roots       []string `json:"roots"`
	WithinRoots []string `json:"within_roots"`
	// Modes says where an answer gives a session's modes and its config
	// options, and which option mirrors the modes.
	Modes *ACPModes `json:"modes"`
	// ConfigSupersedes marks a request of the older modes API
	// (session/set_mode), at the session it names: where that session
	// offers config options, the client uses them instead.
	ConfigSupersedes string `json:"config_supersedes"`
	// Listed points, in an answer that lists sessions, to each listed
	// session (a "*" token for every element), with its id at ID and its
	// working directory at Cwd inside it.
	Listed *ACPListed `json:"listed"`
	// SameCwd points, in a request that brings in an existing session
	// (load, resume), to the working directory it names, which is the
	// session's own.
	SameCwd string `json:"same_cwd"`
	// Chooses is a setting the request sets, among those offered.
	Chooses *ACPChoice `json:"chooses"`
	// NotFoundRow is the row that an answer "resource not found" (-32002)
	// breaks: a request whose no-match or missing-target answer is a
	// result (a list with no match, a delete of what is gone).
	NotFoundRow string `json:"not_found_row"`
	// Work marks a request that starts work for its session's turn (a
	// file read or write, a terminal's command, a permission asked): a
	// turn the client cancelled starts none.
	Work bool `json:"work"`
	// Form is a form-mode elicitation: what it asks for, and the answer
	// that accepts it with the user's values.
	Form *ACPForm `json:"form"`

	// Requires is a capability of the agent's (a pointer into its
	// initialize result) without which the client does not send the
	// method; unlike Capability, a non-empty array sets it (v2's
	// authMethods). ImplementedIf is one with which the agent implements
	// the method: it does not answer it "method not found".
	Requires      *ACPCapabilityRow `json:"requires"`
	ImplementedIf *ACPCapabilityRow `json:"implemented_if"`
	// Unique are lists whose members' names do not repeat within one
	// object (a terminal auth method's env).
	Unique []ACPUnique `json:"unique"`
	// Diffs point to tool-call content items (a "*" token for every
	// element); those of type "diff" have their patch text checked
	// against their changes.
	Diffs []string `json:"diffs"`
	// FirstHas are members the first message about an id carries (a tool
	// call's title, a terminal's command), each under its conditions.
	FirstHas []ACPFirstHas `json:"first_has"`
	// BlocksTurn points to the session whose foreground work a request
	// waits on until it is answered (a permission, an elicitation).
	BlocksTurn string `json:"blocks_turn"`
	// Approval says where a permission request names its tool call and
	// its answer the outcome: an outcome none of Known approves nothing.
	// ToolRuns marks the updates that report a tool call running.
	Approval *ACPApproval `json:"approval"`
	ToolRuns *ACPToolRuns `json:"tool_runs"`
	// ReplayMessages marks the updates that replay a whole message, with
	// its id: while a session's history is replayed, two messages never
	// share an id.
	ReplayMessages *ACPMessageID `json:"replay_messages"`
}

// ACPCapabilityRow is a capability (a pointer into the initialize result)
// and the catalogue row that depends on it.
type ACPCapabilityRow struct {
	Capability  string `json:"capability"`
	Requirement string `json:"requirement"`
}

// ACPUnique is a list of names at At (relative to each object at Within,
// a "*" token for every element) that do not repeat.
type ACPUnique struct {
	Within      string `json:"within"`
	At          string `json:"at"`
	Requirement string `json:"requirement"`
}

// ACPFirstHas is a member (Member, relative to the message) that the first
// message about the id at ID carries, when the conditions When hold.
type ACPFirstHas struct {
	When        map[string]string `json:"when"`
	ID          string            `json:"id"`
	Member      string            `json:"member"`
	Requirement string            `json:"requirement"`
}

// ACPApproval is where a permission request names its tool call (ToolCall)
// and its answer the outcome (Outcome, one of Known or unknown).
type ACPApproval struct {
	ToolCall string   `json:"tool_call"`
	Outcome  string   `json:"outcome"`
	Known    []string `json:"known"`
}

// ACPToolRuns marks the updates (under When) that report the tool call at
// ID in a status of Running.
type ACPToolRuns struct {
	When    map[string]string `json:"when"`
	ID      string            `json:"id"`
	Status  string            `json:"status"`
	Running []string          `json:"running"`
}

// ACPExpected is a member the spec's text asks for: At (in the params or
// the result) and the Requirement a message without it breaks.
type ACPExpected struct {
	At          string `json:"at"`
	Requirement string `json:"requirement"`
}

// ACPMustAccept is what every agent accepts in a request: the elements at
// At without the member Unless (or with it set to Is), described as What;
// an error answer whose message (or string data) has every one of Words,
// case folded, refuses one, which breaks Requirement.
type ACPMustAccept struct {
	At          string   `json:"at"`
	Unless      string   `json:"unless"`
	Is          string   `json:"is"`
	What        string   `json:"what"`
	Words       []string `json:"words"`
	Requirement string   `json:"requirement"`
}

// ACPModes says where an answer gives a session's modes (Modes, with the
// current one at Current inside it) and its config options (Options, each
// with its category at Category and its value at Value); the option of
// category Mirror mirrors the modes.
type ACPModes struct {
	Modes    string `json:"modes"`
	Current  string `json:"current"`
	Options  string `json:"options"`
	Category string `json:"category"`
	Value    string `json:"value"`
	Mirror   string `json:"mirror"`
	// Available points, inside Modes, to the ids of the modes offered;
	// ID, Type and Choices, inside each option, to its id, its type and
	// the values a select offers (each an object with a "value", or a
	// group of them under "options").
	Available string `json:"available"`
	ID        string `json:"id"`
	Type      string `json:"type"`
	Choices   string `json:"choices"`
}

// ACPListed is where an answer lists sessions: each at At, its id at ID
// and its working directory at Cwd.
type ACPListed struct {
	At  string `json:"at"`
	ID  string `json:"id"`
	Cwd string `json:"cwd"`
}

// ACPChoice is a request that sets one of its session's settings: a mode
// (the id at Mode) or a config option (the id at Config) to the value at
// Value. What it sets is one the session offered.
type ACPChoice struct {
	Mode   string `json:"mode"`
	Config string `json:"config"`
	Value  string `json:"value"`
}

// ACPForm is a form-mode elicitation (when the conditions When hold): its
// Message and the Schema of what it asks (its properties the fields); an
// answer whose Action is Accept gives the values at Content.
// URLCapability is the client capability of URL-mode elicitations, where
// the agent asks for what a form may not.
type ACPForm struct {
	When          map[string]string `json:"when"`
	Message       string            `json:"message"`
	Schema        string            `json:"schema"`
	Action        string            `json:"action"`
	Accept        string            `json:"accept"`
	Content       string            `json:"content"`
	URLCapability string            `json:"url_capability"`
}

// ACPTrace is where a message keeps W3C Trace Context: the _meta objects
// At (params' and result's), whose members Keys are reserved for it.
type ACPTrace struct {
	At   []string `json:"at"`
	Keys []string `json:"keys"`
}

// ACPCursor is a paged request's cursor (Sent, in the params) and the
// answer's next one (Next, in the result).
type ACPCursor struct {
	Sent string `json:"sent"`
	Next string `json:"next"`
}

// ACPElicitation is a URL-mode elicitation's opening (Opens, URL, when
// the conditions When hold) or completion (Completes).
type ACPElicitation struct {
	Opens     string            `json:"opens"`
	URL       string            `json:"url"`
	When      map[string]string `json:"when"`
	Completes string            `json:"completes"`
}

// ACPTerminal is a terminal's creation (Creates: its id in the answer)
// or release (Releases: its id in the params), on the session at
// ACPEffects.Session.
type ACPTerminal struct {
	Creates  string `json:"creates"`
	Releases string `json:"releases"`
	// Kills points to the id of a terminal whose command the request
	// kills: the terminal stays, and is still released.
	Kills string `json:"kills"`
	// Uses points to the id of a terminal a request acts on, and Embeds
	// to the ids of terminals a message shows (a "*" token for every
	// element): neither may name a released terminal.
	Uses   string `json:"uses"`
	Embeds string `json:"embeds"`
}

// ACPOpenValue is an open set of values at At (a "*" token for every
// element): Known are the version's own, and Requirement the catalogue
// row a value of one's own without "_" breaks.
type ACPOpenValue struct {
	At          string   `json:"at"`
	Known       []string `json:"known"`
	Requirement string   `json:"requirement"`
	// When, if set, maps pointers to the strings they hold where the set
	// is there (a status member of one update type, not another's).
	When map[string]string `json:"when"`
}

// ACPSchemaRows are the rows a method's params and result schemas enforce.
type ACPSchemaRows struct {
	Params []string `json:"params"`
	Result []string `json:"result"`
}

// ACPTurnState says where a notification reports the foreground state of
// its session: the state at State (Running or Idle, or another value,
// which counts as running work), and on an idle state the stop reason at
// StopReason, one of Reasons or a custom value starting with "_", and
// Cancelled after the client cancelled the work.
type ACPTurnState struct {
	When       map[string]string `json:"when"`
	State      string            `json:"state"`
	StopReason string            `json:"stop_reason"`
	Running    []string          `json:"running"`
	Idle       string            `json:"idle"`
	Reasons    []string          `json:"reasons"`
	Cancelled  string            `json:"cancelled"`
	// Failed is the stop reason of failed work, which cancelled work
	// must not report.
	Failed string `json:"failed"`
	// Blocked is the state of work that waits on the user, and Resumed
	// the one it reports when it goes on.
	Blocked string `json:"blocked"`
	Resumed string `json:"resumed"`
	// Background points, in an idle state, to the ids of the tool calls
	// that go on in the background (a "*" token for every element), and
	// ToolCall, in an update, to the tool call it is about: those go on
	// being reported once the foreground work is over.
	Background string `json:"background"`
	ToolCall   string `json:"tool_call"`
}

// ACPMessageID marks the updates whose tag at At is one of Tags, with the
// message id at ID.
type ACPMessageID struct {
	At   string   `json:"at"`
	Tags []string `json:"tags"`
	ID   string   `json:"id"`
}

// When the agent replays a session's history (ACPEffects.Replay).
const (
	ReplayBeforeAnswer = "before_answer"
	ReplayNever        = "never"
)

// ACPStopReason is where the answer that ends a turn says why, and the
// reason a cancelled turn ends with.
type ACPStopReason struct {
	At        string `json:"at"`
	Cancelled string `json:"cancelled"`
}

// ACPTagSet is a set of tag values at a pointer.
type ACPTagSet struct {
	At     string   `json:"at"`
	Values []string `json:"values"`
}

// Has reports whether v is one of the set's values.
func (t *ACPTagSet) Has(v string) bool { return slices.Contains(t.Values, v) }

// ACPValue is a string a pointer must lead to.
type ACPValue struct {
	At    string `json:"at"`
	Value string `json:"value"`
}

// ACPAdvertisement is one kind of offer or use in a message that a
// capability must permit: each object at At (a "*" token for every
// element) whose members at the Where pointers (relative to the object)
// hold the given strings, and that has the member Present if one is
// named, needs Capability, a pointer into the initialize message of the
// side that advertises it (/clientCapabilities/… the client's,
// /agentCapabilities/… the agent's).
type ACPAdvertisement struct {
	At    string            `json:"at"`
	When  map[string]string `json:"when"`
	Where map[string]string `json:"where"`
	// Present, if set, is a member (a pointer relative to the object)
	// whose presence makes the offer.
	Present    string `json:"present"`
	Capability string `json:"capability"`
}

// ACPAuthMethod is the auth method a request uses, at At, which must not
// be one whose type (in the advertised list) is ForbiddenType.
type ACPAuthMethod struct {
	At            string `json:"at"`
	ForbiddenType string `json:"forbidden_type"`
}

// ACPConfigList points to the ids of a session's config options (a "*"
// token for every element); Complete marks a list that must name every
// option the session has. When maps pointers to the strings they must
// hold for the list to be there.
type ACPConfigList struct {
	At       string            `json:"at"`
	When     map[string]string `json:"when"`
	Complete bool              `json:"complete"`
}

// ACPToolCallEffect creates or refers to a tool call of the message's
// session.
type ACPToolCallEffect struct {
	// When maps JSON pointers to the string each must hold for the effect
	// to apply (for example the sessionUpdate tag).
	When map[string]string `json:"when"`
	// Creates points to a tool call id that exists from then on.
	Creates string `json:"creates"`
	// Updates points to a tool call id that must exist already.
	Updates string `json:"updates"`
	// Status points to the tool call's status, which is Default when
	// absent from a creation; Running is the status of a running call,
	// and Ran those only a call that ran reaches (completed), which are
	// reported after Running.
	Status  string   `json:"status"`
	Default string   `json:"default"`
	Running string   `json:"running"`
	Ran     []string `json:"ran"`
	// Unique marks a creation that announces a new id: one already
	// announced in the session is reused.
	Unique bool `json:"unique"`
}

// ACPSessionEffect introduces a session named in a message.
type ACPSessionEffect struct {
	// When maps JSON pointers to the string each must hold.
	When map[string]string `json:"when"`
	// Creates points to the id of a session whose whole history follows
	// (a subagent's child session, announced before any of its traffic).
	Creates string `json:"creates"`
}

// ACPValueCapability is a capability whose pointer depends on a member's
// value: Capability with "{}" replaced by the string at Value.
type ACPValueCapability struct {
	Value      string `json:"value"`
	Capability string `json:"capability"`
}

// ACPRecord is a line of an ACP dialect that is not JSON-RPC (VT Code's
// streamed updates), recognised by the keys it always carries.
type ACPRecord struct {
	Record    string   `json:"record"`
	Handler   string   `json:"handler"`
	Transport string   `json:"transport"`
	Keys      []string `json:"keys"`
	Schema    string   `json:"schema"`
}

// Matches reports whether an object with the given keys is this record.
func (r *ACPRecord) Matches(has func(key string) bool) bool {
	if len(r.Keys) == 0 {
		return false
	}
	for _, k := range r.Keys {
		if !has(k) {
			return false
		}
	}
	return true
}

func loadACP(fsys fs.FS, v *Version, b []byte, check bool) (*ACPTable, error) {
	t := &ACPTable{}
	if err := StrictUnmarshal(b, t); err != nil {
		return nil, fmt.Errorf("dispatch.json: %w", err)
	}
	if t.Envelope == "" {
		return nil, fmt.Errorf("dispatch.json: no envelope")
	}
	if err := CheckFile(check, fsys, v, "envelope", t.Envelope); err != nil {
		return nil, fmt.Errorf("dispatch.json: %w", err)
	}
	seen := map[string]bool{}
	for i, m := range t.Methods {
		where := fmt.Sprintf("dispatch.json: methods[%d] (%s)", i, m.Method)
		if m.Method == "" {
			return nil, fmt.Errorf("dispatch.json: methods[%d] has no method", i)
		}
		if m.Kind != KindRequest && m.Kind != KindNotification {
			return nil, fmt.Errorf("%s: kind %q; want request or notification", where, m.Kind)
		}
		if m.Handler != HandlerAgent && m.Handler != HandlerClient && m.Handler != HandlerBoth {
			return nil, fmt.Errorf("%s: handler %q; want agent, client or both", where, m.Handler)
		}
		if seen[m.Method+" "+m.Kind] {
			return nil, fmt.Errorf("%s: listed twice as a %s", where, m.Kind)
		}
		seen[m.Method+" "+m.Kind] = true
		if m.Params == "" {
			return nil, fmt.Errorf("%s: no params schema", where)
		}
		if m.Kind == KindNotification && m.Result != "" {
			return nil, fmt.Errorf("%s: a notification has no result", where)
		}
		for _, f := range []string{m.Params, m.Result} {
			if err := CheckFile(check, fsys, v, where, f); err != nil {
				return nil, err
			}
		}
		if err := m.Effects.check(m); err != nil {
			return nil, fmt.Errorf("%s: effects: %w", where, err)
		}
	}
	for i, r := range t.Records {
		if r.Record == "" || r.Schema == "" || len(r.Keys) == 0 {
			return nil, fmt.Errorf("dispatch.json: records[%d] needs record, keys and schema", i)
		}
		if err := CheckFile(check, fsys, v, "records["+r.Record+"]", r.Schema); err != nil {
			return nil, fmt.Errorf("dispatch.json: %w", err)
		}
	}
	return t, nil
}

// check refuses effects whose pointers cannot apply to the method: result
// pointers on a notification, and pointers that are not JSON pointers.
func (e *ACPEffects) check(m *ACPMethod) error {
	ptrs := map[string]string{
		"session": e.Session, "adopts_session": e.AdoptsSession, "closes_session": e.ClosesSession,
		"offers_options": e.OffersOptions, "chooses_option": e.ChoosesOption,
		"creates_session": e.CreatesSession,
	}
	for i, p := range e.IntroducesSessions {
		ptrs[fmt.Sprintf("introduces_sessions[%d]", i)] = p
	}
	for i, p := range e.VersionAt {
		ptrs[fmt.Sprintf("version_at[%d]", i)] = p
	}
	for i, tc := range e.ToolCalls {
		if (tc.Creates == "") == (tc.Updates == "") {
			return fmt.Errorf("tool_calls[%d]: want exactly one of creates and updates", i)
		}
		ptrs[fmt.Sprintf("tool_calls[%d]", i)] = tc.Creates + tc.Updates
		for p := range tc.When {
			ptrs[fmt.Sprintf("tool_calls[%d].when", i)] = p
		}
	}
	for i, se := range e.Sessions {
		if se.Creates == "" {
			return fmt.Errorf("sessions[%d]: creates is required", i)
		}
		ptrs[fmt.Sprintf("sessions[%d]", i)] = se.Creates
		for p := range se.When {
			ptrs[fmt.Sprintf("sessions[%d].when", i)] = p
		}
	}
	if c := e.CapabilityByValue; c != nil {
		if !strings.Contains(c.Capability, "{}") {
			return fmt.Errorf("capability_by_value: %q has no {} for the value", c.Capability)
		}
		ptrs["capability_by_value.value"] = c.Value
	}
	for name, p := range ptrs {
		if p == "" {
			continue
		}
		if !strings.HasPrefix(p, "/params/") && !strings.HasPrefix(p, "/result/") {
			return fmt.Errorf("%s: %q must start with /params/ or /result/", name, p)
		}
		if strings.HasPrefix(p, "/result/") && m.Kind == KindNotification {
			return fmt.Errorf("%s: %q: a notification has no result", name, p)
		}
	}
	if (e.ChoosesOption == "") != (e.OffersOptions == "") {
		return fmt.Errorf("offers_options and chooses_option go together")
	}
	return nil
}

// Lookup returns the method named name of the given kind, or nil.
func (t *ACPTable) Lookup(name, kind string) *ACPMethod {
	for _, m := range t.Methods {
		if m.Method == name && m.Kind == kind {
			return m
		}
	}
	return nil
}

// Named returns the entries named name: none, one, or a request and a
// notification.
func (t *ACPTable) Named(name string) []*ACPMethod {
	var out []*ACPMethod
	for _, m := range t.Methods {
		if m.Method == name {
			out = append(out, m)
		}
	}
	return out
}

// MethodNames returns the distinct method names, in table order.
func (t *ACPTable) MethodNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range t.Methods {
		if !seen[m.Method] {
			seen[m.Method] = true
			out = append(out, m.Method)
		}
	}
	return out
}

// Initialize returns the method whose effects mark the handshake, or nil
// (a dialect without one).
func (t *ACPTable) Initialize() *ACPMethod {
	for _, m := range t.Methods {
		if m.Effects.Initializes {
			return m
		}
	}
	return nil
}

// ACP returns the version's table if it is a version of ACP, else nil.
func (v *Version) ACP() *ACPTable {
	t, _ := v.Table.(*ACPTable)
	return t
}
