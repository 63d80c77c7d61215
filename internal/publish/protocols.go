package publish

// A protocol is what the publisher knows of one protocol of the registry:
// how its dispatch table becomes a bundle's messages, how the bundle's root
// dispatches, and what its reference page says.
type protocol struct {
	name string
	// title names the protocol on its reference page and in the index;
	// intro opens the page.
	title, intro string
	// discriminator is the member the root dispatches on.
	discriminator string
	// entries reads the version's dispatch table into b's messages
	// (Messages, Events), adding each schema file it names with add
	// (the file relative to the version's folder, and its definition's
	// name, "" for the file's own), and returns the envelope every line
	// is checked with (a path from src), or "".
	entries func(b *Bundle, table *Object, add func(file, name string) error, src func(string) string) (envelope string, err error)
	// dispatch fills in the bundle's root (see Bundle.dispatch).
	dispatch func(b *Bundle, defs *Object, envelope string) error
	// docTable and docMessage write the dispatch table and a message's
	// section of the reference page; nil: those of a root that
	// dispatches whole lines (renderer.dispatchTable, renderer.message).
	docTable   func(r *renderer)
	docMessage func(r *renderer, m Message)
}

// protocols is the publisher's one list of protocols.
func protocols() []protocol {
	return []protocol{
		{
			name: "acp", title: "ACP",
			intro: "ACP, the Agent Client Protocol, is JSON-RPC 2.0 between an editor (the client) and a coding agent, one message per line over stdio. " +
				"Each method has a schema for its params and, if it is a request, one for its result; the JSON-RPC envelope has a schema of its own.",
			discriminator: "method", entries: acpEntries, dispatch: acpDispatch,
			docTable: acpDocTable, docMessage: acpDocMessage,
		},
		{
			name: "arcp", title: "ARCP",
			intro: "ARCP, the Agent Runtime Control Protocol, lets a client open a session with an agent runtime, submit jobs, and receive job events and one terminal result per job. " +
				"Every line is an envelope whose `type` selects the schema of the whole line. Canonical v1.1 and the Rust SDK's RFC-0001-v2 dialect are separate schema sets.",
			discriminator: "type", entries: arcpEntries, dispatch: arcpDispatch,
		},
		{
			name: "arcan", title: "Arcan AgentEvent",
			intro: "Arcan's AgentEvent stream is the event stream of the Arcan agent runtime: flat JSON objects tagged by `part_type`, sent as JSONL lines or SSE frames. " +
				"Arcan's session store writes the same events wrapped in records.",
			discriminator: "part_type", entries: arcanEntries, dispatch: arcanDispatch,
		},
	}
}

// lookupProtocol returns the protocol named name.
func lookupProtocol(name string) (protocol, bool) {
	for _, p := range protocols() {
		if p.name == name {
			return p, true
		}
	}
	return protocol{}, false
}
