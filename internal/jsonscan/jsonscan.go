// Package jsonscan is a strict JSON parser for wire traces.
//
// It accepts exactly RFC 8259 JSON text and rejects, with the byte offset and
// the JSON pointer of the offending value, what lenient decoders let through:
// invalid UTF-8, duplicate object keys, lone UTF-16 surrogate escapes,
// unescaped control characters (NUL included), data after the value, and
// nesting deeper than a limit, and number literals too long to be checked
// in time proportional to their size. It never panics, and its recursion is
// bounded by the depth limit, which is itself capped at MaxDepthCeiling, so
// any input with any limit is safe.
//
// Values come out as the types github.com/santhosh-tekuri/jsonschema/v6
// validates: map[string]any, []any, string, json.Number, bool and nil.
package jsonscan

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentproto/agentproto/pkg/jsonpointer"
)

// DefaultMaxDepth is the nesting limit Parse applies when it is given 0:
// deeper than any protocol message and far below what would strain the stack.
const DefaultMaxDepth = 1000

// MaxDepthCeiling is the largest nesting limit Parse applies: a larger
// maxDepth is lowered to it. The parser recurses once per level, a few
// hundred bytes of stack each, so at the ceiling one parse needs a few MiB of
// stack, and the values it returns are shallow enough for every recursive
// consumer (schema validation, encoding/json, whose own decoder stops at the
// same 10000 levels) to walk safely.
const MaxDepthCeiling = 10000

// MaxNumberDigits and MaxNumberExponent bound a number literal: at most
// MaxNumberDigits digits in all (integer, fraction and exponent digits,
// leading zeros included) and an exponent within ±MaxNumberExponent. A
// longer literal is a NumberTooLong error.
//
// The bounds keep the cost of checking a number constant: a schema validator
// that reads numbers exactly (as big.Rat does) spends time quadratic in the
// digits and linear in the exponent, so an unbounded literal on one line
// could cost minutes. No protocol number comes near them: every integer
// field fits in 20 digits (uint64), a float64 is written exactly in at most
// 17 significant digits with an exponent within ±324, and 100 digits leave
// room for decimals from arbitrary-precision producers.
const (
	MaxNumberDigits   = 100
	MaxNumberExponent = 400
)

// Kind classifies a parse error.
type Kind int

// The kinds of parse error.
const (
	Syntax        Kind = iota // a byte that JSON does not allow here
	EOF                       // the input ends inside a value (a truncated line)
	BadUTF8                   // bytes that are not valid UTF-8
	Control                   // an unescaped control character (NUL included) inside a string
	Surrogate                 // a \u escape that is half of a UTF-16 surrogate pair
	DuplicateKey              // the same key twice in one object
	TooDeep                   // nesting beyond the limit
	Trailing                  // data after the top-level value
	Empty                     // no value at all
	NumberTooLong             // a valid number literal beyond MaxNumberDigits or MaxNumberExponent
	TooLarge                  // input beyond MaxDocBytes (Arena.Parse only)
)

// Error is a parse failure: where it happened and why, in words meant for the
// author of the input.
type Error struct {
	Kind    Kind
	Offset  int    // byte offset of the problem in the input
	Pointer string // JSON pointer of the value being parsed ("" for the root)
	Msg     string
}

func (e *Error) Error() string {
	if e.Pointer == "" {
		return fmt.Sprintf("%s (byte %d)", e.Msg, e.Offset)
	}
	return fmt.Sprintf("%s at %s (byte %d)", e.Msg, e.Pointer, e.Offset)
}

// Parse parses data as one JSON value. maxDepth bounds the nesting of arrays
// and objects (0 means DefaultMaxDepth; above MaxDepthCeiling means
// MaxDepthCeiling). Leading and trailing whitespace is allowed; anything
// else after the value is an error.
func Parse(data []byte, maxDepth int) (any, error) {
	return parse(data, maxDepth)
}

func parse(data []byte, maxDepth int) (any, error) {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	if maxDepth > MaxDepthCeiling {
		maxDepth = MaxDepthCeiling
	}
	p := parser{data: data, maxDepth: maxDepth}
	p.skipSpace()
	if p.pos >= len(p.data) {
		return nil, &Error{Kind: Empty, Msg: "no JSON value (the line holds only whitespace)"}
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, p.fail(Trailing, p.pos, "unexpected %s after the end of the JSON value (one message per line)", p.describe(p.pos))
	}
	return v, nil
}

type parser struct {
	data     []byte
	pos      int
	depth    int
	maxDepth int
	path     []string // keys and indexes from the root to the current value
}

func (p *parser) pointer() string { return jsonpointer.Format(p.path) }

// maxEcho is the longest piece of the input a message quotes, in bytes.
const maxEcho = 80

// quoteKey quotes a key for a message, cut to maxEcho bytes ("..." marks
// the cut), so that a message stays short whatever the key's length.
func quoteKey(k string) string {
	if len(k) > 4*maxEcho {
		k = k[:4*maxEcho] // the quoting work stays bounded too
	}
	q := strconv.Quote(k)
	if len(q) <= maxEcho {
		return q
	}
	n := maxEcho - 3
	for n > 0 && !utf8.RuneStart(q[n]) {
		n--
	}
	return q[:n] + "..."
}

func (p *parser) fail(k Kind, off int, format string, args ...any) *Error {
	return &Error{Kind: k, Offset: off, Pointer: p.pointer(), Msg: fmt.Sprintf(format, args...)}
}

// describe names the byte at off for an error message.
func (p *parser) describe(off int) string {
	if off >= len(p.data) {
		return "end of line"
	}
	c := p.data[off]
	switch {
	case c == 0:
		return "NUL byte"
	case c < 0x20 || c == 0x7f:
		return fmt.Sprintf("control byte 0x%02x", c)
	case c < utf8.RuneSelf:
		return strconv.QuoteRune(rune(c))
	}
	r, size := utf8.DecodeRune(p.data[off:])
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("invalid UTF-8 byte 0x%02x", c)
	}
	return strconv.QuoteRune(r)
}

func (p *parser) unexpected(want string) *Error {
	if p.pos >= len(p.data) {
		return p.fail(EOF, p.pos, "the line ends early: %s expected (truncated message?)", want)
	}
	k := Syntax
	if p.data[p.pos] >= utf8.RuneSelf && !validRuneAt(p.data, p.pos) {
		k = BadUTF8
	}
	return p.fail(k, p.pos, "%s expected, found %s", want, p.describe(p.pos))
}

func validRuneAt(b []byte, off int) bool {
	r, size := utf8.DecodeRune(b[off:])
	return !(r == utf8.RuneError && size <= 1)
}

func (p *parser) skipSpace() { p.pos = spaceEnd(p.data, p.pos) }

// spaceEnd returns the offset of the first byte at or after i that is not
// JSON whitespace.
func spaceEnd(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (p *parser) value() (any, error) {
	if p.pos >= len(p.data) {
		return nil, p.unexpected("a value")
	}
	switch c := p.data[p.pos]; c {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		return p.str()
	case 't':
		return true, p.literal("true")
	case 'f':
		return false, p.literal("false")
	case 'n':
		return nil, p.literal("null")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return p.number()
		}
		return nil, p.unexpected("a value")
	}
}

func (p *parser) literal(word string) error {
	start := p.pos
	for i := 0; i < len(word); i++ {
		if p.pos >= len(p.data) {
			return p.fail(EOF, p.pos, "the line ends inside %q (truncated message?)", word)
		}
		if p.data[p.pos] != word[i] {
			return p.fail(Syntax, start, "invalid literal: only true, false and null are allowed, found %s", p.describe(p.pos))
		}
		p.pos++
	}
	return nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > p.maxDepth {
		// The pointer of a value this deep is useless to a reader: report
		// the offset only.
		return &Error{Kind: TooDeep, Offset: p.pos, Msg: fmt.Sprintf("nesting deeper than %d levels", p.maxDepth)}
	}
	return nil
}

func (p *parser) object() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++ // '{'
	obj := make(map[string]any)
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return obj, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.unexpected("an object key (a double-quoted string)")
		}
		keyAt := p.pos
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if _, dup := obj[key]; dup {
			p.path = append(p.path, key)
			e := p.fail(DuplicateKey, keyAt, "duplicate key %s: receivers disagree on which value wins, send each key once", quoteKey(key))
			return nil, e
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			p.path = append(p.path, key)
			return nil, p.unexpected("':' after the object key")
		}
		p.pos++
		p.skipSpace()
		p.path = append(p.path, key)
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		obj[key] = v
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.unexpected("',' or '}' in the object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			p.depth--
			return obj, nil
		default:
			return nil, p.unexpected("',' or '}' in the object")
		}
	}
}

func (p *parser) array() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++ // '['
	arr := make([]any, 0, 4)
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return arr, nil
	}
	for {
		p.skipSpace()
		p.path = append(p.path, strconv.Itoa(len(arr)))
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		arr = append(arr, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.unexpected("',' or ']' in the array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			p.depth--
			return arr, nil
		default:
			return nil, p.unexpected("',' or ']' in the array")
		}
	}
}

func (p *parser) number() (any, error) {
	start := p.pos
	n := scanNumber(p.data, start)
	p.pos = n.end
	switch {
	case n.want != "":
		return nil, p.badNumber(start, n.want)
	case n.digits > MaxNumberDigits:
		return nil, p.fail(NumberTooLong, start, "number literal too long: %d digits, more than the %d accepted", n.digits, MaxNumberDigits)
	case n.expBig:
		return nil, p.fail(NumberTooLong, start, "number literal too long: its exponent is beyond ±%d", MaxNumberExponent)
	}
	return json.Number(p.data[start:n.end]), nil
}

// numberScan is what scanNumber found.
type numberScan struct {
	end    int    // where the literal ends, or where it went wrong
	want   string // what was expected at end, if the literal is not valid
	digits int    // every digit of the literal, for MaxNumberDigits
	expBig bool   // the exponent's value is beyond MaxNumberExponent
}

// scanNumber reads the number literal at d[i] (a '-' or a digit).
func scanNumber(d []byte, i int) numberScan {
	var n numberScan
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
		n.digits++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
			n.digits++
		}
	default:
		n.end, n.want = i, "a digit"
		return n
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			n.end, n.want = i, "a digit after the decimal point"
			return n
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
			n.digits++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			n.end, n.want = i, "a digit in the exponent"
			return n
		}
		exp := 0
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			if !n.expBig {
				exp = exp*10 + int(d[i]-'0')
				n.expBig = exp > MaxNumberExponent
			}
			i++
			n.digits++
		}
	}
	n.end = i
	return n
}

func (p *parser) badNumber(start int, want string) *Error {
	if p.pos >= len(p.data) {
		return p.fail(EOF, p.pos, "the line ends inside a number (truncated message?)")
	}
	return p.fail(Syntax, start, "invalid number: %s expected, found %s", want, p.describe(p.pos))
}

// str parses a string starting at the opening quote.
func (p *parser) str() (string, error) {
	start := p.pos
	p.pos++ // opening quote
	d := p.data
	// Fast path: plain ASCII without escapes.
	i := p.pos
	for i < len(d) {
		c := d[i]
		if c == '"' {
			s := string(d[p.pos:i])
			p.pos = i + 1
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		i++
	}
	buf := make([]byte, 0, i-p.pos+16)
	buf = append(buf, d[p.pos:i]...)
	for {
		if i >= len(d) {
			p.pos = i
			return "", p.fail(EOF, start, "the line ends inside a string (missing closing quote; truncated message?)")
		}
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return string(buf), nil
		case c == '\\':
			n, err := p.escape(i, &buf)
			if err != nil {
				return "", err
			}
			i = n
		case c < 0x20:
			name := fmt.Sprintf("control character U+%04X", c)
			if c == 0 {
				name = "NUL byte"
			}
			return "", p.fail(Control, i, "%s inside a string: control characters must be escaped (\\u%04x)", name, c)
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size <= 1 {
				return "", p.fail(BadUTF8, i, "invalid UTF-8 byte 0x%02x inside a string: JSON text must be UTF-8", c)
			}
			buf = append(buf, d[i:i+size]...)
			i += size
		}
	}
}

// escape decodes the escape sequence at d[i] == '\\' into buf and returns the
// offset after it.
func (p *parser) escape(i int, buf *[]byte) (int, error) {
	d := p.data
	if i+1 >= len(d) {
		return 0, p.fail(EOF, i, "the line ends inside an escape sequence (truncated message?)")
	}
	switch c := d[i+1]; c {
	case '"', '\\', '/':
		*buf = append(*buf, c)
	case 'b':
		*buf = append(*buf, '\b')
	case 'f':
		*buf = append(*buf, '\f')
	case 'n':
		*buf = append(*buf, '\n')
	case 'r':
		*buf = append(*buf, '\r')
	case 't':
		*buf = append(*buf, '\t')
	case 'u':
		r, err := p.hex4(i)
		if err != nil {
			return 0, err
		}
		next := i + 6
		switch {
		case utf16.IsSurrogate(r) && r < 0xdc00:
			// A high surrogate must be followed by an escaped low one.
			if next+1 < len(d) && d[next] == '\\' && d[next+1] == 'u' {
				r2, err := p.hex4(next)
				if err != nil {
					return 0, err
				}
				if r2 >= 0xdc00 && r2 <= 0xdfff {
					*buf = utf8.AppendRune(*buf, utf16.DecodeRune(r, r2))
					return next + 6, nil
				}
			}
			return 0, p.fail(Surrogate, i, "lone surrogate \\u%04x: a high surrogate must be followed by a low surrogate escape (\\udc00-\\udfff)", r)
		case utf16.IsSurrogate(r):
			return 0, p.fail(Surrogate, i, "lone surrogate \\u%04x: a low surrogate must follow a high surrogate escape (\\ud800-\\udbff)", r)
		}
		*buf = utf8.AppendRune(*buf, r)
		return next, nil
	default:
		return 0, p.fail(Syntax, i, "invalid escape sequence \\%s in a string", p.describe(i+1))
	}
	return i + 2, nil
}

// hex4 decodes the four hex digits of the \u escape at d[i] == '\\'.
func (p *parser) hex4(i int) (rune, error) {
	if i+6 > len(p.data) {
		return 0, p.fail(EOF, i, "the line ends inside a \\u escape (truncated message?)")
	}
	r, ok := hex4At(p.data, i)
	if !ok {
		return 0, p.fail(Syntax, i, "invalid \\u escape: four hex digits expected")
	}
	return r, nil
}

// EscapePointer escapes one reference token of a JSON pointer: it is
// jsonpointer.Escape, kept for the callers that spell it so.
func EscapePointer(tok string) string { return jsonpointer.Escape(tok) }
