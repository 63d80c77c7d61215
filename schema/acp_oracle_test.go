package schema_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/internal/sharedref"
	"github.com/agentproto/agentproto/schema"
)

// The official ACP v1 schema has no $id; the oracle knows it under this
// made-up URL, which is never fetched.
const acpOracleURL = "https://reference.invalid/acp/v1/schema.json"

func acpOfficialDef(name string) string { return acpOracleURL + "#" + acpJSONPointer("$defs", name) }

func acpReadSharedFile(t testing.TB, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("reading reference material: %v", err)
	}
	return data
}

func acpReadSharedJSON(t testing.TB, p string, v any) {
	t.Helper()
	if err := json.Unmarshal(acpReadSharedFile(t, p), v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
}

func acpReadSharedValue(t testing.TB, p string) any {
	t.Helper()
	v, err := acpDecodeJSON(acpReadSharedFile(t, p))
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return v
}

// acpRefuseLoader fails every load: all schemas are added as resources.
type acpRefuseLoader struct{}

func (acpRefuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: nothing is fetched in tests", url)
}

// acpWidthFormat asserts the integer width the official schema states with
// "format" (uint32, int64, …). The official types are Rust integers of that
// width, so a value outside the range is rejected by every official SDK even
// though draft 2020-12 treats format as an annotation.
func acpWidthFormat(name string, lo, hi *big.Int) *jsonschema.Format {
	return &jsonschema.Format{Name: name, Validate: func(v any) error {
		r := acpNumberRat(v)
		if r == nil || !r.IsInt() {
			return nil // not an integer: the "type" keyword decides
		}
		if r.Num().Cmp(lo) < 0 || r.Num().Cmp(hi) > 0 {
			return fmt.Errorf("%s is outside the %s range [%s, %s]", r.Num(), name, lo, hi)
		}
		return nil
	}}
}

func acpNumberRat(v any) *big.Rat {
	switch n := v.(type) {
	case json.Number:
		r, ok := new(big.Rat).SetString(string(n))
		if !ok {
			return nil
		}
		return r
	case float64:
		return new(big.Rat).SetFloat64(n)
	case int:
		return new(big.Rat).SetInt64(int64(n))
	case int64:
		return new(big.Rat).SetInt64(n)
	}
	return nil
}

func acpPow2(n uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), n) }

func acpMinus1(x *big.Int) *big.Int { return new(big.Int).Sub(x, big.NewInt(1)) }

func acpNeg(x *big.Int) *big.Int { return new(big.Int).Neg(x) }

var (
	acpOracleOnce sync.Once
	acpOracleSet  *acpSchemaSet
	acpOracleErr  error
)

// acpOracle returns the official ACP v1 schema, compiled with the integer widths
// asserted and every other format left as an annotation (as our compiler does).
func acpOracle(t testing.TB) *acpSchemaSet {
	t.Helper()
	dir := sharedref.Dir(t, "reference", "acp", "v1")
	acpOracleOnce.Do(func() {
		doc, err := acpDecodeJSON(acpReadSharedFile(t, filepath.Join(dir, "schema.json")))
		if err != nil {
			acpOracleErr = err
			return
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.UseLoader(acpRefuseLoader{})
		c.AssertFormat()
		c.RegisterFormat(acpWidthFormat("uint16", big.NewInt(0), acpMinus1(acpPow2(16))))
		c.RegisterFormat(acpWidthFormat("uint32", big.NewInt(0), acpMinus1(acpPow2(32))))
		c.RegisterFormat(acpWidthFormat("uint64", big.NewInt(0), acpMinus1(acpPow2(64))))
		c.RegisterFormat(acpWidthFormat("int32", acpNeg(acpPow2(31)), acpMinus1(acpPow2(31))))
		c.RegisterFormat(acpWidthFormat("int64", acpNeg(acpPow2(63)), acpMinus1(acpPow2(63))))
		c.RegisterFormat(&jsonschema.Format{Name: "uri", Validate: func(any) error { return nil }})
		if err := c.AddResource(acpOracleURL, doc); err != nil {
			acpOracleErr = fmt.Errorf("adding the official schema: %w", err)
			return
		}
		acpOracleSet = acpNewSchemaSet("official", c)
	})
	if acpOracleErr != nil {
		t.Fatal(acpOracleErr)
	}
	if acpOracleSet == nil {
		t.Fatal("the official schema could not be loaded (see the first failing test)")
	}
	return acpOracleSet
}

// acpOfficialDefs returns the $defs of the official schema.
func acpOfficialDefs(t testing.TB) map[string]any {
	t.Helper()
	dir := sharedref.Dir(t, "reference", "acp", "v1")
	doc, _ := acpReadSharedValue(t, filepath.Join(dir, "schema.json")).(map[string]any)
	defs, _ := doc["$defs"].(map[string]any)
	if len(defs) == 0 {
		t.Fatal("official schema has no $defs")
	}
	return defs
}

// acpOfficialMethodTypes maps a method to the official names of its params and
// result types, read from the x-method annotations of the official schema.
func acpOfficialMethodTypes(t testing.TB) map[string][2]string {
	t.Helper()
	out := map[string][2]string{}
	for name, d := range acpOfficialDefs(t) {
		m, _ := d.(map[string]any)
		method, ok := m["x-method"].(string)
		if !ok {
			continue
		}
		e := out[method]
		if strings.HasSuffix(name, "Response") {
			e[1] = name
		} else {
			e[0] = name
		}
		out[method] = e
	}
	return out
}

// acpOurTypes maps a type name to the URL of our schema of that name: the root
// of a file (by its title) or a shared definition (by its $defs key).
func acpOurTypes(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, file := range acpSchemaFiles(t) {
		doc, _ := acpDocCached(t, file).(map[string]any)
		if title, ok := doc["title"].(string); ok {
			out[title] = acpURL(file)
		}
		defs, _ := doc["$defs"].(map[string]any)
		for name := range defs {
			out[name] = acpURL(file) + "#" + acpJSONPointer("$defs", name)
		}
	}
	return out
}

// ---------------------------------------------------------------- instances

// acpInstance is a value of a named ACP type, taken from the reference
// examples, the Go SDK goldens, our schema examples or our test data.
type acpInstance struct {
	name  string // where it comes from
	typ   string // official type name
	value any
}

// acpEnvelope is a whole JSON-RPC message.
type acpEnvelope struct {
	name  string
	value any
}

// acpDocFragments types the doc examples that are not messages but a bare
// value of one type; ptr selects the part to check.
var acpDocFragments = map[string]struct{ typ, ptr string }{
	"authentication__01.json":         {"AuthMethod", ""},
	"authentication__02.json":         {"AuthMethod", ""},
	"content__00.json":                {"ContentBlock", ""},
	"content__01.json":                {"ContentBlock", ""},
	"content__02.json":                {"ContentBlock", ""},
	"content__03.json":                {"ContentBlock", ""},
	"content__04.json":                {"ContentBlock", ""},
	"elicitation__00.json":            {"ClientCapabilities", "/clientCapabilities"},
	"session-config-options__01.json": {"ClientCapabilities", "/clientCapabilities"},
	"session-config-options__02.json": {"SessionConfigOption", ""},
	"session-setup__14.json":          {"McpServer", ""},
	"session-setup__15.json":          {"McpServer", ""},
	"session-setup__16.json":          {"McpServer", ""},
	"tool-calls__05.json":             {"ToolCallContent", ""},
	"tool-calls__06.json":             {"ToolCallContent", ""},
	"tool-calls__07.json":             {"ToolCallContent", ""},
	"tool-calls__08.json":             {"ToolCallLocation", ""},
}

// acpDocUnparsed are doc examples that are not JSON (the docs elide parts).
var acpDocUnparsed = map[string]string{
	"session-config-options__05.json": "not JSON: the docs elide part of the message",
	"session-config-options__06.json": "not JSON: the docs elide part of the message",
}

// acpDocOrphans are responses whose request is not shown on the same page;
// the method follows from the shape of the result.
var acpDocOrphans = map[string]string{
	"authentication__00.json":         "initialize",
	"extensibility__05.json":          "initialize",
	"file-system__00.json":            "initialize",
	"session-delete__00.json":         "initialize",
	"session-list__00.json":           "initialize",
	"session-setup__02.json":          "initialize",
	"session-setup__07.json":          "initialize",
	"session-setup__10.json":          "initialize",
	"session-setup__17.json":          "initialize",
	"terminals__00.json":              "initialize",
	"session-config-options__00.json": "session/new",
	"session-modes__00.json":          "session/new",
}

// acpDocExample is what the test derived for one doc example.
type acpDocExample struct {
	method, typ string // method and official type of the checked part ("" when none)
	part        string // "params", "result" or ""
}

type acpCorpus struct {
	typed     []acpInstance
	envelopes []acpEnvelope
	docs      map[string]acpDocExample // by file name, messages only
}

var (
	acpCorpusOnce  sync.Once
	acpCorpusCache *acpCorpus
)

// acpLoadCorpus gathers every instance the differential tests use.
func acpLoadCorpus(t *testing.T) *acpCorpus {
	t.Helper()
	ref := sharedref.Dir(t, "reference", "acp")
	acpCorpusOnce.Do(func() { acpCorpusCache = acpBuildCorpus(t, ref) })
	if acpCorpusCache == nil {
		t.Fatal("building the example corpus failed")
	}
	return acpCorpusCache
}

func acpBuildCorpus(t *testing.T, ref string) *acpCorpus {
	c := &acpCorpus{docs: map[string]acpDocExample{}}
	methodTypes := acpOfficialMethodTypes(t)
	typeOf := func(method, part string) string {
		if part == "result" {
			return methodTypes[method][1]
		}
		return methodTypes[method][0]
	}

	// Doc examples, in page order, so a response finds its request.
	docDir := filepath.Join(ref, "examples", "docs-v1")
	var index []struct {
		File   string  `json:"file"`
		Source string  `json:"source"`
		Parsed bool    `json:"parsed"`
		Method *string `json:"method"`
	}
	acpReadSharedJSON(t, filepath.Join(docDir, "INDEX.json"), &index)
	requests := map[string]string{} // source + id → method
	for _, e := range index {
		base := path.Base(e.File)
		if !e.Parsed {
			if acpDocUnparsed[base] == "" {
				t.Errorf("%s: unparsed doc example with no recorded reason", base)
			}
			continue
		}
		v := acpReadSharedValue(t, filepath.Join(docDir, base))
		msg, _ := v.(map[string]any)
		if _, isMsg := msg["jsonrpc"]; !isMsg {
			f, ok := acpDocFragments[base]
			if !ok {
				t.Errorf("%s: not a message and not typed in acpDocFragments", base)
				continue
			}
			part, err := acpLookupPointer(v, f.ptr)
			if err != nil {
				t.Errorf("%s: %v", base, err)
				continue
			}
			c.typed = append(c.typed, acpInstance{name: "docs-v1/" + base, typ: f.typ, value: part})
			continue
		}
		c.envelopes = append(c.envelopes, acpEnvelope{name: "docs-v1/" + base, value: v})
		idKey := e.Source + " " + acpCanonicalJSON(msg["id"])
		var d acpDocExample
		if method, ok := msg["method"].(string); ok {
			d.method = method
			if _, hasID := msg["id"]; hasID {
				requests[idKey] = method
			}
			if _, ok := msg["params"]; ok {
				d.part = "params"
			}
		} else {
			method, ok := requests[idKey]
			if !ok {
				method, ok = acpDocOrphans[base]
			}
			if !ok {
				t.Errorf("%s: response to no request shown on its page; add it to acpDocOrphans", base)
				continue
			}
			d.method = method
			if _, ok := msg["result"]; ok {
				d.part = "result"
			}
		}
		if strings.HasPrefix(d.method, "_") || d.part == "" {
			d.part = "" // extension method or error response: the envelope is all there is to check
		} else {
			d.typ = typeOf(d.method, d.part)
			if d.typ == "" {
				t.Errorf("%s: the official schema has no %s type for %s", base, d.part, d.method)
				continue
			}
			c.typed = append(c.typed, acpInstance{name: "docs-v1/" + base + " " + d.part, typ: d.typ,
				value: msg[d.part]})
		}
		c.docs[base] = d
	}

	// Go SDK goldens: bare values, typed by the golden's own validation record.
	goDir := filepath.Join(ref, "examples", "gosdk-golden")
	goTypes := acpParseGoldenTypes(t, filepath.Join(goDir, "VALIDATION.txt"))
	entries, err := os.ReadDir(goDir)
	if err != nil {
		t.Fatalf("reading goldens: %v", err)
	}
	for _, ent := range entries {
		name := strings.TrimSuffix(ent.Name(), ".json")
		if name == ent.Name() {
			continue
		}
		typ, ok := goTypes[name]
		if !ok {
			t.Errorf("golden %s has no type in VALIDATION.txt", ent.Name())
			continue
		}
		c.typed = append(c.typed, acpInstance{name: "gosdk/" + ent.Name(), typ: typ,
			value: acpReadSharedValue(t, filepath.Join(goDir, ent.Name()))})
	}

	// Our own schema examples and test data, where the official schema has a
	// type of the same name.
	defs := acpOfficialDefs(t)
	c.typed = append(c.typed, acpOurExamples(t, defs)...)
	c.typed = append(c.typed, acpLoadTestdataInstances(t)...)
	return c
}

// acpParseGoldenTypes reads the types of the Go SDK goldens as recorded against
// the official schema.
func acpParseGoldenTypes(t *testing.T, p string) map[string]string {
	out := map[string]string{}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(acpReadSharedFile(t, p)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			section = strings.TrimPrefix(line, "## ")
			continue
		}
		f := strings.Fields(line)
		if section == "official/schema/v1/schema.json" && len(f) == 3 {
			if f[0] != "OK" {
				t.Errorf("golden %s is recorded as %s; every golden is expected valid", f[1], f[0])
			}
			out[f[1]] = f[2]
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no official types recorded", p)
	}
	return out
}

// acpOurExamples turns the examples of our root schemas and shared definitions
// into instances of the official type with the same name.
func acpOurExamples(t *testing.T, official map[string]any) []acpInstance {
	var out []acpInstance
	for _, file := range acpSchemaFiles(t) {
		doc, _ := acpDocCached(t, file).(map[string]any)
		add := func(name string, node any) {
			m, _ := node.(map[string]any)
			examples, _ := m["examples"].([]any)
			if _, ok := official[name]; !ok {
				return
			}
			for i, ex := range examples {
				out = append(out, acpInstance{name: fmt.Sprintf("ours/%s %s example %d", file, name, i),
					typ: name, value: ex})
			}
		}
		if title, ok := doc["title"].(string); ok {
			add(title, doc)
		}
		defs, _ := doc["$defs"].(map[string]any)
		for _, name := range acpSortedKeys(defs) {
			add(name, defs[name])
		}
	}
	return out
}

// acpLoadTestdataInstances reads schema/testdata/acp/v1/instances.json: valid
// values, written for this test, of the types and variants the reference
// examples leave out.
func acpLoadTestdataInstances(t testing.TB) []acpInstance {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "acp", "v1", "instances.json"))
	if err != nil {
		t.Fatalf("reading test data: %v", err)
	}
	v, err := acpDecodeJSON(data)
	if err != nil {
		t.Fatalf("instances.json: %v", err)
	}
	arr, _ := v.([]any)
	var out []acpInstance
	for i, e := range arr {
		m, _ := e.(map[string]any)
		name, _ := m["name"].(string)
		typ, _ := m["type"].(string)
		if name == "" || typ == "" {
			t.Fatalf("instances.json[%d]: needs name and type", i)
		}
		out = append(out, acpInstance{name: "testdata/" + name, typ: typ, value: m["value"]})
	}
	return out
}

func acpCanonicalJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func acpLookupPointer(v any, ptr string) (any, error) {
	for _, tok := range acpSplitPointer(ptr) {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("pointer %s: not an object at %q", ptr, tok)
		}
		if v, ok = m[tok]; !ok {
			return nil, fmt.Errorf("pointer %s: no %q", ptr, tok)
		}
	}
	return v, nil
}

// ---------------------------------------------------------------- known differences

// acpPatch is one JSON-Patch-like edit of one of our files.
type acpPatch struct {
	file, op, path, from, value string // op: remove, replace, move
}

// acpWitness is a value on which our schema and the official one disagree
// because of one documented difference. typ is an official type name, or
// "envelope" for a whole message.
type acpWitness struct {
	typ, value string
}

// acpDifference is a deliberate difference from the official schema. Its
// patches turn our schemas back into the official behaviour; the README lists
// the same IDs and explains each.
type acpDifference struct {
	id       string
	reason   string
	stricter bool // we reject what the official schema accepts
	patches  []acpPatch
	witness  []acpWitness
}

const acpOfficialScope = `[
  {"properties": {"sessionId": {"$ref": "%[1]s#/$defs/SessionId"},
                  "toolCallId": {"anyOf": [{"$ref": "%[1]s#/$defs/ToolCallId"}, {"type": "null"}]}},
   "required": ["sessionId"]},
  {"properties": {"requestId": {"$ref": "jsonrpc.json#/$defs/RequestId"}}, "required": ["requestId"]}]`

func acpScopePatches(file, base, common string) []acpPatch {
	return []acpPatch{
		{file: file, op: "remove", path: base + "/properties/sessionId"},
		{file: file, op: "remove", path: base + "/properties/toolCallId"},
		{file: file, op: "remove", path: base + "/properties/requestId"},
		{file: file, op: "replace", path: base + "/anyOf", value: fmt.Sprintf(acpOfficialScope, common)},
	}
}

var acpDifferences = []acpDifference{
	{
		id: "tagged-default-variant",
		reason: "A union member without a tag (stdio MCP server, `agent` auth method, select value of " +
			"session/set_config_option, titled multi-select items) is only read when the tag does not name " +
			"another variant. The official schema also accepts an object whose tag names a variant it fails " +
			"(for example `type: http` without `url`) when it happens to fit the untagged member; a decoder " +
			"that dispatches on the tag rejects it.",
		stricter: true,
		patches: []acpPatch{
			{file: "common.json", op: "remove", path: "/$defs/McpServer/oneOf/2/properties/type/not"},
			{file: "common.json", op: "move", from: "/$defs/McpServer/oneOf", path: "/$defs/McpServer/anyOf"},
			{file: "common.json", op: "remove", path: "/$defs/AuthMethod/oneOf/1/properties/type/not"},
			{file: "common.json", op: "move", from: "/$defs/AuthMethod/oneOf", path: "/$defs/AuthMethod/anyOf"},
			{file: "common.json", op: "remove", path: "/$defs/MultiSelectItems/oneOf/1/properties/type"},
			{file: "common.json", op: "move", from: "/$defs/MultiSelectItems/oneOf", path: "/$defs/MultiSelectItems/anyOf"},
			{file: "session.set_config_option.params.json", op: "remove", path: "/oneOf/1/properties/type/not"},
			{file: "session.set_config_option.params.json", op: "move", from: "/oneOf", path: "/anyOf"},
		},
		witness: []acpWitness{
			{"McpServer", `{"type": "http", "name": "n", "command": "/bin/s", "args": [], "env": []}`},
			{"AuthMethod", `{"type": "terminal", "id": "t", "name": "n", "args": "not-a-list"}`},
			{"MultiSelectItems", `{"type": "string", "anyOf": [{"const": "a", "title": "A"}]}`},
			{"SetSessionConfigOptionRequest", `{"sessionId": "s", "configId": "c", "type": "boolean", "value": "v"}`},
		},
	},
	{
		id: "elicitation-scope-fields",
		reason: "`sessionId`, `toolCallId` and `requestId` of an elicitation request are typed whenever they " +
			"are present. The official schema checks only the fields of the scope that matched, so it accepts " +
			"`sessionId: \"s\"` next to a malformed `requestId`.",
		stricter: true,
		patches: slices.Concat(
			acpScopePatches("common.json", "/$defs/ElicitationFormMode", ""),
			acpScopePatches("common.json", "/$defs/ElicitationUrlMode", ""),
			acpScopePatches("elicitation.create.params.json", "/oneOf/2", "common.json"),
		),
		witness: []acpWitness{
			{"CreateElicitationRequest", `{"mode": "url", "message": "m", "elicitationId": "e",
				"url": "https://example.com", "sessionId": "s", "requestId": {"bad": true}}`},
			{"CreateElicitationRequest", `{"mode": "_wizard", "message": "m", "requestId": 1, "toolCallId": 5}`},
		},
	},
	{
		id: "notification-has-no-id",
		reason: "A message with an `id` is a request or a response, never a notification, so a malformed `id` " +
			"is an error. The official envelope accepts any message with a string `method` as a notification, " +
			"whatever its `id`.",
		stricter: true,
		patches:  []acpPatch{{file: "jsonrpc.json", op: "remove", path: "/$defs/Notification/properties/id"}},
		witness: []acpWitness{
			{"envelope", `{"jsonrpc": "2.0", "id": [1], "method": "session/cancel", "params": {"sessionId": "s"}}`},
		},
	},
	{
		id: "response-result-xor-error",
		reason: "A response carries exactly one of `result` and `error`, as JSON-RPC 2.0 requires. The " +
			"official envelope accepts both at once.",
		stricter: true,
		patches: []acpPatch{{file: "jsonrpc.json", op: "replace", path: "/$defs/Response", value: `{
			"type": "object",
			"properties": {"jsonrpc": {"const": "2.0"}, "id": {"$ref": "#/$defs/RequestId"}},
			"required": ["jsonrpc", "id"],
			"anyOf": [{"required": ["result"]},
			          {"properties": {"error": {"$ref": "#/$defs/Error"}}, "required": ["error"]}]}`}},
		witness: []acpWitness{
			{"envelope", `{"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": -32603, "message": "x"}}`},
		},
	},
}

// acpRelaxedSet compiles our schemas with the patches of the given differences
// applied, so that they behave as the official schema does there.
func acpRelaxedSet(t testing.TB, diffs ...acpDifference) *acpSchemaSet {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(acpRefuseLoader{})
	paths, err := schema.Paths("acp")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range diffs {
		names = append(names, d.id)
	}
	for _, p := range paths {
		data, err := fs.ReadFile(schema.Files, p)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := acpDecodeJSON(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, d := range diffs {
			for _, pt := range d.patches {
				if acpDir+"/"+pt.file != p {
					continue
				}
				if doc, err = acpApplyPatch(doc, pt); err != nil {
					t.Fatalf("difference %s: %s: %v", d.id, p, err)
				}
			}
		}
		if err := c.AddResource(schema.IDPrefix+p, doc); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	return acpNewSchemaSet("relaxed("+strings.Join(names, ",")+")", c)
}

// acpApplyPatch applies one edit to a decoded document.
func acpApplyPatch(doc any, p acpPatch) (any, error) {
	switch p.op {
	case "remove":
		_, err := acpEditPointer(doc, p.path, nil, true)
		return doc, err
	case "replace":
		v, err := acpDecodeJSON([]byte(p.value))
		if err != nil {
			return nil, err
		}
		if _, err := acpEditPointer(doc, p.path, nil, true); err != nil {
			return nil, err
		}
		_, err = acpEditPointer(doc, p.path, v, false)
		return doc, err
	case "move":
		v, err := acpEditPointer(doc, p.from, nil, true)
		if err != nil {
			return nil, err
		}
		_, err = acpEditPointer(doc, p.path, v, false)
		return doc, err
	}
	return nil, fmt.Errorf("unknown patch op %q", p.op)
}

// acpEditPointer removes (and returns) the member at ptr, or adds v there.
// Only object members are edited.
func acpEditPointer(doc any, ptr string, v any, remove bool) (any, error) {
	toks := acpSplitPointer(ptr)
	if len(toks) == 0 {
		return nil, errors.New("cannot edit the root")
	}
	parent, err := acpLookupAny(doc, toks[:len(toks)-1])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ptr, err)
	}
	m, ok := parent.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: parent is not an object", ptr)
	}
	last := toks[len(toks)-1]
	old, exists := m[last]
	switch {
	case remove && !exists:
		return nil, fmt.Errorf("%s: nothing to remove", ptr)
	case remove:
		delete(m, last)
		return old, nil
	case exists:
		return nil, fmt.Errorf("%s: already exists", ptr)
	}
	m[last] = v
	return nil, nil
}

func acpLookupAny(v any, toks []string) (any, error) {
	for _, tok := range toks {
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[tok]; !ok {
				return nil, fmt.Errorf("no member %q", tok)
			}
		case []any:
			var i int
			if _, err := fmt.Sscan(tok, &i); err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("bad index %q", tok)
			}
			v = c[i]
		default:
			return nil, fmt.Errorf("cannot descend into %q", tok)
		}
	}
	return v, nil
}

// ---------------------------------------------------------------- the comparison

// acpJudge validates values under the official schema and ours and explains
// every disagreement by a documented difference, or reports it.
type acpJudge struct {
	official, ours *acpSchemaSet
	ourTypes       map[string]string
	mu             sync.Mutex
	relaxed        map[string]*acpSchemaSet // by difference ID
	exercised      map[string]int           // difference ID → disagreements it explained
}

func acpNewJudge(t *testing.T) *acpJudge {
	t.Helper()
	return &acpJudge{official: acpOracle(t), ours: acpOurs(t), ourTypes: acpOurTypes(t),
		relaxed: map[string]*acpSchemaSet{}, exercised: map[string]int{}}
}

// urls returns the official and our schema URL of a type ("envelope" for a
// whole message).
func (j *acpJudge) urls(t testing.TB, typ string) (string, string) {
	t.Helper()
	if typ == "envelope" {
		return acpOracleURL, acpURL("jsonrpc.json")
	}
	ourURL, ok := j.ourTypes[typ]
	if !ok {
		t.Fatalf("our schemas have no type named %s", typ)
	}
	return acpOfficialDef(typ), ourURL
}

func (j *acpJudge) relaxedFor(t testing.TB, d acpDifference) *acpSchemaSet {
	t.Helper()
	j.mu.Lock()
	defer j.mu.Unlock()
	if s, ok := j.relaxed[d.id]; ok {
		return s
	}
	s := acpRelaxedSet(t, d)
	j.relaxed[d.id] = s
	return s
}

// acpVerdict is the outcome of one comparison.
type acpVerdict struct {
	official, ours error
	explainedBy    string // difference ID when the two disagree for a documented reason
}

func (v acpVerdict) agree() bool { return (v.official == nil) == (v.ours == nil) }

// judge validates value as typ under both schemas; a disagreement is
// explained by the first documented difference whose patches make ours
// agree with the official schema, and fails the test otherwise.
func (j *acpJudge) judge(t testing.TB, name, typ string, value any) acpVerdict {
	t.Helper()
	offURL, ourURL := j.urls(t, typ)
	v := acpVerdict{official: j.official.validate(t, offURL, value), ours: j.ours.validate(t, ourURL, value)}
	if v.agree() {
		return v
	}
	for _, d := range acpDifferences {
		r := j.relaxedFor(t, d).validate(t, ourURL, value)
		if (r == nil) == (v.official == nil) && d.stricter == (v.ours != nil) {
			v.explainedBy = d.id
			j.mu.Lock()
			j.exercised[d.id]++
			j.mu.Unlock()
			return v
		}
	}
	t.Errorf("%s (%s): undocumented difference from the official schema:\n  official: %s\n  ours:     %s\n  value: %s",
		name, typ, acpFirstLine(v.official), acpFirstLine(v.ours), acpCanonicalJSON(value))
	return v
}

// Every reference example, Go SDK golden, schema example and test instance
// gets the same verdict from our schemas as from the official one, for the
// method-directed part and for the whole envelope.
func TestACPAgreesWithOfficialSchema(t *testing.T) {
	c := acpLoadCorpus(t)
	j := acpNewJudge(t)
	valid, invalid := 0, 0
	for _, in := range c.typed {
		v := j.judge(t, in.name, in.typ, in.value)
		if v.official == nil {
			valid++
		} else {
			invalid++
		}
		if strings.HasPrefix(in.name, "testdata/") || strings.HasPrefix(in.name, "ours/") {
			if v.official != nil {
				t.Errorf("%s: written as valid but the official schema rejects it: %s", in.name, acpFirstLine(v.official))
			}
		}
	}
	for _, e := range c.envelopes {
		if v := j.judge(t, e.name, "envelope", e.value); v.official != nil {
			t.Errorf("%s: the official schema rejects the envelope: %s", e.name, acpFirstLine(v.official))
		}
	}
	t.Logf("%d typed values (%d valid, %d invalid under both) and %d envelopes agree", len(c.typed), valid,
		invalid, len(c.envelopes))
	if len(c.typed) < 150 || invalid < 4 {
		t.Errorf("corpus too small: %d typed values, %d invalid", len(c.typed), invalid)
	}
}

var acpValidationLine = regexp.MustCompile(`^(OK|INVALID|NO-TYPE)\s+root:(\S+)\s+(\S+)\s+(\S+)\s+(\S+)`)

// The method and type derived for each doc example, and the oracle's verdict,
// match the record that ships with the examples (VALIDATION.txt).
func TestACPDocExamplesMatchRecord(t *testing.T) {
	c := acpLoadCorpus(t)
	off := acpOracle(t)
	dir := sharedref.Dir(t, "reference", "acp", "examples", "docs-v1")
	sc := bufio.NewScanner(bytes.NewReader(acpReadSharedFile(t, filepath.Join(dir, "VALIDATION.txt"))))
	seen := map[string]bool{}
	for sc.Scan() {
		f := acpValidationLine.FindStringSubmatch(sc.Text())
		if f == nil {
			continue
		}
		status, root, file, method, typ := f[1], f[2], f[3], f[4], f[5]
		seen[file] = true
		d, ok := c.docs[file]
		if !ok {
			t.Errorf("%s: recorded as a message but not read as one", file)
			continue
		}
		if root != "ok" {
			t.Errorf("%s: the record says the envelope fails (%s)", file, root)
		}
		switch status {
		case "NO-TYPE":
			_, orphan := acpDocOrphans[file]
			if !(orphan && method == "-") && !(strings.HasPrefix(method, "_") && d.method == method) {
				t.Errorf("%s: recorded without a type (method %s) but read as %s %s", file, method, d.method, d.typ)
			}
		default:
			if d.method != method || d.typ != typ {
				t.Errorf("%s: read as %s %s, recorded as %s %s", file, d.method, d.typ, method, typ)
				continue
			}
			msg, _ := acpReadSharedValue(t, filepath.Join(dir, file)).(map[string]any)
			err := off.validate(t, acpOfficialDef(typ), msg[d.part])
			if (err == nil) != (status == "OK") {
				t.Errorf("%s: oracle says %s, record says %s", file, acpFirstLine(err), status)
			}
		}
	}
	for file := range c.docs {
		if !seen[file] {
			t.Errorf("%s: read as a message but missing from the record", file)
		}
	}
}

// The README lists exactly the differences the differential test knows.
func TestACPDifferencesListedInREADME(t *testing.T) {
	readme, err := fs.ReadFile(schema.Files, "acp/README.md")
	if err != nil {
		t.Fatalf("reading README: %v", err)
	}
	listed := map[string]bool{}
	inSection := false
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "## ") {
			inSection = strings.Contains(strings.ToLower(line), "deliberate differences")
			continue
		}
		if m := regexp.MustCompile("^- `([a-z0-9-]+)`").FindStringSubmatch(line); inSection && m != nil {
			listed[m[1]] = true
		}
	}
	for _, d := range acpDifferences {
		if !listed[d.id] {
			t.Errorf("difference %s is not listed in schema/acp/README.md under Deliberate differences", d.id)
		}
		delete(listed, d.id)
	}
	for id := range listed {
		t.Errorf("README lists difference %s, which the test does not know", id)
	}
}

// Each documented difference is real (its witnesses get different verdicts)
// and precise (its patches alone make ours agree with the official schema).
func TestACPDifferencesWitnessed(t *testing.T) {
	j := acpNewJudge(t)
	for _, d := range acpDifferences {
		if len(d.witness) == 0 {
			t.Errorf("%s: no witness", d.id)
		}
		for i, w := range d.witness {
			v, err := acpDecodeJSON([]byte(w.value))
			if err != nil {
				t.Fatalf("%s witness %d: %v", d.id, i, err)
			}
			got := j.judge(t, fmt.Sprintf("%s witness %d", d.id, i), w.typ, v)
			if got.agree() {
				t.Errorf("%s witness %d: both schemas give the same verdict (official: %s); the difference "+
					"was: %s", d.id, i, acpFirstLine(got.official), d.reason)
			} else if got.explainedBy != d.id {
				t.Errorf("%s witness %d: explained by %q", d.id, i, got.explainedBy)
			}
		}
	}
}
