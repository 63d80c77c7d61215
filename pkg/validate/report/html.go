package report

import (
	"io"

	"github.com/agentproto/agentproto/internal/htmlreport"
	"github.com/agentproto/agentproto/pkg/validate"
)

// HTML is --format html: one self-contained page of every trace, both
// peers' messages in lanes and every finding at its message, collected as
// the traces are checked and written at the end. Its findings carry their
// rule's description, as SARIF's do.
type HTML struct {
	out
	r *htmlreport.Report
}

// NewHTML returns an HTML writer on w.
func NewHTML(w io.Writer, o Options) *HTML {
	help := o.Rules.Help()
	r := htmlreport.New(htmlreport.Options{RuleHelp: func(rule string) string {
		d, _ := help.Lookup(rule)
		return d.Text
	}})
	return &HTML{out: newOut(w), r: r}
}

// Finding keeps f for its trace's page.
func (h *HTML) Finding(f validate.Finding) {
	if h.err == nil {
		h.r.Finding(f)
	}
}

// Records returns what draws each record of the trace name.
func (h *HTML) Records(name string) func(validate.MessageInfo) {
	return func(m validate.MessageInfo) { h.r.Message(name, m) }
}

// EndTrace ends the trace's page.
func (h *HTML) EndTrace(name string, sum validate.Summary) {
	if h.err == nil {
		h.r.End(name, sum)
	}
	h.Flush()
}

// End writes the page.
func (h *HTML) End(Totals) {
	if h.err != nil {
		return
	}
	if _, err := h.r.WriteTo(h.w); err != nil {
		h.err = err
	}
}
