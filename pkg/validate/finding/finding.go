// Package finding holds what the validator reports: a Finding per problem
// on a line, its Severity and rule name, and the Summary of a run. Package
// validate re-exports these names; the protocol rule packages build findings
// with them.
package finding

import (
	"fmt"
	"sort"
	"strings"
)

// Severity grades a finding.
type Severity int

const (
	// Error is what no known implementation accepts or what breaks a peer.
	Error Severity = iota
	// Warning is an interoperability risk: a known SDK dialect's deviation,
	// an extension a receiver may ignore.
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Rule names. They are a contract: fixtures' .expect files and the JSON output
// use them, and they are listed in cmd/validate/README.md.
const (
	RuleJSON            = "json"             // not JSON, bad UTF-8, duplicate key, lone surrogate, too deep, binary
	RuleLineTooLong     = "line-too-long"    // a line over --max-line, skipped
	RuleIO              = "io"               // the file could not be read to its end
	RuleEmpty           = "empty"            // the file holds no message
	RuleSchema          = "schema"           // the message breaks its schema
	RuleUnknownType     = "unknown-type"     // ARCP message type not in the table (x-vendor.*: a warning)
	RuleUnknownProtocol = "unknown-protocol" // the file matches no protocol
	RuleRoundtrip       = "roundtrip"        // decode then encode changed the message
	RuleTooMany         = "too-many"         // more findings on one line than are reported one by one
	RuleReplay          = "replay"           // a replayed agent answered differently in shape from the recording
	RuleSidecar         = "sidecar"          // the direction sidecar's entries do not match the trace's lines (a warning)
	RuleDeviationPrefix = "deviation:"       // deviation:<id>, an SDK dialect's deviation from canonical ARCP v1.1

	// Shared by the protocols' rules.
	RuleUnstable       = "unstable"        // an unstable addition a stable-only peer rejects (a warning)
	RulePartialCapture = "partial-capture" // the trace began mid-session (a warning)
	RuleStateWindow    = "state-window"    // a check skipped on ids forgotten to bound memory (a warning)
	RuleNearMiss       = "near-miss"       // an unknown member whose name is close to a defined one (a warning)
	RuleCustomMember   = "custom-member"   // a member a closed type does not define
	RuleRetired        = "retired"         // a member, method or value an earlier release defined and the version has since removed (a warning)
	RuleOtherVersion   = "other-version"   // a member another version of the protocol defines where the trace's does not (a warning)
)

// Rules lists the rule names of the engine and those the protocols share
// (besides the "deviation:<id>" rules of ARCP's deviation table); each
// protocol's rules package lists its own (package validate joins them).
func Rules() []string {
	return []string{
		RuleJSON, RuleLineTooLong, RuleIO, RuleEmpty, RuleSchema, RuleUnknownType,
		RuleUnknownProtocol, RuleRoundtrip, RuleTooMany, RuleReplay, RuleSidecar,
		RuleUnstable, RulePartialCapture, RuleStateWindow, RuleNearMiss, RuleCustomMember,
		RuleRetired, RuleOtherVersion,
	}
}

// Known reports whether rule is one of Rules or a deviation rule (not
// whether a protocol's rules package defines it).
func Known(rule string) bool {
	if strings.HasPrefix(rule, RuleDeviationPrefix) && len(rule) > len(RuleDeviationPrefix) {
		return true
	}
	for _, r := range Rules() {
		if r == rule {
			return true
		}
	}
	return false
}

// Finding is one problem on one line of a trace.
type Finding struct {
	File     string   // the file name as given ("-" for stdin)
	Line     int      // 1-based line; 0 for a finding about the whole file
	Severity Severity // Error or Warning
	Protocol string   // the protocol's name in the registry, or "" when none was recognised
	Dialect  string   // the schema set or SDK dialect the file was read as
	Rule     string   // a Rule* name, or "deviation:<id>"
	Pointer  string   // JSON pointer into the line's message ("" for the whole message)
	Message  string   // a sentence for the author of the message
	// Requirement is the id of the catalogue row the finding shows
	// broken ("acp.prompt.cancelled-stop-reason"), or "" for a finding
	// that is advice rather than a breach of the specification (a
	// dialect note, a near miss) or that is about the file.
	Requirement string
	// Side is the peer at fault: "client" or "agent" (ARCP: "runtime";
	// Arcan: "agent"), or "" when the trace does not say.
	Side string
}

func (f Finding) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s:%d: %s: ", f.File, f.Line, f.Severity)
	if f.Pointer != "" {
		sb.WriteString(f.Pointer)
		sb.WriteString(": ")
	}
	sb.WriteString(f.Message)
	sb.WriteString(" [")
	sb.WriteString(f.Tag())
	sb.WriteByte(']')
	return sb.String()
}

// Tag is the bracketed part of a finding's text line: its rule, then its
// requirement and the side at fault where known ("schema acp.schema.shape,
// agent").
func (f Finding) Tag() string {
	t := f.Rule
	if f.Requirement != "" {
		t += " " + f.Requirement
	}
	if f.Side != "" {
		t += ", " + f.Side
	}
	return t
}

// Summary counts what one or more runs saw.
type Summary struct {
	Files    int
	Lines    int            // lines read (blank ones included)
	Messages int            // records that held a message (parsed or not)
	Errors   int            // findings of severity Error
	Warnings int            // findings of severity Warning
	ByType   map[string]int // messages by "protocol type" (for example "acp session/update")
	ByRule   map[string]int // findings by rule
	Detected []Detected     // what each file was read as, in order
}

// Detected says what one file was read as.
type Detected struct {
	File     string
	Protocol string // "" when no protocol was recognised
	Dialect  string
	// Note, for a dialect that is not the protocol itself, says in one
	// line how it differs.
	Note string
	// Peers are the implementations the trace names (ACP's clientInfo
	// and agentInfo), in the order they appear.
	Peers []Peer
	// Coverage says which requirements of the version's catalogue the
	// trace reached; nil when the protocol keeps no catalogue.
	Coverage *Coverage
}

// Peer is one side's implementation as the trace names it.
type Peer struct {
	Side    string // "client", "agent", "runtime"
	Name    string
	Version string
}

// Coverage is what one trace showed of a catalogue: the ids of the rows
// whose situation it reached and that held (Exercised), that it showed
// broken (Violated), that the validator checks but the trace never reached
// (Unexercised), and that no rule checks (Unchecked), each sorted.
type Coverage struct {
	Exercised   []string
	Violated    []string
	Unexercised []string
	Unchecked   []string
}

// Add folds f into s.
func (s *Summary) Add(f Finding) {
	if f.Severity == Warning {
		s.Warnings++
	} else {
		s.Errors++
	}
	if s.ByRule == nil {
		s.ByRule = map[string]int{}
	}
	s.ByRule[f.Rule]++
}

// Merge adds the counts of o to s.
func (s *Summary) Merge(o Summary) {
	s.Files += o.Files
	s.Lines += o.Lines
	s.Messages += o.Messages
	s.Errors += o.Errors
	s.Warnings += o.Warnings
	s.Detected = append(s.Detected, o.Detected...)
	for k, v := range o.ByType {
		if s.ByType == nil {
			s.ByType = map[string]int{}
		}
		s.ByType[k] += v
	}
	for k, v := range o.ByRule {
		if s.ByRule == nil {
			s.ByRule = map[string]int{}
		}
		s.ByRule[k] += v
	}
}

// SortedKeys returns the keys of m, most frequent first, then by name.
func SortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}
