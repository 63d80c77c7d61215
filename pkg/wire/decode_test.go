package wire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/agentproto/agentproto/internal/jsonscan"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentproto/agentproto/pkg/wire"
)

// rawValue decodes any JSON value as raw bytes, the way generated code
// keeps open members.
type rawValue struct{ v json.RawMessage }

func (r *rawValue) DecodeWire(d *wire.Decoder) error {
	v, err := wire.DecodeRaw(d)
	r.v = v
	return err
}

func TestWellFormedness(t *testing.T) {
	good := []string{`null`, `true`, `0`, `-0.5e+10`, `"a\u00e9\ud83d\ude00"`, `[]`, `{}`, ` {"a" : [1, {"b":null}] } `, `[[[[]]]]`}
	for _, s := range good {
		var r rawValue
		if err := wire.Unmarshal([]byte(s), &r); err != nil {
			t.Errorf("%s: %v", s, err)
		}
		if string(r.v) != strings.TrimSpace(s) {
			t.Errorf("%s: raw %s", s, r.v)
		}
	}
	bad := map[string]wire.Code{
		`{"a":1,}`: wire.CodeSyntax, `[1,]`: wire.CodeSyntax, `[,1]`: wire.CodeSyntax, `{,}`: wire.CodeSyntax,
		`{"a" 1}`: wire.CodeSyntax, `{"a":1 "b":2}`: wire.CodeSyntax, `[1 2]`: wire.CodeSyntax, `01`: wire.CodeSyntax,
		`1.`: wire.CodeSyntax, `-`: wire.CodeSyntax, `"\x"`: wire.CodeSyntax, "\"a\tb\"": wire.CodeSyntax,
		`"\ud800"`: wire.CodeUTF8, `"\udc00\ud800"`: wire.CodeUTF8, "\"\xc3\x28\"": wire.CodeUTF8,
		`nul`: wire.CodeSyntax, `{"a":1}x`: wire.CodeSyntax, ``: wire.CodeSyntax, `[`: wire.CodeSyntax,
	}
	for s, code := range bad {
		var r rawValue
		err := wire.Unmarshal([]byte(s), &r)
		var we *wire.Error
		if !errors.As(err, &we) {
			t.Errorf("%q: error %v, want a *wire.Error", s, err)
			continue
		}
		if we.Code != code {
			t.Errorf("%q: code %d (%v), want %d", s, we.Code, err, code)
		}
	}
}

func TestDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	var r rawValue
	err := wire.Unmarshal([]byte(deep), &r)
	if err == nil || !strings.Contains(err.Error(), "nesting deeper than") {
		t.Errorf("100000 levels: %v", err)
	}
}

func TestEncoderEscapesLikeSerde(t *testing.T) {
	e := wire.NewEncoder(nil)
	e.BeginArray()
	e.String("a\"b\\c\n\t\x01</>é\u2028")
	e.String("bad\xffutf8")
	e.Float64Serde(100)
	e.Float64Serde(0.1)
	e.Float64Serde(1e21)
	e.Float64Serde(-2.5e-7)
	e.Float64Serde(0)
	e.Float64(100)
	e.Float64(12.5)
	e.Float64(1e21)
	e.Float64(-2.5e-7)
	e.EndArray()
	want := `["a\"b\\c\n\t\u0001</>é` + "\u2028" + `","bad` + string(utf8.RuneError) + `utf8",100.0,0.1,1e21,-2.5e-7,0.0,100,12.5,1e+21,-2.5e-7]`
	if got := string(e.Bytes()); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestPeekTagDoesNotConsume(t *testing.T) {
	d := wire.NewDecoder([]byte(`{"x":[1,{"t":"no"}],"t":"yes","y":2}`))
	tag, ok, err := d.PeekTag("t")
	if err != nil || !ok || tag != "yes" {
		t.Fatalf("PeekTag = %q %v %v", tag, ok, err)
	}
	if d.Offset() != 0 {
		t.Errorf("offset %d after PeekTag", d.Offset())
	}
	if _, _, err := d.PeekTag("missing"); err != nil {
		t.Error(err)
	}
	if _, _, err := wire.NewDecoder([]byte(`{"t":5}`)).PeekTag("t"); err == nil {
		t.Error("a number tag was accepted")
	}
}

func TestIntegers(t *testing.T) {
	cases := []struct {
		in   string
		ok   bool
		want uint32
	}{{`4294967295`, true, 4294967295}, {`4294967296`, false, 0}, {`-1`, false, 0}, {`1.0`, true, 1}, {`1e2`, true, 100}, {`1.5`, false, 0}, {`1e400`, false, 0}}
	for _, c := range cases {
		v, err := wire.NewDecoder([]byte(c.in)).Uint32()
		if (err == nil) != c.ok || (c.ok && v != c.want) {
			t.Errorf("Uint32(%s) = %d, %v", c.in, v, err)
		}
	}
}

// TestSerdeIntegers checks the readers for serde peers: only integer
// literals, as serde_json reads a u32, u64 or i64 (1.0, 1e2 and -0 are floats
// to it), with the same ranges as the lenient readers.
func TestSerdeIntegers(t *testing.T) {
	cases := []struct {
		in   string
		code wire.Code // 0xff: no error
		want uint64
	}{
		{`0`, 0xff, 0}, {` 7 `, 0xff, 7}, {`4294967295`, 0xff, 4294967295},
		{`4294967296`, wire.CodeRange, 0}, {`-1`, wire.CodeRange, 0},
		{`1.0`, wire.CodeType, 0}, {`0.0`, wire.CodeType, 0}, {`1e0`, wire.CodeType, 0}, {`1E2`, wire.CodeType, 0},
		{`1e+2`, wire.CodeType, 0}, {`-0`, wire.CodeType, 0}, {`1.5`, wire.CodeType, 0},
		{`"1"`, wire.CodeType, 0}, {`01`, wire.CodeSyntax, 0},
	}
	for _, c := range cases {
		d := wire.NewDecoder([]byte(c.in))
		v, err := d.Uint32Serde()
		if err == nil {
			err = d.End()
		}
		var we *wire.Error
		switch {
		case c.code == 0xff && (err != nil || uint64(v) != c.want):
			t.Errorf("Uint32Serde(%s) = %d, %v; want %d", c.in, v, err, c.want)
		case c.code != 0xff && (!errors.As(err, &we) || we.Code != c.code):
			t.Errorf("Uint32Serde(%s) = %d, %v; want an error with code %d", c.in, v, err, c.code)
		}
	}
	if _, err := wire.NewDecoder([]byte(`2.0`)).Uint32(); err != nil {
		t.Errorf("the lenient Uint32 rejects 2.0: %v", err)
	}
	for in, want := range map[string]int64{`-9223372036854775808`: -9223372036854775808, `-5`: -5, `12`: 12} {
		if v, err := wire.NewDecoder([]byte(in)).Int64Serde(); err != nil || v != want {
			t.Errorf("Int64Serde(%s) = %d, %v", in, v, err)
		}
	}
	for _, in := range []string{`-0`, `-1.0`, `-1e3`, `9223372036854775808`} {
		if v, err := wire.NewDecoder([]byte(in)).Int64Serde(); err == nil {
			t.Errorf("Int64Serde(%s) = %d, want an error", in, v)
		}
	}
	type reader func(*wire.Decoder) error
	for name, r := range map[string]reader{
		"Int8Serde":   func(d *wire.Decoder) error { _, err := d.Int8Serde(); return err },
		"Int16Serde":  func(d *wire.Decoder) error { _, err := d.Int16Serde(); return err },
		"Int32Serde":  func(d *wire.Decoder) error { _, err := d.Int32Serde(); return err },
		"Uint8Serde":  func(d *wire.Decoder) error { _, err := d.Uint8Serde(); return err },
		"Uint16Serde": func(d *wire.Decoder) error { _, err := d.Uint16Serde(); return err },
		"Uint64Serde": func(d *wire.Decoder) error { _, err := d.Uint64Serde(); return err },
	} {
		if err := r(wire.NewDecoder([]byte(`100`))); err != nil {
			t.Errorf("%s(100): %v", name, err)
		}
		if err := r(wire.NewDecoder([]byte(`100.0`))); err == nil {
			t.Errorf("%s(100.0) accepted", name)
		}
	}
	// The error names the literal, so a user can find it.
	_, err := wire.NewDecoder([]byte(`1e0`)).Uint64Serde()
	if err == nil || !strings.Contains(err.Error(), "1e0") {
		t.Errorf("error %v does not name the literal", err)
	}
}

func TestOpt(t *testing.T) {
	var o wire.Opt[int]
	if !o.IsAbsent() || !o.IsZero() || o.IsNull() || o.IsSet() || o.Ptr() != nil {
		t.Error("zero Opt is not absent")
	}
	o = wire.Null[int]()
	if !o.IsNull() || o.IsZero() {
		t.Error("Null is not null")
	}
	o = wire.Some(0)
	if v, ok := o.Get(); !ok || v != 0 || o.IsZero() || *o.Ptr() != 0 {
		t.Error("Some(0) lost its value")
	}
}

func TestFormats(t *testing.T) {
	for s, want := range map[string]bool{
		"2026-11-22T02:12:34Z": true, "2026-11-22t02:12:34.5+05:30": true, "2024-02-29T00:00:00Z": true,
		"2023-02-29T00:00:00Z": false, "2026-13-01T00:00:00Z": false, "2026-11-22 02:12:34Z": false,
		"2026-11-22T02:12:34": false, "2026-11-22T24:00:00Z": false, "2016-12-31T23:59:60Z": true,
		"2016-12-31T23:59:60+01:00": false, "2016-12-31T22:59:60-01:00": true, "2026-11-22T02:12:34.Z": false,
	} {
		if got := wire.IsDateTime(s); got != want {
			t.Errorf("IsDateTime(%q) = %v", s, got)
		}
	}
	for s, want := range map[string]bool{"https://example.com/a?b#c": true, "urn:isbn:0451450523": true, "/relative/path": false, "": false} {
		if got := wire.IsURI(s); got != want {
			t.Errorf("IsURI(%q) = %v", s, got)
		}
	}
}

func TestSeek(t *testing.T) {
	doc := ` {"a":{"b/c":[10,{"d~e":"x"}]},"z":1, "s" : "t"}`
	for ptr, want := range map[string]string{"": doc[1:], "/a/b~1c/1/d~0e": `"x"`, "/a/b~1c/0": `10`, "/z": `1`, "/s": `"t"`, "/nope": "", "/a/b~1c/2": "", "/a/b~1c/01": "", "/a/b~1c/-1": "", "/z/x": ""} {
		// Reading its way, and told where values are by a parse of the
		// same bytes (a Finder): the same answers.
		var a jsonscan.Arena
		parsed, err := a.Parse([]byte(doc), 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, ends := range []wire.Ends{nil, &parsed} {
			d := wire.NewDecoder([]byte(doc))
			if ends != nil {
				d.SetEnds(ends)
			}
			ok, err := d.Seek(ptr)
			if err != nil {
				t.Fatalf("%q: %v", ptr, err)
			}
			if !ok {
				if want != "" {
					t.Errorf("%q (ends %v): not found", ptr, ends != nil)
				}
				continue
			}
			raw, err := d.Raw()
			if err != nil || string(raw) != want {
				t.Errorf("%q (ends %v): %s, %v; want %s", ptr, ends != nil, raw, err, want)
			}
		}
	}
	// Empty tokens name the empty member, wherever they are.
	empty := `{"":{"":2},"a":{"":3}}`
	for ptr, want := range map[string]string{"/": `{"":2}`, "//": `2`, "/a/": `3`} {
		d := wire.NewDecoder([]byte(empty))
		if ok, err := d.Seek(ptr); !ok || err != nil {
			t.Errorf("%q: found %v, %v", ptr, ok, err)
			continue
		}
		if raw, err := d.Raw(); err != nil || string(raw) != want {
			t.Errorf("%q: %s, %v; want %s", ptr, raw, err, want)
		}
	}
}

// A "~" in a pointer is "~0" or "~1" (RFC 6901): any other is no pointer,
// and Seek says so rather than read the token as it stands.
func TestSeekBadEscape(t *testing.T) {
	for _, ptr := range []string{"/d~e", "/d~", "/a/~2"} {
		d := wire.NewDecoder([]byte(`{"d~e":1,"d~":2,"a":{"~2":3}}`))
		if ok, err := d.Seek(ptr); ok || err == nil {
			t.Errorf("Seek(%q) = %v, %v; want an error", ptr, ok, err)
		}
	}
}

// -0 is the integer zero to JSON Schema, so an unsigned member takes it
// (and 0.0, -0.0); the serde readers keep serde_json's stricter rule.
func TestUnsignedNegativeZero(t *testing.T) {
	for _, in := range []string{"-0", "-0.0", "0.0", "-0e3"} {
		d := wire.NewDecoder([]byte(in))
		v, err := d.Uint64()
		if err != nil || v != 0 {
			t.Errorf("Uint64(%s) = %d, %v; want 0", in, v, err)
		}
	}
}

// endsAt is a wire.Ends that knows one value.
type endsAt struct{ start, end int }

func (e endsAt) End(start int) int {
	if start == e.start {
		return e.end
	}
	return -1
}

// With SetEnds, a value whose end the caller knows is stepped over, not
// read: Raw returns its bytes even where they would not decode. Values it
// does not know are read as before.
func TestSetEnds(t *testing.T) {
	in := []byte(`{"a":[1,2,{"x":true}],"b":{"c":1}}`)
	d := wire.NewDecoder(in)
	start := bytes.IndexByte(in, '[')
	end := bytes.Index(in, []byte(`,"b"`))
	d.SetEnds(endsAt{start, end})
	if err := d.BeginObject(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		_, more, err := d.NextKey()
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
		raw, err := d.Raw()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(raw))
	}
	if want := []string{`[1,2,{"x":true}]`, `{"c":1}`}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("raw members %q, want %q", got, want)
	}
	// Where the caller says a value ends is taken as it is: it is for
	// input already checked.
	bad := []byte(`[1,,]`)
	d = wire.NewDecoder(bad)
	if _, err := d.Raw(); err == nil {
		t.Error("an invalid array read without ends: no error")
	}
	d = wire.NewDecoder(bad)
	d.SetEnds(endsAt{0, len(bad)})
	if raw, err := d.Raw(); err != nil || string(raw) != string(bad) {
		t.Errorf("with ends: %q, %v", raw, err)
	}
}

func TestWalkPointer(t *testing.T) {
	for _, c := range []struct {
		ptr  string
		toks []string
		ok   bool
	}{
		{"", nil, true},
		{"/a/b", []string{"a", "b"}, true},
		{"/a~1b/~0c", []string{"a/b", "~c"}, true},
		{"/", []string{""}, true},
		{"a/b", nil, false},
	} {
		var got []string
		ok := wire.WalkPointer(c.ptr, func(tok string) bool { got = append(got, tok); return true })
		if ok != c.ok || strings.Join(got, "|") != strings.Join(c.toks, "|") || len(got) != len(c.toks) {
			t.Errorf("%q: %q, %v; want %q, %v", c.ptr, got, ok, c.toks, c.ok)
		}
	}
	n := 0
	if wire.WalkPointer("/a/b/c", func(string) bool { n++; return n < 2 }) || n != 2 {
		t.Errorf("a step that says stop: walked %d tokens", n)
	}
}

// TestReset reuses one decoder: after a value it stopped in, after ends
// that are not the new input's, and with a depth limit of its own, Reset
// reads the next input as a new decoder with the same limit would.
func TestReset(t *testing.T) {
	var d wire.Decoder
	d.Reset([]byte(`{"a":[1,2`))
	if _, err := d.Raw(); err == nil {
		t.Fatal("a cut value: no error")
	}
	bad := []byte(`[1,,]`)
	d.SetEnds(endsAt{0, len(bad)})
	d.Reset(bad)
	if _, err := d.Raw(); err == nil {
		t.Error("the ends of the input before were kept: an invalid array read whole")
	}
	d.SetMaxDepth(2)
	d.Reset([]byte(`[[[1]]]`))
	if _, err := d.Raw(); err == nil || !strings.Contains(err.Error(), "nesting deeper than") {
		t.Errorf("depth limit 2 after Reset: %v", err)
	}
	d.Reset([]byte(` {"b" : "c"} `))
	raw, err := d.Raw()
	if err != nil || string(raw) != `{"b" : "c"}` {
		t.Errorf("after Reset: %q, %v", raw, err)
	}
}

// TestCodecCheckAt pins when a codec vouches for a value: found, decoded
// strictly, whole (at the root, nothing after it), complete, valid.
func TestCodecCheckAt(t *testing.T) {
	type pair struct{ a, b int64 }
	decode := func(d *wire.Decoder) (any, error) {
		var p pair
		if err := d.BeginArray(); err != nil {
			return nil, err
		}
		for i := 0; ; i++ {
			more, err := d.NextElem()
			if err != nil || !more {
				return &p, err
			}
			v, err := d.Int64()
			if err != nil {
				return nil, err
			}
			if i == 0 {
				p.a = v
			} else {
				p.b = v
			}
		}
	}
	ordered := wire.Codec{Name: "pair", Complete: true, Decode: decode, Check: func(c *wire.Checker, ptr string, v any) {
		if p := v.(*pair); p.a > p.b {
			c.Fail(ptr, "out of order")
		}
	}}
	incomplete := ordered
	incomplete.Complete = false
	byValue := incomplete
	byValue.CompleteValue = func(v any) bool { return v.(*pair).a == 0 }
	for _, c := range []struct {
		name  string
		codec wire.Codec
		in    string
		ptr   string
		valid bool
	}{
		{"valid at the root", ordered, `[1,2]`, "", true},
		{"valid inside", ordered, `{"p":[1,2]}`, "/p", true},
		{"constraint", ordered, `[2,1]`, "", false},
		{"decode error", ordered, `[1,"2"]`, "", false},
		{"absent", ordered, `{"q":[1,2]}`, "/p", false},
		{"trailing bytes at the root", ordered, `[1,2] x`, "", false},
		{"trailing bytes after the part do not matter", ordered, `{"p":[1,2],"q":1}`, "/p", true},
		{"incomplete codec", incomplete, `[1,2]`, "", false},
		{"complete for this value", byValue, `[0,2]`, "", true},
		{"not complete for this value", byValue, `[1,2]`, "", false},
	} {
		d := wire.NewDecoder([]byte(c.in))
		valid, known := c.codec.CheckAt(d, c.ptr)
		if valid != c.valid || known != c.valid {
			t.Errorf("%s: CheckAt(%s, %q) = %v, %v; want %v, %v", c.name, c.in, c.ptr, valid, known, c.valid, c.valid)
		}
	}
	if valid, _ := (wire.Codec{}).CheckAt(wire.NewDecoder([]byte(`[]`)), ""); valid {
		t.Error("the zero Codec vouches for a value")
	}
}

// TestQuietChecker: a quiet checker gives the same verdict with no detail,
// and builds no pointer on the way.
func TestQuietChecker(t *testing.T) {
	check := func(c *wire.Checker, v []int) {
		p := c.Join("", "items")
		for i, x := range v {
			if x < 0 {
				c.Fail(c.JoinIndex(p, i), "%d is negative", x)
			}
		}
	}
	var loud wire.Checker
	check(&loud, []int{1, -2})
	if !loud.Failed() || loud.Err() == nil || loud.Err().Error() != "/items/1: -2 is negative" {
		t.Fatalf("loud checker: failed %v, err %v", loud.Failed(), loud.Err())
	}
	var quiet wire.Checker
	quiet.Quiet()
	if quiet.Join("/a", "b") != "" || quiet.JoinIndex("/a", 3) != "" {
		t.Fatal("a quiet checker builds pointers")
	}
	check(&quiet, []int{1, 2})
	if quiet.Failed() || quiet.Err() != nil {
		t.Fatalf("quiet checker on a valid value: failed %v, err %v", quiet.Failed(), quiet.Err())
	}
	check(&quiet, []int{1, -2})
	if !quiet.Failed() || quiet.Err() == nil {
		t.Fatalf("quiet checker missed a failure: failed %v, err %v", quiet.Failed(), quiet.Err())
	}
	valid := []int{1, 2, 3}
	if n := testing.AllocsPerRun(100, func() {
		var c wire.Checker
		c.Quiet()
		check(&c, valid)
	}); n != 0 {
		t.Fatalf("a quiet check of a valid value allocates %v times", n)
	}
}
