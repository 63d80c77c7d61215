package gen_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/agentproto/agentproto/gen"
)

// TestNoNumberedNames: no generated package of agentproto declares a type
// or function whose name ends in a digit: names come from the schema that
// owns them, never from a counter. (Constants whose schema spells digits,
// ErrorCodeMinus32000, are the schema's own.) The packages generated from
// the official ACP schemas and the test corpora are held to it too.
func TestNoNumberedNames(t *testing.T) {
	// Names a schema's own $defs key ends in a digit: the draft-04
	// meta-schema's positiveIntegerDefault0.
	keyNamed := map[string]bool{"PositiveIntegerDefault0": true}
	files, err := filepath.Glob("../pkg/*/*_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../pkg/*/*/*_gen.go")
	more2, _ := filepath.Glob("../pkg/*/*/*/*_gen.go")
	ours, _ := filepath.Glob("internal/*/*/*_gen.go")
	files = append(append(append(files, more...), more2...), ours...)
	if len(files) < 8 {
		t.Fatalf("found %d generated files under ../pkg, want the protocol packages", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			var names []string
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names = append(names, d.Name.Name)
				}
			case *ast.GenDecl:
				if d.Tok == token.TYPE {
					for _, s := range d.Specs {
						names = append(names, s.(*ast.TypeSpec).Name.Name)
					}
				}
			}
			for _, n := range names {
				if r := []rune(n); ast.IsExported(n) && unicode.IsDigit(r[len(r)-1]) && !keyNamed[n] {
					t.Errorf("%s: %s ends in a number", f, n)
				}
			}
		}
	}
}

// TestOwnersName: a $defs entry keeps its name against an inline variant
// with the same title, which is named after its union; an inline type is
// named after the schema that owns it, not after the first message that
// merges it.
func TestOwnersName(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"envelope.json": `{"$id":"https://example.test/o/envelope.json","title":"Envelope","type":"object","properties":{"v":{"enum":["1","2"]}},"required":["v"]}`,
		"ack.json":      `{"$id":"https://example.test/o/ack.json","title":"Ack","type":"object","allOf":[{"$ref":"envelope.json"}],"properties":{"ok":{"type":"boolean"}}}`,
		"msg.json": `{"$id":"https://example.test/o/msg.json","title":"Message","oneOf":[
			{"title":"Request","type":"object","properties":{"kind":{"const":"request"},"trace":{"type":"string"}},"required":["kind"],"allOf":[{"$ref":"#/$defs/Request"}]},
			{"title":"Note","type":"object","properties":{"kind":{"const":"note"}},"required":["kind"]}],
			"$defs":{"Request":{"description":"The request itself.","type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}}}`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src, err := gen.Generate(gen.Config{Inputs: []string{dir}, Package: "o"})
	if err != nil {
		t.Fatal(err)
	}
	out := string(src)
	for _, want := range []string{"type EnvelopeV string", "V EnvelopeV `json:\"v\"`", "// Request is the request itself.\ntype Request struct", "type MessageRequest "} {
		if !strings.Contains(out, want) {
			t.Errorf("the output has no %q", want)
		}
	}
	if strings.Contains(out, "AckV") || strings.Contains(out, "Request2") {
		t.Error("a name was taken by traversal order")
	}
}

// TestUntitledAlternatives: alternatives of a union that have no title are
// named after what their schemas say (the members they require, the
// schema they refer to, their items), never with a number.
func TestUntitledAlternatives(t *testing.T) {
	dir := t.TempDir()
	schema := `{"$id":"https://example.test/u/u.json","$defs":{
		"Point":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]},
		"Contact":{"anyOf":[
			{"type":"object","properties":{"email":{"type":"string"}},"required":["email"]},
			{"type":"object","properties":{"phone":{"type":"string"}},"required":["phone","name"]},
			{"type":"array","items":{"type":"string"}},
			{"type":"array","items":{"$ref":"#/$defs/Point"}}]},
		"Either":{"oneOf":[
			{"type":"object","properties":{"a":{"type":"string"}}},
			{"type":"object","properties":{"b":{"type":"string"}}}]}}}`
	if err := os.WriteFile(filepath.Join(dir, "u.json"), []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := gen.Generate(gen.Config{Inputs: []string{dir}, Package: "u"})
	if err != nil {
		t.Fatal(err)
	}
	out := string(src)
	for _, want := range []string{"type ContactWithEmail struct", "type ContactWithNameAndPhone struct", "type ContactStringList ", "type ContactPointList ",
		"AsEitherWithA() (", "AsEitherWithB() (", "type EitherWithA struct", "type EitherWithB struct"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output has no %q", want)
		}
	}
	file, err := parser.ParseFile(token.NewFileSet(), "u.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(file, func(n ast.Node) bool {
		var id *ast.Ident
		switch n := n.(type) {
		case *ast.TypeSpec:
			id = n.Name
		case *ast.FuncDecl:
			id = n.Name
		}
		if id != nil && ast.IsExported(id.Name) && unicode.IsDigit([]rune(id.Name)[len([]rune(id.Name))-1]) {
			t.Errorf("%s ends in a number", id.Name)
		}
		return true
	})
}
