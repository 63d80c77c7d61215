package emit

import (
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/agentproto/agentproto/gen/model"
)

// completeness decides, for each type, whether a strict decode plus
// Validate proves a value valid against the schema.
type completeness struct {
	memo map[*model.Type]bool
}

func (c *completeness) typ(t *model.Type) bool {
	if v, ok := c.memo[t]; ok {
		return v
	}
	c.memo[t] = true // a cycle does not make a type incomplete by itself
	ok := len(t.Unchecked) == 0
	switch t.Kind {
	case model.Struct:
		for _, f := range t.Struct.Fields {
			ok = ok && c.ref(f.Type)
		}
	case model.Union:
		for _, v := range t.Union.Variants {
			ok = ok && c.typ(v.Type)
		}
	case model.Named, model.Scalar, model.Alias, model.Defined:
		if t.Under != nil {
			ok = ok && c.ref(t.Under)
		}
		if !checkable(t.Check) {
			ok = false
		}
	}
	c.memo[t] = ok
	return ok
}

func (c *completeness) ref(r *model.Ref) bool {
	switch r.Kind {
	case model.Raw:
		return !r.Lossy
	case model.Builtin:
		return checkable(r.Check)
	case model.NamedRef:
		return r.Type.External == nil && c.typ(r.Type)
	case model.Slice, model.Map:
		return c.ref(r.Elem)
	}
	return true
}

// checkable reports whether Validate checks every constraint of a value.
func checkable(c model.Constraints) bool {
	if c.Pattern != "" && !PatternOK(c.Pattern) {
		return false
	}
	if _, ok := model.CheckedFormats[c.Format]; c.Format != "" && !ok {
		return false
	}
	return true
}

// unionComplete returns whether some variant of a union generated here is
// complete, and registers the union's per-value helper.
func (g *gen) unionComplete(comp *completeness, u *model.Type) bool {
	if u.External != nil || u.Kind != model.Union {
		return false
	}
	some := false
	for _, v := range u.Union.Variants {
		some = some || comp.typ(v.Type)
	}
	if !some {
		return false
	}
	for _, h := range g.unionHelpers {
		if h == u {
			return true
		}
	}
	g.unionHelpers = append(g.unionHelpers, u)
	return true
}

// completeValue returns, for a type that is incomplete only because of the
// variants of unions it holds, a function that decides completeness for
// one decoded value; nil when there is none.
func (g *gen) completeValue(comp *completeness, t *model.Type) jen.Code {
	if comp.typ(t) {
		return nil
	}
	switch t.Kind {
	case model.Union:
		if !g.unionComplete(comp, t) {
			return nil
		}
		return jen.Func().Params(jen.Id("v").Any()).Bool().Block(
			jen.List(jen.Id("u"), jen.Id("_")).Op(":=").Id("v").Assert(jen.Id(t.Name)),
			jen.Return(jen.Id("complete"+t.Name).Call(jen.Id("u"))))
	case model.Struct:
		if len(t.Unchecked) > 0 {
			return nil
		}
		var conds []jen.Code
		for _, f := range t.Struct.Fields {
			if f.Repr() == model.NoField || comp.ref(f.Type) {
				continue
			}
			r := resolve(f.Type)
			if r.Kind != model.NamedRef || !g.unionComplete(comp, r.Type) {
				return nil
			}
			fn := jen.Id("complete" + r.Type.Name)
			target := jen.Id("x").Dot(f.Name)
			switch f.Repr() {
			case model.Opt:
				conds = append(conds, jen.Func().Params().Bool().Block(
					jen.List(jen.Id("u"), jen.Id("ok")).Op(":=").Add(target).Dot("Get").Call(),
					jen.Return(jen.Op("!").Id("ok").Op("||").Add(fn).Call(jen.Id("u")))).Call())
			default:
				conds = append(conds, jen.Parens(target.Clone().Op("==").Nil().Op("||").Add(fn).Call(target.Clone())))
			}
		}
		if len(conds) == 0 {
			return nil
		}
		body := []jen.Code{jen.Id("x").Op(":=").Id("v").Assert(jen.Op("*").Id(t.Name))}
		var all *jen.Statement
		for _, c := range conds {
			if all == nil {
				all = jen.Add(c)
			} else {
				all = all.Op("&&").Add(c)
			}
		}
		return jen.Func().Params(jen.Id("v").Any()).Bool().Block(append(body, jen.Return(all))...)
	}
	return nil
}

// lookup emits Lookup, which maps the $id (with JSON pointer fragment) of
// every root and $defs schema to a wire.Codec for its Go type.
func (g *gen) lookup(p *model.Package) {
	comp := &completeness{memo: map[*model.Type]bool{}}
	var ids []string
	byID := map[string]*model.Type{}
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
	var cases []jen.Code
	for _, id := range ids {
		t := byID[id]
		if t.Kind == model.Alias {
			// A schema that only refers to another: the other's codec.
			target := resolve(t.Under).Type
			if target.External != nil {
				cases = append(cases, jen.Case(jen.Lit(id)).Block(jen.Return(jen.Qual(target.External.Path, "Lookup").Call(jen.Lit(target.SchemaID)))))
				continue
			}
			t = target
		}
		var dec, enc, chk jen.Code
		d := jen.Id("d").Op("*").Add(wire("Decoder"))
		if t.Kind == model.Union {
			dec = jen.Func().Params(d).Params(jen.Any(), jen.Error()).Block(jen.Return(jen.Id("Decode" + t.Name).Call(jen.Id("d"))))
			enc = jen.Func().Params(jen.Id("e").Op("*").Add(wire("Encoder")), jen.Id("v").Any()).Block(
				jen.List(jen.Id("u"), jen.Id("_")).Op(":=").Id("v").Assert(jen.Id(t.Name)),
				jen.Id("Encode"+t.Name).Call(jen.Id("e"), jen.Id("u")))
			chk = jen.Func().Params(jen.Id("c").Op("*").Add(wire("Checker")), jen.Id("p").String(), jen.Id("v").Any()).Block(
				jen.List(jen.Id("u"), jen.Id("_")).Op(":=").Id("v").Assert(jen.Id(t.Name)),
				jen.Id("Check"+t.Name).Call(jen.Id("c"), jen.Id("p"), jen.Id("u")))
		} else if t.Kind == model.Scalar && t.Under == nil {
			continue
		} else {
			dec = jen.Func().Params(d).Params(jen.Any(), jen.Error()).Block(
				jen.Id("v").Op(":=").New(jen.Id(t.Name)),
				jen.Return(jen.Id("v"), jen.Id("v").Dot("DecodeWire").Call(jen.Id("d"))))
			enc = jen.Func().Params(jen.Id("e").Op("*").Add(wire("Encoder")), jen.Id("v").Any()).Block(
				jen.Id("v").Assert(jen.Op("*").Id(t.Name)).Dot("EncodeWire").Call(jen.Id("e")))
			chk = jen.Func().Params(jen.Id("c").Op("*").Add(wire("Checker")), jen.Id("p").String(), jen.Id("v").Any()).Block(
				jen.Id("v").Assert(jen.Op("*").Id(t.Name)).Dot("CheckWire").Call(jen.Id("c"), jen.Id("p")))
		}
		dict := jen.Dict{
			jen.Id("Name"):     jen.Lit(t.Name),
			jen.Id("Decode"):   dec,
			jen.Id("Encode"):   enc,
			jen.Id("Check"):    chk,
			jen.Id("Complete"): jen.Lit(comp.typ(t)),
		}
		if cv := g.completeValue(comp, t); cv != nil {
			dict[jen.Id("CompleteValue")] = cv
		}
		cases = append(cases, jen.Case(jen.Lit(id)).Block(jen.Return(wire("Codec").Values(dict), jen.True())))
	}
	for _, u := range g.unionHelpers {
		var cs []jen.Code
		for _, v := range u.Union.Variants {
			cs = append(cs, jen.Case(variantRef(v)).Block(jen.Return(jen.Lit(comp.typ(v.Type)))))
		}
		g.f.Comment("complete" + u.Name + " reports whether Validate checks everything the schema asks of v's variant.")
		g.f.Func().Id("complete"+u.Name).Params(jen.Id("v").Id(u.Name)).Bool().Block(
			jen.Switch(jen.Id("v").Assert(jen.Type())).Block(cs...),
			jen.Return(jen.False()))
	}
	g.f.Comment("Lookup returns the codec of the Go type generated from the schema with the given $id and JSON pointer fragment (\"…/file.json#\" for a file's root, \"…#/$defs/Name\" for a definition; schemas without an $id are keyed by the fragment alone).")
	g.f.Func().Id("Lookup").Params(jen.Id("id").String()).Params(wire("Codec"), jen.Bool()).Block(
		jen.Switch(jen.Id("id")).Block(cases...),
		jen.Return(wire("Codec").Values(), jen.False()),
	)
}
