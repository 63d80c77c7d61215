// Reading numbers: the literal scanner, floats, and the integer readers,
// lenient (JSON Schema's integers) and serde (serde_json's integer
// literals), one generic reader per signedness for every width.

package wire

import (
	"math/big"
	"strconv"
	"strings"
	"unsafe"
)

// number scans a number literal and reports whether it is a plain integer
// (no fraction or exponent); a value that is no number is a type error
// that wants what want names ("a number", "an integer").
func (d *Decoder) number(want string) ([]byte, bool, error) {
	d.ws()
	start := d.pos
	minus := d.pos < len(d.buf) && d.buf[d.pos] == '-'
	if minus {
		d.pos++
	}
	c := byte(0)
	if d.pos < len(d.buf) {
		c = d.buf[d.pos]
	}
	switch {
	case c == '0':
		d.pos++
	case c >= '1' && c <= '9':
		for d.pos < len(d.buf) && d.buf[d.pos] >= '0' && d.buf[d.pos] <= '9' {
			d.pos++
		}
	case minus:
		return nil, false, d.errf("want a digit after '-'")
	default:
		d.pos = start
		return nil, false, d.TypeError(want)
	}
	plain := true
	if d.pos < len(d.buf) && d.buf[d.pos] == '.' {
		plain = false
		d.pos++
		if !d.digits() {
			return nil, false, d.errf("want digits after the decimal point")
		}
	}
	if d.pos < len(d.buf) && (d.buf[d.pos] == 'e' || d.buf[d.pos] == 'E') {
		plain = false
		d.pos++
		if d.pos < len(d.buf) && (d.buf[d.pos] == '+' || d.buf[d.pos] == '-') {
			d.pos++
		}
		if !d.digits() {
			return nil, false, d.errf("want digits in the exponent")
		}
	}
	return d.buf[start:d.pos], plain, nil
}

func (d *Decoder) digits() bool {
	start := d.pos
	for d.pos < len(d.buf) && d.buf[d.pos] >= '0' && d.buf[d.pos] <= '9' {
		d.pos++
	}
	return d.pos > start
}

// Number reads a number and returns its literal text.
func (d *Decoder) Number() ([]byte, error) {
	b, _, err := d.number("a number")
	return b, err
}

// Float64 reads a number.
func (d *Decoder) Float64() (float64, error) {
	start := d.pos
	b, _, err := d.number("a number")
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
	if err != nil {
		return 0, &Error{Offset: start, Msg: "number " + string(b) + " is out of range for a 64-bit float", Code: CodeRange}
	}
	return f, nil
}

// integerText reads a number that must be an integer and returns its
// integral value's decimal text. Numbers with a zero fraction or an exponent
// (1.0, 1e3) are integers, as JSON Schema says.
func (d *Decoder) integerText() (string, int, error) {
	d.ws()
	start := d.pos
	b, plain, err := d.number("an integer")
	if err != nil {
		return "", start, err
	}
	s := unsafe.String(&b[0], len(b))
	if plain {
		return s, start, nil
	}
	if len(s) > 64 {
		return "", start, &Error{Offset: start, Msg: "number " + clip(s) + " is too long for an integer", Code: CodeRange, Keyword: boundOf(s)}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return "", start, &Error{Offset: start, Msg: "number " + clip(s) + " is not usable", Code: CodeRange, Keyword: boundOf(s)}
	}
	if !r.IsInt() {
		return "", start, &Error{Offset: start, Msg: "number " + clip(s) + " is not an integer", Code: CodeType, Keyword: "type", Got: "number", Want: []string{"integer"}}
	}
	return r.Num().String(), start, nil
}

// literalText reads a number that must be written as an integer literal,
// the way Rust's serde_json reads one for an integer type: an optional minus
// sign and digits, with no fraction and no exponent, and not -0 (which
// serde_json reads as a float). It returns the literal's text.
func (d *Decoder) literalText() (string, int, error) {
	d.ws()
	start := d.pos
	b, plain, err := d.number("an integer")
	if err != nil {
		return "", start, err
	}
	s := unsafe.String(&b[0], len(b))
	if !plain {
		return "", start, &Error{Offset: start, Msg: "number " + clip(s) + " has a fraction or an exponent; want an integer written without them (serde_json reads " + clip(s) + " as a float)", Code: CodeType, Keyword: "type", Got: "number", Want: []string{"integer"}}
	}
	if s == "-0" {
		return "", start, &Error{Offset: start, Msg: "number -0 is not an integer literal (serde_json reads it as a float); want 0", Code: CodeType, Keyword: "type", Got: "number", Want: []string{"integer"}}
	}
	return s, start, nil
}

func rangeError(start int, s string, lo, hi string) error {
	return &Error{Offset: start, Msg: "integer " + clip(s) + " is out of range " + lo + " to " + hi, Code: CodeRange, Keyword: boundOf(s)}
}

// boundOf is the keyword an integer out of its Go type's range breaks: the
// type was chosen to hold the schema's bounds, so a negative number is
// below its minimum and any other above its maximum.
func boundOf(s string) string {
	if strings.HasPrefix(s, "-") {
		return "minimum"
	}
	return "maximum"
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// intText reads a number that must be an integer and returns its decimal
// text and offset: with serde, written as serde_json requires (literalText);
// otherwise any number with an integral value (integerText).
func (d *Decoder) intText(serde bool) (string, int, error) {
	if serde {
		return d.literalText()
	}
	return d.integerText()
}

// signed reads an integer in the range of T, the one reader behind Int64
// to Int8 and their Serde twins. T's size is known where each instance is
// compiled, so the bounds cost nothing at run time.
func signed[T int8 | int16 | int32 | int64](d *Decoder, serde bool) (T, error) {
	s, start, err := d.intText(serde)
	if err != nil {
		return 0, err
	}
	lo := int64(-1) << (8*unsafe.Sizeof(T(0)) - 1)
	hi := ^lo
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < lo || v > hi {
		return 0, rangeError(start, s, strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10))
	}
	return T(v), nil
}

// unsigned reads an integer in the range of T, the one reader behind Uint64
// to Uint8 and their Serde twins.
func unsigned[T uint8 | uint16 | uint32 | uint64](d *Decoder, serde bool) (T, error) {
	s, start, err := d.intText(serde)
	if err != nil {
		return 0, err
	}
	if s == "-0" {
		s = "0" // the integer zero, as JSON Schema reads -0 (serde rejects it first)
	}
	hi := uint64(^T(0))
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v > hi {
		return 0, rangeError(start, s, "0", strconv.FormatUint(hi, 10))
	}
	return T(v), nil
}

// Int64 reads an integer in the int64 range.
func (d *Decoder) Int64() (int64, error) { return signed[int64](d, false) }

// Int32 reads an integer in the int32 range.
func (d *Decoder) Int32() (int32, error) { return signed[int32](d, false) }

// Int16 reads an integer in the int16 range.
func (d *Decoder) Int16() (int16, error) { return signed[int16](d, false) }

// Int8 reads an integer in the int8 range.
func (d *Decoder) Int8() (int8, error) { return signed[int8](d, false) }

// Uint64 reads an integer in the uint64 range.
func (d *Decoder) Uint64() (uint64, error) { return unsigned[uint64](d, false) }

// Uint32 reads an integer in the uint32 range.
func (d *Decoder) Uint32() (uint32, error) { return unsigned[uint32](d, false) }

// Uint16 reads an integer in the uint16 range.
func (d *Decoder) Uint16() (uint16, error) { return unsigned[uint16](d, false) }

// Uint8 reads an integer in the uint8 range.
func (d *Decoder) Uint8() (uint8, error) { return unsigned[uint8](d, false) }

// Int64Serde reads an integer in the int64 range written as serde_json
// requires for an integer type: no fraction, no exponent, not -0. Code
// generated with serde integers calls the ...Serde readers; the others
// accept any number with an integral value (1.0, 1e2), as JSON Schema does.
func (d *Decoder) Int64Serde() (int64, error) { return signed[int64](d, true) }

// Int32Serde is Int32 with serde_json's integer literals (see Int64Serde).
func (d *Decoder) Int32Serde() (int32, error) { return signed[int32](d, true) }

// Int16Serde is Int16 with serde_json's integer literals (see Int64Serde).
func (d *Decoder) Int16Serde() (int16, error) { return signed[int16](d, true) }

// Int8Serde is Int8 with serde_json's integer literals (see Int64Serde).
func (d *Decoder) Int8Serde() (int8, error) { return signed[int8](d, true) }

// Uint64Serde is Uint64 with serde_json's integer literals (see Int64Serde).
func (d *Decoder) Uint64Serde() (uint64, error) { return unsigned[uint64](d, true) }

// Uint32Serde is Uint32 with serde_json's integer literals (see Int64Serde).
func (d *Decoder) Uint32Serde() (uint32, error) { return unsigned[uint32](d, true) }

// Uint16Serde is Uint16 with serde_json's integer literals (see Int64Serde).
func (d *Decoder) Uint16Serde() (uint16, error) { return unsigned[uint16](d, true) }

// Uint8Serde is Uint8 with serde_json's integer literals (see Int64Serde).
func (d *Decoder) Uint8Serde() (uint8, error) { return unsigned[uint8](d, true) }
