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
	RuleUnknownMethod   = finding.RuleUnknownMethod
	RuleUnknownType     = finding.RuleUnknownType
	RuleUnknownProtocol = finding.RuleUnknownProtocol
	RuleRoundtrip       = finding.RuleRoundtrip
	RuleTooMany         = finding.RuleTooMany
	RuleReplay          = finding.RuleReplay
	RuleDeviationPrefix = finding.RuleDeviationPrefix

	RuleNotInitialized     = finding.RuleNotInitialized
	RuleUnansweredResponse = finding.RuleUnansweredResponse
	RuleDuplicateResponse  = finding.RuleDuplicateResponse
	RuleUnknownSession     = finding.RuleUnknownSession
	RuleUnknownToolCall    = finding.RuleUnknownToolCall
	RulePermissionOption   = finding.RulePermissionOption
	RuleCapability         = finding.RuleCapability
	RuleDirection          = finding.RuleDirection
	RuleUnstable           = finding.RuleUnstable
	RulePartialCapture     = finding.RulePartialCapture
	RuleStateWindow        = finding.RuleStateWindow
	RuleNearMiss           = finding.RuleNearMiss

	RuleSeqGap                 = finding.RuleSeqGap
	RuleSeqOrder               = finding.RuleSeqOrder
	RuleSessionMismatch        = finding.RuleSessionMismatch
	RuleTerminalTwice          = finding.RuleTerminalTwice
	RuleTerminalBeforeAccepted = finding.RuleTerminalBeforeAccepted
	RuleListJobsUnanswered     = finding.RuleListJobsUnanswered
	RuleFeatureNotNegotiated   = finding.RuleFeatureNotNegotiated
	RuleResultIDMissing        = finding.RuleResultIDMissing
	RuleJobUnknown             = finding.RuleJobUnknown
	RuleAfterTerminal          = finding.RuleAfterTerminal
	RuleProgressOverTotal      = finding.RuleProgressOverTotal
	RuleChunkSeqGap            = finding.RuleChunkSeqGap
	RuleChunkAfterLast         = finding.RuleChunkAfterLast
	RuleResultIDUnknown        = finding.RuleResultIDUnknown
	RuleResultStreamOpen       = finding.RuleResultStreamOpen
	RuleResultInlineMixed      = finding.RuleResultInlineMixed
	RulePongUnanswered         = finding.RulePongUnanswered
	RuleClosedUnanswered       = finding.RuleClosedUnanswered
	RuleAckAhead               = finding.RuleAckAhead

	RuleRunNotStarted    = finding.RuleRunNotStarted
	RuleEventAfterFinish = finding.RuleEventAfterFinish
	RuleIterationOrder   = finding.RuleIterationOrder
	RuleUnknownCallID    = finding.RuleUnknownCallID
	RuleEmitShape        = finding.RuleEmitShape
)

// SortedKeys returns the keys of m, most frequent first, then by name.
func SortedKeys(m map[string]int) []string { return finding.SortedKeys(m) }
