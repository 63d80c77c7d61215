package wire

import (
	"math"
	"math/big"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/agentproto/agentproto/internal/strscan"
)

// DefaultMaxDepth is the nesting depth at which a Decoder gives up with an
// error instead of descending further.
const DefaultMaxDepth = 10000

// Decoder reads JSON values from an immutable byte slice. It is strict:
// invalid UTF-8, lone surrogate escapes, control characters in strings,
// duplicate-free structure and trailing data are all checked. Strings
// without escapes share memory with the input, which must therefore not be
// modified while decoded values are in use (Unmarshal copies its input).
type Decoder struct {
	buf      []byte
	pos      int
	depth    int
	maxDepth int
	skip     string
	raws     int // values read whole by Raw
	ends     Ends
}

// Ends says where the arrays and objects of a decoder's input end.
type Ends interface {
	// End returns the offset just after the array or object that begins
	// at byte start, or -1.
	End(start int) int
}

// A Finder is an Ends that also says where the value at a JSON pointer
// begins, so that Seek goes there at once rather than reading its way.
type Finder interface {
	Ends
	// ValueStart returns the offset where the value at pointer begins,
	// and whether there is one.
	ValueStart(pointer string) (start int, found bool)
}

// SetEnds tells the decoder where the arrays and objects of its input end:
// Skip, Raw and the decoder's own skipping then step over such a value
// without reading it. Give it only for input a strict JSON parser has
// already accepted whole (the caller's own parse of the same bytes), since
// a value stepped over is not checked.
func (d *Decoder) SetEnds(ends Ends) { d.ends = ends }

// NewDecoder returns a Decoder over data.
func NewDecoder(data []byte) *Decoder {
	return &Decoder{buf: data, maxDepth: DefaultMaxDepth}
}

// Reset makes d read data from its start, as a new decoder would: it
// keeps its depth limit and forgets its Ends and everything it has read,
// so one decoder can serve many inputs without allocating.
func (d *Decoder) Reset(data []byte) {
	*d = Decoder{buf: data, maxDepth: d.maxDepth}
	if d.maxDepth <= 0 {
		d.maxDepth = DefaultMaxDepth
	}
}

// SetMaxDepth sets the nesting limit (DefaultMaxDepth if n <= 0).
func (d *Decoder) SetMaxDepth(n int) {
	if n <= 0 {
		n = DefaultMaxDepth
	}
	d.maxDepth = n
}

// Offset is the byte offset of the next unread byte.
func (d *Decoder) Offset() int { return d.pos }

// SkipKey asks the next object decoded to ignore the member named key: a
// union sets it to the tag it has already read before decoding the variant.
func (d *Decoder) SkipKey(key string) { d.skip = key }

// TakeSkip returns the key set by SkipKey and clears it. Generated object
// decoders call it first, before decoding any nested value.
func (d *Decoder) TakeSkip() string {
	s := d.skip
	d.skip = ""
	return s
}

func (d *Decoder) ws() {
	for d.pos < len(d.buf) {
		switch d.buf[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// prev returns the last non-whitespace byte before the read position.
func (d *Decoder) prev() byte {
	for i := d.pos - 1; i >= 0; i-- {
		switch c := d.buf[i]; c {
		case ' ', '\t', '\n', '\r':
		default:
			return c
		}
	}
	return 0
}

// Kind reports the kind of the next value without consuming it.
func (d *Decoder) Kind() Kind {
	d.ws()
	if d.pos >= len(d.buf) {
		return KindInvalid
	}
	return kindOf(d.buf[d.pos])
}

func kindOf(c byte) Kind {
	switch c {
	case '{':
		return KindObject
	case '[':
		return KindArray
	case '"':
		return KindString
	case 't', 'f':
		return KindBool
	case 'n':
		return KindNull
	}
	if c == '-' || (c >= '0' && c <= '9') {
		return KindNumber
	}
	return KindInvalid
}

func (d *Decoder) errf(format string, args ...any) error {
	return newError(d.pos, format, args...)
}

// TypeError reports that the next value has the wrong kind for want (a
// phrase such as "a string").
func (d *Decoder) TypeError(want string) error {
	d.ws()
	if d.pos >= len(d.buf) {
		return d.errf("unexpected end of input, want %s", want)
	}
	k := kindOf(d.buf[d.pos])
	if k == KindInvalid {
		return d.errf("invalid character %q, want %s", d.buf[d.pos], want)
	}
	return &Error{Offset: d.pos, Msg: "got " + k.String() + ", want " + want, Code: CodeType}
}

// End checks that only whitespace follows the value just read.
func (d *Decoder) End() error {
	d.ws()
	if d.pos != len(d.buf) {
		return d.errf("unexpected data after the JSON value")
	}
	return nil
}

// IsNull reports whether the next value is null, and consumes it if so.
func (d *Decoder) IsNull() (bool, error) {
	d.ws()
	if d.pos < len(d.buf) && d.buf[d.pos] == 'n' {
		return true, d.literal("null")
	}
	return false, nil
}

func (d *Decoder) literal(lit string) error {
	if len(d.buf)-d.pos < len(lit) || string(d.buf[d.pos:d.pos+len(lit)]) != lit {
		return d.errf("invalid literal, want %s", lit)
	}
	d.pos += len(lit)
	return nil
}

// Bool reads true or false.
func (d *Decoder) Bool() (bool, error) {
	d.ws()
	if d.pos < len(d.buf) {
		switch d.buf[d.pos] {
		case 't':
			return true, d.literal("true")
		case 'f':
			return false, d.literal("false")
		}
	}
	return false, d.TypeError("a boolean")
}

// BeginObject consumes '{'. Call NextKey until it reports false.
func (d *Decoder) BeginObject() error {
	d.ws()
	if d.pos >= len(d.buf) || d.buf[d.pos] != '{' {
		return d.TypeError("an object")
	}
	d.depth++
	if d.depth > d.maxDepth {
		return d.errf("nesting deeper than %d levels", d.maxDepth)
	}
	d.pos++
	return nil
}

// NextKey reads the next member name of the current object and its ':'. It
// returns false after consuming the closing '}'. The returned bytes are valid
// until the next call on d.
func (d *Decoder) NextKey() ([]byte, bool, error) {
	d.ws()
	if d.pos >= len(d.buf) {
		return nil, false, d.errf("unexpected end of input in an object")
	}
	c := d.buf[d.pos]
	if c == '}' {
		if d.prev() == ',' {
			return nil, false, d.errf("trailing comma before '}'")
		}
		d.pos++
		d.depth--
		return nil, false, nil
	}
	if c == ',' {
		if d.prev() == '{' {
			return nil, false, d.errf("unexpected ',' after '{'")
		}
		d.pos++
		d.ws()
	} else if d.prev() != '{' {
		return nil, false, d.errf("want ',' or '}' after an object member")
	}
	if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
		return nil, false, d.errf("want a member name in double quotes")
	}
	key, err := d.stringBytes()
	if err != nil {
		return nil, false, err
	}
	d.ws()
	if d.pos >= len(d.buf) || d.buf[d.pos] != ':' {
		return nil, false, d.errf("want ':' after a member name")
	}
	d.pos++
	return key, true, nil
}

// BeginArray consumes '['. Call NextElem until it reports false.
func (d *Decoder) BeginArray() error {
	d.ws()
	if d.pos >= len(d.buf) || d.buf[d.pos] != '[' {
		return d.TypeError("an array")
	}
	d.depth++
	if d.depth > d.maxDepth {
		return d.errf("nesting deeper than %d levels", d.maxDepth)
	}
	d.pos++
	return nil
}

// NextElem positions d at the next element of the current array. It returns
// false after consuming the closing ']'.
func (d *Decoder) NextElem() (bool, error) {
	d.ws()
	if d.pos >= len(d.buf) {
		return false, d.errf("unexpected end of input in an array")
	}
	c := d.buf[d.pos]
	if c == ']' {
		if d.prev() == ',' {
			return false, d.errf("trailing comma before ']'")
		}
		d.pos++
		d.depth--
		return false, nil
	}
	if c == ',' {
		if d.prev() == '[' {
			return false, d.errf("unexpected ',' after '['")
		}
		d.pos++
		return true, nil
	}
	if d.prev() != '[' {
		return false, d.errf("want ',' or ']' after an array element")
	}
	return true, nil
}

// String reads a string.
func (d *Decoder) String() (string, error) {
	d.ws()
	if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
		return "", d.TypeError("a string")
	}
	start := d.pos + 1
	b, err := d.stringBytes()
	if err != nil {
		return "", err
	}
	if len(b) == 0 {
		return "", nil
	}
	if &b[0] == &d.buf[start] {
		// No escapes: share the input's memory.
		return unsafe.String(&b[0], len(b)), nil
	}
	return string(b), nil
}

// stringBytes reads a string at d.pos (which holds '"') and returns its
// unescaped contents: a slice of the input when there are no escapes, a new
// slice otherwise.
func (d *Decoder) stringBytes() ([]byte, error) {
	d.pos++
	start := d.pos
	for d.pos < len(d.buf) {
		d.pos += strscan.Plain(d.buf[d.pos:])
		if d.pos >= len(d.buf) {
			break
		}
		c := d.buf[d.pos]
		switch {
		case c == '"':
			s := d.buf[start:d.pos]
			d.pos++
			return s, nil
		case c == '\\':
			return d.escapedString(start)
		case c < 0x20:
			return nil, d.errf("control character %#02x in a string: escape it", c)
		case c < utf8.RuneSelf:
			d.pos++
		default:
			r, n := utf8.DecodeRune(d.buf[d.pos:])
			if r == utf8.RuneError && n <= 1 {
				return nil, &Error{Offset: d.pos, Msg: "invalid UTF-8 in a string", Code: CodeUTF8}
			}
			d.pos += n
		}
	}
	return nil, d.errf("unterminated string")
}

func (d *Decoder) escapedString(start int) ([]byte, error) {
	out := make([]byte, d.pos-start, d.pos-start+16)
	copy(out, d.buf[start:d.pos])
	for d.pos < len(d.buf) {
		c := d.buf[d.pos]
		switch {
		case c == '"':
			d.pos++
			return out, nil
		case c == '\\':
			if d.pos+1 >= len(d.buf) {
				return nil, d.errf("unterminated escape")
			}
			e := d.buf[d.pos+1]
			d.pos += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, err := d.hex4()
				if err != nil {
					return nil, err
				}
				if utf16.IsSurrogate(r) {
					if r >= 0xDC00 || d.pos+1 >= len(d.buf) || d.buf[d.pos] != '\\' || d.buf[d.pos+1] != 'u' {
						return nil, &Error{Offset: d.pos, Msg: "lone surrogate escape in a string", Code: CodeUTF8}
					}
					d.pos += 2
					r2, err := d.hex4()
					if err != nil {
						return nil, err
					}
					if r2 < 0xDC00 || r2 > 0xDFFF {
						return nil, &Error{Offset: d.pos, Msg: "lone surrogate escape in a string", Code: CodeUTF8}
					}
					r = utf16.DecodeRune(r, r2)
				}
				out = utf8.AppendRune(out, r)
			default:
				return nil, d.errf("invalid escape '\\%c' in a string", e)
			}
		case c < 0x20:
			return nil, d.errf("control character %#02x in a string: escape it", c)
		case c < utf8.RuneSelf:
			out = append(out, c)
			d.pos++
		default:
			r, n := utf8.DecodeRune(d.buf[d.pos:])
			if r == utf8.RuneError && n <= 1 {
				return nil, &Error{Offset: d.pos, Msg: "invalid UTF-8 in a string", Code: CodeUTF8}
			}
			out = append(out, d.buf[d.pos:d.pos+n]...)
			d.pos += n
		}
	}
	return nil, d.errf("unterminated string")
}

func (d *Decoder) hex4() (rune, error) {
	if len(d.buf)-d.pos < 4 {
		return 0, d.errf("short \\u escape")
	}
	var r rune
	for _, c := range d.buf[d.pos : d.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, d.errf("invalid \\u escape")
		}
	}
	d.pos += 4
	return r, nil
}

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

// Skip reads and discards the next value, checking that it is well formed.
// It is for a value already known, such as a union's tag read before by
// PeekTag: unlike Raw, it does not count in Raws.
func (d *Decoder) Skip() error {
	d.ws()
	return d.skipValue()
}

// Raw reads the next value, checking that it is well formed, and returns
// its bytes (a slice of the input, without surrounding whitespace).
func (d *Decoder) Raw() ([]byte, error) {
	d.raws++
	d.ws()
	start := d.pos
	if err := d.skipValue(); err != nil {
		return nil, err
	}
	return d.buf[start:d.pos], nil
}

// Raws is how many values Raw has read whole (unknown members kept as
// bytes, members of any value, raw unions) since the decoder was made. A
// decode that ends with none has looked at every member of every object it
// read and found each one a member its type defines.
func (d *Decoder) Raws() int { return d.raws }

// skipValue walks one value without recursion, so any nesting depth up to
// the limit costs no stack.
func (d *Decoder) skipValue() error {
	if d.ends != nil && d.pos < len(d.buf) && (d.buf[d.pos] == '{' || d.buf[d.pos] == '[') {
		if end := d.ends.End(d.pos); end > d.pos && end <= len(d.buf) {
			d.pos = end
			return nil
		}
	}
	var stackBuf [32]byte
	stack := stackBuf[:0]
	for {
		switch d.Kind() {
		case KindObject:
			if err := d.BeginObject(); err != nil {
				return err
			}
			_, more, err := d.NextKey()
			if err != nil {
				return err
			}
			if more {
				stack = append(stack, '{')
				continue
			}
		case KindArray:
			if err := d.BeginArray(); err != nil {
				return err
			}
			more, err := d.NextElem()
			if err != nil {
				return err
			}
			if more {
				stack = append(stack, '[')
				continue
			}
		case KindString:
			if _, err := d.stringBytes(); err != nil {
				return err
			}
		case KindNumber:
			if _, _, err := d.number(); err != nil {
				return err
			}
		case KindBool:
			if _, err := d.Bool(); err != nil {
				return err
			}
		case KindNull:
			if err := d.literal("null"); err != nil {
				return err
			}
		default:
			return d.TypeError("a JSON value")
		}
		// A value is complete: close the containers that end here and stop
		// at the next sibling, if any.
		for {
			if len(stack) == 0 {
				return nil
			}
			var more bool
			var err error
			if stack[len(stack)-1] == '{' {
				_, more, err = d.NextKey()
			} else {
				more, err = d.NextElem()
			}
			if err != nil {
				return err
			}
			if more {
				break
			}
			stack = stack[:len(stack)-1]
		}
	}
}
