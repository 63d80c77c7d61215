package wire

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Encoder appends compact JSON to a buffer. Generated code drives it; the
// separators between members and elements are its business.
type Encoder struct {
	buf   []byte
	comma bool // a value has just been completed in the current container
	err   error
}

// NewEncoder returns an Encoder that appends to buf (which may be nil).
func NewEncoder(buf []byte) *Encoder { return &Encoder{buf: buf} }

// Bytes returns the encoded bytes.
func (e *Encoder) Bytes() []byte { return e.buf }

// Err returns the first error met (a NaN or infinite float).
func (e *Encoder) Err() error { return e.err }

// Reset empties the buffer, keeping its memory, and clears the error.
func (e *Encoder) Reset() {
	e.buf = e.buf[:0]
	e.comma = false
	e.err = nil
}

func (e *Encoder) sep() {
	if e.comma {
		e.buf = append(e.buf, ',')
	}
}

// BeginObject writes '{'.
func (e *Encoder) BeginObject() {
	e.sep()
	e.buf = append(e.buf, '{')
	e.comma = false
}

// EndObject writes '}'.
func (e *Encoder) EndObject() {
	e.buf = append(e.buf, '}')
	e.comma = true
}

// BeginArray writes '['.
func (e *Encoder) BeginArray() {
	e.sep()
	e.buf = append(e.buf, '[')
	e.comma = false
}

// EndArray writes ']'.
func (e *Encoder) EndArray() {
	e.buf = append(e.buf, ']')
	e.comma = true
}

// RawKey writes a member name given as its complete encoding with the colon,
// such as `"sessionId":`. Generated code passes constants.
func (e *Encoder) RawKey(lit string) {
	e.sep()
	e.buf = append(e.buf, lit...)
	e.comma = false
}

// Key writes a member name and the colon.
func (e *Encoder) Key(name string) {
	e.sep()
	e.buf = appendString(e.buf, name)
	e.buf = append(e.buf, ':')
	e.comma = false
}

// Null writes null.
func (e *Encoder) Null() {
	e.sep()
	e.buf = append(e.buf, "null"...)
	e.comma = true
}

// Bool writes a boolean.
func (e *Encoder) Bool(v bool) {
	e.sep()
	e.buf = strconv.AppendBool(e.buf, v)
	e.comma = true
}

// String writes a string. Only '"', '\\' and control characters are
// escaped, as serde_json does; invalid UTF-8 becomes U+FFFD.
func (e *Encoder) String(s string) {
	e.sep()
	e.buf = appendString(e.buf, s)
	e.comma = true
}

// Int64 writes an integer.
func (e *Encoder) Int64(v int64) {
	e.sep()
	e.buf = strconv.AppendInt(e.buf, v, 10)
	e.comma = true
}

// Uint64 writes an unsigned integer.
func (e *Encoder) Uint64(v uint64) {
	e.sep()
	e.buf = strconv.AppendUint(e.buf, v, 10)
	e.comma = true
}

// Float64 writes a number in the shortest form that reads back exactly, as
// JavaScript and encoding/json write it: 5, 12.5, 1e+21.
func (e *Encoder) Float64(f float64) {
	e.sep()
	if !e.finite(f) {
		return
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		e.buf = strconv.AppendFloat(e.buf, f, 'e', -1, 64)
		// Go writes 1e-07; JavaScript writes 1e-7.
		if n := len(e.buf); n >= 4 && e.buf[n-4] == 'e' && e.buf[n-3] == '-' && e.buf[n-2] == '0' {
			e.buf[n-2] = e.buf[n-1]
			e.buf = e.buf[:n-1]
		}
	} else {
		e.buf = strconv.AppendFloat(e.buf, f, 'f', -1, 64)
	}
	e.comma = true
}

// Float64Serde writes a number the way serde_json writes an f64: integral
// values keep a ".0", large and small magnitudes use an exponent ("1e21",
// "1e-7"). Packages generated for Rust peers (protogen -float-format serde)
// use it, so that their output is byte-identical to the peer's.
func (e *Encoder) Float64Serde(f float64) {
	e.sep()
	if !e.finite(f) {
		return
	}
	e.buf = AppendFloatSerde(e.buf, f)
	e.comma = true
}

func (e *Encoder) finite(f float64) bool {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if e.err == nil {
			e.err = errors.New("wire: NaN and infinite numbers have no JSON encoding")
		}
		e.buf = append(e.buf, '0')
		e.comma = true
		return false
	}
	return true
}

// AppendFloatSerde appends f formatted as serde_json formats an f64.
func AppendFloatSerde(b []byte, f float64) []byte {
	abs := math.Abs(f)
	if abs == 0 || (abs >= 1e-5 && abs < 1e16) {
		start := len(b)
		b = strconv.AppendFloat(b, f, 'f', -1, 64)
		for _, c := range b[start:] {
			if c == '.' {
				return b
			}
		}
		return append(b, '.', '0')
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'e', -1, 64)
	// Go writes 1e+21 and 1e-07; serde_json writes 1e21 and 1e-7.
	out := b[:start]
	exp := false
	for i := start; i < len(b); i++ {
		c := b[i]
		if c == 'e' {
			exp = true
			out = append(out, c)
			continue
		}
		if exp && c == '+' {
			continue
		}
		if exp && c == '0' && (out[len(out)-1] == 'e' || out[len(out)-1] == '-') && i+1 < len(b) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// Number writes a number given as literal text, which must be valid JSON.
func (e *Encoder) Number(lit []byte) {
	e.sep()
	e.buf = append(e.buf, lit...)
	e.comma = true
}

// IntText writes an integer given as decimal text (the tag an Unknown
// variant of a union tagged by integers keeps). Text that is no integer is
// an encoding error, and 0 is written in its place.
func (e *Encoder) IntText(s string) {
	e.sep()
	if !isIntText(s) {
		if e.err == nil {
			e.err = errors.New("wire: " + strconv.Quote(clip(s)) + " is not an integer")
		}
		s = "0"
	}
	e.buf = append(e.buf, s...)
	e.comma = true
}

// isIntText reports whether s is an integer in JSON's form: an optional
// minus sign and digits, without leading zeros.
func isIntText(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Raw writes JSON that is already encoded (and valid). Empty input writes
// null.
func (e *Encoder) Raw(raw []byte) {
	e.sep()
	if len(raw) == 0 {
		e.buf = append(e.buf, "null"...)
	} else {
		e.buf = append(e.buf, raw...)
	}
	e.comma = true
}

const hexDigits = "0123456789abcdef"

func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = append(b, s[start:i]...)
				b = append(b, "\ufffd"...)
				i++
				start = i
				continue
			}
			i += n
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// RawValue writes JSON given as a constant string (a const member's value).
func (e *Encoder) RawValue(lit string) {
	e.sep()
	e.buf = append(e.buf, lit...)
	e.comma = true
}
