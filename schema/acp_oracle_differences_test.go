// The known differences between our ACP v1 schemas and the official one:
// each with the patches that turn our schemas back into the official
// behaviour and the values that witness it, and the patching itself.

package schema_test

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/schema"
)

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
