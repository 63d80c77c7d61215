package wire

import (
	"cmp"
	"math"
	"math/big"
	"slices"
	"strconv"
)

// SortedKeys returns the keys of m in ascending order, so that maps encode
// deterministically.
func SortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// MultipleOf reports whether v is an integer multiple of the decimal
// literal m, exactly.
func MultipleOf(v float64, m string) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	rv, ok1 := new(big.Rat).SetString(strconv.FormatFloat(v, 'g', -1, 64))
	rm, ok2 := new(big.Rat).SetString(m)
	if !ok1 || !ok2 || rm.Sign() == 0 {
		return false
	}
	return new(big.Rat).Quo(rv, rm).IsInt()
}
