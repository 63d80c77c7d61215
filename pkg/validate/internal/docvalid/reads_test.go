package docvalid

import (
	"math/big"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestBoundsOKRaw: the integer shortcut of the memo's bounds test gives
// the exact comparison's answer whenever it decides, for integers and
// bounds of every kind, and leaves fractions, exponents and huge numbers
// to the exact one.
func TestBoundsOKRaw(t *testing.T) {
	rat := func(s string) *big.Rat { r, _ := new(big.Rat).SetString(s); return r }
	schemas := []*jsonschema.Schema{
		{Minimum: rat("1")},
		{Maximum: rat("10")},
		{ExclusiveMinimum: rat("0"), ExclusiveMaximum: rat("100")},
		{Minimum: rat("-5"), MultipleOf: rat("3")},
		{Minimum: rat("1/2")},    // not an integer: exact comparison
		{MultipleOf: rat("0.5")}, // likewise
		{Maximum: rat("1e30")},   // beyond int64: exact comparison
		{Minimum: rat("0"), Maximum: rat("0")},
	}
	numbers := []string{"0", "-0", "1", "-1", "2", "3", "9", "10", "11", "99", "100", "-6", "-5", "-3",
		"123456789012345678", "1234567890123456789", "1.0", "1.5", "1e3", "-2.5e-1"}
	decided := 0
	for k, s := range schemas {
		for _, n := range numbers {
			want := boundsOK(s, rat(n))
			got, ok := boundsOKRaw(s, []byte(n))
			if !ok {
				continue
			}
			decided++
			if got != want {
				t.Errorf("schema %d, %s: shortcut says %v, exact comparison %v", k, n, got, want)
			}
		}
	}
	if decided < 50 {
		t.Errorf("the shortcut decided only %d cases", decided)
	}
	for _, n := range []string{"1.0", "1e3", "1234567890123456789", "-"} {
		if _, ok := smallInt([]byte(n)); ok {
			t.Errorf("smallInt(%s) decided: only plain integers of up to 18 digits are small", n)
		}
	}
	for _, n := range []string{"0", "-7", "123456789012345678"} {
		if !isInteger([]byte(n)) {
			t.Errorf("isInteger(%s) = false", n)
		}
	}
	for _, n := range []string{"1.5", "1e-3"} {
		if isInteger([]byte(n)) {
			t.Errorf("isInteger(%s) = true", n)
		}
	}
}
