package model_test

import (
	"strings"
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
		"Gap":{"type":"object","properties":{"l":{"type":"array","items":{"type":"object"}}},"unevaluatedProperties":false},
		"Shape":{"oneOf":[
			{"title":"Dot","type":"object","properties":{"kind":{"const":"dot"}},"required":["kind"]},
			{"title":"Set","type":"object","properties":{"kind":{"const":"set"},"l":{"type":"array","items":{"type":"object"}}},"required":["kind"],"unevaluatedProperties":false}]},
		"Holder":{"type":"object","properties":{"shape":{"$ref":"#/$defs/Shape"}}}}}`)
	for name, want := range map[string]bool{"Plain": true, "Gap": false, "Dot": true, "Set": false, "Shape": false, "Holder": false} {
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
	if typeNamed(t, p, "Gap").CompleteValue != nil {
		t.Error("Gap is incomplete by its own keyword: no value can be proved")
	}
}

func field(t *testing.T, ty *model.Type, json string) *model.Field {
	t.Helper()
	for _, f := range ty.Struct.Fields {
		if f.JSON == json {
			return f
		}
	}
	t.Fatalf("%s has no member %q", ty.Name, json)
	return nil
}

// TestShapesGoCanHold: the shapes that used to give code Go rejects are
// modelled so that it accepts them.
func TestShapesGoCanHold(t *testing.T) {
	// A required self-reference is held by pointer, which Validate
	// requires to be set.
	p := build(t, `{"title":"Node","type":"object","properties":{"next":{"$ref":"#"},"v":{"type":"string"}},"required":["next","v"]}`)
	node := typeNamed(t, p, "Node")
	if f := field(t, node, "next"); !f.Indirect || f.Repr() != model.Pointer {
		t.Errorf("next: Indirect %v, Repr %v; want a pointer", f.Indirect, f.Repr())
	}
	if f := field(t, node, "v"); f.Indirect || f.Repr() != model.Value {
		t.Errorf("v is not on a cycle but is held as %v", f.Repr())
	}
	// Required mutual recursion: one member of the cycle is a pointer.
	p = build(t, `{"$defs":{"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"}},"required":["b"]},"B":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"required":["a"]}}}`)
	if a, b := field(t, typeNamed(t, p, "A"), "b"), field(t, typeNamed(t, p, "B"), "a"); a.Indirect == b.Indirect {
		t.Errorf("A.b indirect %v, B.a indirect %v: want exactly one pointer", a.Indirect, b.Indirect)
	}
	// A value listed twice is one constant.
	p = build(t, `{"title":"E","enum":["a","b","a"]}`)
	if vals := typeNamed(t, p, "E").Enum.Values; len(vals) != 2 {
		t.Errorf("%d constants, want 2", len(vals))
	}
	// Non-ASCII and empty member names get exported Go names; "" is kept.
	p = build(t, `{"title":"N","type":"object","properties":{"日本":{"type":"string"},"":{"type":"integer"}}}`)
	n := typeNamed(t, p, "N")
	if f := field(t, n, "日本"); f.Name != "X日本" {
		t.Errorf("日本 is field %s", f.Name)
	}
	if f := field(t, n, ""); f.Name != "Empty" {
		t.Errorf(`"" is field %s`, f.Name)
	}
}

// TestRecursionGuard: on a type that contains itself, the checks that
// decode or encode a value again are left out (they would repeat at every
// level of nesting, a cost that grows with depth times size) and their
// keywords are reported instead; a type that does not contain itself keeps
// them.
func TestRecursionGuard(t *testing.T) {
	p := build(t, `{"$defs":{
		"Tree":{"type":"object","properties":{"kind":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#/$defs/Tree"},"uniqueItems":true}},
			"additionalProperties":{"$ref":"#/$defs/Tree"},
			"if":{"properties":{"kind":{"const":"leaf"}},"required":["kind"]},"then":{"properties":{"kids":{"maxItems":0}}}},
		"Node":{"oneOf":[
			{"type":"object","properties":{"a":{"$ref":"#/$defs/Node"}},"required":["a"]},
			{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]}]},
		"Flat":{"type":"object","properties":{"kind":{"type":"string"},"l":{"type":"array","items":{"type":"object"},"uniqueItems":true}},
			"additionalProperties":{"type":"number"},
			"if":{"properties":{"kind":{"const":"x"}},"required":["kind"]},"then":{"properties":{"l":{"minItems":1}}}}}}`)
	tree := typeNamed(t, p, "Tree")
	if tree.Struct.Cond != nil || tree.Struct.Extra != nil || tree.Complete {
		t.Errorf("Tree keeps checks that repeat at every level: cond %v, extra %v, complete %v", tree.Struct.Cond, tree.Struct.Extra, tree.Complete)
	}
	for _, want := range []string{"if", "kids: uniqueItems"} {
		found := false
		for _, u := range tree.Unchecked {
			found = found || u == want
		}
		if !found {
			t.Errorf("Tree's unchecked list %q lacks %q", tree.Unchecked, want)
		}
	}
	for _, ty := range p.Types {
		if ty.Name == "ifTree" || ty.Name == "thenTree" {
			t.Errorf("the condition type %s of a recursive type is still generated", ty.Name)
		}
	}
	if node := typeNamed(t, p, "Node"); !node.Union.NoTrial || node.Union.OnlyOne {
		t.Errorf("Node: NoTrial %v, OnlyOne %v; want trial decoding and the one-variant check left out", node.Union.NoTrial, node.Union.OnlyOne)
	}
	flat := typeNamed(t, p, "Flat")
	if flat.Struct.Cond == nil || flat.Struct.Extra == nil || !flat.Complete {
		t.Errorf("Flat, which does not contain itself, lost its checks: cond %v, extra %v, complete %v (%q)", flat.Struct.Cond, flat.Struct.Extra, flat.Complete, flat.Unchecked)
	}
}

// buildMapped models one input document that refers to a second one, which
// the Go package at example.test/lib holds; generated says whether that
// package was generated from the second document by the same rules.
func buildMapped(t *testing.T, schema, lib string, generated bool) *model.Package {
	t.Helper()
	l := load.New()
	if _, err := l.AddBytes("s.json", "https://example.test/s.json", []byte(schema), true); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AddBytes("lib.json", "https://example.test/lib/lib.json", []byte(lib), false); err != nil {
		t.Fatal(err)
	}
	g, err := l.Graph()
	if err != nil {
		t.Fatal(err)
	}
	maps := []model.Mapping{{Prefix: "https://example.test/lib/", Path: "example.test/lib", Generated: generated}}
	p, err := model.Build(g, model.Options{Package: "p", Maps: maps})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCompletenessAcrossPackages: a type that holds a type of a package
// generated from the same schemas is complete when that type is, as if it
// were generated here; a type of a package that may be written by hand
// proves nothing, so a type that holds it is not complete.
func TestCompletenessAcrossPackages(t *testing.T) {
	const lib = `{"$defs":{
		"Block":{"oneOf":[
			{"title":"Text","type":"object","properties":{"type":{"const":"text"},"text":{"type":"string","minLength":1}},"required":["type","text"]},
			{"title":"Image","type":"object","properties":{"type":{"const":"image"},"uri":{"type":"string","format":"uri"}},"required":["type","uri"]}]},
		"Loose":{"type":"object","properties":{"l":{"type":"array","items":{"type":"object"}}},"unevaluatedProperties":false},
		"Tree":{"type":"object","properties":{"kind":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#/$defs/Tree"}}},
			"if":{"properties":{"kind":{"const":"leaf"}},"required":["kind"]},"then":{"properties":{"kids":{"maxItems":0}}}}}}`
	const schema = `{"$defs":{
		"Msg":{"type":"object","properties":{"blocks":{"type":"array","items":{"$ref":"lib/lib.json#/$defs/Block"}}},"required":["blocks"]},
		"Holder":{"type":"object","properties":{"loose":{"$ref":"lib/lib.json#/$defs/Loose"}}},
		"Forest":{"type":"object","properties":{"trees":{"type":"array","items":{"$ref":"lib/lib.json#/$defs/Tree"}}}}}}`
	p := buildMapped(t, schema, lib, true)
	for _, ty := range p.Types {
		if ty.External != nil || ty.Name == "Block" || ty.Name == "Text" {
			t.Errorf("the mapped type %s is generated here", ty.Name)
		}
	}
	// Holder holds a mapped type that is incomplete in its own package,
	// and Forest one that contains itself, whose if/then its package
	// leaves out.
	for name, want := range map[string]bool{"Msg": true, "Holder": false, "Forest": false} {
		if got := typeNamed(t, p, name).Complete; got != want {
			t.Errorf("generated package: %s: Complete = %v, want %v", name, got, want)
		}
	}
	p = buildMapped(t, schema, lib, false)
	for _, name := range []string{"Msg", "Holder", "Forest"} {
		if typeNamed(t, p, name).Complete {
			t.Errorf("package that may be written by hand: %s is complete", name)
		}
	}
}

// TestCompletenessOfCycles: the types of a cycle hold each other, so one
// gap on the cycle makes each of them incomplete, whichever is asked about
// first (here A, whose $id sorts first, reaches the gap in B only after C).
func TestCompletenessOfCycles(t *testing.T) {
	p := build(t, `{"$defs":{
		"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"}}},
		"B":{"type":"object","properties":{"c":{"$ref":"#/$defs/C"},"p":{"type":"string","pattern":"^(?=x)"}}},
		"C":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}}},
		"D":{"type":"object","properties":{"d":{"$ref":"#/$defs/D"},"s":{"type":"string"}}}}}`)
	for name, want := range map[string]bool{"A": false, "B": false, "C": false, "D": true} {
		if got := typeNamed(t, p, name).Complete; got != want {
			t.Errorf("%s: Complete = %v, want %v", name, got, want)
		}
	}
}

// TestCompletenessOfOpenUnions: a tagged union with a catch-all
// alternative is complete when the catch-all asks nothing that decoding a
// value as the Unknown variant does not ensure (an object whose tag is a
// string no variant lists), or when all it asks more (a member, a pattern
// on the tag, a not that excludes more than the listed tags) is what the
// catch-all's own type (Other) checks, and that type is complete. It stays
// incomplete when a listed tag would also fit the catch-all (no not, or
// one that excludes too few), when the tag is not a string, or when the
// union adds keywords of its own. A default variant that forbids the tag
// takes only values without one, so it leaves the catch-all's values to
// it.
func TestCompletenessOfOpenUnions(t *testing.T) {
	const variants = `{"title":"%sA","type":"object","properties":{"kind":{"const":"a"},"n":{"type":"integer","minimum":1}},"required":["kind","n"]},
		{"title":"%sB","type":"object","properties":{"kind":{"const":"b"}},"required":["kind"]}`
	catchAll := func(tag string, more string) string {
		return `{"title":"%sOther","description":"Any other kind.","type":"object","properties":{"kind":` + tag + `,"note":{"description":"Anything."}` + more + `},"required":["kind"]}`
	}
	const notListed = `{"type":"string","description":"Unlisted.","not":{"enum":["a","b"]}}`
	cases := []struct {
		name     string
		alts     string // after the variants
		union    string // the union's own keywords
		complete bool
	}{
		{"Plain", catchAll(notListed, ""), "", true},
		{"ObjectTyped", catchAll(notListed, ""), `"type":"object",`, true},
		// Other checks the member and the pattern.
		{"Member", catchAll(notListed, `,"at":{"type":"string","format":"date-time"}`), "", true},
		{"Pattern", catchAll(`{"type":"string","pattern":"^x-","not":{"enum":["a","b"]}}`, ""), "", true},
		// A pattern no listed tag matches excludes them as a not would.
		{"PatternOnly", catchAll(`{"type":"string","pattern":"^x-"}`, ""), "", true},
		// A listed tag would fit the catch-all too: not Other's to decide.
		{"NoNot", catchAll(`{"type":"string"}`, ""), "", false},
		{"NotTooFew", catchAll(`{"type":"string","not":{"const":"a"}}`, ""), "", false},
		// Other rejects the unlisted tag c that the not excludes.
		{"NotTooMany", catchAll(`{"type":"string","not":{"enum":["a","b","c"]}}`, ""), "", true},
		// A member whose format Validate does not check leaves Other
		// incomplete, and the union with it.
		{"MemberGap", catchAll(notListed, `,"at":{"type":"string","format":"idn-email"}`), "", false},
		{"Untyped", catchAll(`{"not":{"enum":["a","b"]}}`, ""), "", false},
		{"OwnKeywords", catchAll(notListed, ""), `"required":["id"],`, false},
	}
	var defs []string
	for _, c := range cases {
		alts := strings.ReplaceAll(variants+",\n"+c.alts, "%s", c.name)
		defs = append(defs, `"`+c.name+`":{`+c.union+`"oneOf":[`+alts+`]}`)
	}
	// A required member beside the tag, in an anyOf.
	defs = append(defs, `"Required":{"anyOf":[`+strings.ReplaceAll(variants, "%s", "Required")+`,
		{"title":"RequiredOther","type":"object","properties":{"kind":`+notListed+`,"at":{}},"required":["kind","at"]}]}`)
	// A default that forbids the tag, and one that does not.
	defs = append(defs, `"Forbids":{"oneOf":[`+strings.ReplaceAll(variants, "%s", "Forbids")+`,
		{"title":"ForbidsPlain","type":"object","properties":{"kind":{"not":{}},"v":{"type":"string"}},"required":["v"]},
		`+strings.ReplaceAll(catchAll(notListed, ""), "%s", "Forbids")+`]}`)
	defs = append(defs, `"Takes":{"oneOf":[`+strings.ReplaceAll(variants, "%s", "Takes")+`,
		{"title":"TakesPlain","type":"object","properties":{"v":{"type":"string"}},"required":["v"]},
		`+strings.ReplaceAll(catchAll(notListed, ""), "%s", "Takes")+`]}`)
	p := build(t, `{"$defs":{`+strings.Join(defs, ",\n")+`}}`)
	want := map[string]bool{"Required": true, "Forbids": true, "Takes": false}
	for _, c := range cases {
		want[c.name] = c.complete
	}
	for name, complete := range want {
		u := typeNamed(t, p, name)
		if u.Kind == model.Alias {
			// A union of the same shape as another is that one.
			u = model.Resolve(u.Under).Type
		}
		if u.Union == nil || !u.Union.Open {
			t.Errorf("%s is not an open union", name)
			continue
		}
		if u.Complete != complete {
			t.Errorf("%s: Complete = %v, want %v (the catch-all asks %q)", name, u.Complete, complete, u.Union.OpenAsks)
		}
		if complete && len(u.Union.OpenAsks) > 0 {
			t.Errorf("%s: the catch-all asks %q; want it to ask nothing", name, u.Union.OpenAsks)
		}
		// A catch-all asks nothing beyond decoding, or is a type of its
		// own whose completeness the union's follows.
		if o := u.Union.Other; o != nil && (o.Complete != u.Complete || len(u.Union.OpenAsks) > 0) {
			t.Errorf("%s: Other complete %v, union complete %v, asks %q", name, o.Complete, u.Complete, u.Union.OpenAsks)
		}
	}
	for name, other := range map[string]bool{"Plain": false, "Member": true, "Pattern": true, "NotTooMany": true, "MemberGap": true, "Required": true, "NoNot": false, "Takes": false} {
		if got := typeNamed(t, p, name).Union.Other != nil; got != other {
			t.Errorf("%s: catch-all made a type of its own: %v, want %v", name, got, other)
		}
	}
	// The catch-all's type holds the tag, constrained as the schema says.
	o := typeNamed(t, p, "Pattern").Union.Other
	if f := field(t, o, "kind"); f.Type.Kind != model.Builtin || f.Type.Check.Pattern != "^x-" || len(f.Type.Check.NotEnum) != 2 || !f.Required {
		t.Errorf("Pattern's catch-all tag: %+v", f.Type)
	}
	if u := typeNamed(t, p, "Forbids").Union; u.Default == nil || u.DefaultTakesOthers {
		t.Errorf("Forbids: default %v, DefaultTakesOthers %v; want a default that takes only values without the tag", u.Default, u.DefaultTakesOthers)
	}
	// An incomplete variant makes the open union incomplete too, but its
	// other variants' values (and unlisted tags) are still proved.
	p = build(t, `{"$defs":{"U":{"oneOf":[
		{"title":"Gap","type":"object","properties":{"kind":{"const":"a"},"l":{"type":"array","items":{"type":"object"}}},"required":["kind"],"unevaluatedProperties":false},
		{"title":"Fine","type":"object","properties":{"kind":{"const":"b"}},"required":["kind"]},
		{"title":"Rest","type":"object","properties":{"kind":{"type":"string","not":{"enum":["a","b"]}}},"required":["kind"]}]}}}`)
	if u := typeNamed(t, p, "U"); u.Complete || u.CompleteValue == nil {
		t.Errorf("U: Complete %v, per-value check %v; want incomplete, decided per value", u.Complete, u.CompleteValue)
	}
}

// TestGapsNamed: the warning and doc sentence of what Validate does not
// check name the format or pattern, an alternative's included.
func TestGapsNamed(t *testing.T) {
	p := build(t, `{"$defs":{"S":{"oneOf":[{"type":"string","format":"x-unknown"},{"type":"string","maxLength":2}]}}}`)
	var got []string
	for _, w := range p.Warnings {
		got = append(got, w.Error())
	}
	all := strings.Join(got, "\n")
	if !strings.Contains(all, "does not check: format x-unknown") {
		t.Errorf("warnings %q do not name the alternative's format", got)
	}
	if d := typeNamed(t, p, "S").Doc; !strings.Contains(d, "Validate does not check: format x-unknown.") {
		t.Errorf("doc %q does not name the alternative's format", d)
	}
	p = build(t, `{"$defs":{"M":{"type":"object","propertyNames":{"format":"x-name"},"additionalProperties":{"type":"integer"}}}}`)
	if d := typeNamed(t, p, "M").Doc; !strings.Contains(d, "member names: format x-name") {
		t.Errorf("doc %q does not name the member names' format", d)
	}
}
