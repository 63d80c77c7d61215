package validate

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
	RuleUnknownMethod   = "unknown-method"   // ACP method not in the method table
	RuleUnknownType     = "unknown-type"     // ARCP message type not in the table (x-vendor.*: a warning)
	RuleUnknownProtocol = "unknown-protocol" // the file matches no protocol
	RuleRoundtrip       = "roundtrip"        // decode then encode changed the message
	RuleDeviationPrefix = "deviation:"       // deviation:<id>, an SDK dialect's deviation from canonical ARCP v1.1

	// ACP state.
	RuleNotInitialized     = "not-initialized"
	RuleUnansweredResponse = "unanswered-response"
	RuleDuplicateResponse  = "duplicate-response"
	RuleUnknownSession     = "unknown-session"
	RuleUnknownToolCall    = "unknown-tool-call"
	RulePermissionOption   = "permission-option"
	RuleCapability         = "capability"
	RuleDirection          = "direction"

	// ARCP state.
	RuleSeqGap                 = "seq-gap"
	RuleSeqOrder               = "seq-order"
	RuleSessionMismatch        = "session-mismatch"
	RuleTerminalTwice          = "terminal-twice"
	RuleTerminalBeforeAccepted = "terminal-before-accepted"
	RuleListJobsUnanswered     = "list-jobs-unanswered"
	RuleFeatureNotNegotiated   = "feature-not-negotiated"
	RuleResultIDMissing        = "result-id-missing"

	// Arcan state.
	RuleRunNotStarted    = "run-not-started"
	RuleEventAfterFinish = "event-after-finish"
	RuleIterationOrder   = "iteration-order"
	RuleUnknownCallID    = "unknown-call-id"
)

// Finding is one problem on one line of a trace.
type Finding struct {
	File     string   // the file name as given ("-" for stdin)
	Line     int      // 1-based line; 0 for a finding about the whole file
	Severity Severity // Error or Warning
	Protocol string   // "acp", "arcp", "arcan", or "" when none was recognised
	Dialect  string   // the schema set or SDK dialect the file was read as
	Rule     string   // a Rule* name, or "deviation:<id>"
	Pointer  string   // JSON pointer into the line's message ("" for the whole message)
	Message  string   // a sentence for the author of the message
}

func (f Finding) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s:%d: %s: ", f.File, f.Line, f.Severity)
	if f.Pointer != "" {
		sb.WriteString(f.Pointer)
		sb.WriteString(": ")
	}
	sb.WriteString(f.Message)
	fmt.Fprintf(&sb, " [%s]", f.Rule)
	return sb.String()
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
}

// VTCodeNote is the Note of a trace in VT Code's HTTP dialect of ACP.
const VTCodeNote = "this is VT Code's HTTP dialect, not ACP v1: snake_case members (session_id) where ACP has camelCase (sessionId), " +
	"stream updates tagged by update_type where ACP has sessionUpdate, and JSON-RPC over HTTP with server-sent events where ACP has JSON-RPC over stdio " +
	"(see schema/acp/vtcode/README.md)"

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
