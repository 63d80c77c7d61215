package publish

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Object is a JSON object that keeps its members in order, so that a bundle
// lists definitions and properties in the order of the source files and the
// output is the same on every run.
type Object struct {
	keys []string
	vals map[string]any
}

// newObject returns an empty object.
func newObject() *Object { return &Object{vals: map[string]any{}} }

// Keys returns the member names in order.
func (o *Object) Keys() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

// Get returns the member named k.
func (o *Object) Get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.vals[k]
	return v, ok
}

// Has reports whether the object has a member named k.
func (o *Object) Has(k string) bool {
	_, ok := o.Get(k)
	return ok
}

// Set adds or replaces the member k; a new member goes last.
func (o *Object) Set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// Delete removes the member k, if present.
func (o *Object) Delete(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// Len returns the number of members.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// str returns the member k as a string.
func (o *Object) str(k string) string {
	v, _ := o.Get(k)
	s, _ := v.(string)
	return s
}

// obj returns the member k as an object, or nil.
func (o *Object) obj(k string) *Object {
	v, _ := o.Get(k)
	m, _ := v.(*Object)
	return m
}

// arr returns the member k as an array, or nil.
func (o *Object) arr(k string) []any {
	v, _ := o.Get(k)
	a, _ := v.([]any)
	return a
}

// obj builds an object from alternating keys and values.
func obj(kv ...any) *Object {
	o := newObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// clone returns a deep copy of a JSON value.
func clone(v any) any {
	switch v := v.(type) {
	case *Object:
		c := &Object{keys: append([]string(nil), v.keys...), vals: make(map[string]any, len(v.vals))}
		for k, x := range v.vals {
			c.vals[k] = clone(x)
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, x := range v {
			c[i] = clone(x)
		}
		return c
	default:
		return v
	}
}

// parseJSON reads one JSON document, keeping the order of object members and
// the exact text of numbers. Duplicate member names are an error.
func parseJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				if o.Has(k) {
					return nil, fmt.Errorf("duplicate member %q", k)
				}
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			a := []any{}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return a, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// encodeJSON writes v with two-space indentation and a final newline.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeValue(&b, v, 0); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// compactJSON writes v on one line, as the docs show short values.
func compactJSON(v any) string {
	var b bytes.Buffer
	if err := writeValue(&b, v, -1); err != nil {
		return fmt.Sprint(v)
	}
	return b.String()
}

// writeValue writes v; indent < 0 means compact output.
func writeValue(b *bytes.Buffer, v any, indent int) error {
	nl := func(level int) {
		if indent < 0 {
			return
		}
		b.WriteByte('\n')
		b.WriteString(strings.Repeat("  ", level))
	}
	next := indent + 1
	if indent < 0 {
		next = -1
	}
	switch v := v.(type) {
	case *Object:
		if v.Len() == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(next)
			writeString(b, k)
			b.WriteString(": ")
			if err := writeValue(b, v.vals[k], next); err != nil {
				return err
			}
		}
		nl(indent)
		b.WriteByte('}')
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteByte(',')
				if indent < 0 {
					b.WriteByte(' ')
				}
			}
			nl(next)
			if err := writeValue(b, x, next); err != nil {
				return err
			}
		}
		nl(indent)
		b.WriteByte(']')
	case string:
		writeString(b, v)
	case json.Number:
		b.WriteString(v.String())
	case bool:
		if v {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nil:
		b.WriteString("null")
	default:
		return fmt.Errorf("cannot encode a %T", v)
	}
	return nil
}

// writeString writes a JSON string without escaping <, > and &.
func writeString(b *bytes.Buffer, s string) {
	var sb bytes.Buffer
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	// Encoding a string cannot fail.
	_ = enc.Encode(s)
	b.Write(bytes.TrimSuffix(sb.Bytes(), []byte("\n")))
}

// toPlain converts an ordered value to the plain form of encoding/json
// (map[string]any, []any, json.Number, ...), for validators.
func toPlain(v any) any {
	switch v := v.(type) {
	case *Object:
		m := make(map[string]any, v.Len())
		for _, k := range v.keys {
			m[k] = toPlain(v.vals[k])
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, x := range v {
			a[i] = toPlain(x)
		}
		return a
	default:
		return v
	}
}
