package htmlreport

// What a message shows besides its text: a one-line brief, the sessions,
// jobs or runs it belongs to, the lifecycles it is a step of, and the
// implementations it names, as its protocol read them (Message); the page
// indexes them, within bounds, and draws them.

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

// maxSteps bounds the steps kept of one lifecycle, maxLives the
// lifecycles, maxGroups the sessions, jobs and runs followed in one trace,
// and maxPeers the implementations named on one side.
const maxSteps, maxLives, maxGroups, maxPeers = 200, 20000, 5000, 8

// view is what a trace's messages add up to.
type view struct {
	peers  map[string][]string // "client"/"agent" → implementations
	groups []string
	gindex map[string]int
	lives  []*lifecycle
	lindex map[string]int
	// moreLives and moreGroups count the messages that would have begun
	// a lifecycle or a group past the bounds.
	moreLives, moreGroups int
}

func newView() *view {
	return &view{peers: map[string][]string{}, gindex: map[string]int{}, lindex: map[string]int{}}
}

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

// group returns the index of the session, job or run name; -1 past
// maxGroups.
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
	// protocol pairs them and the engine does not (Message.Pairs).
	answers int
	groups  []int
	lives   []int
}

// observe follows what one message shows: the implementation it names,
// its groups and its lifecycles' steps, and returns what its row shows. A
// row links to the lifecycles of the steps on its own line (a step on an
// earlier line belongs to that line's message).
func (v *view) observe(line int, m *Message) facts {
	f := facts{brief: m.Brief, answers: m.Pairs}
	if m.Peer.Name != "" {
		v.peer(m.Peer.Side, m.Peer.Name)
	}
	for _, g := range m.Groups {
		f.groups = v.addGroup(f.groups, g)
	}
	for _, s := range m.Steps {
		i := v.life(s.Kind, s.ID, s.Group, s.Line, s.State)
		if i >= 0 && s.Line == line {
			f.lives = append(f.lives, i)
		}
	}
	return f
}
