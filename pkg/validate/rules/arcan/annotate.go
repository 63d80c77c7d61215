package arcan

import (
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// What an Arcan event shows a reader of the trace (protocol.Annotation):
// its part type, its run, the run's and its tool calls' lifecycles, and
// the provider run_started names.

var _ protocol.Annotating = (*Rules)(nil)

// Annotator returns a new annotator of one trace's Arcan events.
func (*Rules) Annotator() protocol.Annotator { return annotator{} }

// annotator reads each event on its own: an event names its run and its
// tool call.
type annotator struct{}

// Annotate reads an event (one with a "part_type" member).
func (annotator) Annotate(m *protocol.Message) (protocol.Annotation, bool) {
	var an protocol.Annotation
	if !m.IsObject() || !m.NonNull("/part_type") {
		return an, false
	}
	pt := m.Str("/part_type")
	run := m.Str("/run_id")
	if run != "" {
		an.Groups = []string{"run " + run}
	}
	an.Brief = pt
	if pt == "run_started" {
		if p := m.Str("/provider"); p != "" {
			an.Peer = finding.Peer{Side: "agent", Name: "Arcan agent loop, provider " + protocol.Short(p, 80)}
		}
	}
	if d := m.Str("/delta"); d != "" {
		an.Brief += ": " + protocol.Short(d, 80)
	}
	call, tool := m.Str("/call/call_id"), m.Str("/call/tool_name")
	if call == "" {
		call, tool = m.Str("/result/call_id"), m.Str("/result/tool_name")
	}
	if call == "" {
		call = m.Str("/call_id")
	}
	if call != "" {
		state := pt
		if tool != "" {
			state += ": " + protocol.Short(tool, 40)
		}
		an.Brief = state
		an.Steps = append(an.Steps, protocol.Step{Kind: "tool call", ID: call, Group: "run " + run, State: state, Line: m.Line})
	}
	if run != "" {
		state := pt
		if s := m.Str("/status"); s != "" {
			state += " " + s
		} else if s := m.Str("/reason"); s != "" {
			state += " " + s
		}
		an.Steps = append(an.Steps, protocol.Step{Kind: "run", ID: run, Group: "run " + run, State: state, Line: m.Line})
	}
	return an, true
}
