package acp

import (
	"encoding/json"
	"testing"
)

func TestIDsCompareByValue(t *testing.T) {
	same := [][2]string{{"1", "1.0"}, {"1", "1e0"}, {"1", "0.1e1"}, {"15", "1.50e1"}, {"-0", "0"}, {"0", "0.000e5"}, {"100", "1E2"}, {"-2", "-2.0"}, {"12345678901234567890", "1234567890123456789e1"}}
	for _, p := range same {
		a, _ := idKey("c2a", json.Number(p[0]))
		b, _ := idKey("c2a", json.Number(p[1]))
		if a != b {
			t.Errorf("%s and %s are one id to a JSON-RPC peer, got keys %q and %q", p[0], p[1], a, b)
		}
	}
	differ := [][2]string{{"1", "2"}, {"1", "-1"}, {"10", "1"}, {"1.5", "15"}, {"12345678901234567890", "12345678901234567891"}, {"1e99999999999", "1e99999999998"}}
	for _, p := range differ {
		a, _ := idKey("c2a", json.Number(p[0]))
		b, _ := idKey("c2a", json.Number(p[1]))
		if a == b {
			t.Errorf("%s and %s are different ids, got one key %q", p[0], p[1], a)
		}
	}
	if a, _ := idKey("c2a", "1"); a == func() string { k, _ := idKey("c2a", json.Number("1")); return k }() {
		t.Error(`the string "1" and the number 1 are different ids`)
	}
}
