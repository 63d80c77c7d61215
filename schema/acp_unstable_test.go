package schema_test

import (
	"bytes"
	"io/fs"
	"math/big"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentproto/agentproto/schema"
)

// This file checks ACP v1 unstable (schema/acp/v1-unstable) and holds the
// machinery that acp_v2_test.go shares: a suite is one ACP version folder,
// checked against one official schema. The v1 tests (acp_test.go and its
// companions) are bound to acp/v1; the helpers here take the folder as a
// parameter and reuse the v1 helpers that do not depend on it. The suite's
// checks live beside this file: schema locations (acp_unstable_refs_test.go),
// the schemas and the dispatch table (acp_unstable_schema_test.go), the
// oracle and the comparison (acp_unstable_oracle_test.go) and the mutations
// (acp_unstable_mutations_test.go).

// acpUnstableSuite describes one ACP version folder and its oracle.
type acpUnstableSuite struct {
	name    string // for messages
	dir     string // folder below schema.Files, e.g. "acp/v1-unstable"
	base    string // folder whose unchanged types dir refers to ("" when none)
	version string // the dispatch table's "version"
	// methods are every method the dispatch table must list.
	methods []string
	// oracle is the official schema below ../shared/reference/acp, oracleURL
	// the made-up URL it is compiled under.
	oracle    []string
	oracleURL string
	// meta is the official method table; metaOnly lists the methods it names
	// that the official schema defines no types for, schemaOnly the methods
	// the schema defines that it omits. Both are documented in the README.
	meta       string
	metaOnly   []string
	schemaOnly []string
	// testdata holds instances written for this suite (below schema/testdata).
	testdata string
	// extraInstances adds instances of another version that are valid here
	// too, with their official type names.
	extraInstances func(t *testing.T) []acpInstance
	diffs          []acpDifference
	// minMutations is the least number of distinct mutations expected.
	minMutations int
	// capabilities is the member of the initialize params and result that
	// holds capabilities, when both sides use one name (v2's
	// "capabilities"); "" for v1's clientCapabilities and
	// agentCapabilities.
	capabilities string

	compileOnce sync.Once
	oracleSet   *acpSchemaSet
	oracleErr   error
	docMu       sync.Mutex
	docs        map[string]any
}

// url is the $id of an embedded file (a path below schema.Files).
func (s *acpUnstableSuite) url(p string) string { return schema.IDPrefix + p }

// doc returns the decoded content of an embedded file, cached.
func (s *acpUnstableSuite) doc(t testing.TB, p string) any {
	t.Helper()
	s.docMu.Lock()
	defer s.docMu.Unlock()
	if v, ok := s.docs[p]; ok {
		return v
	}
	data, err := fs.ReadFile(schema.Files, p)
	if err != nil {
		t.Fatalf("reading %s: %v", p, err)
	}
	v, err := acpDecodeJSON(data)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if s.docs == nil {
		s.docs = map[string]any{}
	}
	s.docs[p] = v
	return v
}

// files lists the schema files of the suite's folder (paths below schema.Files).
func (s *acpUnstableSuite) files(t testing.TB) []string {
	t.Helper()
	paths, err := schema.Paths(s.dir)
	if err != nil {
		t.Fatalf("listing schemas: %v", err)
	}
	if len(paths) == 0 {
		t.Fatal("no schema files below " + s.dir)
	}
	return paths
}

// rel resolves a path written relative to the suite's folder (dispatch
// entries, patches) to a path below schema.Files.
func (s *acpUnstableSuite) rel(p string) string { return path.Join(s.dir, p) }

// ---------------------------------------------------------------- running a suite
// run registers every check of the suite as a subtest. Checks that need the
// official schema skip without ../shared.
func (s *acpUnstableSuite) run(t *testing.T) {
	t.Run("Compile", s.testCompile)
	t.Run("Conventions", s.testConventions)
	t.Run("ExamplesValid", s.testExamples)
	t.Run("DispatchTable", s.testDispatch)
	t.Run("TestdataValid", s.testTestdataValid)
	t.Run("DifferencesListedInREADME", s.testDifferencesListed)
	t.Run("DispatchMatchesOfficial", s.testDispatchMatchesOfficial)
	t.Run("AgreesWithOfficialSchema", s.testAgreesWithOfficial)
	t.Run("DifferencesWitnessed", s.testDifferencesWitnessed)
	t.Run("MutationsAgreeWithOfficialSchema", s.testMutations)
}

// ---------------------------------------------------------------- ACP v1 unstable

// acpUnstableV1Patches rewrites v1 patches to the v1 folder, seen from
// v1-unstable.
func acpUnstableV1Patches(ps []acpPatch) []acpPatch {
	out := make([]acpPatch, len(ps))
	for i, p := range ps {
		p.file = "../v1/" + p.file
		out[i] = p
	}
	return out
}

// acpUnstableV1Difference returns the v1 difference with this ID, its patches
// moved to the v1 folder and extra patches and witnesses added.
func acpUnstableV1Difference(id string, patches []acpPatch, witness []acpWitness) acpDifference {
	for _, d := range acpDifferences {
		if d.id == id {
			d.patches = append(acpUnstableV1Patches(d.patches), patches...)
			d.witness = append(slices.Clone(d.witness), witness...)
			return d
		}
	}
	// Unknown ID: no patches and no witness, which DifferencesWitnessed reports.
	return acpDifference{id: id}
}

var acpUnstableV1Suite = &acpUnstableSuite{
	name:    "ACP v1 unstable",
	dir:     "acp/v1-unstable",
	base:    "acp/v1",
	version: "v1-unstable",
	methods: append(slices.Clone(acpMethods),
		"auth/status", "auth/status_update", "mcp/message", "providers/list", "providers/set", "providers/disable",
		"proxy/initialize", "proxy/successor", "session/archive", "session/unarchive", "session/fork",
		"session/set_title", "session/status"),
	oracle:    []string{"reference", "acp", "v1", "schema.unstable.json"},
	oracleURL: "https://reference.invalid/acp/v1/schema.unstable.json",
	meta:      "meta.unstable.json",
	metaOnly: []string{"document/didChange", "document/didClose", "document/didFocus", "document/didOpen",
		"document/didSave", "mcp/connect", "mcp/disconnect", "nes/accept", "nes/close", "nes/reject", "nes/start",
		"nes/suggest"},
	schemaOnly: []string{"auth/status", "auth/status_update", "proxy/initialize", "proxy/successor",
		"session/archive", "session/set_title", "session/status", "session/unarchive"},
	testdata:       filepath.Join("testdata", "acp", "v1-unstable", "instances.json"),
	extraInstances: acpUnstableV1Instances,
	minMutations:   2000,
	diffs: []acpDifference{
		acpUnstableV1Difference("tagged-default-variant", []acpPatch{
			{file: "common.json", op: "remove", path: "/$defs/McpServer/oneOf/3/properties/type/not"},
			{file: "common.json", op: "move", from: "/$defs/McpServer/oneOf", path: "/$defs/McpServer/anyOf"},
		}, []acpWitness{
			{"NewSessionRequest", `{"cwd": "/w", "mcpServers": [{"type": "acp", "name": "n", "command": "/bin/s",
				"args": [], "env": []}]}`},
		}),
		acpUnstableV1Difference("elicitation-scope-fields", nil, nil),
		acpUnstableV1Difference("notification-has-no-id", nil, nil),
		acpUnstableV1Difference("response-result-xor-error", nil, nil),
		{
			id: "idle-error-field",
			reason: "`error` of an idle child-session state is checked whenever it is present. The official schema " +
				"checks it only when `stopReason` is `error`, so it accepts `\"stopReason\": \"end_turn\", " +
				"\"error\": 5`.",
			stricter: true,
			patches: []acpPatch{{file: "common.json", op: "replace", path: "/$defs/IdleStateUpdate", value: `{
				"type": "object",
				"properties": {
					"stopReason": {"anyOf": [{"$ref": "#/$defs/IdleStopReason"}, {"type": "null"}]},
					"usage": {"anyOf": [{"$ref": "#/$defs/Usage"}, {"type": "null"}]},
					"_meta": {"anyOf": [{"$ref": "../v1/common.json#/$defs/Meta"}, {"type": "null"}]}},
				"if": {"properties": {"stopReason": {"const": "error"}}, "required": ["stopReason"]},
				"then": {"properties": {"error": {"anyOf": [{"$ref": "../v1/jsonrpc.json#/$defs/Error"}, {"type": "null"}]}}}}`}},
			witness: []acpWitness{
				{"IdleStateUpdate", `{"stopReason": "end_turn", "error": 5}`},
				{"SubagentUpdate", `{"sessionId": "c", "state": {"state": "idle", "error": {"code": "x"}}}`},
			},
		},
	},
}

// acpUnstableV1Instances are the v1 values (schema examples and test data of
// acp/v1, and with ../shared the doc examples and Go SDK goldens): ACP v1
// unstable extends v1, so each gets the same verdict here too.
func acpUnstableV1Instances(t *testing.T) []acpInstance {
	var out []acpInstance
	for _, in := range acpLoadTestdataInstances(t) {
		in.name = "v1/" + in.name
		out = append(out, in)
	}
	c := acpLoadCorpus(t)
	for _, in := range c.typed {
		if !strings.HasPrefix(in.name, "testdata/") {
			in.name = "v1/" + in.name
			out = append(out, in)
		}
	}
	for _, e := range c.envelopes {
		out = append(out, acpInstance{name: "v1/" + e.name, typ: "envelope", value: e.value})
	}
	return out
}

// The v1 unstable schemas: compile, conventions, dispatch table, and the
// differential tests against the official unstable schema.
func TestACPUnstable(t *testing.T) {
	acpUnstableV1Suite.run(t)
}

// An unchanged v1 type is never re-declared: every definition in
// v1-unstable's common.json is new or differs from v1's of the same name, and
// every type re-declared from v1 is re-declared whole (all of v1's members).
func TestACPUnstableRedeclaresOnlyChanges(t *testing.T) {
	s := acpUnstableV1Suite
	v1, _ := s.doc(t, "acp/v1/common.json").(map[string]any)
	v1defs, _ := v1["$defs"].(map[string]any)
	doc, _ := s.doc(t, s.rel("common.json")).(map[string]any)
	defs, _ := doc["$defs"].(map[string]any)
	redeclared := 0
	for _, name := range acpSortedKeys(defs) {
		old, ok := v1defs[name].(map[string]any)
		if !ok {
			continue
		}
		redeclared++
		cur, _ := defs[name].(map[string]any)
		oldProps, _ := old["properties"].(map[string]any)
		curProps, _ := cur["properties"].(map[string]any)
		for p := range oldProps {
			if _, ok := curProps[p]; !ok {
				t.Errorf("%s: re-declared without v1's member %q", name, p)
			}
		}
		oldAlts, _ := old["oneOf"].([]any)
		curAlts, _ := cur["oneOf"].([]any)
		oldU, _ := acpReadUnion(oldAlts)
		curU, _ := acpReadUnion(curAlts)
		for _, c := range oldU.consts {
			if !slices.Contains(curU.consts, c) {
				t.Errorf("%s: re-declared without v1's variant %q", name, c)
			}
		}
		if len(curProps) == len(oldProps) && len(curU.consts) == len(oldU.consts) {
			t.Errorf("%s: re-declared but neither a member nor a variant was added", name)
		}
	}
	if redeclared == 0 {
		t.Error("no v1 type is re-declared; SessionUpdate at least has new variants")
	}
	// A method file of v1 is copied only when it reaches a re-declared type.
	for _, p := range s.files(t) {
		base := path.Base(p)
		if base == "common.json" {
			continue
		}
		if _, err := fs.Stat(schema.Files, "acp/v1/"+base); err != nil {
			continue // a new method
		}
		data, err := fs.ReadFile(schema.Files, p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(`"common.json#/$defs/`)) {
			t.Errorf("%s: copied from v1 but reaches no type of v1-unstable's common.json", base)
		}
	}
}

// The integers of the unstable additions have the widths of the official
// types (u64 token counts, i32 MCP error codes).
func TestACPUnstableIntegerWidths(t *testing.T) {
	s := acpUnstableV1Suite
	doc, _ := s.doc(t, s.rel("common.json")).(map[string]any)
	defs, _ := doc["$defs"].(map[string]any)
	check := func(def, prop string, lo, hi *big.Int) {
		m, _ := defs[def].(map[string]any)
		props, _ := m["properties"].(map[string]any)
		p, _ := props[prop].(map[string]any)
		if acpBigInt(p["minimum"]).Cmp(lo) != 0 || acpBigInt(p["maximum"]).Cmp(hi) != 0 {
			t.Errorf("%s.%s: range [%v, %v], want [%s, %s]", def, prop, p["minimum"], p["maximum"], lo, hi)
		}
	}
	for _, p := range []string{"totalTokens", "inputTokens", "outputTokens", "thoughtTokens", "cachedReadTokens", "cachedWriteTokens"} {
		check("Usage", p, big.NewInt(0), acpMinus1(acpPow2(64)))
	}
	check("McpError", "code", acpNeg(acpPow2(31)), acpMinus1(acpPow2(31)))
}
