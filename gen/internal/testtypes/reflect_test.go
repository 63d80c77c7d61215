package testtypes_test

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"

	"github.com/agentproto/agentproto/gen/internal/testtypes/kitchen"
)

// TestReflectionAgreesWithSource reflects generated structs back to JSON
// Schema with invopop/jsonschema and compares them with the schemas they
// came from: the same properties, the same required set, the same JSON
// types.
//
// What reflection cannot see, and the test leaves out: members with a
// const value (not stored in Go; the encoder writes them), unions (a sealed
// Go interface reflects as any value), raw JSON members, and constraints
// such as patterns and bounds (checked by the generated Validate instead).
func TestReflectionAgreesWithSource(t *testing.T) {
	src := loadDefs(t, "../../testdata/kitchen/shapes.json", "../../testdata/kitchen/common.json")
	r := &jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, AllowAdditionalProperties: true}
	r.Mapper = func(t reflect.Type) *jsonschema.Schema {
		// wire.Opt[T] stands for T (or null, or absent).
		if t.PkgPath() == "github.com/agentproto/agentproto/pkg/wire" && strings.HasPrefix(t.Name(), "Opt[") {
			inner := r.ReflectFromType(t.Field(0).Type)
			inner.Version = ""
			return inner
		}
		return nil
	}
	for name, v := range map[string]any{
		"Envelope": kitchen.Envelope{}, "Limits": kitchen.Limits{}, "Point": kitchen.Point{},
		"Chunk": kitchen.Chunk{}, "Moved": kitchen.Moved{}, "Strict": kitchen.Strict{},
	} {
		t.Run(name, func(t *testing.T) {
			want := src[name]
			if want == nil {
				t.Fatalf("no source schema %s", name)
			}
			got := r.Reflect(v)
			consts := map[string]bool{}
			for p, s := range want.Properties {
				if _, ok := s["const"]; ok {
					consts[p] = true
				}
			}
			var wantProps, gotProps []string
			for p := range want.Properties {
				if !consts[p] {
					wantProps = append(wantProps, p)
				}
			}
			for pair := got.Properties.Oldest(); pair != nil; pair = pair.Next() {
				gotProps = append(gotProps, pair.Key)
			}
			sort.Strings(wantProps)
			sort.Strings(gotProps)
			if strings.Join(wantProps, ",") != strings.Join(gotProps, ",") {
				t.Errorf("properties\n got %v\nwant %v", gotProps, wantProps)
			}
			var wantReq []string
			for _, p := range want.Required {
				if !consts[p] {
					wantReq = append(wantReq, p)
				}
			}
			gotReq := append([]string(nil), got.Required...)
			sort.Strings(wantReq)
			sort.Strings(gotReq)
			if strings.Join(wantReq, ",") != strings.Join(gotReq, ",") {
				t.Errorf("required\n got %v\nwant %v", gotReq, wantReq)
			}
			for p, s := range want.Properties {
				wt := jsonType(s, src)
				if wt == "" || consts[p] {
					continue
				}
				ps, ok := got.Properties.Get(p)
				if !ok {
					continue
				}
				if ps.Type != wt {
					t.Errorf("property %s: reflected type %q, source type %q", p, ps.Type, wt)
				}
			}
		})
	}
}

type srcSchema struct {
	Type       any                       `json:"type"`
	Ref        string                    `json:"$ref"`
	AllOf      []map[string]any          `json:"allOf"`
	AnyOf      []map[string]any          `json:"anyOf"`
	OneOf      []map[string]any          `json:"oneOf"`
	Properties map[string]map[string]any `json:"properties"`
	Required   []string                  `json:"required"`
	Enum       []any                     `json:"enum"`
	Defs       map[string]*srcSchema     `json:"$defs"`
}

func loadDefs(t *testing.T, files ...string) map[string]*srcSchema {
	t.Helper()
	out := map[string]*srcSchema{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s srcSchema
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, "shapes.json") {
			out["Envelope"] = &s
		}
		for k, d := range s.Defs {
			out[k] = d
		}
	}
	return out
}

// jsonType is the JSON type a property's Go field must reflect as, or ""
// where reflection cannot tell (unions, raw JSON, consts).
func jsonType(s map[string]any, defs map[string]*srcSchema) string {
	if ref, ok := s["$ref"].(string); ok {
		d := defs[ref[strings.LastIndex(ref, "/")+1:]]
		if d == nil || len(d.OneOf) > 0 || len(d.AnyOf) > 0 {
			return ""
		}
		if tt, ok := d.Type.(string); ok {
			return tt
		}
		if len(d.Properties) > 0 {
			return "object"
		}
		return ""
	}
	if all, ok := s["allOf"].([]any); ok && len(all) == 1 {
		return jsonType(all[0].(map[string]any), defs)
	}
	if anyOf, ok := s["anyOf"].([]any); ok && len(anyOf) == 2 {
		for _, a := range anyOf {
			if m := a.(map[string]any); m["type"] != "null" {
				return jsonType(m, defs)
			}
		}
	}
	switch tt := s["type"].(type) {
	case string:
		if tt == "object" {
			if ap, ok := s["additionalProperties"]; ok && ap == true {
				return "" // raw JSON
			}
		}
		return tt
	case []any:
		for _, x := range tt {
			if x != "null" {
				if x == "object" {
					return ""
				}
				return x.(string)
			}
		}
	}
	return ""
}
