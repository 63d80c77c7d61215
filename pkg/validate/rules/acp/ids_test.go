package acp

import (
	"testing"

	"github.com/agentproto/agentproto/internal/jsonscan"
)

// idKeyOf is the key of the id written as the JSON text lit.
func idKeyOf(t *testing.T, lit string) string {
	t.Helper()
	var a jsonscan.Arena
	d, err := a.Parse([]byte(`{"id":`+lit+`}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	k, ok := appendIDKey([]byte("kept:"), "c2a", &d, d.Member(d.Root(), "id"))
	if !ok {
		t.Fatalf("%s: no key", lit)
	}
	return string(k)
}

func TestIDsCompareByValue(t *testing.T) {
	same := [][2]string{{"1", "1.0"}, {"1", "1e0"}, {"1", "0.1e1"}, {"15", "1.50e1"}, {"-0", "0"}, {"0", "0.000e5"}, {"100", "1E2"}, {"-2", "-2.0"}, {"12345678901234567890", "1234567890123456789e1"}, {"0.05", "5e-2"}, {"-120.5e+3", "-1205E2"}, {`"a\u0062"`, `"ab"`}}
	for _, p := range same {
		if a, b := idKeyOf(t, p[0]), idKeyOf(t, p[1]); a != b {
			t.Errorf("%s and %s are one id to a JSON-RPC peer, got keys %q and %q", p[0], p[1], a, b)
		}
	}
	differ := [][2]string{{"1", "2"}, {"1", "-1"}, {"10", "1"}, {"1.5", "15"}, {"12345678901234567890", "12345678901234567891"}, {"1e000000000002", "1e000000000001"}, {"0.5", "5"}, {"-0.5", "0.5"}, {`"1"`, "1"}, {`"ab"`, `"a"`}}
	for _, p := range differ {
		if a, b := idKeyOf(t, p[0]), idKeyOf(t, p[1]); a == b {
			t.Errorf("%s and %s are different ids, got one key %q", p[0], p[1], a)
		}
	}
	// The key is appended: what the buffer held stays.
	if k := idKeyOf(t, "1.50e1"); k != "kept:c2a n:15e0" {
		t.Errorf("1.50e1: key %q, want %q", k, "kept:c2a n:15e0")
	}
}
