package emit

import (
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentproto/agentproto/gen/model"
)

// wrapFn says what a decoding error does where it happens. The error,
// wrapped by at with the pointer tokens up to the level of the function
// that decodes, is returned; where rec is set, the statements first hand
// it to the decoder's Recover, which in a collecting decoder (see
// wire.Decoder.Collect) records it and steps over the member or element
// that failed, and decoding goes on with the next one.
//
// In decodeWireMember (found), errors are returned with true, and a
// member stepped over returns (true, nil) to the struct that embeds it.
type wrapFn struct {
	at    func(err jen.Code) jen.Code
	rec   *recovery
	found bool
}

// recovery is where a failed member or element is stepped over: levels is
// the wire.Decoder.Recover argument (how many values down from the object
// or array that began at start lies the one whose member or element
// failed), and after are the statements that keep what was decoded of it
// before the loop over the members or elements goes on.
type recovery struct {
	levels int
	after  []jen.Code
}

// plain returns errors with the pointer tokens of w, never recovering:
// for errors of the input's syntax, which stop a collecting decode too.
func (w wrapFn) plain() wrapFn { return wrapFn{at: w.at, found: w.found} }

// down is the recovery of a member or element of the array or object
// whose own errors w handles, keeping it with after.
func (w wrapFn) down(at func(err jen.Code) jen.Code, after ...jen.Code) wrapFn {
	if w.rec == nil {
		return wrapFn{at: at, found: w.found}
	}
	return wrapFn{at: at, rec: &recovery{levels: w.rec.levels + 1, after: after}, found: w.found}
}

// orNull is w for the value of a member that may also be null: a type
// error of the value says that null is allowed too (wire.OrNull).
func (w wrapFn) orNull() wrapFn {
	at := w.at
	w.at = func(err jen.Code) jen.Code { return at(wire("OrNull").Call(err)) }
	return w
}

// keeping is w with after run when it recovers.
func (w wrapFn) keeping(after ...jen.Code) wrapFn {
	if w.rec == nil {
		return w
	}
	return wrapFn{at: w.at, rec: &recovery{levels: w.rec.levels, after: after}, found: w.found}
}

// fail is what happens when err, an expression, is a non-nil error.
func (w wrapFn) fail(err jen.Code) []jen.Code {
	ret := func(err jen.Code) jen.Code {
		if w.found {
			return jen.Return(jen.True(), err)
		}
		return jen.Return(err)
	}
	if w.rec == nil || w.rec.levels < 0 {
		return []jen.Code{ret(w.at(err))}
	}
	out := []jen.Code{jen.If(jen.Err().Op(":=").Id("d").Dot("Recover").Call(w.at(err), jen.Id("start"), jen.Lit(w.rec.levels)), jen.Err().Op("!=").Nil()).Block(ret(jen.Err()))}
	out = append(out, w.rec.after...)
	if w.found && w.rec.levels == 0 {
		return append(out, jen.Return(jen.True(), jen.Nil()))
	}
	return append(out, jen.Continue())
}

// ident wraps nothing.
func ident(err jen.Code) jen.Code { return err }

func retErr(wrap wrapFn) jen.Code {
	return jen.If(jen.Err().Op("!=").Nil()).Block(wrap.fail(jen.Err())...)
}

// constFailed is what a struct's decoder does when the string member f,
// a const, holds another string v: the const fails, and when the member's
// schema asks more of a string (f.ConstCheck), a collecting decoder
// checks v for that too, as a schema validator would (see
// wire.Decoder.NoteMember).
func (g *gen) constFailed(f *model.Field, wrap wrapFn) []jen.Code {
	err := wire("ConstError").Call(jen.Id("d").Dot("Offset").Call(), jen.Lit(f.Const))
	checks := g.checkBuiltin("string", f.ConstCheck, jen.Id("v"))
	if (len(checks) == 0 && !f.ConstCheckPartial) || wrap.rec == nil {
		return wrap.fail(err)
	}
	ret := jen.Return(jen.Err())
	if wrap.found {
		ret = jen.Return(jen.True(), jen.Err())
	}
	p := jen.Id("p")
	if len(checks) == 0 {
		p = jen.Id("_")
	}
	if f.ConstCheckPartial {
		// What ConstCheck could not hold goes unchecked.
		checks = append(checks, jen.Id("c").Dot("Partial").Call())
	}
	return append([]jen.Code{
		jen.List(jen.Id("c"), p, jen.Err()).Op(":=").Id("d").Dot("NoteMember").Call(wrap.at(err), jen.Id("start")),
		jen.If(jen.Err().Op("!=").Nil()).Block(ret),
	}, checks...)
}

func (g *gen) decodeField(f *model.Field, wrap wrapFn) []jen.Code {
	target := jen.Id("x").Dot(f.Name)
	if f.Forbidden {
		return wrap.fail(jen.Op("&").Add(wire("Error")).Values(jen.Dict{
			jen.Id("Offset"):  jen.Id("d").Dot("Offset").Call(),
			jen.Id("Msg"):     jen.Lit("member \"" + f.JSON + "\" must be absent"),
			jen.Id("Code"):    wire("CodeUnknown"),
			jen.Id("Keyword"): jen.Lit("false"),
		}))
	}
	switch f.Repr() {
	case model.NoField:
		if s, err := strconv.Unquote(f.Const); err == nil && strings.HasPrefix(f.Const, `"`) {
			return []jen.Code{
				jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("d").Dot("String").Call(),
				retErr(wrap),
				jen.If(jen.Id("v").Op("!=").Lit(s)).Block(g.constFailed(f, wrap)...),
			}
		}
		differs := jen.String().Parens(jen.Id("v")).Op("!=").Lit(f.Const)
		if _, err := strconv.ParseInt(f.Const, 10, 64); err == nil {
			// An integer const holds for any form of its value (-32601.0).
			differs = jen.Op("!").Add(wire("SameInt")).Call(jen.Id("v"), jen.Lit(f.Const))
		}
		return []jen.Code{
			jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("d").Dot("Raw").Call(),
			retErr(wrap),
			jen.If(differs).Block(wrap.fail(wire("ConstError").Call(jen.Id("d").Dot("Offset").Call(), jen.Lit(f.Const)))...),
		}
	case model.Value, model.Nilable:
		inner := wrap
		if r := model.Resolve(f.Type); f.Repr() == model.Nilable && (r.Kind == model.Slice || r.Kind == model.Map) {
			// A member that failed is present, as on the wire.
			inner = wrap.keeping(jen.If(target.Clone().Op("==").Nil()).Block(target.Clone().Op("=").Add(goType(f.Type)).Values()))
		}
		if f.Nullable && !f.Type.IsRaw() {
			return []jen.Code{
				jen.List(jen.Id("isNull"), jen.Err()).Op(":=").Id("d").Dot("IsNull").Call(),
				retErr(wrap),
				jen.If(jen.Op("!").Id("isNull")).Block(g.decodeValue(f.Type, target, inner.orNull(), 0)...),
			}
		}
		return g.decodeValue(f.Type, target, inner, 0)
	case model.Pointer:
		vwrap := wrap.keeping(target.Clone().Op("=").Id("v"))
		if f.Nullable {
			vwrap = vwrap.orNull()
		}
		inner := append([]jen.Code{jen.Id("v").Op(":=").New(goType(f.Type))}, g.decodeValue(f.Type, jen.Parens(jen.Op("*").Id("v")), vwrap, 1)...)
		inner = append(inner, target.Clone().Op("=").Id("v"))
		if f.Nullable {
			return []jen.Code{
				jen.List(jen.Id("isNull"), jen.Err()).Op(":=").Id("d").Dot("IsNull").Call(),
				retErr(wrap),
				jen.If(jen.Op("!").Id("isNull")).Block(inner...),
			}
		}
		return []jen.Code{jen.Block(inner...)}
	case model.Opt:
		inner := append([]jen.Code{jen.Var().Id("v").Add(goType(f.Type))}, g.decodeValue(f.Type, jen.Id("v"), wrap.keeping(target.Clone().Op("=").Add(wire("Some")).Call(jen.Id("v"))).orNull(), 1)...)
		inner = append(inner, target.Clone().Op("=").Add(wire("Some")).Call(jen.Id("v")))
		return []jen.Code{
			jen.List(jen.Id("isNull"), jen.Err()).Op(":=").Id("d").Dot("IsNull").Call(),
			retErr(wrap),
			jen.If(jen.Id("isNull")).Block(target.Clone().Op("=").Add(wire("Null").Types(goType(f.Type))).Call()).Else().Block(inner...),
		}
	}
	return nil
}

var builtinDecoders = map[string]string{
	"string": "String", "bool": "Bool", "float64": "Float64",
	"int8": "Int8", "int16": "Int16", "int32": "Int32", "int64": "Int64",
	"uint8": "Uint8", "uint16": "Uint16", "uint32": "Uint32", "uint64": "Uint64",
}

// builtinDecoder is the wire.Decoder method that reads a builtin: with serde
// integers, the readers that take integer literals only.
func (g *gen) builtinDecoder(b string) string {
	m := builtinDecoders[b]
	if g.serdeInts && (strings.HasPrefix(b, "int") || strings.HasPrefix(b, "uint")) {
		m += "Serde"
	}
	return m
}

// decodeValue decodes the next value into target (an addressable
// expression of the Go type of r).
func (g *gen) decodeValue(r *model.Ref, target *jen.Statement, wrap wrapFn, depth int) []jen.Code {
	r = model.Resolve(r)
	v := "v" + strconv.Itoa(depth)
	switch r.Kind {
	case model.Builtin:
		return []jen.Code{jen.Block(
			jen.List(jen.Id(v), jen.Err()).Op(":=").Id("d").Dot(g.builtinDecoder(r.Builtin)).Call(),
			retErr(blameAs(r.Builtin, r.Check, wrap)),
			target.Clone().Op("=").Id(v),
		)}
	case model.Raw:
		return []jen.Code{jen.Block(
			jen.List(jen.Id(v), jen.Err()).Op(":=").Add(wire("DecodeRaw")).Call(jen.Id("d")),
			retErr(wrap),
			target.Clone().Op("=").Id(v),
		)}
	case model.NamedRef:
		if r.Type.Kind == model.Union {
			return []jen.Code{jen.Block(
				jen.List(jen.Id(v), jen.Err()).Op(":=").Add(fn("Decode", r.Type)).Call(jen.Id("d")),
				retErr(wrap),
				target.Clone().Op("=").Id(v),
			)}
		}
		return []jen.Code{jen.If(jen.Err().Op(":=").Add(target.Clone()).Dot("DecodeWire").Call(jen.Id("d")), jen.Err().Op("!=").Nil()).Block(wrap.fail(jen.Err())...)}
	case model.Slice:
		s, i, e := "s"+strconv.Itoa(depth), "i"+strconv.Itoa(depth), "e"+strconv.Itoa(depth)
		keep := jen.Id(s).Op("=").Append(jen.Id(s), jen.Id(e))
		inner := wrap.down(func(err jen.Code) jen.Code { return wrap.at(wire("AtIndex").Call(err, jen.Id(i))) }, keep)
		elem := g.decodeElem(r, e, inner, depth)
		elem = append(elem, jen.Id(s).Op("=").Append(jen.Id(s), jen.Id(e)))
		loop := []jen.Code{
			jen.List(jen.Id("more"), jen.Err()).Op(":=").Id("d").Dot("NextElem").Call(),
			retErr(wrap.plain()),
			jen.If(jen.Op("!").Id("more")).Block(jen.Break()),
		}
		loop = append(loop, elem...)
		return []jen.Code{jen.Block(
			jen.If(jen.Err().Op(":=").Id("d").Dot("BeginArray").Call(), jen.Err().Op("!=").Nil()).Block(wrap.fail(jen.Err())...),
			jen.Id(s).Op(":=").Make(goType(r), jen.Lit(0)),
			jen.For(jen.Id(i).Op(":=").Lit(0), jen.Empty(), jen.Id(i).Op("++")).Block(loop...),
			target.Clone().Op("=").Id(s),
		)}
	case model.Map:
		m, k, e := "m"+strconv.Itoa(depth), "k"+strconv.Itoa(depth), "e"+strconv.Itoa(depth)
		keep := jen.Id(m).Index(jen.Id(k)).Op("=").Id(e)
		inner := wrap.down(func(err jen.Code) jen.Code { return wrap.at(wire("At").Call(err, jen.Id(k))) }, keep)
		elem := g.decodeElem(r, e, inner, depth)
		elem = append(elem, jen.Id(m).Index(jen.Id(k)).Op("=").Id(e))
		loop := []jen.Code{
			jen.List(jen.Id("key"), jen.Id("more"), jen.Err()).Op(":=").Id("d").Dot("NextKey").Call(),
			retErr(wrap.plain()),
			jen.If(jen.Op("!").Id("more")).Block(jen.Break()),
			jen.Id(k).Op(":=").String().Parens(jen.Id("key")),
			jen.If(jen.List(jen.Id("_"), jen.Id("dup")).Op(":=").Id(m).Index(jen.Id(k)), jen.Id("dup")).Block(
				wrap.plain().fail(wire("DuplicateError").Call(jen.Id("d").Dot("Offset").Call(), jen.Id(k)))...),
		}
		loop = append(loop, elem...)
		return []jen.Code{jen.Block(
			jen.If(jen.Err().Op(":=").Id("d").Dot("BeginObject").Call(), jen.Err().Op("!=").Nil()).Block(wrap.fail(jen.Err())...),
			jen.Id(m).Op(":=").Make(goType(r)),
			jen.For().Block(loop...),
			target.Clone().Op("=").Id(m),
		)}
	}
	return nil
}

// decodeElem declares the variable e and decodes the next element of a
// slice or map into it (a pointer, nil for null, when elements may be
// null).
func (g *gen) decodeElem(r *model.Ref, e string, wrap wrapFn, depth int) []jen.Code {
	if !r.ElemNullable {
		return append([]jen.Code{jen.Var().Id(e).Add(goType(r.Elem))}, g.decodeValue(r.Elem, jen.Id(e), wrap, depth+1)...)
	}
	decode := append([]jen.Code{jen.Id(e).Op("=").New(goType(r.Elem))}, g.decodeValue(r.Elem, jen.Parens(jen.Op("*").Id(e)), wrap, depth+1)...)
	return []jen.Code{
		jen.Var().Id(e).Op("*").Add(goType(r.Elem)),
		jen.List(jen.Id("isNull"), jen.Err()).Op(":=").Id("d").Dot("IsNull").Call(),
		retErr(wrap),
		jen.If(jen.Op("!").Id("isNull")).Block(decode...),
	}
}

func (g *gen) encodeField(f *model.Field) []jen.Code {
	target := jen.Id("x").Dot(f.Name)
	if f.Forbidden {
		return nil
	}
	switch f.Repr() {
	case model.NoField:
		return []jen.Code{key(f), jen.Id("e").Dot("RawValue").Call(jen.Lit(f.Const))}
	case model.Value:
		return append([]jen.Code{key(f)}, g.encodeValue(f.Type, target, 0)...)
	case model.Nilable:
		if f.Required {
			// nil is null (or, for a slice or map, empty) on the wire.
			if f.Nullable && !f.Type.IsRaw() {
				return []jen.Code{key(f), jen.If(target.Clone().Op("==").Nil()).Block(jen.Id("e").Dot("Null").Call()).Else().Block(g.encodeValue(f.Type, target, 0)...)}
			}
			return append([]jen.Code{key(f)}, g.encodeValue(f.Type, target, 0)...)
		}
		return []jen.Code{jen.If(target.Clone().Op("!=").Nil()).Block(append([]jen.Code{key(f)}, g.encodeValue(f.Type, target, 0)...)...)}
	case model.Pointer:
		if f.Required {
			return []jen.Code{key(f), jen.If(target.Clone().Op("==").Nil()).Block(jen.Id("e").Dot("Null").Call()).Else().Block(g.encodeValue(f.Type, jen.Parens(jen.Op("*").Add(target.Clone())), 0)...)}
		}
		return []jen.Code{jen.If(target.Clone().Op("!=").Nil()).Block(append([]jen.Code{key(f)}, g.encodeValue(f.Type, jen.Parens(jen.Op("*").Add(target.Clone())), 0)...)...)}
	case model.Opt:
		return []jen.Code{jen.If(jen.Op("!").Add(target.Clone()).Dot("IsAbsent").Call()).Block(
			key(f),
			jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Add(target.Clone()).Dot("Get").Call(), jen.Id("ok")).Block(
				g.encodeValue(f.Type, jen.Id("v"), 1)...,
			).Else().Block(jen.Id("e").Dot("Null").Call()),
		)}
	}
	return nil
}

func isSigned(b string) bool { return strings.HasPrefix(b, "int") }

// encodeValue writes expr, an addressable expression of the Go type of r.
func (g *gen) encodeValue(r *model.Ref, expr *jen.Statement, depth int) []jen.Code {
	r = model.Resolve(r)
	switch r.Kind {
	case model.Builtin:
		switch b := r.Builtin; {
		case b == "string":
			return []jen.Code{jen.Id("e").Dot("String").Call(expr)}
		case b == "bool":
			return []jen.Code{jen.Id("e").Dot("Bool").Call(expr)}
		case b == "float64" && g.serde:
			return []jen.Code{jen.Id("e").Dot("Float64Serde").Call(expr)}
		case b == "float64":
			return []jen.Code{jen.Id("e").Dot("Float64").Call(expr)}
		case isSigned(b):
			return []jen.Code{jen.Id("e").Dot("Int64").Call(jen.Int64().Parens(expr))}
		default:
			return []jen.Code{jen.Id("e").Dot("Uint64").Call(jen.Uint64().Parens(expr))}
		}
	case model.Raw:
		return []jen.Code{jen.Id("e").Dot("Raw").Call(expr)}
	case model.NamedRef:
		if r.Type.Kind == model.Union {
			return []jen.Code{fn("Encode", r.Type).Call(jen.Id("e"), expr)}
		}
		return []jen.Code{expr.Clone().Dot("EncodeWire").Call(jen.Id("e"))}
	case model.Slice:
		i := "i" + strconv.Itoa(depth)
		var elem []jen.Code
		item := expr.Clone().Index(jen.Id(i))
		if r.ElemNullable {
			elem = []jen.Code{jen.If(item.Clone().Op("==").Nil()).Block(jen.Id("e").Dot("Null").Call()).Else().Block(g.encodeValue(r.Elem, jen.Parens(jen.Op("*").Add(item.Clone())), depth+1)...)}
		} else {
			elem = g.encodeValue(r.Elem, item, depth+1)
		}
		return []jen.Code{
			jen.Id("e").Dot("BeginArray").Call(),
			jen.For(jen.Id(i).Op(":=").Range().Add(expr.Clone())).Block(elem...),
			jen.Id("e").Dot("EndArray").Call(),
		}
	case model.Map:
		k, v := "k"+strconv.Itoa(depth), "v"+strconv.Itoa(depth)
		var elem []jen.Code
		if r.ElemNullable {
			elem = []jen.Code{jen.If(jen.Id(v).Op("==").Nil()).Block(jen.Id("e").Dot("Null").Call()).Else().Block(g.encodeValue(r.Elem, jen.Parens(jen.Op("*").Id(v)), depth+1)...)}
		} else {
			elem = g.encodeValue(r.Elem, jen.Id(v), depth+1)
		}
		return []jen.Code{
			jen.Id("e").Dot("BeginObject").Call(),
			jen.For(jen.List(jen.Id("_"), jen.Id(k)).Op(":=").Range().Add(wire("SortedKeys")).Call(expr)).Block(
				append([]jen.Code{jen.Id("e").Dot("Key").Call(jen.Id(k)), jen.Id(v).Op(":=").Add(expr.Clone()).Index(jen.Id(k))}, elem...)...,
			),
			jen.Id("e").Dot("EndObject").Call(),
		}
	}
	return nil
}

// blameAs wraps the decoding errors of a builtin value with the keywords
// the schema blames them on (see wire.Blame): an integer beyond its Go
// type on exclusiveMinimum or exclusiveMaximum, when that is the bound the
// type was chosen for. (A value of the wrong type where the schema lists
// the values is blamed on type when the schema names one, and on enum or
// const when not; the model does not say which, so it stays type.)
func blameAs(b string, c model.Constraints, wrap wrapFn) wrapFn {
	type rename struct{ from, to string }
	var renames []rename
	if b != "string" && b != "bool" && b != "float64" {
		lo, hi := model.Bound(c.Minimum, c.ExclusiveMinimum, 1), model.Bound(c.Maximum, c.ExclusiveMaximum, -1)
		if k := boundKeyword(c.Minimum, c.ExclusiveMinimum, lo, 1); k != "minimum" {
			renames = append(renames, rename{"minimum", k})
		}
		if k := boundKeyword(c.Maximum, c.ExclusiveMaximum, hi, -1); k != "maximum" {
			renames = append(renames, rename{"maximum", k})
		}
	}
	if len(renames) == 0 {
		return wrap
	}
	return wrapFn{at: func(err jen.Code) jen.Code {
		for _, r := range renames {
			err = wire("Blame").Call(err, jen.Lit(r.from), jen.Lit(r.to))
		}
		return wrap.at(err)
	}, rec: wrap.rec}
}
