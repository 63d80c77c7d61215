package gen_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/gen"
)

// typeNames lists the type names a generated source declares, sorted.
func typeNames(t *testing.T, src []byte) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, s := range g.Specs {
				out = append(out, s.(*ast.TypeSpec).Name.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestBundlesAsInput: a published bundle, whose unions are if/then
// dispatch, generates the types its sources do (the tagged unions
// included, each checked rather than listed as unchecked "if"), apart from
// the names of the bundle's own root; and a folder that holds only
// bundles is taken as their schemas.
func TestBundlesAsInput(t *testing.T) {
	for _, c := range []struct {
		sources, bundle string
		rootOnly        []string // names only one side has: the roots
	}{
		{"../schema/arcp/v1.1", "../schema/arcp/v1.1/arcp.bundle.json", []string{"ARCPV11Message", "Message", "UnknownARCPV11Message", "UnknownMessage"}},
		{"../schema/acp/v1", "../schema/acp/v1/acp.bundle.json", []string{"ACPV1Message", "Envelope", "EnvelopeNotification", "EnvelopeRequest", "EnvelopeResponse", "Message", "MessageNotification", "MessageRequest", "MessageResponse"}},
	} {
		var warnings []string
		fromBundle, err := gen.Generate(gen.Config{Inputs: []string{c.bundle}, Package: "p", Warn: func(w error) { warnings = append(warnings, w.Error()) }})
		if err != nil {
			t.Fatalf("%s: %v", c.bundle, err)
		}
		for _, w := range warnings {
			if strings.Contains(w, "does not check: if") && !strings.Contains(w, c.bundle+"#:") {
				t.Errorf("%s: a dispatch left unchecked: %s", c.bundle, w)
			}
		}
		fromSources, err := gen.Generate(gen.Config{Inputs: []string{c.sources}, Package: "p"})
		if err != nil {
			t.Fatalf("%s: %v", c.sources, err)
		}
		a, b := typeNames(t, fromBundle), typeNames(t, fromSources)
		var onlyOne []string
		for _, n := range a {
			if !slices.Contains(b, n) {
				onlyOne = append(onlyOne, n)
			}
		}
		for _, n := range b {
			if !slices.Contains(a, n) {
				onlyOne = append(onlyOne, n)
			}
		}
		slices.Sort(onlyOne)
		if !slices.Equal(onlyOne, c.rootOnly) {
			t.Errorf("%s: types on one side only %v, want the roots' %v", c.bundle, onlyOne, c.rootOnly)
		}

		dir := t.TempDir()
		data, err := os.ReadFile(c.bundle)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(c.bundle)), data, 0o644); err != nil {
			t.Fatal(err)
		}
		fromFolder, err := gen.Generate(gen.Config{Inputs: []string{dir}, Package: "p"})
		if err != nil {
			t.Fatalf("a folder of one bundle: %v", err)
		}
		if !slices.Equal(typeNames(t, fromFolder), a) {
			t.Errorf("%s: the folder of the bundle gives other types than the bundle", c.bundle)
		}
	}
}
