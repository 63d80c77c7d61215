package main

import (
	"github.com/agentproto/agentproto/internal/htmlreport"
	"github.com/agentproto/agentproto/pkg/validate"
)

// --format html: one self-contained page of every trace (package
// htmlreport), collected as the traces are checked and written at the end.

// htmlMessages returns what is told each record of the trace name, for
// --format html; nil for the other formats.
func (p *printer) htmlMessages(name string) func(validate.MessageInfo) {
	if p.html == nil {
		return nil
	}
	return func(m validate.MessageInfo) { p.html.Message(name, m) }
}

// htmlFile ends the trace name in the report.
func (p *printer) htmlFile(name string, sum validate.Summary) {
	if p.html != nil {
		p.html.End(name, sum)
	}
}

// htmlEnd writes the report.
func (p *printer) htmlEnd() {
	if _, err := p.html.WriteTo(p.w); err != nil && p.werr == nil {
		p.werr = err
	}
}

// newHTMLReport starts a report whose findings carry their rule's
// description from the README's rule table, as SARIF's do.
func newHTMLReport() *htmlreport.Report {
	docs := ruleDocs()
	return htmlreport.New(htmlreport.Options{RuleHelp: func(rule string) string {
		d, _ := ruleHelp(docs, rule)
		return d.text
	}})
}
