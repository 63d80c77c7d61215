package main

import (
	"github.com/agentproto/agentproto/internal/htmlreport"
)

// --format html: one self-contained page of every trace (package
// htmlreport), collected as the traces are checked and written at the end
// (htmlFormat).

// newHTMLReport starts a report whose findings carry their rule's
// description from the README's rule table, as SARIF's do.
func newHTMLReport() *htmlreport.Report {
	docs := ruleDocs()
	return htmlreport.New(htmlreport.Options{RuleHelp: func(rule string) string {
		d, _ := ruleHelp(docs, rule)
		return d.text
	}})
}
