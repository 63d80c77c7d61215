package model

import (
	"encoding/json"
	"go/token"
	"strconv"

	"github.com/agentproto/agentproto/gen/load"
)

// condition makes an if/then/else of an object schema a Condition, when
// each of its subschemas becomes a struct or an untagged union, with no
// exported name among the types made for it: each is read as a schema of
// this object (type object, and the type of a member the object already
// types where the subschema gives none, since both apply). Whether the
// condition can be checked is decided with completeness: only a complete
// If tells exactly which branch applies.
func (b *builder) condition(t *Type, st *StructType, s *load.Schema, ps []load.Property) error {
	start := len(b.pkg.Types)
	cd := &Condition{}
	for _, part := range []struct {
		x    *load.Schema
		word string
		dst  **Type
	}{{s.If, "if", &cd.If}, {s.Then, "then", &cd.Then}, {s.Else, "else", &cd.Else}} {
		if part.x == nil {
			continue
		}
		if part.x.Bool != nil || part.x.Ref != "" {
			b.dropCopies(start)
			return nil
		}
		x := inContext(part.x, ps)
		name := b.names.take(part.word + t.Name)
		sub := &Type{Name: name, Loc: part.x.Loc,
			Doc: name + " is the " + part.word + " schema of " + t.Name + ", a type of its own so that Validate can check it."}
		b.pkg.Types = append(b.pkg.Types, sub)
		if err := b.fill(sub, x); err != nil {
			return err
		}
		if sub.Kind != Struct && (sub.Kind != Union || sub.Union.Tag != "") {
			b.dropCopies(start)
			return nil
		}
		*part.dst = sub
	}
	for _, x := range b.pkg.Types[start:] {
		if token.IsExported(x.Name) {
			// A titled alternative would add a name to the package's API.
			b.dropCopies(start)
			return nil
		}
	}
	cd.Types = append(cd.Types, b.pkg.Types[start:]...)
	st.Cond = cd
	dropUnchecked(t, "if")
	return nil
}

// inContext is a subschema of an object's if/then/else read as a schema of
// that object: type object, and for a member the object types and the
// subschema does not, the object's type.
func inContext(x *load.Schema, ps []load.Property) *load.Schema {
	c := *x
	if len(c.Type) == 0 {
		c.Type = []string{"object"}
	}
	c.Properties = nil
	for _, p := range x.Properties {
		q := p
		if len(p.Schema.Type) == 0 && p.Schema.Bool == nil && p.Schema.Ref == "" {
			for _, o := range ps {
				if o.Name == p.Name && len(o.Schema.Type) == 1 {
					ps := *p.Schema
					ps.Type = o.Schema.Type
					q.Schema = &ps
				}
			}
		}
		c.Properties = append(c.Properties, q)
	}
	// A member the subschema requires without describing it is held as
	// any value: only its presence is the subschema's to check.
	for _, r := range x.Required {
		described := false
		for _, p := range c.Properties {
			described = described || p.Name == r
		}
		if !described {
			c.Properties = append(c.Properties, load.Property{Name: r, Schema: &load.Schema{Loc: x.Loc.Child("required"), Doc: x.Doc, Base: x.Base}})
		}
	}
	return &c
}

// dependencies collects the dependentRequired entries of the object's own
// schemas; ok is false when a member they name is not a field (Validate
// could not see it) or when a merged allOf member has its own.
func dependencies(st *StructType, srcs []*load.Schema) ([]load.Dependency, bool) {
	byJSON := map[string]bool{}
	for _, f := range st.Fields {
		if f.Repr() != NoField {
			byJSON[f.JSON] = true
		}
	}
	var out []load.Dependency
	for _, src := range srcs {
		for _, a := range src.AllOf {
			if len(a.DependentRequired) > 0 {
				return nil, false
			}
		}
		for _, d := range src.DependentRequired {
			if !byJSON[d.Member] {
				return nil, false
			}
			for _, r := range d.Requires {
				if !byJSON[r] {
					return nil, false
				}
			}
			out = append(out, d)
		}
	}
	return out, true
}

// conditions reads the if/then and not keywords of an object schema and of
// the allOf members it merges, in the forms Validate checks: if one member
// has one of some constant values, then members are required or have a
// constant value; not all of some members present. ok is false when one of
// them has another form.
func (b *builder) conditions(st *StructType, srcs []*load.Schema) ([]*Rule, [][]string, bool) {
	byJSON := map[string]*Field{}
	for _, f := range st.Fields {
		byJSON[f.JSON] = f
	}
	var rules []*Rule
	var notAll [][]string
	seen := map[*load.Schema]bool{}
	var walk func(x *load.Schema) bool
	walk = func(x *load.Schema) bool {
		if seen[x] {
			return true
		}
		seen[x] = true
		if x.If != nil {
			r, ok := parseRule(x, byJSON)
			if !ok {
				return false
			}
			rules = append(rules, r)
		}
		if x.Not != nil {
			n := x.Not
			if len(n.Required) == 0 || n.Ref != "" || len(n.Type) > 0 || len(n.AllOf)+len(n.AnyOf)+len(n.OneOf) > 0 || n.If != nil || n.Not != nil {
				return false
			}
			for _, p := range n.Properties {
				if structural(p.Schema) || p.Schema.Ref != "" {
					return false
				}
			}
			for _, r := range n.Required {
				if f := byJSON[r]; f == nil || f.Forbidden {
					return false
				}
			}
			notAll = append(notAll, n.Required)
		}
		if x.Ref != "" {
			t, err := target(x)
			if err != nil || !walk(t) {
				return false
			}
		}
		for _, a := range x.AllOf {
			if !walk(a) {
				return false
			}
		}
		return true
	}
	for _, s := range srcs {
		if !walk(s) {
			return nil, nil, false
		}
	}
	return rules, notAll, true
}

// parseRule reads if {properties: {K: {const|enum}}, required: [K]} then
// {properties: {M: {} | {const}}, required: [...]}, with no else.
func parseRule(x *load.Schema, byJSON map[string]*Field) (*Rule, bool) {
	i, t := x.If, x.Then
	if t == nil || x.Else != nil || len(i.Properties) != 1 || len(i.Required) != 1 || i.Required[0] != i.Properties[0].Name ||
		i.Ref != "" || len(i.AllOf)+len(i.AnyOf)+len(i.OneOf) > 0 || i.If != nil || i.Not != nil {
		return nil, false
	}
	key := i.Properties[0].Name
	cs := i.Properties[0].Schema
	var values []any
	switch {
	case cs.HasConst:
		values = []any{cs.Const}
	case len(cs.Enum) > 0:
		values = cs.Enum
	default:
		return nil, false
	}
	r := &Rule{IfKey: key}
	f := byJSON[key]
	if f == nil {
		return nil, false
	}
	for _, v := range values {
		lit, ok := literalFor(f, v)
		if !ok {
			return nil, false
		}
		r.IfValues = append(r.IfValues, lit)
	}
	if t.Ref != "" || len(t.AllOf)+len(t.AnyOf)+len(t.OneOf) > 0 || t.If != nil || t.Not != nil || len(t.Type) > 0 {
		return nil, false
	}
	for _, name := range t.Required {
		if f := byJSON[name]; f == nil || f.Forbidden {
			return nil, false
		}
		r.ThenRequired = append(r.ThenRequired, name)
	}
	for _, p := range t.Properties {
		switch {
		case p.Schema.HasConst && !structuralBesidesConst(p.Schema):
			f := byJSON[p.Name]
			if f == nil {
				return nil, false
			}
			lit, ok := literalFor(f, p.Schema.Const)
			if !ok {
				return nil, false
			}
			r.ThenConst = append(r.ThenConst, MemberValue{Member: p.Name, Value: lit})
		case acceptsAnything(p.Schema):
			// {} : only its presence matters, through required. (A
			// schema with a bound or a pattern is more than that.)
		default:
			return nil, false
		}
	}
	return r, true
}

// literalFor returns v as the JSON literal Validate compares a field with,
// when the field holds a string, boolean or integer value it can compare.
func literalFor(f *Field, v any) (string, bool) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	if f.Const != "" {
		return string(raw), true
	}
	switch f.Repr() {
	case Value, Pointer, Opt:
	default:
		return "", false
	}
	kind := scalarKind(f.Type)
	switch n := v.(type) {
	case string:
		return string(raw), kind == "string"
	case bool:
		return string(raw), kind == "bool"
	case json.Number:
		_, err := strconv.ParseInt(string(n), 10, 64)
		return string(raw), err == nil && kind == "int"
	}
	return "", false
}

// scalarKind is "string", "bool" or "int" for a value Validate can compare
// with a literal, "" otherwise.
func scalarKind(r *Ref) string {
	for r.Kind == NamedRef {
		switch r.Type.Kind {
		case Enum:
			r = r.Type.Enum.Base
		case Named, Alias:
			r = r.Type.Under
		default:
			return ""
		}
	}
	if r.Kind != Builtin {
		return ""
	}
	switch b := r.Builtin; {
	case b == "string", b == "bool":
		return b
	case b != "float64":
		return "int"
	}
	return ""
}
