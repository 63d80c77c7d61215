// Package orderedjson reads JSON documents keeping the order of object
// members and the exact text of numbers: schema tools (the code generator,
// the schema publisher) decide the order of what they write from the order
// of what they read. Duplicate member names and nesting past a bound are
// errors; nothing panics on any input.
package orderedjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Object is a JSON object that keeps its members in order.
type Object struct {
	keys []string
	vals map[string]any
}

// New returns an empty object.
func New() *Object { return &Object{vals: map[string]any{}} }

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

// Clone returns a deep copy of a value read by Parse.
func Clone(v any) any {
	switch v := v.(type) {
	case *Object:
		c := &Object{keys: append([]string(nil), v.keys...), vals: make(map[string]any, len(v.vals))}
		for k, x := range v.vals {
			c.vals[k] = Clone(x)
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, x := range v {
			c[i] = Clone(x)
		}
		return c
	}
	return v
}

// Plain converts a value read by Parse to plain Go values
// (map[string]any), for comparisons and encoding/json.
func Plain(v any) any {
	switch t := v.(type) {
	case *Object:
		m := make(map[string]any, len(t.keys))
		for _, k := range t.keys {
			m[k] = Plain(t.vals[k])
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = Plain(e)
		}
		return out
	}
	return v
}

// MaxDepth is the deepest nesting Parse reads.
const MaxDepth = 512

// Parse reads one JSON document into nil, bool, json.Number, string, []any
// and *Object values. Duplicate member names, nesting deeper than MaxDepth
// and data after the value are errors, with the byte offset.
func Parse(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value at byte %d", dec.InputOffset())
	}
	return v, nil
}

func parseValue(dec *json.Decoder, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("nesting deeper than %d levels at byte %d", MaxDepth, dec.InputOffset())
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("invalid JSON at byte %d: %w", dec.InputOffset(), err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := New()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("invalid JSON at byte %d: %w", dec.InputOffset(), err)
				}
				k, _ := kt.(string)
				if o.Has(k) {
					return nil, fmt.Errorf("member %q appears twice in one object (byte %d)", k, dec.InputOffset())
				}
				v, err := parseValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("invalid JSON at byte %d: %w", dec.InputOffset(), err)
			}
			return o, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := parseValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("invalid JSON at byte %d: %w", dec.InputOffset(), err)
			}
			return arr, nil
		}
		return nil, fmt.Errorf("unexpected %q at byte %d", t, dec.InputOffset())
	default:
		return t, nil
	}
}

// Value returns the member k, or nil.
func (o *Object) Value(k string) any {
	v, _ := o.Get(k)
	return v
}

// Str returns the member k as a string, or "".
func (o *Object) Str(k string) string {
	s, _ := o.Value(k).(string)
	return s
}

// Obj returns the member k as an object, or nil.
func (o *Object) Obj(k string) *Object {
	m, _ := o.Value(k).(*Object)
	return m
}

// Arr returns the member k as an array, or nil.
func (o *Object) Arr(k string) []any {
	a, _ := o.Value(k).([]any)
	return a
}
