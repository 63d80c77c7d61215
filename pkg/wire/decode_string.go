// Reading strings: the fast path over plain bytes, escapes, surrogate
// pairs and UTF-8 checks.

package wire

import (
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/agentproto/agentproto/internal/strscan"
)

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
