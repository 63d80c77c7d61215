package model_test

import (
	"testing"

	"github.com/agentproto/agentproto/gen/load"
	"github.com/agentproto/agentproto/gen/model"
)

// build models one schema document.
func build(t *testing.T, schema string) *model.Package {
	t.Helper()
	l := load.New()
	if _, err := l.AddBytes("s.json", "https://example.test/s.json", []byte(schema), true); err != nil {
		t.Fatal(err)
	}
	g, err := l.Graph()
	if err != nil {
		t.Fatal(err)
	}
	p, err := model.Build(g, model.Options{Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func typeNamed(t *testing.T, p *model.Package, name string) *model.Type {
	t.Helper()
	for _, ty := range p.Types {
		if ty.Name == name {
			return ty
		}
	}
	t.Fatalf("no type %s", name)
	return nil
}

// TestCompleteness: the model decides which types a strict decode plus
// Validate proves valid, and how to decide it per value where only a
// union's variants differ; emission only renders the decision.
func TestCompleteness(t *testing.T) {
	p := build(t, `{"$defs":{
		"Plain":{"type":"object","properties":{"a":{"type":"string","maxLength":3}},"required":["a"]},
		"Unique":{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"},"uniqueItems":true}}},
		"Shape":{"oneOf":[
			{"title":"Dot","type":"object","properties":{"kind":{"const":"dot"}},"required":["kind"]},
			{"title":"Set","type":"object","properties":{"kind":{"const":"set"},"l":{"type":"array","items":{"type":"string"},"uniqueItems":true}},"required":["kind"]}]},
		"Holder":{"type":"object","properties":{"shape":{"$ref":"#/$defs/Shape"}}}}}`)
	for name, want := range map[string]bool{"Plain": true, "Unique": false, "Dot": true, "Set": false, "Shape": false, "Holder": false} {
		if got := typeNamed(t, p, name).Complete; got != want {
			t.Errorf("%s: Complete = %v, want %v", name, got, want)
		}
	}
	shape := typeNamed(t, p, "Shape")
	if len(p.PartialUnions) != 1 || p.PartialUnions[0] != shape {
		t.Fatalf("PartialUnions = %v, want [Shape]", p.PartialUnions)
	}
	if shape.CompleteValue == nil {
		t.Error("Shape has no per-value completeness")
	}
	h := typeNamed(t, p, "Holder").CompleteValue
	if h == nil || len(h.Fields) != 1 || h.Fields[0].JSON != "shape" {
		t.Fatalf("Holder's per-value completeness = %+v, want its member shape", h)
	}
	if typeNamed(t, p, "Unique").CompleteValue != nil {
		t.Error("Unique is incomplete by its own keyword: no value can be proved")
	}
}
