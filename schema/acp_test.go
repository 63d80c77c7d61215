// The ACP v1 schemas (schema/acp/v1): the shared helpers of their tests
// (loading, compiling, walking a schema) and the testdata check. The
// conventions, schema locations and dispatch table are tested in
// acp_conventions_test.go, acp_refs_test.go and acp_dispatch_test.go.

package schema_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/big"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/schema"
	"github.com/agentproto/agentproto/schema/compile"
)

// acpDir is the folder of the ACP v1 schemas inside schema.Files.
const acpDir = "acp/v1"

// acpURL returns the $id of a file in acpDir.
func acpURL(file string) string { return schema.IDPrefix + acpDir + "/" + file }

// acpMethods is every method of ACP v1 stable. The dispatch table must list
// exactly these (and, with ../shared, exactly the methods of meta.json).
var acpMethods = []string{
	"initialize", "authenticate", "logout",
	"session/new", "session/load", "session/list", "session/delete", "session/resume", "session/close",
	"session/set_mode", "session/set_config_option", "session/prompt", "session/cancel", "session/update",
	"session/request_permission", "fs/read_text_file", "fs/write_text_file",
	"terminal/create", "terminal/output", "terminal/release", "terminal/wait_for_exit", "terminal/kill",
	"elicitation/create", "elicitation/complete", "$/cancel_request",
}

// acpDecodeJSON decodes JSON the way the validator does (numbers kept exact).
func acpDecodeJSON(data []byte) (any, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decoding JSON: %w", err)
	}
	return v, nil
}

// acpDoc returns the decoded content of an embedded file below acpDir.
func acpDoc(t testing.TB, file string) any {
	t.Helper()
	data, err := fs.ReadFile(schema.Files, acpDir+"/"+file)
	if err != nil {
		t.Fatalf("reading %s: %v", file, err)
	}
	v, err := acpDecodeJSON(data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return v
}

// acpSchemaFiles lists the schema files below acpDir (base names).
func acpSchemaFiles(t testing.TB) []string {
	t.Helper()
	paths, err := schema.Paths(acpDir)
	if err != nil {
		t.Fatalf("listing schemas: %v", err)
	}
	var out []string
	for _, p := range paths {
		out = append(out, path.Base(p))
	}
	if len(out) == 0 {
		t.Fatal("no schema files below " + acpDir)
	}
	return out
}

// acpSchemaSet compiles schemas by URL once and caches them; safe for parallel use.
type acpSchemaSet struct {
	name string
	c    *jsonschema.Compiler
	mu   sync.Mutex
	m    map[string]*jsonschema.Schema
}

func acpNewSchemaSet(name string, c *jsonschema.Compiler) *acpSchemaSet {
	return &acpSchemaSet{name: name, c: c, m: map[string]*jsonschema.Schema{}}
}

func (s *acpSchemaSet) get(url string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.m[url]; ok {
		return sch, nil
	}
	sch, err := s.c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("%s: compiling %s: %w", s.name, url, err)
	}
	s.m[url] = sch
	return sch, nil
}

// validate returns nil when v is valid under the schema at url.
func (s *acpSchemaSet) validate(t testing.TB, url string, v any) error {
	t.Helper()
	sch, err := s.get(url)
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(v)
}

var (
	acpOursOnce sync.Once
	acpOursSet  *acpSchemaSet
	acpOursErr  error
)

// acpOurs returns the compiled embedded schemas (schema.NewCompiler).
func acpOurs(t testing.TB) *acpSchemaSet {
	t.Helper()
	acpOursOnce.Do(func() {
		c, err := compile.New()
		if err != nil {
			acpOursErr = err
			return
		}
		acpOursSet = acpNewSchemaSet("ours", c)
	})
	if acpOursErr != nil {
		t.Fatal(acpOursErr)
	}
	if acpOursSet == nil {
		t.Fatal("the embedded schemas could not be compiled (see the first failing test)")
	}
	return acpOursSet
}

var (
	acpPointerEscape   = strings.NewReplacer("~", "~0", "/", "~1")
	acpPointerUnescape = strings.NewReplacer("~1", "/", "~0", "~")
)

// acpJSONPointer joins escaped reference tokens into a JSON pointer.
func acpJSONPointer(tokens ...string) string {
	var b strings.Builder
	for _, tok := range tokens {
		b.WriteByte('/')
		b.WriteString(acpPointerEscape.Replace(tok))
	}
	return b.String()
}

// acpFirstLine shortens a validation error for a test message.
func acpFirstLine(err error) string {
	if err == nil {
		return "valid"
	}
	s := err.Error()
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}

// ---------------------------------------------------------------- schema walking

// acpSchemaKeywords are the draft 2020-12 keywords; with x-go-name they are the
// only keys a schema object may have.
var acpSchemaKeywords = map[string]bool{
	"$schema": true, "$id": true, "$ref": true, "$defs": true, "$anchor": true, "$dynamicRef": true,
	"$dynamicAnchor": true, "$vocabulary": true, "$comment": true,
	"title": true, "description": true, "default": true, "examples": true, "deprecated": true,
	"readOnly": true, "writeOnly": true,
	"type": true, "enum": true, "const": true, "multipleOf": true, "maximum": true, "exclusiveMaximum": true,
	"minimum": true, "exclusiveMinimum": true, "maxLength": true, "minLength": true, "pattern": true,
	"maxItems": true, "minItems": true, "uniqueItems": true, "maxContains": true, "minContains": true,
	"maxProperties": true, "minProperties": true, "required": true, "dependentRequired": true,
	"properties": true, "patternProperties": true, "additionalProperties": true, "propertyNames": true,
	"items": true, "prefixItems": true, "contains": true, "allOf": true, "anyOf": true, "oneOf": true,
	"not": true, "if": true, "then": true, "else": true, "dependentSchemas": true,
	"unevaluatedItems": true, "unevaluatedProperties": true,
	"format": true, "contentEncoding": true, "contentMediaType": true, "contentSchema": true,
	"x-go-name": true,
}

// acpSchemaRole says where a subschema sits in its parent.
type acpSchemaRole int

const (
	acpRoleRoot acpSchemaRole = iota
	acpRoleDef
	acpRoleProperty
	acpRoleVariant // element of oneOf or anyOf
	acpRoleOther
)

// acpWalkSchema calls visit for every schema object below node (node included),
// with its JSON pointer inside the file and its role.
func acpWalkSchema(node any, ptr string, role acpSchemaRole, visit func(ptr string, m map[string]any, role acpSchemaRole)) {
	m, ok := node.(map[string]any)
	if !ok {
		return
	}
	visit(ptr, m, role)
	for _, k := range acpSortedKeys(m) {
		v := m[k]
		switch k {
		case "$defs", "properties", "patternProperties", "dependentSchemas":
			sub, _ := v.(map[string]any)
			r := acpRoleOther
			switch k {
			case "$defs":
				r = acpRoleDef
			case "properties":
				r = acpRoleProperty
			}
			for _, name := range acpSortedKeys(sub) {
				acpWalkSchema(sub[name], ptr+acpJSONPointer(k, name), r, visit)
			}
		case "additionalProperties", "propertyNames", "items", "contains", "not", "if", "then", "else",
			"unevaluatedItems", "unevaluatedProperties", "contentSchema":
			acpWalkSchema(v, ptr+acpJSONPointer(k), acpRoleOther, visit)
		case "allOf", "anyOf", "oneOf", "prefixItems":
			arr, _ := v.([]any)
			r := acpRoleOther
			if k == "anyOf" || k == "oneOf" {
				r = acpRoleVariant
			}
			for i, e := range arr {
				acpWalkSchema(e, ptr+acpJSONPointer(k, fmt.Sprint(i)), r, visit)
			}
		}
	}
}

func acpSortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// acpTypeList returns the "type" keyword as a list.
func acpTypeList(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

var acpPascalCase = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)

// ---------------------------------------------------------------- testdata
// acpBigInt parses an exact JSON integer, or returns nil.
func acpBigInt(v any) *big.Int {
	n, ok := v.(json.Number)
	if !ok {
		return nil
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() {
		return nil
	}
	return r.Num()
}

// The hand-written instances in testdata are valid under our schemas (the
// differential test also checks them against the official schema).
func TestACPTestdataValid(t *testing.T) {
	set := acpOurs(t)
	types := acpOurTypes(t)
	ins := acpLoadTestdataInstances(t)
	for _, in := range ins {
		url, ok := types[in.typ]
		if !ok {
			t.Errorf("%s: no schema named %s", in.name, in.typ)
			continue
		}
		if err := set.validate(t, url, in.value); err != nil {
			t.Errorf("%s: %s", in.name, acpFirstLine(err))
		}
	}
	t.Logf("%d instances valid", len(ins))
}
