package gen_test

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"slices"
	"testing"

	"github.com/agentproto/agentproto/gen"
)

// declarations are the top-level declarations of Go source, each printed
// on its own, sorted: two outputs with the same declarations in another
// order have the same list.
func declarations(t *testing.T, src []byte) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			continue
		}
		var b bytes.Buffer
		if err := format.Node(&b, fset, d); err != nil {
			t.Fatal(err)
		}
		out = append(out, b.String())
	}
	slices.Sort(out)
	return out
}

// TestRecursiveUnionEitherOrder: a tagged union one of whose variants
// holds the union again generates the same declarations whether the
// variant's schema or the union's comes first (the LSP meta-model lists
// the variant first): the variant whose struct is still being filled when
// the union is made writes its tag once, as its own const member.
func TestRecursiveUnionEitherOrder(t *testing.T) {
	var got [][]string
	for _, f := range []string{"testdata/differential/recursive.json", "testdata/order/unionfirst.json"} {
		src, err := gen.Generate(gen.Config{Inputs: []string{f}, Package: "recursive"})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		got = append(got, declarations(t, src))
	}
	if !slices.Equal(got[0], got[1]) {
		for _, d := range got[0] {
			if !slices.Contains(got[1], d) {
				t.Errorf("only with the variant first:\n%s", d)
			}
		}
		for _, d := range got[1] {
			if !slices.Contains(got[0], d) {
				t.Errorf("only with the union first:\n%s", d)
			}
		}
	}
}
