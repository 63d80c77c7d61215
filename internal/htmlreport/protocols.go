package htmlreport

// Protocol is how the page draws one protocol's traces: the names of its
// two lanes, and whether its traffic flows one way.
type Protocol struct {
	// Name is the protocol's name, as findings and summaries write it.
	Name string
	// Lanes name the client's side and the other peer's side.
	Lanes [2]string
	// OneWay marks a stream the client only reads (Arcan's AgentEvent
	// stream): every message is the other peer's, so a message whose
	// direction the engine could not tell is drawn in that peer's lane.
	OneWay bool
}

// Protocols is the page's one list of the protocols it draws; a protocol
// not in it gets two lanes, client and agent, and traffic both ways.
func Protocols() []Protocol {
	return []Protocol{
		{Name: "acp", Lanes: [2]string{"client", "agent"}},
		{Name: "arcp", Lanes: [2]string{"client", "runtime"}},
		{Name: "arcan", Lanes: [2]string{"consumer", "agent loop"}, OneWay: true},
	}
}

// drawing returns how the page draws traces of the protocol named.
func drawing(name string) Protocol {
	for _, p := range Protocols() {
		if p.Name == name {
			return p
		}
	}
	return Protocol{Name: name, Lanes: [2]string{"client", "agent"}}
}
