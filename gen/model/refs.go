package model

import (
	"github.com/agentproto/agentproto/gen/load"
)

// ref returns the type of a value described by s (a property, an element),
// naming any inline type it needs after hint, and whether null is allowed.
func (b *builder) ref(s *load.Schema, hint string) (*Ref, bool, error) {
	n, err := b.normalize(s)
	if err != nil {
		return nil, false, err
	}
	if n.target != nil {
		t, err := b.named(n.target)
		if err != nil {
			return nil, false, err
		}
		return &Ref{Kind: NamedRef, Type: t}, n.nullable || acceptsNull(n.target), nil
	}
	s = n.s
	if isEnum(s) || isUnion(s) || isTuple(s) || isMultiType(s) || (isObject(s) && hasStructure(s)) {
		t, err := b.inline(s, hint)
		if err != nil {
			return nil, false, err
		}
		return &Ref{Kind: NamedRef, Type: t}, n.nullable, nil
	}
	r, err := b.plainRef(s, hint)
	return r, n.nullable, err
}

// acceptsNull reports whether a named schema allows null itself.
func acceptsNull(s *load.Schema) bool {
	return s.HasType("null") && len(s.Type) == 2
}

// plainRef is the type of a schema that is not an object with structure,
// a union or an enum: a builtin, a slice, a map or raw JSON.
func (b *builder) plainRef(s *load.Schema, hint string) (*Ref, error) {
	if len(s.Type) > 1 {
		// Several JSON types: raw JSON whose kind Validate checks; any other
		// constraint is not checked.
		c := *s
		c.Type = nil
		return &Ref{Kind: Raw, Check: Constraints{RawKinds: s.Type}, Lossy: structural(&c) || s.Not != nil}, nil
	}
	if len(s.Type) == 0 && (s.HasConst || len(s.Enum) > 0) {
		// A const or enum without a type has the type of its values when
		// they share one that a builtin holds.
		switch k := kindOf(s); k {
		case "string", "boolean", "number":
			c := *s
			c.Type = []string{k}
			s = &c
		}
	}
	if len(s.Type) == 0 {
		return &Ref{Kind: Raw, Lossy: structural(s) || s.Not != nil}, nil
	}
	switch s.Type[0] {
	case "string":
		return &Ref{Kind: Builtin, Builtin: "string", Check: constraints(s)}, nil
	case "boolean":
		return &Ref{Kind: Builtin, Builtin: "bool", Check: constraints(s)}, nil
	case "number":
		return &Ref{Kind: Builtin, Builtin: "float64", Check: constraints(s)}, nil
	case "integer":
		return &Ref{Kind: Builtin, Builtin: intType(s), Check: constraints(s)}, nil
	case "null":
		return &Ref{Kind: Raw, Check: Constraints{RawKinds: []string{"null"}}}, nil
	case "array":
		if len(s.PrefixItems) > 0 {
			return nil, s.Loc.Errorf("tuples (prefixItems, or items as an array) are not supported: describe the elements with one items schema, or use an object")
		}
		r := &Ref{Kind: Slice, Elem: &Ref{Kind: Raw}, Check: constraints(s)}
		r.Check.UniqueItems = s.UniqueItems && uniqueCheckable(s)
		r.Check.UniqueJSON = s.UniqueItems && !r.Check.UniqueItems
		if s.Items != nil {
			e, nullable, err := b.ref(s.Items, hint+"Item")
			if err != nil {
				return nil, err
			}
			r.Elem, r.ElemNullable = e, nullable && !e.Nilable()
		}
		return r, nil
	case "object":
		ap := s.AdditionalProperties
		if len(s.PatternProperties) == 0 && ap != nil && ap.Bool == nil && structural(ap) || (ap != nil && ap.Ref != "") {
			e, nullable, err := b.ref(ap, hint+"Value")
			if err != nil {
				return nil, err
			}
			r := &Ref{Kind: Map, Elem: e, ElemNullable: nullable && !e.Nilable(), Check: constraints(s)}
			if names, ok := mapNames(s); ok && !names.Empty() {
				r.Check.Names = &names
			}
			return r, nil
		}
		// An object with no structure: raw JSON that Validate checks is an
		// object; member counts and the like are not checked.
		return &Ref{Kind: Raw, Check: Constraints{RawKinds: []string{"object"}}, Lossy: s.MinProperties != nil || s.MaxProperties != nil || len(s.PatternProperties) > 0}, nil
	}
	return &Ref{Kind: Raw}, nil
}

// mapNames reads the propertyNames of an object held as a map: the checks
// every member name must pass. ok is false when the object has
// propertyNames that ask more than a string's own checks (lengths, a
// pattern, an enum or const, a not of values, a format), which Validate
// then does not make; true with no checks when it has none.
func mapNames(s *load.Schema) (Constraints, bool) {
	pn := s.PropertyNames
	if pn == nil {
		return Constraints{}, true
	}
	if pn.Bool != nil {
		// true asks nothing; false (no member at all) is not a string's check.
		return Constraints{}, *pn.Bool
	}
	n := *deref(pn)
	if len(n.Type) == 0 {
		// Member names are strings.
		n.Type = []string{"string"}
	}
	if len(n.Type) != 1 || n.Type[0] != "string" {
		return Constraints{}, false
	}
	c := constraints(&n)
	rest := n
	rest.Type, rest.MinLength, rest.MaxLength, rest.Pattern, rest.Format = nil, nil, nil, "", ""
	rest.Enum, rest.Const, rest.HasConst = nil, nil, false
	if c.NotEnum != nil {
		rest.Not = nil
	}
	if !acceptsAnything(&rest) {
		return Constraints{}, false
	}
	return c, true
}
