package schema_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/schema"
)

// This file checks unstable ACP v2 (schema/acp/v2-unstable) with the suite of
// acp_unstable_test.go, against the official v2 unstable schema. The folder
// re-declares only what unstable changes and refers to schema/acp/v2 for the
// rest, as v1-unstable does for v1.

// acpV2UnstableSuite is the unstable ACP v2 folder and its oracle. Its test
// data are v2's (unstable extends v2, so each must get the same verdict
// here) and the recorded traffic of the official SDK's unstable v2
// entrypoint.
var acpV2UnstableSuite = &acpUnstableSuite{
	capabilities: "capabilities",
	name:         "ACP v2 unstable",
	dir:          "acp/v2-unstable",
	base:         "acp/v2",
	version:      "v2-unstable",
	methods: append(slices.Clone(acpV2Suite.methods),
		"auth/status", "auth/status_update", "mcp/message", "providers/list", "providers/set", "providers/disable",
		"proxy/initialize", "proxy/successor", "session/archive", "session/unarchive", "session/fork",
		"session/set_title", "session/status"),
	oracle:    []string{"reference", "acp", "v2", "schema.unstable.json"},
	oracleURL: "https://reference.invalid/acp/v2/schema.unstable.json",
	meta:      "meta.unstable.json",
	metaOnly: []string{"document/didChange", "document/didClose", "document/didFocus", "document/didOpen",
		"document/didSave", "mcp/connect", "mcp/disconnect", "nes/accept", "nes/close", "nes/reject", "nes/start",
		"nes/suggest"},
	schemaOnly: []string{"auth/status", "auth/status_update", "proxy/initialize", "proxy/successor",
		"session/archive", "session/set_title", "session/status", "session/unarchive", "terminal/cancel",
		"tool_call/cancel"},
	testdata:       filepath.Join("testdata", "acp", "v2", "instances.json"),
	extraInstances: acpV2UnstableInstances,
	minMutations:   1000,
	diffs:          acpV2UnstableDifferences(),
}

// acpV2UnstableDifferences are v2's differences, with the envelope patches
// moved to the v2 folder (this folder has no envelope of its own) and the
// idle state patched in this folder, where it is re-declared with `usage`.
func acpV2UnstableDifferences() []acpDifference {
	var out []acpDifference
	for _, d := range acpV2Differences() {
		switch d.id {
		case "notification-has-no-id", "response-result-xor-error", "success-null-id":
			ps := make([]acpPatch, len(d.patches))
			for i, p := range d.patches {
				p.file = "../v2/" + p.file
				ps[i] = p
			}
			d.patches = ps
		case "idle-error-field":
			d.patches = []acpPatch{{file: "common.json", op: "replace", path: "/$defs/IdleStateUpdate", value: `{
				"type": "object",
				"properties": {
					"stopReason": {"anyOf": [{"$ref": "../v2/common.json#/$defs/IdleStopReason"}, {"type": "null"}]},
					"background": {"type": ["array", "null"], "items": {"$ref": "#/$defs/BackgroundWork"}},
					"usage": {"anyOf": [{"$ref": "#/$defs/Usage"}, {"type": "null"}]},
					"_meta": {"anyOf": [{"$ref": "../v2/common.json#/$defs/Meta"}, {"type": "null"}]}},
				"if": {"properties": {"stopReason": {"const": "error"}}, "required": ["stopReason"]},
				"then": {"properties": {"error": {"anyOf": [{"$ref": "../v2/jsonrpc.json#/$defs/Error"}, {"type": "null"}]}}}}`}}
			d.witness = append(slices.Clone(d.witness),
				acpWitness{"SubagentUpdate", `{"sessionId": "c", "state": {"state": "idle", "stopReason": "end_turn", "error": 5}}`})
		}
		out = append(out, d)
	}
	// The official schema says `format: date-time` on the two timestamps and
	// its oracle asserts the format; a pattern of RFC 3339's shape stands for
	// it in the relaxed schemas, whose compiler treats formats as annotations.
	const stamp = `{"type": ["string", "null"],
		"pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$"}`
	return append(out, acpDifference{
		id: "date-time-format",
		reason: "`updatedAt` of a session (SessionInfo, SessionInfoUpdate) is any string or null here; the official " +
			"schema marks it `format: date-time`, which its oracle asserts.",
		patches: []acpPatch{
			{file: "common.json", op: "replace", path: "/$defs/SessionInfo/properties/updatedAt", value: stamp},
			{file: "../v2/common.json", op: "replace", path: "/$defs/SessionInfoUpdate/properties/updatedAt", value: stamp},
		},
		witness: []acpWitness{
			{"SessionInfo", `{"sessionId": "s", "cwd": "/w", "updatedAt": "yesterday"}`},
			{"SessionInfoUpdate", `{"updatedAt": "2025-06-01 12:30"}`},
		},
	})
}

// acpV2UnstableSDKTraces is the recorded traffic of the official SDK's
// unstable v2 entrypoint.
const acpV2UnstableSDKTraces = "../fixtures/acp/sdk/v2-unstable"

// acpV2UnstableInstances turns every params and result of the recorded SDK
// traffic into an instance of its official type, found through the dispatch
// table: a request's or notification's params by its method and kind, a
// response's result by the method of the request with its id that
// travelled the other way (the .dir sidecar gives each line's direction).
func acpV2UnstableInstances(t *testing.T) []acpInstance {
	s := &acpUnstableSuite{dir: "acp/v2-unstable"} // the folder's files only
	d := s.dispatch(t)
	title := func(f string) string {
		doc, _ := s.doc(t, s.rel(f)).(map[string]any)
		title, _ := doc["title"].(string)
		return title
	}
	traces, err := filepath.Glob(filepath.Join(acpV2UnstableSDKTraces, "*.jsonl"))
	if err != nil || len(traces) == 0 {
		t.Fatalf("no SDK traces in %s (%v)", acpV2UnstableSDKTraces, err)
	}
	var out []acpInstance
	for _, trace := range traces {
		dirs, err := os.ReadFile(strings.TrimSuffix(trace, ".jsonl") + ".dir")
		if err != nil {
			t.Fatalf("reading the direction sidecar: %v", err)
		}
		dir := strings.Fields(string(dirs))
		f, err := os.Open(trace)
		if err != nil {
			t.Fatal(err)
		}
		pending := map[string]string{} // direction + id -> method
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for n := 0; sc.Scan(); n++ {
			if n >= len(dir) {
				t.Fatalf("%s: line %d has no direction", trace, n+1)
			}
			v, err := acpDecodeJSON(bytes.Clone(sc.Bytes()))
			if err != nil {
				t.Fatalf("%s:%d: %v", trace, n+1, err)
			}
			msg, _ := v.(map[string]any)
			name := fmt.Sprintf("sdk/%s:%d", filepath.Base(trace), n+1)
			id, hasID := msg["id"]
			key := fmt.Sprint(id)
			method, _ := msg["method"].(string)
			switch {
			case method != "":
				kind := "notification"
				if hasID {
					kind = "request"
					pending[dir[n]+" "+key] = method
				}
				for _, e := range d.Methods {
					if e.Method == method && e.Kind == kind {
						out = append(out, acpInstance{name: name, typ: title(e.Params), value: msg["params"]})
					}
				}
			case msg["result"] != nil:
				other := "c2a"
				if dir[n] == "c2a" {
					other = "a2c"
				}
				method := pending[other+" "+key]
				delete(pending, other+" "+key)
				for _, e := range d.Methods {
					if e.Method == method && e.Kind == "request" {
						out = append(out, acpInstance{name: name, typ: title(e.Result), value: msg["result"]})
					}
				}
			}
			out = append(out, acpInstance{name: name, typ: "envelope", value: msg})
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", trace, err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// The unstable v2 schemas: compile, conventions, dispatch table, and the
// differential tests against the official unstable v2 schema. Every union
// and string enum of unstable v2 is open, as in v2, so the mutations are
// v2's.
func TestACPV2Unstable(t *testing.T) {
	s := acpV2UnstableSuite
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

// A v2 type is re-declared in v2-unstable's common.json only when unstable
// changes it (every v2 member and variant kept, some added) or when it
// reaches a re-declared type; and a v2 method file is copied only when it
// reaches this folder's common.json.
func TestACPV2UnstableRedeclaresOnlyChanges(t *testing.T) {
	s := acpV2UnstableSuite
	v2, _ := s.doc(t, "acp/v2/common.json").(map[string]any)
	v2defs, _ := v2["$defs"].(map[string]any)
	doc, _ := s.doc(t, s.rel("common.json")).(map[string]any)
	defs, _ := doc["$defs"].(map[string]any)
	redeclared := map[string]bool{}
	for name := range defs {
		if _, ok := v2defs[name]; ok {
			redeclared[name] = true
		}
	}
	reachesLocal := func(node any) bool {
		return strings.Contains(acpCanonicalJSON(node), `"#/$defs/`)
	}
	for _, name := range acpSortedKeys(defs) {
		old, ok := v2defs[name].(map[string]any)
		if !ok {
			continue
		}
		cur, _ := defs[name].(map[string]any)
		oldProps, _ := old["properties"].(map[string]any)
		curProps, _ := cur["properties"].(map[string]any)
		for p := range oldProps {
			if _, ok := curProps[p]; !ok {
				t.Errorf("%s: re-declared without v2's member %q", name, p)
			}
		}
		oldAlts, _ := old["oneOf"].([]any)
		curAlts, _ := cur["oneOf"].([]any)
		oldU, _ := acpReadUnion(oldAlts)
		curU, _ := acpReadUnion(curAlts)
		for _, c := range oldU.consts {
			if !slices.Contains(curU.consts, c) {
				t.Errorf("%s: re-declared without v2's variant %q", name, c)
			}
		}
		if len(curProps) == len(oldProps) && len(curU.consts) == len(oldU.consts) && !reachesLocal(cur) {
			t.Errorf("%s: re-declared, but adds nothing and reaches no re-declared type", name)
		}
	}
	if len(redeclared) == 0 {
		t.Error("no v2 type is re-declared; SessionUpdate at least has new variants")
	}
	for _, p := range s.files(t) {
		base := path.Base(p)
		if base == "common.json" {
			continue
		}
		if _, err := fs.Stat(schema.Files, "acp/v2/"+base); err != nil {
			continue // a new method
		}
		data, err := fs.ReadFile(schema.Files, p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(`"common.json#/$defs/`)) {
			t.Errorf("%s: copied from v2 but reaches no type of v2-unstable's common.json", base)
		}
	}
}
