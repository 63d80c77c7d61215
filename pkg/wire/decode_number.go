// Reading numbers: the literal scanner, floats, and the integer readers,
// lenient (JSON Schema's integers) and serde (serde_json's integer
// literals).

package wire

import (
	"math"
	"math/big"
	"strconv"
	"unsafe"
)

// number scans a number literal and reports whether it is a plain integer
// (no fraction or exponent).
func (d *Decoder) number() ([]byte, bool, error) {
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
		return nil, false, d.TypeError("a number")
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
	b, _, err := d.number()
	return b, err
}

// Float64 reads a number.
func (d *Decoder) Float64() (float64, error) {
	start := d.pos
	b, _, err := d.number()
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
	b, plain, err := d.number()
	if err != nil {
		return "", start, err
	}
	s := unsafe.String(&b[0], len(b))
	if plain {
		return s, start, nil
	}
	if len(s) > 64 {
		return "", start, &Error{Offset: start, Msg: "number " + clip(s) + " is too long for an integer", Code: CodeRange}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return "", start, &Error{Offset: start, Msg: "number " + clip(s) + " is not usable", Code: CodeRange}
	}
	if !r.IsInt() {
		return "", start, &Error{Offset: start, Msg: "number " + clip(s) + " is not an integer", Code: CodeType}
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
	b, plain, err := d.number()
	if err != nil {
		return "", start, err
	}
	s := unsafe.String(&b[0], len(b))
	if !plain {
		return "", start, &Error{Offset: start, Msg: "number " + clip(s) + " has a fraction or an exponent; want an integer written without them (serde_json reads " + clip(s) + " as a float)", Code: CodeType}
	}
	if s == "-0" {
		return "", start, &Error{Offset: start, Msg: "number -0 is not an integer literal (serde_json reads it as a float); want 0", Code: CodeType}
	}
	return s, start, nil
}

func rangeError(start int, s string, lo, hi string) error {
	return &Error{Offset: start, Msg: "integer " + clip(s) + " is out of range " + lo + " to " + hi, Code: CodeRange}
}

func (d *Decoder) signed(lo, hi int64) (int64, error) {
	s, start, err := d.integerText()
	if err != nil {
		return 0, err
	}
	return parseSigned(s, start, lo, hi)
}

func (d *Decoder) signedLiteral(lo, hi int64) (int64, error) {
	s, start, err := d.literalText()
	if err != nil {
		return 0, err
	}
	return parseSigned(s, start, lo, hi)
}

func parseSigned(s string, start int, lo, hi int64) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < lo || v > hi {
		return 0, rangeError(start, s, strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10))
	}
	return v, nil
}

func (d *Decoder) unsigned(hi uint64) (uint64, error) {
	s, start, err := d.integerText()
	if err != nil {
		return 0, err
	}
	if s == "-0" {
		s = "0" // the integer zero, as JSON Schema reads -0
	}
	return parseUnsigned(s, start, hi)
}

func (d *Decoder) unsignedLiteral(hi uint64) (uint64, error) {
	s, start, err := d.literalText()
	if err != nil {
		return 0, err
	}
	return parseUnsigned(s, start, hi)
}

func parseUnsigned(s string, start int, hi uint64) (uint64, error) {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v > hi {
		return 0, rangeError(start, s, "0", strconv.FormatUint(hi, 10))
	}
	return v, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// Int64 reads an integer in the int64 range.
func (d *Decoder) Int64() (int64, error) { return d.signed(math.MinInt64, math.MaxInt64) }

// Int32 reads an integer in the int32 range.
func (d *Decoder) Int32() (int32, error) {
	v, err := d.signed(math.MinInt32, math.MaxInt32)
	return int32(v), err
}

// Int16 reads an integer in the int16 range.
func (d *Decoder) Int16() (int16, error) {
	v, err := d.signed(math.MinInt16, math.MaxInt16)
	return int16(v), err
}

// Int8 reads an integer in the int8 range.
func (d *Decoder) Int8() (int8, error) {
	v, err := d.signed(math.MinInt8, math.MaxInt8)
	return int8(v), err
}

// Uint64 reads an integer in the uint64 range.
func (d *Decoder) Uint64() (uint64, error) { return d.unsigned(math.MaxUint64) }

// Uint32 reads an integer in the uint32 range.
func (d *Decoder) Uint32() (uint32, error) {
	v, err := d.unsigned(math.MaxUint32)
	return uint32(v), err
}

// Uint16 reads an integer in the uint16 range.
func (d *Decoder) Uint16() (uint16, error) {
	v, err := d.unsigned(math.MaxUint16)
	return uint16(v), err
}

// Uint8 reads an integer in the uint8 range.
func (d *Decoder) Uint8() (uint8, error) {
	v, err := d.unsigned(math.MaxUint8)
	return uint8(v), err
}

// Int64Serde reads an integer in the int64 range written as serde_json
// requires for an integer type: no fraction, no exponent, not -0. Code
// generated with serde integers calls the ...Serde readers; the others
// accept any number with an integral value (1.0, 1e2), as JSON Schema does.
func (d *Decoder) Int64Serde() (int64, error) { return d.signedLiteral(math.MinInt64, math.MaxInt64) }

// Int32Serde is Int32 with serde_json's integer literals (see Int64Serde).
func (d *Decoder) Int32Serde() (int32, error) {
	v, err := d.signedLiteral(math.MinInt32, math.MaxInt32)
	return int32(v), err
}

// Int16Serde is Int16 with serde_json's integer literals (see Int64Serde).
func (d *Decoder) Int16Serde() (int16, error) {
	v, err := d.signedLiteral(math.MinInt16, math.MaxInt16)
	return int16(v), err
}

// Int8Serde is Int8 with serde_json's integer literals (see Int64Serde).
func (d *Decoder) Int8Serde() (int8, error) {
	v, err := d.signedLiteral(math.MinInt8, math.MaxInt8)
	return int8(v), err
}

// Uint64Serde is Uint64 with serde_json's integer literals (see Int64Serde).
func (d *Decoder) Uint64Serde() (uint64, error) { return d.unsignedLiteral(math.MaxUint64) }

// Uint32Serde is Uint32 with serde_json's integer literals (see Int64Serde).
func (d *Decoder) Uint32Serde() (uint32, error) {
	v, err := d.unsignedLiteral(math.MaxUint32)
	return uint32(v), err
}

// Uint16Serde is Uint16 with serde_json's integer literals (see Int64Serde).
func (d *Decoder) Uint16Serde() (uint16, error) {
	v, err := d.unsignedLiteral(math.MaxUint16)
	return uint16(v), err
}

// Uint8Serde is Uint8 with serde_json's integer literals (see Int64Serde).
func (d *Decoder) Uint8Serde() (uint8, error) {
	v, err := d.unsignedLiteral(math.MaxUint8)
	return uint8(v), err
}
