package model

import (
	"github.com/agentproto/agentproto/gen/load"
)

// dispatchUnion reads the if/then dispatch of a bundle (agentproto's
// published *.bundle.json, and schemas written the same way) as the
// tagged union it is: an object whose allOf is only members {"if":
// {"properties": {T: {"const": c}}, "required": [T]}, "then": S}, all on
// one member T with distinct string consts (and at most one member whose
// condition on T is not a const, or is "not" one of the values: the
// catch-all or the default), and whose own
// properties list T's values and nothing else, is a oneOf of the S, each
// of which fixes T. It returns that oneOf, or nil when s is not of this
// form.
func dispatchUnion(s *load.Schema) *load.Schema {
	if len(s.AllOf) < 2 || s.Ref != "" || len(s.OneOf)+len(s.AnyOf) > 0 || len(s.Properties) > 1 || s.If != nil {
		return nil
	}
	tag, catchAll := "", false
	seen := map[string]bool{}
	u := &load.Schema{Loc: s.Loc, Doc: s.Doc, Base: s.Base, Title: s.Title, Description: s.Description, GoName: s.GoName}
	for _, a := range s.AllOf {
		if a.If == nil || a.Then == nil || a.Else != nil || structural(a) || a.Ref != "" || len(a.AllOf)+len(a.OneOf)+len(a.AnyOf) > 0 {
			return nil
		}
		cond := a.If
		if n := cond.Not; n != nil && len(cond.Properties)+len(cond.Required) == 0 {
			// {"not": {T in the listed values}}: the variant for a value
			// whose T is absent or another (ACP's AuthMethod of the
			// default kind).
			cond = n
		}
		if len(cond.Properties) != 1 || len(cond.Required) != 1 || cond.Properties[0].Name != cond.Required[0] {
			return nil
		}
		name := cond.Properties[0].Name
		c, ok := constString(cond.Properties[0].Schema)
		ok = ok && cond == a.If
		if tag != "" && name != tag || ok && seen[c] || !ok && catchAll {
			return nil
		}
		tag = name
		if !ok {
			// One member may select by something else than a const
			// (ARCP's x-vendor. kinds, by a pattern): the catch-all.
			catchAll = true
			u.OneOf = append(u.OneOf, a.Then)
			continue
		}
		seen[c] = true
		if then := a.Then; then.Ref != "" && then.Target != nil {
			if v, ok := constString(propertyOf(then.Target, tag)); !ok || v != c {
				return nil
			}
		}
		u.OneOf = append(u.OneOf, a.Then)
	}
	if len(s.Properties) == 1 && s.Properties[0].Name != tag {
		return nil
	}
	return u
}

// propertyOf returns the schema of the member name that s (or, for a
// $ref, its target) declares, or an empty schema.
func propertyOf(s *load.Schema, name string) *load.Schema {
	for i := 0; i < 16 && s != nil; i++ {
		if p := s.PropertyNamed(name); p != nil {
			return p
		}
		for _, a := range s.AllOf {
			if p := propertyOf(a, name); p.HasConst || len(p.Enum) > 0 {
				return p
			}
		}
		s = s.Target
	}
	return &load.Schema{}
}
