package emit

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/agentproto/agentproto/internal/textsafe"
)

// comment renders a description as // lines, with prose wrapped near 80
// columns.
func comment(doc string) *jen.Statement {
	doc = strings.TrimSpace(doc)
	if doc == "" {
		return jen.Null()
	}
	lines := wrapDoc(strings.Split(doc, "\n"))
	// A description is copied as text: control characters and the
	// bidirectional controls that would reorder what an editor shows
	// ("Trojan Source") are escaped, and no line break is left to end
	// the comment.
	s := jen.Comment(textsafe.Escape(strings.TrimRight(lines[0], " \t")))
	for _, l := range lines[1:] {
		s.Line().Comment(textsafe.Escape(strings.TrimRight(l, " \t")))
	}
	return s
}

// wrapWidth is where doc comment prose is wrapped (the text after "// ").
const wrapWidth = 76

// wrapDoc wraps the long prose lines of a description at spaces. Lines that
// are not plain prose (indented, list items, tables, headings, quotes, and
// everything inside a ``` fence) are kept as they are, and so is a word
// longer than the width.
func wrapDoc(lines []string) []string {
	var out []string
	fenced := false
	for _, l := range lines {
		t := strings.TrimRight(l, " \t")
		if strings.HasPrefix(strings.TrimSpace(t), "```") {
			fenced = !fenced
			out = append(out, t)
			continue
		}
		if fenced || len(t) <= wrapWidth || !prose(t) {
			out = append(out, t)
			continue
		}
		cur := ""
		for _, w := range strings.Fields(t) {
			switch {
			case cur == "":
				cur = w
			case len(cur)+1+len(w) > wrapWidth:
				out = append(out, cur)
				cur = w
			default:
				cur += " " + w
			}
		}
		out = append(out, cur)
	}
	return out
}

// prose reports whether a description line is a plain paragraph line.
func prose(l string) bool {
	if l == "" || l[0] == ' ' || l[0] == '\t' {
		return false
	}
	for _, p := range []string{"- ", "* ", "+ ", "|", "#", ">"} {
		if strings.HasPrefix(l, p) {
			return false
		}
	}
	if i := strings.IndexAny(l, ".)"); i > 0 && i < 4 && strings.Trim(l[:i], "0123456789") == "" {
		return false // a numbered list item
	}
	return true
}

// list joins Go names as prose: A, B and C.
func list(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
