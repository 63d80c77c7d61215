package emit

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentproto/agentproto/gen/model"
)

// enumType emits an enum: a defined type over its base, a constant per
// value, Valid, the codec methods and CheckWire (a value not listed is an
// error unless the set is open).
func (g *gen) enumType(t *model.Type) error {
	e := t.Enum
	doc := t.Doc
	if e.Open {
		doc = strings.TrimSpace(doc + "\n\nThe set is open: values not listed here are valid and kept as they are.")
	}
	g.f.Add(comment(doc))
	g.f.Type().Id(t.Name).Add(goType(e.Base))
	var consts []jen.Code
	var vals []jen.Code
	var names []string
	for _, v := range e.Values {
		consts = append(consts, comment(v.Doc), jen.Id(v.Name).Id(t.Name).Op("=").Id(v.Go))
		vals = append(vals, jen.Id(v.Name))
		names = append(names, v.JSON)
	}
	g.f.Const().Defs(consts...)
	for _, u := range t.Unions {
		g.f.Func().Params(jen.Id(t.Name)).Id("is" + u.Union.Name).Params().Block()
	}
	g.f.Comment("Valid reports whether v is one of the listed values.")
	g.f.Func().Params(jen.Id("v").Id(t.Name)).Id("Valid").Params().Bool().Block(
		jen.Switch(jen.Id("v")).Block(jen.Case(vals...).Block(jen.Return(jen.True()))),
		jen.Return(jen.False()),
	)
	ret := jen.Return(jen.Err())
	if !e.Open && e.Base.Builtin != "string" && e.Base.Builtin != "bool" && e.Base.Builtin != "float64" {
		// A closed enum of integers: a number beyond the Go type is not
		// one of the values, which is what the schema blames.
		ret = jen.Return(wire("Blame").Call(wire("Blame").Call(jen.Err(), jen.Lit("minimum"), jen.Lit(enumKeyword(names))), jen.Lit("maximum"), jen.Lit(enumKeyword(names))))
	}
	g.f.Comment("DecodeWire decodes the value from d.")
	g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("DecodeWire").Params(jen.Id("d").Op("*").Add(wire("Decoder"))).Error().Block(
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("d").Dot(g.builtinDecoder(e.Base.Builtin)).Call(),
		jen.Op("*").Id("x").Op("=").Id(t.Name).Parens(jen.Id("v")),
		ret,
	)
	g.f.Comment("EncodeWire encodes the value to e.")
	g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("EncodeWire").Params(jen.Id("e").Op("*").Add(wire("Encoder"))).Block(
		g.encodeValue(e.Base, jen.Id(e.Base.Builtin).Parens(jen.Op("*").Id("x")), 0)...,
	)
	var chk []jen.Code
	if !e.Open {
		verb := "%q"
		if e.Base.Builtin != "string" {
			verb = "%d"
		}
		var failure *jen.Statement
		if strs, ok := unquoted(names); ok {
			failure = failNotOneOf(enumKeyword(names), jen.Id("p"), jen.String().Parens(jen.Op("*").Id("x")), strs)
		} else {
			failure = fail(enumKeyword(names), jen.Id("p"), jen.Lit(verb+" is not one of "+pct(strings.Join(names, ", "))), jen.Id(e.Base.Builtin).Parens(jen.Op("*").Id("x")))
		}
		chk = append(chk, jen.If(jen.Op("!").Id("x").Dot("Valid").Call()).Block(failure))
	} else if free := g.checkBuiltin(e.Base.Builtin, e.OpenCheck, jen.Id(e.Base.Builtin).Parens(jen.Op("*").Id("x"))); len(free) > 0 {
		// A value the enum does not list must meet the free
		// alternative's constraints.
		chk = append(chk, jen.If(jen.Op("!").Id("x").Dot("Valid").Call()).Block(free...))
	}
	g.f.Comment("CheckWire records in c every constraint the value breaks, under the JSON pointer p.")
	g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("CheckWire").Params(jen.Id("c").Op("*").Add(wire("Checker")), jen.Id("p").String()).Block(chk...)
	g.std(t)
	return nil
}
