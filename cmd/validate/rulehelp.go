package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

//go:generate go run ./internal/ruletable -readme README.md

// explainRule prints a rule's description (--explain RULE), wrapped for
// a terminal.
func explainRule(w io.Writer, rule string, d protocol.RuleDoc) {
	fmt.Fprintf(w, "rule %s (%s)\n", rule, d.Severity)
	line := " "
	for _, word := range strings.Fields(d.Text) {
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
