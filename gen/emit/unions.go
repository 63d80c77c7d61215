package emit

import (
	"go/token"
	"sort"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentproto/agentproto/gen/model"
	"github.com/agentproto/agentproto/internal/textsafe"
)

func hasKind(u *model.UnionType, k string) bool { return variantOfKind(u, k) != nil }

func variantOfKind(u *model.UnionType, k string) *model.Variant {
	for _, v := range u.Variants {
		if v.JSONKind == k {
			return v
		}
	}
	return nil
}

// keySet numbers the member names that decide among variants, in order of
// first appearance, for PeekKeys and PeekFirst bit sets.
type keySet struct {
	keys  []string
	index map[string]int
}

func newKeySet(sets [][]string) keySet {
	ks := keySet{index: map[string]int{}}
	for _, set := range sets {
		for _, k := range set {
			if _, ok := ks.index[k]; !ok {
				ks.index[k] = len(ks.keys)
				ks.keys = append(ks.keys, k)
			}
		}
	}
	return ks
}

// literal is the []string literal of the names, in their numbering.
func (ks keySet) literal() jen.Code {
	var lits []jen.Code
	for _, k := range ks.keys {
		lits = append(lits, jen.Lit(k))
	}
	return jen.Index().String().Values(lits...)
}

// mask is the bit set of the given names.
func (ks keySet) mask(names []string) uint64 {
	var m uint64
	for _, k := range names {
		m |= 1 << uint(ks.index[k])
	}
	return m
}

// decodeFallback decodes the next value, whatever it is, into the union's
// fallback variant.
func decodeFallback(f *model.Variant) []jen.Code {
	return []jen.Code{
		jen.List(jen.Id("raw"), jen.Err()).Op(":=").Add(wire("DecodeRaw")).Call(jen.Id("d")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(typeName(f.Type).Parens(jen.Id("raw")), jen.Nil()),
	}
}

// trial adds decodeXByTrial, which decodes an object that has the
// required members of several object variants of an untagged union, as
// oneOf and anyOf read it: the first of them (in the order the decoder
// tries them) that the object decodes into and passes Validate as, or
// failing that the first it decodes into, so that Validate reports what
// is wrong with it; failing that, the first variant's decoding error.
func (g *gen) trial(t *model.Type, objects []*model.Variant, ks keySet) {
	body := []jen.Code{
		jen.Id("start").Op(":=").Id("d").Dot("Offset").Call(),
		jen.List(jen.Id("raw"), jen.Err()).Op(":=").Id("d").Dot("Raw").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Var().Id("decoded").Id(t.Name),
		jen.Var().Id("first").Error(),
	}
	for _, v := range objects {
		mask := ks.mask(v.Keys)
		body = append(body, jen.If(jen.Id("set").Op("&").Lit(mask).Op("==").Lit(mask)).Block(
			jen.Id("v").Op(":=").New(typeName(v.Type)),
			jen.If(jen.Err().Op(":=").Add(wire("UnmarshalOwned")).Call(jen.Id("raw"), jen.Id("v")), jen.Err().Op("!=").Nil()).Block(
				jen.If(jen.Id("first").Op("==").Nil()).Block(jen.Id("first").Op("=").Err()),
			).Else().Block(
				jen.Var().Id("c").Add(wire("Checker")),
				jen.Id("v").Dot("CheckWire").Call(jen.Op("&").Id("c"), jen.Lit("")),
				jen.If(jen.Id("c").Dot("Err").Call().Op("==").Nil()).Block(jen.Return(jen.Id("v"), jen.Nil())),
				jen.If(jen.Id("decoded").Op("==").Nil()).Block(jen.Id("decoded").Op("=").Id("v")),
			),
		))
	}
	body = append(body, jen.If(jen.Id("decoded").Op("!=").Nil()).Block(jen.Return(jen.Id("decoded"), jen.Nil())))
	// A collecting decoder (see wire.Decoder.Collect) explains the first
	// variant tried in full: decoding a copy stopped at its first error.
	var redo []jen.Code
	for _, v := range objects {
		mask := ks.mask(v.Keys)
		redo = append(redo, jen.If(jen.Id("set").Op("&").Lit(mask).Op("==").Lit(mask)).Block(
			jen.Id("v").Op(":=").New(typeName(v.Type)),
			jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("d").Dot("Redo").Call(jen.Id("start"), jen.Id("v")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Id("v"), jen.Nil()),
		))
	}
	body = append(body,
		jen.If(jen.Id("d").Dot("Collecting").Call()).Block(redo...),
		jen.Comment("The error's offset is in raw; make it one in the whole input."),
		jen.Var().Id("we").Op("*").Add(wire("Error")),
		jen.If(jen.Qual("errors", "As").Call(jen.Id("first"), jen.Op("&").Id("we")).Op("&&").Id("we").Dot("Offset").Op(">=").Lit(0)).Block(
			jen.Id("we").Dot("Offset").Op("+=").Id("start")),
		jen.Return(jen.Nil(), jen.Id("first")),
	)
	g.f.Comment(funcName("decode", t.Name) + "ByTrial decodes an object that has the required members of several")
	g.f.Comment("variants: the first it decodes into and passes Validate as, else the first it")
	g.f.Comment("decodes into (Validate then says what is wrong), else the first one's error.")
	g.f.Func().Id(funcName("decode", t.Name)+"ByTrial").Params(jen.Id("d").Op("*").Add(wire("Decoder")), jen.Id("set").Uint64()).Params(jen.Id(t.Name), jen.Error()).Block(body...)
}

// onlyOne checks that a value of object variant v of a oneOf fits no other
// object variant: its encoding is decoded as each other one, and one that
// decodes and passes Validate is a second fit. The model asks for it only
// when every object variant is complete, so a fit is a fit.
func onlyOne(u *model.UnionType, v *model.Variant) []jen.Code {
	// In a collecting check in which part of v did not decode, the
	// input is judged (see wire.Checker.Input): v does not fit it, and
	// another variant that does is the one a validator takes, which the
	// list of v's defects then does not say.
	out := []jen.Code{
		jen.Id("in").Op(":=").Id("c").Dot("Input").Call(jen.Id("p")),
		jen.Id("raw").Op(":=").Id("in"),
		jen.If(jen.Id("raw").Op("==").Nil()).Block(
			jen.Id("e").Op(":=").Add(wire("NewEncoder")).Call(jen.Nil()),
			jen.Id("v").Dot("EncodeWire").Call(jen.Id("e")),
			jen.Id("raw").Op("=").Id("e").Dot("Bytes").Call(),
		),
	}
	for _, w := range u.Variants {
		if w == v || w.JSONKind != "object" {
			continue
		}
		out = append(out, jen.If(
			jen.Id("w").Op(":=").New(typeName(w.Type)),
			wire("UnmarshalOwned").Call(jen.Id("raw"), jen.Id("w")).Op("==").Nil().Op("&&").Id("w").Dot("Validate").Call().Op("==").Nil(),
		).Block(jen.If(jen.Id("in").Op("!=").Nil()).Block(jen.Id("c").Dot("Partial").Call()).Else().Block(
			fail("oneOf", jen.Id("p"), jen.Lit("fits both "+v.Type.Name+" and "+w.Type.Name+"; oneOf allows exactly one")))))
	}
	return out
}

// variantRef is how union code holds a variant: a pointer for structs,
// a value for scalars.
func variantRef(v *model.Variant) *jen.Statement {
	if v.Type.Kind == model.Scalar {
		return typeName(v.Type)
	}
	return jen.Op("*").Add(typeName(v.Type))
}

// unionType emits a union: an interface with a marker method per variant
// (and for a tagged union the variant that keeps an unknown tag), the
// package-level Decode, Encode and Check functions of the union, and for an
// exported union Unmarshal, Marshal and Validate over them.
func (g *gen) unionType(t *model.Type) error {
	u := t.Union
	g.f.Add(comment(unionDoc(t)))
	g.f.Type().Id(t.Name).Interface(jen.Id("is" + t.Name).Params())
	if u.Tag != "" {
		g.unknownVariant(t)
	}
	var body []jen.Code
	if u.Tag != "" {
		body = decodeTagged(u)
	} else {
		body = g.decodeUntagged(t)
	}
	g.f.Comment(funcName("Decode", t.Name) + " decodes a " + t.Name + " from d.")
	g.f.Func().Id(funcName("Decode", t.Name)).Params(jen.Id("d").Op("*").Add(wire("Decoder"))).Params(jen.Id(t.Name), jen.Error()).Block(body...)
	g.unionEncode(t)
	g.unionCheck(t)
	if !token.IsExported(t.Name) {
		// A condition's union: only its codec is used.
		return nil
	}
	g.unionAPI(t)
	return nil
}

// unionDoc is the doc comment of a union: the schema's description, then
// how a value is decided among the variants.
func unionDoc(t *model.Type) string {
	u := t.Union
	doc := t.Doc
	var names []string
	for _, v := range u.Variants {
		names = append(names, v.Type.Name)
	}
	switch {
	case u.Tag != "":
		doc = strings.TrimSpace(doc + "\n\nIt is a union tagged by the member \"" + u.Tag + "\". Its variants are " + strings.Join(names, ", ") +
			"; a tag this package does not know decodes to " + u.Unknown + ", which keeps the JSON as it was.")
		if u.Default != nil {
			doc += " A value without the tag is a " + u.Default.Type.Name + "."
			if u.DefaultTag != "" {
				doc = strings.TrimSuffix(doc, ".") + ", as is one whose tag is " + textsafe.Escape(strconv.Quote(u.DefaultTag)) + "."
			}
		}
	case u.By == model.ByKeys:
		doc = strings.TrimSpace(doc + "\n\nIt is a union without a tag, decided by the JSON type of the value and, for objects, by required members: the first variant (most required members first) whose required members are all present. Its variants are " + strings.Join(names, ", ") + ".")
	default:
		doc = strings.TrimSpace(doc + "\n\nIt is a union decided by the JSON type of the value. Its variants are " + strings.Join(names, ", ") + ".")
	}
	if u.Fallback != nil {
		doc += " Any other value is a " + u.Fallback.Type.Name + ", kept as raw JSON."
	}
	return doc
}

// tagFieldDoc is the doc of the Tag field of u's Unknown variant.
func tagFieldDoc(u *model.UnionType) string {
	if u.IntTag {
		return "Tag is the value of the member \"" + textsafe.Escape(u.Tag) + "\", an integer in decimal."
	}
	return "Tag is the value of the member \"" + textsafe.Escape(u.Tag) + "\"."
}

// intLess orders integers given as decimal text by value.
func intLess(a, b string) bool {
	x, _ := strconv.ParseInt(a, 10, 64)
	y, _ := strconv.ParseInt(b, 10, 64)
	return x < y
}

// unknownVariant emits the variant of a tagged union that holds an object
// whose tag the package does not know, as it was received.
func (g *gen) unknownVariant(t *model.Type) {
	u := t.Union
	g.f.Add(comment(u.Unknown + " is a variant of " + t.Name + " whose tag this package does not know. Raw holds the whole object as it was received, and encoding writes it back unchanged."))
	g.f.Type().Id(u.Unknown).Struct(
		jen.Comment(tagFieldDoc(u)),
		jen.Id("Tag").String(),
		jen.Comment("Raw is the whole object."),
		jen.Id("Raw").Qual(jsonPath, "RawMessage"),
	)
	g.f.Func().Params(jen.Op("*").Id(u.Unknown)).Id("is" + t.Name).Params().Block()
}

// decodeVariant decodes the next value as variant v of union u and returns
// it; with skipTag, the decoder first skips the union's tag member, which
// the variant's struct does not hold.
func decodeVariant(u *model.UnionType, v *model.Variant, skipTag bool) []jen.Code {
	return decodeVariantErr(u, v, skipTag, jen.Err())
}

// decodeVariantErr is decodeVariant returning err, an expression of err,
// when the variant does not decode.
func decodeVariantErr(u *model.UnionType, v *model.Variant, skipTag bool, err jen.Code) []jen.Code {
	out := []jen.Code{jen.Id("v").Op(":=").New(typeName(v.Type))}
	if skipTag {
		out = append(out, jen.Id("d").Dot("SkipKey").Call(jen.Lit(u.Tag)))
	}
	out = append(out,
		jen.If(jen.Err().Op(":=").Id("v").Dot("DecodeWire").Call(jen.Id("d")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), err)),
	)
	if v.Type.Kind == model.Scalar {
		return append(out, jen.Return(jen.Op("*").Id("v"), jen.Nil()))
	}
	return append(out, jen.Return(jen.Id("v"), jen.Nil()))
}

// peekTag is the Decoder method that reads the tag of u.
func peekTag(u *model.UnionType) string {
	if u.IntTag {
		return "PeekIntTag"
	}
	return "PeekTag"
}

// decodeTagged is the body of a tagged union's Decode: the tag is peeked
// and names the variant; no tag is the default variant (or an error), and
// a tag no variant has is kept in the unknown variant.
func decodeTagged(u *model.UnionType) []jen.Code {
	missing := jen.Id("d").Dot("MissingTag").Call(jen.Lit(u.Tag))
	body := []jen.Code{
		jen.List(jen.Id("tag"), jen.Id("ok"), jen.Err()).Op(":=").Id("d").Dot(peekTag(u)).Call(jen.Lit(u.Tag)),
	}
	if o := u.Other; o != nil && !u.Open {
		// A collecting decode records a tag that selects no variant
		// and judges the members every variant has, as a validator
		// does, before it steps over the value.
		if u.Default == nil {
			body = append(body, jen.If(jen.Err().Op("==").Nil().Op("&&").Op("!").Id("ok")).Block(jen.Err().Op("=").Add(missing)))
		}
		note := []jen.Code{
			jen.List(jen.Id("raw"), jen.Err()).Op(":=").Id("d").Dot("Raw").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Id("c").Dot("CheckRaw").Call(jen.Id("p"), jen.Id("raw"), jen.New(typeName(o))),
		}
		if !o.Complete {
			note = append(note, jen.Id("c").Dot("Partial").Call())
		}
		note = append(note, jen.Return(jen.Nil(), jen.Nil()))
		body = append(body, jen.If(jen.Err().Op("!=").Nil()).Block(
			jen.If(jen.List(jen.Id("c"), jen.Id("p"), jen.Id("nerr")).Op(":=").Id("d").Dot("NoteValue").Call(jen.Err()), jen.Id("nerr").Op("==").Nil()).Block(note...),
			jen.Return(jen.Nil(), jen.Err()),
		))
	} else {
		body = append(body, jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
	}
	switch {
	case u.Default != nil:
		body = append(body, jen.If(jen.Op("!").Id("ok")).Block(decodeVariant(u, u.Default, false)...))
	case u.Other == nil || u.Open:
		body = append(body, jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Nil(), missing)))
	}
	var cases []jen.Code
	for _, v := range u.Variants {
		if v == u.Default {
			continue
		}
		cases = append(cases, jen.Case(jen.Lit(v.Tag)).Block(decodeVariant(u, v, !v.TagInStruct)...))
	}
	if u.DefaultTag != "" {
		// The default's optional tag, present: its struct reads it.
		cases = append(cases, jen.Case(jen.Lit(u.DefaultTag)).Block(decodeVariant(u, u.Default, false)...))
	}
	if u.DefaultTakesOthers {
		return append(append(body, jen.Switch(jen.Id("tag")).Block(cases...)), decodeVariant(u, u.Default, false)...)
	}
	return append(body, jen.Switch(jen.Id("tag")).Block(cases...),
		jen.List(jen.Id("raw"), jen.Err()).Op(":=").Id("d").Dot("Raw").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Op("&").Id(u.Unknown).Values(jen.Dict{jen.Id("Tag"): jen.Id("tag"), jen.Id("Raw"): jen.Qual(jsonPath, "RawMessage").Parens(jen.Id("raw"))}), jen.Nil()),
	)
}

// kindConsts names the wire.Kind constant of each JSON type.
var kindConsts = map[string]string{"null": "KindNull", "boolean": "KindBool", "integer": "KindNumber", "number": "KindNumber", "string": "KindString", "array": "KindArray", "object": "KindObject"}

// decodeUntagged is the body of Decode for a union without a tag: a case
// per JSON type of the next value, arrays decided by their first element
// and objects by their members; any other value is the fallback variant's
// (or a type error).
func (g *gen) decodeUntagged(t *model.Type) []jen.Code {
	u := t.Union
	var body []jen.Code
	var cases []jen.Code
	var objects, arrays []*model.Variant
	expect := strings.Join(untaggedKinds(u), " or ")
	// A number that is not an integer, where the union's only numbers
	// are integers, fails as the integer variant: its error names every
	// type the union takes.
	intErr := jen.Err()
	if !hasKind(u, "number") && u.Fallback == nil {
		intErr = wire("WantTypes").Call(jen.Err(), jen.Lit(expect))
	}
	for _, v := range u.Variants {
		if v.JSONKind == "object" {
			objects = append(objects, v)
			continue
		}
		if v.JSONKind == "array" && v.ItemKind != "" {
			arrays = append(arrays, v)
			continue
		}
		if v.JSONKind == "null" {
			cases = append(cases, jen.Case(wire(kindConsts["null"])).Block(
				jen.If(jen.Err().Op(":=").Id("d").Dot("Skip").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Return(typeName(v.Type).Values(), jen.Nil())))
			continue
		}
		if v.JSONKind == "number" && hasKind(u, "integer") {
			continue // decided together with the integer variant below
		}
		if v.JSONKind == "integer" && !hasKind(u, "number") && u.Fallback != nil {
			// Only plain integer literals are this variant; other
			// numbers are the fallback's.
			cases = append(cases, jen.Case(wire("KindNumber")).Block(
				jen.If(jen.Id("d").Dot("PeekInteger").Call()).Block(decodeVariant(u, v, false)...)))
			continue
		}
		if v.JSONKind == "integer" && hasKind(u, "number") {
			num := variantOfKind(u, "number")
			cases = append(cases, jen.Case(wire("KindNumber")).Block(
				jen.Comment("A plain integer literal is the integer variant; any other number the number variant."),
				jen.If(jen.Id("d").Dot("PeekInteger").Call()).Block(decodeVariant(u, v, false)...),
				jen.Block(decodeVariant(u, num, false)...)))
			continue
		}
		if v.JSONKind == "integer" {
			cases = append(cases, jen.Case(wire(kindConsts[v.JSONKind])).Block(decodeVariantErr(u, v, false, intErr)...))
			continue
		}
		cases = append(cases, jen.Case(wire(kindConsts[v.JSONKind])).Block(decodeVariant(u, v, false)...))
	}
	if len(arrays) > 0 {
		cases = append(cases, jen.Case(wire("KindArray")).Block(decodeArrays(u, arrays)...))
	}
	if len(objects) > 0 {
		cases = append(cases, jen.Case(wire("KindObject")).Block(g.decodeObjects(t, objects)...))
	}
	body = append(body, jen.Switch(jen.Id("d").Dot("Kind").Call()).Block(cases...))
	if u.Fallback != nil {
		body = append(body, decodeFallback(u.Fallback)...)
	} else {
		body = append(body, jen.Return(jen.Nil(), jen.Id("d").Dot("TypeError").Call(jen.Lit(expect))))
	}
	return body
}

// untaggedKinds lists the JSON types an untagged union takes, as its type
// errors name them: the scalar variants' in order, then array, then
// object.
func untaggedKinds(u *model.UnionType) []string {
	var kinds []string
	var arrays, objects bool
	for _, v := range u.Variants {
		switch {
		case v.JSONKind == "object":
			objects = true
		case v.JSONKind == "array" && v.ItemKind != "":
			arrays = true
		default:
			kinds = append(kinds, v.JSONKind)
		}
	}
	if arrays {
		kinds = append(kinds, "array")
	}
	if objects {
		kinds = append(kinds, "object")
	}
	return kinds
}

// decodeArrays decodes an array as one of the array variants of union u,
// by the JSON type of its first element and, for object elements, the
// element's members; any other array is the first variant declared.
func decodeArrays(u *model.UnionType, arrays []*model.Variant) []jen.Code {
	firstDeclared := arrays[0]
	// Object elements: most required members first, as for objects.
	sort.SliceStable(arrays, func(i, j int) bool { return len(arrays[i].ItemKeys) > len(arrays[j].ItemKeys) })
	var sets [][]string
	for _, v := range arrays {
		sets = append(sets, v.ItemKeys)
	}
	ks := newKeySet(sets)
	arr := []jen.Code{
		jen.List(jen.Id("first"), jen.Id("set"), jen.Err()).Op(":=").Id("d").Dot("PeekFirst").Call(ks.literal()),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("_").Op("=").Id("set"),
	}
	for _, v := range arrays {
		cond := jen.Id("first").Op("==").Add(wire(kindConsts[v.ItemKind]))
		if v.ItemKind == "object" {
			mask := ks.mask(v.ItemKeys)
			cond = cond.Op("&&").Id("set").Op("&").Lit(mask).Op("==").Lit(mask)
		}
		arr = append(arr, jen.If(cond).Block(decodeVariant(u, v, false)...))
	}
	arr = append(arr, jen.Comment("An empty array (or one whose first element fits no variant, which then fails to decode) is the first variant."))
	return append(arr, decodeVariant(u, firstDeclared, false)...)
}

// decodeObjects decodes an object as one of the object variants of union
// t: the first whose required members it has, or by trial when it has
// those of several; else the fallback variant, or an error naming what
// each variant requires.
func (g *gen) decodeObjects(t *model.Type, objects []*model.Variant) []jen.Code {
	u := t.Union
	if len(objects) == 1 && u.Fallback == nil {
		return decodeVariant(u, objects[0], false)
	}
	var obj []jen.Code
	var sets [][]string
	for _, v := range objects {
		sets = append(sets, v.Keys)
	}
	ks := newKeySet(sets)
	obj = append(obj,
		jen.List(jen.Id("set"), jen.Err()).Op(":=").Id("d").Dot("PeekKeys").Call(ks.literal()),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
	)
	var alts []string
	if len(objects) > 1 && !u.NoTrial {
		// An object with the required members of several
		// variants is the one it validates as (see trial).
		obj = append(obj, jen.Id("matches").Op(":=").Lit(0))
		for _, v := range objects {
			mask := ks.mask(v.Keys)
			obj = append(obj, jen.If(jen.Id("set").Op("&").Lit(mask).Op("==").Lit(mask)).Block(jen.Id("matches").Op("++")))
		}
		obj = append(obj, jen.If(jen.Id("matches").Op(">").Lit(1)).Block(jen.Return(jen.Id(funcName("decode", t.Name)+"ByTrial").Call(jen.Id("d"), jen.Id("set")))))
		g.trial(t, objects, ks)
	}
	for _, v := range objects {
		mask := ks.mask(v.Keys)
		alts = append(alts, v.Type.Name+" ("+strings.Join(v.Keys, ", ")+")")
		obj = append(obj, jen.If(jen.Id("set").Op("&").Lit(mask).Op("==").Lit(mask)).Block(decodeVariant(u, v, false)...))
	}
	if u.Fallback != nil {
		return append(obj, decodeFallback(u.Fallback)...)
	}
	return append(obj, jen.Return(jen.Nil(), jen.Op("&").Add(wire("Error")).Values(jen.Dict{
		jen.Id("Offset"):  jen.Id("d").Dot("Offset").Call(),
		jen.Id("Msg"):     jen.Lit("the object has the required members of no variant: " + strings.Join(alts, "; ")),
		jen.Id("Code"):    wire("CodeTag"),
		jen.Id("Keyword"): jen.Lit("required"),
	})))
}

// unionEncode emits the union's Encode: each variant writes itself, a
// tagged one with its tag first, and a nil value is null.
func (g *gen) unionEncode(t *model.Type) {
	u := t.Union
	var cases []jen.Code
	for _, v := range u.Variants {
		var enc []jen.Code
		switch {
		case v.Type.Kind == model.Scalar && v.Type.Under == nil:
			enc = []jen.Code{jen.Id("e").Dot("Null").Call()}
		case v.Type.Kind == model.Scalar:
			enc = []jen.Code{jen.Id("v").Dot("EncodeWire").Call(jen.Id("e"))}
		case u.Tag != "" && v != u.Default && !v.TagInStruct:
			enc = []jen.Code{
				jen.If(jen.Id("v").Op("==").Nil()).Block(jen.Id("e").Dot("Null").Call(), jen.Return()),
				jen.Id("e").Dot("BeginObject").Call(),
				jen.Id("e").Dot("RawKey").Call(jen.Lit(textsafe.QuoteJSON(u.Tag) + ":")),
				jen.Id("e").Dot("RawValue").Call(jen.Lit(u.TagJSON(v.Tag))),
				jen.Id("v").Dot("EncodeWireFields").Call(jen.Id("e")),
				jen.Id("e").Dot("EndObject").Call(),
			}
		default:
			enc = []jen.Code{
				jen.If(jen.Id("v").Op("==").Nil()).Block(jen.Id("e").Dot("Null").Call(), jen.Return()),
				jen.Id("v").Dot("EncodeWire").Call(jen.Id("e")),
			}
		}
		cases = append(cases, jen.Case(variantRef(v)).Block(enc...))
	}
	if f := u.Fallback; f != nil {
		cases = append(cases, jen.Case(variantRef(f)).Block(jen.Id("v").Dot("EncodeWire").Call(jen.Id("e"))))
	}
	if u.Tag != "" {
		cases = append(cases, jen.Case(jen.Op("*").Id(u.Unknown)).Block(
			jen.If(jen.Id("v").Op("==").Nil()).Block(jen.Id("e").Dot("Null").Call(), jen.Return()),
			jen.If(jen.Id("v").Dot("Raw").Op("!=").Nil()).Block(jen.Id("e").Dot("Raw").Call(jen.Id("v").Dot("Raw")), jen.Return()),
			jen.Id("e").Dot("BeginObject").Call(),
			jen.Id("e").Dot("RawKey").Call(jen.Lit(textsafe.QuoteJSON(u.Tag)+":")),
			jen.Id("e").Dot(map[bool]string{false: "String", true: "IntText"}[u.IntTag]).Call(jen.Id("v").Dot("Tag")),
			jen.Id("e").Dot("EndObject").Call(),
		))
	}
	cases = append(cases, jen.Default().Block(jen.Id("e").Dot("Null").Call()))
	g.f.Comment(funcName("Encode", t.Name) + " encodes v to e; a nil v is null.")
	g.f.Func().Id(funcName("Encode", t.Name)).Params(jen.Id("e").Op("*").Add(wire("Encoder")), jen.Id("v").Id(t.Name)).Block(
		jen.Switch(jen.Id("v").Op(":=").Id("v").Assert(jen.Type())).Block(cases...))
}

// unionCheck emits the union's Check: each variant checks itself (and,
// for a oneOf that asks, fits no other object variant); an unknown tag
// of a closed tagged union is an error.
func (g *gen) unionCheck(t *model.Type) {
	u := t.Union
	var chk []jen.Code
	for _, v := range u.Variants {
		if v.Type.Kind == model.Scalar && v.Type.Under == nil {
			continue
		}
		body := []jen.Code{jen.Id("v").Dot("CheckWire").Call(jen.Id("c"), jen.Id("p"))}
		if u.OnlyOne && v.JSONKind == "object" {
			body = append(body, onlyOne(u, v)...)
		}
		chk = append(chk, jen.Case(variantRef(v)).Block(
			jen.If(jen.Id("v").Op("!=").Nil()).Block(body...)))
		if v.Type.Kind == model.Scalar {
			chk[len(chk)-1] = jen.Case(variantRef(v)).Block(jen.Id("v").Dot("CheckWire").Call(jen.Id("c"), jen.Id("p")))
		}
	}
	if u.Tag != "" && !u.Open {
		var tags []string
		for _, v := range u.Variants {
			if v != u.Default {
				tags = append(tags, v.Tag)
			}
		}
		if u.DefaultTag != "" {
			tags = append(tags, u.DefaultTag)
		}
		sort.Strings(tags)
		at := jen.Id("c").Dot("Join").Call(jen.Id("p"), jen.Lit(u.Tag))
		body := []jen.Code{failNotOneOf("const", at, jen.Id("v").Dot("Tag"), tags)}
		if u.IntTag {
			// An integer tag is written as JSON writes it, unquoted.
			sort.Slice(tags, func(i, j int) bool { return intLess(tags[i], tags[j]) })
			body[0] = fail("const", at, jen.Lit("%s is not one of "+pct(strings.Join(tags, ", "))), jen.Id("v").Dot("Tag"))
		}
		if o := u.Other; o != nil {
			// The members every variant has are judged as well, from
			// the raw JSON kept (a value built in Go has none).
			body = append(body, jen.If(jen.Id("v").Dot("Raw").Op("!=").Nil()).Block(
				jen.Id("c").Dot("CheckRaw").Call(jen.Id("p"), jen.Index().Byte().Parens(jen.Id("v").Dot("Raw")), jen.New(typeName(o)))))
			if !o.Complete {
				body = append(body, jen.Id("c").Dot("Partial").Call())
			}
		}
		chk = append(chk, jen.Case(jen.Op("*").Id(u.Unknown)).Block(
			jen.If(jen.Id("v").Op("!=").Nil()).Block(body...)))
	}
	if o := u.Other; u.Tag != "" && u.Open && o != nil {
		// The catch-all is a type of its own: the object is decoded as it
		// (from the raw JSON kept, or from the tag alone when built in Go)
		// and checked.
		chk = append(chk, jen.Case(jen.Op("*").Id(u.Unknown)).Block(
			jen.If(jen.Id("v").Op("==").Nil()).Block(jen.Return()),
			jen.Id("raw").Op(":=").Index().Byte().Parens(jen.Id("v").Dot("Raw")),
			jen.If(jen.Id("raw").Op("==").Nil()).Block(
				jen.Id("e").Op(":=").Add(wire("NewEncoder")).Call(jen.Nil()),
				jen.Id(funcName("Encode", t.Name)).Call(jen.Id("e"), jen.Id("v")),
				jen.Id("raw").Op("=").Id("e").Dot("Bytes").Call(),
			),
			jen.Id("c").Dot("CheckRaw").Call(jen.Id("p"), jen.Id("raw"), jen.New(typeName(o))),
		))
	}
	g.f.Comment(funcName("Check", t.Name) + " records in c every constraint v breaks, under the JSON pointer p.")
	if len(chk) == 0 {
		g.f.Func().Id(funcName("Check", t.Name)).Params(jen.Id("c").Op("*").Add(wire("Checker")), jen.Id("p").String(), jen.Id("v").Id(t.Name)).Block()
	} else {
		g.f.Func().Id(funcName("Check", t.Name)).Params(jen.Id("c").Op("*").Add(wire("Checker")), jen.Id("p").String(), jen.Id("v").Id(t.Name)).Block(
			jen.Switch(jen.Id("v").Op(":=").Id("v").Assert(jen.Type())).Block(chk...))
	}
}

// unionAPI emits the exported functions of a union: Unmarshal, Marshal and
// Validate, over its Decode, Encode and Check.
func (g *gen) unionAPI(t *model.Type) {
	g.f.Comment(funcName("Unmarshal", t.Name) + " decodes a " + t.Name + " from data, strictly.")
	g.f.Func().Id(funcName("Unmarshal", t.Name)).Params(jen.Id("data").Index().Byte()).Params(jen.Id(t.Name), jen.Error()).Block(
		jen.Id("buf").Op(":=").Append(jen.Index().Byte().Parens(jen.Nil()), jen.Id("data").Op("...")),
		jen.Id("d").Op(":=").Add(wire("NewDecoder")).Call(jen.Id("buf")),
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Id(funcName("Decode", t.Name)).Call(jen.Id("d")),
		jen.If(jen.Err().Op("==").Nil()).Block(jen.Err().Op("=").Id("d").Dot("End").Call()),
		jen.Return(jen.Id("v"), jen.Err()),
	)
	g.f.Comment(funcName("Marshal", t.Name) + " encodes v.")
	g.f.Func().Id(funcName("Marshal", t.Name)).Params(jen.Id("v").Id(t.Name)).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Id("e").Op(":=").Add(wire("NewEncoder")).Call(jen.Nil()),
		jen.Id(funcName("Encode", t.Name)).Call(jen.Id("e"), jen.Id("v")),
		jen.Return(jen.Id("e").Dot("Bytes").Call(), jen.Id("e").Dot("Err").Call()),
	)
	g.f.Comment(funcName("Validate", t.Name) + " checks v against its schema's constraints and returns every violation.")
	g.f.Func().Id(funcName("Validate", t.Name)).Params(jen.Id("v").Id(t.Name)).Error().Block(
		jen.Var().Id("c").Add(wire("Checker")),
		jen.Id(funcName("Check", t.Name)).Call(jen.Op("&").Id("c"), jen.Lit(""), jen.Id("v")),
		jen.Return(jen.Id("c").Dot("Err").Call()),
	)
}
