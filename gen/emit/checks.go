package emit

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentproto/agentproto/gen/model"
)

// needsCheck reports whether Validate has anything to check in a value.
func (g *gen) needsCheck(r *model.Ref) bool {
	r = model.Resolve(r)
	switch r.Kind {
	case model.Builtin:
		return len(g.checkBuiltin(r.Builtin, r.Check, jen.Id("v"))) > 0
	case model.NamedRef:
		// A named type over a builtin checks what namedType gives its
		// CheckWire: its value's constraints, often none (an id type),
		// and then neither its CheckWire nor its pointer is worth a
		// call. Any other named type is asked.
		if t := r.Type; t.External == nil && (t.Kind == model.Named || t.Kind == model.Scalar) && t.Under != nil && t.Under.Kind == model.Builtin {
			u := *t.Under
			if !t.Check.Empty() {
				u.Check = t.Check
			}
			return g.needsCheck(&u)
		}
		return true
	case model.Raw:
		return len(r.Check.RawKinds) > 0
	case model.Slice:
		return len(checkCount(r.Check.MinItems, r.Check.MaxItems, jen.Id("v"), "items")) > 0 || r.Check.UniqueItems || r.Check.UniqueJSON || g.needsCheck(r.Elem)
	case model.Map:
		return len(checkCount(r.Check.MinProps, r.Check.MaxProps, jen.Id("v"), "members")) > 0 || len(g.checkMapNames(r.Check.Names, jen.Id("v"), 0)) > 0 || g.needsCheck(r.Elem)
	}
	return false
}

func (g *gen) checkField(f *model.Field) []jen.Code {
	target := jen.Id("x").Dot(f.Name)
	ptr := jen.Id("c").Dot("Join").Call(jen.Id("p"), jen.Lit(f.JSON))
	switch f.Repr() {
	case model.NoField:
		return nil
	case model.Value:
		if r := model.Resolve(f.Type); r.Kind == model.NamedRef && r.Type.Kind == model.Union {
			// A required union held by value is an interface: nil would be
			// written as null, which no variant is.
			return []jen.Code{jen.If(target.Clone().Op("==").Nil()).Block(
				fail("type", ptr, jen.Lit("a value is required"))).Else().Block(
				append([]jen.Code{jen.Id("p").Op(":=").Add(ptr.Clone())}, g.checkValue(f.Type, target, 0)...)...)}
		}
		if !g.needsCheck(f.Type) {
			return nil
		}
		return []jen.Code{jen.Block(append([]jen.Code{jen.Id("p").Op(":=").Add(ptr)}, g.checkValue(f.Type, target, 0)...)...)}
	case model.Nilable:
		r := model.Resolve(f.Type)
		var out []jen.Code
		if f.Required && !f.Nullable && r.Kind == model.NamedRef && r.Type.Kind == model.Union {
			out = append(out, jen.If(target.Clone().Op("==").Nil()).Block(
				fail("type", ptr, jen.Lit("a value is required"))))
		}
		if !g.needsCheck(f.Type) {
			return out
		}
		cond := target.Clone().Op("!=").Nil()
		if f.Nullable && f.Type.IsRaw() {
			// Raw JSON keeps a null as the bytes "null", which is allowed.
			cond = cond.Op("&&").String().Parens(target.Clone()).Op("!=").Lit("null")
		}
		return append(out, jen.If(cond).Block(append([]jen.Code{jen.Id("p").Op(":=").Add(ptr)}, g.checkValue(f.Type, target, 0)...)...))
	case model.Pointer:
		var out []jen.Code
		if f.Required && !f.Nullable {
			// A required member held by pointer (it closes a cycle of
			// required members): nil would be written as null.
			out = append(out, jen.If(target.Clone().Op("==").Nil()).Block(
				fail("type", ptr, jen.Lit("a value is required"))))
		}
		if !g.needsCheck(f.Type) {
			return out
		}
		return append(out, jen.If(target.Clone().Op("!=").Nil()).Block(append([]jen.Code{jen.Id("p").Op(":=").Add(ptr)}, g.checkValue(f.Type, jen.Parens(jen.Op("*").Add(target.Clone())), 0)...)...))
	case model.Opt:
		if !g.needsCheck(f.Type) {
			return nil
		}
		return []jen.Code{jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Add(target.Clone()).Dot("Get").Call(), jen.Id("ok")).Block(
			append([]jen.Code{jen.Id("p").Op(":=").Add(ptr)}, g.checkValue(f.Type, jen.Id("v"), 1)...)...)}
	}
	return nil
}

// checkValue checks expr, addressable, under the pointer variable p.
func (g *gen) checkValue(r *model.Ref, expr *jen.Statement, depth int) []jen.Code {
	r = model.Resolve(r)
	switch r.Kind {
	case model.Builtin:
		return g.checkBuiltin(r.Builtin, r.Check, expr)
	case model.NamedRef:
		if r.Type.Kind == model.Union {
			return []jen.Code{fn("Check", r.Type).Call(jen.Id("c"), jen.Id("p"), expr)}
		}
		return []jen.Code{expr.Clone().Dot("CheckWire").Call(jen.Id("c"), jen.Id("p"))}
	case model.Raw:
		if len(r.Check.RawKinds) == 0 {
			return nil
		}
		var kinds []jen.Code
		kinds = append(kinds, expr.Clone())
		for _, k := range r.Check.RawKinds {
			kinds = append(kinds, jen.Lit(k))
		}
		return []jen.Code{jen.If(jen.Op("!").Add(wire("RawIs")).Call(kinds...)).Block(
			fail("type", jen.Id("p"), jen.Lit("wrong type: want "+strings.Join(r.Check.RawKinds, " or "))))}
	case model.Slice:
		out := checkCount(r.Check.MinItems, r.Check.MaxItems, expr, "items")
		// In a collecting check, an array some of whose elements did not
		// decode is compared as it is in the input (see RawItems).
		rawUnique := func() *jen.Statement {
			return jen.If(jen.List(jen.Id("raws"), jen.Id("ok")).Op(":=").Id("c").Dot("RawItems").Call(jen.Id("p")), jen.Id("ok")).Block(
				jen.If(jen.List(jen.Id("i"), jen.Id("j"), jen.Id("dup")).Op(":=").Qual(CheckPath, "UniqueJSON").Call(jen.Len(jen.Id("raws")),
					jen.Func().Params(jen.Id("k").Int()).Index().Byte().Block(jen.Return(jen.Id("raws").Index(jen.Id("k"))))), jen.Id("dup")).Block(
					fail("uniqueItems", jen.Id("p"), jen.Lit("items %d and %d are equal, want unique items"), jen.Id("i"), jen.Id("j"))))
		}
		if r.Check.UniqueItems && !r.ElemNullable {
			out = append(out, rawUnique().Else().If(jen.List(jen.Id("i"), jen.Id("j"), jen.Id("dup")).Op(":=").Qual(CheckPath, "Unique").Call(expr.Clone()), jen.Id("dup")).Block(
				fail("uniqueItems", jen.Id("p"), jen.Lit("items %d and %d are equal, want unique items"), jen.Id("i"), jen.Id("j"))))
		}
		if r.Check.UniqueJSON || r.Check.UniqueItems && r.ElemNullable {
			k := "k" + strconv.Itoa(depth)
			item := expr.Clone().Index(jen.Id(k))
			var enc []jen.Code
			if r.ElemNullable {
				enc = []jen.Code{jen.If(item.Clone().Op("==").Nil()).Block(jen.Id("e").Dot("Null").Call()).Else().Block(g.encodeValue(r.Elem, jen.Parens(jen.Op("*").Add(item.Clone())), depth+1)...)}
			} else {
				enc = g.encodeValue(r.Elem, item, depth+1)
			}
			encode := jen.Func().Params(jen.Id(k).Int()).Index().Byte().Block(append(append(
				[]jen.Code{jen.Id("e").Op(":=").Add(wire("NewEncoder")).Call(jen.Nil())}, enc...),
				jen.Return(jen.Id("e").Dot("Bytes").Call()))...)
			out = append(out, rawUnique().Else().If(jen.List(jen.Id("i"), jen.Id("j"), jen.Id("dup")).Op(":=").Qual(CheckPath, "UniqueJSON").Call(jen.Len(expr.Clone()), encode), jen.Id("dup")).Block(
				fail("uniqueItems", jen.Id("p"), jen.Lit("items %d and %d are equal, want unique items"), jen.Id("i"), jen.Id("j"))))
		}
		if g.needsCheck(r.Elem) {
			i := "i" + strconv.Itoa(depth)
			item := expr.Clone().Index(jen.Id(i))
			var inner []jen.Code
			if r.ElemNullable {
				inner = []jen.Code{jen.If(item.Clone().Op("!=").Nil()).Block(append([]jen.Code{jen.Id("p").Op(":=").Add(jen.Id("c").Dot("JoinIndex")).Call(jen.Id("p"), jen.Id(i))}, g.checkValue(r.Elem, jen.Parens(jen.Op("*").Add(item.Clone())), depth+1)...)...)}
			} else {
				inner = append([]jen.Code{jen.Id("p").Op(":=").Add(jen.Id("c").Dot("JoinIndex")).Call(jen.Id("p"), jen.Id(i))}, g.checkValue(r.Elem, item, depth+1)...)
			}
			out = append(out, jen.For(jen.Id(i).Op(":=").Range().Add(expr.Clone())).Block(inner...))
		}
		return out
	case model.Map:
		out := checkCount(r.Check.MinProps, r.Check.MaxProps, expr, "members")
		out = append(out, g.checkMapNames(r.Check.Names, expr, depth)...)
		if g.needsCheck(r.Elem) {
			k, v := "k"+strconv.Itoa(depth), "v"+strconv.Itoa(depth)
			var inner []jen.Code
			inner = append(inner, jen.Id(v).Op(":=").Add(expr.Clone()).Index(jen.Id(k)))
			if r.ElemNullable {
				inner = append(inner, jen.If(jen.Id(v).Op("!=").Nil()).Block(append([]jen.Code{jen.Id("p").Op(":=").Add(jen.Id("c").Dot("Join")).Call(jen.Id("p"), jen.Id(k))}, g.checkValue(r.Elem, jen.Parens(jen.Op("*").Id(v)), depth+1)...)...))
			} else {
				inner = append(inner, jen.Id("p").Op(":=").Add(jen.Id("c").Dot("Join")).Call(jen.Id("p"), jen.Id(k)))
				inner = append(inner, g.checkValue(r.Elem, jen.Id(v), depth+1)...)
			}
			out = append(out, jen.For(jen.List(jen.Id("_"), jen.Id(k)).Op(":=").Range().Add(wire("SortedKeys")).Call(expr)).Block(inner...))
		}
		return out
	}
	return nil
}

// checkMapNames checks the name of every member of the map expr against
// propertyNames (names), as nameCheck does.
func (g *gen) checkMapNames(names *model.Constraints, expr *jen.Statement, depth int) []jen.Code {
	if names == nil {
		return nil
	}
	k := "n" + strconv.Itoa(depth)
	inner := g.checkBuiltin("string", *names, jen.Id(k))
	if len(inner) == 0 {
		return nil
	}
	return []jen.Code{jen.For(jen.List(jen.Id("_"), jen.Id(k)).Op(":=").Range().Add(wire("SortedKeys")).Call(expr.Clone())).Block(
		nameCheck(inner, jen.Id(k))...,
	)}
}

func checkCount(lo, hi *uint64, expr *jen.Statement, what string) []jen.Code {
	var out []jen.Code
	kwLo, kwHi := "minItems", "maxItems"
	if what == "members" {
		kwLo, kwHi = "minProperties", "maxProperties"
	}
	if lo != nil && *lo > 0 {
		out = append(out, jen.If(jen.Len(expr).Op("<").Lit(int(*lo))).Block(
			fail(kwLo, jen.Id("p"), jen.Lit(fmt.Sprintf("has %%d %s, want at least %d", what, *lo)), jen.Len(expr))))
	}
	if hi != nil {
		out = append(out, jen.If(jen.Len(expr).Op(">").Lit(int(*hi))).Block(
			fail(kwHi, jen.Id("p"), jen.Lit(fmt.Sprintf("has %%d %s, want at most %d", what, *hi)), jen.Len(expr))))
	}
	return out
}

func (g *gen) checkBuiltin(b string, c model.Constraints, expr *jen.Statement) []jen.Code {
	var out []jen.Code
	if len(c.Alts) > 0 {
		code, whole := g.checkAlts(b, c, expr)
		if whole {
			return code
		}
		out = code
		c.Alts = nil
	}
	switch b {
	case "string":
		out = append(out, g.checkString(c, expr)...)
	case "float64":
		out = append(out, checkFloat(c, expr)...)
	case "bool":
		out = append(out, checkBool(c, expr)...)
	default:
		out = append(out, checkInt(b, c, expr)...)
	}
	return append(out, notEnum(b, c, expr)...)
}

// checkAlts checks the alternatives of one JSON type c.Alts: each is
// tried on a quiet Checker, and one must hold (exactly one, for a oneOf).
// whole is set when code is the value's whole check, its other
// constraints' too: when the alternatives decide nothing, or nothing but
// that no value holds exactly one.
func (g *gen) checkAlts(b string, c model.Constraints, expr *jen.Statement) (code []jen.Code, whole bool) {
	var tries []jen.Code
	open := 0 // alternatives with nothing to check: every value holds
	for _, a := range c.Alts {
		code := g.checkBuiltin(b, a, expr.Clone())
		if len(code) == 0 {
			open++
		}
		tries = append(tries, jen.Func().Params(jen.Id("c").Op("*").Add(wire("Checker"))).Block(code...))
	}
	switch {
	case open > 0 && !c.OneOfAlts, open == 1 && len(c.Alts) == 1:
		// An anyOf with an alternative every value of the type
		// holds: nothing to check.
		c.Alts = nil
		return g.checkBuiltin(b, c, expr), true
	case open == len(c.Alts):
		// A oneOf of two or more such alternatives: no value holds
		// exactly one.
		c.Alts = nil
		return append([]jen.Code{jen.Id("_").Op("=").Add(expr.Clone()),
			fail("oneOf", jen.Id("p"), jen.Lit(fmt.Sprintf("matches %d of the alternatives of its oneOf, want exactly one", open)))},
			g.checkBuiltin(b, c, expr)...), true
	}
	bad, kw, msg := jen.Id("n").Op("==").Lit(0), "anyOf", "matches none of the alternatives of its anyOf"
	if c.OneOfAlts {
		bad, kw, msg = jen.Id("n").Op("!=").Lit(1), "oneOf", "matches %d of the alternatives of its oneOf, want exactly one"
	}
	args := []jen.Code{jen.Id("p"), jen.Lit(kw), jen.Lit(msg)}
	if c.OneOfAlts {
		args = append(args, jen.Id("n"))
	}
	return []jen.Code{jen.Block(
		jen.Id("n").Op(":=").Lit(0),
		jen.For(jen.List(jen.Id("_"), jen.Id("try")).Op(":=").Range().Index().Func().Params(jen.Op("*").Add(wire("Checker"))).Values(tries...)).Block(
			jen.Var().Id("q").Add(wire("Checker")),
			jen.Id("q").Dot("Quiet").Call(),
			jen.Id("try").Call(jen.Op("&").Id("q")),
			jen.If(jen.Op("!").Id("q").Dot("Failed").Call()).Block(jen.Id("n").Op("++")),
		),
		jen.If(bad).Block(jen.Id("c").Dot("FailKeyword").Call(args...)),
	)}, false
}

// checkString checks a string's length, format, pattern and enum.
func (g *gen) checkString(c model.Constraints, expr *jen.Statement) []jen.Code {
	var out []jen.Code
	if c.MinLength != nil && *c.MinLength > 0 {
		out = append(out, jen.If(jen.Qual("unicode/utf8", "RuneCountInString").Call(jen.String().Parens(expr)).Op("<").Lit(int(*c.MinLength))).Block(
			fail("minLength", jen.Id("p"), jen.Lit(fmt.Sprintf("is shorter than %d characters", *c.MinLength)))))
	}
	if c.MaxLength != nil {
		out = append(out, jen.If(jen.Qual("unicode/utf8", "RuneCountInString").Call(jen.String().Parens(expr)).Op(">").Lit(int(*c.MaxLength))).Block(
			fail("maxLength", jen.Id("p"), jen.Lit(fmt.Sprintf("is longer than %d characters", *c.MaxLength)))))
	}
	if fn, ok := model.CheckedFormats[c.Format]; ok {
		pkg, name, _ := strings.Cut(fn, ".")
		f := wire(name)
		if pkg == "check" {
			f = jen.Qual(CheckPath, name)
		}
		out = append(out, jen.If(jen.Op("!").Add(f).Call(jen.String().Parens(expr))).Block(
			fail("format", jen.Id("p"), jen.Lit("%q is not a valid "+pct(c.Format)), jen.String().Parens(expr))))
	}
	if c.Pattern != "" && PatternOK(c.Pattern) {
		out = append(out, jen.If(jen.Op("!").Add(g.pattern(c.Pattern)).Dot("MatchString").Call(jen.String().Parens(expr))).Block(
			fail("pattern", jen.Id("p"), jen.Lit("%q does not match the pattern "+pct(c.Pattern)), jen.String().Parens(expr))))
	}
	if len(c.Enum) == 0 {
		return out
	}
	var vals []jen.Code
	var names []string
	for _, e := range c.Enum {
		if s, err := strconv.Unquote(e); err == nil {
			vals = append(vals, jen.Lit(s))
			names = append(names, s)
		}
	}
	if len(vals) == len(c.Enum) {
		out = append(out, jen.Switch(jen.String().Parens(expr)).Block(
			jen.Case(vals...),
			jen.Default().Block(failNotOneOf(enumKeyword(c.Enum), jen.Id("p"), jen.String().Parens(expr), names))))
	}
	return out
}

// checkFloat checks a float64's bounds and enum.
func checkFloat(c model.Constraints, expr *jen.Statement) []jen.Code {
	parse := func(s string) (any, error) { return strconv.ParseFloat(s, 64) }
	return append(floatBounds(c, jen.Float64().Parens(expr)), numberEnum(c, expr, jen.Float64, parse, "%v")...)
}

// checkBool checks an enum (or const) of one boolean: the other is wrong.
func checkBool(c model.Constraints, expr *jen.Statement) []jen.Code {
	if len(c.Enum) == 1 && (c.Enum[0] == "true" || c.Enum[0] == "false") {
		return []jen.Code{jen.If(jen.Bool().Parens(expr).Op("!=").Lit(c.Enum[0] == "true")).Block(
			fail(enumKeyword(c.Enum), jen.Id("p"), jen.Lit("%v is not "+c.Enum[0]), jen.Bool().Parens(expr.Clone())))}
	}
	return nil
}

// checkInt checks an integer's bounds and enum; b is its Go type.
func checkInt(b string, c model.Constraints, expr *jen.Statement) []jen.Code {
	parse := func(s string) (any, error) { return strconv.ParseInt(s, 10, 64) }
	return append(intBounds(b, c, expr), numberEnum(c, expr, jen.Int64, parse, "%d")...)
}

// numberEnum checks that a number is one of c.Enum, when parse reads
// every value: goType is the type expr is converted to for the switch
// (float64 or int64), verb the format of the value in the message.
func numberEnum(c model.Constraints, expr *jen.Statement, goType func() *jen.Statement, parse func(string) (any, error), verb string) []jen.Code {
	if len(c.Enum) == 0 {
		return nil
	}
	var vals []jen.Code
	for _, e := range c.Enum {
		v, err := parse(e)
		if err != nil {
			return nil
		}
		vals = append(vals, jen.Lit(v))
	}
	return []jen.Code{jen.Switch(goType().Parens(expr)).Block(
		jen.Case(vals...),
		jen.Default().Block(fail(enumKeyword(c.Enum), jen.Id("p"), jen.Lit(verb+" is not one of "+pct(strings.Join(c.Enum, ", "))), goType().Parens(expr.Clone()))))}
}

// notEnum checks that a string or integer is none of the values its
// schema's not lists (a catch-all variant's tag).
func notEnum(b string, c model.Constraints, expr *jen.Statement) []jen.Code {
	if len(c.NotEnum) == 0 {
		return nil
	}
	var vals []jen.Code
	for _, e := range c.NotEnum {
		switch {
		case b == "string":
			v, err := strconv.Unquote(e)
			if err != nil {
				return nil
			}
			vals = append(vals, jen.Lit(v))
		case b != "bool" && b != "float64":
			n, err := strconv.ParseInt(e, 10, 64)
			if err != nil {
				return nil
			}
			vals = append(vals, jen.Lit(n))
		default:
			return nil
		}
	}
	conv, verb := jen.String().Parens(expr), "%q"
	if b != "string" {
		conv, verb = jen.Int64().Parens(expr), "%d"
	}
	return []jen.Code{jen.Switch(conv.Clone()).Block(jen.Case(vals...).Block(
		fail("not", jen.Id("p"), jen.Lit(verb+" is one of the values this schema excludes ("+pct(strings.Join(c.NotEnum, ", "))+")"), conv.Clone())))}
}

// PatternOK reports whether Go's regexp accepts a schema pattern the same
// way: patterns it cannot compile are not checked by Validate.
func PatternOK(p string) bool { return model.PatternOK(p) }

func floatBounds(c model.Constraints, v *jen.Statement) []jen.Code {
	var out []jen.Code
	add := func(n *json.Number, op, msg, kw string) {
		if n == nil {
			return
		}
		f, err := strconv.ParseFloat(string(*n), 64)
		if err != nil {
			return
		}
		out = append(out, jen.If(v.Clone().Op(op).Lit(f)).Block(fail(jen.Lit(kw), jen.Id("p"), jen.Lit("%v is "+msg+" "+string(*n)), v.Clone())))
	}
	add(c.Minimum, "<", "less than", "minimum")
	add(c.ExclusiveMinimum, "<=", "not greater than", "exclusiveMinimum")
	add(c.Maximum, ">", "greater than", "maximum")
	add(c.ExclusiveMaximum, ">=", "not less than", "exclusiveMaximum")
	if c.MultipleOf != nil {
		out = append(out, jen.If(jen.Op("!").Add(wire("MultipleOf")).Call(v.Clone(), jen.Lit(string(*c.MultipleOf)))).Block(
			fail("multipleOf", jen.Id("p"), jen.Lit("%v is not a multiple of "+string(*c.MultipleOf)), v.Clone())))
	}
	return out
}

func intRange(b string) (lo, hi *big.Int) {
	bits := 64
	if n, err := strconv.Atoi(strings.TrimLeft(b, "uint")); err == nil {
		bits = n
	}
	if isSigned(b) {
		lo = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), uint(bits-1)))
		hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(bits-1)), big.NewInt(1))
		return lo, hi
	}
	return big.NewInt(0), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(bits)), big.NewInt(1))
}

func intBounds(b string, c model.Constraints, expr *jen.Statement) []jen.Code {
	var out []jen.Code
	tlo, thi := intRange(b)
	lo, hi := model.Bound(c.Minimum, c.ExclusiveMinimum, 1), model.Bound(c.Maximum, c.ExclusiveMaximum, -1)
	lit := func(n *big.Int) jen.Code {
		// An untyped constant, so it compares with any integer type.
		return jen.Op(n.String())
	}
	conv := jen.Id(b).Parens(expr)
	loKw, hiKw := boundKeyword(c.Minimum, c.ExclusiveMinimum, lo, 1), boundKeyword(c.Maximum, c.ExclusiveMaximum, hi, -1)
	if lo != nil && lo.Cmp(tlo) > 0 {
		if lo.Cmp(thi) > 0 {
			out = append(out, fail(loKw, jen.Id("p"), jen.Lit("no "+b+" reaches the minimum "+lo.String())))
		} else {
			out = append(out, jen.If(conv.Clone().Op("<").Add(lit(lo))).Block(fail(loKw, jen.Id("p"), jen.Lit("%d is less than the minimum "+lo.String()), conv.Clone())))
		}
	}
	if hi != nil && hi.Cmp(thi) < 0 {
		if hi.Cmp(tlo) < 0 {
			out = append(out, fail(hiKw, jen.Id("p"), jen.Lit("no "+b+" reaches down to the maximum "+hi.String())))
		} else {
			out = append(out, jen.If(conv.Clone().Op(">").Add(lit(hi))).Block(fail(hiKw, jen.Id("p"), jen.Lit("%d is greater than the maximum "+hi.String()), conv.Clone())))
		}
	}
	if c.MultipleOf != nil {
		out = append(out, jen.If(jen.Op("!").Add(wire("MultipleOf")).Call(jen.Float64().Parens(expr), jen.Lit(string(*c.MultipleOf)))).Block(
			fail("multipleOf", jen.Id("p"), jen.Lit("%d is not a multiple of "+string(*c.MultipleOf)), conv.Clone())))
	}
	return out
}

// fail records a failure of the keyword kw (a jen expression, or a Go
// string that is one) at ptr: c.FailKeyword(ptr, kw, args...).
func fail(kw any, ptr jen.Code, args ...jen.Code) *jen.Statement {
	k, ok := kw.(jen.Code)
	if !ok {
		k = jen.Lit(kw)
	}
	return jen.Id("c").Dot("FailKeyword").Call(append([]jen.Code{ptr, k}, args...)...)
}

// failNotOneOf records that the string got is none of the values listed
// (bare strings), with a hint when it misspells one.
func failNotOneOf(kw string, ptr, got jen.Code, values []string) *jen.Statement {
	args := []jen.Code{ptr, jen.Lit(kw), got}
	for _, v := range values {
		args = append(args, jen.Lit(v))
	}
	return jen.Id("c").Dot("FailNotOneOf").Call(args...)
}

// unquoted returns the strings a list of JSON literals holds, and whether
// every one is a string.
func unquoted(literals []string) ([]string, bool) {
	out := make([]string, 0, len(literals))
	for _, l := range literals {
		var s string
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// enumKeyword is the keyword a value outside a list of allowed values
// fails: const for a single value (the model keeps a const as an enum of
// one), enum otherwise.
func enumKeyword(values []string) string {
	if len(values) == 1 {
		return "const"
	}
	return "enum"
}

// boundKeyword is the keyword of the integer bound b (lo with dir 1, hi
// with dir -1) that model.Bound drew from incl and excl: the exclusive
// one only when the inclusive one does not reach as far.
func boundKeyword(incl, excl *json.Number, b *big.Int, dir int) string {
	name := map[int][2]string{1: {"minimum", "exclusiveMinimum"}, -1: {"maximum", "exclusiveMaximum"}}[dir]
	if b == nil || excl == nil {
		return name[0]
	}
	if in := model.Bound(incl, nil, dir); in != nil && in.Cmp(b) == 0 {
		return name[0]
	}
	return name[1]
}
