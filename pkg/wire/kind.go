package wire

// Kind is the kind of a JSON value.
type Kind uint8

// JSON value kinds.
const (
	KindInvalid Kind = iota
	KindNull
	KindBool
	KindNumber
	KindString
	KindArray
	KindObject
)

func (k Kind) String() string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "a boolean"
	case KindNumber:
		return "a number"
	case KindString:
		return "a string"
	case KindArray:
		return "an array"
	case KindObject:
		return "an object"
	}
	return "invalid JSON"
}

// Type is the kind's JSON Schema type name ("number", "object"), or ""
// for KindInvalid.
func (k Kind) Type() string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "boolean"
	case KindNumber:
		return "number"
	case KindString:
		return "string"
	case KindArray:
		return "array"
	case KindObject:
		return "object"
	}
	return ""
}

// Describe names the kind of a value decoded by encoding/json (or jsonscan)
// as a phrase for messages: "an object", "an array", "a string", "a
// number", "a boolean" or "null".
func Describe(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "a number"
}

// RawIs reports whether raw JSON is of one of the JSON Schema types given
// ("object", "array", "string", "number", "integer", "boolean", "null").
// Empty raw JSON (an absent member) is none of them.
func RawIs(raw []byte, types ...string) bool {
	d := NewDecoder(raw)
	k := d.Kind()
	for _, t := range types {
		switch {
		case t == "object" && k == KindObject, t == "array" && k == KindArray, t == "string" && k == KindString,
			t == "boolean" && k == KindBool, t == "null" && k == KindNull, t == "number" && k == KindNumber:
			return true
		case t == "integer" && k == KindNumber:
			if _, err := d.Int64(); err == nil {
				return true
			}
			if _, err := NewDecoder(raw).Uint64(); err == nil {
				return true
			}
		}
	}
	return false
}
