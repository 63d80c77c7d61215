package registry

import (
	"fmt"
	"slices"
	"strings"
)

// Protocol is what versions.json says of one protocol's peers and traffic,
// for the tools that handle its traces without reading its tables: how its
// messages are told, how its two sides and a direction sidecar's tokens are
// named, and how a report draws it.
type Protocol struct {
	// Name is the protocol's name ("acp").
	Name string `json:"name"`
	// Messages names its messages in a sentence ("ACP messages").
	Messages string `json:"messages"`
	// Marks are the members that, all present, mark an object as one of
	// its messages ("arcp" and "type").
	Marks []string `json:"marks"`
	// Sides name the client and the other peer, as findings blame them
	// and rules set a message's sender ("client", "runtime").
	Sides [2]string `json:"sides"`
	// Lanes name the client's and the other peer's lanes in a report
	// ("consumer", "agent loop").
	Lanes [2]string `json:"lanes"`
	// Directions are the tokens a direction sidecar writes for a message
	// from the client and for one from the other peer ("c2a", "a2c");
	// empty when the protocol's traces are read without sidecars.
	Directions []string `json:"directions,omitempty"`
	// OneWay marks a stream the client only reads: every message is the
	// other peer's.
	OneWay bool `json:"one_way"`
}

// Side returns 0 when side or a direction token names the client, 1 when
// it names the other peer, and -1 when it names neither.
func (p Protocol) Side(s string) int {
	for i := range 2 {
		if s != "" && (s == p.Sides[i] || len(p.Directions) == 2 && s == p.Directions[i]) {
			return i
		}
	}
	return -1
}

// MarksText writes the marks in a sentence: `"arcp" and "type"`.
func (p Protocol) MarksText() string {
	q := make([]string, len(p.Marks))
	for i, m := range p.Marks {
		q[i] = fmt.Sprintf("%q", m)
	}
	return strings.Join(q, " and ")
}

// Marked reports whether has says every mark is a member of an object.
func (p Protocol) Marked(has func(member string) bool) bool {
	if len(p.Marks) == 0 {
		return false
	}
	for _, m := range p.Marks {
		if !has(m) {
			return false
		}
	}
	return true
}

// defaultProtocol is what a protocol versions.json says nothing of is
// taken to be: a client and an agent, talking both ways.
func defaultProtocol(name string) *Protocol {
	return &Protocol{Name: name, Messages: strings.ToUpper(name) + " messages", Sides: [2]string{"client", "agent"}, Lanes: [2]string{"client", "agent"}}
}

// checkProtocols checks the protocols versions.json describes and keeps
// them, with a default entry for each other protocol of the registry.
func (r *Registry) checkProtocols(list []*Protocol) error {
	r.facts = map[string]*Protocol{}
	for i, p := range list {
		where := fmt.Sprintf("protocols[%d]", i)
		switch {
		case r.kind(p.Name) == nil:
			return fmt.Errorf("%s: protocol %q is none of %s", where, p.Name, strings.Join(r.Protocols(), ", "))
		case r.facts[p.Name] != nil:
			return fmt.Errorf("%s: %s is described twice", where, p.Name)
		case p.Messages == "" || len(p.Marks) == 0 || slices.Contains(p.Marks, ""):
			return fmt.Errorf("%s: %s needs messages and marks, none empty", where, p.Name)
		case p.Sides[0] == "" || p.Sides[1] == "" || p.Sides[0] == p.Sides[1]:
			return fmt.Errorf("%s: %s needs two sides of different names", where, p.Name)
		case p.Lanes[0] == "" || p.Lanes[1] == "":
			return fmt.Errorf("%s: %s needs two lanes", where, p.Name)
		case len(p.Directions) != 0 && (len(p.Directions) != 2 || p.Directions[0] == "" || p.Directions[1] == "" || p.Directions[0] == p.Directions[1]):
			return fmt.Errorf("%s: %s's directions are two different tokens, client to peer first, or none", where, p.Name)
		}
		r.facts[p.Name] = p
	}
	for _, name := range r.Protocols() {
		if r.facts[name] == nil {
			r.facts[name] = defaultProtocol(name)
		}
	}
	return nil
}

// Protocol returns what versions.json says of the protocol name; a
// protocol it says nothing of has a client and an agent, talking both
// ways, and no sidecar tokens.
func (r *Registry) Protocol(name string) Protocol {
	if p := r.facts[name]; p != nil {
		return *p
	}
	return *defaultProtocol(name)
}

// Sidecar returns the tokens a direction sidecar writes for traces of the
// protocol named; for "" (the protocol undecided), those of the protocol
// whose marks the first message carries (with has reporting its members;
// nil when it did not parse as an object), or else of the first protocol
// that has sidecars.
func (r *Registry) Sidecar(name string, has func(member string) bool) [2]string {
	var first, best *Protocol
	for _, n := range r.Protocols() {
		p := r.facts[n]
		if p == nil || len(p.Directions) != 2 {
			continue
		}
		if first == nil {
			first = p
		}
		if n == name {
			return [2]string(p.Directions)
		}
		// The most marks win: an ARCP envelope is told by two members.
		if name == "" && has != nil && p.Marked(has) && (best == nil || len(p.Marks) > len(best.Marks)) {
			best = p
		}
	}
	switch {
	case best != nil:
		return [2]string(best.Directions)
	case first != nil:
		return [2]string(first.Directions)
	}
	return [2]string{}
}
