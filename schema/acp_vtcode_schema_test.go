// The VT Code dialect's schemas themselves: they compile, follow the
// conventions (unions, unique type names), their examples pass, and the
// dispatch table names every method's files.

package schema_test

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/schema"
)

// TestVTCodeSchemasCompile checks that every file of the dialect compiles with
// the offline compiler and follows the naming rules of schema/README.md.
func TestVTCodeSchemasCompile(t *testing.T) {
	set := vtcodeNewSchemas(t)
	for _, p := range vtcodePaths(t) {
		if _, err := set.get(schema.IDPrefix + p); err != nil {
			t.Errorf("%v", err)
		}
		doc := vtcodeDoc(t, p)
		if doc["$schema"] != vtcodeDraft {
			t.Errorf("%s: $schema is %v, want %s", p, doc["$schema"], vtcodeDraft)
		}
		if doc["$id"] != schema.IDPrefix+p {
			t.Errorf("%s: $id is %v, want %s", p, doc["$id"], schema.IDPrefix+p)
		}
		title, hasTitle := doc["title"].(string)
		switch {
		case path.Base(p) == "common.json":
			if hasTitle {
				t.Errorf("%s: a definitions-only file must not have a root title", p)
			}
		case !vtcodePascal.MatchString(title):
			t.Errorf("%s: root title %q is not PascalCase", p, title)
		}
		defs, _ := doc["$defs"].(map[string]any)
		for name := range defs {
			if !vtcodePascal.MatchString(name) {
				t.Errorf("%s: $defs key %q is not PascalCase", p, name)
			}
			// Every definition compiles on its own, as a $ref from outside
			// would compile it.
			if _, err := set.get(schema.IDPrefix + p + "#/$defs/" + name); err != nil {
				t.Errorf("%v", err)
			}
		}
	}
}

// TestVTCodeSchemaConventions checks the rules every file must follow: only
// standard keywords, relative references, a description on every type,
// property and variant, bounded integers, and tagged unions whose variants are
// titled and require distinct constant tags.
func TestVTCodeSchemaConventions(t *testing.T) {
	for _, p := range vtcodePaths(t) {
		acpWalkSchema(vtcodeDoc(t, p), "", acpRoleRoot, func(ptr string, m map[string]any, role acpSchemaRole) {
			at := p + "#" + ptr
			for k := range m {
				if !vtcodeKeywords[k] {
					t.Errorf("%s: keyword %q is not draft 2020-12 (only x-go-name may be added)", at, k)
				}
			}
			if ref, ok := m["$ref"].(string); ok && strings.Contains(ref, "://") {
				t.Errorf("%s: $ref %q must be relative", at, ref)
			}
			needs := role == acpRoleRoot || role == acpRoleDef || role == acpRoleProperty || role == acpRoleVariant
			if role == acpRoleVariant && len(m) == 1 && m["$ref"] != nil {
				needs = false // a bare reference takes the referenced description
			}
			if _, titled := m["title"]; titled {
				needs = true
			}
			if d, _ := m["description"].(string); needs && strings.TrimSpace(d) == "" {
				t.Errorf("%s: missing description", at)
			}
			if slices.Contains(vtcodeTypes(m), "integer") {
				if _, ok := m["minimum"]; !ok {
					t.Errorf("%s: integer without minimum", at)
				}
				if _, ok := m["maximum"]; !ok {
					t.Errorf("%s: integer without maximum", at)
				}
			}
			if variants, ok := m["oneOf"].([]any); ok {
				vtcodeCheckUnion(t, at, variants)
			}
		})
	}
}

// vtcodeCheckUnion checks a oneOf whose variants fix a tag with const: each
// variant is a titled object that requires its own distinct tag value.
func vtcodeCheckUnion(t *testing.T, at string, variants []any) {
	t.Helper()
	tag := ""
	for _, v := range variants {
		m, _ := v.(map[string]any)
		props, _ := m["properties"].(map[string]any)
		for name, p := range props {
			if pm, _ := p.(map[string]any); pm != nil {
				if _, ok := pm["const"].(string); ok {
					if tag != "" && tag != name {
						t.Errorf("%s: variants fix two different tags, %q and %q", at, tag, name)
					}
					tag = name
				}
			}
		}
	}
	if tag == "" {
		return // an enum written as a oneOf of consts, or an envelope choice
	}
	seen := map[string]bool{}
	for i, v := range variants {
		m, _ := v.(map[string]any)
		vat := fmt.Sprintf("%s/oneOf/%d", at, i)
		if title, _ := m["title"].(string); !vtcodePascal.MatchString(title) {
			t.Errorf("%s: variant title %q is not a PascalCase Go name", vat, title)
		}
		if m["type"] != "object" {
			t.Errorf("%s: variant must say type object", vat)
		}
		props, _ := m["properties"].(map[string]any)
		tm, _ := props[tag].(map[string]any)
		c, ok := tm["const"].(string)
		if !ok {
			t.Errorf("%s: variant has no string const for tag %q", vat, tag)
			continue
		}
		if !slices.Contains(vtcodeStrings(m["required"]), tag) {
			t.Errorf("%s: variant must require its tag %q", vat, tag)
		}
		if seen[c] {
			t.Errorf("%s: tag value %q used twice", vat, c)
		}
		seen[c] = true
	}
}

// TestVTCodeTypeNamesUnique checks that no two types of the dialect would get
// the same Go name: root titles, $defs keys and titled inline variants (a
// titled variant that only wraps a reference names the referenced type).
func TestVTCodeTypeNamesUnique(t *testing.T) {
	seen := map[string]string{}
	add := func(name, where string) {
		if prev, ok := seen[name]; ok {
			t.Errorf("Go type name %s is defined twice: %s and %s", name, prev, where)
		}
		seen[name] = where
	}
	for _, p := range vtcodePaths(t) {
		doc := vtcodeDoc(t, p)
		if title, ok := doc["title"].(string); ok {
			name := title
			if g, ok := doc["x-go-name"].(string); ok {
				name = g
			}
			add(name, p)
		}
		acpWalkSchema(doc, "", acpRoleRoot, func(ptr string, m map[string]any, role acpSchemaRole) {
			switch role {
			case acpRoleDef:
				if strings.Count(ptr, "/") == 2 {
					add(strings.TrimPrefix(ptr, "/$defs/"), p+"#"+ptr)
				}
			case acpRoleVariant:
				title, ok := m["title"].(string)
				if !ok {
					return
				}
				if all, _ := m["allOf"].([]any); len(all) == 1 && m["properties"] == nil {
					return
				}
				add(title, p+"#"+ptr)
			}
		})
	}
	for _, want := range []string{"SessionUpdateNotification", "ToolExecutionResult", "RequestPermissionResult", "PromptContent", "Session"} {
		if _, ok := seen[want]; !ok {
			t.Errorf("type %s is missing from the dialect's schemas", want)
		}
	}
}

// TestVTCodeSchemaExamples validates every `examples` value against the schema
// node that holds it.
func TestVTCodeSchemaExamples(t *testing.T) {
	set := vtcodeNewSchemas(t)
	count := 0
	for _, p := range vtcodePaths(t) {
		acpWalkSchema(vtcodeDoc(t, p), "", acpRoleRoot, func(ptr string, m map[string]any, _ acpSchemaRole) {
			examples, ok := m["examples"].([]any)
			if !ok {
				return
			}
			url := schema.IDPrefix + p + "#" + ptr
			sch, err := set.get(url)
			if err != nil {
				t.Errorf("%v", err)
				return
			}
			for i, ex := range examples {
				count++
				b, err := json.Marshal(ex)
				if err != nil {
					t.Fatalf("re-encoding %s example %d: %v", url, i, err)
				}
				inst, err := vtcodeInstance(b)
				if err != nil {
					t.Fatalf("re-decoding %s example %d: %v", url, i, err)
				}
				if err := sch.Validate(inst); err != nil {
					t.Errorf("%s example %d does not validate: %v", url, i, err)
				}
			}
		})
	}
	if count < 30 {
		t.Errorf("only %d examples found; every message file should carry some", count)
	}
}

// TestVTCodeDispatchTable checks the table against the schema files: names,
// kinds and handlers are known values, every message file is listed exactly
// once, file names follow the method names, and the keys that identify a
// record are required by every shape of that record's schema (so a line that
// has them cannot be another record or a JSON-RPC message).
func TestVTCodeDispatchTable(t *testing.T) {
	d := vtcodeLoadDispatch(t, vtcodeDir)
	if d.Protocol != "acp-vtcode" || d.Version != "vtcode" {
		t.Errorf("dispatch.json: protocol %q version %q, want acp-vtcode and vtcode", d.Protocol, d.Version)
	}
	if d.Envelope != "jsonrpc.json" {
		t.Errorf("dispatch.json: envelope %q, want jsonrpc.json", d.Envelope)
	}
	files := map[string]bool{}
	for _, p := range vtcodePaths(t) {
		files[path.Base(p)] = true
	}
	listed := map[string]int{d.Envelope: 1, "common.json": 1}
	methods := map[string]bool{}
	for _, m := range d.Methods {
		if methods[m.Method] {
			t.Errorf("method %s listed twice", m.Method)
		}
		methods[m.Method] = true
		stem := strings.ReplaceAll(m.Method, "/", ".")
		if m.Params != stem+".params.json" {
			t.Errorf("%s: params file %q, want %s.params.json", m.Method, m.Params, stem)
		}
		listed[m.Params]++
		switch m.Kind {
		case "request":
			if m.Result != stem+".result.json" {
				t.Errorf("%s: result file %q, want %s.result.json", m.Method, m.Result, stem)
			}
			listed[m.Result]++
		case "notification":
			if m.Result != "" {
				t.Errorf("%s: a notification has no result, got %q", m.Method, m.Result)
			}
		default:
			t.Errorf("%s: kind %q", m.Method, m.Kind)
		}
		if m.Handler != "agent" && m.Handler != "client" {
			t.Errorf("%s: handler %q", m.Method, m.Handler)
		}
	}
	for _, want := range []string{"session/new", "session/load", "session/prompt", "session/request_permission", "session/cancel"} {
		if !methods[want] {
			t.Errorf("method %s is missing from dispatch.json", want)
		}
	}
	records := map[string]bool{}
	for _, r := range d.Records {
		records[r.Record] = true
		listed[r.Schema]++
		if r.Handler != "agent" && r.Handler != "client" {
			t.Errorf("record %s: handler %q", r.Record, r.Handler)
		}
		if r.Transport != "sse" && r.Transport != "http" {
			t.Errorf("record %s: transport %q", r.Record, r.Transport)
		}
		if len(r.Keys) == 0 || slices.Contains(r.Keys, "jsonrpc") {
			t.Errorf("record %s: keys %v must be non-empty and exclude jsonrpc", r.Record, r.Keys)
		}
		if !files[r.Schema] {
			t.Errorf("record %s: schema %s does not exist", r.Record, r.Schema)
			continue
		}
		doc := vtcodeDoc(t, path.Join(vtcodeDir, r.Schema))
		for _, k := range r.Keys {
			if !vtcodeAlwaysRequired(doc, k) {
				t.Errorf("record %s: key %q is not required by every shape of %s", r.Record, k, r.Schema)
			}
		}
	}
	if !records["session/update"] {
		t.Errorf("record session/update is missing from dispatch.json")
	}
	for f := range files {
		if listed[f] != 1 {
			t.Errorf("%s is referenced %d times by dispatch.json, want once", f, listed[f])
		}
	}
	for f := range listed {
		if !files[f] {
			t.Errorf("dispatch.json names %s, which does not exist", f)
		}
	}
}

// vtcodeAlwaysRequired reports whether the object schema doc requires key at
// its root or in every variant of its root oneOf.
func vtcodeAlwaysRequired(doc map[string]any, key string) bool {
	if slices.Contains(vtcodeStrings(doc["required"]), key) {
		return true
	}
	variants, _ := doc["oneOf"].([]any)
	for _, v := range variants {
		m, _ := v.(map[string]any)
		if !slices.Contains(vtcodeStrings(m["required"]), key) {
			return false
		}
	}
	return len(variants) > 0
}
