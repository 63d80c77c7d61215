package publish

import (
	"encoding/json"
	"strings"
	"testing"
)

// equivalent compiles a schema before and after a rewrite and checks that
// both judge every instance alike.
func equivalent(t *testing.T, before, after *Object, instances []string) {
	t.Helper()
	b, err := compileStandalone(before)
	if err != nil {
		t.Fatal(err)
	}
	a, err := compileStandalone(after)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range instances {
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			t.Fatal(err)
		}
		if vb, va := b.Validate(v) == nil, a.Validate(v) == nil; vb != va {
			t.Errorf("%s: valid %v before the rewrite, %v after: %s", text, vb, va, compactJSON(after))
		}
	}
}

func TestDispatchNestedWithDefault(t *testing.T) {
	// A union whose default variant may leave the tag out (ACP's stdio MCP
	// server): the rewrite must keep accepting what the oneOf accepts.
	union := obj("oneOf", []any{
		obj("type", "object", "properties", obj("type", obj("const", "http"), "url", obj("type", "string")), "required", []any{"type", "url"}),
		obj("type", "object", "properties", obj("type", obj("const", "sse"), "url", obj("type", "string")), "required", []any{"type", "url"}),
		obj("type", "object", "properties", obj("type", obj("not", obj("enum", []any{"http", "sse"})), "command", obj("type", "string")), "required", []any{"command"}),
	})
	before := clone(union).(*Object)
	if err := dispatchNested(newObject(), union); err != nil {
		t.Fatal(err)
	}
	if union.Has("oneOf") || len(union.Arr("allOf")) != 3 {
		t.Fatalf("not rewritten: %s", compactJSON(union))
	}
	equivalent(t, before, union, []string{
		`{"type":"http","url":"u"}`, `{"type":"http"}`, `{"type":"http","command":"c"}`,
		`{"type":"sse","url":"u"}`, `{"command":"c"}`, `{"type":"stdio","command":"c"}`,
		`{"type":"other"}`, `{}`, `"http"`, `null`, `{"type":1,"command":"c"}`,
	})
}

func TestDispatchNestedLeavesOthersAlone(t *testing.T) {
	for name, s := range map[string]*Object{
		// Two variants with the same tag value: not a dispatch.
		"duplicate tag": obj("oneOf", []any{
			obj("type", "object", "properties", obj("k", obj("const", "a")), "required", []any{"k"}),
			obj("type", "object", "properties", obj("k", obj("const", "a"), "x", obj("type", "string")), "required", []any{"k", "x"}),
		}),
		// A catch-all that also accepts a constant tag.
		"overlap": obj("oneOf", []any{
			obj("type", "object", "properties", obj("k", obj("const", "a")), "required", []any{"k"}),
			obj("type", "object", "properties", obj("k", obj("type", "string")), "required", []any{"k"}),
		}),
		// Untagged variants.
		"untagged": obj("oneOf", []any{obj("type", "string"), obj("type", "integer")}),
		// A union with members of its own besides the variants.
		"own members": obj("properties", obj("z", obj("type", "string")), "oneOf", []any{
			obj("type", "object", "properties", obj("k", obj("const", "a")), "required", []any{"k"}),
			obj("type", "object", "properties", obj("k", obj("const", "b")), "required", []any{"k"}),
		}),
	} {
		before := compactJSON(s)
		if err := dispatchNested(newObject(), s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if after := compactJSON(s); after != before {
			t.Errorf("%s: rewritten to %s", name, after)
		}
	}
}

func TestEnumRewrites(t *testing.T) {
	for name, tc := range map[string]struct {
		s         *Object
		rewrite   func(*Object)
		instances []string
		gone      string
	}{
		"closed": {obj("type", "string", "oneOf", []any{obj("const", "a", "description", "A."), obj("const", "b")}), closedEnum,
			[]string{`"a"`, `"b"`, `"c"`, `1`}, "oneOf"},
		"open": {obj("anyOf", []any{obj("const", "a"), obj("const", "b"), obj("type", "string")}), openEnum,
			[]string{`"a"`, `"z"`, `1`, `null`}, "anyOf"},
		"nullable": {obj("anyOf", []any{obj("type", "string", "minLength", 2), obj("type", "null")}), nullableUnion,
			[]string{`"ab"`, `"a"`, `null`, `1`}, "anyOf"},
	} {
		before := clone(tc.s).(*Object)
		tc.rewrite(tc.s)
		if tc.s.Has(tc.gone) {
			t.Errorf("%s: not rewritten: %s", name, compactJSON(tc.s))
		}
		equivalent(t, before, tc.s, tc.instances)
	}
	s := obj("type", "string", "oneOf", []any{obj("const", "a", "description", "The first."), obj("const", "b")})
	closedEnum(s)
	if !strings.Contains(s.Str("description"), "`\"a\"`: The first") {
		t.Errorf("the values' meanings are lost: %q", s.Str("description"))
	}
}

func TestPublishedKeepsNoKeywordOfOurs(t *testing.T) {
	for dir, b := range bundles(t) {
		data, err := b.Encode()
		if err != nil {
			t.Fatal(err)
		}
		for _, kw := range append([]string{integerLiteralKW}, annotationKeywords...) {
			if strings.Contains(string(data), `"`+kw+`"`) {
				t.Errorf("%s: the published bundle has %s", dir, kw)
			}
		}
		if dir == "arcan/v1" && !strings.Contains(string(data), integerLiteralNote) {
			t.Errorf("%s: x-integer-literal is not stated in a description", dir)
		}
	}
	doc, err := bundle(t, "acp/v1").published()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"SessionUpdate", "ContentBlock", "ToolCallContent", "McpServer"} {
		if d := doc.Obj("$defs").Obj(name); d == nil || d.Has("oneOf") || len(d.Arr("allOf")) < 2 {
			t.Errorf("acp/v1 %s is not a dispatch", name)
		}
	}
}
