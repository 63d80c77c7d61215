// What a ValidateDoc run read of the document: string and number contents,
// or only a test's answer (pattern, format, integer).

package docvalid

import (
	"math/big"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/internal/jsonscan"
)

// read notes that the contents of string node i were read.
func (v *docValidator) read(i int) {
	if v.reads != nil {
		if k := v.d.Type(i); k == jsonscan.String || k == jsonscan.Number {
			*v.reads = append(*v.reads, read{node: i})
		}
	}
}

// read is what a validation learnt from a string or number: its contents,
// or only whether a pattern or a format accepts it, or whether a number
// is an integer (by value, or as a literal).
type read struct {
	node    int
	pattern jsonschema.Regexp
	format  *jsonschema.Format
	as      int                // one of the read tests, else 0
	ok      bool               // what the pattern, format or test said
	sch     *jsonschema.Schema // whose bounds readLength and readBounds tested
}

// The tests of a string or number a read may be.
const (
	readInteger = 1 + iota // an integer by value (JSON Schema's integer)
	readLiteral            // an integer literal (compile.IsIntegerLiteral)
	readLength             // a string whose length sch's bounds accept
	readBounds             // a number sch's bounds accept
)

// readTest notes that node i was only found within the bounds of s
// (readLength or readBounds): a value that passed them is not quoted, so
// any other value they accept is validated and explained the same way.
func (v *docValidator) readTest(i, as int, s *jsonschema.Schema) {
	if v.reads != nil {
		*v.reads = append(*v.reads, read{node: i, as: as, ok: true, sch: s})
	}
}

// lengthOK reports whether a string of n characters passes the length
// bounds of s.
func lengthOK(s *jsonschema.Schema, n int) bool {
	return (s.MinLength == nil || n >= *s.MinLength) && (s.MaxLength == nil || n <= *s.MaxLength)
}

// boundsOK reports whether num passes the numeric bounds of s (minimum,
// maximum, their exclusive forms and multipleOf).
func boundsOK(s *jsonschema.Schema, num *big.Rat) bool {
	switch {
	case s.Minimum != nil && num.Cmp(s.Minimum) < 0,
		s.Maximum != nil && num.Cmp(s.Maximum) > 0,
		s.ExclusiveMinimum != nil && num.Cmp(s.ExclusiveMinimum) <= 0,
		s.ExclusiveMaximum != nil && num.Cmp(s.ExclusiveMaximum) >= 0:
		return false
	case s.MultipleOf != nil:
		return new(big.Rat).Quo(num, s.MultipleOf).IsInt()
	}
	return true
}

// boundsOKRaw is boundsOK for a JSON number's text; decided is false
// when it needs the exact value (a number or a bound that is not a small
// integer), and the caller compares with ratOf.
func boundsOKRaw(s *jsonschema.Schema, raw []byte) (ok, decided bool) {
	n, small := smallInt(raw)
	if !small {
		return false, false
	}
	for _, b := range []*big.Rat{s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum, s.MultipleOf} {
		if b != nil && (!b.IsInt() || !b.Num().IsInt64()) {
			return false, false
		}
	}
	at := func(b *big.Rat) int64 { return b.Num().Int64() }
	switch {
	case s.Minimum != nil && n < at(s.Minimum),
		s.Maximum != nil && n > at(s.Maximum),
		s.ExclusiveMinimum != nil && n <= at(s.ExclusiveMinimum),
		s.ExclusiveMaximum != nil && n >= at(s.ExclusiveMaximum):
		return false, true
	case s.MultipleOf != nil:
		m := at(s.MultipleOf)
		if m <= 0 {
			return false, false
		}
		return n%m == 0, true
	}
	return true, true
}

// ratOf is the exact value of a JSON number's text, as v6 reads it; nil
// when it has none.
func ratOf(raw []byte) *big.Rat {
	r, ok := new(big.Rat).SetString(string(raw))
	if !ok {
		return nil
	}
	return r
}

// readAs notes that number node i was only tested, as one of the read
// tests, with the answer ok.
func (v *docValidator) readAs(i, as int, ok bool) {
	if v.reads != nil {
		*v.reads = append(*v.reads, read{node: i, as: as, ok: ok})
	}
}

// isInteger reports whether a JSON number's text has an integral value,
// as v6 decides it.
func isInteger(raw []byte) bool {
	if _, ok := smallInt(raw); ok {
		return true
	}
	r, ok := new(big.Rat).SetString(string(raw))
	return ok && r.IsInt()
}

// smallInt is the value of a JSON number written as an integer of at
// most 18 digits (no fraction, no exponent), which an int64 holds.
func smallInt(raw []byte) (int64, bool) {
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(raw) > len(digits) {
		n = -n
	}
	return n, true
}

// readPattern notes that string node i was only asked whether p matches.
func (v *docValidator) readPattern(i int, p jsonschema.Regexp, ok bool) {
	if v.reads != nil {
		*v.reads = append(*v.reads, read{node: i, pattern: p, ok: ok})
	}
}

// readFormat notes that string node i was only asked whether f accepts it.
func (v *docValidator) readFormat(i int, f *jsonschema.Format, ok bool) {
	if v.reads != nil {
		*v.reads = append(*v.reads, read{node: i, format: f, ok: ok})
	}
}

// readTree notes that the contents of every string and number in node i
// were read.
func (v *docValidator) readTree(i int) {
	if v.reads != nil {
		readTree(v.d, i, v.reads)
	}
}

func readTree(d *jsonscan.Doc, i int, reads *[]read) {
	switch d.Type(i) {
	case jsonscan.String, jsonscan.Number:
		*reads = append(*reads, read{node: i})
	case jsonscan.Object:
		d.MemberBytes(i, func(_ []byte, m int) bool { readTree(d, m, reads); return true })
	case jsonscan.Array:
		d.Elements(i, func(e int) bool { readTree(d, e, reads); return true })
	}
}

// number is the exact value of number node i, as v6 reads it.
func (v *docValidator) number(i int) *big.Rat {
	v.read(i)
	r, _ := new(big.Rat).SetString(string(v.d.Raw(i)))
	return r
}
