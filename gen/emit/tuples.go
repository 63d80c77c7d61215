package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentproto/agentproto/gen/model"
)

// tupleType emits a struct that stands for a JSON array of fixed
// positions: a field per position, and Rest for the elements after them.
func (g *gen) tupleType(t *model.Type) error {
	n := len(t.Struct.Fields)
	if t.Struct.Rest != nil {
		n--
	}
	g.tupleDecl(t, n)
	g.tupleDecode(t, n)
	g.tupleEncoder(t, n)
	g.tupleCheck(t, n)
	g.std(t)
	return nil
}

// tupleDecl emits the struct of the tuple t, of n positions, with a doc
// comment that says how its fields map to the array, and the marker
// methods of the unions it is a variant of.
func (g *gen) tupleDecl(t *model.Type, n int) {
	st := t.Struct
	var fields []jen.Code
	for _, f := range st.Fields {
		fields = append(fields, comment(f.Doc), jen.Id(f.Name).Add(fieldType(f)))
	}
	doc := strings.TrimSpace(t.Doc + "\n\nIt is a JSON array: each field is the element at its position")
	if st.MinItems < n {
		doc += fmt.Sprintf("; the first %d are required, and a nil field after them ends the array", st.MinItems)
	}
	switch {
	case st.Rest != nil:
		doc += "; Rest holds the elements after them."
	case st.NoRest:
		doc += "; no element may follow them."
	default:
		doc += "."
	}
	g.f.Add(comment(doc))
	g.f.Type().Id(t.Name).Struct(fields...)
	for _, v := range t.Unions {
		g.f.Func().Params(jen.Op("*").Id(t.Name)).Id("is" + v.Union.Name).Params().Block()
	}
}

// tupleDecode emits DecodeWire of the tuple t: a switch on the position,
// a case per field and a default for the elements after them.
func (g *gen) tupleDecode(t *model.Type, n int) {
	st := t.Struct
	var cases []jen.Code
	for i, f := range st.Fields[:n] {
		cases = append(cases, jen.Case(jen.Lit(i)).Block(g.tupleDecodeField(f)...))
	}
	switch {
	case st.Rest != nil:
		cases = append(cases, jen.Default().Block(g.tupleDecodeRest(st.Rest.Type)...))
	case st.NoRest:
		cases = append(cases, jen.Default().Block(tupleNoMore(st, n)...))
	default:
		cases = append(cases, jen.Default().Block(jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(wire("DecodeRaw")).Call(jen.Id("d")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(wire("AtIndex").Call(jen.Err(), jen.Id("i"))))))
	}
	g.f.Comment("DecodeWire decodes the value from d.")
	g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("DecodeWire").Params(jen.Id("d").Op("*").Add(wire("Decoder"))).Error().Block(
		jen.Id("start").Op(":=").Id("d").Dot("Offset").Call(),
		jen.Op("*").Id("x").Op("=").Id(t.Name).Values(),
		jen.If(jen.Err().Op(":=").Id("d").Dot("BeginArray").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.For(jen.Id("i").Op(":=").Lit(0), jen.Empty(), jen.Id("i").Op("++")).Block(
			jen.List(jen.Id("more"), jen.Err()).Op(":=").Id("d").Dot("NextElem").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.If(jen.Op("!").Id("more")).Block(tupleShort(st, n), jen.Id("_").Op("=").Id("start"), jen.Return(jen.Nil())),
			jen.Switch(jen.Id("i")).Block(cases...),
		),
	)
}

// tupleDecodeField decodes the element at the position of the field f.
func (g *gen) tupleDecodeField(f *model.Field) []jen.Code {
	wrap := wrapFn{at: func(err jen.Code) jen.Code { return wire("AtIndex").Call(err, jen.Id("i")) }, rec: &recovery{}}
	target := jen.Id("x").Dot(f.Name)
	if f.Repr() != model.Pointer {
		return g.decodeValue(f.Type, target, wrap, 1)
	}
	body := append([]jen.Code{jen.Id("v").Op(":=").New(goType(f.Type))}, g.decodeValue(f.Type, jen.Parens(jen.Op("*").Id("v")), wrap.keeping(target.Clone().Op("=").Id("v")), 1)...)
	return append(body, target.Clone().Op("=").Id("v"))
}

// tupleDecodeRest decodes an element after the positions into Rest, of
// type r.
func (g *gen) tupleDecodeRest(r *model.Ref) []jen.Code {
	keep := jen.Id("x").Dot("Rest").Op("=").Append(jen.Id("x").Dot("Rest"), jen.Id("e"))
	wrap := wrapFn{at: func(err jen.Code) jen.Code { return wire("AtIndex").Call(err, jen.Id("i")) }, rec: &recovery{after: []jen.Code{keep}}}
	var body []jen.Code
	if r.ElemNullable {
		body = []jen.Code{
			jen.Var().Id("e").Op("*").Add(goType(r.Elem)),
			jen.List(jen.Id("isNull"), jen.Err()).Op(":=").Id("d").Dot("IsNull").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(wrap.fail(jen.Err())...),
			jen.If(jen.Op("!").Id("isNull")).Block(append([]jen.Code{jen.Id("e").Op("=").New(goType(r.Elem))}, g.decodeValue(r.Elem, jen.Parens(jen.Op("*").Id("e")), wrap, 1)...)...),
		}
	} else {
		body = append([]jen.Code{jen.Var().Id("e").Add(goType(r.Elem))}, g.decodeValue(r.Elem, jen.Id("e"), wrap, 1)...)
	}
	return append(body, jen.Id("x").Dot("Rest").Op("=").Append(jen.Id("x").Dot("Rest"), jen.Id("e")))
}

// tupleNoMore fails on an element after the n positions of a tuple that
// allows none. items: false fails at the element; maxItems and draft-07's
// additionalItems at the array.
func tupleNoMore(st *model.StructType, n int) []jen.Code {
	at := jen.Dict{
		jen.Id("Offset"):  jen.Id("d").Dot("Offset").Call(),
		jen.Id("Msg"):     jen.Lit(fmt.Sprintf("the array has more than %d items", n)),
		jen.Id("Code"):    wire("CodeUnknown"),
		jen.Id("Keyword"): jen.Lit(st.NoRestKeyword),
	}
	if st.NoRestKeyword == "false" {
		at[jen.Id("Pointer")] = wire("JoinIndex").Call(jen.Lit(""), jen.Id("i"))
	}
	fail := wrapFn{at: ident, rec: &recovery{}}.fail(jen.Op("&").Add(wire("Error")).Values(at))
	if st.NoRestKeyword != "false" {
		// One error for the array: a collecting decode steps over
		// the elements after the first one too many.
		fail = append([]jen.Code{jen.If(jen.Id("i").Op(">").Lit(n)).Block(
			jen.If(jen.Err().Op(":=").Id("d").Dot("Skip").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.Continue())}, fail...)
	}
	return fail
}

// tupleShort fails an array that ends before the tuple's required
// positions, of n in all.
func tupleShort(st *model.StructType, n int) jen.Code {
	if st.MinItems <= 0 {
		return jen.Null()
	}
	return jen.If(jen.Id("i").Op("<").Lit(st.MinItems)).Block(jen.Return(jen.Id("d").Dot("Short").Call(jen.Op("&").Add(wire("Error")).Values(jen.Dict{
		jen.Id("Offset"):  jen.Id("start"),
		jen.Id("Msg"):     jen.Lit(fmt.Sprintf("the array has fewer than %d items", st.MinItems)),
		jen.Id("Code"):    wire("CodeRequired"),
		jen.Id("Keyword"): jen.Lit("minItems"),
	}), jen.Id("start"), jen.Id("i"), jen.Lit(n))))
}

// tupleEncoder emits EncodeWire of the tuple t: the positions up to the
// first absent one, then Rest.
func (g *gen) tupleEncoder(t *model.Type, n int) {
	enc := []jen.Code{jen.Id("e").Dot("BeginArray").Call()}
	enc = append(enc, g.tupleEncode(t.Struct, n)...)
	enc = append(enc, jen.Id("e").Dot("EndArray").Call())
	g.f.Comment("EncodeWire encodes the value to e.")
	g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("EncodeWire").Params(jen.Id("e").Op("*").Add(wire("Encoder"))).Block(enc...)
}

// tupleCheck emits CheckWire of the tuple t: each field's checks, no set
// field after an absent one, and the checks of Rest's elements.
func (g *gen) tupleCheck(t *model.Type, n int) {
	st := t.Struct
	var chk []jen.Code
	for _, f := range st.Fields {
		if f == st.Rest {
			continue
		}
		chk = append(chk, g.checkField(f)...)
	}
	for i := st.MinItems; i < n; i++ {
		chk = append(chk, tupleGap(st, i)...)
	}
	if st.Rest != nil && g.needsCheck(st.Rest.Type.Elem) {
		r := st.Rest.Type
		var elem []jen.Code
		if r.ElemNullable {
			elem = []jen.Code{jen.If(jen.Id("v").Op("!=").Nil()).Block(g.checkValue(r.Elem, jen.Parens(jen.Op("*").Id("v")), 1)...)}
		} else {
			elem = g.checkValue(r.Elem, jen.Id("x").Dot("Rest").Index(jen.Id("j")), 1)
		}
		chk = append(chk, jen.For(jen.List(jen.Id("j"), jen.Id("v")).Op(":=").Range().Id("x").Dot("Rest")).Block(
			append([]jen.Code{jen.Id("_").Op("=").Id("v"), jen.Id("p").Op(":=").Id("c").Dot("JoinIndex").Call(jen.Id("p"), jen.Lit(n).Op("+").Id("j"))}, elem...)...))
	}
	g.f.Comment("CheckWire records in c every constraint the value breaks, under the JSON pointer p.")
	g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("CheckWire").Params(jen.Id("c").Op("*").Add(wire("Checker")), jen.Id("p").String()).Block(chk...)
}

// tupleGap checks that, when the optional position i is absent, no
// position after it is set: an absent position ends the array.
func tupleGap(st *model.StructType, i int) []jen.Code {
	f := st.Fields[i]
	var later *jen.Statement
	for _, h := range st.Fields[i+1:] {
		c := jen.Id("x").Dot(h.Name).Op("!=").Nil()
		if h == st.Rest {
			c = jen.Len(jen.Id("x").Dot("Rest")).Op(">").Lit(0)
		}
		if later == nil {
			later = c
		} else {
			later = later.Op("||").Add(c)
		}
	}
	if later == nil {
		return nil
	}
	return []jen.Code{jen.If(jen.Id("x").Dot(f.Name).Op("==").Nil().Op("&&").Parens(later)).Block(
		fail("items", jen.Id("c").Dot("Join").Call(jen.Id("p"), jen.Lit(f.JSON)), jen.Lit("is absent, but an element after it is set")))}
}

// tupleEncode writes the positions of a tuple in order, stopping at the
// first absent optional one, then its Rest elements.
func (g *gen) tupleEncode(st *model.StructType, n int) []jen.Code {
	// Built from the end: each optional position guards what follows it.
	var rest []jen.Code
	if st.Rest != nil {
		r := st.Rest.Type
		var elem []jen.Code
		if r.ElemNullable {
			elem = []jen.Code{jen.If(jen.Id("v").Op("==").Nil()).Block(jen.Id("e").Dot("Null").Call()).Else().Block(g.encodeValue(r.Elem, jen.Parens(jen.Op("*").Id("v")), 2)...)}
		} else {
			elem = g.encodeValue(r.Elem, jen.Id("v"), 2)
		}
		rest = []jen.Code{jen.For(jen.List(jen.Id("_"), jen.Id("v")).Op(":=").Range().Id("x").Dot("Rest")).Block(elem...)}
	}
	following := rest
	for i := n - 1; i >= 0; i-- {
		f := st.Fields[i]
		target := jen.Id("x").Dot(f.Name)
		var write []jen.Code
		switch f.Repr() {
		case model.Pointer:
			write = g.encodeValue(f.Type, jen.Parens(jen.Op("*").Add(target.Clone())), 1)
			if f.Required {
				write = []jen.Code{jen.If(target.Clone().Op("==").Nil()).Block(jen.Id("e").Dot("Null").Call()).Else().Block(write...)}
			}
		default:
			write = g.encodeValue(f.Type, target, 1)
		}
		if f.Required || (f.Repr() != model.Pointer && f.Repr() != model.Nilable) {
			following = append(write, following...)
			continue
		}
		following = []jen.Code{jen.If(target.Clone().Op("!=").Nil()).Block(append(write, following...)...)}
	}
	return following
}
