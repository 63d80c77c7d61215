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
)

// RuleDocs lists Arcan's rules.
func RuleDocs() []protocol.RuleDoc {
	return []protocol.RuleDoc{
		{Name: RuleRunNotStarted, Summary: "a run's event before its run_started", Requirements: []string{"arcan.run.started-first"}},
		{Name: RuleEventAfterFinish, Summary: "a run's event after its run_finished", Requirements: []string{"arcan.run.finished-last", "arcan.run.only-finished-after-error", "arcan.run.started-once"}},
		{Name: RuleIterationOrder, Summary: "iterations of a run out of order", Requirements: []string{"arcan.iteration.never-back"}},
		{Name: RuleUnknownCallID, Summary: "a tool result for a call id no tool call requested", Requirements: []string{"arcan.tool.outcome-names-requested-call"}},
		{Name: RuleEmitShape, Summary: "a member the reference always writes is missing, or null where it leaves it out (a warning)", Requirements: []string{"arcan.shape.null-options-written", "arcan.shape.value-members-written", "arcan.shape.usage-counters-written", "arcan.shape.unset-optional-omitted", "arcan.store.parent-id-written"}},
		{Name: finding.RuleSchema, Summary: "an event does not match its variant's schema", Requirements: []string{"arcan.schema.shape"}},
	}
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
