package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const schemaText = `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://example.test/p.json","title":"Point","type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}`

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestWriteThenCheck(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "p.json")
	if err := os.WriteFile(schemaFile, []byte(schemaText), 0o644); err != nil {
		t.Fatal(err)
	}
	// -o names a directory: the file is PKG_gen.go inside it.
	if code, _, stderr := runCLI("-pkg", "points", "-o", dir, schemaFile); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	gen := filepath.Join(dir, "points_gen.go")
	if _, err := os.Stat(gen); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := runCLI("-pkg", "points", "-o", gen, "-check", schemaFile); code != 0 || out != "" {
		t.Fatalf("fresh file: exit %d, %q %q", code, out, stderr)
	}
	// A stale file: exit 1 with a unified diff on stdout.
	data, _ := os.ReadFile(gen)
	stale := strings.Replace(string(data), "type Point struct", "type Point struct // edited", 1)
	if err := os.WriteFile(gen, []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI("-pkg", "points", "-o", gen, "-check", schemaFile)
	if code != 1 {
		t.Fatalf("stale file: exit %d, want 1", code)
	}
	for _, want := range []string{"--- " + gen + " (on disk)", "+++ " + gen + " (generated)", "@@ -", "-type Point struct // edited", "+type Point struct {"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "is stale") {
		t.Errorf("stderr %q", stderr)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"title":"B","type":"text"}`), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"x.json"}, "-pkg is required"},
		{[]string{"-pkg", "p"}, "no schema files"},
		{[]string{"-pkg", "p", "-check", "x.json"}, "-check needs -o"},
		{[]string{"-pkg", "p", "-map", "nonsense", "x.json"}, "ID-PREFIX=IMPORT/PATH"},
		{[]string{"-pkg", "p", "-float-format", "rust", "x.json"}, "-float-format is js or serde"},
		{[]string{"-pkg", "p", "-integer-format", "strict", "x.json"}, "-integer-format is schema or serde"},
		{[]string{"-pkg", "1p", bad}, "not a Go identifier"},
		{[]string{"-pkg", "p", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"-pkg", "p", bad}, bad + `#/type: unknown type "text"`},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
		if strings.Count(strings.TrimSpace(stderr), "\n") > 1 && !strings.Contains(stderr, "Usage") {
			t.Errorf("%v: want one line, got %q", c.args, stderr)
		}
	}
}

func TestHelpShowsAGoGenerateLine(t *testing.T) {
	for _, flag := range []string{"-h", "--help"} {
		code, stdout, stderr := runCLI(flag)
		if code != 0 || stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q; want 0 and the help on standard output", flag, code, stderr)
		}
		for _, want := range []string{"go mod edit -tool=github.com/agentproto/agentproto/cmd/protogen && go mod tidy", "//go:generate go tool protogen -pkg", "-check", "-strict", "-map", "-map-generated", "-ref", "-float-format", "-integer-format"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s: help lacks %q", flag, want)
			}
		}
	}
}

// A bad flag is one line and a hint, not the whole help.
func TestBadFlagIsOneLine(t *testing.T) {
	code, stdout, stderr := runCLI("-nope")
	if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 2 || !strings.Contains(stderr, "-nope") || !strings.Contains(stderr, "protogen -h") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, and one line naming the flag plus the hint", code, stdout, stderr)
	}
}

func TestUnifiedDiff(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	b := "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n"
	got := unifiedDiff("a", "b", a, b)
	want := "--- a\n+++ b\n@@ -2,9 +2,10 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n 9\n 10\n+11\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestIntegerFormat: -integer-format serde makes the decoders take integer
// literals only; the default takes any number with an integral value.
func TestIntegerFormat(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "p.json")
	if err := os.WriteFile(schemaFile, []byte(schemaText), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "d.Int64()"},
		{[]string{"-integer-format", "schema"}, "d.Int64()"},
		{[]string{"-integer-format", "serde"}, "d.Int64Serde()"},
	} {
		args := append(append([]string{"-pkg", "points"}, c.args...), schemaFile)
		code, out, stderr := runCLI(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		if !strings.Contains(out, c.want) {
			t.Errorf("%v: the output does not read x with %s", c.args, c.want)
		}
	}
}

// TestStrict: a union the JSON cannot decide is a warning on stderr (exit
// 0, raw JSON with accessors) by default, and an error (exit 2) with
// -strict.
func TestStrict(t *testing.T) {
	schema := filepath.Join("..", "..", "gen", "testdata", "errors", "undecidable.json")
	code, out, stderr := runCLI("-pkg", "u", schema)
	if code != 0 || !strings.Contains(out, "func (x U) AsUWithB()") {
		t.Fatalf("default: exit %d, stderr %q", code, stderr)
	}
	if strings.Count(stderr, "protogen: warning: ") != 1 || !strings.Contains(stderr, "undecidable.json#/$defs/U: U is kept as raw JSON with an accessor per alternative") {
		t.Errorf("default: stderr %q, want one located warning", stderr)
	}
	code, out, stderr = runCLI("-pkg", "u", "-strict", schema)
	if code != 2 || out != "" || !strings.Contains(stderr, "undecidable.json#/$defs/U: this union cannot be discriminated") {
		t.Errorf("-strict: exit %d, stdout %d bytes, stderr %q", code, len(out), stderr)
	}
}

// TestNoCopiesOfMappedSchemas: a schema that refers to agentproto's ACP
// definitions by $id gets package acp's types, and no copy of anything
// inside them (the variants of the mapped union ContentBlock, the resource
// structs of EmbeddedResource): only its own types are declared.
func TestNoCopiesOfMappedSchemas(t *testing.T) {
	code, out, stderr := runCLI("-pkg", "downstream", filepath.Join("..", "..", "gen", "testdata", "downstream"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "downstream_gen.go", out, 0)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, s := range g.Specs {
				types = append(types, s.(*ast.TypeSpec).Name.Name)
			}
		}
	}
	// Note and its union Part (with the Unknown variant that keeps unknown
	// tags), whose two variants are ACP's TextContent and Plan.
	if want := "Note Part UnknownPart Text Plan"; strings.Join(types, " ") != want {
		t.Errorf("declared types %v, want %s", types, want)
	}
	for _, want := range []string{"Content acp.ContentBlock", "type Text acp.TextContent", "type Plan acp.Plan"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output has no %q", want)
		}
	}
}

// TestMapTrust: a type that holds agentproto's ACP types is complete (a
// strict decode plus Validate vouches for its values) when they come from
// agentproto's generated package, by default or by a -map that repeats the
// default, or from a package -map-generated names; a plain -map to another
// package, which may be written by hand, makes it incomplete.
func TestMapTrust(t *testing.T) {
	const acpV1 = "https://agentproto.dev/schema/acp/v1/"
	schema := filepath.Join("..", "..", "gen", "testdata", "downstream")
	for _, c := range []struct {
		args     []string
		complete bool
	}{
		{nil, true},
		{[]string{"-map", acpV1 + "=github.com/agentproto/agentproto/pkg/acp"}, true},
		{[]string{"-map", acpV1 + "=example.com/handwritten/acp"}, false},
		{[]string{"-map-generated", acpV1 + "=example.com/generated/acp"}, true},
	} {
		args := append(append([]string{"-pkg", "downstream"}, c.args...), schema)
		code, out, stderr := runCLI(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		// Note's case of Lookup, with its spacing made one space.
		note := ""
		for _, chunk := range strings.Split(out, "case \"") {
			if chunk = strings.Join(strings.Fields(chunk), " "); strings.Contains(chunk, `Name: "Note"`) {
				note = chunk
			}
		}
		if note == "" {
			t.Fatalf("%v: Lookup has no case for Note", c.args)
		}
		want := "Complete: false"
		if c.complete {
			want = "Complete: true"
		}
		if !strings.Contains(note, want) {
			t.Errorf("%v: Note's codec does not say %s:\n%s", c.args, want, note)
		}
	}
}
