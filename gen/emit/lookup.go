package emit

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentproto/agentproto/gen/model"
)

// completeValue renders a type's per-value completeness (model.ValueCheck)
// as a function of the decoded value; nil when the type has none.
func completeValue(t *model.Type) jen.Code {
	vc := t.CompleteValue
	if vc == nil {
		return nil
	}
	if t.Kind == model.Union {
		return jen.Func().Params(jen.Id("v").Any()).Bool().Block(
			jen.List(jen.Id("u"), jen.Id("_")).Op(":=").Id("v").Assert(jen.Id(t.Name)),
			jen.Return(jen.Id("complete"+t.Name).Call(jen.Id("u"))))
	}
	var all *jen.Statement
	for _, f := range vc.Fields {
		fn := jen.Id("complete" + model.Resolve(f.Type).Type.Name)
		target := jen.Id("x").Dot(f.Name)
		var c jen.Code
		if f.Repr() == model.Opt {
			c = jen.Func().Params().Bool().Block(
				jen.List(jen.Id("u"), jen.Id("ok")).Op(":=").Add(target).Dot("Get").Call(),
				jen.Return(jen.Op("!").Id("ok").Op("||").Add(fn).Call(jen.Id("u")))).Call()
		} else {
			c = jen.Parens(target.Clone().Op("==").Nil().Op("||").Add(fn).Call(target.Clone()))
		}
		if all == nil {
			all = jen.Add(c)
		} else {
			all = all.Op("&&").Add(c)
		}
	}
	return jen.Func().Params(jen.Id("v").Any()).Bool().Block(
		jen.Id("x").Op(":=").Id("v").Assert(jen.Op("*").Id(t.Name)),
		jen.Return(all))
}

// idForms returns the case values of a Lookup key: a file's root also
// without its empty fragment ("…/file.json" beside "…/file.json#").
func idForms(id string) []jen.Code {
	forms := []jen.Code{jen.Lit(id)}
	if root, ok := strings.CutSuffix(id, "#"); ok && root != "" {
		forms = append(forms, jen.Lit(root))
	}
	return forms
}

// lookup emits the completeness checks of partial unions, and returns the
// cases of Lookup, which maps the $id (with JSON pointer fragment) of
// every root and $defs schema to a wire.Codec for its Go type (see
// lookupFunc).
func (g *gen) lookup(p *model.Package) lookupCases {
	ids, byID := model.LookupTypes(p)
	// The ids whose schemas have one Go type share a case, listed under
	// the first of them: many schemas of one shape are one type (see
	// model.shareShapes), and a case per id repeated its codec.
	target := func(id string) *model.Type {
		t := byID[id]
		if t.Kind == model.Alias {
			// A schema that only refers to another: the other's codec.
			return model.Resolve(t.Under).Type
		}
		return t
	}
	same := map[*model.Type][]string{}
	var firsts []string
	for _, id := range ids {
		t := target(id)
		if same[t] == nil {
			firsts = append(firsts, id)
		}
		same[t] = append(same[t], id)
	}
	caseOf := func(first string) jen.Code {
		t := target(first)
		var forms []jen.Code
		for _, id := range same[t] {
			forms = append(forms, idForms(id)...)
		}
		if t.External != nil {
			return jen.Case(forms...).Block(jen.Return(jen.Qual(t.External.Path, "Lookup").Call(jen.Lit(t.SchemaID))))
		}
		var dec, enc, chk, val, verify jen.Code
		d := jen.Id("d").Op("*").Add(wire("Decoder"))
		if t.Kind == model.Union {
			dec = jen.Func().Params(d).Params(jen.Any(), jen.Error()).Block(jen.Return(jen.Id("Decode" + t.Name).Call(jen.Id("d"))))
			enc = jen.Func().Params(jen.Id("e").Op("*").Add(wire("Encoder")), jen.Id("v").Any()).Block(
				jen.List(jen.Id("u"), jen.Id("_")).Op(":=").Id("v").Assert(jen.Id(t.Name)),
				jen.Id("Encode"+t.Name).Call(jen.Id("e"), jen.Id("u")))
			chk = jen.Func().Params(jen.Id("c").Op("*").Add(wire("Checker")), jen.Id("p").String(), jen.Id("v").Any()).Block(
				jen.List(jen.Id("u"), jen.Id("_")).Op(":=").Id("v").Assert(jen.Id(t.Name)),
				jen.Id("Check"+t.Name).Call(jen.Id("c"), jen.Id("p"), jen.Id("u")))
			// The Checker stays on the stack: the call is direct.
			val = jen.Func().Params(jen.Id("v").Any()).Error().Block(
				jen.Var().Id("c").Add(wire("Checker")),
				jen.List(jen.Id("u"), jen.Id("_")).Op(":=").Id("v").Assert(jen.Id(t.Name)),
				jen.Id("Check"+t.Name).Call(jen.Op("&").Id("c"), jen.Lit(""), jen.Id("u")),
				jen.Return(jen.Id("c").Dot("Err").Call()))
		} else if t.Kind == model.Scalar && t.Under == nil {
			return nil
		} else {
			dec = jen.Func().Params(d).Params(jen.Any(), jen.Error()).Block(
				jen.Id("v").Op(":=").New(jen.Id(t.Name)),
				jen.Return(jen.Id("v"), jen.Id("v").Dot("DecodeWire").Call(jen.Id("d"))))
			enc = jen.Func().Params(jen.Id("e").Op("*").Add(wire("Encoder")), jen.Id("v").Any()).Block(
				jen.Id("v").Assert(jen.Op("*").Id(t.Name)).Dot("EncodeWire").Call(jen.Id("e")))
			chk = jen.Func().Params(jen.Id("c").Op("*").Add(wire("Checker")), jen.Id("p").String(), jen.Id("v").Any()).Block(
				jen.Id("v").Assert(jen.Op("*").Id(t.Name)).Dot("CheckWire").Call(jen.Id("c"), jen.Id("p")))
			val = jen.Func().Params(jen.Id("v").Any()).Error().Block(
				jen.Return(jen.Id("v").Assert(jen.Op("*").Id(t.Name)).Dot("Validate").Call()))
			if t.Complete {
				// Decoded, validated and dropped: the value stays on
				// the stack, where Decode's escapes into an any.
				// A quiet Checker builds no pointers for a verdict.
				verify = jen.Func().Params(d).Bool().Block(
					jen.Var().Id("v").Id(t.Name),
					jen.If(jen.Id("v").Dot("DecodeWire").Call(jen.Id("d")).Op("!=").Nil()).Block(jen.Return(jen.False())),
					jen.Var().Id("c").Add(wire("Checker")),
					jen.Id("c").Dot("Quiet").Call(),
					jen.Id("v").Dot("CheckWire").Call(jen.Op("&").Id("c"), jen.Lit("")),
					jen.Return(jen.Op("!").Id("c").Dot("Failed").Call()))
			}
		}
		dict := jen.Dict{
			jen.Id("Name"):          jen.Lit(t.Name),
			jen.Id("Decode"):        dec,
			jen.Id("Encode"):        enc,
			jen.Id("Check"):         chk,
			jen.Id("ValidateValue"): val,
			jen.Id("Complete"):      jen.Lit(t.Complete),
		}
		if cv := completeValue(t); cv != nil {
			dict[jen.Id("CompleteValue")] = cv
		}
		if verify != nil {
			dict[jen.Id("Verify")] = verify
		}
		return jen.Case(forms...).Block(jen.Return(wire("Codec").Values(dict), jen.True()))
	}
	for _, u := range p.PartialUnions {
		var cs []jen.Code
		for _, v := range u.Union.Variants {
			cs = append(cs, jen.Case(variantRef(v)).Block(jen.Return(jen.Lit(v.Type.Complete))))
		}
		if uu := u.Union; uu.Tag != "" && uu.Open {
			// An unlisted tag is proved when the catch-all asks nothing
			// the Unknown variant's check does not make.
			cs = append(cs, jen.Case(jen.Op("*").Id(uu.Unknown)).Block(jen.Return(jen.Lit(model.UnknownComplete(uu)))))
		}
		g.f.Comment("complete" + u.Name + " reports whether Validate checks everything the schema asks of v's variant.")
		g.f.Func().Id("complete"+u.Name).Params(jen.Id("v").Id(u.Name)).Bool().Block(
			jen.Switch(jen.Id("v").Assert(jen.Type())).Block(cs...),
			jen.Return(jen.False()))
	}
	return lookupCases{ids: firsts, caseOf: caseOf}
}

// lookupCases are the cases of Lookup, built a run at a time: the
// syntax trees of every case at once were most of the memory a schema of
// many types took. caseOf returns nil for an id without a case.
type lookupCases struct {
	ids    []string
	caseOf func(id string) jen.Code
}

// lookupDoc is the doc comment of Lookup.
const lookupDoc = "Lookup returns the codec of the Go type generated from the schema with the given $id and JSON pointer fragment (\"…/file.json#\", or \"…/file.json\", for a file's root, \"…#/$defs/Name\" for a definition; schemas without an $id are keyed by the fragment alone)."

// lookupCasesPerRun is how many cases of Lookup are formatted at once.
const lookupCasesPerRun = 256

// lookupFunc returns Lookup, gofmt-formatted, with its doc comment. Its
// switch has a case per type: for a schema of 100,000 types, one function
// of three million lines, whose syntax tree alone took gigabytes to
// format. The cases are formatted a run at a time inside a function of
// the same shape, which indents them as Lookup does, and the function is
// put together from them; imports are registered in f as they are used.
func lookupFunc(f *jen.File, lc lookupCases) ([]byte, error) {
	sig := func() *jen.Statement {
		return jen.Params(jen.Id("id").String()).Params(wire("Codec"), jen.Bool())
	}
	// The cases of one run (nil: an id without a case).
	run := func(from, to int) []jen.Code {
		var cs []jen.Code
		for _, id := range lc.ids[from:to] {
			if c := lc.caseOf(id); c != nil {
				cs = append(cs, c)
			}
		}
		return cs
	}
	some := false
	for from := 0; from < len(lc.ids) && !some; from += lookupCasesPerRun {
		some = len(run(from, min(from+lookupCasesPerRun, len(lc.ids)))) > 0
	}
	if !some {
		var b bytes.Buffer
		fn := jen.Comment(lookupDoc).Line().Func().Id("Lookup").Add(sig()).Block(
			jen.Switch(jen.Id("id")).Block(),
			jen.Return(wire("Codec").Values(), jen.False()))
		if err := fn.RenderWithFile(&b, f); err != nil {
			return nil, err
		}
		return append(bytes.TrimLeft(b.Bytes(), "\n"), '\n'), nil
	}
	var out bytes.Buffer
	out.WriteString("// " + lookupDoc + "\n")
	var head bytes.Buffer
	if err := jen.Func().Id("Lookup").Add(sig()).Block().RenderWithFile(&head, f); err != nil {
		return nil, err
	}
	// "func Lookup(id string) (wire.Codec, bool) {}": the signature as
	// the package's imports name it.
	out.Write(bytes.TrimSuffix(bytes.TrimSpace(head.Bytes()), []byte("{}")))
	out.WriteString("{\n\tswitch id {\n")
	var text bytes.Buffer
	for from := 0; from < len(lc.ids); from += lookupCasesPerRun {
		cs := run(from, min(from+lookupCasesPerRun, len(lc.ids)))
		if len(cs) == 0 {
			continue
		}
		text.Reset()
		fn := jen.Func().Id("Lookup").Add(sig()).Block(jen.Switch(jen.Id("id")).Block(cs...))
		if err := fn.RenderWithFile(&text, f); err != nil {
			return nil, err
		}
		b := text.Bytes()
		start := bytes.Index(b, []byte("\tswitch id {\n"))
		end := bytes.LastIndex(b, []byte("\t}\n}"))
		if start < 0 || end < start {
			return nil, fmt.Errorf("the cases of Lookup do not format as a switch")
		}
		out.Write(b[start+len("\tswitch id {\n") : end])
	}
	out.WriteString("\t}\n")
	var tail bytes.Buffer
	if err := jen.Func().Id("_").Params().Params(wire("Codec"), jen.Bool()).Block(jen.Return(wire("Codec").Values(), jen.False())).RenderWithFile(&tail, f); err != nil {
		return nil, err
	}
	t := tail.Bytes()
	i := bytes.Index(t, []byte("\treturn "))
	if i < 0 {
		return nil, fmt.Errorf("the end of Lookup does not format")
	}
	out.Write(t[i:])
	b := bytes.TrimRight(out.Bytes(), "\n")
	return append(b, '\n'), nil
}
