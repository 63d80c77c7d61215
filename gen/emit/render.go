package emit

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"go/scanner"
	"strings"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"

	"github.com/agentproto/agentproto/gen/model"
	"github.com/agentproto/agentproto/internal/textsafe"
)

// Render returns the gofmt-formatted source of the package. sources names
// the schema files it came from, for the file comment.
func Render(p *model.Package, sources []string) ([]byte, error) {
	f := newRootFile(p.Name, sources)
	g := &gen{f: f, serde: p.SerdeFloats, serdeInts: p.SerdeIntegers, patterns: map[string]string{},
		usesEncode: map[*model.Type]bool{}, usesCheck: map[*model.Type]bool{}}
	g.markEmbedded(p)
	body, cases, err := g.renderTypes(f, p)
	if err != nil {
		return nil, err
	}
	// Lookup and the patterns come last, after the types' code: they are
	// formatted here, Lookup a run of cases at a time, and are not
	// formatted again below.
	lookup, err := lookupFunc(f, cases)
	if err != nil {
		return nil, fmt.Errorf("emit: generated code for Lookup does not parse (a generator bug): %w", err)
	}
	patterns, err := g.renderPatterns(f)
	if err != nil {
		return nil, err
	}
	src, err := withHeader(f, p.Name, body)
	if err != nil {
		return nil, err
	}
	extra := 1 + len(lookup) + 2 + len(patterns)
	out, err := formatBody(src, extra, p.Name)
	if err != nil {
		return nil, err
	}
	out = append(out, '\n')
	out = append(out, lookup...)
	if pt := bytes.TrimSpace(patterns); len(pt) > 0 {
		out = append(out, '\n')
		out = append(append(out, pt...), '\n')
	}
	return out, nil
}

// newRootFile is the file that records the package's imports and renders
// its header: the file comment, naming the schema files sources, and the
// package clause.
func newRootFile(pkg string, sources []string) *jen.File {
	f := jen.NewFile(pkg)
	// Formatting is done below, so that a failure reports the first error
	// with a few lines around it instead of the whole source.
	f.NoFormat = true
	f.HeaderComment(Header)
	if len(sources) > 0 {
		f.HeaderComment("Source schemas: " + textsafe.Escape(strings.Join(sources, ", ")))
	}
	f.ImportName(WirePath, "wire")
	f.ImportName(CheckPath, "check")
	f.ImportName(jsonPath, "json")
	return f
}

// markEmbedded records the embedded structs whose member-wise encoder
// (checker) a struct that embeds them calls.
func (g *gen) markEmbedded(p *model.Package) {
	for _, t := range p.Types {
		if t.External != nil || t.Struct == nil || t.Struct.Embed == nil {
			continue
		}
		for _, r := range runs(t.Struct.Fields) {
			fs := t.Struct.Fields[r.from:r.to]
			if r.inherited && g.anyCode(fs, (*gen).encodeField) {
				g.usesEncode[t.Struct.Embed] = true
			}
			if r.inherited && g.anyCode(fs, (*gen).checkField) {
				g.usesCheck[t.Struct.Embed] = true
			}
		}
	}
}

// headRoom is the room left at the start of the body for the header.
const headRoom = 64 << 10

// renderTypes renders the code of every type of p, then the completeness
// checks, into a body that starts with headRoom bytes of room for the
// header, and returns the cases of Lookup.
//
// Each type's code is rendered as soon as it is built, so that the
// syntax trees of one type at a time are alive, not the package's: on a
// schema of 100,000 small types they were most of the memory. The root
// file f only records the imports the code uses, in the order it uses
// them, so that names are given as a single rendering would give them.
// The header is rendered last (it names the imports the body uses):
// putting it in the room in front then copies no more than the header.
func (g *gen) renderTypes(f *jen.File, p *model.Package) (body []byte, cases lookupCases, err error) {
	var buf bytes.Buffer
	buf.Write(make([]byte, headRoom))
	flush := func(part *jen.File, what string) error {
		buf.WriteByte('\n')
		if err := part.Group.RenderWithFile(&buf, f); err != nil {
			return fmt.Errorf("emit: generated code for %s does not parse (a generator bug): %w", what, err)
		}
		return nil
	}
	for _, t := range p.Types {
		if t.External != nil {
			continue
		}
		g.f = jen.NewFile(p.Name)
		if err := g.typ(t); err != nil {
			return nil, cases, err
		}
		if err := flush(g.f, t.Name); err != nil {
			return nil, cases, err
		}
	}
	g.f = jen.NewFile(p.Name)
	cases = g.lookup(p)
	if err := flush(g.f, "the completeness checks"); err != nil {
		return nil, cases, err
	}
	return buf.Bytes(), cases, nil
}

// renderPatterns renders the package-level variables of the schemas'
// patterns, if any.
func (g *gen) renderPatterns(f *jen.File) ([]byte, error) {
	if len(g.order) == 0 {
		return nil, nil
	}
	var defs []jen.Code
	for _, p := range g.order {
		defs = append(defs, jen.Id(g.patterns[p]).Op("=").Qual("sync", "OnceValue").Call(
			jen.Func().Params().Op("*").Qual("regexp", "Regexp").Block(
				jen.Return(jen.Qual("regexp", "MustCompile").Call(jen.Lit(p))))))
	}
	vars := jen.Comment("The schemas' patterns, each compiled when first used, so that importing the package costs no compilation.").Line().Var().Defs(defs...)
	var patterns bytes.Buffer
	if err := vars.RenderWithFile(&patterns, f); err != nil {
		return nil, fmt.Errorf("emit: generated code for the patterns does not parse (a generator bug): %w", err)
	}
	return patterns.Bytes(), nil
}

// withHeader puts the header (package clause and the imports the code
// registered in f), formatted, in front of the body, in its head room
// when it fits.
func withHeader(f *jen.File, pkg string, body []byte) ([]byte, error) {
	var head bytes.Buffer
	if err := f.Render(&head); err != nil {
		return nil, fmt.Errorf("emit: rendering package %s: %w", pkg, err)
	}
	header, err := format.Source(head.Bytes())
	if err != nil {
		return nil, fmt.Errorf("emit: generated code for package %s does not parse (a generator bug): %s", pkg, sourceError(head.Bytes(), err))
	}
	if len(header) <= headRoom {
		src := body[headRoom-len(header):]
		copy(src, header)
		return src, nil
	}
	return append(header, body[headRoom:]...), nil
}

// formatBody returns src formatted; the body was formatted a type at a
// time. extra is the room to leave for what follows it.
func formatBody(src []byte, extra int, pkg string) ([]byte, error) {
	if moved, ok := typesFirst(src, extra); ok {
		// Every declaration was formatted with its type, and typesFirst
		// puts one blank line between declarations, as gofmt does: the
		// file is formatted (TestOutputIsGofmt holds it to that).
		return moved, nil
	}
	out, err := formatChunked(src, formatChunk, extra)
	if err != nil {
		return nil, fmt.Errorf("emit: generated code for package %s does not parse (a generator bug): %s", pkg, sourceError(src, err))
	}
	return out, nil
}

// typesFirst moves every type declaration (with its doc comment) before
// the functions, methods and variables, keeping the order within each, so
// that a reader meets the package's types first and its codecs after. It
// works on gofmt's output, where every top-level declaration starts and
// ends at column 0; ok is false when the source does not split that way.
// The result has room for extra more bytes.
func typesFirst(src []byte, extra int) ([]byte, bool) {
	// The source is scanned a line at a time and only the spans of the
	// declarations are kept: the source of a large schema is hundreds of
	// megabytes, and this copies it once.
	at := 0 // the start of the next line
	next := func() ([]byte, bool) {
		if at > len(src) {
			return nil, false
		}
		end := bytes.IndexByte(src[at:], '\n')
		if end < 0 {
			l := src[at:]
			at = len(src) + 1
			return l, true
		}
		l := src[at : at+end]
		at += end + 1
		return l, true
	}
	// The header, the package clause and the imports stay first.
	headEnd := -1 // the end of the header's last line
	for l, ok := next(); ok; l, ok = next() {
		if bytes.HasPrefix(l, []byte("import (")) {
			for ok && string(l) != ")" {
				l, ok = next()
			}
			if ok {
				headEnd = at - 1
			}
			break
		}
		if bytes.HasPrefix(l, []byte("import ")) {
			headEnd = at - 1
			break
		}
	}
	if headEnd < 0 || at > len(src) {
		return nil, false
	}
	type span struct{ from, to int } // bytes of a declaration, without its last newline
	var types, rest []span
	for {
		from := at
		l, ok := next()
		if !ok {
			break
		}
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		for ok && bytes.HasPrefix(l, []byte("//")) {
			l, ok = next()
		}
		if !ok {
			return nil, false
		}
		decl := string(l)
		if !strings.HasPrefix(decl, "type ") && !strings.HasPrefix(decl, "func ") && !strings.HasPrefix(decl, "var ") && !strings.HasPrefix(decl, "const ") {
			return nil, false
		}
		if strings.HasSuffix(decl, "{") || strings.HasSuffix(decl, "(") {
			end := "}"
			if strings.HasSuffix(decl, "(") {
				end = ")"
			}
			for ok && string(l) != end {
				l, ok = next()
			}
			if !ok {
				return nil, false
			}
		}
		sp := span{from, min(at, len(src)+1) - 1}
		if strings.HasPrefix(decl, "type ") {
			types = append(types, sp)
		} else {
			rest = append(rest, sp)
		}
	}
	out := make([]byte, 0, len(src)+len(types)+len(rest)+2+extra)
	// One blank line before every declaration, as gofmt puts it.
	out = append(out, src[:headEnd]...)
	out = append(out, '\n')
	for _, s := range append(types, rest...) {
		out = append(out, '\n')
		out = append(append(out, unalign(src[s.from:s.to])...), '\n')
	}
	return out, true
}

// unalign undoes gofmt's alignment of adjacent one-line functions (the
// marker methods of a type that is a variant of several unions): once
// typesFirst puts a blank line between them, gofmt writes each with one
// space before its empty body.
func unalign(decl []byte) []byte {
	if !bytes.HasPrefix(decl, []byte("func ")) || !bytes.HasSuffix(decl, []byte("  {}")) || bytes.IndexByte(decl, '\n') >= 0 {
		return decl
	}
	body := len(decl) - len("{}")
	end := body
	for end > 0 && decl[end-1] == ' ' {
		end--
	}
	return append(append(decl[:end:end], ' '), decl[body:]...)
}

// contextLines is how many lines before and after the faulty one a source
// error shows, and maxLineShown how much of each line.
const (
	contextLines = 2
	maxLineShown = 160
)

// sourceError describes a failure to parse generated source: the first
// error, how many more there are, and the lines around the first one. It
// never repeats the whole source, which may be megabytes long.
func sourceError(src []byte, err error) string {
	var list scanner.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return err.Error()
	}
	first := list[0]
	var sb strings.Builder
	sb.WriteString(first.Error())
	if len(list) > 1 {
		fmt.Fprintf(&sb, " (and %d more errors)", len(list)-1)
	}
	line := first.Pos.Line
	if line < 1 {
		return sb.String()
	}
	lines := bytes.Split(src, []byte("\n"))
	for n := max(1, line-contextLines); n <= min(len(lines), line+contextLines); n++ {
		text := strings.TrimRight(string(lines[n-1]), "\r")
		if len(text) > maxLineShown {
			cut := maxLineShown
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
			text = text[:cut] + " …"
		}
		mark := "  "
		if n == line {
			mark = "> "
		}
		fmt.Fprintf(&sb, "\n%s%5d | %s", mark, n, text)
	}
	return sb.String()
}
