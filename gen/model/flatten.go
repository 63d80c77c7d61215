package model

import (
	"regexp"
	"slices"

	"github.com/agentproto/agentproto/gen/load"
)

// taggedInner returns, for an alternative that is (through $refs) only a
// oneOf of objects that each fix one member to a distinct string, with at
// most "type": "object" and required members of its own, those objects,
// each requiring the members the alternative requires: OpenAPI
// 2.0's parameter, a body parameter (in: body) or a nonBodyParameter that
// requires name, in and type and is one of four parameters tagged by in,
// is then one union of five tagged by in. The objects exclude each other
// by that member, so a value fits the alternative exactly when it fits one
// of them. An object that does not itself require what the alternative
// requires is copied with those members required. It returns nil for any
// other alternative.
func taggedInner(a *load.Schema) []*load.Schema {
	u := deref(a)
	if len(u.OneOf) < 2 || len(u.AnyOf) > 0 || len(u.Properties) > 0 || len(u.PatternProperties) > 0 || u.AdditionalProperties != nil ||
		len(u.AllOf) > 0 || u.Not != nil || u.If != nil || u.HasConst || len(u.Enum) > 0 || len(u.Unknown) > 0 || u.Ref != "" ||
		len(u.Type) > 1 || len(u.Type) == 1 && u.Type[0] != "object" {
		return nil
	}
	for _, name := range constMembers(u.OneOf[0]) {
		seen := map[string]bool{}
		ok := true
		for _, x := range u.OneOf {
			c, isConst := constString(propertyOf(x, name))
			if !isConst || seen[c] || !slices.Contains(u.Required, name) && !requires(x, name) {
				ok = false
				break
			}
			seen[c] = true
		}
		if ok {
			out := make([]*load.Schema, len(u.OneOf))
			for i, x := range u.OneOf {
				x = deref(x)
				if slices.ContainsFunc(u.Required, func(m string) bool { return !slices.Contains(x.Required, m) }) {
					// A copy that also requires what the alternative does.
					c := *x
					c.Title, c.GoName = "", ""
					c.Required = append(slices.Clone(x.Required), slices.DeleteFunc(slices.Clone(u.Required), func(m string) bool { return slices.Contains(x.Required, m) })...)
					x = &c
				}
				out[i] = x
			}
			return out
		}
	}
	return nil
}

// constMembers lists the members a schema (through $refs and allOf)
// fixes to one string, in the order it declares them.
func constMembers(s *load.Schema) []string {
	var out []string
	for i := 0; i < 16 && s != nil; i++ {
		for _, p := range s.Properties {
			if hasConst(p.Schema) && !slices.Contains(out, p.Name) {
				out = append(out, p.Name)
			}
		}
		for _, a := range s.AllOf {
			for _, n := range constMembers(a) {
				if !slices.Contains(out, n) {
					out = append(out, n)
				}
			}
		}
		s = s.Target
	}
	return out
}

// requires reports whether a schema (through $refs and allOf) requires
// the member name.
func requires(s *load.Schema, name string) bool {
	for i := 0; i < 16 && s != nil; i++ {
		if slices.Contains(s.Required, name) {
			return true
		}
		for _, a := range s.AllOf {
			if requires(a, name) {
				return true
			}
		}
		s = s.Target
	}
	return false
}

// isMultiTypeAlt reports whether an alternative of a union is only a list
// of JSON types with their constraints, which splitTypes can make one
// alternative per type: no value list, no union or merge of its own, and
// not both integer and number (which overlap).
func isMultiTypeAlt(s *load.Schema) bool {
	return len(s.Type) > 1 && len(s.OneOf)+len(s.AnyOf)+len(s.AllOf) == 0 && len(s.Enum) == 0 && !s.HasConst &&
		s.Ref == "" && s.Not == nil && s.If == nil && !(s.HasType("integer") && s.HasType("number"))
}

// mergeValueLists joins the alternatives of an anyOf that only list values
// (an enum or a const, with at most a type and annotations) of one JSON
// type into one enum: {"enum": [true]} and {"enum": [false]} are one
// boolean, decided as one variant.
func mergeValueLists(alts []*load.Schema) []*load.Schema {
	first := map[string]int{} // kind -> index in out of its merged list
	copied := map[int]bool{}  // the entries of out that are copies
	var out []*load.Schema
	for _, a := range alts {
		k := kindOf(a)
		if !onlyValues(deref(a)) || k == "" {
			out = append(out, a)
			continue
		}
		i, ok := first[k]
		if !ok {
			first[k] = len(out)
			out = append(out, a)
			continue
		}
		if !copied[i] {
			// Copy before the first change: the schema is the loader's.
			m := deref(out[i])
			out[i] = &load.Schema{Loc: m.Loc, Doc: m.Doc, Base: m.Base, Type: []string{k}, Enum: values(m)}
			copied[i] = true
		}
		out[i].Enum = append(out[i].Enum, values(deref(a))...)
		if k == "boolean" && slices.Contains(out[i].Enum, true) && slices.Contains(out[i].Enum, false) {
			out[i].Enum = nil // both booleans: any boolean
		}
	}
	return out
}

// splitValueLists replaces an alternative of an anyOf that only lists
// values of several JSON types ({"enum": [false, "eval"]}) with one value
// list per type, so that each is decided by the value's type.
func splitValueLists(alts []*load.Schema) []*load.Schema {
	var out []*load.Schema
	for _, a := range alts {
		d := deref(a) // webpack's Falsy: a $ref to [false, 0, "", null]
		if !onlyValues(d) || kindOf(d) != "" || len(d.Type) > 0 {
			out = append(out, a)
			continue
		}
		split := mixedEnum(d, values(d), false)
		if split == nil {
			out = append(out, a)
			continue
		}
		out = append(out, split...)
	}
	return out
}

// onlyValues reports whether a schema lists values (enum or const) and
// says nothing else but its type and annotations.
func onlyValues(s *load.Schema) bool {
	if !s.HasConst && len(s.Enum) == 0 || len(s.Type) > 1 || s.Ref != "" || s.Bool != nil {
		return false
	}
	c := *s
	c.Enum, c.Const, c.HasConst, c.Type = nil, nil, false, nil
	return acceptsAnything(&c)
}

// values are the values an enum or const schema lists.
func values(s *load.Schema) []any {
	if s.HasConst {
		return []any{s.Const}
	}
	return append([]any(nil), s.Enum...)
}

// sameScalarKind joins the alternatives of an anyOf that are of one scalar
// JSON type (string, integer, number, boolean) into one alternative of
// that type, an anyOf of them: webpack's devtool, false, "eval" or a
// string matching a pattern, is a boolean or a string enum open to the
// pattern, decided by the value's type. Alternatives with structure (a
// $ref to an object, say) are left as they are.
func sameScalarKind(alts []*load.Schema) []*load.Schema {
	groups := map[string][]int{}
	for i, a := range alts {
		switch k := kindOf(a); k {
		case "string", "integer", "number", "boolean":
			if a.Bool == nil && !structural(a) && len(a.AllOf) == 0 && a.Not == nil && a.If == nil {
				groups[k] = append(groups[k], i)
			}
		}
	}
	for _, g := range groups {
		if len(g) == len(alts) {
			// All of one type already: the union is that type's.
			return alts
		}
	}
	var out []*load.Schema
	done := map[int]bool{}
	for i, a := range alts {
		if done[i] {
			continue
		}
		k := kindOf(a)
		g := groups[k]
		if len(g) < 2 || g[0] != i {
			out = append(out, a)
			continue
		}
		j := &load.Schema{Loc: a.Loc, Doc: a.Doc, Base: a.Base, Type: []string{k}}
		for _, x := range g {
			j.AnyOf = append(j.AnyOf, alts[x])
			done[x] = true
		}
		out = append(out, j)
	}
	return out
}

// splitTypes is a schema of several types as a oneOf of one alternative
// per type, each the schema with that type alone (a keyword that does not
// apply to a type is ignored for it, as validators do).
func splitTypes(s *load.Schema) *load.Schema {
	u := &load.Schema{Loc: s.Loc, Doc: s.Doc, Base: s.Base, Title: s.Title, Description: s.Description}
	for _, k := range s.Type {
		a := *s
		a.Type, a.Title, a.Description, a.GoName = []string{k}, "", "", ""
		if k != "object" {
			a.Properties, a.Required, a.AdditionalProperties, a.PatternProperties, a.PropertyNames = nil, nil, nil, nil, nil
			a.MinProperties, a.MaxProperties, a.DependentRequired = nil, nil, nil
		}
		if k != "array" {
			a.Items, a.PrefixItems, a.MinItems, a.MaxItems, a.UniqueItems = nil, nil, nil, nil, false
		}
		if k != "string" {
			a.MinLength, a.MaxLength, a.Pattern, a.Format = nil, nil, "", ""
		}
		if k != "number" && k != "integer" {
			a.Minimum, a.Maximum, a.ExclusiveMinimum, a.ExclusiveMaximum, a.MultipleOf = nil, nil, nil, nil, nil
		}
		u.OneOf = append(u.OneOf, &a)
	}
	return u
}

// flattenAlts replaces an alternative that has no single JSON type but is
// itself only a union of alternatives of distinct JSON types (biome's
// GroupMatcher: an object matcher or a string one) with those
// alternatives, so that the outer union is decided by type. With distinct
// types the inner alternatives exclude each other, so a value is valid
// against the inner union exactly when it is valid against one of them.
//
// In an anyOf (anyOf set), an alternative that is itself only an anyOf is
// replaced by its alternatives whatever their types: an anyOf of anyOfs
// accepts what any of the inner alternatives accepts (webpack's cache:
// true, or a $ref to false | memory options | file options).
func flattenAlts(alts []*load.Schema, anyOf bool) []*load.Schema {
	var out []*load.Schema
	changed := false
	for _, a := range alts {
		if inner := taggedInner(a); inner != nil {
			out = append(out, inner...)
			changed = true
			continue
		}
		if k := kindOf(a); k != "" && !isUnion(deref(a)) || k != "" && k != "object" && !(k == "array" && anyOf && len(deref(a).OneOf) == 0) {
			// Of one type, and not a union that may be flattened below:
			// of objects (AsyncAPI's message object), or of arrays in an
			// anyOf (vega-lite's sort, an array of numbers, of strings or
			// of dates), which would be a variant that is an interface.
			// (Scalars of one type are one value with checks, kept.)
			out = append(out, a)
			continue
		}
		if d := deref(a); isMultiTypeAlt(a) || d != a && isMultiTypeAlt(d) && !isMultiType(d) {
			// electron-builder's {"type": ["null", "boolean"]} beside an
			// array, or vega-lite's datum, a $ref to PrimitiveValue
			// ({"type": ["number", "string", "boolean", "null"]}) beside
			// objects: one alternative per type. (A $ref to a list of
			// types with constraints is a union of its own, which the
			// outer one joins.)
			out = append(out, splitTypes(d).OneOf...)
			changed = true
			continue
		}
		u := deref(a)
		inner := u.OneOf
		if len(inner) == 0 {
			inner = u.AnyOf
		}
		if len(inner) < 2 || len(u.OneOf) > 0 && len(u.AnyOf) > 0 || len(u.Type) > 0 && !typesImplied(u.Type, inner) || len(u.Properties) > 0 || len(u.Required) > 0 ||
			len(u.AllOf) > 0 || u.Not != nil || u.If != nil || u.HasConst || len(u.Enum) > 0 || len(u.Unknown) > 0 || u.Ref != "" {
			out = append(out, a)
			continue
		}
		if anyOf && len(u.OneOf) == 0 {
			out = append(out, flattenAlts(inner, true)...)
			changed = true
			continue
		}
		seen := map[string]bool{}
		distinct := true
		for _, x := range inner {
			k := kindOf(x)
			if k == "" || seen[k] {
				distinct = false
			}
			seen[k] = true
		}
		if (!distinct || seen["integer"] && seen["number"]) && !pairwiseExclusive(inner) {
			out = append(out, a)
			continue
		}
		out = append(out, inner...)
		changed = true
	}
	if !changed {
		return alts
	}
	return out
}

// typesImplied reports whether a list of JSON types says nothing beside
// alternatives that each have one of those types: tsup's root, of type
// object or array and a oneOf of an object and an array, is that oneOf.
func typesImplied(types []string, alts []*load.Schema) bool {
	for _, a := range alts {
		k := kindOf(a)
		if k == "" || !slices.Contains(types, k) && !(k == "integer" && slices.Contains(types, "number")) {
			return false
		}
	}
	return true
}

// pairwiseExclusive reports whether no value fits two of the schemas, as
// far as their JSON types and their object members tell: of two objects,
// one requires a member the other does not allow (it is closed, and the
// member is neither one of its properties nor matches one of its
// patterns). AsyncAPI's message object is a list of messages (it requires
// oneOf) or a closed object without that member.
func pairwiseExclusive(list []*load.Schema) bool {
	for i, x := range list {
		for _, y := range list[i+1:] {
			kx, ky := kindOf(x), kindOf(y)
			if kx == "" || ky == "" {
				return false
			}
			if kx != ky && !(kx == "integer" && ky == "number" || kx == "number" && ky == "integer") {
				continue
			}
			if kx != "object" || !excludes(x, y) && !excludes(y, x) {
				return false
			}
		}
	}
	return true
}

// excludes reports whether x requires a member that y, a closed object,
// does not allow. Both are followed through $refs.
func excludes(x, y *load.Schema) bool {
	x, y = deref(x), deref(y)
	ap := y.AdditionalProperties
	// Its own additionalProperties: false closes y whatever its allOf,
	// oneOf or anyOf add: those only restrict further.
	if ap == nil || ap.Bool == nil || *ap.Bool || y.Ref != "" {
		return false
	}
	for _, m := range x.Required {
		if y.PropertyNamed(m) != nil {
			continue
		}
		allowed := false
		for _, pp := range y.PatternProperties {
			re, err := regexp.Compile(pp.Name)
			if err != nil || re.MatchString(m) {
				allowed = true
			}
		}
		if !allowed {
			return true
		}
	}
	return false
}

// fixedPositions are the element schemas of an array alternative that
// holds exactly n elements and says nothing else (besides annotations):
// minItems and maxItems both n, with items as one schema for every
// position or a tuple of n positions. ok is false for any other.
func fixedPositions(a *load.Schema) (pos []*load.Schema, ok bool) {
	d := deref(a)
	if kindOf(d) != "array" || d.MinItems == nil || d.MaxItems == nil || *d.MinItems != *d.MaxItems || *d.MinItems > 16 {
		return nil, false
	}
	n := int(*d.MinItems)
	c := *d
	c.Type, c.Items, c.PrefixItems, c.MinItems, c.MaxItems = nil, nil, nil, nil, nil
	if !acceptsAnything(&c) || len(d.Type) > 1 || d.Bool != nil {
		return nil, false
	}
	switch {
	case len(d.PrefixItems) == n:
		return d.PrefixItems, true
	case len(d.PrefixItems) == 0 && d.Items != nil:
		for range n {
			pos = append(pos, d.Items)
		}
		return pos, true
	}
	return nil, false
}

// samePosition reports whether two element schemas are one schema: the
// same node, or $refs (with annotations at most) to the same one.
func samePosition(x, y *load.Schema) bool {
	return x == y || deref(x) == deref(y) && deref(x) != x
}

// mergeTuples joins the array alternatives of a union that each hold a
// fixed number of elements, where every shorter one is a prefix of the
// longer ones and the lengths follow each other, into one tuple whose
// later positions are optional: cspell's reporter, [name] or [name,
// options], is the tuple [name, options?]. An array fits the tuple exactly
// when it fits one of the alternatives (which no array fits two of), so
// the union is decided by JSON type. Any other union is left as it is.
func mergeTuples(alts []*load.Schema) []*load.Schema {
	var arrays []int
	var positions [][]*load.Schema
	for i, a := range alts {
		if kindOf(a) != "array" {
			continue
		}
		pos, ok := fixedPositions(a)
		if !ok {
			return alts
		}
		arrays = append(arrays, i)
		positions = append(positions, pos)
	}
	if len(arrays) < 2 {
		return alts
	}
	order := make([]int, len(arrays))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int { return len(positions[i]) - len(positions[j]) })
	longest := positions[order[len(order)-1]]
	for k, i := range order {
		if k > 0 && len(positions[i]) != len(positions[order[k-1]])+1 {
			return alts // a gap: the merged tuple would take a length none does
		}
		for p, x := range positions[i] {
			if !samePosition(x, longest[p]) {
				return alts
			}
		}
	}
	first := deref(alts[arrays[0]])
	no := false
	lo, hi := uint64(len(positions[order[0]])), uint64(len(longest))
	merged := &load.Schema{Loc: first.Loc, Doc: first.Doc, Base: first.Base, Type: []string{"array"}, PrefixItems: longest,
		MinItems: &lo, MaxItems: &hi, Items: &load.Schema{Loc: first.Loc, Doc: first.Doc, Base: first.Base, Bool: &no}}
	var out []*load.Schema
	for i, a := range alts {
		switch {
		case i == arrays[0]:
			out = append(out, merged)
		case slices.Contains(arrays, i):
		default:
			out = append(out, a)
		}
	}
	return out
}
