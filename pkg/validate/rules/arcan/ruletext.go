package arcan

import "github.com/agentproto/agentproto/pkg/validate/protocol"

// ruleTexts describes each of the package's rules once: its severity and,
// in Markdown, what it catches (RuleDocs lists them after the rows the
// rules check). cmd/validate/README.md's rule table is generated from them.
func ruleTexts() []protocol.RuleDoc {
	return []protocol.RuleDoc{
		{Name: RuleRunNotStarted, Severity: "error",
			Text: "Arcan: an event of a run before its `run_started`"},
		{Name: RuleEventAfterFinish, Severity: "error",
			Text: "Arcan: an event after the run's `run_finished`, or anything but `run_finished` after `run_errored`, or a second `run_started`"},
		{Name: RuleIterationOrder, Severity: "error",
			Text: "Arcan: an iteration number lower than an earlier one in the run"},
		{Name: RuleUnknownCallID, Severity: "error",
			Text: "Arcan: `tool_call_completed`/`tool_call_failed` for a call no `tool_call_requested` asked for"},
		{Name: RuleEmitShape, Severity: "warning",
			Text: "Arcan: a member Arcan always writes is missing, is `null` where Arcan leaves it out, or is one Arcan never writes there (`is_error` on a completed call's summary); `part_type` is not the first member; a free-form JSON value's object keys are not sorted; a run's `usage` has no tokens. Arcan's own reader accepts all of these, a consumer written against its output may not"},
		{Name: RuleIterationSequence, Severity: "warning",
			Text: "Arcan: an `iteration_started` that skips or repeats a number or goes past the run's `max_iterations`, or an event carrying an iteration its run has not started (the event is blamed, not what follows it)"},
		{Name: RuleTurnOrder, Severity: "warning",
			Text: "Arcan: a directive's event (`text_delta`, a tool call or outcome, `state_patched`, an approval) before its iteration's `model_output`, a `context_compacted` after it, or more `text_delta`/`tool_call_requested` events than the turn's `directive_count`"},
		{Name: RuleToolCallID, Severity: "warning",
			Text: "Arcan: a `call_id` requested twice in a run, or a call that gets a second outcome (completed and failed, or twice)"},
		{Name: RuleStatePatch, Severity: "warning",
			Text: "Arcan: a `state_patched` revision that is not one more than the run's previous one, or a `json_patch` that is no RFC 6902 operation array"},
		{Name: RuleRunOutcome, Severity: "warning",
			Text: "Arcan: `run_finished` whose `total_iterations` is not the last iteration started, whose `reason` does not follow the last model turn's `stop_reason` (or is `completed`/`needs_user` after `run_errored`), or whose `final_answer` was never streamed as a `text_delta`"},
		{Name: RuleRunSession, Severity: "warning",
			Text: "Arcan: an event naming another `session_id` than its run's"},
		{Name: RuleApprovalID, Severity: "warning",
			Text: "Arcan: `approval_resolved` for an approval no unresolved `approval_requested` of the run asked for"},
		{Name: RuleStoreSequence, Severity: "warning",
			Text: "Arcan: a session-store record whose `sequence` is not one more than its branch's previous record's"},
	}
}
