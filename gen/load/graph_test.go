package load

import (
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
}

// TestGraphBrokenRef: a $ref that names nothing is an error of Graph,
// located at the $ref, even where no type would use it.
func TestGraphBrokenRef(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.json": `{"title":"A","type":"string","$defs":{"X":{"$ref":"#/$defs/Missing"}}}`,
	})
	l := New()
	if err := l.AddPaths(dir); err != nil {
		t.Fatal(err)
	}
	_, err := l.Graph()
	if err == nil || !strings.Contains(err.Error(), "a.json#/$defs/X/$ref") || !strings.Contains(err.Error(), "#/$defs/Missing") {
		t.Fatalf("got %v, want an error at a.json#/$defs/X/$ref naming the missing pointer", err)
	}
}
