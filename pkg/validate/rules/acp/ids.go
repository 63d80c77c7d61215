package acp

import (
	"bytes"
	"strconv"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// appendIDKey appends the key of the request id at node n of d, with its
// sender, so that ids compare as JSON-RPC peers compare them: a string only
// with the same string, a number with any number of the same value (1, 1.0
// and 1e0 are one id; -0 is 0). The string "1" and the number 1 differ.
// An id that is neither a string nor a number has no key.
func appendIDKey(dst []byte, dir string, d *jsonscan.Doc, n int) ([]byte, bool) {
	switch d.Type(n) {
	case jsonscan.String:
		b, _ := d.StringBytes(n)
		return append(append(append(dst, dir...), " s:"...), b...), true
	case jsonscan.Number:
		return appendCanonicalNumber(append(append(dst, dir...), " n:"...), d.Raw(n)), true
	}
	return dst, false
}

// appendCanonicalNumber appends a JSON number literal as digits and a power
// of ten with no leading or trailing zeros ("1.50e1" → "15e0", "-0.0" →
// "0"), so that equal values have equal text. Its work is linear in the
// literal: no arbitrary-precision arithmetic, and no allocation beyond dst.
func appendCanonicalNumber(dst, lit []byte) []byte {
	neg := len(lit) > 0 && lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	mant, exp := lit, []byte(nil)
	if i := bytes.IndexAny(lit, "eE"); i >= 0 {
		mant, exp = lit[:i], lit[i+1:]
	}
	intPart, frac, _ := bytes.Cut(mant, []byte("."))
	// The digits are intPart then frac; the value is digits ×
	// 10^(e - len(frac)). Trim the zeros at both ends of the digits.
	total := len(intPart) + len(frac)
	digit := func(i int) byte {
		if i < len(intPart) {
			return intPart[i]
		}
		return frac[i-len(intPart)]
	}
	lo, hi := 0, total
	for lo < hi && digit(lo) == '0' {
		lo++
	}
	for hi > lo && digit(hi-1) == '0' {
		hi--
	}
	if lo == hi {
		return append(dst, '0')
	}
	shift := -len(frac) + total - hi
	if neg {
		dst = append(dst, '-')
	}
	if lo < len(intPart) {
		dst = append(dst, intPart[lo:min(hi, len(intPart))]...)
	}
	if hi > len(intPart) {
		dst = append(dst, frac[max(lo, len(intPart))-len(intPart):hi-len(intPart)]...)
	}
	dst = append(dst, 'e')
	e, ok := smallInt(exp)
	if !ok {
		// An exponent too large to add to: keep its text, so that
		// only identical literals match.
		dst = strconv.AppendInt(dst, int64(shift), 10)
		return append(append(dst, '+'), exp...)
	}
	return strconv.AppendInt(dst, int64(shift+e), 10)
}

// smallInt parses an exponent that fits comfortably in an int (the
// conversion to a string stays on the stack: Atoi keeps none of it).
func smallInt(s []byte) (int, bool) {
	if len(s) == 0 {
		return 0, true
	}
	if len(s) > 10 {
		return 0, false
	}
	n, err := strconv.Atoi(string(s))
	return n, err == nil
}

// idKey returns the key of the id at node n of the message (appendIDKey),
// in the state's scratch: valid until the state steps the next message.
func (s *state) idKey(dir string, m *protocol.Message, n int) ([]byte, bool) {
	start := len(s.idScratch)
	k, ok := appendIDKey(s.idScratch, dir, &m.Doc, n)
	s.idScratch = k
	return k[start:len(k):len(k)], ok
}

// readableID reports whether the id at node n is one JSON-RPC allows a
// request: a string or an integer.
func readableID(d *jsonscan.Doc, n int) bool {
	switch d.Type(n) {
	case jsonscan.String:
		return true
	case jsonscan.Number:
		return !bytes.ContainsAny(d.Raw(n), ".eE")
	}
	return false
}
