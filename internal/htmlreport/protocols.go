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

// drawing returns how the page draws traces of the protocol named: as
// Options.Protocols says, else in two lanes, client and agent, both ways.
func (r *Report) drawing(name string) Protocol {
	for _, p := range r.opts.Protocols {
		if p.Name == name {
			return p
		}
	}
	return Protocol{Name: name, Lanes: [2]string{"client", "agent"}}
}
