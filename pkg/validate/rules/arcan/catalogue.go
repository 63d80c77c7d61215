package arcan

import (
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// Arcan's rule names. They are a contract: fixtures' .expect files, the JSON
// output and configuration files name them.
const (
	RuleRunNotStarted    = "run-not-started"
	RuleEventAfterFinish = "event-after-finish"
	RuleIterationOrder   = "iteration-order"
	RuleUnknownCallID    = "unknown-call-id"
	RuleEmitShape        = "emit-shape" // a member Arcan always writes is missing, or null where Arcan leaves it out (a warning)

	// What the reference orchestrator does, as the notes describe it
	// (warnings).
	RuleIterationSequence = "iteration-sequence"
	RuleTurnOrder         = "turn-order"
	RuleToolCallID        = "tool-call-id"
	RuleStatePatch        = "state-patch"
	RuleRunOutcome        = "run-outcome"
	RuleRunSession        = "run-session"
	RuleApprovalID        = "approval-id"
	RuleStoreSequence     = "store-sequence"
)

// The catalogue rows the described rules check, each named by its
// finding.
const (
	RowIterationConsecutive = "arcan.iteration.consecutive"
	RowIterationWithinMax   = "arcan.iteration.within-max"
	RowIterationStartFirst  = "arcan.iteration.start-event-first"
	RowModelOutputFirst     = "arcan.iteration.model-output-before-directives"
	RowCompactionFirst      = "arcan.iteration.compaction-before-model-output"
	RowDirectiveCount       = "arcan.iteration.directive-count"
	RowCallIDUnique         = "arcan.tool.call-id-unique"
	RowOneOutcome           = "arcan.tool.one-outcome-per-call"
	RowRevisionSteps        = "arcan.state.revision-steps"
	RowPatchFormat          = "arcan.state.patch-matches-format"
	RowTotalIterations      = "arcan.run.total-iterations"
	RowReasonFollows        = "arcan.run.reason-follows-stop-reason"
	RowErroredReason        = "arcan.run.errored-not-completed"
	RowFinalAnswerStreamed  = "arcan.run.final-answer-streamed"
	RowSameSession          = "arcan.run.same-session"
	RowApprovalAnswers      = "arcan.approval.resolved-answers-request"
	RowStoreSequence        = "arcan.store.sequence-consecutive"
)

// RuleDocs lists Arcan's rules.
func RuleDocs() []protocol.RuleDoc {
	return append([]protocol.RuleDoc{
		{Name: RuleRunNotStarted, Summary: "a run's event before its run_started", Requirements: []string{"arcan.run.started-first"}},
		{Name: RuleEventAfterFinish, Summary: "a run's event after its run_finished", Requirements: []string{"arcan.run.finished-last", "arcan.run.only-finished-after-error", "arcan.run.started-once"}},
		{Name: RuleIterationOrder, Summary: "iterations of a run out of order", Requirements: []string{"arcan.iteration.never-back"}},
		{Name: RuleUnknownCallID, Summary: "a tool result for a call id no tool call requested", Requirements: []string{"arcan.tool.outcome-names-requested-call"}},
		{Name: RuleEmitShape, Summary: "what the reference writes differs: a member it always writes is missing, null where it leaves it out, or one it never writes; the tag not first; a free-form value's keys unsorted; a run's usage without tokens (a warning)", Requirements: []string{"arcan.shape.null-options-written", "arcan.shape.value-members-written", "arcan.shape.usage-counters-written", "arcan.shape.unset-optional-omitted", "arcan.store.parent-id-written", "arcan.shape.tag-first", "arcan.shape.value-keys-sorted", "arcan.shape.completed-carries-summary", "arcan.shape.run-usage-only-when-tokens"}},
		{Name: RuleIterationSequence, Summary: "an iteration started out of sequence or beyond max_iterations, or an event of an iteration not started (a warning)", Requirements: []string{RowIterationConsecutive, RowIterationWithinMax, RowIterationStartFirst}},
		{Name: RuleTurnOrder, Summary: "an iteration's events out of the order of a model turn, or more directive events than the turn had (a warning)", Requirements: []string{RowModelOutputFirst, RowCompactionFirst, RowDirectiveCount}},
		{Name: RuleToolCallID, Summary: "a tool call id requested twice in a run, or a call with a second outcome (a warning)", Requirements: []string{RowCallIDUnique, RowOneOutcome}},
		{Name: RuleStatePatch, Summary: "a state revision that does not go up by one per patch, or a json_patch that is no operation array (a warning)", Requirements: []string{RowRevisionSteps, RowPatchFormat}},
		{Name: RuleRunOutcome, Summary: "run_finished's total_iterations, reason or final_answer contradicting the run (a warning)", Requirements: []string{RowTotalIterations, RowReasonFollows, RowErroredReason, RowFinalAnswerStreamed}},
		{Name: RuleRunSession, Summary: "an event naming another session than its run's (a warning)", Requirements: []string{RowSameSession}},
		{Name: RuleApprovalID, Summary: "approval_resolved for an approval not requested, or resolved already (a warning)", Requirements: []string{RowApprovalAnswers}},
		{Name: RuleStoreSequence, Summary: "a store record's sequence that does not go up by one in its session's branch (a warning)", Requirements: []string{RowStoreSequence}},
		{Name: finding.RuleSchema, Summary: "an event does not match its variant's schema", Requirements: []string{"arcan.schema.shape", "arcan.shape.flat-tagged-object", "arcan.shape.part-type-present", "arcan.shape.known-variant", "arcan.shape.integer-literals", "arcan.shape.run-and-session-ids", "arcan.shape.variant-fields", "arcan.shape.snake-case-enums", "arcan.store.record-members"}},
	}, ruleTexts()...)
}

// RuleDocs is the package's RuleDocs.
func (*Rules) RuleDocs() []protocol.RuleDoc { return RuleDocs() }

// Blame names the row a finding on m shows broken where its check named
// none: the rule's first row.
func (*Rules) Blame(f *finding.Finding, m *protocol.Message) {
	for _, d := range RuleDocs() {
		if d.Name == f.Rule && len(d.Requirements) > 0 {
			f.Requirement = d.Requirements[0]
			return
		}
	}
}
