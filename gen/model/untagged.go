package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/gen/load"
)

var jsonKinds = []string{"null", "boolean", "integer", "number", "string", "array", "object"}

// fillUntagged decides an untagged union by JSON kind, and objects among
// them by required members.
func (b *builder) fillUntagged(t *Type, s *load.Schema, infos []*variantInfo) error {
	un := &untagged{
		b: b, t: t, s: s, infos: infos,
		byKind: map[string][]*variantInfo{}, items: map[*variantInfo]*itemInfo{}, merged: map[string]*Ref{},
	}
	steps := []func() (done bool, err error){
		un.sortKinds, un.joinsApart, un.decideObjects, un.noteOverlap, un.arrayItems, un.mergeScalars, un.variants,
	}
	for _, step := range steps {
		if done, err := step(); done || err != nil {
			return err
		}
	}
	u := t.Union
	// Objects decided by keys: more required members first, then order.
	sort.SliceStable(u.Variants, func(i, j int) bool {
		return u.Variants[i].JSONKind == "object" && u.Variants[j].JSONKind == "object" && len(u.Variants[i].Keys) > len(u.Variants[j].Keys)
	})
	b.joins = append(b.joins, un.joins...)
	return nil
}

// untagged is an untagged union t (of schema s, with the alternatives
// infos) being decided. Each step of fillUntagged returns done when it
// has settled t otherwise: as raw JSON when the union cannot be decided
// (undecidable), or as a type that is no union.
type untagged struct {
	b     *builder
	t     *Type
	s     *load.Schema
	infos []*variantInfo
	// byKind holds the alternatives by JSON kind; joins, those of no
	// single kind that are unions decided by type.
	byKind map[string][]*variantInfo
	joins  []*join
	// items holds what the items of each array alternative tell apart;
	// merged, the one value of the alternatives of each scalar kind that
	// has several.
	items  map[*variantInfo]*itemInfo
	merged map[string]*Ref
}

// undecidable keeps the union as raw JSON, for the reason why.
func (un *untagged) undecidable(why string) (done bool, err error) {
	return true, un.b.undecidable(un.t, un.s, un.infos, why)
}

// sortKinds sorts the alternatives by JSON kind; a last alternative that
// takes any value is the union's fallback.
func (un *untagged) sortKinds() (done bool, err error) {
	s := un.s
	for i, vi := range un.infos {
		if i == len(un.infos)-1 && i > 0 && acceptsAnything(vi.res) {
			un.fallback(vi)
			continue
		}
		k := kindOf(vi.res)
		if k == "" && len(s.Type) == 1 && (s.Type[0] == "string" || s.Type[0] == "integer" || s.Type[0] == "number" || s.Type[0] == "boolean") {
			// An alternative that only adds constraints to the union's
			// own scalar type.
			k = s.Type[0]
		}
		if k == "" {
			j, err := un.b.joinable(un.t, s, un.infos, vi)
			if err != nil {
				return false, err
			}
			if j == nil {
				return un.undecidable(fmt.Sprintf("variant %s has no single JSON type", vi.s.Loc.Pointer))
			}
			un.joins = append(un.joins, j)
			continue
		}
		un.byKind[k] = append(un.byKind[k], vi)
	}
	return false, nil
}

// fallback makes the alternative vi, which accepts any value, the
// union's fallback: what the others do not take decodes to it, kept as
// raw JSON.
func (un *untagged) fallback(vi *variantInfo) {
	b, t, u := un.b, un.t, un.t.Union
	want := t.Name + "Other"
	if vi.s.Title != "" {
		want = t.Name + GoName(vi.s.Title)
	}
	name := b.names.take(want, t.Name+"Other", t.Name+"Any")
	ft := &Type{Name: name, Doc: vi.s.Description, Loc: vi.s.Loc, Kind: Scalar, Under: &Ref{Kind: Raw}}
	b.pkg.Types = append(b.pkg.Types, ft)
	u.Fallback = &Variant{Union: t, Type: ft, Doc: vi.s.Description}
	ft.Unions = append(ft.Unions, u.Fallback)
}

// joinsApart checks that the joined unions and the other alternatives
// take values of different kinds.
func (un *untagged) joinsApart() (done bool, err error) {
	if why := joinKindsApart(un.byKind, un.joins); why != "" {
		return un.undecidable(why)
	}
	return false, nil
}

// decideObjects decides how the union tells its values apart: by JSON
// kind, or, with several object variants, by their keys too. An integer
// variant and a number variant are told apart by the literal: a plain
// integer (no fraction or exponent) that fits in an int64 is the integer
// variant, any other number the number variant.
func (un *untagged) decideObjects() (done bool, err error) {
	objects := un.byKind["object"]
	if len(objects) <= 1 {
		un.t.Union.By = ByKind
		return false, nil
	}
	// Objects are tried most required members first, so only two
	// variants with the same required set cannot be told apart,
	// unless a member both require is fixed to different values in
	// each (electron-builder's publish options, provider: github or
	// gitlab, beside strings and arrays), or, in a oneOf, both are
	// closed and share no member they do not both require (nx's
	// inputs: {"runtime": …} or {"env": …}): the object is then the
	// variant it validates as (see emit's trial).
	for i, a := range objects {
		for j, c := range objects {
			if i < j && subset(a.req, c.req) && subset(c.req, a.req) && !constApart(a, c) && !(len(un.s.OneOf) > 0 && un.b.membersApart(a, c)) {
				return un.undecidable(fmt.Sprintf("variants %s and %s have no tag and require the same members; give every variant a property with a distinct const (a tag)", a.s.Loc.Pointer, c.s.Loc.Pointer))
			}
		}
	}
	un.t.Union.By = ByKeys
	return false, nil
}

// noteOverlap lists, for a oneOf, values that may fit two of its
// variants, which Validate does not check.
func (un *untagged) noteOverlap() (done bool, err error) {
	if len(un.s.OneOf) == 0 {
		return false, nil
	}
	t := un.t
	if why := overlap(un.byKind); why != "" {
		t.Unchecked = append(t.Unchecked, "oneOf: "+why)
		if strings.HasPrefix(why, "an object may fit both") {
			t.Union.Overlap = "oneOf: " + why
		}
	}
	return false, nil
}

// arrayItems tells several array alternatives apart by their items.
func (un *untagged) arrayItems() (done bool, err error) {
	arrays := un.byKind["array"]
	if len(arrays) <= 1 {
		return false, nil
	}
	if un.items, err = un.b.arrayItems(arrays); err != nil {
		return un.undecidable(err.Error())
	}
	return false, nil
}

// mergeScalars makes the alternatives of one scalar type one value whose
// Validate tries each alternative's constraints. When every alternative
// is of that type, the union is that value (or one enum), and done.
func (un *untagged) mergeScalars() (done bool, err error) {
	t, s := un.t, un.s
	for _, k := range []string{"boolean", "integer", "number", "string"} {
		if len(un.byKind[k]) < 2 {
			continue
		}
		r, set := un.b.scalarAlts(un.byKind[k], k, len(s.OneOf) > 0)
		if r == nil {
			return un.undecidable(fmt.Sprintf("two variants are of JSON type %s", k))
		}
		un.merged[k] = r
		if len(un.byKind) == 1 && t.Union.Fallback == nil {
			if e := valueEnum(s, k, set); e != nil {
				// Every alternative lists values: the union is one enum.
				t.Union = nil
				return true, un.b.fillEnum(t, e)
			}
			// Every alternative is of that type: the union is that value.
			c := constraints(s)
			c.Alts, c.OneOfAlts = r.Check.Alts, r.Check.OneOfAlts
			t.Kind, t.Union, t.Under, t.Check = Named, nil, &Ref{Kind: Builtin, Builtin: r.Builtin}, c
			return true, nil
		}
	}
	return false, nil
}

// variants makes the union's variants, kind by kind: one for the merged
// alternatives of a scalar kind, one for each other alternative.
func (un *untagged) variants() (done bool, err error) {
	u := un.t.Union
	for _, k := range jsonKinds {
		alts := un.byKind[k]
		for _, vi := range alts {
			if len(alts) > 1 && k != "object" && k != "array" {
				if vi != alts[0] {
					continue
				}
				// One variant for the alternatives of this type.
				u.Variants = append(u.Variants, un.b.scalarVariant(un.t, un.s, k, un.merged[k]))
				continue
			}
			if done, err := un.variant(vi, k); done || err != nil {
				return done, err
			}
		}
	}
	return false, nil
}

// variant makes the alternative vi, of JSON kind k, a variant of a type
// of its own.
func (un *untagged) variant(vi *variantInfo, k string) (done bool, err error) {
	b, t, u := un.b, un.t, un.t.Union
	v := &Variant{Union: t, JSONKind: k, Doc: vi.s.Description}
	it := un.items[vi]
	if it != nil {
		v.ItemKind, v.ItemKeys = it.kind, it.keys
	}
	for name := range vi.req {
		v.Keys = append(v.Keys, name)
	}
	sort.Strings(v.Keys)
	hint := vi.s.Title
	if hint == "" {
		hint = k
	}
	if k == "object" {
		v.Type, err = b.objectVariant(t, un.s, vi, hint, v.Doc, un.byKind["object"])
	} else {
		v.Type, err = b.valueVariant(t, vi, k, hint, v.Doc, it)
	}
	var uv unionVariant
	if errors.As(err, &uv) {
		return un.undecidable(uv.why)
	}
	if err != nil {
		return false, err
	}
	v.Type.Unions = append(v.Type.Unions, v)
	u.Variants = append(u.Variants, v)
	return false, nil
}

// scalarVariant is the one variant of an untagged union for its
// alternatives of the scalar JSON type k, merged into r (see scalarAlts).
func (b *builder) scalarVariant(t *Type, s *load.Schema, k string, r *Ref) *Variant {
	name := b.names.take(t.Name+GoName(k), t.Name+GoName(k)+"Value")
	vt := &Type{Name: name, Doc: "The alternatives of " + t.Name + " that are of JSON type " + k + ".", Loc: s.Loc, Kind: Scalar, Under: &Ref{Kind: Builtin, Builtin: r.Builtin}, Check: r.Check}
	b.pkg.Types = append(b.pkg.Types, vt)
	v := &Variant{Union: t, JSONKind: k, Type: vt}
	vt.Unions = append(vt.Unions, v)
	return v
}

// objectVariant is the type of an object alternative of an untagged
// union s: the struct of the schema it refers to, when that is no union's
// variant yet and s gives its variants no members of its own, else a
// struct of its own (the members of s first), named by its title or by
// what its schema says beside the other object alternatives (objects).
func (b *builder) objectVariant(t *Type, s *load.Schema, vi *variantInfo, hint, doc string, objects []*variantInfo) (*Type, error) {
	var base *load.Schema
	if hasOwnMembers(s) {
		// Members beside the oneOf belong to every variant.
		base = s
	}
	if vi.res != vi.s && isObject(vi.res) && base == nil {
		nt, err := b.named(vi.res)
		if err != nil {
			return nil, err
		}
		if nt.Kind == Struct && len(nt.Unions) == 0 {
			return nt, nil
		}
	}
	name := t.Name + GoName(hint)
	if vi.s.Title != "" {
		name = b.names.take(GoName(vi.s.Title), name)
	} else {
		// An untitled alternative is named after what its
		// schema says before a number is ever used.
		var alts []string
		for _, a := range b.altNames(vi, objects) {
			alts = append(alts, t.Name+a)
		}
		name = b.names.take(first(alts, name), append(alts, name)...)
	}
	vt := &Type{Name: name, Doc: doc, Loc: vi.s.Loc}
	b.pkg.Types = append(b.pkg.Types, vt)
	b.byNode[vi.s] = vt
	src := vi.s
	if vi.res != vi.s && isObject(vi.res) {
		// A $ref to an object that is already another
		// union's variant: a struct of its own made from
		// the object's schema (closed if it is closed).
		src = vi.res
	}
	if err := b.fillStruct(vt, src, base); err != nil {
		return nil, err
	}
	return vt, nil
}

// valueVariant is the type of an alternative of an untagged union that is
// not an object, of JSON type k: a scalar type over the alternative's
// value, an array alternative named by its items (it) when it has no
// title.
func (b *builder) valueVariant(t *Type, vi *variantInfo, k, hint, doc string, it *itemInfo) (*Type, error) {
	want := t.Name + GoName(hint)
	var alts []string
	if it != nil && vi.s.Title == "" {
		// Array alternatives are told apart by their items.
		for _, a := range b.altNames(&variantInfo{s: vi.res.Items, res: itemSchema(vi.res.Items)}, nil) {
			alts = append(alts, t.Name+a+"List")
		}
		alts = append(alts, t.Name+GoName(it.kind)+"List")
		want = first(alts, want)
	}
	// An inline enum or union of the alternative is a type of its
	// own, which the variant is defined over: it is named after
	// the variant's value, the variant after the alternative.
	inner := want
	if n, err := b.normalize(vi.s); err == nil && n.target == nil && (isEnum(n.s) || isUnion(n.s) || isTuple(n.s)) {
		inner = want + "Value"
	}
	r, _, err := b.ref(vi.s, inner)
	if err != nil {
		return nil, err
	}
	if u := Resolve(r); u != nil && u.Kind == NamedRef && u.Type != nil && u.Type.Kind == Union {
		// A variant that is itself a union (vega-lite's sort: a $ref to
		// an anyOf of arrays of numbers, of strings, of dates, in a
		// oneOf) would be a Go interface, which no variant type can be.
		return nil, unionVariant{fmt.Sprintf("variant %s is itself a union of values of JSON type %s", vi.s.Loc.Pointer, k)}
	}
	vt := &Type{Name: b.names.take(want, append(alts, t.Name+GoName(hint))...), Doc: doc, Loc: vi.s.Loc, Kind: Scalar, Under: r}
	if k == "null" {
		vt.Under = nil
	}
	b.pkg.Types = append(b.pkg.Types, vt)
	return vt, nil
}

// unionVariant is the reason an untagged union cannot be decided: one of
// its variants is a union itself.
type unionVariant struct{ why string }

func (e unionVariant) Error() string { return e.why }

type itemInfo struct {
	kind string
	keys []string
}

// arrayItems decides array variants by their first element: each variant's
// items must be of a JSON type no other variant's items are, or objects
// told apart by required members.
func (b *builder) arrayItems(arrays []*variantInfo) (map[*variantInfo]*itemInfo, error) {
	out := map[*variantInfo]*itemInfo{}
	reqs := map[*variantInfo]map[string]bool{}
	for _, vi := range arrays {
		if vi.res.Items == nil {
			return nil, fmt.Errorf("two variants are arrays and %s does not describe its items", vi.s.Loc.Pointer)
		}
		n, err := b.normalize(vi.res.Items)
		if err != nil {
			return nil, err
		}
		is := n.s
		if n.target != nil {
			is = n.target
		}
		k := kindOf(is)
		if k == "" {
			return nil, fmt.Errorf("two variants are arrays and the items of %s have no single JSON type", vi.s.Loc.Pointer)
		}
		it := &itemInfo{kind: k}
		if k == "object" {
			_, req, _, err := b.props(is, map[*load.Schema]bool{})
			if err != nil {
				return nil, err
			}
			reqs[vi] = req
			for name := range req {
				it.keys = append(it.keys, name)
			}
			sort.Strings(it.keys)
		}
		out[vi] = it
	}
	for i, a := range arrays {
		for j, c := range arrays {
			if i == j || out[a].kind != out[c].kind {
				continue
			}
			if out[a].kind != "object" || (subset(reqs[a], reqs[c]) && subset(reqs[c], reqs[a])) {
				return nil, fmt.Errorf("two variants are arrays whose elements cannot be told apart (%s and %s)", a.s.Loc.Pointer, c.s.Loc.Pointer)
			}
		}
	}
	return out, nil
}

// overlap says how a value may fit two alternatives of an untagged oneOf
// that the decoder tells apart by JSON type and required members, which
// oneOf forbids and Validate does not check; "" when no value can. Objects
// are exclusive when one requires a member the other, closed, does not
// allow.
func overlap(byKind map[string][]*variantInfo) string {
	if len(byKind["integer"]) > 0 && len(byKind["number"]) > 0 {
		return "an integer fits both the integer and the number alternative"
	}
	if len(byKind["array"]) > 1 {
		return "an array may fit more than one array alternative"
	}
	objs := byKind["object"]
	excludes := func(a, b *variantInfo) bool {
		if !b.closed {
			return false
		}
		for k := range a.req {
			allowed := false
			for _, p := range b.props {
				if p.Name == k && !forbidden(p.Schema) {
					allowed = true
				}
			}
			if !allowed {
				return true
			}
		}
		return false
	}
	for i, a := range objs {
		for _, c := range objs[i+1:] {
			if !excludes(a, c) && !excludes(c, a) {
				return fmt.Sprintf("an object may fit both %s and %s", a.s.Loc.Pointer, c.s.Loc.Pointer)
			}
		}
	}
	return ""
}

func subset(a, b map[string]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// scalarAlts is the type of the alternatives of a union that are all of
// one scalar JSON type: a builtin whose constraints list each
// alternative's, of which Validate wants one to hold (exactly one for a
// oneOf). An alternative that is (through $refs) itself an anyOf or oneOf
// of values of that type is its alternatives' constraints in turn, or, an
// anyOf within an anyOf, its alternatives among the outer ones: vega-lite's
// Color, a $ref to a list of color names, a $ref to a hex color or any
// string. It is nil when an alternative is more than a typed value with
// constraints (an object's members, a tuple). The set says what the
// alternatives amount to (see valueEnum).
func (b *builder) scalarAlts(infos []*variantInfo, kind string, oneOf bool) (*Ref, *scalarSet) {
	alts := make([]*load.Schema, len(infos))
	for i, vi := range infos {
		alts[i] = vi.s
	}
	set := &scalarSet{allValues: true}
	c, ok := b.scalarChecks(set, alts, kind, oneOf, 0)
	if !ok {
		return nil, nil
	}
	return &Ref{Kind: Builtin, Builtin: set.builtin, Check: c}, set
}

// scalarSet is what the alternatives of one scalar JSON type amount to:
// the builtin that holds them all, and, when each only lists values, those
// values.
type scalarSet struct {
	builtin   string
	values    []any
	allValues bool // every alternative only lists values
	oneOf     bool // a oneOf is among them, at any depth
}

// scalarChecks are the constraints of alternatives of the scalar JSON type
// kind, one of which must hold (exactly one, with oneOf); ok is false when
// an alternative is more than a value of that type with constraints.
func (b *builder) scalarChecks(set *scalarSet, alts []*load.Schema, kind string, oneOf bool, depth int) (c Constraints, ok bool) {
	if depth > 8 {
		return c, false
	}
	set.oneOf = set.oneOf || oneOf
	var out []Constraints
	for _, a := range alts {
		s := a
		for i := 0; ; i++ {
			if i > 32 {
				return c, false
			}
			n, err := b.normalize(s)
			if err != nil || n.nullable {
				return c, false
			}
			if n.target == nil {
				s = n.s
				break
			}
			s = n.target
		}
		if inner, innerOneOf := scalarUnionAlts(s, kind); inner != nil {
			ic, ok := b.scalarChecks(set, inner, kind, innerOneOf, depth+1)
			if !ok {
				return c, false
			}
			if !oneOf && !innerOneOf && len(ic.Alts) > 0 {
				// An anyOf within an anyOf: a value fits the inner one
				// exactly when it fits one of its alternatives.
				out = append(out, ic.Alts...)
			} else {
				out = append(out, ic)
			}
			continue
		}
		if onlyValues(s) {
			set.values = append(set.values, values(s)...)
		} else {
			set.allValues = false
		}
		if len(s.Type) == 0 {
			// The union's own type, or the type of a const or enum.
			c := *s
			c.Type = []string{kind}
			s = &c
		}
		if len(s.Type) != 1 || s.Type[0] != kind || len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0 || s.Not != nil || s.If != nil || len(s.Unknown) > 0 {
			return c, false
		}
		r, err := b.plainRef(s, "")
		if err != nil || r.Kind != Builtin {
			return c, false
		}
		if set.builtin == "" {
			set.builtin = r.Builtin
		}
		if r.Builtin != set.builtin {
			// Integers of different ranges: the widest signed one.
			set.builtin = "int64"
		}
		out = append(out, r.Check)
	}
	if !oneOf && slices.ContainsFunc(out, Constraints.Empty) {
		// An anyOf with an alternative every value of the type fits
		// (vega-lite's Color: any string): nothing to check.
		return Constraints{}, true
	}
	return Constraints{Alts: out, OneOfAlts: oneOf}, true
}

// scalarUnionAlts returns the alternatives of s when it is only an anyOf
// or a oneOf (oneOf set) of alternatives of the scalar JSON type kind,
// with at most that type and annotations beside; nil otherwise.
func scalarUnionAlts(s *load.Schema, kind string) (alts []*load.Schema, oneOf bool) {
	alts, oneOf = s.AnyOf, false
	if len(alts) == 0 {
		alts, oneOf = s.OneOf, true
	}
	if len(alts) < 2 || len(s.AnyOf) > 0 && len(s.OneOf) > 0 || len(s.Type) > 1 || len(s.Type) == 1 && s.Type[0] != kind {
		return nil, false
	}
	c := *s
	c.AnyOf, c.OneOf, c.Type = nil, nil, nil
	if !acceptsAnything(&c) {
		return nil, false
	}
	if len(s.Type) == 0 {
		// Without a type of its own, each alternative must have the type.
		for _, x := range alts {
			if kindOf(x) != kind {
				return nil, false
			}
		}
	}
	return alts, oneOf
}

// valueEnum is the enum a union of alternatives of one JSON type (s, of
// which set says what they amount to) is when every alternative only lists
// strings or integers: the union of their values, vega-lite's TimeUnit (an
// anyOf of $refs to anyOfs of enums). Under a oneOf the values must be
// distinct, so that no value fits two alternatives. It is nil otherwise.
func valueEnum(s *load.Schema, kind string, set *scalarSet) *load.Schema {
	if kind != "string" && kind != "integer" || !set.allValues || len(set.values) < 2 {
		return nil
	}
	c := *s
	c.AnyOf, c.OneOf, c.Type, c.Title, c.Description = nil, nil, nil, "", ""
	if !acceptsAnything(&c) {
		return nil // the union's own constraints besides
	}
	seen := map[string]bool{}
	for _, v := range set.values {
		raw, err := json.Marshal(v)
		if err != nil || seen[string(raw)] && set.oneOf {
			return nil
		}
		seen[string(raw)] = true
	}
	return &load.Schema{Loc: s.Loc, Doc: s.Doc, Base: s.Base, Title: s.Title, Description: s.Description, GoName: s.GoName, Type: []string{kind}, Enum: set.values}
}

// constApart reports whether two object variants require a member that
// each fixes to a different string, so that no object fits both.
func constApart(a, c *variantInfo) bool {
	for name := range a.req {
		if !c.req[name] {
			continue
		}
		x, okA := constString(propertyOf(a.res, name))
		y, okC := constString(propertyOf(c.res, name))
		if okA && okC && x != y {
			return true
		}
	}
	return false
}

// membersApart reports whether two object alternatives are closed
// (additionalProperties false, no patternProperties) and every member both
// allow is one both require: an object that fits both then has only
// those members, and any other object is told apart by a member one of
// them does not allow. In a oneOf, an object that fits both is invalid,
// so a valid object is the one alternative it decodes and validates as.
func (b *builder) membersApart(a, c *variantInfo) bool {
	ma, ok := b.closedMembers(a)
	if !ok {
		return false
	}
	mc, ok := b.closedMembers(c)
	if !ok {
		return false
	}
	for name := range ma {
		if mc[name] && !(a.req[name] && c.req[name]) {
			return false
		}
	}
	return true
}

// closedMembers are the members a closed object alternative allows; ok is
// false when the alternative is open or allows members by pattern.
func (b *builder) closedMembers(vi *variantInfo) (map[string]bool, bool) {
	r := deref(vi.res)
	ap := r.AdditionalProperties
	if ap == nil || ap.Bool == nil || *ap.Bool || len(r.PatternProperties) > 0 {
		return nil, false
	}
	props, _, _, err := b.props(r, map[*load.Schema]bool{})
	if err != nil {
		return nil, false
	}
	out := map[string]bool{}
	for _, p := range props {
		out[p.Name] = true
	}
	return out, true
}
