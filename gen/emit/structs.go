package emit

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentproto/agentproto/gen/model"
	"github.com/agentproto/agentproto/internal/textsafe"
)

// structType emits a struct (or, for a JSON array of fixed positions, a
// tuple): the type, its marker methods, DecodeWire, EncodeWire and
// EncodeWireFields, CheckWire, the methods every type has, and for a
// struct others embed its member-wise codecs.
func (g *gen) structType(t *model.Type) error {
	st := t.Struct
	if st.Tuple {
		return g.tupleType(t)
	}
	g.f.Add(comment(structDoc(t)))
	g.f.Type().Id(t.Name).Struct(structFields(st)...)
	for _, v := range t.Unions {
		g.f.Func().Params(jen.Op("*").Id(t.Name)).Id("is" + v.Union.Name).Params().Block()
	}
	g.structDecode(t)
	g.structEncode(t)
	g.structCheck(t)
	g.std(t)
	if st.Base {
		g.baseMethods(t)
	}
	return nil
}

// structFields are the Go fields of a struct: the embedded struct, a field
// per member the struct holds itself, and the members kept aside.
func structFields(st *model.StructType) []jen.Code {
	var fields []jen.Code
	if st.Embed != nil {
		fields = append(fields, jen.Comment("The members of "+st.Embed.Name+" this type takes over unchanged."), typeName(st.Embed))
	}
	for _, f := range st.Fields {
		if f.Repr() == model.NoField || f.Inherited {
			continue
		}
		tag := f.JSON
		switch {
		case f.Repr() == model.Opt:
			tag += ",omitzero"
		case !f.Required:
			tag += ",omitempty"
		}
		fields = append(fields, comment(f.Doc), jen.Id(f.Name).Add(fieldType(f)).Tag(map[string]string{"json": tag}))
	}
	if st.ExtraName != "" {
		fields = append(fields, jen.Comment("Members the schema does not define, kept in order so that nothing is lost."),
			jen.Id(st.ExtraName).Add(wire("Members")).Tag(map[string]string{"json": "-"}))
	}
	return fields
}

// structDoc is the doc comment of a struct: the schema's description, then
// the members that must be absent or are constant, and the embedded
// members the struct replaces with its own.
func structDoc(t *model.Type) string {
	st := t.Struct
	doc := t.Doc
	for _, f := range st.Fields {
		switch {
		case f.Forbidden:
			doc = strings.TrimSpace(doc + "\n\nThe member \"" + f.JSON + "\" must be absent; decoding rejects it.")
		case f.Const != "" && f.Name != "tag":
			doc = strings.TrimSpace(doc + "\n\nThe member \"" + f.JSON + "\" is always " + f.Const + "; it is written on encoding and checked on decoding.")
		}
	}
	if st.Embed != nil {
		var replaced []string
		for i, bf := range st.Embed.Struct.Fields {
			if !st.Fields[i].Inherited && bf.Repr() != model.NoField {
				replaced = append(replaced, bf.Name)
			}
		}
		if len(replaced) > 0 {
			doc = strings.TrimSpace(doc + "\n\nIt embeds " + st.Embed.Name + " for the members it takes over unchanged; " +
				"the embedded " + list(replaced) + " " + plural(len(replaced), "is", "are") + " not used, since this type has " +
				plural(len(replaced), "a member", "members") + " of " + plural(len(replaced), "that name", "those names") + " of its own.")
		}
	}
	return doc
}

// structDecode emits DecodeWire: a loop over the object's members that
// decodes each into its field (or the embedded struct's), handles the
// others as the schema says, and reports the required members missing.
func (g *gen) structDecode(t *model.Type) {
	st := t.Struct
	own := map[*model.Field]int{}
	for _, f := range st.Fields {
		if !f.Inherited {
			own[f] = len(own)
		}
	}
	body := []jen.Code{
		jen.Id("skip").Op(":=").Id("d").Dot("TakeSkip").Call(),
		jen.Id("start").Op(":=").Id("d").Dot("Offset").Call(),
		jen.Op("*").Id("x").Op("=").Id(t.Name).Values(),
		jen.If(jen.Err().Op(":=").Id("d").Dot("BeginObject").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
	}
	if len(own) > 0 {
		body = append(body, jen.Var().Id("seen").Index(jen.Lit(len(own))).Bool())
	}
	if st.Embed != nil {
		body = append(body, jen.Var().Id("inherited").Index(jen.Lit(len(st.Embed.Struct.Fields))).Bool())
	}
	var cases []jen.Code
	for _, f := range st.Fields {
		if f.Inherited {
			continue
		}
		cases = append(cases, jen.Case(jen.Lit(f.JSON)).Block(g.decodeMember(f, own[f], false)...))
	}
	cases = append(cases, jen.Default().Block(g.otherMember(st)...))
	body = append(body, jen.For().Block(
		jen.List(jen.Id("key"), jen.Id("more"), jen.Err()).Op(":=").Id("d").Dot("NextKey").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.If(jen.Op("!").Id("more")).Block(jen.Break()),
		jen.Switch(jen.String().Parens(jen.Id("key"))).Block(cases...),
	))
	body = append(body, missingRequired(st, own)...)
	body = append(body, jen.Return(jen.Nil()))
	g.f.Comment("DecodeWire decodes the value from d.")
	g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("DecodeWire").Params(jen.Id("d").Op("*").Add(wire("Decoder"))).Error().Block(body...)
}

// otherMember is the default case of DecodeWire's switch on a member's
// name: a member of the embedded struct, the member the decoder was told
// to skip, a member kept aside (any, or those matching a pattern), or else
// an unknown member error.
func (g *gen) otherMember(st *model.StructType) []jen.Code {
	var def []jen.Code
	if st.Embed != nil {
		def = append(def,
			jen.List(jen.Id("ok"), jen.Err()).Op(":=").Id("x").Dot(st.Embed.Name).Dot("decodeWireMember").Call(jen.Id("d"), jen.String().Parens(jen.Id("key")), jen.Id("inherited").Index(jen.Op(":")), jen.Id("start")),
			jen.If(jen.Err().Op("!=").Nil()).Block(wrapFn{at: ident, rec: &recovery{}}.fail(jen.Err())...),
			jen.If(jen.Id("ok")).Block(jen.Continue()),
		)
	}
	def = append(def, jen.If(jen.Id("skip").Op("!=").Lit("").Op("&&").String().Parens(jen.Id("key")).Op("==").Id("skip")).Block(
		jen.If(jen.Err().Op(":=").Id("d").Dot("Skip").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Continue(),
	))
	keep := []jen.Code{
		jen.List(jen.Id("raw"), jen.Err()).Op(":=").Qual(WirePath, "DecodeRaw").Call(jen.Id("d")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(wire("At").Call(jen.Err(), jen.String().Parens(jen.Id("key"))))),
		jen.Id("x").Dot(st.ExtraName).Op("=").Append(jen.Id("x").Dot(st.ExtraName), wire("Member").Values(jen.Dict{
			jen.Id("Key"): jen.String().Parens(jen.Id("key")), jen.Id("Value"): jen.Id("raw"),
		})),
	}
	if st.Open {
		def = append(def, keep...)
	} else {
		if len(st.Patterns) > 0 {
			var cond *jen.Statement
			for _, p := range st.Patterns {
				if !PatternOK(p) {
					// Go cannot compile it: accept any name rather than
					// reject a valid member (Validate is incomplete here).
					cond = jen.True()
					break
				}
				m := g.pattern(p).Dot("MatchString").Call(jen.String().Parens(jen.Id("key")))
				if cond == nil {
					cond = m
				} else {
					cond = cond.Op("||").Add(m)
				}
			}
			def = append(def, jen.If(cond).Block(append(keep, jen.Continue())...))
		}
		var allowed []jen.Code
		allowed = append(allowed, jen.Id("d").Dot("Offset").Call(), jen.String().Parens(jen.Id("key")))
		for _, f := range st.Fields {
			if !f.Forbidden {
				allowed = append(allowed, jen.Lit(f.JSON))
			}
		}
		def = append(def, wrapFn{at: ident, rec: &recovery{}}.fail(wire("UnknownError").Call(allowed...))...)
	}
	return def
}

// missingRequired is the end of DecodeWire: the required members not seen
// are reported together. own numbers the struct's own members in seen;
// inherited ones are noted in inherited by field position.
func missingRequired(st *model.StructType, own map[*model.Field]int) []jen.Code {
	var out []jen.Code
	var req []jen.Code
	for i, f := range st.Fields {
		if f.Required {
			seen := jen.Id("seen").Index(jen.Lit(own[f]))
			if f.Inherited {
				seen = jen.Id("inherited").Index(jen.Lit(i))
			}
			req = append(req, jen.If(jen.Op("!").Add(seen)).Block(
				jen.Id("missing").Op("=").Append(jen.Id("missing"), jen.Lit(f.JSON))))
		}
	}
	if len(req) > 0 {
		out = append(out, jen.Var().Id("missing").Index().String())
		out = append(out, req...)
		out = append(out, jen.If(jen.Len(jen.Id("missing")).Op(">").Lit(0)).Block(
			jen.Return(jen.Id("d").Dot("Missing").Call(jen.Id("start"), jen.Id("missing").Op("..."))),
		))
	} else {
		out = append(out, jen.Id("_").Op("=").Id("start"))
	}
	return out
}

// structEncode emits EncodeWire and EncodeWireFields: the members in schema
// order, the embedded struct's by position, then those kept aside.
func (g *gen) structEncode(t *model.Type) {
	st := t.Struct
	g.f.Comment("EncodeWire encodes the value to e.")
	g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("EncodeWire").Params(jen.Id("e").Op("*").Add(wire("Encoder"))).Block(
		jen.Id("e").Dot("BeginObject").Call(),
		jen.Id("x").Dot("EncodeWireFields").Call(jen.Id("e")),
		jen.Id("e").Dot("EndObject").Call(),
	)
	var enc []jen.Code
	for _, run := range runs(st.Fields) {
		if !run.inherited {
			for _, f := range st.Fields[run.from:run.to] {
				enc = append(enc, g.encodeField(f)...)
			}
		} else if g.anyCode(st.Fields[run.from:run.to], (*gen).encodeField) {
			enc = append(enc, jen.Id("x").Dot(st.Embed.Name).Dot("encodeWireMembers").Call(jen.Id("e"), jen.Lit(run.from), jen.Lit(run.to)))
		}
	}
	if st.ExtraName != "" {
		enc = append(enc, jen.Id("x").Dot(st.ExtraName).Dot("Encode").Call(jen.Id("e")))
	}
	g.f.Comment("EncodeWireFields writes the members of the value, without braces, so that a union can write its tag first.")
	g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("EncodeWireFields").Params(jen.Id("e").Op("*").Add(wire("Encoder"))).Block(enc...)
}

// structCheck emits CheckWire: each member's checks in schema order, then
// the checks of the struct as a whole (see structchecks.go).
func (g *gen) structCheck(t *model.Type) {
	st := t.Struct
	var chk []jen.Code
	for _, run := range runs(st.Fields) {
		if !run.inherited {
			for _, f := range st.Fields[run.from:run.to] {
				chk = append(chk, g.checkField(f)...)
			}
		} else if g.anyCode(st.Fields[run.from:run.to], (*gen).checkField) {
			chk = append(chk, jen.Id("x").Dot(st.Embed.Name).Dot("checkWireMembers").Call(jen.Id("c"), jen.Id("p"), jen.Lit(run.from), jen.Lit(run.to)))
		}
	}
	chk = append(chk, g.checkExtra(st)...)
	chk = append(chk, g.checkNames(st)...)
	chk = append(chk, checkMemberCount(st)...)
	chk = append(chk, checkAlternatives(st)...)
	chk = append(chk, checkConditions(st)...)
	chk = append(chk, checkCondition(st.Cond)...)
	chk = append(chk, checkMerged(st.Merged)...)
	g.f.Comment("CheckWire records in c every constraint the value breaks, under the JSON pointer p.")
	g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("CheckWire").Params(jen.Id("c").Op("*").Add(wire("Checker")), jen.Id("p").String()).Block(chk...)
}

// decodeMember is the body of the decoding of one member: a duplicate is an
// error, the member is noted in seen[i] and decoded into its field. With
// found, errors are returned as (true, err), for decodeWireMember.
func (g *gen) decodeMember(f *model.Field, i int, found bool) []jen.Code {
	// A member recovers (see wrapFn), in a struct's own decoder and in
	// decodeWireMember, which an embedding struct calls.
	wrap := wrapFn{at: func(err jen.Code) jen.Code { return wire("At").Call(err, jen.Lit(f.JSON)) }, rec: &recovery{}}
	// A duplicate member stops a collecting decode too: like a syntax
	// error, it is a defect of the JSON, not of the value.
	dup := wrapFn{at: ident}
	if found {
		// The member recovers here, with the embedding struct's start,
		// so that the elements and members inside it recover too.
		wrap = wrapFn{at: wrap.at, rec: &recovery{}, found: true}
		dup = wrapFn{at: func(err jen.Code) jen.Code { return jen.List(jen.True(), err) }}
	}
	stmts := []jen.Code{
		jen.If(jen.Id("seen").Index(jen.Lit(i))).Block(dup.fail(wire("DuplicateError").Call(jen.Id("d").Dot("Offset").Call(), jen.Lit(f.JSON)))...),
		jen.Id("seen").Index(jen.Lit(i)).Op("=").True(),
	}
	return append(stmts, g.decodeField(f, wrap)...)
}

// run is a stretch of a struct's fields that are all inherited from the
// embedded struct, or all its own.
type run struct {
	from, to  int
	inherited bool
}

func runs(fields []*model.Field) []run {
	var out []run
	for i, f := range fields {
		if len(out) > 0 && out[len(out)-1].inherited == f.Inherited {
			out[len(out)-1].to = i + 1
			continue
		}
		out = append(out, run{from: i, to: i + 1, inherited: f.Inherited})
	}
	return out
}

// anyCode reports whether code (encodeField, checkField) has anything to
// say about one of the fields. It asks a copy of g, so that asking
// compiles no pattern into the package.
func (g *gen) anyCode(fields []*model.Field, code func(*gen, *model.Field) []jen.Code) bool {
	probe := &gen{f: jen.NewFile("probe"), serde: g.serde, serdeInts: g.serdeInts, patterns: map[string]string{}}
	for _, f := range fields {
		if len(code(probe, f)) > 0 {
			return true
		}
	}
	return false
}

// baseMethods adds the member-wise codecs of a struct other structs
// embed: they decode one member by name, and encode and check the members
// in a range of field positions, so that an embedding struct interleaves
// its own members with the embedded ones in schema order.
func (g *gen) baseMethods(t *model.Type) {
	fields := t.Struct.Fields
	var cases []jen.Code
	for i, f := range fields {
		cases = append(cases, jen.Case(jen.Lit(f.JSON)).Block(g.decodeMember(f, i, true)...))
	}
	cases = append(cases, jen.Default().Block(jen.Return(jen.False(), jen.Nil())))
	g.f.Comment("decodeWireMember decodes the member named key into x, noting it in seen")
	g.f.Comment("(indexed like the fields); found is false when x has no such member. start is")
	g.f.Comment("where the object that holds the member began, for a collecting decoder's Recover.")
	g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("decodeWireMember").Params(
		jen.Id("d").Op("*").Add(wire("Decoder")), jen.Id("key").String(), jen.Id("seen").Index().Bool(), jen.Id("start").Int(),
	).Params(jen.Id("found").Bool(), jen.Err().Error()).Block(
		jen.Switch(jen.Id("key")).Block(cases...),
		jen.Return(jen.True(), jen.Nil()),
	)
	if g.usesEncode[t] {
		g.byPosition(t, "encodeWireMembers", "encodeWireMembers writes the members of x at field positions from to to.",
			[]jen.Code{jen.Id("e").Op("*").Add(wire("Encoder"))}, g.encodeField)
	}
	if g.usesCheck[t] {
		g.byPosition(t, "checkWireMembers", "checkWireMembers checks the members of x at field positions from to to.",
			[]jen.Code{jen.Id("c").Op("*").Add(wire("Checker")), jen.Id("p").String()}, g.checkField)
	}
}

// byPosition emits a method of t, with the given leading parameters and
// then from and to, that runs each field's code for the field positions
// from to to.
func (g *gen) byPosition(t *model.Type, name, doc string, params []jen.Code, code func(*model.Field) []jen.Code) {
	var cases []jen.Code
	for i, f := range t.Struct.Fields {
		if c := code(f); len(c) > 0 {
			cases = append(cases, jen.Case(jen.Lit(i)).Block(c...))
		}
	}
	g.f.Comment(doc)
	g.f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id(name).Params(
		append(params, jen.List(jen.Id("from"), jen.Id("to")).Int())...,
	).Block(jen.For(jen.Id("i").Op(":=").Id("from"), jen.Id("i").Op("<").Id("to"), jen.Id("i").Op("++")).Block(
		jen.Switch(jen.Id("i")).Block(cases...)))
}

// present is an expression that is true when the member is on the wire.
func present(f *model.Field) jen.Code {
	target := jen.Id("x").Dot(f.Name)
	switch f.Repr() {
	case model.Pointer, model.Nilable:
		return target.Op("!=").Nil()
	case model.Opt:
		return jen.Op("!").Add(target).Dot("IsAbsent").Call()
	}
	return jen.True()
}

func key(f *model.Field) jen.Code {
	return jen.Id("e").Dot("RawKey").Call(jen.Lit(textsafe.QuoteJSON(f.JSON) + ":"))
}
