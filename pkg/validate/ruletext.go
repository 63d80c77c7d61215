package validate

import (
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// engineRuleTexts describes the rules the engine reports whatever the
// protocol (finding.Rules, and ARCP's deviation:<id> family): each one's
// severity and, in Markdown, what it catches. cmd/validate/README.md's rule
// table is generated from these and the protocols' own (RuleTable).
func engineRuleTexts() []protocol.RuleDoc {
	return []protocol.RuleDoc{
		{Name: finding.RuleJSON, Severity: "error",
			Text: "not valid JSON: syntax, invalid UTF-8, a duplicate object key, a lone UTF-16 surrogate escape, an unescaped control character or NUL, nesting deeper than `--max-depth`, data after the value, a truncated line; also a binary file (one finding), and UTF-16 text (one finding that says how to convert it), and a number literal of more than 100 digits or an exponent beyond ±400 (valid JSON, but no protocol number needs it, and checking it exactly would cost time that grows with its size)"},
		{Name: finding.RuleLineTooLong, Severity: "error",
			Text: "a line (or SSE frame) over `--max-line`; it is skipped without being held in memory"},
		{Name: finding.RuleIO, Severity: "error",
			Text: "the file could not be read to its end (for example corrupt gzip data); exit status 2"},
		{Name: finding.RuleEmpty, Severity: "error",
			Text: "the file holds no message at all"},
		{Name: finding.RuleSchema, Severity: "error",
			Text: "the message breaks its schema: one finding per leaf cause, at its instance location. A missing field is reported at the object that lacks it, with a \"did you mean\" when a near-named field is there (`modeId` for `currentModeId`, `commands` for `availableCommands`, `dimensions` for `dims`); a wrong enum or union tag lists the allowed values"},
		{Name: finding.RuleUnknownType, Severity: "error / warning",
			Text: "ARCP: an unknown message type, with the nearest known type (error); an `x-vendor.` message type (warning: receivers ignore it). An unknown event kind outside the `x-vendor.` namespace breaks the `job.event` payload schema and is a `schema` finding that lists the reserved kinds; `x-vendor.` kinds are the protocol's extension point and get no finding. Arcan's unknown `part_type` is likewise a `schema` finding (Arcan rejects unknown variants), with a \"did you mean\" for PascalCase tags"},
		{Name: finding.RuleUnknownProtocol, Severity: "error",
			Text: "the file matches no protocol: one finding that says what it looks like (an HTTP flavour of ACP with snake_case fields that no dialect schema covers, JSON-RPC without `jsonrpc`, an ARCP envelope without `arcp`, aiOS or AI SDK frames instead of Arcan events) and what the real field names are; also a JSON-RPC 2.0 file that is not ACP: MCP traffic (a date `protocolVersion`, `tools/call` and the like) is named as MCP, and JSON-RPC none of whose methods is an ACP method (or a near miss of one) lists its methods. `--protocol acp` reads such a file as ACP anyway"},
		{Name: finding.RuleDeviationPrefix + "<id>", Severity: "warning",
			Text: "ARCP: a known SDK dialect's departure from canonical v1.1, from `schema/arcp/v1.1/deviations.json`; names the SDK and the canonical form. Once per trace and deviation, at its first occurrence"},
		{Name: finding.RuleRoundtrip, Severity: "error",
			Text: "with `--roundtrip`: the typed decode/encode changed or rejected the message"},
		{Name: finding.RuleUnstable, Severity: "warning",
			Text: "ACP: the first use of each unstable addition in a trace read with no `--dialect`: a method, a member (at the member itself, named), or params or a result only the unstable schema accepts. A warning, not an error: the unstable schema is the protocol's own, and a peer that speaks it is right to send it; only a stable-only peer rejects or drops it. `--dialect v1` makes these errors, `--dialect v1-unstable` accepts them silently"},
		{Name: finding.RuleRetired, Severity: "warning",
			Text: "ACP: a member, method or union variant that an earlier release of the official schema defined and the version has since removed (the `models` of `session/new` until v0.13.4, `session/set_model`, the `env_var` auth method), named with the releases that defined it and what took its place. A warning, not an error: the sender was built against the protocol as it was, not inventing names of its own, and a current peer ignores the member (answers the method \"method not found\"); move to what replaced it. Once per trace and message. The history is `schema/acp/<version>/history.json`, generated from the official schema's releases"},
		{Name: finding.RuleOtherVersion, Severity: "warning",
			Text: "ACP: a member that the trace's version does not define at this type and another version of the protocol does (a v2 member in a v1 trace), named with that version and how to declare it. A warning, not an error: the name is the protocol's, and a receiver of this version ignores it"},
		{Name: finding.RulePartialCapture, Severity: "warning",
			Text: "the trace begins mid-session (ACP: its first message is neither `initialize` nor a request that starts a session; ARCP: it neither opens nor resumes a session); what needs the session's start is not checked for what came before. `--partial` forces this reading, `--partial=false` forbids it (ACP) or silences it (ARCP)"},
		{Name: finding.RuleCustomMember, Severity: "error",
			Text: "ACP: a member that the message's type does not define (other than `_meta`) and no release of the protocol defined there: the spec reserves every name of its types for later versions and has custom data go in `_meta` (`acp.ext.no-root-fields`, a MUST NOT). An error, because no reading of the protocol, past or present, makes the member right; a near miss of a defined member says which one was meant (`locatons` for `locations`). A member that the unstable schema, an earlier release or another version defines is the `unstable`, `retired` or `other-version` warning instead"},
		{Name: finding.RuleNearMiss, Severity: "warning",
			Text: "a member the schema does not define whose name is a near miss of one it does, where the protocol's types are open to other members (ACP's are not: there it is `custom-member`). Once per trace and member"},
		{Name: finding.RuleStateWindow, Severity: "warning",
			Text: "a trace holds more sessions, tool calls or requests than are remembered one by one; an id that had to be forgotten is never reported as unknown, and this says once that some checks were skipped"},
		{Name: finding.RuleTooMany, Severity: "error",
			Text: "more than 20 findings on one line: the first 20 are listed, this one counts the rest"},
		{Name: finding.RuleSidecar, Severity: "warning",
			Text: "the direction sidecar holds more or fewer entries than the trace has lines: one was cut or belongs to another trace, so the directions read may be shifted; lines past its end are read without one"},
		{Name: finding.RuleReplay, Severity: "error",
			Text: "with `--replay`: the agent under test answered differently in shape from the recording (another kind, method, error code or update variant)"},
	}
}

// RuleTable describes every rule once, with its severity and text: the
// engine's rules, then those of each of protocols (nil for Protocols), in
// order. A rule several protocols describe is listed as the first does.
func RuleTable(protocols []Protocol) []protocol.RuleDoc {
	if protocols == nil {
		protocols = Protocols()
	}
	out := engineRuleTexts()
	seen := map[string]bool{}
	for _, d := range out {
		seen[d.Name] = true
	}
	for _, p := range protocols {
		if p.Docs == nil {
			continue
		}
		for _, d := range p.Docs() {
			if d.Text != "" && !seen[d.Name] {
				seen[d.Name] = true
				out = append(out, d)
			}
		}
	}
	return out
}
