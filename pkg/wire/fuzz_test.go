package wire_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentproto/agentproto/pkg/wire"
)

// FuzzDecode: the decoder never panics, agrees with encoding/json on what
// is well-formed (except where it is deliberately stricter: invalid UTF-8,
// lone surrogates, depth), and returns the value's bytes exactly.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}],"c":"\u00e9"}`, `[]`, `"x"`, `-1.5e3`, `{"a":1,}`, `"\ud800"`, "[\"\xff\"]", `[[[[[[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSerdeIntegers(t, data)
		var r rawValue
		err := wire.Unmarshal(data, &r)
		if err == nil {
			if !json.Valid(data) {
				t.Fatalf("accepted invalid JSON %q", data)
			}
			if !json.Valid(r.v) || !bytes.Equal(bytes.TrimSpace(data), r.v) {
				t.Fatalf("raw bytes %q are not the value of %q", r.v, data)
			}
			return
		}
		var we *wire.Error
		if e, ok := err.(*wire.Error); ok {
			we = e
		}
		if we == nil {
			t.Fatalf("error %T %v is not a *wire.Error", err, err)
		}
		if we.Code == wire.CodeSyntax && json.Valid(data) {
			t.Fatalf("rejected valid JSON %q as a syntax error: %v", data, err)
		}
	})
}

// checkSerdeIntegers: the serde readers take exactly the numbers the lenient
// readers take that are written as integer literals (no '.', 'e', 'E', and
// not -0), with the same value.
func checkSerdeIntegers(t *testing.T, data []byte) {
	whole := func(d *wire.Decoder, err error) error {
		if err == nil {
			err = d.End()
		}
		return err
	}
	dl, ds := wire.NewDecoder(data), wire.NewDecoder(data)
	lenient, lerr := dl.Int64()
	lerr = whole(dl, lerr)
	strict, serr := ds.Int64Serde()
	serr = whole(ds, serr)
	literal := !bytes.ContainsAny(data, ".eE") && string(bytes.TrimSpace(data)) != "-0"
	switch {
	case serr == nil && (lerr != nil || strict != lenient):
		t.Fatalf("Int64Serde(%q) = %d, Int64 = %d, %v", data, strict, lenient, lerr)
	case serr == nil && !literal:
		t.Fatalf("Int64Serde(%q) took a number that is not an integer literal", data)
	case serr != nil && lerr == nil && literal:
		t.Fatalf("Int64Serde(%q): %v, but Int64 took the integer literal", data, serr)
	}
}
