package validate

import "github.com/agentproto/agentproto/pkg/validate/protocol"

// MessageInfo is what the engine made of one record of a trace, for a view
// of the trace itself (FileOptions.Message): the record, the type the rules
// named, the side that sent it and the request it answers, as the rules
// decided them.
type MessageInfo struct {
	Line int // 1-based line of the record
	// Data is the record's bytes, valid only during the call: copy what
	// is kept. A line over the size limit holds what was read of it.
	Data []byte
	// Label is the message type as the summary counts it
	// ("session/prompt", "response", "job.event"); "" if none was told.
	Label string
	// From is "client" or "agent" (ARCP's runtime is the agent), from the
	// direction sidecar or, without one, from who may send the message;
	// "" when it cannot be told.
	From string
	// Answers is the line of the request this message answers (0: none).
	Answers int
	// Parsed reports whether the record was read whole and parsed.
	Parsed bool
	// Annotation is what the record shows a reader of the trace, as its
	// protocol reads it (protocol.Annotator): its brief, its sessions,
	// jobs or runs, the lifecycles it moves and the implementation it
	// names. Its slices belong to the receiver.
	Annotation protocol.Annotation
}

// tell hands one record to FileOptions.Message.
func (r *fileRun) tell(it *item) {
	if r.message == nil {
		return
	}
	m := &it.m
	from := m.From
	if from == "" {
		from = m.Dir
	}
	info := MessageInfo{Line: m.Line, Data: m.Data, Label: m.Label, From: r.e.lane(from), Answers: m.Answers, Parsed: it.bad == nil}
	if it.bad == nil {
		info.Annotation = r.annotate(m)
	}
	r.message(info)
}

// lane returns "client" for a side or a sidecar token that names a
// protocol's client, "agent" for one that names the other peer (ARCP's
// runtime), as the registry's protocols name them, and "" for any other.
func (e *Engine) lane(side string) string {
	for _, name := range e.reg.Protocols() {
		switch e.reg.Protocol(name).Side(side) {
		case 0:
			return "client"
		case 1:
			return "agent"
		}
	}
	return ""
}

// annotate asks each protocol's annotator of the trace in turn what a
// parsed record shows; the first that reads it says. The record need not
// be of the trace's protocol, nor the trace of any: a reader of the trace
// sees what each message is. It runs on the goroutine that reports, in
// trace order, after the protocol's Handler stepped the record.
func (r *fileRun) annotate(m *protocol.Message) protocol.Annotation {
	if r.annotators == nil {
		r.annotators = []protocol.Annotator{}
		for _, rules := range r.e.rules {
			if a, ok := rules.(protocol.Annotating); ok {
				r.annotators = append(r.annotators, a.Annotator())
			}
		}
	}
	for _, a := range r.annotators {
		if an, ok := a.Annotate(m); ok {
			return an
		}
	}
	return protocol.Annotation{}
}
