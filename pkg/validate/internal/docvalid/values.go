// Comparing a document's value with a const or enum value, as v6 compares
// them.

package docvalid

import (
	"encoding/json"
	"math/big"
	"strconv"

	"github.com/agentproto/agentproto/internal/jsonscan"
)

// equals is v6's equality of JSON values, between node i and a value of
// a schema (numbers by their exact value).
func (v *docValidator) equals(i int, want any) bool {
	d := v.d
	switch w := want.(type) {
	case string:
		v.read(i)
		return d.StringIs(i, w)
	case bool:
		b, ok := d.Bool(i)
		return ok && b == w
	case nil:
		return d.Type(i) == jsonscan.Null
	case json.Number, float64, int, int64:
		if d.Type(i) != jsonscan.Number {
			return false
		}
		a := v.number(i)
		b, ok := new(big.Rat).SetString(numText(w))
		return a != nil && ok && a.Cmp(b) == 0
	}
	v.readTree(i)
	return canonical(d.Value(i)) == canonical(want)
}

func numText(v any) string {
	switch n := v.(type) {
	case json.Number:
		return string(n)
	case float64:
		return strconv.FormatFloat(n, 'g', -1, 64)
	case int:
		return strconv.Itoa(n)
	case int64:
		return strconv.FormatInt(n, 10)
	}
	return ""
}

// canonical encodes a JSON value so that two values v6 deems equal
// encode alike: members sorted, numbers by their exact value.
func canonical(v any) string {
	var b []byte
	var enc func(v any)
	enc = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			b = append(b, '{')
			for k, name := range sortedKeys(x) {
				if k > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendQuote(b, name)
				b = append(b, ':')
				enc(x[name])
			}
			b = append(b, '}')
		case []any:
			b = append(b, '[')
			for k, e := range x {
				if k > 0 {
					b = append(b, ',')
				}
				enc(e)
			}
			b = append(b, ']')
		case string:
			b = strconv.AppendQuote(b, x)
		case bool:
			b = strconv.AppendBool(b, x)
		case nil:
			b = append(b, "null"...)
		default:
			if r, ok := new(big.Rat).SetString(numText(x)); ok {
				b = append(b, 'n')
				b = append(b, r.RatString()...)
			} else {
				b = append(b, '?')
			}
		}
	}
	enc(v)
	return string(b)
}
