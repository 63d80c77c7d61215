package model_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/gen/model"
)

// aliasOf returns the type an alias names, or nil for a type of its own.
func aliasOf(t *testing.T, p *model.Package, name string) *model.Type {
	t.Helper()
	ty := typeNamed(t, p, name)
	if ty.Kind != model.Alias {
		return nil
	}
	return model.Resolve(ty.Under).Type
}

// TestShapesShared: schemas that ask the same of a value and describe
// nothing of their own are one Go type, the others aliases of it; a
// description, a different check or member, or two variants of one union
// keep types apart.
func TestShapesShared(t *testing.T) {
	p := build(t, `{"$defs":{
		"AOptions":{"type":"object","properties":{"n":{"type":"integer","maximum":3}},"additionalProperties":false},
		"BOptions":{"type":"object","properties":{"n":{"type":"integer","maximum":3}},"additionalProperties":false},
		"COptions":{"type":"object","properties":{"n":{"type":"integer","maximum":4}},"additionalProperties":false},
		"DOptions":{"description":"Options of rule D.","type":"object","properties":{"n":{"type":"integer","maximum":3}},"additionalProperties":false},
		"ARule":{"anyOf":[{"type":"string","enum":["on","off"]},{"type":"object","properties":{"options":{"$ref":"#/$defs/AOptions"}},"additionalProperties":false}]},
		"BRule":{"anyOf":[{"type":"string","enum":["on","off"]},{"type":"object","properties":{"options":{"$ref":"#/$defs/BOptions"}},"additionalProperties":false}]},
		"CRule":{"anyOf":[{"type":"string","enum":["on","off"]},{"type":"object","properties":{"options":{"$ref":"#/$defs/COptions"}},"additionalProperties":false}]},
		"AList":{"type":"object","properties":{"next":{"$ref":"#/$defs/AList"}}},
		"BList":{"type":"object","properties":{"next":{"$ref":"#/$defs/BList"}}},
		"AHolder":{"type":"object","properties":{"list":{"$ref":"#/$defs/AList"}}},
		"BHolder":{"type":"object","properties":{"list":{"$ref":"#/$defs/AList"}}},
		"AEvent":{"oneOf":[
			{"type":"object","properties":{"kind":{"const":"a"}},"required":["kind"]},
			{"type":"object","properties":{"kind":{"type":"string","not":{"enum":["a"]}}},"required":["kind"]}]},
		"BEvent":{"oneOf":[
			{"type":"object","properties":{"kind":{"const":"a"}},"required":["kind"]},
			{"type":"object","properties":{"kind":{"type":"string","not":{"enum":["a"]}},"ts":{"type":"string"}},"required":["kind","ts"]}]},
		"AMark":{"type":"object","properties":{"blend":{"description":"How A blends.","anyOf":[{"type":"string","enum":["x","y"]},{"type":"object","properties":{"expr":{"type":"string"}},"required":["expr"]}]}}},
		"BMark":{"type":"object","description":"B, unlike A.","properties":{"blend":{"description":"How B blends.","anyOf":[{"type":"string","enum":["x","y"]},{"type":"object","properties":{"expr":{"type":"string"}},"required":["expr"]}]}}},
		"AAngle":{"type":"object","properties":{"angle":{"anyOf":[{"type":"number","description":"The angle of A."},{"type":"object","properties":{"expr":{"type":"string"}},"required":["expr"]}]}}},
		"BAngle":{"type":"object","properties":{"angle":{"anyOf":[{"type":"number","description":"The angle of A."},{"type":"object","properties":{"expr":{"type":"string"}},"required":["expr"]}]}}},
		"AVariantDoc":{"anyOf":[{"type":"integer","description":"A count."},{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}]},
		"BVariantDoc":{"anyOf":[{"type":"integer","description":"A count."},{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]}]},
		"Shape":{"oneOf":[
			{"title":"Dot","type":"object","properties":{"kind":{"const":"dot"},"x":{"type":"number"}},"required":["kind"]},
			{"title":"Spot","type":"object","properties":{"kind":{"const":"spot"},"x":{"type":"number"}},"required":["kind"]}]}}}`)
	for _, c := range []struct{ name, same string }{
		{"BOptions", "AOptions"},
		{"BRule", "ARule"},
		{"BHolder", "AHolder"},       // holding a type on a cycle
		{"BMarkBlend", "AMarkBlend"}, // a member's inline schema, described
		{"BAngle", "AAngle"},         // a member's inline union, its alternatives described
	} {
		if got := aliasOf(t, p, c.name); got == nil || got.Name != c.same {
			t.Errorf("%s: an alias of %v, want of %s", c.name, got, c.same)
		}
		if d := typeNamed(t, p, c.name).Doc; !strings.HasSuffix(d, " is "+c.same+": their schemas ask the same of a value.") {
			t.Errorf("%s: doc %q", c.name, d)
		}
	}
	// A type on a cycle keeps its own code, even beside one of its shape.
	// BEvent's catch-all asks more than AEvent's.
	// A described union variant, inline or not, is a type of its own.
	for _, name := range []string{"AOptions", "COptions", "DOptions", "ARule", "CRule", "AList", "BList", "AHolder", "AEvent", "BEvent", "Dot", "Spot",
		"AVariantDocInteger", "BVariantDocInteger", "BMark"} {
		if got := aliasOf(t, p, name); got != nil {
			t.Errorf("%s is an alias of %s; want a type of its own", name, got.Name)
		}
	}
	// A described alias keeps its description.
	if d := typeNamed(t, p, "BMarkBlend").Doc; !strings.HasPrefix(d, "BMarkBlend is how B blends.") {
		t.Errorf("BMarkBlend's doc %q lost its description", d)
	}
	// An enum shared keeps its constants' names.
	want := [][2]string{{"BRuleStringValueOn", "ARuleStringValueOn"}, {"BRuleStringValueOff", "ARuleStringValueOff"}}
	if got := typeNamed(t, p, "BRuleStringValue").AlsoConsts; !reflect.DeepEqual(got, want) {
		t.Errorf("BRuleStringValue's constants: %v, want %v", got, want)
	}
	// The variants of the union that stays are its own, and each says so.
	rule := typeNamed(t, p, "ARule")
	for _, v := range rule.Union.Variants {
		if v.Type.Kind == model.Alias {
			t.Errorf("ARule's variant %s is an alias", v.Type.Name)
		}
		n := 0
		for _, u := range v.Type.Unions {
			if u.Union == typeNamed(t, p, "BRule") {
				t.Errorf("%s is still a variant of the alias BRule", v.Type.Name)
			}
			if u.Union == rule {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s lists ARule %d times among its unions", v.Type.Name, n)
		}
	}
}
