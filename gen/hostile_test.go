package gen_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/gen"
	"github.com/agentproto/agentproto/internal/textsafe"
)

// hostileSchema has member names and union tags with control characters
// (SOH, BEL, DEL) and descriptions with escape sequences, bidirectional
// controls and a line that would be a CI workflow command.
var hostileSchema = map[string]any{
	"$schema":     "https://json-schema.org/draft/2020-12/schema",
	"$id":         "https://example.com/hostile.json",
	"description": "root \u202e evil \u2066 \x1b[31m red\n::error file=a::forged",
	"$defs": map[string]any{
		"Obj": map[string]any{
			"type": "object", "description": "obj \a bel \u202e rlo */ end",
			"properties": map[string]any{
				"a\x01":  map[string]any{"type": "string", "description": "c1 \u0085 and \u2028 here"},
				"b\x7f":  map[string]any{"type": "integer"},
				"c\"\\d": map[string]any{"type": "string"},
			},
			"required": []string{"a\x01"},
		},
		"U": map[string]any{"oneOf": []any{map[string]any{"$ref": "#/$defs/V1"}, map[string]any{"$ref": "#/$defs/V2"}}},
		"V1": map[string]any{"type": "object", "required": []string{"k\x01"},
			"properties": map[string]any{"k\x01": map[string]any{"const": "v\a"}, "x": map[string]any{"type": "string"}}},
		"V2": map[string]any{"type": "object", "required": []string{"k\x01"},
			"properties": map[string]any{"k\x01": map[string]any{"const": "w\x7f"}, "y": map[string]any{"type": "integer"}}},
	},
}

func writeHostile(t *testing.T, dir string) string {
	t.Helper()
	b, err := json.Marshal(hostileSchema)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "hostile.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGeneratedTextIsInert: nothing protogen copies from a schema reaches
// the generated source raw: no control character but tab and newline, no
// bidirectional control (the "Trojan Source" class), no C1 control or
// line separator, in comments, strings or tags.
func TestGeneratedTextIsInert(t *testing.T) {
	p := writeHostile(t, t.TempDir())
	src, err := gen.Generate(gen.Config{Inputs: []string{p}, Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(src), "\n") {
		for _, r := range line {
			if r != '\t' && textsafe.Unsafe(r) {
				t.Errorf("line %d holds %U raw: %q", i+1, r, line)
			}
		}
		if strings.HasPrefix(strings.TrimSpace(line), "::") {
			t.Errorf("line %d starts a workflow command: %q", i+1, line)
		}
	}
}

// TestEncodersWriteValidJSON: the generated encoders write member names
// and union tags with control characters as JSON escapes, so what they
// write is valid JSON that decodes back to the same value (the names were
// written Go-quoted, "a\x01", which no JSON parser takes).
func TestEncodersWriteValidJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs a generated package; skipped with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	dir, err := os.MkdirTemp("testdata", "compile-out-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	src, err := gen.Generate(gen.Config{Inputs: []string{writeHostile(t, t.TempDir())}, Package: "p", DefsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	const check = `package p

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestValidJSON(t *testing.T) {
	one, s := int64(1), "x\u202e\x01"
	var o Obj
	for _, v := range []any{&Obj{A: "a\x07", B: &one, CD: &s}, &V1{X: &s}, &V2{Y: &one}, &UnknownU{Tag: "z\x01"}} {
		var b []byte
		var err error
		if u, ok := v.(U); ok {
			b, err = MarshalU(u)
		} else {
			b, err = json.Marshal(v)
		}
		if err != nil || !json.Valid(b) {
			t.Fatalf("%T encodes to %q (%v): not valid JSON", v, b, err)
		}
		if u, ok := v.(U); ok {
			back, err := UnmarshalU(b)
			if err != nil {
				t.Fatalf("%T: %s does not decode back: %v", v, b, err)
			}
			if _, unknown := v.(*UnknownU); !unknown && !reflect.DeepEqual(back, u) {
				t.Errorf("%s decodes to %#v, want %#v", b, back, u)
			}
			continue
		}
		if err := json.Unmarshal(b, &o); err != nil || !reflect.DeepEqual(&o, v) {
			t.Errorf("%s decodes to %#v (%v), want %#v", b, o, err, v)
		}
	}
}
`
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte(check), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(goBin, "test", "-count=1", "./"+filepath.ToSlash(dir)).CombinedOutput()
	if err != nil {
		t.Fatalf("the generated encoders: %v\n%s", err, out)
	}
}
