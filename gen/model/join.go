package model

import (
	"fmt"
	"slices"
	"sort"

	"github.com/agentproto/agentproto/gen/load"
)

// A join is an alternative of an untagged union that is a $ref to another
// union decided by JSON type, none of whose types the union's other
// alternatives have: draft-07's items, the schema "#" (an object or a
// boolean) or an array of schemas. The inner union's variants become
// variants of the outer one as well, each decided by its JSON type as
// before, so that a value of the outer union is the very Go value it is
// in the inner one. Since the types are disjoint, a value fits the $ref
// alternative exactly when it fits one of the inner variants, and no
// other alternative.
//
// The inner union may still be under construction when the outer one is
// made (draft-07's root holds items, which refers to the root), so its
// variants are joined once every type is made (see joinAll).
type join struct {
	outer *Type
	s     *load.Schema
	infos []*variantInfo
	vi    *variantInfo
	inner *Type    // the named type of the $ref's target (maybe an alias)
	kinds []string // the JSON types the inner union is expected to have
}

// kindGroup is the JSON type by which the decoder tells values apart:
// integers and numbers are both numbers.
func kindGroup(k string) string {
	if k == "integer" {
		return "number"
	}
	return k
}

// unionKinds are the JSON types of a schema that is a union decided by
// type: a list of types with constraints (draft-07's root), or a oneOf or
// anyOf whose alternatives each have one JSON type or are such unions
// themselves. It is nil for any other schema, and for a union two of
// whose alternatives share a type (which the decoder tells apart by more
// than the type, and which a join does not take).
func unionKinds(s *load.Schema, depth int) []string {
	s = deref(s)
	if depth > 8 || s.Bool != nil {
		return nil
	}
	if isMultiType(s) || isMultiTypeAlt(s) {
		if len(s.Type) == 2 && s.HasType("null") {
			return nil // a nullable value, not a union
		}
		return distinctKinds(s.Type)
	}
	if ks := mixedEnumKinds(s); ks != nil {
		return ks
	}
	if !isUnion(s) || len(s.OneOf) > 0 && len(s.AnyOf) > 0 || len(s.Type) > 0 || len(s.Properties) > 0 || len(s.Required) > 0 ||
		len(s.AllOf) > 0 || s.Not != nil || s.If != nil || s.HasConst || len(s.Enum) > 0 || len(s.Unknown) > 0 || s.Ref != "" {
		return nil
	}
	alts := s.OneOf
	if len(alts) == 0 {
		alts = s.AnyOf
	}
	var out []string
	for _, a := range alts {
		if k := kindOf(a); k != "" {
			out = append(out, k)
			continue
		}
		ks := unionKinds(a, depth+1)
		if ks == nil {
			return nil
		}
		out = append(out, ks...)
	}
	return distinctKinds(out)
}

// mixedEnumKinds are the JSON types of an enum whose values mix them, with
// at most a list of types and annotations beside (vega-lite's Blend, null
// or a blend mode: {"type": ["null", "string"], "enum": [null,
// "multiply", …]}), which is made a union decided by type (see
// mixedEnum); nil for any other schema.
func mixedEnumKinds(s *load.Schema) []string {
	if len(s.Enum) < 2 || s.Ref != "" {
		return nil
	}
	c := *s
	c.Enum, c.Type = nil, nil
	if !acceptsAnything(&c) {
		return nil
	}
	var out []string
	for _, a := range mixedEnum(s, s.Enum, false) {
		out = append(out, a.Type[0])
	}
	return distinctKinds(out)
}

// distinctKinds returns the kinds when no two are decided alike, else nil.
func distinctKinds(kinds []string) []string {
	seen := map[string]bool{}
	for _, k := range kinds {
		if seen[kindGroup(k)] {
			return nil
		}
		seen[kindGroup(k)] = true
	}
	return kinds
}

// joinable returns the join of an alternative of t without a single JSON
// type, when it is a $ref to a union decided by JSON type; nil otherwise.
func (b *builder) joinable(t *Type, s *load.Schema, infos []*variantInfo, vi *variantInfo) (*join, error) {
	if vi.res == vi.s {
		return nil, nil
	}
	ks := unionKinds(vi.res, 0)
	if ks == nil {
		return nil, nil
	}
	nt, err := b.named(vi.res)
	if err != nil {
		return nil, err
	}
	if nt.External != nil {
		// Its variants belong to another package, which this one
		// cannot add to.
		return nil, nil
	}
	return &join{outer: t, s: s, infos: infos, vi: vi, inner: nt, kinds: ks}, nil
}

// joinKindsApart checks that the joins of a union take JSON types that no
// other of its alternatives (byKind) or joins take; it returns why not.
func joinKindsApart(byKind map[string][]*variantInfo, joins []*join) string {
	taken := map[string]string{}
	for k, vis := range byKind {
		if len(vis) > 0 {
			taken[kindGroup(k)] = vis[0].s.Loc.Pointer
		}
	}
	for _, j := range joins {
		for _, k := range j.kinds {
			if other, ok := taken[kindGroup(k)]; ok {
				return fmt.Sprintf("variant %s is a union with a value of JSON type %s, as variant %s is", j.vi.s.Loc.Pointer, k, other)
			}
			taken[kindGroup(k)] = j.vi.s.Loc.Pointer
		}
	}
	return ""
}

// joinAll makes the variants of each joined inner union variants of the
// outer one too, once every type is made. An inner union that turned out
// not to be decided by JSON type alone (a tagged union, one with a
// fallback or an unchecked overlap), or to share a type with the outer
// union's other variants, leaves the outer union undecidable: kept as raw
// JSON, as before.
func (b *builder) joinAll() error {
	pending := b.joins
	b.joins = nil
	waiting := func(t *Type) bool {
		for _, j := range pending {
			if j.outer == t {
				return true
			}
		}
		return false
	}
	for len(pending) > 0 {
		var next []*join
		progress := false
		for _, j := range pending {
			inner := j.inner
			for i := 0; i < 16 && inner.Kind == Alias && inner.Under != nil && inner.Under.Type != nil; i++ {
				inner = inner.Under.Type
			}
			if inner != j.outer && waiting(inner) {
				// Its own joins first, so that its variants are all there.
				next = append(next, j)
				continue
			}
			progress = true
			if j.outer.Union == nil {
				continue // already undecidable through another join
			}
			if why := whyNotJoined(j, inner); why != "" {
				if err := b.undecidable(j.outer, j.s, j.infos, why); err != nil {
					return err
				}
				continue
			}
			b.joinVariants(j.outer, inner)
		}
		pending = next
		if !progress {
			// Unions that join each other: none can be decided first.
			for _, j := range pending {
				if j.outer.Union == nil {
					continue
				}
				if err := b.undecidable(j.outer, j.s, j.infos, fmt.Sprintf("variant %s is a union that contains this one", j.vi.s.Loc.Pointer)); err != nil {
					return err
				}
			}
			pending = nil
		}
	}
	return nil
}

// whyNotJoined says why the variants of inner cannot join the outer union
// of j, or "".
func whyNotJoined(j *join, inner *Type) string {
	u := inner.Union
	what := fmt.Sprintf("variant %s", j.vi.s.Loc.Pointer)
	switch {
	case inner == j.outer || u == nil:
		return what + " has no single JSON type"
	case u.Tag != "" || u.Fallback != nil:
		return what + " is a union not decided by JSON type alone"
	case u.Overlap != "":
		return what + " is a oneOf whose objects may fit several of its alternatives"
	}
	taken := map[string]bool{}
	for _, v := range j.outer.Union.Variants {
		taken[kindGroup(v.JSONKind)] = true
	}
	for _, v := range u.Variants {
		if taken[kindGroup(v.JSONKind)] {
			return fmt.Sprintf("%s is a union with a value of JSON type %s, as another variant is", what, v.JSONKind)
		}
	}
	return ""
}

// joinVariants adds the variants of inner to the outer union t, with what
// inner leaves unchecked.
func (b *builder) joinVariants(t *Type, inner *Type) {
	u := t.Union
	for _, v := range inner.Union.Variants {
		nv := &Variant{Union: t, JSONKind: v.JSONKind, Type: v.Type, Keys: v.Keys, ItemKind: v.ItemKind, ItemKeys: v.ItemKeys, Doc: v.Doc}
		v.Type.Unions = append(v.Type.Unions, nv)
		u.Variants = append(u.Variants, nv)
	}
	for _, c := range inner.Unchecked {
		if !slices.Contains(t.Unchecked, c) {
			t.Unchecked = append(t.Unchecked, c)
		}
	}
	order := map[string]int{}
	for i, k := range jsonKinds {
		order[k] = i
	}
	objects := 0
	for _, v := range u.Variants {
		if v.JSONKind == "object" {
			objects++
		}
	}
	if objects > 1 {
		u.By = ByKeys
	}
	// As fillUntagged orders them: by JSON type, objects with more
	// required members first.
	sort.SliceStable(u.Variants, func(i, j int) bool {
		a, c := u.Variants[i], u.Variants[j]
		if a.JSONKind != c.JSONKind {
			return order[a.JSONKind] < order[c.JSONKind]
		}
		return a.JSONKind == "object" && len(a.Keys) > len(c.Keys)
	})
}
