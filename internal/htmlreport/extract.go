package htmlreport

import (
	"fmt"
	"sort"
	"strings"
)

// What a message shows besides its text: a one-line brief, the sessions,
// jobs or runs it belongs to, the lifecycles it is a step of, and the
// implementations it names. Read from the message's members by the names
// the protocols give them; the engine's decisions (type, sender, the
// request answered) come with the message.

// lifecycle is one tool call, permission request, plan, terminal, job or
// run, and the messages that moved it.
type lifecycle struct {
	kind, id string
	group    string
	steps    []step
	dropped  int // steps past maxSteps, not kept
}

type step struct {
	line  int
	state string
	more  int // messages after line that left the state as it was
}

// maxSteps bounds the steps kept of one lifecycle, maxSubmits the
// unanswered ARCP submits remembered, maxLives the lifecycles and
// maxGroups the sessions, jobs and runs followed in one trace.
const maxSteps, maxSubmits, maxLives, maxGroups, maxPeers = 200, 10000, 20000, 5000, 8

// view is what a trace's messages add up to.
type view struct {
	peers  map[string][]string // "client"/"agent" → implementations
	groups []string
	gindex map[string]int
	lives  []*lifecycle
	lindex map[string]int
	// asked holds, by line, the requests that may be answered: their
	// type and groups, for their answers.
	asked map[int]*asked
	// submits holds the lines of ARCP job.submit messages by the
	// trace_id the runtime echoes on job.accepted.
	submits map[string]int
	// moreLives and moreGroups count the messages that would have begun
	// a lifecycle or a group past the bounds.
	moreLives, moreGroups int
}

type asked struct {
	label  string
	groups []int
	obj    map[string]any
}

func newView() *view {
	return &view{peers: map[string][]string{}, gindex: map[string]int{}, lindex: map[string]int{}, asked: map[int]*asked{}, submits: map[string]int{}}
}

// group returns the index of the session, job or run name; -1 past
// maxGroups.
// peer adds an implementation of a side, once; a trace of several
// connections may name several.
func (v *view) peer(side, name string) {
	have := v.peers[side]
	for _, n := range have {
		if n == name {
			return
		}
	}
	if len(have) < maxPeers {
		v.peers[side] = append(have, name)
	}
}

func (v *view) group(name string) int {
	if i, ok := v.gindex[name]; ok {
		return i
	}
	if len(v.groups) >= maxGroups {
		v.moreGroups++
		return -1
	}
	v.gindex[name] = len(v.groups)
	v.groups = append(v.groups, name)
	return len(v.groups) - 1
}

// addGroup appends the group name to gs, if it is followed.
func (v *view) addGroup(gs []int, name string) []int {
	if i := v.group(name); i >= 0 {
		gs = append(gs, i)
	}
	return gs
}

// addLife adds a step to a lifecycle and appends its index to ls, if it
// is followed.
func (v *view) addLife(ls []int, kind, id, group string, line int, state string) []int {
	if i := v.life(kind, id, group, line, state); i >= 0 {
		ls = append(ls, i)
	}
	return ls
}

// life adds a step to the lifecycle kind/id and returns its index; -1
// past maxLives.
func (v *view) life(kind, id, group string, line int, state string) int {
	k := kind + "\x00" + id
	i, ok := v.lindex[k]
	if !ok {
		if len(v.lives) >= maxLives {
			v.moreLives++
			return -1
		}
		i = len(v.lives)
		v.lindex[k] = i
		v.lives = append(v.lives, &lifecycle{kind: kind, id: id, group: group})
	}
	l := v.lives[i]
	if l.group == "" {
		l.group = group
	}
	if n := len(l.steps); n > 0 && l.steps[n-1].state == state && l.steps[n-1].line < line {
		l.steps[n-1].more++
		return i
	}
	if len(l.steps) >= maxSteps {
		l.dropped++
		return i
	}
	l.steps = append(l.steps, step{line: line, state: state})
	return i
}

// facts is what one message shows.
type facts struct {
	brief string
	// answers is the line of the request a message answers, where the
	// protocol correlates them and the engine does not pair them (an
	// ARCP job.accepted echoes its job.submit's trace_id).
	answers int
	groups  []int
	lives   []int
}

// str reads a string member at a path of object keys.
func str(o map[string]any, path ...string) string {
	v := at(o, path...)
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

func at(o map[string]any, path ...string) any {
	var v any = o
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// short cuts s to n characters, on one line.
func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// infoName names an implementation from an info object ({name, title,
// version}).
func infoName(o any) string {
	m, ok := o.(map[string]any)
	if !ok {
		return ""
	}
	name := str(m, "title")
	if name == "" {
		name = str(m, "name")
	}
	if name == "" {
		name = str(m, "kind") // ARCP RFC 0001
	} else if n := str(m, "name"); n != "" && n != name {
		name += " (" + n + ")"
	}
	if ver := str(m, "version"); ver != "" && name != "" {
		name += " " + ver
	}
	return short(name, 120)
}

// observe reads one kept message.
func (v *view) observe(rw *row) facts {
	o := rw.obj
	if o == nil {
		return facts{}
	}
	switch {
	case o["jsonrpc"] != nil:
		return v.acp(rw, o)
	case o["arcp"] != nil && o["type"] != nil:
		return v.arcp(rw, o)
	case o["part_type"] != nil:
		return v.arcan(rw, o)
	}
	return facts{}
}

func (v *view) acp(rw *row, o map[string]any) facts {
	var f facts
	method := str(o, "method")
	sid := str(o, "params", "sessionId")
	if sid == "" {
		sid = str(o, "result", "sessionId")
	}
	var req *asked
	if rw.answers > 0 {
		req = v.asked[rw.answers]
		delete(v.asked, rw.answers) // each request is answered once
	}
	if sid != "" {
		f.groups = v.addGroup(f.groups, "session "+sid)
	} else if req != nil {
		f.groups = req.groups
	}
	gname := ""
	if len(f.groups) > 0 {
		gname = v.groups[f.groups[0]]
	}
	if method != "" && o["id"] != nil {
		a := &asked{label: method, groups: f.groups}
		if method == "terminal/create" {
			a.obj = o
		}
		v.asked[rw.line] = a
	}
	switch {
	case method == "initialize":
		// ACP v1 names the client in clientInfo, v2 in info.
		for _, k := range []string{"clientInfo", "info"} {
			if p := infoName(at(o, "params", k)); p != "" {
				v.peer("client", p)
				break
			}
		}
		f.brief = fmt.Sprintf("protocolVersion %v", at(o, "params", "protocolVersion"))
	case method == "session/update":
		u, _ := at(o, "params", "update").(map[string]any)
		kind := str(u, "sessionUpdate")
		f.brief = kind
		switch {
		case str(u, "toolCallId") != "" && strings.HasPrefix(kind, "tool_call"):
			state := kind
			if s := str(u, "status"); s != "" {
				state += " " + s
			}
			if t := str(u, "title"); t != "" {
				state += ": " + short(t, 60)
			}
			f.brief = state
			f.lives = v.addLife(f.lives, "tool call", str(u, "toolCallId"), gname, rw.line, state)
		case str(u, "terminalId") != "":
			state := kind
			if c := str(u, "command"); c != "" {
				state += ": " + short(c, 60)
			}
			if x := at(u, "exitStatus", "exitCode"); x != nil {
				state += fmt.Sprintf(" exit %v", x)
			}
			f.brief = state
			f.lives = v.addLife(f.lives, "terminal", str(u, "terminalId"), gname, rw.line, state)
		case strings.HasPrefix(kind, "plan"):
			entries, _ := at(u, "entries").([]any)
			if entries == nil {
				entries, _ = at(u, "plan", "entries").([]any)
			}
			state := kind + ": " + planState(entries)
			id := str(u, "planId")
			if id == "" {
				id = str(u, "plan", "planId")
			}
			if id == "" {
				id = sid
			}
			f.brief = state
			f.lives = v.addLife(f.lives, "plan", id, gname, rw.line, state)
		default:
			if t := str(u, "content", "text"); t != "" {
				f.brief += ": " + short(t, 80)
			}
		}
	case method == "session/request_permission":
		state := "asked"
		if t := str(o, "params", "toolCall", "title"); t != "" {
			state += ": " + short(t, 60)
		}
		f.brief = state
		f.lives = v.addLife(f.lives, "permission", fmt.Sprintf("line %d", rw.line), gname, rw.line, state)
	case strings.HasPrefix(method, "terminal/"):
		if id := str(o, "params", "terminalId"); id != "" {
			f.brief = method + " " + id
			f.lives = v.addLife(f.lives, "terminal", id, gname, rw.line, method)
		} else if method == "terminal/create" {
			f.brief = "create: " + short(str(o, "params", "command"), 60)
		}
	case method != "":
		f.brief = method
		if t := str(o, "params", "path"); t != "" {
			f.brief += " " + short(t, 60)
		}
	default: // a response
		if e, ok := o["error"].(map[string]any); ok {
			f.brief = fmt.Sprintf("error %v: %s", e["code"], short(str(e, "message"), 80))
		} else {
			f.brief = "result"
		}
		if req == nil {
			break
		}
		switch req.label {
		case "initialize":
			for _, k := range []string{"agentInfo", "info"} {
				if p := infoName(at(o, "result", k)); p != "" {
					v.peer("agent", p)
					break
				}
			}
		case "session/request_permission":
			state := "answered"
			if oc := str(o, "result", "outcome", "outcome"); oc != "" {
				state += ": " + oc
			}
			if id := str(o, "result", "outcome", "optionId"); id != "" {
				state += " " + id
			}
			if o["error"] != nil {
				state = "answered with an error"
			}
			f.brief = state
			f.lives = v.addLife(f.lives, "permission", fmt.Sprintf("line %d", rw.answers), gname, rw.line, state)
		case "terminal/create":
			if id := str(o, "result", "terminalId"); id != "" {
				create := "create: " + short(str(req.obj, "params", "command"), 60)
				v.life("terminal", id, gname, rw.answers, create)
				f.lives = v.addLife(f.lives, "terminal", id, gname, rw.line, "created "+id)
			}
		case "session/prompt":
			if s := str(o, "result", "stopReason"); s != "" {
				f.brief = "stopReason " + s
			}
		}
	}
	return f
}

// planState sums up a plan's entries by status.
func planState(entries []any) string {
	if len(entries) == 0 {
		return "no entries"
	}
	by := map[string]int{}
	for _, e := range entries {
		m, _ := e.(map[string]any)
		s := str(m, "status")
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

func (v *view) arcp(rw *row, o map[string]any) facts {
	var f facts
	typ := str(o, "type")
	sid, job := str(o, "session_id"), str(o, "job_id")
	if job == "" {
		job = str(o, "payload", "job_id")
	}
	if sid != "" {
		f.groups = v.addGroup(f.groups, "session "+sid)
	}
	if job != "" {
		f.groups = v.addGroup(f.groups, "job "+job)
	}
	f.brief = typ
	switch typ {
	case "session.hello", "session.open":
		if p := infoName(at(o, "payload", "client")); p != "" {
			v.peer("client", p)
		}
	case "session.welcome", "session.accepted":
		for _, k := range []string{"runtime", "agent", "server"} {
			if p := infoName(at(o, "payload", k)); p != "" {
				v.peer("agent", p)
				break
			}
		}
	case "job.submit":
		if a := str(o, "payload", "agent"); a != "" {
			f.brief += ": " + short(a, 60)
		}
		if tid := str(o, "trace_id"); tid != "" && len(v.submits) < maxSubmits {
			v.submits[tid] = rw.line
		}
	case "job.accepted":
		if tid := str(o, "trace_id"); tid != "" && job != "" {
			if line, ok := v.submits[tid]; ok {
				delete(v.submits, tid)
				if rw.answers == 0 {
					f.answers = line
				}
				v.life("job", job, "session "+sid, line, "job.submit")
			}
		}
	}
	if job != "" {
		state := typ
		if k := str(o, "payload", "kind"); k != "" {
			state = k
			if ph := str(o, "payload", "body", "phase"); ph != "" {
				state += " " + ph
			}
			f.brief = typ + " " + state
		}
		f.lives = v.addLife(f.lives, "job", job, "session "+sid, rw.line, state)
	}
	return f
}

func (v *view) arcan(rw *row, o map[string]any) facts {
	var f facts
	pt := str(o, "part_type")
	run := str(o, "run_id")
	if run != "" {
		f.groups = v.addGroup(f.groups, "run "+run)
	}
	f.brief = pt
	if pt == "run_started" {
		if p := str(o, "provider"); p != "" {
			v.peer("agent", "Arcan agent loop, provider "+short(p, 80))
		}
	}
	if d := str(o, "delta"); d != "" {
		f.brief += ": " + short(d, 80)
	}
	call := str(o, "call", "call_id")
	tool := str(o, "call", "tool_name")
	if call == "" {
		call, tool = str(o, "result", "call_id"), str(o, "result", "tool_name")
	}
	if call == "" {
		call = str(o, "call_id")
	}
	if call != "" {
		state := pt
		if tool != "" {
			state += ": " + short(tool, 40)
		}
		f.brief = state
		f.lives = v.addLife(f.lives, "tool call", call, "run "+run, rw.line, state)
	}
	if run != "" {
		state := pt
		if s := str(o, "status"); s != "" {
			state += " " + s
		} else if s := str(o, "reason"); s != "" {
			state += " " + s
		}
		f.lives = v.addLife(f.lives, "run", run, "run "+run, rw.line, state)
	}
	return f
}
