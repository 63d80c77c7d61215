package schema_test

import (
	"path/filepath"
	"slices"
	"testing"
)

// This file checks ACP v2 (schema/acp/v2) with the suite of
// acp_unstable_test.go, against the official v2 schema.

// acpV2Suite is the ACP v2 folder and its oracle.
var acpV2Suite = &acpUnstableSuite{
	name:         "ACP v2",
	dir:          "acp/v2",
	version:      "v2",
	capabilities: "capabilities",
	methods: []string{"initialize", "auth/login", "auth/logout", "session/new", "session/list", "session/resume",
		"session/close", "session/delete", "session/set_config_option", "session/prompt", "session/cancel",
		"session/update", "session/request_permission", "elicitation/create", "elicitation/complete",
		"$/cancel_request", "terminal/cancel", "tool_call/cancel"},
	oracle:       []string{"reference", "acp", "v2", "schema.json"},
	oracleURL:    "https://reference.invalid/acp/v2/schema.json",
	meta:         "meta.json",
	schemaOnly:   []string{"terminal/cancel", "tool_call/cancel"},
	testdata:     filepath.Join("testdata", "acp", "v2", "instances.json"),
	minMutations: 500,
	diffs:        acpV2Differences(),
}

// acpV2Differences are v2's deliberate differences from the official schema.
// The envelope ones are v1's: v2's jsonrpc.json has the same structure, so
// their patches apply to it unchanged.
func acpV2Differences() []acpDifference {
	var out []acpDifference
	for _, d := range acpDifferences {
		if d.id == "notification-has-no-id" || d.id == "response-result-xor-error" {
			d.patches = slices.Clone(d.patches)
			out = append(out, d)
		}
	}
	out = append(out, acpDifference{
		id: "success-null-id",
		reason: "A response's `id` may be null whether it carries `result` or `error`: the envelope " +
			"leaves a null id to the validator's state rule, which reports one that answers no message " +
			"whose id could not be read, as in v1. The official schema allows null only in an error.",
		stricter: false,
		patches: []acpPatch{{file: "jsonrpc.json", op: "replace", path: "/$defs/Response", value: `{
			"type": "object",
			"properties": {"jsonrpc": {"const": "2.0"}, "id": {"$ref": "#/$defs/ResponseId"},
				"result": {}, "error": {"$ref": "#/$defs/Error"}},
			"required": ["jsonrpc", "id"],
			"oneOf": [{"properties": {"id": {"$ref": "#/$defs/RequestId"}}, "required": ["result"]},
			          {"required": ["error"]}]}`}},
		witness: []acpWitness{
			{"envelope", `{"jsonrpc": "2.0", "id": null, "result": {}}`},
		},
	})
	return append(out, acpDifference{
		id: "idle-error-field",
		reason: "`error` of an idle session state is checked whenever it is present. The official schema " +
			"checks it only when `stopReason` is `error`, so it accepts `\"stopReason\": \"end_turn\", \"error\": 5`.",
		stricter: true,
		patches: []acpPatch{{file: "common.json", op: "replace", path: "/$defs/IdleStateUpdate", value: `{
			"type": "object",
			"properties": {
				"stopReason": {"anyOf": [{"$ref": "#/$defs/IdleStopReason"}, {"type": "null"}]},
				"background": {"type": ["array", "null"], "items": {"$ref": "#/$defs/BackgroundWork"}},
				"_meta": {"anyOf": [{"$ref": "#/$defs/Meta"}, {"type": "null"}]}},
			"if": {"properties": {"stopReason": {"const": "error"}}, "required": ["stopReason"]},
			"then": {"properties": {"error": {"anyOf": [{"$ref": "jsonrpc.json#/$defs/Error"}, {"type": "null"}]}}}}`}},
		witness: []acpWitness{
			{"IdleStateUpdate", `{"stopReason": "end_turn", "error": 5}`},
			{"StateUpdate", `{"state": "idle", "error": {"code": "x"}}`},
		},
	})
}

// The v2 schemas: compile, conventions, dispatch table, and the differential
// tests against the official v2 schema.
// Every union and string enum of v2 is open, so the shared mutation check
// (which wants an unknown tag and an unknown enum value rejected somewhere) is
// replaced by acpV2TestMutations, which wants them accepted by both schemas.
func TestACPV2(t *testing.T) {
	s := acpV2Suite
	t.Run("Compile", s.testCompile)
	t.Run("Conventions", s.testConventions)
	t.Run("ExamplesValid", s.testExamples)
	t.Run("DispatchTable", s.testDispatch)
	t.Run("TestdataValid", s.testTestdataValid)
	t.Run("DifferencesListedInREADME", s.testDifferencesListed)
	t.Run("DispatchMatchesOfficial", s.testDispatchMatchesOfficial)
	t.Run("AgreesWithOfficialSchema", s.testAgreesWithOfficial)
	t.Run("DifferencesWitnessed", s.testDifferencesWitnessed)
	t.Run("MutationsAgreeWithOfficialSchema", func(t *testing.T) { acpV2TestMutations(t, s) })
}

// acpV2TestMutations mutates every valid instance as the shared suite does
// and requires the same verdict from both schemas. Drops, wrong types and
// out-of-range integers must each be rejected by both somewhere; every tagged
// union of the folder must be hit by an unknown tag, and every such mutation,
// like every unknown enum value, must be accepted by both (v2 has no closed
// union or string enum).
func acpV2TestMutations(t *testing.T, s *acpUnstableSuite) {
	j := s.judge(t)
	run := newACPMutationRun(j.judge)
	for _, in := range s.corpus(t) {
		if in.typ == "envelope" {
			continue // the envelope is v1's, checked by the shared suite's mutations of v1
		}
		if ty, ok := s.typeValid(t, j, in); ok {
			run.instance(t, in, ty.info)
		}
	}
	for _, k := range []string{"drop-required", "wrong-type", "out-of-range"} {
		if tl := run.tallies["kind "+k]; tl == nil || tl.bothReject == 0 {
			t.Errorf("no mutation of kind %s rejected by both schemas", k)
		}
	}
	for _, k := range []string{"unknown-tag", "wrong-enum"} {
		tl := run.tallies["kind "+k]
		if tl == nil || tl.bothAccept == 0 {
			t.Errorf("no mutation of kind %s accepted by both schemas", k)
		} else if tl.bothReject > 0 {
			t.Errorf("%d mutations of kind %s rejected: v2 has no closed union or enum", tl.bothReject, k)
		}
	}
	for name, closed := range s.taggedUnions(t) {
		if closed {
			t.Errorf("tagged union %s is closed; every v2 union ends in a catch-all", name)
		} else if tl := run.tallies["union "+name]; tl == nil || tl.bothAccept == 0 {
			t.Errorf("no unknown-tag mutation of the open union %s accepted by both", name)
		}
	}
	for _, w := range []string{"uint16", "uint32", "uint64", "int64"} {
		if tl := run.tallies["width "+w]; tl == nil || tl.bothReject == 0 {
			t.Errorf("no value outside the %s range rejected by both", w)
		}
	}
	t.Logf("%d mutations agree:%s", run.total, run.report())
	if run.total < s.minMutations {
		t.Errorf("only %d mutations, want at least %d", run.total, s.minMutations)
	}
}
