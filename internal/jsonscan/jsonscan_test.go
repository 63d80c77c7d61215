package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"runtime"
	"strconv"
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
		{"long duplicate key", `{"` + strings.Repeat("k", 1<<20) + `":1,"` + strings.Repeat("k", 1<<20) + `":2}`, DuplicateKey, "/" + strings.Repeat("k", 1<<20), `duplicate key "` + strings.Repeat("k", 76) + `...: receivers`},
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
		{"long integer", `{"id":` + strings.Repeat("9", 1_000_000) + `}`, NumberTooLong, "/id", "number literal too long: 1000000 digits"},
		{"long fraction", `[0.` + strings.Repeat("0", 100) + `1]`, NumberTooLong, "/0", "102 digits"},
		{"huge exponent", `{"used":-1e999999}`, NumberTooLong, "/used", "exponent is beyond ±400"},
		{"tiny exponent", `[1E-401]`, NumberTooLong, "/0", "exponent is beyond ±400"},
		{"padded exponent", `1e` + strings.Repeat("0", 99) + `1`, NumberTooLong, "", "101 digits"},
		{"long number then bad byte", `[` + strings.Repeat("1", 200) + `x]`, NumberTooLong, "/0", "200 digits"},
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

// TestNumberBounds: the literals at the bounds are accepted as they are, one
// digit or one exponent step beyond is a NumberTooLong error at the
// literal's first byte, and the message never echoes the literal.
func TestNumberBounds(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("9", MaxNumberDigits),
		"-0." + strings.Repeat("1", MaxNumberDigits-1),
		"1e400", "1E+400", "-2.5e-400", "1e0000400",
		"18446744073709551615", "-9223372036854775808", "4.9406564584124654e-324", "1.7976931348623157e308",
	} {
		v, err := Parse([]byte(in), 0)
		if err != nil || v != json.Number(in) {
			t.Errorf("%s: got %v, %v; want the number", in, v, err)
		}
	}
	for _, in := range []string{
		strings.Repeat("9", MaxNumberDigits+1),
		"-0." + strings.Repeat("1", MaxNumberDigits),
		"1e401", "1E+401", "-2.5e-401", "1e" + strings.Repeat("9", 30),
	} {
		_, err := Parse([]byte(`{"a":[`+in+`]}`), 0)
		var e *Error
		if !errors.As(err, &e) || e.Kind != NumberTooLong || e.Pointer != "/a/0" || e.Offset != 6 {
			t.Errorf("%.20s…: got %#v, want NumberTooLong at /a/0, byte 6", in, err)
			continue
		}
		if strings.Contains(e.Error(), in) {
			t.Errorf("%.20s…: the message echoes the literal: %s", in, e.Error())
		}
	}
}

// TestDepthCeiling: a 3 MB line of '[' with any depth limit stops at
// MaxDepthCeiling levels, with a few MiB of stack at most.
func TestDepthCeiling(t *testing.T) {
	in := bytes.Repeat([]byte("["), 3<<20)
	for _, limit := range []int{MaxDepthCeiling + 1, 100_000_000, int(^uint(0) >> 1)} {
		var stack uint64
		var err error
		done := make(chan struct{})
		go func() {
			// A fresh goroutine: its stack grows with the recursion
			// and is still grown when it reads the statistics.
			defer close(done)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = Parse(in, limit)
			runtime.ReadMemStats(&after)
			stack = after.StackInuse - min(after.StackInuse, before.StackInuse)
		}()
		<-done
		var e *Error
		if !errors.As(err, &e) || e.Kind != TooDeep || e.Offset != MaxDepthCeiling {
			t.Fatalf("limit %d: got %v, want TooDeep at byte %d", limit, err, MaxDepthCeiling)
		}
		t.Logf("limit %d: stack grew by %d KiB", limit, stack>>10)
		if stack > 16<<20 {
			t.Errorf("limit %d: the stack grew by %d MiB, want at most 16 MiB", limit, stack>>20)
		}
	}
	ok := strings.Repeat("[", MaxDepthCeiling) + strings.Repeat("]", MaxDepthCeiling)
	if _, err := Parse([]byte(ok), 100_000_000); err != nil {
		t.Errorf("nesting of exactly MaxDepthCeiling levels: %v", err)
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
		var e *Error
		if errors.As(err, &e) && e.Kind == NumberTooLong {
			// A bound of this checker, not of JSON: a valid literal
			// starts there, and it is over a bound.
			if !overBounds(in[e.Offset:]) {
				t.Fatalf("NumberTooLong on %q at byte %d, which starts no over-long literal", in, e.Offset)
			}
			return
		}
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

var numberRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?(?:[eE][+-]?([0-9]+))?`)

// overBounds reports whether b starts with a JSON number literal beyond
// MaxNumberDigits or MaxNumberExponent.
func overBounds(b []byte) bool {
	m := numberRE.FindSubmatch(b)
	if m == nil {
		return false
	}
	digits := 0
	for _, c := range m[0] {
		if c >= '0' && c <= '9' {
			digits++
		}
	}
	exp := strings.TrimLeft(string(m[3]), "0")
	n, _ := strconv.Atoi(exp)
	return digits > MaxNumberDigits || len(exp) > 3 || n > MaxNumberExponent
}

// BenchmarkLongNumber parses a line whose id is a number of 1 MB: one pass
// over the digits, then the NumberTooLong error, whatever the length.
func BenchmarkLongNumber(b *testing.B) {
	in := []byte(`{"jsonrpc":"2.0","id":` + strings.Repeat("7", 1<<20) + `,"method":"initialize"}`)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var e *Error
		if _, err := Parse(in, 0); !errors.As(err, &e) || e.Kind != NumberTooLong {
			b.Fatalf("got %v, want NumberTooLong", err)
		}
	}
}
