package wire

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/pkg/jsonpointer"
)

// Decodable is a value a Decoder can fill. Every generated type is one.
type Decodable interface {
	DecodeWire(d *Decoder) error
}

// Encodable is a value an Encoder can write. Every generated type is one.
type Encodable interface {
	EncodeWire(e *Encoder)
}

// Unmarshal decodes data into v. It copies data first, so v never shares
// memory with the caller's buffer.
func Unmarshal(data []byte, v Decodable) error {
	buf := make([]byte, len(data))
	copy(buf, data)
	return UnmarshalOwned(buf, v)
}

// UnmarshalOwned is Unmarshal without the copy: decoded strings and raw
// values share memory with data, which the caller must never modify again.
func UnmarshalOwned(data []byte, v Decodable) error {
	d := NewDecoder(data)
	if err := v.DecodeWire(d); err != nil {
		return err
	}
	return d.End()
}

// Marshal encodes v.
func Marshal(v Encodable) ([]byte, error) {
	e := NewEncoder(make([]byte, 0, 256))
	v.EncodeWire(e)
	return e.buf, e.err
}

// Member is an object member kept as raw JSON: a member a type does not
// define, kept so that decoding and encoding again loses nothing.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Members are the members of an object that its type does not define, in
// the order they appeared.
type Members []Member

// Get returns the raw value of the member named key.
func (ms Members) Get(key string) (json.RawMessage, bool) {
	for _, m := range ms {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// Encode writes each member.
func (ms Members) Encode(e *Encoder) {
	for _, m := range ms {
		e.Key(m.Key)
		e.Raw(m.Value)
	}
}

// DecodeRaw reads the next value as raw JSON. A null is kept as the bytes
// "null", so it stays distinct from an absent member (a nil RawMessage).
func DecodeRaw(d *Decoder) (json.RawMessage, error) {
	raw, err := d.Raw()
	if err != nil {
		return nil, err
	}
	return json.RawMessage(raw), nil
}

// PeekTag looks for the member named tag in the object at the read position
// without consuming anything. It returns the tag's string value and whether
// the member is present. A tag that is present but not a string is an
// error. Reading stops at the tag, so a tag written first costs one member.
func (d *Decoder) PeekTag(tag string) (string, bool, error) {
	pos, depth := d.pos, d.depth
	defer func() { d.pos, d.depth = pos, depth }()
	if err := d.BeginObject(); err != nil {
		return "", false, err
	}
	for {
		key, more, err := d.NextKey()
		if err != nil || !more {
			return "", false, err
		}
		if string(key) == tag {
			if d.Kind() != KindString {
				e := d.TypeError("a string")
				if we, ok := e.(*Error); ok {
					we.Code = CodeTag
					we.Pointer = "/" + EscapePointer(tag)
				}
				return "", true, e
			}
			s, err := d.String()
			return s, true, err
		}
		if err := d.skipValue(); err != nil {
			return "", false, err
		}
	}
}

// PeekIntTag is PeekTag for a union tagged by an integer member (JSON-RPC
// errors told apart by a const code): it returns the member's integral
// value as decimal text (-32601, also for -32601.0 or -3.2601e4), so that
// it compares with a variant's tag as JSON Schema's const does. A member
// that is not an integer is an error at the tag.
func (d *Decoder) PeekIntTag(tag string) (string, bool, error) {
	pos, depth := d.pos, d.depth
	defer func() { d.pos, d.depth = pos, depth }()
	if err := d.BeginObject(); err != nil {
		return "", false, err
	}
	for {
		key, more, err := d.NextKey()
		if err != nil || !more {
			return "", false, err
		}
		if string(key) == tag {
			var s string
			if d.Kind() != KindNumber {
				err = d.TypeError("an integer")
			} else {
				s, _, err = d.integerText()
			}
			if we, ok := err.(*Error); ok {
				we.Code = CodeTag
				we.Pointer = "/" + EscapePointer(tag)
			}
			if s == "-0" {
				s = "0"
			}
			return strings.Clone(s), true, err
		}
		if err := d.skipValue(); err != nil {
			return "", false, err
		}
	}
}

// SameInt reports whether raw, a JSON number as read, has the integral
// value of want, an integer's decimal text: -32601.0 and -3.2601e4 are
// -32601, as JSON Schema's const compares numbers.
func SameInt(raw []byte, want string) bool {
	if string(raw) == want {
		return true
	}
	if len(raw) == 0 || len(raw) > 64 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return false
	}
	r, ok := new(big.Rat).SetString(string(raw))
	if !ok || !r.IsInt() {
		return false
	}
	return r.Num().String() == want
}

// PeekKeys reports which of keys (at most 64) the object at the read
// position has, as a bit set, without consuming anything.
func (d *Decoder) PeekKeys(keys []string) (uint64, error) {
	pos, depth := d.pos, d.depth
	defer func() { d.pos, d.depth = pos, depth }()
	if err := d.BeginObject(); err != nil {
		return 0, err
	}
	var set uint64
	for {
		key, more, err := d.NextKey()
		if err != nil || !more {
			return set, err
		}
		for i, k := range keys {
			if string(key) == k {
				set |= 1 << uint(i)
			}
		}
		if err := d.skipValue(); err != nil {
			return set, err
		}
	}
}

type optState uint8

const (
	absent optState = iota
	null
	present
)

// Opt is an optional member that may also be null: absent, null and a
// value are three different states, kept apart on decode and encode. The
// zero Opt is absent.
type Opt[T any] struct {
	v T
	s optState
}

// Some returns an Opt holding v.
func Some[T any](v T) Opt[T] { return Opt[T]{v: v, s: present} }

// Null returns an Opt that is an explicit null.
func Null[T any]() Opt[T] { return Opt[T]{s: null} }

// Get returns the value and true, or the zero value and false when o is
// absent or null.
func (o Opt[T]) Get() (T, bool) { return o.v, o.s == present }

// Value returns the value, or the zero value when o is absent or null.
func (o Opt[T]) Value() T { return o.v }

// IsSet reports whether o holds a value.
func (o Opt[T]) IsSet() bool { return o.s == present }

// IsNull reports whether o is an explicit null.
func (o Opt[T]) IsNull() bool { return o.s == null }

// IsAbsent reports whether o is absent.
func (o Opt[T]) IsAbsent() bool { return o.s == absent }

// IsZero reports whether o is absent, so that `omitzero` leaves it out.
func (o Opt[T]) IsZero() bool { return o.s == absent }

// Ptr returns a pointer to the value, or nil when o is absent or null.
func (o *Opt[T]) Ptr() *T {
	if o.s != present {
		return nil
	}
	return &o.v
}

// Codec handles the values of one generated type without naming it: the
// validator and tests use it to go from a schema $id to Go.
type Codec struct {
	// Name is the Go type name.
	Name string
	// Decode decodes a value (a pointer to a struct, or a union value).
	Decode func(d *Decoder) (any, error)
	// Encode encodes a value Decode returned.
	Encode func(e *Encoder, v any)
	// Check records the constraint violations of a value Decode returned.
	Check func(c *Checker, p string, v any)
	// ValidateValue, when set, is Validate in one call that needs no
	// Checker from its caller, so that a valid value costs no allocation
	// (generated codecs set it).
	ValidateValue func(v any) error
	// Complete is true when a strict Decode plus Check that find nothing
	// prove the value valid against the schema: the schema (and every schema
	// it uses) has no constraint the generated code leaves unchecked.
	Complete bool
	// CompleteValue, when set on an incomplete codec, tells for one decoded
	// value whether it is complete after all: a union whose incomplete
	// variants the value does not use.
	CompleteValue func(v any) bool
	// Verify, when set on a complete codec, decodes one value from d and
	// reports whether it decoded and Validate found nothing, without
	// keeping it: the value need not leave the stack. CheckAt uses it
	// (generated codecs of struct types set it).
	Verify func(d *Decoder) bool
}

// Proves reports whether a strict decode plus Validate that find nothing
// prove v (a value Decode returned) valid against the schema.
func (c Codec) Proves(v any) bool {
	return c.Complete || (c.CompleteValue != nil && c.CompleteValue(v))
}

// CheckAt decodes the value at pointer ("" for the whole document, which
// must then end) from d, strictly, and validates it. valid reports that the
// codec proves it valid against the schema: it decodes, nothing is wrong
// with it, and the codec (or, for a union, the variant the value uses) is
// complete; any doubt gives false. known reports, of a valid value, that
// no part of it was read whole as raw JSON (Raw), so every member of every
// object in it is one the schema defines. The decoded value is dropped
// before CheckAt returns, so d's input need not outlive the call.
func (c Codec) CheckAt(d *Decoder, pointer string) (valid, known bool) {
	if c.Decode == nil || (!c.Complete && c.CompleteValue == nil) {
		return false, false
	}
	if found, err := d.Seek(pointer); !found || err != nil {
		return false, false
	}
	raws := d.Raws()
	if c.Verify != nil && c.Complete {
		if !c.Verify(d) || pointer == "" && d.End() != nil {
			return false, false
		}
		return true, d.Raws() == raws
	}
	v, err := c.Decode(d)
	if err != nil {
		return false, false
	}
	if pointer == "" && d.End() != nil {
		return false, false
	}
	if !c.Proves(v) || c.Validate(v) != nil {
		return false, false
	}
	return true, d.Raws() == raws
}

// DecodeBytes strictly decodes one JSON document with the codec, copying
// data first.
func (c Codec) DecodeBytes(data []byte) (any, error) {
	buf := make([]byte, len(data))
	copy(buf, data)
	d := NewDecoder(buf)
	v, err := c.Decode(d)
	if err != nil {
		return nil, err
	}
	return v, d.End()
}

// EncodeBytes encodes a value the codec decoded.
func (c Codec) EncodeBytes(v any) ([]byte, error) {
	e := NewEncoder(nil)
	c.Encode(e, v)
	return e.Bytes(), e.Err()
}

// Validate checks a value the codec decoded.
func (c Codec) Validate(v any) error {
	if c.ValidateValue != nil {
		return c.ValidateValue(v)
	}
	var ch Checker
	c.Check(&ch, "", v)
	return ch.Err()
}

// PeekFirst looks at the first element of the array at the read position
// without consuming anything: its kind (KindInvalid for an empty array)
// and, when it is an object, which of keys (at most 64) it has.
func (d *Decoder) PeekFirst(keys []string) (Kind, uint64, error) {
	pos, depth := d.pos, d.depth
	defer func() { d.pos, d.depth = pos, depth }()
	if err := d.BeginArray(); err != nil {
		return KindInvalid, 0, err
	}
	more, err := d.NextElem()
	if err != nil || !more {
		return KindInvalid, 0, err
	}
	k := d.Kind()
	if k != KindObject || len(keys) == 0 {
		return k, 0, nil
	}
	set, err := d.PeekKeys(keys)
	return k, set, err
}

// PeekInteger reports whether the next value is a number written as a
// plain integer that fits in an int64 (no fraction, no exponent), without
// consuming it.
func (d *Decoder) PeekInteger() bool {
	pos := d.pos
	defer func() { d.pos = pos }()
	b, plain, err := d.number("a number")
	if err != nil || !plain {
		return false
	}
	_, err = strconv.ParseInt(string(b), 10, 64)
	return err == nil
}

// Seek moves the read position to the value at a JSON pointer (RFC 6901)
// relative to the value at the read position, and reports whether it
// exists. "" is the value itself. Values passed on the way are checked for
// well-formedness, unless the decoder is at the start of its input and its
// Ends (SetEnds) is a Finder, which then says where the value is.
func (d *Decoder) Seek(pointer string) (bool, error) {
	if pointer == "" {
		return true, nil
	}
	if pointer[0] != '/' {
		return false, d.errf("JSON pointer %q does not start with '/'", pointer)
	}
	if strings.IndexByte(pointer, '~') >= 0 && !jsonpointer.Valid(pointer) {
		return false, d.errf("JSON pointer %q has a '~' that is neither ~0 nor ~1", pointer)
	}
	if f, ok := d.ends.(Finder); ok && d.pos == 0 {
		// From the start of the input, the caller's parse (SetEnds)
		// knows where the value is, and that the way there is valid.
		start, found := f.ValueStart(pointer)
		if !found {
			return false, nil
		}
		if start >= 0 && start < len(d.buf) {
			d.pos = start
			return true, nil
		}
	}
	for rest, last := pointer[1:], false; !last; {
		// The tokens one by one, as strings.Split would give them,
		// without a slice of them.
		tok := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			tok, rest = rest[:i], rest[i+1:]
		} else {
			last = true
		}
		tok = UnescapePointer(tok)
		switch d.Kind() {
		case KindObject:
			if err := d.BeginObject(); err != nil {
				return false, err
			}
			found := false
			for !found {
				key, more, err := d.NextKey()
				if err != nil {
					return false, err
				}
				if !more {
					return false, nil
				}
				if string(key) == tok {
					found = true
					break
				}
				if err := d.skipValue(); err != nil {
					return false, err
				}
			}
		case KindArray:
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 || (len(tok) > 1 && tok[0] == '0') {
				return false, nil
			}
			if err := d.BeginArray(); err != nil {
				return false, err
			}
			for i := 0; ; i++ {
				more, err := d.NextElem()
				if err != nil {
					return false, err
				}
				if !more {
					return false, nil
				}
				if i == n {
					break
				}
				if err := d.skipValue(); err != nil {
					return false, err
				}
			}
		default:
			return false, nil
		}
	}
	return true, nil
}
