package protocol

import "github.com/santhosh-tekuri/jsonschema/v6"

// BigArray is an array of a value with its element schema.
type BigArray struct {
	Loc   []string // where the array sits, relative to the value
	Items *Schema  // the schema every element must pass
	Value []any
}

// BigArrays returns the arrays of v with at least minLen elements whose
// element schema the path from the root decides without a union: for each,
// an element that fails Items makes v invalid. Checking such elements one by
// one keeps the cost of explaining a huge invalid value proportional to the
// failures reported, not to the elements (a general validator builds one
// error tree holding every failing element).
func (s *Schema) BigArrays(v any, minLen int) []BigArray {
	if s == nil || s.shapes == nil {
		return nil
	}
	c, err := s.compiled()
	if err != nil {
		return nil
	}
	var out []BigArray
	s.shapes.bigArrays([]*jsonschema.Schema{c}, v, nil, minLen, 0, s, &out)
	return out
}

func (sh *shapes) bigArrays(schemas []*jsonschema.Schema, v any, loc []string, minLen, depth int, root *Schema, out *[]BigArray) {
	if depth > missDepth || len(schemas) != 1 {
		return
	}
	f := sh.get(schemas[0])
	if len(f.unions) > 0 {
		return // which alternative applies depends on the value
	}
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			if p, ok := f.props[k]; ok {
				sh.bigArrays([]*jsonschema.Schema{p}, child, append(loc, k), minLen, depth+1, root, out)
			}
		}
	case []any:
		if len(f.items) != 1 {
			return
		}
		if len(v) >= minLen {
			*out = append(*out, BigArray{Loc: append([]string(nil), loc...), Items: root.sub(f.items[0]), Value: v})
			return
		}
		for i, el := range v {
			sh.bigArrays(f.items, el, append(loc, itoa(i)), minLen, depth+1, root, out)
		}
	}
}
