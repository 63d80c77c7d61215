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
	}, Protocols: HTMLProtocols(o.Rules)})
	return &HTML{out: newOut(w), r: r}
}

// HTMLProtocols says how the page draws each protocol's traces, as the
// registry c reads (the embedded one when c has none) describes them: the
// names of the two lanes, and whether the traffic flows one way.
func HTMLProtocols(c Catalogue) []htmlreport.Protocol {
	reg := c.registry()
	if reg == nil {
		return nil // the page draws a client and an agent
	}
	var out []htmlreport.Protocol
	for _, name := range reg.Protocols() {
		p := reg.Protocol(name)
		out = append(out, htmlreport.Protocol{Name: name, Lanes: p.Lanes, OneWay: p.OneWay})
	}
	return out
}

// HTMLMessage is a record as the page takes it: the engine's view of it
// and its protocol's annotation.
func HTMLMessage(m validate.MessageInfo) htmlreport.Message {
	a := &m.Annotation
	hm := htmlreport.Message{Line: m.Line, Data: m.Data, Label: m.Label, From: m.From, Answers: m.Answers, Parsed: m.Parsed,
		Brief: a.Brief, Groups: a.Groups, Peer: a.Peer, Pairs: a.Answers}
	if len(a.Steps) > 0 {
		hm.Steps = make([]htmlreport.Step, len(a.Steps))
		for i, s := range a.Steps {
			hm.Steps[i] = htmlreport.Step(s)
		}
	}
	return hm
}

// Finding keeps f for its trace's page.
func (h *HTML) Finding(f validate.Finding) {
	if h.err == nil {
		h.r.Finding(f)
	}
}

// Records returns what draws each record of the trace name.
func (h *HTML) Records(name string) func(validate.MessageInfo) {
	return func(m validate.MessageInfo) { h.r.Message(name, HTMLMessage(m)) }
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
