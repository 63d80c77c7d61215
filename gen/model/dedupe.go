package model

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// shareShapes makes each type whose schema asks of a value exactly what
// another type's schema asks an alias of the first such type: the Go code
// of a shape is emitted once, however many schemas describe it. Config
// schemas repeat shapes by the hundred (one options object, one
// string-or-object rule setting per lint rule); emitting each copy made
// packages too large for the Go compiler to build in reasonable memory.
//
// Two types are the same shape when their kinds, Go member names, wire
// names, representations and checks are equal and the types they hold
// are the same shape in turn, which is decided once per type, the types
// it holds first (in time linear in the package). A type on a cycle keeps
// its own code: its shape would depend on itself. A type whose schema is
// described is shared only when it is a member's inline schema or an
// alternative of one (vega-lite's `angle: anyOf[{type: number,
// description: …}, ExprRef]`, repeated for every mark), whose description
// is the member's and stays on the member: a described definition, or an
// alternative of one, is a concept of its own (a session id is not a tool
// call id, though both are strings), and its name part of the API.
// An alias keeps its own doc comment and says which type it is. Members'
// documentation counts, since the alias shows the members of the type it
// names. Two variants of one union always stay two types, since the Go
// type of a value tells which variant it is.
//
// An enum alias keeps its constants, as constants of the type it names.
// Raw unions and the types of if/then/else conditions keep their own code
// (their accessors and helpers are named after the type), and so do
// embedded structs and the structs that embed them.
func shareShapes(p *Package) {
	cand, cls := shareCandidates(p)
	if len(cand) < 2 {
		return
	}
	s := &shapes{cls: cls, alone: -1 - len(p.Types)}
	order := s.dependenciesFirst(cand)
	var dup map[*Type]*Type
	for {
		dup = s.classes(cand, order)
		if !s.variantsApart(p, dup) {
			break
		}
	}
	if len(dup) == 0 {
		return
	}
	relinkVariants(p, dup)
	for _, t := range p.Types {
		if r, ok := dup[t]; ok {
			aliasTo(t, r)
		}
	}
}

// shareCandidates returns the types that may share another's Go type,
// and a first class for every type: 0 for a candidate, one of its own for
// any other.
func shareCandidates(p *Package) (cand []*Type, cls map[*Type]int) {
	inCond := map[*Type]bool{}
	for _, t := range p.Types {
		if st := t.Struct; st != nil && st.Cond != nil {
			for _, x := range st.Cond.Types {
				inCond[x] = true
			}
		}
	}
	cls = map[*Type]int{}
	for i, t := range p.Types {
		if shareable(t) && !inCond[t] && (t.Doc == "" || memberOwned(t)) {
			cand = append(cand, t)
			cls[t] = 0
		} else {
			cls[t] = -1 - i // a class of its own
		}
	}
	return cand, cls
}

// variantsApart keeps apart two variants of one union that dup would
// make one type, and reports whether it did. Two variants of one union
// must stay two types: the Go type of a value is what tells its variant
// (and tag) apart. Keeping one apart only splits classes, so a second
// round finds none.
func (s *shapes) variantsApart(p *Package, dup map[*Type]*Type) (split bool) {
	for _, t := range p.Types {
		if t.Union == nil || dup[t] != nil {
			continue
		}
		first := map[*Type]*Type{} // by class, the first variant type in it
		for _, v := range t.Union.Variants {
			r := v.Type
			if d := dup[r]; d != nil {
				r = d
			}
			if f, ok := first[r]; ok {
				// One of the two is not its class's first: it goes.
				alone := v.Type
				if dup[alone] == nil {
					alone = f
				}
				s.keepApart(alone)
				split = true
				continue
			}
			first[r] = v.Type
		}
	}
	return split
}

// relinkVariants makes the variants of the unions that stay name the
// shared types, which are then variants of every union that names them;
// the unions that go (the keys of dup) are no longer anyone's.
func relinkVariants(p *Package, dup map[*Type]*Type) {
	same := func(t *Type) *Type {
		if r, ok := dup[t]; ok {
			return r
		}
		return t
	}
	for _, t := range p.Types {
		keep := t.Unions[:0]
		for _, v := range t.Unions {
			if _, gone := dup[v.Union]; !gone {
				keep = append(keep, v)
			}
		}
		t.Unions = keep
	}
	for _, t := range p.Types {
		if _, gone := dup[t]; gone {
			continue
		}
		if u := t.Union; u != nil {
			vs := u.Variants
			if u.Fallback != nil {
				vs = append(vs[:len(vs):len(vs)], u.Fallback)
			}
			for _, v := range vs {
				v.Type = same(v.Type)
				v.Type.Unions = appendVariant(v.Type.Unions, v)
			}
		}
		if st := t.Struct; st != nil {
			for i, m := range st.Merged {
				st.Merged[i] = same(m)
			}
		}
	}
}

// aliasTo makes t an alias of r, the type of the same shape it shares:
// t keeps its union's Unknown variant and its enum's constants as names
// of r's, and its doc comment, which says which type it is.
func aliasTo(t, r *Type) {
	if t.Union != nil && t.Union.Unknown != "" && r.Union.Unknown != "" {
		t.AlsoAliases = append(t.AlsoAliases, [2]string{t.Union.Unknown, r.Union.Unknown})
	}
	if t.Enum != nil {
		for i, v := range t.Enum.Values {
			t.AlsoConsts = append(t.AlsoConsts, [2]string{v.Name, r.Enum.Values[i].Name})
		}
	}
	t.Kind, t.Under = Alias, &Ref{Kind: NamedRef, Type: r}
	t.Struct, t.Union, t.Enum, t.RawUnion, t.OwnTag, t.Check = nil, nil, nil, nil, nil, Constraints{}
	t.Unchecked, t.Unions = nil, nil
	// The description reads as it would on a type of its own (goDocs
	// keeps a doc that starts with the name), then says which it is.
	if t.Doc == "" {
		t.Doc = t.Name + " is " + r.Name + ": their schemas ask the same of a value."
	} else {
		t.Doc = GoDoc(t.Name, t.Doc) + "\n\nIt is " + r.Name + ": their schemas ask the same of a value."
	}
}

// dependenciesFirst orders the candidates so that each comes after the
// types it holds (Tarjan's algorithm lists a strongly connected component
// after those it reaches), and keeps every type on a cycle apart: its
// shape is not known before its own.
func (s *shapes) dependenciesFirst(cand []*Type) []*Type {
	isCand := make(map[*Type]bool, len(cand))
	for _, t := range cand {
		isCand[t] = true
	}
	deps := func(t *Type) []*Type {
		var out []*Type
		s.holds = func(d *Type) {
			if isCand[d] {
				out = append(out, d)
			}
		}
		s.key(t)
		s.holds = nil
		return out
	}
	var order []*Type
	components(cand, deps, func(comp []*Type, cycle bool) {
		if !cycle {
			order = append(order, comp[0])
			return
		}
		for _, w := range comp {
			s.keepApart(w)
		}
	})
	return order
}

// keepApart gives t a class no other type has.
func (s *shapes) keepApart(t *Type) {
	s.alone--
	s.cls[t] = s.alone
}

// classes gives each candidate in order (the types it holds first) the
// class of its key, and returns each candidate that is not the first of
// its class, in the package's order, with that first one. A candidate
// kept apart keeps its class.
func (s *shapes) classes(cand, order []*Type) map[*Type]*Type {
	keys := map[string]int{}
	for _, t := range order {
		if s.cls[t] < 0 {
			continue
		}
		k := s.key(t)
		id, ok := keys[k]
		if !ok {
			id = len(keys)
			keys[k] = id
		}
		s.cls[t] = id
	}
	rep := map[int]*Type{}
	dup := map[*Type]*Type{}
	for _, t := range cand {
		c := s.cls[t]
		if c < 0 {
			continue
		}
		if r, ok := rep[c]; ok {
			dup[t] = r
		} else {
			rep[c] = t
		}
	}
	return dup
}

// memberOwned reports whether a type is a member's inline schema, or an
// alternative of one (a union inline in a member): its description is the
// member's, not a concept's of its own.
func memberOwned(t *Type) bool {
	if t.SchemaID != "" {
		return false
	}
	for _, v := range t.Unions {
		if v.Union.SchemaID != "" {
			return false
		}
	}
	return true
}

// appendVariant adds v to a type's unions unless its union is listed.
func appendVariant(vs []*Variant, v *Variant) []*Variant {
	for _, x := range vs {
		if x.Union == v.Union {
			return vs
		}
	}
	return append(vs, v)
}

// shareable reports whether a type may share its code with another of
// the same shape (see shareShapes).
func shareable(t *Type) bool {
	if t.External != nil || t.RawUnion != nil {
		return false
	}
	switch t.Kind {
	case Struct:
		st := t.Struct
		return st.Cond == nil && st.Embed == nil && !st.Base
	case Union, Enum, Named, Scalar, Defined:
		return true
	}
	return false
}

// shapes builds the keys shareShapes compares: everything the emitted
// code of a type depends on, with the types it holds given by class.
type shapes struct {
	cls   map[*Type]int
	alone int // the last class given to a type kept apart
	b     strings.Builder
	// holds, when set, is told each type a key refers to.
	holds func(*Type)
}

func (s *shapes) key(t *Type) string {
	s.b.Reset()
	s.w("k", strconv.Itoa(int(t.Kind)))
	s.list("u", t.Unchecked)
	switch {
	case t.Struct != nil:
		s.structKey(t.Struct)
	case t.Union != nil:
		s.unionKey(t.Union)
	case t.Enum != nil:
		e := t.Enum
		s.ref(e.Base)
		s.w("open", strconv.FormatBool(e.Open), e.OpenDoc)
		s.constraints(e.OpenCheck)
		for _, v := range e.Values {
			s.w("ev", v.Go, v.JSON, v.Doc)
		}
	default:
		s.ref(t.Under)
		s.constraints(t.Check)
	}
	if v := t.OwnTag; v != nil {
		s.w("own", v.Union.Union.Tag, v.Tag)
	}
	return s.b.String()
}

func (s *shapes) w(parts ...string) {
	for _, p := range parts {
		s.b.WriteString(strconv.Quote(p))
	}
	s.b.WriteByte(';')
}

func (s *shapes) list(name string, xs []string) {
	s.b.WriteString(name)
	s.w(xs...)
}

func (s *shapes) typ(t *Type) {
	if t == nil {
		s.b.WriteString("nil;")
		return
	}
	if ext := t.External; ext != nil {
		s.w("ext", ext.Path, ext.Name)
		return
	}
	if t.Kind == Alias {
		s.ref(t.Under)
		return
	}
	if s.holds != nil {
		s.holds(t)
	}
	c, ok := s.cls[t]
	if !ok {
		// Not a type of the package: compare by identity.
		s.w("id", fmt.Sprintf("%p", t))
		return
	}
	s.w("t", strconv.Itoa(c))
}

func (s *shapes) ref(r *Ref) {
	if r == nil {
		s.b.WriteString("nil;")
		return
	}
	s.w("r", strconv.Itoa(int(r.Kind)), r.Builtin, strconv.FormatBool(r.ElemNullable), strconv.FormatBool(r.Lossy))
	s.constraints(r.Check)
	switch r.Kind {
	case NamedRef:
		s.typ(r.Type)
	case Slice, Map:
		s.ref(r.Elem)
	}
}

func (s *shapes) constraints(c Constraints) {
	if c.Empty() && !c.OneOfAlts {
		return
	}
	j, err := json.Marshal(c)
	if err != nil {
		// A bound that is not a JSON number: the type stays alone.
		s.alone--
		s.w("c?", strconv.Itoa(s.alone))
		return
	}
	s.w("c", string(j))
}

func (s *shapes) field(f *Field) {
	if f == nil {
		s.b.WriteString("nil;")
		return
	}
	s.w("f", f.Name, f.JSON, f.Doc, f.Const, strconv.FormatBool(f.Required), strconv.FormatBool(f.Nullable),
		strconv.FormatBool(f.Forbidden), strconv.FormatBool(f.Indirect), strconv.FormatBool(f.Inherited), strconv.FormatBool(f.NameFits),
		strconv.FormatBool(f.ConstCheckPartial))
	s.constraints(f.ConstCheck)
	s.ref(f.Type)
}

func (s *shapes) structKey(st *StructType) {
	for _, f := range st.Fields {
		s.field(f)
	}
	s.w("o", strconv.FormatBool(st.Open), st.ExtraName, strconv.FormatBool(st.OneOfRequired), strconv.FormatBool(st.Tuple),
		strconv.Itoa(st.MinItems), strconv.FormatBool(st.NoRest), st.NoRestKeyword)
	for _, alt := range st.RequiredAlternatives {
		s.list("ra", alt)
	}
	s.list("pat", st.Patterns)
	for _, r := range st.Rules {
		s.list("rule", append([]string{r.IfKey}, r.IfValues...))
		s.list("then", r.ThenRequired)
		for _, mv := range r.ThenConst {
			s.w("tc", mv.Member, mv.Value)
		}
	}
	for _, na := range st.NotAll {
		s.list("na", na)
	}
	for _, d := range st.Dependent {
		j, _ := json.Marshal(d)
		s.w("dep", string(j))
	}
	for _, e := range st.Extra {
		s.w("x", e.Pattern, strconv.FormatBool(e.Nullable))
		s.ref(e.Type)
	}
	s.w("mp", uintText(st.MinProps), uintText(st.MaxProps))
	s.b.WriteString("names")
	s.ref(st.Names)
	for _, m := range st.Merged {
		s.b.WriteString("m")
		s.typ(m)
	}
	s.b.WriteString("rest")
	s.field(st.Rest)
}

func (s *shapes) unionKey(u *UnionType) {
	s.w("tag", u.Tag, strconv.FormatBool(u.IntTag), u.DefaultTag, strconv.FormatBool(u.DefaultTakesOthers), strconv.FormatBool(u.Open), strconv.Itoa(int(u.By)),
		u.Overlap, strconv.FormatBool(u.OnlyOne), strconv.FormatBool(u.NoTrial))
	s.w("unknown", strconv.FormatBool(u.Unknown != ""))
	s.list("asks", u.OpenAsks)
	s.b.WriteString("other")
	s.typ(u.Other)
	index := func(v *Variant) string {
		for i, x := range u.Variants {
			if x == v {
				return strconv.Itoa(i)
			}
		}
		return "-"
	}
	s.w("def", index(u.Default))
	for _, v := range u.Variants {
		s.variant(v)
	}
	if v := u.Fallback; v != nil {
		s.b.WriteString("fallback")
		s.variant(v)
	}
}

func (s *shapes) variant(v *Variant) {
	s.w("v", v.Tag, strconv.FormatBool(v.TagInStruct), v.JSONKind, v.ItemKind)
	s.list("keys", v.Keys)
	s.list("ikeys", v.ItemKeys)
	s.typ(v.Type)
}

func uintText(u *uint64) string {
	if u == nil {
		return "-"
	}
	return strconv.FormatUint(*u, 10)
}
