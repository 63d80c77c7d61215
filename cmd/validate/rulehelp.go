package main

import (
	_ "embed"
	"fmt"
	"io"
	"strings"
)

// readme is this command's README: its rule table is the one description
// of every rule, shown by the SARIF output as each rule's help.
//
//go:embed README.md
var readme string

// ruleDoc is one row of the README's rule table.
type ruleDoc struct {
	severity string // "error", "warning" or "error / warning"
	text     string // what the rule catches, Markdown code marks removed
}

// ruleDocs parses the README's rule table: rows "| `rule` | severity | text |".
func ruleDocs() map[string]ruleDoc {
	docs := map[string]ruleDoc{}
	in := false
	for _, line := range strings.Split(readme, "\n") {
		if strings.HasPrefix(line, "## ") {
			in = strings.TrimSpace(line) == "## Rules"
			continue
		}
		if !in || !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) < 3 {
			continue
		}
		name := strings.Trim(cells[0], "`")
		docs[name] = ruleDoc{severity: cells[1], text: strings.ReplaceAll(strings.Join(cells[2:], " | "), "`", "")}
	}
	return docs
}

// ruleHelp returns the description of rule: its README row, or for an
// ARCP deviation rule the row of deviation:<id>.
func ruleHelp(docs map[string]ruleDoc, rule string) (ruleDoc, bool) {
	if d, ok := docs[rule]; ok {
		return d, true
	}
	if strings.HasPrefix(rule, "deviation:") {
		d, ok := docs["deviation:<id>"]
		return d, ok
	}
	return ruleDoc{}, false
}

// firstSentence is the text up to its first ". " or ": ", for a short
// description.
func firstSentence(s string) string {
	for _, sep := range []string{". ", "; "} {
		if i := strings.Index(s, sep); i > 0 {
			s = s[:i]
		}
	}
	return strings.TrimSuffix(s, ".")
}

// explainRule prints a rule's description (--explain RULE), wrapped for
// a terminal.
func explainRule(w io.Writer, rule string, d ruleDoc) {
	fmt.Fprintf(w, "rule %s (%s)\n", rule, d.severity)
	line := " "
	for _, word := range strings.Fields(d.text) {
		if len(line)+1+len(word) > 78 && line != " " {
			fmt.Fprintln(w, line)
			line = " "
		}
		line += " " + word
	}
	if line != " " {
		fmt.Fprintln(w, line)
	}
}
