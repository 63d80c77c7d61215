package model

import (
	"github.com/agentproto/agentproto/gen/load"
)

// forbidden reports whether a property schema allows no value at all: the
// schema false, or {"not": {}} (not anything).
func forbidden(s *load.Schema) bool {
	if s.Bool != nil {
		return !*s.Bool
	}
	if s.Not == nil || structural(s) || s.Ref != "" || len(s.AllOf) > 0 {
		return false
	}
	n := s.Not
	return (n.Bool != nil && *n.Bool) || (n.Bool == nil && !structural(n) && n.Ref == "" && len(n.AllOf) == 0 && n.Not == nil && n.If == nil && len(n.Unknown) == 0)
}

// normalized is a schema with its wrappers taken off.
type normalized struct {
	s        *load.Schema
	target   *load.Schema // set when s only refers to another named schema
	nullable bool
}

// structural keywords decide a value's shape; a schema with none of them
// besides $ref or a one-element allOf is only a reference.
func structural(s *load.Schema) bool {
	return len(s.Type) > 0 || len(s.Properties) > 0 || len(s.OneOf) > 0 || len(s.AnyOf) > 0 ||
		s.HasConst || len(s.Enum) > 0 || s.Items != nil || s.AdditionalProperties != nil || len(s.PatternProperties) > 0 ||
		len(s.Required) > 0 || len(s.PrefixItems) > 0
}

func (b *builder) normalize(s *load.Schema) (normalized, error) {
	n := normalized{s: s}
	for i := 0; i < 64; i++ {
		cur := n.s
		switch {
		case cur.Ref != "" && !structural(cur) && len(cur.AllOf) == 0:
			t, err := target(cur)
			if err != nil {
				return n, err
			}
			n.target = t
			return n, nil
		case cur.Ref == "" && len(cur.AllOf) == 1 && !structural(cur):
			n.s = cur.AllOf[0]
			continue
		case cur.Ref == "" && len(cur.AllOf) > 1 && !structural(cur) && onlyOneSays(cur.AllOf) != nil:
			// An allOf whose other members only annotate (draft-07's
			// nonNegativeIntegerDefault0: allOf [{"$ref":
			// nonNegativeInteger}, {"default": 0}]) is its one member
			// that says something.
			n.s = onlyOneSays(cur.AllOf)
			continue
		case cur.Ref == "" && len(cur.AllOf) == 0 && len(cur.OneOf)+len(cur.AnyOf) == 1 && len(cur.Type) == 0 && len(cur.Properties) == 0 && !cur.HasConst && len(cur.Enum) == 0:
			// A oneOf (or anyOf) of one alternative is that alternative.
			n.s = append(cur.OneOf, cur.AnyOf...)[0]
			continue
		case len(cur.Type) == 2 && cur.HasType("null"):
			n.nullable = true
			other := cur.Type[0]
			if other == "null" {
				other = cur.Type[1]
			}
			c := *cur
			c.Type = []string{other}
			n.s = &c
			return n, nil
		}
		alts := cur.AnyOf
		if len(alts) == 0 {
			alts = cur.OneOf
		}
		if len(alts) == 2 && !cur.HasType("object") && len(cur.Properties) == 0 {
			for i, a := range alts {
				if len(a.Type) == 1 && a.Type[0] == "null" && !structuralBesidesType(a) {
					n.nullable = true
					n.s = alts[1-i]
					goto next
				}
			}
		}
		return n, nil
	next:
	}
	return n, s.Loc.Errorf("too many nested wrappers")
}

// onlyOneSays returns the one schema of list that is not satisfied by
// every value, or nil when there are none or several.
func onlyOneSays(list []*load.Schema) *load.Schema {
	var one *load.Schema
	for _, a := range list {
		if acceptsAnything(a) {
			continue
		}
		if one != nil {
			return nil
		}
		one = a
	}
	return one
}

func structuralBesidesType(s *load.Schema) bool {
	c := *s
	c.Type = nil
	return structural(&c)
}

func isEnum(s *load.Schema) bool {
	if len(s.Enum) > 1 {
		return true
	}
	alts := s.OneOf
	if len(alts) == 0 {
		alts = s.AnyOf
	}
	if len(alts) < 2 || len(s.Properties) > 0 {
		return false
	}
	consts := 0
	for i, a := range alts {
		switch {
		case a.HasConst && len(a.Properties) == 0:
			consts++
		case len(a.Enum) > 0 && len(a.Properties) == 0:
			consts += len(a.Enum)
		case i == len(alts)-1 && !a.HasConst && len(a.Properties) == 0 && len(a.Type) == 1 && (a.Type[0] == "string" || a.Type[0] == "integer"):
			// a catch-all
		default:
			return false
		}
	}
	return consts > 0
}

// requiredAlternatives returns the required-member sets of an anyOf or
// oneOf that only constrains which of an object's own members are present
// (each alternative lists required members and at most re-describes them),
// or nil when the alternatives describe different shapes.
func requiredAlternatives(s *load.Schema) [][]string {
	alts := s.AnyOf
	if len(alts) == 0 {
		alts = s.OneOf
	}
	var out [][]string
	for _, a := range alts {
		if a.Ref != "" || len(a.AllOf) > 0 || len(a.AnyOf) > 0 || len(a.OneOf) > 0 || len(a.Required) == 0 ||
			a.HasConst || len(a.Enum) > 0 || (len(a.Type) > 0 && !(len(a.Type) == 1 && a.Type[0] == "object")) {
			return nil
		}
		for _, p := range a.Properties {
			if s.PropertyNamed(p.Name) == nil || structural(p.Schema) || p.Schema.Ref != "" {
				return nil
			}
		}
		for _, r := range a.Required {
			if s.PropertyNamed(r) == nil {
				return nil
			}
		}
		out = append(out, append([]string(nil), a.Required...))
	}
	return out
}

func isUnion(s *load.Schema) bool {
	return len(s.OneOf) > 1 || len(s.AnyOf) > 1
}

func isObject(s *load.Schema) bool {
	return s.HasType("object") || len(s.Properties) > 0 || (len(s.Type) == 0 && len(s.AllOf) > 0)
}

func hasStructure(s *load.Schema) bool {
	if len(s.Properties) > 0 || len(s.AllOf) > 0 || len(s.Required) > 0 {
		return true
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Bool != nil && !*s.AdditionalProperties.Bool {
		return true
	}
	return false
}

func structuralBesidesConst(s *load.Schema) bool {
	c := *s
	c.HasConst, c.Const, c.Type = false, nil, nil
	return structural(&c)
}

// acceptsAnything reports whether a schema accepts every value: true, or
// only annotations.
func acceptsAnything(s *load.Schema) bool {
	if s.Bool != nil {
		return *s.Bool
	}
	return !structural(s) && s.Ref == "" && len(s.AllOf) == 0 && s.Not == nil && s.If == nil && len(s.Unknown) == 0 &&
		constraints(s).Empty() && s.Format == "" && !s.UniqueItems && s.PropertyNames == nil && len(s.DependentRequired) == 0
}

// isMultiType reports whether a schema lists several JSON types, with
// constraints for some of them or only scalar ones, and no oneOf or anyOf
// of its own: it is a union of one alternative per type (markdownlint's
// lines_above, an integer or an array of integers; MCP's RequestId, a
// string or an integer, a sealed interface as ACP's RequestId is).
func isMultiType(s *load.Schema) bool {
	if len(s.Type) < 2 || len(s.OneOf)+len(s.AnyOf) > 0 || len(s.Enum) > 0 || s.HasConst {
		return false
	}
	if scalarTypes(s.Type) {
		return true
	}
	c := *s
	c.Type = nil
	return structural(&c) || !constraints(s).Empty()
}

// deref follows the $refs of a schema that is only a $ref.
func deref(s *load.Schema) *load.Schema {
	for i := 0; i < 16 && s.Ref != "" && !structural(s) && len(s.AllOf) == 0 && s.Target != nil; i++ {
		s = s.Target
	}
	return s
}

// scalarTypes reports whether a list of JSON types holds only scalars
// (string, integer, number, boolean, null) of at least two kinds of value:
// integer and number alone (with null or not) are one number.
func scalarTypes(types []string) bool {
	kinds := map[string]bool{}
	for _, t := range types {
		switch t {
		case "integer", "number":
			kinds["number"] = true
		case "string", "boolean":
			kinds[t] = true
		case "null":
		default:
			return false
		}
	}
	return len(kinds) >= 2
}
