package emit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentproto/agentproto/gen/model"
)

// checkCondition checks an if/then/else through its types: the value's
// JSON (see encoding) decoded as If and passing Validate as it selects
// Then, else Else; the branch's decoding errors and Validate errors are
// the value's (see checkAs).
func checkCondition(cd *model.Condition) []jen.Code {
	if cd == nil {
		return nil
	}
	// decode declares b and err: raw decoded as t.
	decode := func(t *model.Type) []jen.Code {
		if t.Kind == model.Union {
			return []jen.Code{
				jen.Id("d").Op(":=").Add(wire("NewDecoder")).Call(jen.Id("raw")),
				jen.List(jen.Id("b"), jen.Err()).Op(":=").Add(fn("Decode", t)).Call(jen.Id("d")),
				jen.If(jen.Err().Op("==").Nil()).Block(jen.Err().Op("=").Id("d").Dot("End").Call()),
			}
		}
		return []jen.Code{
			jen.Id("b").Op(":=").New(jen.Id(t.Name)),
			jen.Err().Op(":=").Add(wire("UnmarshalOwned")).Call(jen.Id("raw"), jen.Id("b")),
		}
	}
	valid := func(t *model.Type) jen.Code {
		if t.Kind == model.Union {
			return jen.Func().Params().Bool().Block(
				jen.Var().Id("ck").Add(wire("Checker")),
				fn("Check", t).Call(jen.Op("&").Id("ck"), jen.Lit(""), jen.Id("b")),
				jen.Return(jen.Id("ck").Dot("Err").Call().Op("==").Nil()),
			).Call()
		}
		return jen.Id("b").Dot("Validate").Call().Op("==").Nil()
	}
	branch := func(t *model.Type) []jen.Code {
		if t == nil {
			return nil
		}
		return checkAs(t, jen.Id("raw"))
	}
	holds := jen.Func().Params().Bool().Block(append(decode(cd.If), jen.Return(jen.Err().Op("==").Nil().Op("&&").Add(valid(cd.If))))...).Call()
	cond := jen.If(holds).Block(branch(cd.Then)...)
	if cd.Else != nil {
		cond = cond.Else().Block(branch(cd.Else)...)
	}
	return []jen.Code{jen.Block(
		jen.Comment("if/then/else, through types of its own."),
		encoding(),
		cond,
	)}
}

// encoding declares raw, the value x's JSON, to judge it as another type:
// its encoding, or in a collecting check in which part of x did not
// decode, the input (see wire.Checker.Input).
func encoding() jen.Code {
	return jen.Id("raw").Op(":=").Id("c").Dot("Input").Call(jen.Id("p")).Line().
		If(jen.Id("raw").Op("==").Nil()).Block(
		jen.Id("e").Op(":=").Add(wire("NewEncoder")).Call(jen.Nil()),
		jen.Id("x").Dot("EncodeWire").Call(jen.Id("e")),
		jen.Id("raw").Op("=").Id("e").Dot("Bytes").Call(),
	)
}

// checkAs checks raw, the JSON of the value at p, as type t: its
// decoding's errors and Validate's are the value's (see
// wire.Checker.CheckRaw, which in a collecting check lists them all).
func checkAs(t *model.Type, raw jen.Code) []jen.Code {
	if t.Kind != model.Union {
		return []jen.Code{jen.Id("c").Dot("CheckRaw").Call(jen.Id("p"), raw, jen.New(jen.Id(t.Name)))}
	}
	return []jen.Code{
		jen.Var().Id("b").Id(t.Name),
		jen.Id("c").Dot("CheckRawFunc").Call(jen.Id("p"), raw,
			jen.Func().Params(jen.Id("d").Op("*").Add(wire("Decoder"))).Params(jen.Err().Error()).Block(
				jen.List(jen.Id("b"), jen.Err()).Op("=").Add(fn("Decode", t)).Call(jen.Id("d")),
				jen.Return(jen.Err()),
			),
			jen.Func().Params(jen.Id("c").Op("*").Add(wire("Checker")), jen.Id("p").String()).Block(
				fn("Check", t).Call(jen.Id("c"), jen.Id("p"), jen.Id("b")),
			),
		),
	}
}

// checkNames checks the name of every member present against
// propertyNames: the fields' names and the names of the members kept aside.
func (g *gen) checkNames(st *model.StructType) []jen.Code {
	if st.Names == nil {
		return nil
	}
	r := model.Resolve(st.Names)
	// A name that breaks propertyNames is an error of the object, as
	// propertyNames is a keyword of the object: the name is checked on a
	// quiet Checker of its own, and the object's error names it.
	check := func(name jen.Code) []jen.Code {
		var inner []jen.Code
		if r.Kind == model.Builtin {
			inner = g.checkBuiltin("string", r.Check, jen.Id("k"))
			if len(inner) == 0 {
				return nil
			}
			inner = append([]jen.Code{jen.Id("k").Op(":=").Add(name)}, inner...)
		} else {
			inner = []jen.Code{jen.Id("k").Op(":=").Add(typeName(r.Type)).Parens(name), jen.Id("k").Dot("CheckWire").Call(jen.Id("c"), jen.Lit(""))}
		}
		return nameCheck(inner, name)
	}
	var out []jen.Code
	for _, f := range st.Fields {
		if f.Forbidden || f.NameFits {
			// A field whose name the constraints accept needs no check.
			continue
		}
		body := check(jen.Lit(f.JSON))
		if len(body) == 0 {
			return nil
		}
		if f.Required {
			out = append(out, jen.Block(body...))
		} else {
			out = append(out, jen.If(present(f)).Block(body...))
		}
	}
	if st.ExtraName != "" {
		out = append(out, jen.For(jen.List(jen.Id("_"), jen.Id("m")).Op(":=").Range().Id("x").Dot(st.ExtraName)).Block(check(jen.Id("m").Dot("Key"))...))
	}
	return out
}

// checkMerged checks the value as each union it merges through allOf: its
// encoding is decoded as the union and checked.
func checkMerged(merged []*model.Type) []jen.Code {
	var out []jen.Code
	for _, u := range merged {
		out = append(out, jen.Block(append([]jen.Code{
			jen.Comment("The value is also a " + u.Name + "."),
			encoding()},
			checkAs(u, jen.Id("raw"))...)...,
		))
	}
	return out
}

// checkMemberCount checks minProperties and maxProperties of a struct:
// its members are the required ones, the optional ones present, and the
// ones kept aside.
func checkMemberCount(st *model.StructType) []jen.Code {
	if st.MinProps == nil && st.MaxProps == nil {
		return nil
	}
	always := 0
	var optional []jen.Code
	for _, f := range st.Fields {
		switch {
		case f.Forbidden:
		case f.Required:
			always++
		default:
			optional = append(optional, jen.If(present(f)).Block(jen.Id("n").Op("++")))
		}
	}
	n := jen.Lit(always)
	if st.ExtraName != "" {
		n = jen.Lit(always).Op("+").Len(jen.Id("x").Dot(st.ExtraName))
	}
	block := append([]jen.Code{jen.Id("n").Op(":=").Add(n)}, optional...)
	// In a collecting check, members that did not decode or are missing
	// are counted as they are in the input (see wire.Checker.InputMembers).
	block = append(block, jen.If(jen.List(jen.Id("m"), jen.Id("ok")).Op(":=").Id("c").Dot("InputMembers").Call(jen.Id("p")), jen.Id("ok")).Block(jen.Id("n").Op("=").Id("m")))
	if st.MinProps != nil {
		block = append(block, jen.If(jen.Uint64().Parens(jen.Id("n")).Op("<").Lit(*st.MinProps)).Block(
			fail("minProperties", jen.Id("p"), jen.Lit("has %d members, fewer than "+strconv.FormatUint(*st.MinProps, 10)), jen.Id("n"))))
	}
	if st.MaxProps != nil {
		block = append(block, jen.If(jen.Uint64().Parens(jen.Id("n")).Op(">").Lit(*st.MaxProps)).Block(
			fail("maxProperties", jen.Id("p"), jen.Lit("has %d members, more than "+strconv.FormatUint(*st.MaxProps, 10)), jen.Id("n"))))
	}
	return []jen.Code{jen.Block(block...)}
}

// checkExtra checks the members kept aside against the value schemas of
// patternProperties and additionalProperties: each member is decoded as
// the rule's type from its raw JSON and checked; a value that does not
// decode is reported where it fails.
func (g *gen) checkExtra(st *model.StructType) []jen.Code {
	if len(st.Extra) == 0 {
		return nil
	}
	hasOther, hasPattern := false, false
	var loop []jen.Code
	loop = append(loop, jen.Id("p").Op(":=").Add(jen.Id("c").Dot("Join")).Call(jen.Id("p"), jen.Id("m").Dot("Key")))
	for _, r := range st.Extra {
		hasOther = hasOther || r.Pattern == ""
		hasPattern = hasPattern || r.Pattern != ""
	}
	if hasOther && hasPattern {
		loop = append(loop, jen.Id("matched").Op(":=").False())
	}
	for _, r := range st.Extra {
		if r.Pattern == "" {
			continue
		}
		var body []jen.Code
		if hasOther {
			body = append(body, jen.Id("matched").Op("=").True())
		}
		if len(g.checkRaw(r)) == 0 && !hasOther {
			continue
		}
		body = append(body, g.checkRaw(r)...)
		loop = append(loop, jen.If(g.pattern(r.Pattern).Dot("MatchString").Call(jen.Id("m").Dot("Key"))).Block(body...))
	}
	for _, r := range st.Extra {
		if r.Pattern == "" && hasPattern {
			loop = append(loop, jen.If(jen.Op("!").Id("matched")).Block(g.checkRaw(r)...))
		} else if r.Pattern == "" {
			loop = append(loop, g.checkRaw(r)...)
		}
	}
	return []jen.Code{jen.For(jen.List(jen.Id("_"), jen.Id("m")).Op(":=").Range().Id("x").Dot(st.ExtraName)).Block(loop...)}
}

// checkRaw decodes the raw member value m.Value as the rule's type and
// checks it under the pointer p.
func (g *gen) checkRaw(r *model.ExtraRule) []jen.Code {
	if r.Type == nil {
		return nil
	}
	value := []jen.Code{jen.Var().Id("v").Add(goType(r.Type))}
	value = append(value, g.decodeValue(r.Type, jen.Id("v"), wrapFn{at: ident}, 1)...)
	value = append(value, jen.If(jen.Err().Op(":=").Id("d").Dot("End").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
	if g.needsCheck(r.Type) {
		value = append(value, g.checkValue(r.Type, jen.Id("v"), 1)...)
	} else {
		value = append(value, jen.Id("_").Op("=").Id("v"))
	}
	var fn []jen.Code
	fn = append(fn, jen.Id("d").Op(":=").Add(wire("NewDecoder")).Call(jen.Id("m").Dot("Value")))
	if r.Nullable {
		fn = append(fn,
			jen.List(jen.Id("isNull"), jen.Err()).Op(":=").Id("d").Dot("IsNull").Call(),
			jen.If(jen.Err().Op("!=").Nil().Op("||").Id("isNull")).Block(jen.Return(jen.Err())),
		)
	}
	fn = append(fn, value...)
	fn = append(fn, jen.Return(jen.Nil()))
	return []jen.Code{jen.If(
		jen.Err().Op(":=").Func().Params().Error().Block(fn...).Call(),
		jen.Err().Op("!=").Nil(),
	).Block(
		jen.Id("c").Dot("FailWith").Call(jen.Id("p"), jen.Err()),
	)}
}

// checkAlternatives checks an anyOf (oneOf) of required-member sets.
func checkAlternatives(st *model.StructType) []jen.Code {
	if len(st.RequiredAlternatives) == 0 {
		return nil
	}
	byJSON := map[string]*model.Field{}
	for _, f := range st.Fields {
		byJSON[f.JSON] = f
	}
	var sets []string
	out := []jen.Code{jen.Id("matched").Op(":=").Lit(0)}
	for _, alt := range st.RequiredAlternatives {
		var cond *jen.Statement
		for _, name := range alt {
			f := byJSON[name]
			if f == nil {
				continue
			}
			if cond == nil {
				cond = jen.Add(present(f))
			} else {
				cond = cond.Op("&&").Add(present(f))
			}
		}
		if cond == nil {
			continue
		}
		sets = append(sets, strings.Join(alt, " and "))
		out = append(out, jen.If(cond).Block(jen.Id("matched").Op("++")))
	}
	msg := "needs " + strings.Join(sets, ", or ")
	altKw := "anyOf"
	if st.OneOfRequired {
		altKw = "oneOf"
	}
	out = append(out, jen.If(jen.Id("matched").Op("==").Lit(0)).Block(fail(altKw, jen.Id("p"), jen.Lit(pct(msg)))))
	if st.OneOfRequired {
		out = append(out, jen.If(jen.Id("matched").Op(">").Lit(1)).Block(fail("oneOf", jen.Id("p"), jen.Lit(pct("must have exactly one of: "+strings.Join(sets, "; "))))))
	}
	return []jen.Code{jen.Block(out...)}
}

// literal is the Go constant for a JSON literal of a string, boolean or
// integer.
func literal(lit string) jen.Code {
	switch {
	case lit == "true" || lit == "false":
		return jen.Lit(lit == "true")
	case strings.HasPrefix(lit, `"`):
		s, _ := strconv.Unquote(lit)
		return jen.Lit(s)
	}
	return jen.Op(lit)
}

// equals is true when the member, known to be present, has the value lit.
func equals(f *model.Field, lit string) *jen.Statement {
	target := jen.Id("x").Dot(f.Name)
	switch {
	case f.Const != "":
		return jen.Lit(f.Const == lit)
	case f.Repr() == model.Pointer:
		return jen.Parens(jen.Op("*").Add(target).Op("==").Add(literal(lit)))
	case f.Repr() == model.Opt:
		return jen.Parens(target.Dot("Value").Call().Op("==").Add(literal(lit)))
	}
	return jen.Parens(target.Op("==").Add(literal(lit)))
}

// checkConditions checks the if/then rules and the not-all sets.
func checkConditions(st *model.StructType) []jen.Code {
	byJSON := map[string]*model.Field{}
	for _, f := range st.Fields {
		byJSON[f.JSON] = f
	}
	var out []jen.Code
	for _, r := range st.Rules {
		kf := byJSON[r.IfKey]
		var any *jen.Statement
		for _, v := range r.IfValues {
			if any == nil {
				any = equals(kf, v)
			} else {
				any = any.Op("||").Add(equals(kf, v))
			}
		}
		when := fmt.Sprintf("when %s is %s", r.IfKey, strings.Join(r.IfValues, " or "))
		var then []jen.Code
		for _, name := range r.ThenRequired {
			then = append(then, jen.If(jen.Op("!").Parens(present(byJSON[name]))).Block(
				fail("required", jen.Id("p"), jen.Lit(pct(fmt.Sprintf("missing required member %q %s", name, when))))))
		}
		for _, mv := range r.ThenConst {
			f := byJSON[mv.Member]
			then = append(then, jen.If(jen.Add(present(f)).Op("&&").Op("!").Add(equals(f, mv.Value))).Block(
				fail("const", jen.Id("c").Dot("Join").Call(jen.Id("p"), jen.Lit(mv.Member)), jen.Lit(pct(fmt.Sprintf("must be %s %s", mv.Value, when))))))
		}
		out = append(out, jen.If(jen.Add(present(kf)).Op("&&").Parens(any)).Block(then...))
	}
	for _, d := range st.Dependent {
		var then []jen.Code
		for _, name := range d.Requires {
			then = append(then, jen.If(jen.Op("!").Parens(present(byJSON[name]))).Block(
				fail("dependentRequired", jen.Id("p"), jen.Lit(pct(fmt.Sprintf("missing member %q, required when %q is present", name, d.Member))))))
		}
		out = append(out, jen.If(present(byJSON[d.Member])).Block(then...))
	}
	for _, set := range st.NotAll {
		var cond *jen.Statement
		for _, name := range set {
			if cond == nil {
				cond = jen.Add(present(byJSON[name]))
			} else {
				cond = cond.Op("&&").Add(present(byJSON[name]))
			}
		}
		out = append(out, jen.If(cond).Block(
			fail("not", jen.Id("p"), jen.Lit(pct("must not have all of "+strings.Join(set, ", "))))))
	}
	return out
}

// nameCheck runs inner, the checks of one member name, on a quiet Checker
// of its own, and reports a name that fails as an error of the object at
// p: propertyNames is a keyword of the object, whatever inner finds.
func nameCheck(inner []jen.Code, name jen.Code) []jen.Code {
	return []jen.Code{
		jen.Var().Id("q").Add(wire("Checker")),
		jen.Id("q").Dot("Quiet").Call(),
		jen.Func().Params(jen.Id("c").Op("*").Add(wire("Checker"))).Block(inner...).Call(jen.Op("&").Id("q")),
		jen.If(jen.Id("q").Dot("Failed").Call()).Block(
			fail("propertyNames", jen.Id("p"), jen.Lit("the member name %q does not fit propertyNames"), name)),
	}
}
