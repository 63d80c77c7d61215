package model

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentproto/agentproto/gen/load"
)

// props collects the properties and required members of an object schema,
// merging allOf members (and the schemas they refer to) first.
func (b *builder) props(s *load.Schema, seen map[*load.Schema]bool) ([]load.Property, map[string]bool, bool, error) {
	if seen[s] {
		return nil, nil, false, s.Loc.Errorf("allOf refers back to itself")
	}
	seen[s] = true
	var out []load.Property
	req := map[string]bool{}
	closed := false
	add := func(ps []load.Property, r map[string]bool) {
		for _, p := range ps {
			replaced := false
			for i := range out {
				if out[i].Name == p.Name {
					if out[i].Schema != p.Schema {
						b.shadow(p.Schema, out[i].Schema)
					}
					out[i] = p
					replaced = true
				}
			}
			if !replaced {
				out = append(out, p)
			}
		}
		for k := range r {
			req[k] = true
		}
	}
	if s.Ref != "" {
		t, err := target(s)
		if err != nil {
			return nil, nil, false, err
		}
		ps, r, _, err := b.props(t, seen)
		if err != nil {
			return nil, nil, false, err
		}
		add(ps, r)
	}
	for _, a := range s.AllOf {
		ps, r, _, err := b.props(a, seen)
		if err != nil {
			return nil, nil, false, err
		}
		add(ps, r)
	}
	own := map[string]bool{}
	for _, r := range s.Required {
		own[r] = true
	}
	add(s.Properties, own)
	if ap := s.AdditionalProperties; ap != nil && ap.Bool != nil && !*ap.Bool {
		closed = true
	}
	return out, req, closed, nil
}

// fillStruct makes a struct from an object schema; base adds the
// properties of an enclosing union (which come first), and skip names the
// union's tag, which the union writes.
func (b *builder) fillStruct(t *Type, s *load.Schema, base *load.Schema) error {
	return b.fillStructSkip(t, s, base, "")
}

func (b *builder) fillStructSkip(t *Type, s *load.Schema, base *load.Schema, skip string) error {
	ps, req, closed, err := b.structMembers(s, base)
	if err != nil {
		return err
	}
	var srcs []*load.Schema // the schemas of the struct: base (if any), then s
	for _, src := range []*load.Schema{base, s} {
		if src != nil {
			srcs = append(srcs, src)
		}
	}
	// Constraints of the merged allOf members (an if/then, a not) now
	// belong to this struct: Validate does not check them.
	for _, src := range srcs {
		t.Unchecked = append(t.Unchecked, b.mergedUnchecked(src, map[*load.Schema]bool{})...)
	}
	st := &StructType{Open: !closed}
	if closed {
		patternMembers(t, st, srcs)
	}
	fields, err := b.structFields(t, st, ps, req, skip)
	if err != nil {
		return err
	}
	b.propertyCounts(t, st, s, base)
	if st.Open || len(st.Patterns) > 0 {
		st.ExtraName = fields.take("Unknown", "UnknownMembers")
		if base == nil {
			if err := b.extraRules(t, st, s); err != nil {
				return err
			}
		}
	}
	t.Kind, t.Struct = Struct, st
	b.mergedAlternatives(t, st, s)
	b.structRules(t, st, srcs)
	if err := b.memberNames(t, st, s, base); err != nil {
		return err
	}
	if base != nil || skip != "" {
		return nil
	}
	if s.If != nil && st.Rules == nil && (s.Then != nil || s.Else != nil) {
		if err := b.condition(t, st, s, ps); err != nil {
			return err
		}
	}
	if ref := embeddedRef(s); ref != nil {
		b.embeds = append(b.embeds, embedding{t: t, of: ref})
	}
	return nil
}

// structMembers returns the members of the struct of s: those of base
// (the enclosing union's own, which come first), then those of s, which
// take the place of a base member of the same name.
func (b *builder) structMembers(s, base *load.Schema) (ps []load.Property, req map[string]bool, closed bool, err error) {
	req = map[string]bool{}
	if base != nil {
		bs := *base
		bs.OneOf, bs.AnyOf = nil, nil
		if ps, req, closed, err = b.props(&bs, map[*load.Schema]bool{}); err != nil {
			return nil, nil, false, err
		}
	}
	p, r, c, err := b.props(s, map[*load.Schema]bool{})
	if err != nil {
		return nil, nil, false, err
	}
	for _, x := range p {
		dup := false
		for i := range ps {
			if ps[i].Name == x.Name {
				if ps[i].Schema != x.Schema {
					b.shadow(x.Schema, ps[i].Schema)
				}
				ps[i], dup = x, true
			}
		}
		if !dup {
			ps = append(ps, x)
		}
	}
	for k := range r {
		req[k] = true
	}
	return ps, req, closed || c, nil
}

// patternMembers lists, for a closed struct, the patterns of the members
// it takes besides its fields, and those Validate does not check.
func patternMembers(t *Type, st *StructType, srcs []*load.Schema) {
	for _, src := range srcs {
		for _, pp := range src.PatternProperties {
			st.Patterns = append(st.Patterns, pp.Name)
			if structural(pp.Schema) || pp.Schema.Ref != "" || !PatternOK(pp.Name) {
				t.Unchecked = append(t.Unchecked, "patternProperties "+pp.Name)
			}
		}
	}
}

// structFields makes a field of each member but skip, and returns the
// namer of the struct's Go names.
func (b *builder) structFields(t *Type, st *StructType, ps []load.Property, req map[string]bool, skip string) (*namer, error) {
	fields := newNamer()
	for name := range reservedMethods {
		fields.used[name] = true
	}
	for _, p := range ps {
		if skip != "" && p.Name == skip {
			continue
		}
		f, err := b.field(t, p, req[p.Name], fields)
		if err != nil {
			return nil, err
		}
		st.Fields = append(st.Fields, f)
	}
	return fields, nil
}

// propertyCounts makes the struct check s's minProperties and
// maxProperties; those of the schemas merged into it stay unchecked.
func (b *builder) propertyCounts(t *Type, st *StructType, s, base *load.Schema) {
	if base == nil && (s.MinProperties != nil || s.MaxProperties != nil) {
		st.MinProps, st.MaxProps = s.MinProperties, s.MaxProperties
		dropUnchecked(t, "minProperties/maxProperties")
	}
	b.walkMerged(s, map[*load.Schema]bool{}, func(x *load.Schema) {
		if x != s && (x.MinProperties != nil || x.MaxProperties != nil) && len(x.Properties) == 0 {
			// (With properties, unchecked already lists it.)
			t.Unchecked = append(t.Unchecked, "minProperties/maxProperties")
		}
	})
}

// structRules makes the struct check dependentRequired, and if/then and
// not at object level, in the simple forms Validate checks; if every one
// has such a form, they no longer make the type incomplete.
func (b *builder) structRules(t *Type, st *StructType, srcs []*load.Schema) {
	if deps, ok := dependencies(st, srcs); ok && len(deps) > 0 {
		st.Dependent = deps
		withoutUnchecked(t, "dependentRequired")
	}
	if rules, notAll, ok := b.conditions(st, srcs); ok && (len(rules) > 0 || len(notAll) > 0) {
		st.Rules, st.NotAll = rules, notAll
		withoutUnchecked(t, "if", "not")
	}
}

// withoutUnchecked takes every one of labels off t's unchecked list.
func withoutUnchecked(t *Type, labels ...string) {
	var keep []string
	for _, u := range t.Unchecked {
		if !slices.Contains(labels, u) {
			keep = append(keep, u)
		}
	}
	t.Unchecked = keep
}

// mergedAlternatives reads the anyOf and oneOf of the schemas s merges
// through allOf and $ref, which now apply to the struct st: a presence
// check if one is, the check of a union of its own, else a constraint
// Validate does not check.
func (b *builder) mergedAlternatives(t *Type, st *StructType, s *load.Schema) {
	b.walkMerged(s, map[*load.Schema]bool{}, func(x *load.Schema) {
		if x == s || len(x.AnyOf)+len(x.OneOf) == 0 {
			return
		}
		if alts := requiredAlternatives(x); alts != nil && st.RequiredAlternatives == nil {
			st.RequiredAlternatives, st.OneOfRequired = alts, len(x.OneOf) > 0
			return
		}
		if named(x) && b.mapping(x) == nil {
			// A union of its own, merged by $ref: Validate decodes the
			// value as that union and checks it.
			if u, err := b.named(x); err == nil && u.Kind == Union {
				st.Merged = append(st.Merged, u)
				return
			}
		}
		t.Unchecked = append(t.Unchecked, "anyOf/oneOf of a merged schema")
	})
}

// memberNames reads the propertyNames of the object s: the type every
// member name must have (StructType.Names), when it is a string or a
// named type over one. Names true says nothing.
func (b *builder) memberNames(t *Type, st *StructType, s, base *load.Schema) error {
	if pn := s.PropertyNames; base == nil && pn != nil && pn.Bool == nil {
		c := *pn
		if len(c.Type) == 0 && c.Ref == "" {
			// Member names are strings.
			c.Type = []string{"string"}
		}
		r, _, err := b.ref(&c, t.Name+"Name")
		if err != nil {
			return err
		}
		if stringTyped(r) {
			st.Names = r
			dropUnchecked(t, "propertyNames")
		}
	} else if pn != nil && pn.Bool != nil && *pn.Bool {
		dropUnchecked(t, "propertyNames")
	}
	return nil
}

// decideNameFits decides, for each field of a struct with propertyNames,
// whether its member name is sure to pass the names' checks (see
// Field.NameFits). It runs once every type is made: the type the names
// must have may be made after the struct.
func decideNameFits(p *Package) {
	for _, t := range p.Types {
		st := t.Struct
		if st == nil || st.Names == nil {
			continue
		}
		r := Resolve(st.Names)
		for _, f := range st.Fields {
			f.NameFits = nameFits(r, f.JSON)
		}
	}
}

// nameFits reports whether a member name known when generating is sure to
// pass the propertyNames checks of r: lengths, pattern and enum; a format is
// left to Validate.
func nameFits(r *Ref, name string) bool {
	c := r.Check
	if r.Kind == NamedRef {
		t := r.Type
		switch {
		case t.Kind == Enum && t.Enum != nil:
			if t.Enum.Open {
				return true
			}
			for _, v := range t.Enum.Values {
				if v.JSON == strconv.Quote(name) {
					return true
				}
			}
			return false
		case t.Kind == Named && t.Under != nil:
			c = t.Check
			if u := Resolve(t.Under); u.Kind == Builtin {
				if !u.Check.Empty() {
					return false
				}
			}
		default:
			return false
		}
	}
	n := uint64(utf8.RuneCountInString(name))
	switch {
	case c.Format != "", c.MinLength != nil && n < *c.MinLength, c.MaxLength != nil && n > *c.MaxLength:
		return false
	case c.Pattern != "" && (!PatternOK(c.Pattern) || !regexp.MustCompile(c.Pattern).MatchString(name)):
		return false
	case len(c.Enum) > 0:
		for _, e := range c.Enum {
			if e == strconv.Quote(name) {
				return true
			}
		}
		return false
	}
	return true
}

// stringTyped reports whether a type use is a Go string or a named type
// over one (an enum of strings, say), which a member name converts to.
func stringTyped(r *Ref) bool {
	for r != nil {
		switch {
		case r.Kind == Builtin:
			return r.Builtin == "string"
		case r.Kind == NamedRef && r.Type.External == nil && (r.Type.Kind == Alias || r.Type.Kind == Named):
			r = r.Type.Under
		case r.Kind == NamedRef && r.Type.External == nil && r.Type.Kind == Enum:
			b := r.Type.Enum
			return b != nil && b.Base != nil && b.Base.Kind == Builtin && b.Base.Builtin == "string"
		default:
			return false
		}
	}
	return false
}

// extraRules makes the value schemas of an object's patternProperties and
// additionalProperties (beside properties) rules that Validate checks on
// the members kept aside, and takes them off the type's unchecked list.
// It does nothing when a pattern is not a Go regular expression (which
// members it covers is then unknown) or forbids its members.
func (b *builder) extraRules(t *Type, st *StructType, s *load.Schema) error {
	var rules []*ExtraRule
	checks := false
	for _, pp := range s.PatternProperties {
		if !PatternOK(pp.Name) || (pp.Schema.Bool != nil && !*pp.Schema.Bool) {
			return nil
		}
		re := regexp.MustCompile(pp.Name)
		for _, f := range st.Fields {
			if re.MatchString(f.JSON) && (structural(pp.Schema) || pp.Schema.Ref != "") {
				// The pattern's schema applies to a member the struct
				// holds as a field too; Validate does not check that.
				return nil
			}
		}
		r := &ExtraRule{Pattern: pp.Name}
		if structural(pp.Schema) || pp.Schema.Ref != "" {
			ref, nullable, err := b.ref(pp.Schema, t.Name+"Match")
			if err != nil {
				return err
			}
			r.Type, r.Nullable, checks = ref, nullable, true
		}
		rules = append(rules, r)
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Bool == nil && len(s.Properties) > 0 {
		if s.Ref != "" || len(s.AllOf) > 0 {
			// Members merged from elsewhere are additional to this
			// schema's properties, so its additionalProperties applies to
			// fields too; Validate does not check that.
			return nil
		}
		ref, nullable, err := b.ref(ap, t.Name+"Value")
		if err != nil {
			return err
		}
		rules = append(rules, &ExtraRule{Type: ref, Nullable: nullable})
		checks = true
	}
	if !checks {
		return nil
	}
	st.Extra = rules
	drop := map[string]int{"additionalProperties": 1, "patternProperties": 1}
	for _, pp := range s.PatternProperties {
		drop["patternProperties "+pp.Name]++
	}
	var keep []string
	for _, u := range t.Unchecked {
		if drop[u] > 0 {
			drop[u]--
			continue
		}
		keep = append(keep, u)
	}
	t.Unchecked = keep
	return nil
}

// shadow notes that the property schema s replaces old, one of the same
// name merged from an allOf member or a $ref.
func (b *builder) shadow(s, old *load.Schema) {
	if b.shadowed == nil {
		b.shadowed = map[*load.Schema][]*load.Schema{}
	}
	for _, x := range append([]*load.Schema{old}, b.shadowed[old]...) {
		if !slices.Contains(b.shadowed[s], x) {
			b.shadowed[s] = append(b.shadowed[s], x)
		}
	}
}

// constCheck is the ConstCheck of a member whose schema s fixes a
// string: the constraints on a string of the schemas s replaces (see
// shadow), the strictest bounds of them. A validator stops at a failed
// const, so s's own keywords (and what it refers to) go unreported beside
// it, while the schemas it replaces apply to the member still. One of
// them with a const fails as s's does and stops there too; one with an
// enum, or a second pattern or format, which one Constraints cannot
// hold, is left out, and partial is then true.
func (b *builder) constCheck(s *load.Schema) (out Constraints, partial bool) {
	for _, x := range b.shadowed[s] {
		if x.Ref != "" {
			if t, err := target(x); err == nil {
				x = t
			}
		}
		if x.HasConst {
			continue
		}
		if len(x.Enum) > 0 {
			partial = true
			continue
		}
		c := constraints(x)
		if c.MinLength != nil && (out.MinLength == nil || *c.MinLength > *out.MinLength) {
			out.MinLength = c.MinLength
		}
		if c.MaxLength != nil && (out.MaxLength == nil || *c.MaxLength < *out.MaxLength) {
			out.MaxLength = c.MaxLength
		}
		switch {
		case c.Pattern == "" || c.Pattern == out.Pattern:
		case out.Pattern == "" && PatternOK(c.Pattern):
			out.Pattern = c.Pattern
		default:
			partial = true
		}
		switch {
		case c.Format == "" || c.Format == out.Format:
		case out.Format == "":
			out.Format = c.Format
		default:
			partial = true
		}
		out.NotEnum = append(out.NotEnum, c.NotEnum...)
	}
	return out, partial
}

func (b *builder) field(t *Type, p load.Property, required bool, names *namer) (*Field, error) {
	s := p.Schema
	goName := GoName(p.Name)
	if s.GoName != "" {
		goName = s.GoName
	}
	if p.Name == "" && s.GoName == "" {
		// The empty member name is a member like any other.
		goName = "Empty"
	}
	f := &Field{JSON: p.Name, Doc: s.Description, Loc: s.Loc, Required: required}
	if forbidden(s) {
		// The schema false (or not: {}): the member must be absent.
		f.Forbidden, f.Type, f.Name = true, &Ref{Kind: Raw}, p.Name
		return f, nil
	}
	f.Name = names.take(goName, goName+"Field", goName+"Value")
	n, err := b.normalize(s)
	if err != nil {
		return nil, err
	}
	if n.target == nil && required && (n.s.HasConst || len(n.s.Enum) == 1) {
		v := n.s.Const
		if !n.s.HasConst {
			v = n.s.Enum[0]
		}
		raw, _ := json.Marshal(v)
		f.Const = string(raw)
		f.Type = &Ref{Kind: Raw}
		if _, ok := v.(string); ok {
			f.ConstCheck, f.ConstCheckPartial = b.constCheck(s)
		}
		return f, nil
	}
	// An inline type is named after the schema that owns it, not after
	// the struct that merges it: a member of an envelope merged into every
	// message is EnvelopeX, whichever message comes first.
	owner := t.Name
	inside := s.Loc.File == t.Loc.File && strings.HasPrefix(s.Loc.Pointer, t.Loc.Pointer+"/")
	if o := s.Doc.Owner(s); !inside && o.Loc != t.Loc && b.mapping(o) == nil {
		if ot, ok := b.byNode[o]; ok {
			owner = ot.Name
		} else {
			owner = b.nameOf(o)
		}
	}
	r, nullable, err := b.ref(s, owner+f.Name)
	if err != nil {
		return nil, err
	}
	f.Type, f.Nullable = r, nullable
	if r.Kind != NamedRef || r.Type.Loc != s.Loc {
		for _, u := range unchecked(s) {
			t.Unchecked = append(t.Unchecked, p.Name+": "+u)
		}
	}
	if f.Doc == "" && r.Kind == NamedRef {
		f.Doc = r.Type.Doc
	}
	return f, nil
}
