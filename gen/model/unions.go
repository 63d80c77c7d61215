package model

import (
	"encoding/json"
	"go/token"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"sort"
	"strconv"

	"github.com/agentproto/agentproto/gen/load"
)

// variantInfo is what a union needs to know about one alternative.
type variantInfo struct {
	s        *load.Schema // the alternative as written
	res      *load.Schema // the alternative with a top-level $ref followed
	props    []load.Property
	req      map[string]bool
	closed   bool // additionalProperties false
	catchAll bool
}

// isScalarAlt reports an alternative of a string, number, integer or
// boolean type that not every value of its type fits (a const, a pattern,
// a bound).
func isScalarAlt(a *load.Schema) bool {
	switch kindOf(a) {
	case "string", "number", "integer", "boolean":
		c := *deref(a)
		c.Type = nil
		// The bounds of an int64 are the integer variant's own range
		// (ACP's ElicitationContentValueInteger): a larger integer is the
		// number variant's, so they turn no value away.
		if c.Minimum != nil && *c.Minimum == "-9223372036854775808" {
			c.Minimum = nil
		}
		if c.Maximum != nil && *c.Maximum == "9223372036854775807" {
			c.Maximum = nil
		}
		if c.Format == "int64" || c.Format == "double" {
			c.Format = "" // the range of int64 and float64, as above
		}
		return !acceptsAnything(&c)
	}
	return false
}

// withoutForbidden drops the alternatives of a union that allow no value
// (false, {"not": {}}): no value fits them, so they decide nothing. A
// union of only such alternatives is left as it is.
func withoutForbidden(alts []*load.Schema) []*load.Schema {
	if !slices.ContainsFunc(alts, func(a *load.Schema) bool { return forbidden(deref(a)) }) {
		return alts
	}
	out := slices.DeleteFunc(slices.Clone(alts), func(a *load.Schema) bool { return forbidden(deref(a)) })
	if len(out) == 0 {
		return alts
	}
	return out
}

func (b *builder) fillUnion(t *Type, s *load.Schema) error {
	alts, done, err := b.unionAlternatives(t, s)
	if done || err != nil {
		return err
	}
	u := &UnionType{}
	t.Kind, t.Union = Union, u
	infos, err := b.variantInfos(alts)
	if err != nil {
		return err
	}
	tag, kind := b.findTag(s, infos)
	if tag == "" {
		return b.fillUntagged(t, s, infos)
	}
	tu := b.newTaggedUnion(t, s, infos, tag, kind)
	for _, vi := range infos {
		if err := tu.add(vi); err != nil {
			return err
		}
	}
	return tu.finish()
}

// unionAlternatives returns the alternatives of the union s that decide
// something, flattened and merged. done is set when t is already filled:
// the alternatives come down to one type, or an anyOf takes any value.
func (b *builder) unionAlternatives(t *Type, s *load.Schema) (alts []*load.Schema, done bool, err error) {
	alts = s.OneOf
	if len(alts) == 0 {
		alts = s.AnyOf
	}
	alts = withoutForbidden(alts)
	alts = mergeTuples(flattenAlts(alts, len(s.OneOf) == 0))
	if len(alts) == 1 && len(s.OneOf) > 1 {
		// Every other alternative of the oneOf allows no value (cspell's
		// {"not": {}} beside a $ref): a value fits the oneOf exactly when
		// it fits the one that is left.
		return nil, true, b.fillOnly(t, s, alts[0])
	}
	if len(s.OneOf) > 0 {
		return alts, false, nil
	}
	alts = sameScalarKind(mergeValueLists(splitValueLists(alts)))
	if i := slices.IndexFunc(alts, func(a *load.Schema) bool { return acceptsAnything(deref(a)) }); i >= 0 && (i < len(alts)-1 || slices.ContainsFunc(alts[:i], isScalarAlt)) {
		// An anyOf with an alternative that takes any value (a schema
		// with only keywords no validator knows, as electron-builder's
		// {"typeof": "function"}) takes any value: raw JSON. (Last
		// after objects and arrays only, it is the fallback of
		// fillUntagged instead, as ACP's ErrorData writes it: a scalar
		// alternative would take a value of its type the fallback
		// should, webpack's "" beside any string.)
		t.Kind, t.Under = Scalar, &Ref{Kind: Raw}
		return nil, true, nil
	}
	if len(alts) == 1 && len(s.AnyOf) > 1 {
		// The alternatives were one value list (vega-lite's
		// TextBaseline: consts and a $ref to an enum of strings): the
		// type is that list, not a union of one variant.
		return nil, true, b.fillOnly(t, s, alts[0])
	}
	return alts, false, nil
}

// fillOnly fills t, the union s, as the one alternative a that is left,
// with s's title and description.
func (b *builder) fillOnly(t *Type, s, a *load.Schema) error {
	one := *a
	one.Title, one.Description = s.Title, s.Description
	return b.fill(t, &one)
}

// variantInfos reads what a union needs to know of each alternative.
func (b *builder) variantInfos(alts []*load.Schema) ([]*variantInfo, error) {
	var infos []*variantInfo
	for _, a := range alts {
		vi := &variantInfo{s: a, res: a}
		if a.Ref != "" && !structural(a) {
			r, err := target(a)
			if err != nil {
				return nil, err
			}
			vi.res = r
		}
		ps, req, closed, err := b.props(a, map[*load.Schema]bool{})
		if err != nil {
			return nil, err
		}
		vi.props, vi.req, vi.closed = ps, req, closed
		infos = append(infos, vi)
	}
	return infos, nil
}

// hasOwnMembers reports whether a union's schema says something of the
// members of every variant: properties or required members of its own.
func hasOwnMembers(s *load.Schema) bool {
	return len(s.Properties) > 0 || len(s.Required) > 0
}

// baseType makes, for the closed tagged union s, the members its own
// schema gives every variant a type of their own (UnionType.Other):
// a value whose tag no variant lists is judged by it, so that what is
// wrong in those members is reported beside the tag. It is unexported, as
// a catch-all's type is.
func (b *builder) baseType(t *Type, s *load.Schema) error {
	doc := "is what every variant of " + t.Name + " has, a type of its own so that the check of " + t.Union.Unknown + " can judge those members of a value whose tag no variant lists."
	return b.unionOther(t, "base", s.Loc, doc, func(ot *Type) error {
		own := *s
		own.OneOf, own.AnyOf = nil, nil
		return b.fillStructSkip(ot, &own, nil, "")
	})
}

// unionOther makes the union t's Other: an unexported type named prefix
// and t's name, at loc, with doc after its name, that fill fills; Other
// and the unexported types made for it are the union's OtherTypes.
func (b *builder) unionOther(t *Type, prefix string, loc load.Loc, doc string, fill func(ot *Type) error) error {
	start := len(b.pkg.Types)
	ot := &Type{Name: b.names.take(prefix + t.Name), Loc: loc}
	ot.Doc = ot.Name + " " + doc
	b.pkg.Types = append(b.pkg.Types, ot)
	if err := fill(ot); err != nil {
		return err
	}
	u := t.Union
	u.Other = ot
	for _, x := range b.pkg.Types[start:] {
		if !token.IsExported(x.Name) {
			u.OtherTypes = append(u.OtherTypes, x)
		}
	}
	return nil
}

// isObjectOnly reports whether a schema says its values are objects.
func isObjectOnly(s *load.Schema) bool {
	return len(s.Type) == 1 && s.Type[0] == "object"
}

// otherType makes the union's catch-all alternative vi a type of its own
// (UnionType.Other): a struct of the members of the union s and of the
// catch-all, the tag among them as the catch-all defines it. It is
// unexported: only the Unknown variant's check uses it.
func (b *builder) otherType(t *Type, s *load.Schema, vi *variantInfo) error {
	doc := "is the catch-all alternative of " + t.Name + ", a type of its own so that the check of " + t.Union.Unknown + " can decode its raw JSON as it and check it."
	return b.unionOther(t, "other", vi.s.Loc, doc, func(ot *Type) error {
		if err := b.fillStructSkip(ot, vi.s, s, ""); err != nil {
			return err
		}
		ot.Unchecked = append(ot.Unchecked, unchecked(vi.s)...)
		return nil
	})
}

// catchAllAsks lists what the schema s of an open tagged union u asks of a
// value whose tag no variant lists beyond what decoding it as u's Unknown
// variant ensures: that it is an object whose tag member is a string (the
// decoder fails otherwise) that no variant lists (a listed tag decodes to
// its variant). Nothing more is asked when the one catch-all alternative
// is {"type": "object", "properties": {tag: {"type": "string", "not":
// {"enum": [every listed tag]}}}, "required": [tag]}, with annotations and
// members that take any value, and the union adds no keywords of its own.
// The not must list exactly the listed tags: a catch-all that also takes a
// listed tag would accept (anyOf) or reject (oneOf, a second fit) what
// the tag's variant decides, and one that excludes more would reject what
// decodes as Unknown. With checked, the catch-all is taken to be a type of
// its own (UnionType.Other), and what that type checks is not listed (see
// catchAllOwn). A default variant is allowed when it takes no value
// that has the tag (defaultRejectsTag): the decoder gives it only values
// without one.
func catchAllAsks(s *load.Schema, u *UnionType, catchAlls []*variantInfo, defaultRejectsTag, checked bool) []string {
	var asks []string
	if len(catchAlls) > 1 {
		asks = append(asks, "that it fit one catch-all alternative of several")
	}
	if u.Default != nil && !defaultRejectsTag {
		// The default may take a value with an unlisted tag too (a
		// second fit of a oneOf).
		asks = append(asks, "that it not fit the default variant")
	}
	own := *s
	if len(s.OneOf) > 0 {
		own.OneOf = nil
	} else {
		own.AnyOf = nil
	}
	if len(own.Type) == 1 && own.Type[0] == "object" {
		own.Type = nil
	}
	if !acceptsAnything(&own) {
		asks = append(asks, "the union's own keywords")
	}
	listed := map[string]bool{}
	for _, v := range u.Variants {
		if v != u.Default {
			listed[v.Tag] = true
		}
	}
	if u.DefaultTag != "" {
		listed[u.DefaultTag] = true
	}
	for _, vi := range catchAlls {
		asks = append(asks, catchAllOwn(vi.res, u.Tag, listed, checked)...)
	}
	return asks
}

// catchAllOwn lists what the catch-all alternative a asks beyond an object
// whose tag member is a string no variant lists (listed holds the tags of
// the variants). With checked, the catch-all is a type of its own
// (UnionType.Other) whose checks the Unknown variant's check makes: its
// members, its keywords, the constraints on the tag and a not that
// excludes more than the listed tags are then Other's to check (and its
// completeness to count), and only what decoding the value as the union
// decides otherwise is listed.
func catchAllOwn(a *load.Schema, tag string, listed map[string]bool, checked bool) []string {
	var asks []string
	rest := *a
	rest.Type, rest.Properties, rest.Required, rest.AdditionalProperties = nil, nil, nil, nil
	if !isObjectOnly(a) {
		asks = append(asks, "a value that is not an object")
	}
	var ts *load.Schema
	for _, p := range a.Properties {
		if p.Name == tag {
			ts = deref(p.Schema)
		}
	}
	if !checked {
		for _, m := range a.Required {
			if m != tag {
				asks = append(asks, "the member "+m+", which it requires")
			}
		}
		for _, p := range a.Properties {
			if p.Name != tag && !acceptsAnything(deref(p.Schema)) && !slices.Contains(a.Required, p.Name) {
				asks = append(asks, "the member "+p.Name+", when present")
			}
		}
		if ap := a.AdditionalProperties; ap != nil && !acceptsAnything(ap) {
			asks = append(asks, "members not listed")
		}
		if !acceptsAnything(&rest) {
			asks = append(asks, "keywords of the catch-all alternative")
		}
	}
	if ts == nil {
		return append(asks, "the tag, which the catch-all alternative does not define")
	}
	if len(ts.Type) != 1 || ts.Type[0] != "string" {
		asks = append(asks, "a tag that is not a string")
	}
	tagRest := *ts
	tagRest.Type, tagRest.Not = nil, nil
	if !checked && !acceptsAnything(&tagRest) {
		asks = append(asks, "constraints on the tag (a pattern, a length, a format)")
	}
	not := map[string]bool{}
	for _, raw := range notValues(ts) {
		var v string
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			return append(asks, "a tag that is not one of the values of its not")
		}
		not[v] = true
	}
	switch {
	case checked && ts.Not != nil && notValues(ts) == nil:
		// A not of something else than values: the tag's type reports
		// it unchecked, and Other is incomplete.
	case checked:
		// Other's check rejects an unlisted tag its not excludes; a
		// listed tag its not lets through would also fit the catch-all,
		// which decides nothing the tag's variant does not.
		for v := range listed {
			if !not[v] && !tagRejects(ts, v) {
				asks = append(asks, "a tag other than the listed ones and those its not excludes")
				break
			}
		}
	case !maps.Equal(not, listed):
		asks = append(asks, "a tag other than the listed ones and those its not excludes")
	}
	return asks
}

// tagRejects reports whether the catch-all's tag schema ts rejects the tag
// v by its own pattern or enum (ARCP's vendor kinds, ^x-vendor\., take no
// listed kind), so that a listed tag never fits the catch-all.
func tagRejects(ts *load.Schema, v string) bool {
	if ts.Pattern != "" {
		if re, err := regexp.Compile(ts.Pattern); err == nil && !re.MatchString(v) {
			return true
		}
	}
	if c, ok := constString(ts); ok && c != v {
		return true
	}
	if len(ts.Enum) > 1 && !slices.Contains(ts.Enum, any(v)) {
		return true
	}
	return false
}

// wrappedVariant makes the type of a variant v that only extends the
// shared object schema w (see wrapped), which wraps variants extend:
// w's own struct when only this variant extends it and it is generated
// here, else a type defined over w's struct. made is false when w is no
// struct: the variant is then a struct of its own (ownVariant).
func (b *builder) wrappedVariant(t *Type, v *Variant, vi *variantInfo, w *load.Schema, wraps int, tag, hint string, byTag []string) (made bool, err error) {
	wt, err := b.named(w)
	if err != nil {
		return false, err
	}
	name := hint
	if name == "" || GoName(name) == wt.Name {
		// The shared type itself can be the variant only if it is
		// generated here: a type of another package cannot gain the
		// union's method.
		if wraps == 1 && wt.Kind == Struct && wt.External == nil {
			v.Type = wt
			wt.Unions = append(wt.Unions, v)
			// wt may still be being filled (its members hold this union,
			// and the schema that holds them came first): whether it
			// writes the tag itself is decided once every type is made.
			b.tagOwners = append(b.tagOwners, func() { v.TagInStruct = hasConstField(wt, tag) })
			return true, nil
		}
		name = t.Union.tagWord(v.Tag)
		if name == "" {
			name = "default"
		}
	}
	if wt.Kind != Struct {
		return false, nil
	}
	dt := &Type{Name: b.names.take(first(byTag, GoName(name)), t.Name+GoName(name), t.Name+GoName(t.Union.tagWord(v.Tag))), Doc: v.Doc, Loc: vi.s.Loc, Kind: Defined, Under: &Ref{Kind: NamedRef, Type: wt}}
	b.pkg.Types = append(b.pkg.Types, dt)
	v.Type = dt
	b.tagOwners = append(b.tagOwners, func() {
		if !hasConstField(wt, tag) && v.Tag != "" {
			// The type exists only as this variant: it writes and
			// checks the tag itself, so it cannot lose it.
			dt.OwnTag = v
		}
	})
	v.TagInStruct = true
	dt.Unions = append(dt.Unions, v)
	return true, nil
}

// ownVariant makes the type of a variant v a struct of its own: the
// members of the union s (first) and of the variant, with the tag as its
// first member when the variant fixes one.
func (b *builder) ownVariant(t *Type, s *load.Schema, v *Variant, vi *variantInfo, tag, hint string, byTag []string) error {
	if hint == "" {
		hint = t.Union.tagWord(v.Tag)
		if hint == "" {
			hint = "default"
		}
	}
	vt := &Type{Name: b.names.take(first(byTag, GoName(hint)), t.Name+GoName(hint), t.Name+GoName(t.Union.tagWord(v.Tag))), Doc: v.Doc, Loc: vi.s.Loc}
	b.pkg.Types = append(b.pkg.Types, vt)
	b.byNode[vi.s] = vt
	skip := tag
	if v == t.Union.Default && t.Union.DefaultTag != "" {
		// The default's optional tag is a member of its own: the value
		// keeps it, present or absent.
		skip = ""
	}
	if err := b.fillStructSkip(vt, vi.s, s, skip); err != nil {
		return err
	}
	vt.Unchecked = append(vt.Unchecked, unchecked(vi.s)...)
	if v.Tag != "" {
		// The struct exists only as this variant: the tag is its first
		// member, written and checked by the struct itself.
		tf := &Field{Name: "tag", JSON: tag, Doc: "The union tag.", Loc: vi.s.Loc, Required: true, Const: t.Union.TagJSON(v.Tag), Type: &Ref{Kind: Raw}}
		vt.Struct.Fields = append([]*Field{tf}, vt.Struct.Fields...)
		v.TagInStruct = true
	}
	v.Type = vt
	vt.Unions = append(vt.Unions, v)
	return nil
}

// hasConstField reports whether the struct t has the tag as a const
// member of its own. It reads t's fields, so it runs only once every type
// is made (builder.tagOwners).
func hasConstField(t *Type, tag string) bool {
	if t.Struct == nil {
		return false
	}
	for _, f := range t.Struct.Fields {
		if f.JSON == tag && f.Const != "" {
			return true
		}
	}
	return false
}

// wrapped returns the shared schema a variant only extends: a variant that
// is a plain $ref, or {tag const} with allOf: [$ref] and nothing else. The
// union itself must add no properties of its own.
func (b *builder) wrapped(vi *variantInfo, tag string, union *load.Schema) *load.Schema {
	if hasOwnMembers(union) || len(union.AllOf) > 0 {
		return nil
	}
	s := vi.s
	if s.Ref != "" && !structural(s) && len(s.AllOf) == 0 {
		if r := vi.res; r != nil && isObject(r) && !isUnion(r) {
			return r
		}
		return nil
	}
	if s.Ref != "" || len(s.AllOf) != 1 || s.AllOf[0].Ref == "" || structural(s.AllOf[0]) {
		return nil
	}
	for _, p := range s.Properties {
		if p.Name != tag {
			return nil
		}
	}
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
		return nil
	}
	r, err := target(s.AllOf[0])
	if err != nil || !isObject(r) || isUnion(r) {
		return nil
	}
	for _, m := range s.Required {
		if m != tag && !requires(r, m) {
			// The wrapper requires more than its target does (see
			// taggedInner): the variant is a struct of its own.
			return nil
		}
	}
	return r
}

// hasConst reports whether a schema fixes a string value.
func hasConst(s *load.Schema) bool {
	_, ok := constString(s)
	return ok
}

func constString(s *load.Schema) (string, bool) {
	if s.HasConst {
		c, ok := s.Const.(string)
		return c, ok
	}
	if len(s.Enum) == 1 {
		c, ok := s.Enum[0].(string)
		return c, ok
	}
	return "", false
}

// constInt returns the decimal text of the integer a schema fixes (a const
// or an enum of one value), as JSON-RPC error codes are fixed.
func constInt(s *load.Schema) (string, bool) {
	var v any
	switch {
	case s.HasConst:
		v = s.Const
	case len(s.Enum) == 1:
		v = s.Enum[0]
	default:
		return "", false
	}
	var text string
	switch n := v.(type) {
	case json.Number:
		text = string(n)
	case float64:
		text = strconv.FormatFloat(n, 'g', -1, 64)
	case int64:
		text = strconv.FormatInt(n, 10)
	case int:
		text = strconv.Itoa(n)
	default:
		return "", false
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok || !r.IsInt() || len(text) > 64 {
		return "", false
	}
	return r.Num().String(), true
}

// tagValue returns the tag value a schema fixes for a union tagged by
// values of the JSON type kind ("string" or "integer").
func tagValue(s *load.Schema, kind string) (string, bool) {
	if kind == "integer" {
		return constInt(s)
	}
	return constString(s)
}

// findTag picks the discriminating property and the JSON type of its
// values: the discriminator keyword if present (a string); otherwise,
// among properties that every variant but at most one (the default) and
// any catch-alls requires with a distinct string const, the one whose
// name sorts first, or failing that, the same with integer consts (A2A's
// errors, told apart by their JSON-RPC code).
func (b *builder) findTag(s *load.Schema, infos []*variantInfo) (string, string) {
	if s.Discriminator != "" {
		return s.Discriminator, "string"
	}
	for _, vi := range infos {
		if k := kindOf(vi.res); k != "" && k != "object" {
			// A value that is not an object has no tag member: the
			// union is decided by JSON type first (fillUntagged).
			return "", ""
		}
	}
	for _, kind := range []string{"string", "integer"} {
		if tag := findTagOf(infos, kind); tag != "" {
			return tag, kind
		}
	}
	return "", ""
}

// findTagOf is findTag for tags of the JSON type kind.
func findTagOf(infos []*variantInfo, kind string) string {
	// consts counts the variants that require a property with a const
	// of the kind; present counts those that have the property at all
	// (consts and catch-alls).
	consts, present := map[string]int{}, map[string]int{}
	for _, vi := range infos {
		for _, p := range vi.props {
			if _, ok := tagValue(p.Schema, kind); ok && vi.req[p.Name] {
				consts[p.Name]++
			}
			if vi.req[p.Name] {
				present[p.Name]++
			}
		}
	}
	var cands []string
	for name, n := range consts {
		if n < 1 || present[name] < len(infos)-1 {
			continue
		}
		// distinct values, and variants without the const either lack the
		// property (at most one default) or have a non-const catch-all.
		seen := map[string]bool{}
		ok, defaults := true, 0
		for _, vi := range infos {
			var ps *load.Schema
			for _, p := range vi.props {
				if p.Name == name {
					ps = p.Schema
				}
			}
			if ps == nil || !vi.req[name] {
				defaults++
				continue
			}
			c, isConst := tagValue(ps, kind)
			if !isConst {
				if _, str := constString(ps); str {
					ok = false // integer tags beside a string const
				}
				continue
			}
			if seen[c] {
				ok = false
			}
			seen[c] = true
		}
		if ok && defaults <= 1 {
			cands = append(cands, name)
		}
	}
	sort.Strings(cands)
	if len(cands) == 0 {
		return ""
	}
	return cands[0]
}
