package model

import (
	"regexp"
	"sort"
	"strings"
)

// ValueCheck says how to decide, for one decoded value of a type that is
// not Complete, whether a strict decode plus Validate proved it valid. For
// a union, the value's variant decides (a variant is proved when its type
// is Complete). For a struct, every member in Fields holds a union in
// Package.PartialUnions, and the struct is proved when each of those
// members is absent or holds a proved variant.
type ValueCheck struct {
	Fields []*Field
}

// PatternOK reports whether Go's regexp accepts a schema pattern: patterns
// it cannot compile are not checked by Validate.
func PatternOK(p string) bool {
	_, err := regexp.Compile(p)
	return err == nil
}

// Checkable reports whether Validate checks every constraint of a value.
func Checkable(c Constraints) bool {
	if c.Pattern != "" && !PatternOK(c.Pattern) {
		return false
	}
	if _, ok := CheckedFormats[c.Format]; c.Format != "" && !ok {
		return false
	}
	for _, a := range c.Alts {
		if !Checkable(a) {
			return false
		}
	}
	return c.Names == nil || Checkable(*c.Names)
}

// Resolve follows aliases to the type use they stand for.
func Resolve(r *Ref) *Ref {
	for r.Kind == NamedRef && r.Type.Kind == Alias {
		r = r.Type.Under
	}
	return r
}

// LookupTypes returns the types a package's Lookup serves, keyed by their
// schema $id and listed in the order of their sorted $ids: the first type
// of each $id in emission order, an alias's target in place of the alias.
// An alias of an external type is listed as itself.
func LookupTypes(p *Package) (ids []string, byID map[string]*Type) {
	byID = map[string]*Type{}
	for _, t := range p.Types {
		if t.External != nil || t.SchemaID == "" {
			continue
		}
		if _, dup := byID[t.SchemaID]; dup {
			continue
		}
		ids = append(ids, t.SchemaID)
		byID[t.SchemaID] = t
	}
	sort.Strings(ids)
	return ids, byID
}

// completeness decides, for each type, whether a strict decode plus
// Validate proves a value valid against the schema. A type is complete when
// its own checks are all made and every type it holds is complete; a cycle
// does not make a type incomplete by itself. The types of one strongly
// connected component hold each other, so they are decided together (by
// Tarjan's algorithm), which makes the outcome independent of the order in
// which types are asked about.
type completeness struct {
	memo map[*Type]bool // the decided types
	pkg  *Package
	rec  map[*Type]bool // the types that contain themselves

	// The state of the search: the visiting order of each type reached,
	// the lowest order reachable from it, the stack of undecided types,
	// what each type holds and whether its own checks are all made.
	index map[*Type]int
	low   map[*Type]int
	stack []*Type
	on    map[*Type]bool
	deps  map[*Type][]*Type
	own   map[*Type]bool
}

// decideCompleteness sets Complete on every type, CompleteValue on the
// types of the package's Lookup that are incomplete only because of the
// variants of unions they hold, and the package's PartialUnions. Types are
// decided in the order Lookup lists them (which orders PartialUnions; the
// outcome does not depend on it).
func decideCompleteness(p *Package, rec map[*Type]bool) {
	c := &completeness{memo: map[*Type]bool{}, pkg: p, rec: rec,
		index: map[*Type]int{}, low: map[*Type]int{}, on: map[*Type]bool{}, deps: map[*Type][]*Type{}, own: map[*Type]bool{}}
	ids, byID := LookupTypes(p)
	for _, id := range ids {
		t := byID[id]
		if t.Kind == Alias {
			target := Resolve(t.Under).Type
			if target.External != nil {
				continue
			}
			t = target
		}
		if t.Kind == Scalar && t.Under == nil {
			continue
		}
		c.typ(t)
		if t.CompleteValue == nil {
			t.CompleteValue = c.valueCheck(t)
		}
	}
	for _, u := range p.PartialUnions {
		for _, v := range u.Union.Variants {
			c.typ(v.Type)
		}
	}
	for _, t := range p.Types {
		c.typ(t)
	}
	for t, ok := range c.memo {
		t.Complete = ok
	}
	for _, t := range p.Types {
		if t.External != nil {
			continue
		}
		if gaps := ownGaps(t); len(gaps) > 0 {
			t.Doc = strings.TrimSpace(t.Doc + "\n\nValidate does not check: " + strings.Join(gaps, "; ") + ".")
			p.Warnings = append(p.Warnings, t.Loc.Errorf("Validate of %s does not check: %s", t.Name, strings.Join(gaps, "; ")))
		}
	}
}

// ownGaps lists the constraints of a type's own schema that Validate does
// not check: its unchecked keywords, and its members' (a format or pattern
// Go cannot check, raw JSON that stands for constraints). A gap of a type
// it refers to is that type's own.
func ownGaps(t *Type) []string {
	out := append([]string(nil), t.Unchecked...)
	refGap := func(r *Ref) string {
		for r != nil {
			switch r.Kind {
			case Raw:
				if r.Lossy {
					return "constraints of a value kept as raw JSON"
				}
				return ""
			case Builtin:
				return constraintGap(r.Check)
			case Slice, Map:
				r = r.Elem
			default:
				return ""
			}
		}
		return ""
	}
	switch {
	case t.Struct != nil:
		for _, f := range t.Struct.Fields {
			if f.Repr() == NoField {
				continue
			}
			if g := refGap(f.Type); g != "" {
				out = append(out, f.JSON+": "+g)
			}
		}
		for _, r := range t.Struct.Extra {
			if g := refGap(r.Type); g != "" && r.Pattern != "" {
				out = append(out, "members matching "+r.Pattern+": "+g)
			} else if g != "" {
				out = append(out, "other members: "+g)
			}
		}
	case t.Kind == Named || t.Kind == Scalar:
		// A raw union has its own warning and doc sentence.
		if t.RawUnion == nil && t.Under != nil {
			if g := refGap(t.Under); g != "" {
				out = append(out, g)
			}
		}
		if g := constraintGap(t.Check); g != "" {
			out = append(out, g)
		}
	}
	return out
}

// constraintGap names what Validate cannot check of a value's
// constraints (see Checkable): a format it does not know, or a pattern Go
// does not compile, its own, an alternative's or its member names'; ""
// when it checks all.
func constraintGap(c Constraints) string {
	if _, ok := CheckedFormats[c.Format]; c.Format != "" && !ok {
		return "format " + c.Format
	}
	if c.Pattern != "" && !PatternOK(c.Pattern) {
		return "pattern " + c.Pattern + " (not a Go regular expression)"
	}
	for _, a := range c.Alts {
		if g := constraintGap(a); g != "" {
			return g
		}
	}
	if c.Names != nil {
		if g := constraintGap(*c.Names); g != "" {
			return "member names: " + g
		}
	}
	return ""
}

// condition keeps a struct's if/then/else only when its If type is
// complete: otherwise which branch applies is not known, the condition is
// unchecked again, and the types made for it are dropped from the package.
func (c *completeness) condition(t *Type) {
	cd := t.Struct.Cond
	if c.typ(cd.If) {
		return
	}
	t.Struct.Cond = nil
	t.Unchecked = append(t.Unchecked, "if")
	drop := map[*Type]bool{}
	for _, x := range cd.Types {
		drop[x] = true
	}
	var keep []*Type
	for _, x := range c.pkg.Types {
		if !drop[x] {
			keep = append(keep, x)
		}
	}
	c.pkg.Types = keep
}

// typ decides t (and the types it holds) unless it is decided, and
// returns whether it is complete. A type whose component is still being
// decided is not known to be complete: false.
func (c *completeness) typ(t *Type) bool {
	if v, ok := c.memo[t]; ok {
		return v
	}
	if _, seen := c.index[t]; seen {
		return false
	}
	c.visit(t)
	return c.memo[t]
}

// visit is one step of Tarjan's algorithm: it decides the component of t
// once every type t holds is visited.
func (c *completeness) visit(t *Type) {
	c.index[t], c.low[t] = len(c.index), len(c.index)
	c.stack = append(c.stack, t)
	c.on[t] = true
	if ext := t.External; ext != nil && !ext.Generated {
		// A type of a package that may be written by hand: what its
		// decoder and Validate check is not known.
		c.own[t] = false
	} else {
		if t.Struct != nil && t.Struct.Cond != nil {
			// The If type is on no cycle with t (a type that contains
			// itself has no condition left): it is decided here.
			c.condition(t)
		}
		c.own[t], c.deps[t] = parts(t)
	}
	for _, d := range c.deps[t] {
		if _, seen := c.index[d]; !seen {
			c.visit(d)
			c.low[t] = min(c.low[t], c.low[d])
		} else if c.on[d] {
			c.low[t] = min(c.low[t], c.index[d])
		}
	}
	if ext := t.External; t.Union != nil && (ext == nil || ext.Generated) {
		c.own[t] = c.oneOf(t) && unknownProved(t.Union)
	}
	if c.low[t] != c.index[t] {
		return
	}
	var comp []*Type
	in := map[*Type]bool{}
	for {
		w := c.stack[len(c.stack)-1]
		c.stack = c.stack[:len(c.stack)-1]
		c.on[w] = false
		comp = append(comp, w)
		in[w] = true
		if w == t {
			break
		}
	}
	ok := true
	for _, w := range comp {
		ok = ok && c.own[w]
		for _, d := range c.deps[w] {
			// A type outside the component was decided before it.
			ok = ok && (in[d] || c.memo[d])
		}
	}
	for _, w := range comp {
		c.memo[w] = ok
	}
}

// oneOf settles the one-variant check of a union whose variants overlap,
// and reports whether the union's own checks are then all made. The
// variants of a union that does not contain itself are decided by now.
func (c *completeness) oneOf(t *Type) bool {
	u := t.Union
	if u.Overlap == "" || c.rec[t] {
		return len(t.Unchecked) == 0
	}
	for _, v := range u.Variants {
		if ok, decided := c.memo[v.Type]; !decided || !ok {
			return len(t.Unchecked) == 0
		}
	}
	// Every object variant proves its values, so Validate can tell that a
	// value fits one only.
	u.OnlyOne = true
	dropUnchecked(t, u.Overlap)
	return len(t.Unchecked) == 0
}

// parts reports whether a type's own checks are all made (its members'
// builtin values and raw JSON included), and lists the named types it
// holds, whose completeness it needs too.
func parts(t *Type) (bool, []*Type) {
	var deps []*Type
	ok := len(t.Unchecked) == 0
	switch t.Kind {
	case Struct:
		for _, f := range t.Struct.Fields {
			ok = refParts(f.Type, &deps) && ok
		}
		if cd := t.Struct.Cond; cd != nil {
			for _, x := range []*Type{cd.Then, cd.Else} {
				if x != nil {
					deps = append(deps, x)
				}
			}
		}
		deps = append(deps, t.Struct.Merged...)
		for _, r := range t.Struct.Extra {
			if r.Type != nil {
				ok = refParts(r.Type, &deps) && ok
			}
		}
	case Union:
		for _, v := range t.Union.Variants {
			deps = append(deps, v.Type)
		}
		if o := t.Union.Other; o != nil && t.Union.Open {
			// The Unknown variant's check is Other's: it counts as a
			// variant does. (A closed union rejects the Unknown variant
			// whatever its Other finds.)
			deps = append(deps, o)
		}
		ok = ok && unknownProved(t.Union)
	case Named, Scalar, Alias, Defined:
		if t.Under != nil {
			ok = refParts(t.Under, &deps) && ok
		}
		if !Checkable(t.Check) {
			ok = false
		}
	}
	return ok, deps
}

// unknownProved reports whether decoding a value as the union's Unknown
// variant proves it valid, as far as the union's own checks go. A closed
// union's Validate rejects it; a catch-all alternative (Open) takes unknown
// tags as raw JSON, whose constraints (a vendor prefix, a required member)
// the check of the Unknown variant makes through the catch-all's own type
// (Other, counted as a variant is) or, without one, are not checked,
// unless the catch-all asks nothing that decoding does not ensure
// (OpenAsks): then the Unknown variant is as proved as a listed one.
func unknownProved(u *UnionType) bool {
	return !u.Open || len(u.OpenAsks) == 0
}

// UnknownComplete reports whether a strict decode plus Validate proves a
// value of an open union's Unknown variant valid: the catch-all asks
// nothing the decoder and the check of its own type (Other, when there is
// one, and complete) do not make. It is false for a closed union, whose
// Validate rejects the Unknown variant.
func UnknownComplete(u *UnionType) bool {
	return u.Open && len(u.OpenAsks) == 0 && (u.Other == nil || u.Other.Complete)
}

// refParts reports whether the builtin values and raw JSON of a type use
// are checked, and adds the named types it holds to deps.
func refParts(r *Ref, deps *[]*Type) bool {
	switch r.Kind {
	case Raw:
		return !r.Lossy
	case Builtin:
		return Checkable(r.Check)
	case NamedRef:
		*deps = append(*deps, r.Type)
	case Slice, Map:
		return refParts(r.Elem, deps)
	}
	return true
}

// ref reports whether a type use is complete.
func (c *completeness) ref(r *Ref) bool {
	var deps []*Type
	if !refParts(r, &deps) {
		return false
	}
	for _, d := range deps {
		if !c.typ(d) {
			return false
		}
	}
	return true
}

// partialUnion reports whether some variant of a union generated here is
// complete, and lists the union in PartialUnions.
func (c *completeness) partialUnion(u *Type) bool {
	if u.External != nil || u.Kind != Union || len(u.Unchecked) > 0 {
		// A union with constraints of its own (oneOf's exactly-one, say)
		// is not proved by its variant alone.
		return false
	}
	some := false
	for _, v := range u.Union.Variants {
		some = some || c.typ(v.Type)
	}
	if !some {
		return false
	}
	for _, h := range c.pkg.PartialUnions {
		if h == u {
			return true
		}
	}
	c.pkg.PartialUnions = append(c.pkg.PartialUnions, u)
	return true
}

// valueCheck returns, for a type that is incomplete only because of the
// variants of unions it holds, how to decide completeness for one value;
// nil when there is no way.
func (c *completeness) valueCheck(t *Type) *ValueCheck {
	if c.typ(t) {
		return nil
	}
	switch t.Kind {
	case Union:
		if !c.partialUnion(t) {
			return nil
		}
		return &ValueCheck{}
	case Struct:
		if len(t.Unchecked) > 0 {
			return nil
		}
		var fields []*Field
		for _, f := range t.Struct.Fields {
			if f.Repr() == NoField || c.ref(f.Type) {
				continue
			}
			r := Resolve(f.Type)
			if r.Kind != NamedRef || !c.partialUnion(r.Type) {
				return nil
			}
			fields = append(fields, f)
		}
		if len(fields) == 0 {
			return nil
		}
		return &ValueCheck{Fields: fields}
	}
	return nil
}
