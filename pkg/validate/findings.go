package validate

import "github.com/agentproto/agentproto/pkg/validate/finding"

// The types of what a run reports; see package finding.
type (
	// Finding is one problem on one line of a trace.
	Finding = finding.Finding
	// Severity grades a finding.
	Severity = finding.Severity
	// Summary counts what one or more runs saw.
	Summary = finding.Summary
	// Detected says what one file was read as.
	Detected = finding.Detected
	// Peer is one side's implementation as a trace names it.
	Peer = finding.Peer
	// Coverage is what one trace showed of its requirement catalogue.
	Coverage = finding.Coverage
)

// Severities.
const (
	Error   = finding.Error
	Warning = finding.Warning
)

// Rule names: a contract with fixtures' .expect files and the JSON output,
// listed in cmd/validate/README.md.
const (
	RuleJSON            = finding.RuleJSON
	RuleLineTooLong     = finding.RuleLineTooLong
	RuleIO              = finding.RuleIO
	RuleEmpty           = finding.RuleEmpty
	RuleSchema          = finding.RuleSchema
	RuleUnknownType     = finding.RuleUnknownType
	RuleUnknownProtocol = finding.RuleUnknownProtocol
	RuleRoundtrip       = finding.RuleRoundtrip
	RuleTooMany         = finding.RuleTooMany
	RuleReplay          = finding.RuleReplay
	RuleSidecar         = finding.RuleSidecar
	RuleDeviationPrefix = finding.RuleDeviationPrefix

	RuleUnstable       = finding.RuleUnstable
	RulePartialCapture = finding.RulePartialCapture
	RuleStateWindow    = finding.RuleStateWindow
	RuleNearMiss       = finding.RuleNearMiss
	RuleCustomMember   = finding.RuleCustomMember
	RuleRetired        = finding.RuleRetired
	RuleOtherVersion   = finding.RuleOtherVersion
)

// SortedKeys returns the keys of m, most frequent first, then by name.
func SortedKeys(m map[string]int) []string { return finding.SortedKeys(m) }
