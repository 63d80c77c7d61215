package wire

import "testing"

// TestPeekIntTag: an integer tag reads as its value's decimal text, in any
// of the forms JSON writes an integral number; a member that is no integer
// is an error at the tag; nothing is consumed.
func TestPeekIntTag(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"code":-32601,"message":"m"}`, "-32601"},
		{`{"message":"m","code":-32601.0}`, "-32601"},
		{`{"code":-3.2601e4}`, "-32601"},
		{`{"code":-0}`, "0"},
		{`{"code":7}`, "7"},
	} {
		d := NewDecoder([]byte(c.in))
		got, ok, err := d.PeekIntTag("code")
		if err != nil || !ok || got != c.want {
			t.Errorf("%s: %q %v %v, want %q", c.in, got, ok, err, c.want)
		}
		if _, err := d.Raw(); err != nil {
			t.Errorf("%s: the value was consumed: %v", c.in, err)
		}
	}
	if _, ok, err := NewDecoder([]byte(`{"message":"m"}`)).PeekIntTag("code"); ok || err != nil {
		t.Errorf("no tag: %v %v", ok, err)
	}
	for _, in := range []string{`{"code":"-32601"}`, `{"code":1.5}`, `{"code":null}`} {
		_, _, err := NewDecoder([]byte(in)).PeekIntTag("code")
		we, ok := err.(*Error)
		if !ok || we.Code != CodeTag || we.Pointer != "/code" {
			t.Errorf("%s: %v, want a tag error at /code", in, err)
		}
	}
}

// TestIntText: an integer's text is written as it is; other text is an
// encoding error.
func TestIntText(t *testing.T) {
	e := NewEncoder(nil)
	e.IntText("-32099")
	if string(e.Bytes()) != "-32099" || e.Err() != nil {
		t.Errorf("%s %v", e.Bytes(), e.Err())
	}
	for _, bad := range []string{"", "-", "01", "1.5", "x", `1,"a":2`} {
		e := NewEncoder(nil)
		e.IntText(bad)
		if e.Err() == nil {
			t.Errorf("%q encoded as %s", bad, e.Bytes())
		}
	}
}

// TestSameInt: a number read as it was written has an integer's value in
// any of JSON's forms for it, and no other.
func TestSameInt(t *testing.T) {
	for _, c := range []struct {
		raw, want string
		same      bool
	}{
		{"-32601", "-32601", true}, {"-32601.0", "-32601", true}, {"-3.2601e4", "-32601", true},
		{"-0", "0", true}, {"0.0", "0", true}, {"-32601.5", "-32601", false}, {"-32600", "-32601", false},
		{`"-32601"`, "-32601", false}, {"null", "0", false}, {"", "0", false},
	} {
		if got := SameInt([]byte(c.raw), c.want); got != c.same {
			t.Errorf("SameInt(%s, %s) = %v", c.raw, c.want, got)
		}
	}
}
