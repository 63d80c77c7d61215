package acp

import (
	"encoding/json"
	"strconv"
	"strings"
)

// idKey renders a request id with its sender so that ids compare as
// JSON-RPC peers compare them: a string only with the same string, a number
// with any number of the same value (1, 1.0 and 1e0 are one id; -0 is 0).
// The string "1" and the number 1 differ.
func idKey(dir string, id any) (string, bool) {
	switch v := id.(type) {
	case string:
		return dir + " s:" + v, true
	case json.Number:
		return dir + " n:" + canonicalNumber(string(v)), true
	}
	return "", false
}

// canonicalNumber rewrites a JSON number literal as digits and a power of
// ten with no leading or trailing zeros ("1.50e1" → "15e0", "-0.0" → "0"),
// so that equal values have equal text. Its work is linear in the
// literal: no arbitrary-precision arithmetic.
func canonicalNumber(lit string) string {
	neg := strings.HasPrefix(lit, "-")
	lit = strings.TrimPrefix(lit, "-")
	mant, exp := lit, ""
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		mant, exp = lit[:i], lit[i+1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	// The value is digits × 10^(e - len(frac)), before trimming.
	shift := -len(frac)
	trimmed := strings.TrimRight(digits, "0")
	shift += len(digits) - len(trimmed)
	if trimmed == "" {
		return "0"
	}
	e, ok := smallInt(exp)
	if !ok {
		// An exponent too large to add to: keep its text, so that
		// only identical literals match.
		return sign(neg) + trimmed + "e" + strconv.Itoa(shift) + "+" + exp
	}
	return sign(neg) + trimmed + "e" + strconv.Itoa(shift+e)
}

func sign(neg bool) string {
	if neg {
		return "-"
	}
	return ""
}

// smallInt parses an exponent that fits comfortably in an int.
func smallInt(s string) (int, bool) {
	if s == "" {
		return 0, true
	}
	if len(s) > 10 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}
