package arcp

import (
	"slices"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// ARCP's rule names. They are a contract: fixtures' .expect files, the JSON
// output and configuration files name them.
const (
	RuleSeqGap                 = "seq-gap"
	RuleSeqOrder               = "seq-order"
	RuleSessionMismatch        = "session-mismatch"
	RuleTerminalTwice          = "terminal-twice"
	RuleTerminalBeforeAccepted = "terminal-before-accepted"
	RuleListJobsUnanswered     = "list-jobs-unanswered"
	RuleFeatureNotNegotiated   = "feature-not-negotiated"
	RuleResultIDMissing        = "result-id-missing"
	RuleJobUnknown             = "job-unknown"
	RuleAfterTerminal          = "after-terminal"
	RuleProgressOverTotal      = "progress-over-total"
	RuleChunkSeqGap            = "chunk-seq-gap"
	RuleChunkAfterLast         = "chunk-after-last"
	RuleResultIDUnknown        = "result-id-unknown"
	RuleResultStreamOpen       = "result-stream-open"
	RuleResultInlineMixed      = "result-inline-mixed"
	RulePongUnanswered         = "pong-unanswered"
	RuleClosedUnanswered       = "closed-unanswered"
	RuleAckAhead               = "ack-ahead"
	RuleAfterBye               = "after-bye"
	RuleCloseUnacknowledged    = "close-unacknowledged"
	RuleIDReused               = "id-reused"
	RuleIdempotentAccept       = "idempotent-accept"
	RuleJobIDReused            = "job-id-reused"
	RuleSubscribeAuthority     = "subscribe-authority"
	RuleCancelOutcome          = "cancel-outcome"
	RuleHeartbeatTiming        = "heartbeat-timing"
	RuleTraceNotInherited      = "trace-not-inherited"
	RuleVersionFixed           = "version-fixed"
	RuleVersionRefusalCode     = "version-refusal-code"
	RuleLeaseSubset            = "lease-subset"
	RuleLeaseWidened           = "lease-widened"
	RuleLeaseExpiredOK         = "lease-expired-ok"
	RuleBudgetExhaustedOK      = "budget-exhausted-ok"
	RuleLeaseUncovered         = "lease-uncovered"
	RuleControlSequenced       = "control-sequenced"
	RuleAuthScheme             = "auth-scheme"
	RuleListedAgentVersion     = "listed-agent-version"
	RuleAgentInventory         = "agent-inventory"
	RuleAckRate                = "ack-rate"
	RuleGapNotResumed          = "gap-not-resumed"
	RuleExpiryPast             = "expiry-past"
	RuleLeaseExpiredEnd        = "lease-expired-end"
	RuleBudgetNotDecremented   = "budget-not-decremented"
	RuleBudgetExhaustedEnd     = "budget-exhausted-end"
	RuleBudgetRemainingMissing = "budget-remaining-missing"
	RuleCredentialModels       = "credential-models"
	RuleCredentialBudget       = "credential-budget"
	RuleCredentialTTL          = "credential-ttl"
	RuleCredentialChild        = "credential-child"
	RuleCredentialReused       = "credential-reused"
	RuleCredentialLate         = "credential-late"
)

// RuleDocs lists ARCP's rules.
func RuleDocs() []protocol.RuleDoc {
	return append([]protocol.RuleDoc{
		{Name: RuleSeqGap, Summary: "a job's event_seq skips a number", Requirements: []string{"arcp.seq.gap-free"}},
		{Name: RuleSeqOrder, Summary: "a job's event_seq does not increase", Requirements: []string{"arcp.seq.strictly-increasing"}},
		{Name: RuleSessionMismatch, Summary: "a message names another session than its connection's", Requirements: []string{"arcp.session.session-id-consistent"}},
		{Name: RuleTerminalTwice, Summary: "a job gets a second terminal message", Requirements: []string{"arcp.job.single-terminal"}},
		{Name: RuleTerminalBeforeAccepted, Summary: "a job ends before it was accepted", Requirements: []string{"arcp.job.terminal-after-accepted"}},
		{Name: RuleListJobsUnanswered, Summary: "a session.jobs answer names a request that was not made", Requirements: []string{"arcp.list.jobs-answers-request"}},
		{Name: RuleFeatureNotNegotiated, Summary: "a message uses a feature the session did not negotiate", Requirements: []string{"arcp.session.feature-intersection"}},
		{Name: RuleResultIDMissing, Summary: "a streamed result's chunk names no result id", Requirements: []string{"arcp.result.result-id-after-chunks"}},
		{Name: RuleJobUnknown, Summary: "a message names a job that was never submitted or accepted", Requirements: []string{"arcp.job.events-for-known-jobs"}},
		{Name: RuleAfterTerminal, Summary: "a job event after the job's terminal message", Requirements: []string{"arcp.job.nothing-after-terminal"}},
		{Name: RuleProgressOverTotal, Summary: "progress beyond its stated total", Requirements: []string{"arcp.progress.current-within-total"}},
		{Name: RuleChunkSeqGap, Summary: "a result stream's chunk sequence skips a number", Requirements: []string{"arcp.result.chunks-in-order"}},
		{Name: RuleChunkAfterLast, Summary: "a result chunk after the stream's last one", Requirements: []string{"arcp.result.no-chunk-after-last"}},
		{Name: RuleResultIDUnknown, Summary: "a result names a stream that was never opened", Requirements: []string{"arcp.result.result-id-names-stream"}},
		{Name: RuleResultStreamOpen, Summary: "a job ends with its result stream still open", Requirements: []string{"arcp.result.stream-complete"}},
		{Name: RuleResultInlineMixed, Summary: "a job both streams a result and returns one inline", Requirements: []string{"arcp.result.no-mixing"}},
		{Name: RulePongUnanswered, Summary: "a pong that answers no ping", Requirements: []string{"arcp.heartbeat.pong-echoes-ping"}},
		{Name: RuleClosedUnanswered, Summary: "a close acknowledgement that answers no close", Requirements: []string{"arcp.session.closed-answers-close"}},
		{Name: RuleAckAhead, Summary: "an acknowledgement of events not yet sent", Requirements: []string{"arcp.ack.not-ahead"}},
		{Name: RuleAfterBye, Summary: "a message of a session after its session.bye", Requirements: []string{"arcp.session.nothing-after-bye"}},
		{Name: RuleCloseUnacknowledged, Summary: "a session.close never acknowledged with session.closed", Requirements: []string{"arcp.session.closed-answers-close"}},
		{Name: RuleIDReused, Summary: "a sender reuses an envelope id on a connection for another message", Requirements: []string{"arcp.envelope.unique-id"}},
		{Name: RuleIdempotentAccept, Summary: "an identical resubmission by idempotency key gets a new job", Requirements: []string{"arcp.job.idempotent-accept"}},
		{Name: RuleJobIDReused, Summary: "a new job is accepted under the id of an earlier job", Requirements: []string{"arcp.job.fresh-job-id"}},
		{Name: RuleSubscribeAuthority, Summary: "a subscriber's job.cancel is honoured", Requirements: []string{"arcp.subscribe.no-cancel-authority"}},
		{Name: RuleCancelOutcome, Summary: "a cancelled job does not end with final_status cancelled", Requirements: []string{"arcp.job.cancelled-final-status"}},
		{Name: RuleHeartbeatTiming, Summary: "a ping unanswered past the heartbeat interval, by the messages' own clocks", Requirements: []string{"arcp.heartbeat.pong-within-interval"}},
		{Name: RuleTraceNotInherited, Summary: "a delegated job does not keep its parent's trace_id", Requirements: []string{"arcp.trace.forward-context"}},
		{Name: RuleVersionFixed, Summary: "a running job's agent version changes", Requirements: []string{"arcp.version.no-migration"}},
		{Name: RuleVersionRefusalCode, Summary: "an unavailable agent version refused with another code than AGENT_VERSION_NOT_AVAILABLE", Requirements: []string{"arcp.version.unavailable-code"}},
		// The delegation rows of §9.4 restated in §9.7, §9.8.2 and §10.
		{Name: RuleLeaseSubset, Summary: "a delegated lease reaches beyond its parent's (grants, remaining budget, expiry)", Requirements: []string{"arcp.lease.delegated-subset", "arcp.lease.delegated-budget-within-remaining", "arcp.lease.delegated-expiry-within-parent", "arcp.lease.delegated-models-subset", "arcp.credential.child-lease-subset", "arcp.delegate.budget-within-parent", "arcp.delegate.expiry-within-parent"}},
		{Name: RuleLeaseWidened, Summary: "an accepted lease wider than the one requested", Requirements: []string{"arcp.lease.no-silent-expansion"}},
		{Name: RuleLeaseExpiredOK, Summary: "an operation after the lease's expires_at succeeds", Requirements: []string{"arcp.lease.expired-operations-fail"}},
		{Name: RuleBudgetExhaustedOK, Summary: "an operation after the budget is spent succeeds", Requirements: []string{"arcp.budget.exhausted-operations-fail"}},
		{Name: RuleLeaseUncovered, Summary: "an operation outside the lease succeeds or fails with another code than PERMISSION_DENIED", Requirements: []string{"arcp.lease.operations-covered", "arcp.lease.uncovered-permission-denied"}},
		{Name: RuleControlSequenced, Summary: "a control message carries an event_seq", Requirements: []string{"arcp.seq.control-unsequenced"}},
		{Name: RuleAuthScheme, Summary: "a hello authenticates with another scheme than bearer", Requirements: []string{"arcp.auth.bearer-token"}},
		{Name: RuleListedAgentVersion, Summary: "a job listing names an agent without its version", Requirements: []string{"arcp.list.jobs-shape"}},
		{Name: RuleAgentInventory, Summary: "a versioned agent inventory lists an agent by name only", Requirements: []string{"arcp.session.agent-inventory"}},
		{Name: RuleAckRate, Summary: "two acknowledgements with no event between them (a warning)", Requirements: []string{"arcp.ack.rate"}},
		{Name: RuleGapNotResumed, Summary: "a client acknowledges past a gap in the sequence instead of resuming (a warning)", Requirements: []string{"arcp.seq.client-resumes-on-gap"}},
		{Name: RuleExpiryPast, Summary: "a submitted expires_at the trace's clock already shows past", Requirements: []string{"arcp.lease.expires-at-future"}},
		{Name: RuleLeaseExpiredEnd, Summary: "a job that met its lease's expiry ends with job.result", Requirements: []string{"arcp.lease.expired-job-error"}},
		{Name: RuleBudgetNotDecremented, Summary: "a remaining budget that the cost metrics did not lower", Requirements: []string{"arcp.budget.decrement-on-cost-metric"}},
		{Name: RuleBudgetExhaustedEnd, Summary: "budget exhaustion ends the job instead of failing a tool call (a warning)", Requirements: []string{"arcp.budget.prefer-tool-result"}},
		{Name: RuleBudgetRemainingMissing, Summary: "a job whose credential enforces the budget reports no remaining budget (a warning)", Requirements: []string{"arcp.budget.keep-remaining-metrics"}},
		{Name: RuleCredentialModels, Summary: "a credential allows models the lease does not (a warning)", Requirements: []string{"arcp.credential.models-mapped", "arcp.model.bake-into-credential"}},
		{Name: RuleCredentialBudget, Summary: "a credential's spending cap above the job's budget (a warning)", Requirements: []string{"arcp.credential.budget-cap-mapped"}},
		{Name: RuleCredentialTTL, Summary: "a credential that outlives the lease (a warning)", Requirements: []string{"arcp.credential.ttl-mapped"}},
		{Name: RuleCredentialChild, Summary: "a delegated job's credential looser than its lease", Requirements: []string{"arcp.credential.child-within-child-lease"}},
		{Name: RuleCredentialReused, Summary: "a credential value issued to a second job", Requirements: []string{"arcp.credential.no-reuse-across-jobs", "arcp.credential.single-job-scope"}},
		{Name: RuleCredentialLate, Summary: "a rotation of a credential the job's acceptance did not issue", Requirements: []string{"arcp.credential.issued-by-acceptance"}},
		{Name: finding.RuleSchema, Summary: "a message does not match its type's schema", Requirements: []string{"arcp.schema.shape"}},
		// What the v1.1 schemas enforce that the catalogue also states
		// (a known SDK's departure from it is a deviation warning in the
		// schema finding's place).
		{Name: finding.RuleSchema, Summary: "a message does not match its type's schema", Requirements: schemaRows()},
		// What only the deviation table reports: v1.0's session.bye,
		// which has a schema of its own.
		{Name: finding.RuleDeviationPrefix + "session-bye", Summary: "a session ended with v1.0's session.bye instead of v1.1's session.close", Requirements: []string{"arcp.session.close-to-end"}},
		{Name: finding.RuleDeviationPrefix + "go-output", Summary: "an inline result named output, where canonical receivers read result", Requirements: []string{"arcp.result.inline-without-result-id"}},
		{Name: finding.RuleUnknownType, Summary: "a message type ARCP does not define (x-vendor.* types: a warning)", Requirements: []string{"arcp.envelope.defined-type"}},
	}, ruleTexts()...)
}

// schemaCovered are the catalogue rows the v1.1 schemas enforce, each
// with the message (type, event kind, a member it needs present, and that
// member's value if it is) whose
// schema does: a trace with such a message exercises the row.
var schemaCovered = []covered{
	{typ: "session.hello", rows: []string{"arcp.resume.token-and-seq"}},
	{typ: "session.resume", rows: []string{"arcp.resume.token-and-seq"}},
	{typ: "session.welcome", has: "/payload/capabilities/agents", rows: []string{"arcp.session.agent-inventory"}},
	{typ: "session.jobs", rows: []string{"arcp.list.jobs-shape"}},
	{typ: "job.accepted", rows: []string{"arcp.job.accepted-echoes-lease"}},
	{typ: "job.subscribed", rows: []string{"arcp.job.accepted-echoes-lease"}},
	{typ: "job.accepted", has: "/payload/credentials", rows: []string{"arcp.credential.wire-shape", "arcp.credential.id-required", "arcp.credential.scheme-required", "arcp.credential.value-required", "arcp.credential.endpoint-required"}},
	{typ: "job.subscribe", rows: []string{"arcp.subscribe.job-id-required"}},
	{typ: "job.submit", has: "/payload/lease_constraints/expires_at", rows: []string{"arcp.lease.expires-at-utc"}},
	{typ: "job.event", rows: []string{"arcp.event.body-shape"}},
	{typ: "job.event", kind: "progress", rows: []string{"arcp.progress.current-non-negative"}},
	{typ: "job.event", kind: "result_chunk", rows: []string{"arcp.result.chunk-result-id-required", "arcp.result.chunk-seq-required", "arcp.result.chunk-data-required", "arcp.result.chunk-encoding-required", "arcp.result.chunk-more-required"}},
	{typ: "job.event", kind: "status", has: "/payload/body/phase", is: "credential_rotated", rows: []string{"arcp.credential.rotation-status"}},
	{typ: "job.error", rows: []string{"arcp.error.payload-shape", "arcp.error.not-retryable-codes"}},
	{typ: "session.error", rows: []string{"arcp.error.payload-shape", "arcp.error.not-retryable-codes"}},
}

// covered names the rows a kind of message exercises.
type covered struct {
	typ, kind, has, is string
	rows               []string
}

// canonicalCovered are rows only a deviation reports, exercised by the
// canonical form the deviation departs from.
var canonicalCovered = []covered{
	{typ: "session.close", rows: []string{"arcp.session.close-to-end"}},
}

// schemaRows lists the rows of schemaCovered, each once.
func schemaRows() []string {
	var out []string
	for _, c := range schemaCovered {
		for _, id := range c.rows {
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

// exerciseSchema notes the rows a message's schema enforces, and those
// its canonical form shows held.
func (s *state) exerciseSchema(m *protocol.Message, typ, kind string) {
	s.exerciseCovered(m, typ, kind, schemaCovered)
	s.exerciseCovered(m, typ, kind, canonicalCovered)
}

func (s *state) exerciseCovered(m *protocol.Message, typ, kind string, cs []covered) {
	for _, c := range cs {
		if c.typ == typ && (c.kind == "" || c.kind == kind) && (c.has == "" || m.Has(c.has)) && (c.is == "" || m.StringIs(c.has, c.is)) {
			for _, id := range c.rows {
				s.exercised.Row(id)
			}
		}
	}
}

// knownRule reports whether rule is one of RuleDocs or a rule of the
// engine's.
func knownRule(rule string) bool {
	for _, d := range RuleDocs() {
		if d.Name == rule {
			return true
		}
	}
	return finding.Known(rule)
}

// RuleDocs is the package's RuleDocs.
func (*Rules) RuleDocs() []protocol.RuleDoc { return RuleDocs() }

// Blame names the row a finding on m shows broken where its check named
// none: a deviation's row from the deviation table, else the rule's first
// row.
func (r *Rules) Blame(f *finding.Finding, m *protocol.Message) {
	if id, ok := strings.CutPrefix(f.Rule, finding.RuleDeviationPrefix); ok {
		for _, v := range r.reg.Versions("arcp") {
			for _, d := range v.ARCP().Deviations {
				if d.ID == id {
					f.Requirement = d.Requirement
					return
				}
			}
		}
		return
	}
	if f.Rule == finding.RuleSchema {
		f.Requirement = "arcp.schema.shape"
		return
	}
	if f.Rule == finding.RuleUnknownType && f.Severity == finding.Warning {
		return // a vendor type: advice
	}
	for _, d := range RuleDocs() {
		if d.Name == f.Rule && len(d.Requirements) > 0 {
			f.Requirement = d.Requirements[0]
			return
		}
	}
}
