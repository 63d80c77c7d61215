package schema_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/schema"
	"github.com/agentproto/agentproto/schema/compile"
)

// The VT Code client's HTTP dialect of ACP: schema/acp/vtcode and its traces
// in fixtures/acp-vtcode. These tests read nothing outside the repository.
// This file loads the dialect's table and schemas; the schema checks, the
// reading of a trace and the trace tests are in acp_vtcode_schema_test.go,
// acp_vtcode_dispatch_test.go and acp_vtcode_traces_test.go.

const (
	vtcodeDir      = "acp/vtcode"
	vtcodeFixtures = "../fixtures/acp-vtcode"
	vtcodeDraft    = "https://json-schema.org/draft/2020-12/schema"
)

var vtcodePascal = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)

// vtcodeKeywords are the draft 2020-12 keywords; with x-go-name they are the
// only keys a schema object may carry.
var vtcodeKeywords = map[string]bool{
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

// ---------------------------------------------------------------- loading

// vtcodeDispatch is schema/acp/vtcode/dispatch.json.
type vtcodeDispatch struct {
	Protocol string              `json:"protocol"`
	Version  string              `json:"version"`
	Envelope string              `json:"envelope"`
	Methods  []vtcodeMethodEntry `json:"methods"`
	Records  []vtcodeRecordEntry `json:"records"`
}

type vtcodeMethodEntry struct {
	Method  string `json:"method"`
	Kind    string `json:"kind"`
	Handler string `json:"handler"`
	Params  string `json:"params"`
	Result  string `json:"result"`
}

type vtcodeRecordEntry struct {
	Record    string   `json:"record"`
	Handler   string   `json:"handler"`
	Transport string   `json:"transport"`
	Keys      []string `json:"keys"`
	Schema    string   `json:"schema"`
}

func (d *vtcodeDispatch) method(name string) (vtcodeMethodEntry, bool) {
	for _, m := range d.Methods {
		if m.Method == name {
			return m, true
		}
	}
	return vtcodeMethodEntry{}, false
}

// record returns the record whose keys are all members of obj.
func (d *vtcodeDispatch) record(obj map[string]any) (vtcodeRecordEntry, bool) {
	for _, r := range d.Records {
		all := len(r.Keys) > 0
		for _, k := range r.Keys {
			if _, ok := obj[k]; !ok {
				all = false
			}
		}
		if all {
			return r, true
		}
	}
	return vtcodeRecordEntry{}, false
}

func vtcodeLoadDispatch(t testing.TB, dir string) *vtcodeDispatch {
	t.Helper()
	b, err := fs.ReadFile(schema.Files, path.Join(dir, schema.DispatchTable))
	if err != nil {
		t.Fatalf("reading %s dispatch table: %v", dir, err)
	}
	var d vtcodeDispatch
	dec := json.NewDecoder(bytes.NewReader(b))
	if dir == vtcodeDir {
		// Other tables have members this test does not use; this one has
		// none the test does not know.
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("%s/dispatch.json: %v", dir, err)
	}
	return &d
}

func vtcodePaths(t testing.TB) []string {
	t.Helper()
	paths, err := schema.Paths(vtcodeDir)
	if err != nil {
		t.Fatalf("listing %s: %v", vtcodeDir, err)
	}
	if len(paths) == 0 {
		t.Fatalf("no schema files under %s", vtcodeDir)
	}
	return paths
}

func vtcodeDoc(t testing.TB, p string) map[string]any {
	t.Helper()
	b, err := fs.ReadFile(schema.Files, p)
	if err != nil {
		t.Fatalf("reading %s: %v", p, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return doc
}

// vtcodeSchemas compiles each schema URL once.
type vtcodeSchemas struct {
	c    *jsonschema.Compiler
	seen map[string]*jsonschema.Schema
}

func vtcodeNewSchemas(t testing.TB) *vtcodeSchemas {
	t.Helper()
	c, err := compile.New()
	if err != nil {
		t.Fatalf("NewCompiler: %v", err)
	}
	return &vtcodeSchemas{c: c, seen: map[string]*jsonschema.Schema{}}
}

func (s *vtcodeSchemas) get(url string) (*jsonschema.Schema, error) {
	if sch, ok := s.seen[url]; ok {
		return sch, nil
	}
	sch, err := s.c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", url, err)
	}
	s.seen[url] = sch
	return sch, nil
}

func vtcodeURL(dir, file string) string { return schema.IDPrefix + path.Join(dir, file) }

// vtcodeInstance decodes JSON the way the validator expects (json.Number).
func vtcodeInstance(b []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// ---------------------------------------------------------------- schema walking

func vtcodeTypes(m map[string]any) []string {
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

func vtcodeStrings(v any) []string {
	arr, _ := v.([]any)
	var out []string
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
