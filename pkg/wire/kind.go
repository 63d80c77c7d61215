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
