package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// object is a JSON object that keeps the order of its members, which
// decides the order of generated fields and types.
type object struct {
	keys []string
	vals map[string]any
}

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// parseOrdered parses JSON into nil, bool, json.Number, string, []any and
// *object values. Duplicate member names are an error.
func parseOrdered(data []byte) (any, error) {
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

const maxSchemaDepth = 512

func parseValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxSchemaDepth {
		return nil, fmt.Errorf("nesting deeper than %d levels at byte %d", maxSchemaDepth, dec.InputOffset())
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("invalid JSON at byte %d: %w", dec.InputOffset(), err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("invalid JSON at byte %d: %w", dec.InputOffset(), err)
				}
				k, _ := kt.(string)
				if _, dup := o.vals[k]; dup {
					return nil, fmt.Errorf("member %q appears twice in one object (byte %d)", k, dec.InputOffset())
				}
				v, err := parseValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.keys = append(o.keys, k)
				o.vals[k] = v
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

// plain converts an ordered value to plain Go values (map[string]any) for
// comparisons and encoding.
func plain(v any) any {
	switch t := v.(type) {
	case *object:
		m := make(map[string]any, len(t.keys))
		for _, k := range t.keys {
			m[k] = plain(t.vals[k])
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = plain(e)
		}
		return out
	}
	return v
}
