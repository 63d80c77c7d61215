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
