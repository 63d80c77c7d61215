package publish

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/agentproto/agentproto/internal/orderedjson"
	"strings"
)

// Object is a JSON object that keeps its members in order, so that a bundle
// lists definitions and properties in the order of the source files and the
// output is the same on every run.
type Object = orderedjson.Object

// newObject returns an empty object.
func newObject() *Object { return orderedjson.New() }

// obj builds an object from alternating keys and values.
func obj(kv ...any) *Object {
	o := newObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// clone returns a deep copy of a JSON value.
func clone(v any) any { return orderedjson.Clone(v) }

// parseJSON reads one JSON document, keeping the order of object members and
// the exact text of numbers. Duplicate member names are an error.
func parseJSON(data []byte) (any, error) { return orderedjson.Parse(data) }

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
		for i, k := range v.Keys() {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(next)
			writeString(b, k)
			b.WriteString(": ")
			if err := writeValue(b, v.Value(k), next); err != nil {
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
func toPlain(v any) any { return orderedjson.Plain(v) }
