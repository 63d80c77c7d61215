package validate

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
	switch from {
	case "client", "c2a", "c2r":
		from = "client"
	case "agent", "runtime", "a2c", "r2c":
		from = "agent"
	default:
		from = ""
	}
	r.message(MessageInfo{Line: m.Line, Data: m.Data, Label: m.Label, From: from, Answers: m.Answers, Parsed: it.bad == nil})
}
