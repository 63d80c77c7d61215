package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseValues(t *testing.T) {
	in := `{"a":[1,-0.5e+3,"x\u00e9\ud83d\ude00\n",true,false,null],"b":{},"c":[]}`
	got, err := Parse([]byte(in), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"a": []any{json.Number("1"), json.Number("-0.5e+3"), "xé😀\n", true, false, nil},
		"b": map[string]any{},
		"c": []any{},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("value mismatch (-want +got):\n%s", d)
	}
}

// TestAgreesWithEncodingJSON checks that every input encoding/json accepts
// (and that has no duplicate keys or lone surrogates, which it tolerates) is
// accepted with the same value.
func TestAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`0`, `-1`, `1e9`, `1E-2`, `"\/\b\f\r\t\\\""`, ` [ 1 , [ 2 , { "k" : "v" } ] ] `,
		`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}`,
		`"日本語"`, `123456789012345678901234567890`,
	} {
		got, err := Parse([]byte(in), 0)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		dec := json.NewDecoder(strings.NewReader(in))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("%s: encoding/json: %v", in, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-encoding/json +jsonscan):\n%s", in, d)
		}
	}
}

func TestParseErrors(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	for _, tc := range []struct {
		name    string
		in      string
		kind    Kind
		pointer string
		msg     string
	}{
		{"duplicate key", `{"id":1,"params":{"a":1,"a":2}}`, DuplicateKey, "/params/a", `duplicate key "a"`},
		{"bad utf8 in string", "{\"a\":\"\xff\"}", BadUTF8, "/a", "invalid UTF-8 byte 0xff"},
		{"bad utf8 outside", "{\"a\":\xc3}", BadUTF8, "/a", "invalid UTF-8"},
		{"lone high surrogate", `{"t":"\ud800x"}`, Surrogate, "/t", `lone surrogate \ud800`},
		{"lone low surrogate", `["\udc00"]`, Surrogate, "/0", `lone surrogate \udc00`},
		{"high then non-low", `"\ud800\u0041"`, Surrogate, "", "lone surrogate"},
		{"nul in string", "{\"a\":\"x\x00y\"}", Control, "/a", "NUL byte inside a string"},
		{"nul outside", "{\"a\":\x00}", Syntax, "/a", "NUL byte"},
		{"newline in string", "\"a\nb\"", Control, "", "control character U+000A"},
		{"truncated object", `{"jsonrpc":"2.0","id":1,"met`, EOF, "", "ends inside a string"},
		{"truncated after colon", `{"a":`, EOF, "/a", "ends early"},
		{"truncated number", `[1.`, EOF, "/0", "ends inside a number"},
		{"too deep", deep, TooDeep, "", "nesting deeper than 1000"},
		{"trailing", `{} {}`, Trailing, "", "after the end of the JSON value"},
		{"empty", "  \t", Empty, "", "no JSON value"},
		{"single quotes", `{'a':1}`, Syntax, "", "object key"},
		{"trailing comma", `[1,]`, Syntax, "/1", "a value expected"},
		{"leading zero", `01`, Trailing, "", "after the end"},
		{"bad literal", `tru`, EOF, "", `inside "true"`},
		{"bad escape", `"\x"`, Syntax, "", "invalid escape"},
		{"bad hex", `"\u12g4"`, Syntax, "", "four hex digits"},
		{"NaN", `NaN`, Syntax, "", "a value expected"},
		{"pointer escape", `{"a/b":{"c~d":[}}`, Syntax, "/a~1b/c~0d/0", "a value expected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in), 0)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want *Error", err)
			}
			if e.Kind != tc.kind || e.Pointer != tc.pointer || !strings.Contains(e.Msg, tc.msg) {
				t.Fatalf("got kind %d pointer %q msg %q; want kind %d pointer %q msg containing %q", e.Kind, e.Pointer, e.Msg, tc.kind, tc.pointer, tc.msg)
			}
		})
	}
}

func TestMaxDepth(t *testing.T) {
	in := []byte(strings.Repeat("[", 5) + strings.Repeat("]", 5))
	if _, err := Parse(in, 5); err != nil {
		t.Fatalf("depth 5 with limit 5: %v", err)
	}
	if _, err := Parse(in, 4); err == nil {
		t.Fatal("depth 5 with limit 4: no error")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `"\ud83d\ude00"`, `{"a":1,"a":2}`, "\xff", `[[[`, `-0.1e5`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		v, err := Parse(in, 64)
		if err != nil {
			return
		}
		// Whatever we accept, encoding/json accepts with the same value.
		dec := json.NewDecoder(bytes.NewReader(in))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("accepted %q, encoding/json rejects it: %v", in, err)
		}
		if d := cmp.Diff(want, v); d != "" {
			t.Fatalf("%q (-encoding/json +jsonscan):\n%s", in, d)
		}
	})
}
