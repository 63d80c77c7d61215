package protocol

import (
	"encoding/json"
	"strings"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/finding"
)

// Annotation is what one message shows a reader of its trace beyond its
// text, as its protocol reads it: a one-line brief, the sessions, jobs or
// runs it belongs to, the lifecycles (tool calls, permission requests,
// plans, terminals, jobs, runs) it is a step of, the implementation it
// announces, and the request it answers where the protocol pairs them by
// other means than the rules' Answers.
type Annotation struct {
	// Brief says in one line what the message is ("tool_call pending:
	// Read", "stopReason end_turn").
	Brief string
	// Groups name the sessions, jobs or runs the message belongs to
	// ("session s1", "job j1", "run r1"), in the order the message names
	// them.
	Groups []string
	// Steps are the steps of lifecycles the message takes, in order. A
	// step may land on an earlier line than the message's: an answer can
	// tell what its request began (a terminal's create, once the answer
	// names the terminal).
	Steps []Step
	// Peer is the implementation the message announces (Side "client" or
	// "agent", Name with its version); the zero Peer when none.
	Peer finding.Peer
	// Answers is the line of the request the message answers where the
	// protocol correlates them without the rules pairing them (an ARCP
	// job.accepted echoes its job.submit's trace_id); 0 for none.
	Answers int
}

// Step is one step of a lifecycle: the lifecycle's kind and id ("tool
// call" "c1"), the group it belongs to, its state after the step, and the
// line of the step.
type Step struct {
	Kind, ID, Group, State string
	Line                   int
}

// Annotator reads what each message of one trace shows (Annotation). It
// keeps what it needs of the trace so far (the requests still to be
// answered, say), within bounds of its own.
//
// The engine calls it only when someone observes the trace's messages
// (validate.FileOptions.Message), on one goroutine, for every record of
// the trace that parsed, in trace order, after the trace's Handler (if the
// trace has one) has stepped the record, so that Message.Answers and
// Message.From are set. A record need not be of the annotator's protocol:
// the engine asks each protocol's annotator in turn, and the first that
// reads the record annotates it.
type Annotator interface {
	// Annotate returns what m shows, and whether m is a message of the
	// protocol, read (false: another protocol's annotator may read it).
	Annotate(m *Message) (Annotation, bool)
}

// Annotating is implemented by Rules that annotate messages.
type Annotating interface {
	// Annotator returns a new Annotator for one trace.
	Annotator() Annotator
}

// NonNull reports whether a JSON pointer reaches a value other than null.
func (m *Message) NonNull(ptr string) bool {
	n := m.find(ptr)
	return n >= 0 && m.Doc.Type(n) != jsonscan.Null
}

// ObjectAt reports whether a JSON pointer reaches an object.
func (m *Message) ObjectAt(ptr string) bool { return m.Doc.Type(m.find(ptr)) == jsonscan.Object }

// Str returns the string at a JSON pointer, "" if there is none.
func (m *Message) Str(ptr string) string {
	s, _ := m.String(ptr)
	return s
}

// Plain builds the value at a JSON pointer with its numbers as float64
// (as encoding/json decodes them into any), for text that shows the value
// (fmt's %v); nil if the pointer leads nowhere. The message's own value
// (Value) is left as it is.
func (m *Message) Plain(ptr string) any {
	return plain(m.At(ptr))
}

func plain(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return string(x)
		}
		return f
	case map[string]any: // a copy: the message's own value may be shared
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = plain(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

// Short cuts s to n characters, on one line (runs of white space become
// one space), marking a cut with "…".
func Short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// InfoName names an implementation from the info object at a JSON
// pointer ({name, title, version}, or ARCP RFC 0001's {kind, version}):
// "Title (name) version", cut to 120 characters; "" without one.
func (m *Message) InfoName(ptr string) string {
	if !m.ObjectAt(ptr) {
		return ""
	}
	title, name := m.Str(ptr+"/title"), m.Str(ptr+"/name")
	out := title
	if out == "" {
		out = name
	}
	if out == "" {
		out = m.Str(ptr + "/kind")
	} else if name != "" && name != out {
		out += " (" + name + ")"
	}
	if ver := m.Str(ptr + "/version"); ver != "" && out != "" {
		out += " " + ver
	}
	return Short(out, 120)
}
