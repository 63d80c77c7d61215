package acp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// What an ACP message shows a reader of the trace (protocol.Annotation):
// its brief, its session, the tool calls, permission requests, plans and
// terminals it moves, and the implementations initialize names. Unlike
// the rules, which read the registry's tables, this names the members a
// person looks for in a message, by their names in ACP's schemas.

var _ protocol.Annotating = (*Rules)(nil)

// Annotator returns a new annotator of one trace's ACP messages.
func (*Rules) Annotator() protocol.Annotator {
	return &annotator{asked: map[int]*asked{}}
}

// annotator follows the requests of a trace, for their answers.
type annotator struct {
	// asked holds, by line, the requests that may be answered: their
	// method and sessions, for their answers.
	asked map[int]*asked
}

// asked is a request still to be answered.
type asked struct {
	method string
	groups []string
	// command is a terminal/create's command, for the step its answer
	// adds to the terminal's lifecycle.
	command string
}

// Annotate reads a JSON-RPC message (one with a "jsonrpc" member).
func (a *annotator) Annotate(m *protocol.Message) (protocol.Annotation, bool) {
	var an protocol.Annotation
	if !m.IsObject() || !m.NonNull("/jsonrpc") {
		return an, false
	}
	method := m.Str("/method")
	sid := m.Str("/params/sessionId")
	if sid == "" {
		sid = m.Str("/result/sessionId")
	}
	var req *asked
	if m.Answers > 0 {
		req = a.asked[m.Answers]
		delete(a.asked, m.Answers) // each request is answered once
	}
	if sid != "" {
		an.Groups = []string{"session " + sid}
	} else if req != nil {
		an.Groups = req.groups
	}
	group := ""
	if len(an.Groups) > 0 {
		group = an.Groups[0]
	}
	life := func(kind, id string, line int, state string) {
		an.Steps = append(an.Steps, protocol.Step{Kind: kind, ID: id, Group: group, State: state, Line: line})
	}
	if method != "" && m.NonNull("/id") {
		q := &asked{method: method, groups: an.Groups}
		if method == "terminal/create" {
			q.command = protocol.Short(m.Str("/params/command"), 60)
		}
		a.asked[m.Line] = q
	}
	switch {
	case method == "initialize":
		// ACP v1 names the client in clientInfo, v2 in info.
		an.Peer = peer(m, "client", "/params/clientInfo", "/params/info")
		an.Brief = fmt.Sprintf("protocolVersion %v", m.Plain("/params/protocolVersion"))
	case method == "session/update":
		const u = "/params/update"
		kind := m.Str(u + "/sessionUpdate")
		an.Brief = kind
		switch {
		case m.Str(u+"/toolCallId") != "" && strings.HasPrefix(kind, "tool_call"):
			state := kind
			if s := m.Str(u + "/status"); s != "" {
				state += " " + s
			}
			if t := m.Str(u + "/title"); t != "" {
				state += ": " + protocol.Short(t, 60)
			}
			an.Brief = state
			life("tool call", m.Str(u+"/toolCallId"), m.Line, state)
		case m.Str(u+"/terminalId") != "":
			state := kind
			if c := m.Str(u + "/command"); c != "" {
				state += ": " + protocol.Short(c, 60)
			}
			if x := m.Plain(u + "/exitStatus/exitCode"); x != nil {
				state += fmt.Sprintf(" exit %v", x)
			}
			an.Brief = state
			life("terminal", m.Str(u+"/terminalId"), m.Line, state)
		case strings.HasPrefix(kind, "plan"):
			entries := m.At(u + "/entries")
			if _, ok := entries.([]any); !ok {
				entries = m.At(u + "/plan/entries")
			}
			state := kind + ": " + planState(entries)
			id := m.Str(u + "/planId")
			if id == "" {
				id = m.Str(u + "/plan/planId")
			}
			if id == "" {
				id = sid
			}
			an.Brief = state
			life("plan", id, m.Line, state)
		default:
			if t := m.Str(u + "/content/text"); t != "" {
				an.Brief += ": " + protocol.Short(t, 80)
			}
		}
	case method == "session/request_permission":
		state := "asked"
		if t := m.Str("/params/toolCall/title"); t != "" {
			state += ": " + protocol.Short(t, 60)
		}
		an.Brief = state
		life("permission", fmt.Sprintf("line %d", m.Line), m.Line, state)
	case strings.HasPrefix(method, "terminal/"):
		if id := m.Str("/params/terminalId"); id != "" {
			an.Brief = method + " " + id
			life("terminal", id, m.Line, method)
		} else if method == "terminal/create" {
			an.Brief = "create: " + protocol.Short(m.Str("/params/command"), 60)
		}
	case method != "":
		an.Brief = method
		if t := m.Str("/params/path"); t != "" {
			an.Brief += " " + protocol.Short(t, 60)
		}
	default: // a response
		a.answer(m, req, &an, life)
	}
	return an, true
}

// answer reads a response to req (nil: a request not seen, or not paired).
func (a *annotator) answer(m *protocol.Message, req *asked, an *protocol.Annotation, life func(kind, id string, line int, state string)) {
	if m.ObjectAt("/error") {
		an.Brief = fmt.Sprintf("error %v: %s", m.Plain("/error/code"), protocol.Short(m.Str("/error/message"), 80))
	} else {
		an.Brief = "result"
	}
	if req == nil {
		return
	}
	switch req.method {
	case "initialize":
		an.Peer = peer(m, "agent", "/result/agentInfo", "/result/info")
	case "session/request_permission":
		state := "answered"
		if oc := m.Str("/result/outcome/outcome"); oc != "" {
			state += ": " + oc
		}
		if id := m.Str("/result/outcome/optionId"); id != "" {
			state += " " + id
		}
		if m.NonNull("/error") {
			state = "answered with an error"
		}
		an.Brief = state
		life("permission", fmt.Sprintf("line %d", m.Answers), m.Line, state)
	case "terminal/create":
		if id := m.Str("/result/terminalId"); id != "" {
			life("terminal", id, m.Answers, "create: "+req.command)
			life("terminal", id, m.Line, "created "+id)
		}
	case "session/prompt":
		if s := m.Str("/result/stopReason"); s != "" {
			an.Brief = "stopReason " + s
		}
	}
}

// peer names the side's implementation from the first of the info
// objects at ptrs that names one.
func peer(m *protocol.Message, side string, ptrs ...string) finding.Peer {
	for _, p := range ptrs {
		if name := m.InfoName(p); name != "" {
			return finding.Peer{Side: side, Name: name}
		}
	}
	return finding.Peer{}
}

// planState sums up a plan's entries by status.
func planState(v any) string {
	entries, _ := v.([]any)
	if len(entries) == 0 {
		return "no entries"
	}
	by := map[string]int{}
	for _, e := range entries {
		o, _ := e.(map[string]any)
		s, _ := o["status"].(string)
		if s == "" {
			s = "no status"
		}
		by[s]++
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", by[k], k)
	}
	return fmt.Sprintf("%d entries (%s)", len(entries), strings.Join(parts, ", "))
}
