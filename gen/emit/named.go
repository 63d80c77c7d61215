package emit

import (
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/agentproto/agentproto/gen/model"
	"github.com/agentproto/agentproto/internal/textsafe"
)

// namedType emits a named type over another Go type (a scalar with its
// own constraints, or the empty struct of a union's null variant), with
// its codec methods and CheckWire.
func (g *gen) namedType(t *model.Type) error {
	g.f.Add(comment(t.Doc))
	if t.Under == nil {
		// The null variant of a union.
		g.f.Type().Id(t.Name).Struct()
		for _, u := range t.Unions {
			g.f.Func().Params(jen.Id(t.Name)).Id("is" + u.Union.Name).Params().Block()
		}
		return nil
	}
	g.f.Type().Id(t.Name).Add(goType(t.Under))
	for _, u := range t.Unions {
		g.f.Func().Params(jen.Id(t.Name)).Id("is" + u.Union.Name).Params().Block()
	}
	under := goType(t.Under)
	r := *t.Under
	if !t.Check.Empty() {
		r.Check = t.Check
	}
	g.f.Comment("DecodeWire decodes the value from d.")
	dec := []jen.Code{jen.Var().Id("v").Add(under.Clone())}
	wrap := wrapFn{at: ident}
	if k := model.Resolve(&r).Kind; k == model.Slice || k == model.Map {
		// The elements recover (see wrapFn); the array or object itself
		// returns its errors to the value that holds it.
		dec = append(dec, jen.Id("start").Op(":=").Id("d").Dot("Offset").Call())
		wrap.rec = &recovery{levels: -1}
	}
	dec = append(dec, g.decodeValue(&r, jen.Id("v"), wrap, 1)...)
	dec = append(dec, jen.Op("*").Id("x").Op("=").Id(t.Name).Parens(jen.Id("v")), jen.Return(jen.Nil()))
	g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("DecodeWire").Params(jen.Id("d").Op("*").Add(wire("Decoder"))).Error().Block(dec...)
	g.f.Comment("EncodeWire encodes the value to e.")
	g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("EncodeWire").Params(jen.Id("e").Op("*").Add(wire("Encoder"))).Block(
		append([]jen.Code{jen.Id("v").Op(":=").Add(under.Clone()).Parens(jen.Op("*").Id("x"))}, g.encodeValue(t.Under, jen.Id("v"), 1)...)...,
	)
	var chk []jen.Code
	if g.needsCheck(&r) {
		chk = append(chk, jen.Id("v").Op(":=").Add(under.Clone()).Parens(jen.Op("*").Id("x")))
		chk = append(chk, g.checkValue(&r, jen.Id("v"), 1)...)
	}
	g.f.Comment("CheckWire records in c every constraint the value breaks, under the JSON pointer p.")
	g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("CheckWire").Params(jen.Id("c").Op("*").Add(wire("Checker")), jen.Id("p").String()).Block(chk...)
	g.std(t)
	if t.RawUnion != nil {
		g.rawUnion(t)
	}
	return nil
}

// rawUnion adds the accessors of a union kept as raw JSON: AsX decodes the
// bytes strictly as alternative X, FromX replaces them with X's encoding,
// and DecodeMethod decodes them as the alternative a JSON-RPC method names.
func (g *gen) rawUnion(t *model.Type) {
	var cases []jen.Code
	for _, c := range t.RawUnion.Candidates {
		typ := goType(c.Type)
		what := c.Name
		if c.Method != "" {
			what += " (the " + c.Method + " alternative)"
		}
		g.f.Commentf("As%s decodes the value strictly as %s; it does not Validate it.", c.Name, what)
		dec := append([]jen.Code{}, g.decodeValue(c.Type, jen.Id("v"), wrapFn{at: ident}, 1)...)
		dec = append(dec, jen.Return(jen.Id("d").Dot("End").Call()))
		g.f.Func().Params(jen.Id("x").Id(t.Name)).Id("As"+c.Name).Params().Params(typ.Clone(), jen.Error()).Block(
			jen.Var().Id("v").Add(typ.Clone()),
			jen.Err().Op(":=").Func().Params(jen.Id("d").Op("*").Add(wire("Decoder"))).Error().Block(dec...).Call(wire("NewDecoder").Call(jen.Index().Byte().Parens(jen.Id("x")))),
			jen.Return(jen.Id("v"), jen.Err()),
		)
		g.f.Commentf("From%s sets the value to the encoding of v.", c.Name)
		enc := []jen.Code{jen.Id("e").Op(":=").Add(wire("NewEncoder")).Call(jen.Nil())}
		enc = append(enc, g.encodeValue(c.Type, jen.Id("v"), 1)...)
		enc = append(enc,
			jen.If(jen.Err().Op(":=").Id("e").Dot("Err").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.Op("*").Id("x").Op("=").Id(t.Name).Parens(jen.Id("e").Dot("Bytes").Call()),
			jen.Return(jen.Nil()))
		g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("From" + c.Name).Params(jen.Id("v").Add(typ.Clone())).Error().Block(enc...)
		if c.Method != "" {
			cases = append(cases, jen.Case(jen.Lit(c.Method)).Block(jen.Return(jen.Id("x").Dot("As"+c.Name).Call())))
		}
	}
	if len(cases) == 0 {
		return
	}
	cases = append(cases, jen.Default().Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("no alternative of "+pct(t.Name)+" belongs to the method %q"), jen.Id("method")))))
	g.f.Comment("DecodeMethod decodes the value strictly as the alternative that belongs to a JSON-RPC method (the request's or notification's method member, or for a result the method of the request it answers); it does not Validate it.")
	g.f.Func().Params(jen.Id("x").Id(t.Name)).Id("DecodeMethod").Params(jen.Id("method").String()).Params(jen.Any(), jen.Error()).Block(
		jen.Switch(jen.Id("method")).Block(cases...))
}

// definedType emits a type defined over another struct type (type X Y), a
// union variant whose methods are the struct's; for a variant of a tagged
// union whose struct lacks the tag (OwnTag), they read and write the tag.
func (g *gen) definedType(t *model.Type) error {
	base := model.Resolve(t.Under).Type
	g.f.Add(comment(t.Doc))
	g.f.Type().Id(t.Name).Add(typeName(base))
	for _, u := range t.Unions {
		g.f.Func().Params(jen.Op("*").Id(t.Name)).Id("is" + u.Union.Name).Params().Block()
	}
	conv := jen.Parens(jen.Op("*").Add(typeName(base))).Parens(jen.Id("x"))
	if v := t.OwnTag; v != nil {
		tag, u := v.Union.Union.Tag, v.Union.Union
		want := strconv.Quote(v.Tag)
		if u.IntTag {
			want = v.Tag
		}
		g.f.Comment("DecodeWire decodes the value from d; the tag \"" + textsafe.Escape(tag) + "\", if present, must be " + textsafe.Escape(want) + ".")
		g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("DecodeWire").Params(jen.Id("d").Op("*").Add(wire("Decoder"))).Error().Block(
			jen.List(jen.Id("tag"), jen.Id("ok"), jen.Err()).Op(":=").Id("d").Dot(peekTag(u)).Call(jen.Lit(tag)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.If(jen.Id("ok").Op("&&").Id("tag").Op("!=").Lit(v.Tag)).Block(
				jen.Return(wire("At").Call(wire("ConstError").Call(jen.Id("d").Dot("Offset").Call(), jen.Lit(u.TagJSON(v.Tag))), jen.Lit(tag)))),
			jen.Id("d").Dot("SkipKey").Call(jen.Lit(tag)),
			jen.Return(conv.Clone().Dot("DecodeWire").Call(jen.Id("d"))))
		g.f.Comment("EncodeWire encodes the value to e, tag first.")
		g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("EncodeWire").Params(jen.Id("e").Op("*").Add(wire("Encoder"))).Block(
			jen.Id("e").Dot("BeginObject").Call(),
			jen.Id("e").Dot("RawKey").Call(jen.Lit(textsafe.QuoteJSON(tag)+":")),
			jen.Id("e").Dot("RawValue").Call(jen.Lit(u.TagJSON(v.Tag))),
			conv.Clone().Dot("EncodeWireFields").Call(jen.Id("e")),
			jen.Id("e").Dot("EndObject").Call())
	} else {
		g.f.Comment("DecodeWire decodes the value from d.")
		g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("DecodeWire").Params(jen.Id("d").Op("*").Add(wire("Decoder"))).Error().Block(
			jen.Return(conv.Clone().Dot("DecodeWire").Call(jen.Id("d"))))
		g.f.Comment("EncodeWire encodes the value to e.")
		g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("EncodeWire").Params(jen.Id("e").Op("*").Add(wire("Encoder"))).Block(
			conv.Clone().Dot("EncodeWire").Call(jen.Id("e")))
	}
	g.f.Comment("EncodeWireFields writes the members of the value, without braces.")
	g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("EncodeWireFields").Params(jen.Id("e").Op("*").Add(wire("Encoder"))).Block(
		conv.Clone().Dot("EncodeWireFields").Call(jen.Id("e")))
	g.f.Comment("CheckWire records in c every constraint the value breaks, under the JSON pointer p.")
	g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("CheckWire").Params(jen.Id("c").Op("*").Add(wire("Checker")), jen.Id("p").String()).Block(
		conv.Clone().Dot("CheckWire").Call(jen.Id("c"), jen.Id("p")))
	g.std(t)
	return nil
}
