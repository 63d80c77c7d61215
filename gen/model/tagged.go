package model

import "github.com/agentproto/agentproto/gen/load"

// taggedUnion is a tagged union t (of schema s) being filled, one
// variant after another.
type taggedUnion struct {
	b         *builder
	t         *Type
	s         *load.Schema
	u         *UnionType
	tag, kind string
	// titles counts the variants with each title; wraps how many
	// variants extend each shared schema, to decide whether a variant
	// can be that schema's own type.
	titles    map[string]int
	wraps     map[*load.Schema]int
	catchAlls []*variantInfo
	// defaultRejectsTag is set when the default variant takes no value
	// that has the tag.
	defaultRejectsTag bool
}

func (b *builder) newTaggedUnion(t *Type, s *load.Schema, infos []*variantInfo, tag, kind string) *taggedUnion {
	u := t.Union
	u.Tag = tag
	if kind == "integer" {
		u.IntTag = true
	}
	u.Unknown = b.names.take("Unknown"+t.Name, "Unlisted"+t.Name, "Other"+t.Name)
	tu := &taggedUnion{b: b, t: t, s: s, u: u, tag: tag, kind: kind, titles: map[string]int{}, wraps: map[*load.Schema]int{}}
	for _, vi := range infos {
		if vi.s.Title != "" {
			tu.titles[vi.s.Title]++
		}
	}
	for _, vi := range infos {
		if w := b.wrapped(vi, tag, s); w != nil {
			tu.wraps[w]++
		}
	}
	return tu
}

// add makes the alternative vi a variant of the union: the default, a
// catch-all, or the variant of its tag value.
func (tu *taggedUnion) add(vi *variantInfo) error {
	b, t, u, tag := tu.b, tu.t, tu.u, tu.tag
	var tagProp *load.Schema
	for _, p := range vi.props {
		if p.Name == tag {
			tagProp = p.Schema
		}
	}
	v := &Variant{Union: t, Doc: vi.s.Description}
	if v.Doc == "" {
		v.Doc = vi.res.Description
	}
	if tagProp == nil || !vi.req[tag] {
		if err := tu.setDefault(v, vi, tagProp); err != nil {
			return err
		}
	} else {
		c, ok := tagValue(tagProp, tu.kind)
		if !ok {
			vi.catchAll = true
			u.Open = true
			tu.catchAlls = append(tu.catchAlls, vi)
			return nil
		}
		v.Tag = c
	}
	hint := vi.s.Title
	if hint == "" && vi.s.GoName != "" {
		hint = vi.s.GoName
	}
	byTag := tu.byTagName(v, vi)
	if w := b.wrapped(vi, tag, tu.s); w != nil {
		made, err := b.wrappedVariant(t, v, vi, w, tu.wraps[w], tag, hint, byTag)
		if err != nil {
			return err
		}
		if made {
			u.Variants = append(u.Variants, v)
			return nil
		}
	}
	if err := b.ownVariant(t, tu.s, v, vi, tag, hint, byTag); err != nil {
		return err
	}
	u.Variants = append(u.Variants, v)
	return nil
}

// setDefault makes v, of the alternative vi that does not require the
// tag, the default variant, used when the tag is absent. tagProp is its
// tag member's schema, if it has one.
func (tu *taggedUnion) setDefault(v *Variant, vi *variantInfo, tagProp *load.Schema) error {
	u := tu.u
	if u.Default != nil {
		return vi.s.Loc.Errorf("two variants of this union lack the tag %q; only one may be the default", tu.tag)
	}
	u.Default = v
	// A default whose tag member is false (or not {}), or that
	// is closed without defining it, takes no value that has the
	// tag: it is only for values without one.
	tu.defaultRejectsTag = tagProp != nil && forbidden(tagProp) || tagProp == nil && vi.closed
	if tagProp == nil || tu.defaultRejectsTag {
		return nil
	}
	if c, ok := tagValue(tagProp, tu.kind); ok {
		// MCP's form elicitation: the tag is optional and,
		// when present, fixed; absent means that value. A
		// value with it is the default too, which keeps the
		// member.
		u.DefaultTag = c
	} else {
		// OpenAPI 2.0's schema beside fileSchema: the default
		// defines the tag member without fixing it, so it
		// takes the tag values no other variant lists.
		u.DefaultTakesOthers = true
	}
	return nil
}

// byTagName is the name of a variant v named after its tag, as variants
// that share a title are; nil when it is named otherwise.
func (tu *taggedUnion) byTagName(v *Variant, vi *variantInfo) []string {
	if v.Tag == "" || vi.s.GoName != "" || tu.titles[vi.s.Title] <= 1 {
		return nil
	}
	// A tag of several words names the variant by itself
	// (user_message_chunk); a one-word tag (add) is qualified by
	// the union (DiffChangeAdd).
	word := tu.u.tagWord(v.Tag)
	if len(words(word)) > 1 {
		return []string{GoName(word)}
	}
	return []string{tu.t.Name + GoName(word)}
}

// finish checks the union has a variant and makes the types that judge a
// value whose tag no variant lists.
func (tu *taggedUnion) finish() error {
	b, t, s, u := tu.b, tu.t, tu.s, tu.u
	if len(u.Variants) == 0 {
		return s.Loc.Errorf("union has no variant with a constant tag")
	}
	if u.Open {
		u.OpenAsks = catchAllAsks(s, u, tu.catchAlls, tu.defaultRejectsTag, false)
		// When the catch-all asks more than decoding ensures, and all of it
		// is what a type of its own checks, it becomes one (Other): a value
		// with an unlisted tag must fit the one catch-all (a default that
		// may take it too could make it valid without), so its checks are
		// the Unknown variant's, and the union is as complete as Other is.
		if len(u.OpenAsks) > 0 && len(tu.catchAlls) == 1 && isObjectOnly(tu.catchAlls[0].res) && (u.Default == nil || tu.defaultRejectsTag) &&
			len(catchAllAsks(s, u, tu.catchAlls, tu.defaultRejectsTag, true)) == 0 {
			if err := b.otherType(t, s, tu.catchAlls[0]); err != nil {
				return err
			}
			u.OpenAsks = nil
		}
	}
	if !u.Open && hasOwnMembers(s) {
		// A tag no variant lists fails the union, and a validator still
		// judges the members the union's own schema gives every
		// variant: the Unknown variant's check judges them through a
		// type of those members alone.
		if err := b.baseType(t, s); err != nil {
			return err
		}
	}
	return nil
}
