// The Decoder: its state, whitespace and kinds, literals, objects and
// arrays, and stepping over a value whole. Strings are read in
// decode_string.go, numbers in decode_number.go.

package wire

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
	collect  *Checker // set by Collect: errors are recorded here, and where the decode began
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
	return &Error{Offset: d.pos, Msg: "got " + k.String() + ", want " + want, Code: CodeType, Keyword: "type", Got: k.Type(), Want: schemaTypes(want)}
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
			if _, _, err := d.number("a number"); err != nil {
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
