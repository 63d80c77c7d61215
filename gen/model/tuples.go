package model

import (
	"strconv"

	"github.com/agentproto/agentproto/gen/load"
)

// ordinals name the positions of a tuple that have no title.
var ordinals = []string{"First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth", "Tenth", "Eleventh", "Twelfth"}

// isTuple reports whether a schema is an array of fixed positions:
// prefixItems, or (draft-07) items as an array.
func isTuple(s *load.Schema) bool {
	return len(s.PrefixItems) > 0 && (len(s.Type) == 0 || len(s.Type) == 1 && s.Type[0] == "array") &&
		len(s.OneOf) == 0 && len(s.AnyOf) == 0
}

// fillTuple makes a tuple a struct with a field per position, which
// encodes as a JSON array: positions up to minItems are required, later
// ones optional; the elements after them are kept in a Rest slice of the
// items (additionalItems) schema, or refused when that schema is false.
func (b *builder) fillTuple(t *Type, s *load.Schema) error {
	st := &StructType{Tuple: true}
	if s.MinItems != nil {
		st.MinItems = int(min(*s.MinItems, uint64(len(s.PrefixItems))))
		if *s.MinItems > uint64(len(s.PrefixItems)) {
			t.Unchecked = append(t.Unchecked, "minItems beyond the tuple's positions")
		}
	}
	if s.MaxItems != nil && *s.MaxItems < uint64(len(s.PrefixItems)) {
		t.Unchecked = append(t.Unchecked, "maxItems")
	}
	if s.UniqueItems {
		t.Unchecked = append(t.Unchecked, "uniqueItems")
	}
	names := newNamer("")
	names.take("Rest")
	for i, is := range s.PrefixItems {
		name := "Item" + strconv.Itoa(i)
		if i < len(ordinals) {
			name = ordinals[i]
		}
		if is.Title != "" {
			name = names.take(GoName(is.Title), name)
		} else {
			name = names.take(name)
		}
		r, nullable, err := b.ref(is, t.Name+name)
		if err != nil {
			return err
		}
		if nullable && !r.IsRaw() {
			// A position that may be null is kept as raw JSON.
			r = &Ref{Kind: Raw, Lossy: true}
		}
		doc := is.Description
		if doc == "" {
			doc = "Item " + strconv.Itoa(i) + " of the array."
		}
		st.Fields = append(st.Fields, &Field{Name: name, JSON: strconv.Itoa(i), Doc: doc, Loc: is.Loc, Type: r, Required: i < st.MinItems})
	}
	switch rest := s.Items; {
	case rest != nil && rest.Bool != nil && !*rest.Bool:
		st.NoRest = true
		switch {
		case s.MaxItems != nil && *s.MaxItems <= uint64(len(st.Fields)):
			st.NoRestKeyword = "maxItems"
		case s.Pre2019:
			st.NoRestKeyword = "additionalItems"
		default:
			st.NoRestKeyword = "false"
		}
	case rest == nil || acceptsAnything(rest):
		st.Rest = &Field{Name: "Rest", Doc: "The elements after the positions above.", Loc: s.Loc, Type: &Ref{Kind: Slice, Elem: &Ref{Kind: Raw}}}
	default:
		e, nullable, err := b.ref(rest, t.Name+"Rest")
		if err != nil {
			return err
		}
		r := &Ref{Kind: Slice, Elem: e, ElemNullable: nullable && !e.Nilable()}
		st.Rest = &Field{Name: "Rest", Doc: "The elements after the positions above.", Loc: rest.Loc, Type: r}
	}
	if st.Rest != nil {
		st.Fields = append(st.Fields, st.Rest)
	}
	t.Kind, t.Struct = Struct, st
	return nil
}
