package load

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGraphResolvesEveryRef: after Graph, every $ref of the inputs and of
// the documents they reach has its Target, across files and inside unused
// $defs, so modelling never resolves anything.
func TestGraphResolvesEveryRef(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.json": `{"$id":"https://example.test/a.json","title":"A","type":"object",
			"properties":{"b":{"$ref":"b.json#/$defs/B"},"self":{"items":{"$ref":"#"}}},
			"propertyNames":{"$ref":"#/$defs/C"},
			"$defs":{"Unused":{"anyOf":[{"$ref":"#/$defs/C"}]},"C":{"type":"string"}}}`,
		"b.json": `{"$id":"https://example.test/b.json","$defs":{"B":{"not":{"$ref":"#/$defs/D"}},"D":{"type":"null"}}}`,
	})
	l := New()
	if err := l.AddPaths(dir + "/a.json"); err != nil {
		t.Fatal(err)
	}
	if err := l.AddReferences(dir + "/b.json"); err != nil {
		t.Fatal(err)
	}
	g, err := l.Graph()
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Inputs()) != 1 || !strings.HasSuffix(g.Inputs()[0].File, "a.json") {
		t.Fatalf("inputs: %v", g.Inputs())
	}
	a := g.Inputs()[0].Root
	b := a.PropertyNamed("b").Target
	if b == nil || b.Loc.Pointer != "/$defs/B" || !strings.HasSuffix(b.Loc.File, "b.json") {
		t.Fatalf("b.json#/$defs/B resolved to %+v", b)
	}
	if d := b.Not.Target; d == nil || !d.HasType("null") {
		t.Fatalf("the $ref inside the referenced file is not resolved: %+v", d)
	}
	if s := a.PropertyNamed("self").Items.Target; s != a {
		t.Fatalf(`"#" resolved to %+v, not the root`, s)
	}
	if c := a.Defs[0].Schema.AnyOf[0].Target; c == nil || !c.HasType("string") {
		t.Fatalf("the $ref of an unused $defs entry is not resolved: %+v", c)
	}
	if c := a.PropertyNames.Target; c == nil || !c.HasType("string") {
		t.Fatalf("the $ref of propertyNames is not resolved: %+v", c)
	}
}

// TestGraphBrokenRef: a $ref that names nothing is a warning of Graph,
// located at the $ref, even where no type would use it, and its target is
// any JSON value: the run goes on, as a validator that skips it would.
func TestGraphBrokenRef(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.json": `{"title":"A","type":"string","$defs":{"X":{"$ref":"#/$defs/Missing"}}}`,
	})
	l, warnings := resolved(t, dir)
	if len(warnings) != 1 {
		t.Fatalf("warnings %v, want one", warnings)
	}
	w := warnings[0].Error()
	if !strings.Contains(w, "a.json#/$defs/X/$ref") || !strings.Contains(w, "#/$defs/Missing") || !strings.Contains(w, "any JSON value") {
		t.Fatalf("got %q, want a warning at a.json#/$defs/X/$ref naming the missing pointer and what it is taken as", w)
	}
	x := l.Inputs()[0].Root.Defs[0].Schema.Target
	if x == nil || x.Bool == nil || !*x.Bool {
		t.Fatalf("target %+v, want the schema true", x)
	}
}

// TestRefIntoGroup: a $ref may point into an object that groups schemas
// without being one, and into a schema embedded with its own $id by a
// pointer relative to that schema.
func TestRefIntoGroup(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.json": `{"title":"A","type":"object","properties":{
			"dev":{"$ref":"#/$defs/options/add/dev"},
			"st":{"$ref":"channel.json#/definitions/statement"}},
		  "$id":"http://example.com/a.json",
		  "$defs":{"options":{"add":{"dev":{"type":"boolean"}}},
		    "channel":{"$id":"http://example.com/channel.json","definitions":{"statement":{"type":"integer"}}}}}`,
	})
	l := resolvedClean(t, dir)
	a := l.Inputs()[0].Root
	if d := a.PropertyNamed("dev").Target; d == nil || !d.HasType("boolean") || d.Loc.Pointer != "/$defs/options/add/dev" {
		t.Fatalf("dev resolved to %+v", d)
	}
	if st := a.PropertyNamed("st").Target; st == nil || !st.HasType("integer") || st.Loc.Pointer != "/$defs/channel/definitions/statement" {
		t.Fatalf("st resolved to %+v", st)
	}
}

// TestRefBesideFile: a relative $ref names the file beside the referring
// one even when that file's $id is another URI (a renamed side file).
func TestRefBesideFile(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"in/bom.json":  `{"$id":"http://example.com/schema/bom.json","title":"Bom","type":"object","properties":{"l":{"$ref":"spdx.json"}}}`,
		"in/spdx.json": `{"$id":"http://other.example/spdx-2.json","type":"string","enum":["MIT","ISC"]}`,
	})
	l := resolvedClean(t, filepath.Join(dir, "in", "bom.json"))
	if s := l.Inputs()[0].Root.PropertyNamed("l").Target; s == nil || len(s.Enum) != 2 {
		t.Fatalf("l resolved to %+v", s)
	}
}

// TestRefAnchors: a $ref to an anchor resolves, whether the anchor is a
// 2019-09 $anchor or a draft-07 "$id": "#name" (which names a location and
// leaves the document's own URI alone).
func TestRefAnchors(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.json": `{"$id":"http://example.com/a.json","title":"A","type":"object","properties":{
			"x":{"$ref":"#thing"},"y":{"$ref":"b.json#old"}},
		  "$defs":{"T":{"$anchor":"thing","type":"string"}}}`,
		"b.json": `{"$schema":"http://json-schema.org/draft-07/schema#","$id":"http://example.com/b.json","definitions":{"O":{"$id":"#old","type":"integer"}}}`,
	})
	l := resolvedClean(t, dir)
	a := l.Inputs()[0].Root
	if x := a.PropertyNamed("x").Target; x == nil || !x.HasType("string") {
		t.Fatalf("x resolved to %+v", x)
	}
	if y := a.PropertyNamed("y").Target; y == nil || !y.HasType("integer") {
		t.Fatalf("y resolved to %+v", y)
	}
}

// resolvedClean loads the inputs at path, resolves them, and fails the
// test on an error or a warning.
func resolvedClean(t *testing.T, path string) *Loader {
	t.Helper()
	l, warnings := resolved(t, path)
	if len(warnings) != 0 {
		t.Fatalf("warnings %v", warnings)
	}
	return l
}

// resolved loads the inputs at path and resolves them, failing the test on
// an error, and returns the loader and Graph's warnings.
func resolved(t *testing.T, path string) (*Loader, []error) {
	t.Helper()
	l := New()
	if err := l.AddPaths(path); err != nil {
		t.Fatal(err)
	}
	g, err := l.Graph()
	if err != nil {
		t.Fatal(err)
	}
	return l, g.Warnings()
}

// TestRefToValueNotSchema: a $ref whose pointer reaches a value that
// cannot be a schema (a string) is a warning, not a failed run.
func TestRefToValueNotSchema(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.json": `{"title":"A","type":"object","properties":{"x":{"$ref":"#/$defs/group/name"}},"$defs":{"group":{"name":"not a schema"}}}`,
	})
	_, warnings := resolved(t, dir)
	if len(warnings) != 1 || !strings.Contains(warnings[0].Error(), "has no schema at #/$defs/group/name") {
		t.Fatalf("warnings %v, want one naming the pointer", warnings)
	}
}
