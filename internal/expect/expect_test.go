package expect

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate/finding"
)

func TestParse(t *testing.T) {
	in := "# a comment\n\n3 schema /params/x\n 4\tjson - \n5 unanswered-request - acp.rpc.answer-once agent\n6 schema /a acp.x.y\n"
	got, err := Parse(strings.NewReader(in), "t.expect")
	if err != nil {
		t.Fatal(err)
	}
	want := []Key{
		{Line: 3, Rule: "schema", Pointer: "/params/x"},
		{Line: 4, Rule: "json"},
		{Line: 5, Rule: "unanswered-request", Requirement: "acp.rpc.answer-once", Side: "agent"},
		{Line: 6, Rule: "schema", Pointer: "/a", Requirement: "acp.x.y"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// TestParseErrors: each malformed line is refused with the file's name, the
// row and what is wrong.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1 schema", `t.expect:1: want LINE RULE POINTER [REQUIREMENT [SIDE]], got "1 schema"`},
		{"1 a - b c d", `t.expect:1: want LINE RULE POINTER`},
		{"\n# x\nx schema -", `t.expect:3: the line "x" is not a line number`},
		{"0 schema -", `t.expect:1: the line "0" is not a line number`},
		{"-2 schema -", `t.expect:1: the line "-2" is not a line number`},
		{"2 schema params", `t.expect:1: the pointer "params" is neither - nor a JSON pointer`},
		{"2 schema " + strings.Repeat("p", 200), `…" is neither`},
		{"1 schema -\n" + strings.Repeat("x", 70000), `t.expect:2: bufio.Scanner: token too long`},
	} {
		_, err := Parse(strings.NewReader(c.in), "t.expect")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.40q: error %v, want one with %q", c.in, err, c.want)
		}
	}
}

// TestRoundTrip: a key renders as the line it was read from.
func TestRoundTrip(t *testing.T) {
	for _, line := range []string{"3 schema /params/x", "4 json -", "5 r - req", "5 r /p req side"} {
		ks, err := Parse(strings.NewReader(line), "t")
		if err != nil || len(ks) != 1 {
			t.Fatalf("%q: %v %v", line, ks, err)
		}
		if ks[0].String() != line {
			t.Errorf("%q renders as %q", line, ks[0].String())
		}
	}
}

// TestOfLike: a finding's requirement and side count only where the
// expected key at its place names them.
func TestOfLike(t *testing.T) {
	f := finding.Finding{Line: 2, Rule: "r", Pointer: "/p", Requirement: "req", Side: "agent"}
	for _, c := range []struct {
		want []Key
		key  Key
	}{
		{nil, Key{Line: 2, Rule: "r", Pointer: "/p"}},
		{[]Key{{Line: 2, Rule: "r", Pointer: "/p", Requirement: "x"}}, Key{Line: 2, Rule: "r", Pointer: "/p", Requirement: "req"}},
		{[]Key{{Line: 2, Rule: "r", Pointer: "/p", Requirement: "x", Side: "y"}}, Key{Line: 2, Rule: "r", Pointer: "/p", Requirement: "req", Side: "agent"}},
		{[]Key{{Line: 3, Rule: "r", Pointer: "/p", Requirement: "x"}}, Key{Line: 2, Rule: "r", Pointer: "/p"}},
	} {
		if got := OfLike(f, c.want); got != c.key {
			t.Errorf("OfLike with %v = %v, want %v", c.want, got, c.key)
		}
	}
	if got := Findings([]finding.Finding{f, f, {Line: 1, Rule: "json"}}); !reflect.DeepEqual(got, []string{"1 json -", "2 r /p"}) {
		t.Errorf("Findings = %q", got)
	}
}

// TestFixtures reads every .expect file of the fixtures: each parses (an
// empty one says a trace has no finding).
func TestFixtures(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures")
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".expect" {
			return err
		}
		n++
		if _, err := Read(p); err != nil {
			t.Error(err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no .expect file under fixtures/")
	}
}

// FuzzParse: no input makes Parse panic, and what it accepts renders as
// lines that parse to the same keys.
func FuzzParse(f *testing.F) {
	f.Add("3 schema /params/x\n4 json -\n")
	f.Add("# c\n\n5 r - req side\n")
	f.Add("1 a\n")
	f.Add("7\tx\t/\xff")
	f.Fuzz(func(t *testing.T, in string) {
		ks, err := Parse(strings.NewReader(in), "f")
		if err != nil {
			return
		}
		var sb strings.Builder
		for _, k := range ks {
			sb.WriteString(k.String() + "\n")
		}
		again, err := Parse(strings.NewReader(sb.String()), "f")
		if err != nil {
			t.Fatalf("%q renders as %q, which does not parse: %v", in, sb.String(), err)
		}
		if !reflect.DeepEqual(ks, again) && !(len(ks) == 0 && len(again) == 0) {
			t.Fatalf("%q: %v, then %v", in, ks, again)
		}
	})
}

func ExampleParse() {
	keys, err := Parse(strings.NewReader("2 schema /params/sessionId\n3 unanswered-request - acp.rpc.answer-once agent\n"), "trace.expect")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range keys {
		fmt.Printf("line %d, rule %s, at %s, requirement %q\n", k.Line, k.Rule, k.PointerText(), k.Requirement)
	}
	// Output:
	// line 2, rule schema, at /params/sessionId, requirement ""
	// line 3, rule unanswered-request, at -, requirement "acp.rpc.answer-once"
}
