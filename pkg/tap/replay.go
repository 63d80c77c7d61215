package tap

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// ErrRecording wraps the error of a recording a replay cannot read.
var ErrRecording = errors.New("reading the recording")

// ReplayProtocol is the protocol a replay speaks: the client side of an
// ACP conversation, as the registry names it.
const ReplayProtocol = "acp"

// ReplayConfig describes a replay: the client side of a recorded ACP
// session played against an agent under test.
type ReplayConfig struct {
	// Command, Env and Dir start the agent, as in Config.
	Command []string
	Env     []string
	Dir     string
	// Stderr receives the agent's standard error.
	Stderr io.Writer

	// Trace and Directions are the recording and its sidecar.
	Trace, Directions io.Reader
	// MaxLine bounds a recorded line, and a line of the agent held while
	// its end has not arrived (0: DefaultMaxLine). A longer line of the
	// agent is not held: it is a difference, and the rest of it is passed
	// over.
	MaxLine int

	// Record, Directions and Observer see the new session, as in Config.
	Record, RecordDirections io.Writer
	Observer                 Observer

	// Timeout bounds the wait for each answer (0: 30s).
	Timeout time.Duration
}

// Difference is one way the agent's answers differ in shape from the
// recording's.
type Difference struct {
	Line    int // the recorded line it concerns (0: the session as a whole)
	Message string
}

// ReplayResult is the outcome of a replay.
type ReplayResult struct {
	Result
	// Differences are the shapes that differ, in recorded-line order.
	Differences []Difference
}

// recorded is one message of the recording.
type recorded struct {
	line int
	dir  Direction
	raw  []byte
	obj  map[string]any
}

func (r *recorded) method() string { s, _ := r.obj["method"].(string); return s }
func (r *recorded) id() (string, bool) {
	v, ok := r.obj["id"]
	if !ok || v == nil {
		return "", false
	}
	b, _ := json.Marshal(v)
	return string(b), true
}
func (r *recorded) isRequest() bool      { _, ok := r.id(); return ok && r.method() != "" }
func (r *recorded) isNotification() bool { _, ok := r.id(); return !ok && r.method() != "" }
func (r *recorded) isAnswer() bool       { _, ok := r.id(); return ok && r.method() == "" }

// readRecording reads a trace and its sidecar.
func readRecording(trace, dirs io.Reader, maxLine int) ([]*recorded, error) {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	ts := bufio.NewScanner(trace)
	ts.Buffer(make([]byte, 64<<10), maxLine)
	ds := bufio.NewScanner(dirs)
	var out []*recorded
	for n := 1; ts.Scan(); n++ {
		if Blank(ts.Bytes(), n == 1) {
			continue // no message, no direction
		}
		if !ds.Scan() {
			return nil, fmt.Errorf("the direction sidecar ends before line %d of the trace", n)
		}
		var d Direction
		switch strings.TrimSpace(ds.Text()) {
		case "c2a":
			d = ClientToAgent
		case "a2c":
			d = AgentToClient
		default:
			return nil, fmt.Errorf("direction sidecar line %d: want c2a or a2c", n)
		}
		raw := bytes.TrimSpace(ts.Bytes())
		if len(raw) == 0 {
			continue
		}
		var obj map[string]any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil || obj == nil {
			return nil, fmt.Errorf("line %d is not a JSON-RPC message: a replay needs a well-formed recording", n)
		}
		out = append(out, &recorded{line: n, dir: d, raw: append([]byte(nil), raw...), obj: obj})
	}
	if err := ts.Err(); err != nil {
		return nil, fmt.Errorf("reading the trace: %w", err)
	}
	if err := ds.Err(); err != nil {
		return nil, fmt.Errorf("reading the direction sidecar: %w", err)
	}
	return out, nil
}

// shape is what a replay compares of an agent's message: its kind, method,
// update variant and error code; never ids or text.
func shape(obj map[string]any) string {
	if m, _ := obj["method"].(string); m != "" {
		kind := "notification"
		if _, ok := obj["id"]; ok {
			kind = "request"
		}
		s := kind + " " + m
		if p, ok := obj["params"].(map[string]any); ok {
			if u, ok := p["update"].(map[string]any); ok {
				if v, ok := u["sessionUpdate"].(string); ok {
					s += " " + v
				}
			}
		}
		return s
	}
	if e, ok := obj["error"].(map[string]any); ok {
		return fmt.Sprintf("error %v", e["code"])
	}
	return "a result"
}

// idMap carries the ids the agent under test chose (sessions, terminals,
// tool calls) in place of the recorded ones: members whose name ends in
// "Id" are learned from each answer and rewritten in what is sent.
type idMap map[string]string

// learn records, for each "…Id" member of rec and live at the same place,
// the live value standing for the recorded one.
func (m idMap) learn(rec, live any) {
	switch r := rec.(type) {
	case map[string]any:
		l, ok := live.(map[string]any)
		if !ok {
			return
		}
		for k, rv := range r {
			lv, ok := l[k]
			if !ok {
				continue
			}
			rs, rok := rv.(string)
			ls, lok := lv.(string)
			if rok && lok && strings.HasSuffix(k, "Id") && rs != ls {
				m[rs] = ls
				continue
			}
			m.learn(rv, lv)
		}
	case []any:
		l, ok := live.([]any)
		if !ok {
			return
		}
		for i := 0; i < len(r) && i < len(l); i++ {
			m.learn(r[i], l[i])
		}
	}
}

// apply rewrites the "…Id" members of v that the agent renamed.
func (m idMap) apply(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if s, ok := x.(string); ok && strings.HasSuffix(k, "Id") {
				if n, ok := m[s]; ok {
					t[k] = n
				}
				continue
			}
			t[k] = m.apply(x)
		}
	case []any:
		for i := range t {
			t[i] = m.apply(t[i])
		}
	}
	return v
}

// encode writes a message as one line, with ids rewritten.
func (m idMap) encode(obj map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m.apply(obj)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// clone deep-copies a decoded message, so rewriting ids never changes the
// recording.
func clone(obj map[string]any) map[string]any {
	b, _ := json.Marshal(obj)
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	_ = dec.Decode(&out)
	return out
}

// Replay plays the client side of the recording against the agent: each
// client message is sent in recorded order, once every answer the recording
// shows arriving before it has arrived (or its wait timed out); the agent's
// own requests are answered as the recording answered the request of the
// same method at the same position. The agent's answers are compared with
// the recording's by shape. When the recording's client messages are sent,
// the agent's stdin is closed, and the agent is given Timeout to exit
// before it is killed.
func Replay(ctx context.Context, cfg ReplayConfig) (ReplayResult, error) {
	msgs, err := readRecording(cfg.Trace, cfg.Directions, cfg.MaxLine)
	if err != nil {
		return ReplayResult{}, fmt.Errorf("%w: %w", ErrRecording, err)
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	p := newPlayer(msgs)

	inR, inW := io.Pipe()
	maxLine := cfg.MaxLine
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	lines := &lineWriter{ch: make(chan []byte, 1024), max: maxLine}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type runOut struct {
		res Result
		err error
	}
	ran := make(chan runOut, 1)
	go func() {
		res, err := Run(ctx, Config{Command: cfg.Command, Env: cfg.Env, Dir: cfg.Dir, Stdin: inR, Stdout: lines, Stderr: cfg.Stderr,
			Record: cfg.Record, Directions: cfg.RecordDirections, Observer: cfg.Observer, MaxLine: cfg.MaxLine, Protocol: ReplayProtocol})
		// Whatever the client side still sends now fails at once.
		_ = inR.CloseWithError(io.ErrClosedPipe)
		close(lines.ch)
		ran <- runOut{res, err}
	}()
	// The agent's messages are handled on their own goroutine: its
	// requests are answered whatever the client side waits for.
	var wmu sync.Mutex
	send := func(b []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		_, err := inW.Write(b)
		return err
	}
	agentDone := make(chan struct{})
	go func() {
		defer close(agentDone)
		for line := range lines.ch {
			if reply := p.fromAgent(line); reply != nil {
				_ = send(reply)
			}
		}
		p.agentGone()
	}()

	for _, m := range msgs {
		if m.dir == AgentToClient {
			if m.isAnswer() {
				p.wait(m, timeout)
			}
			continue
		}
		if m.isAnswer() {
			continue // sent when the agent asks
		}
		b, err := p.outgoing(m)
		if err != nil {
			p.differ(m.line, fmt.Sprintf("the recorded message cannot be sent again: %v", err))
			continue
		}
		if err := send(b); err != nil {
			p.differ(m.line, "the agent stopped reading its input before the recording's client was done")
			break
		}
	}
	_ = inW.Close()
	var out runOut
	select {
	case out = <-ran:
	case <-time.After(timeout):
		p.differ(0, fmt.Sprintf("the agent did not exit within %s of the end of its input", timeout))
		cancel()
		out = <-ran
	}
	<-agentDone
	res := ReplayResult{Result: out.res}
	res.Differences = p.finish()
	if out.err != nil {
		return res, out.err
	}
	return res, nil
}

// lineWriter passes the agent's output on as lines, holding at most max
// bytes of a line whose end has not arrived: a longer line is passed on
// as a nil line (the player reports it), and the rest of it is skipped.
type lineWriter struct {
	ch      chan []byte
	max     int
	pending []byte
	skip    bool
}

func (w *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if w.skip {
			if i < 0 {
				break
			}
			w.skip = false
			p = p[i+1:]
			continue
		}
		if i < 0 {
			if len(w.pending)+len(p) > w.max {
				w.pending, w.skip = nil, true
				w.ch <- nil
				break
			}
			w.pending = append(w.pending, p...)
			break
		}
		if len(w.pending)+i > w.max {
			w.pending = nil
			w.ch <- nil
			p = p[i+1:]
			continue
		}
		line := append(w.pending, p[:i]...)
		w.pending = nil
		w.ch <- line
		p = p[i+1:]
	}
	return n, nil
}

// player is the state of a replay.
type player struct {
	mu    sync.Mutex
	cond  *sync.Cond
	ids   idMap
	diffs []Difference
	gone  bool

	// Client requests: recorded id -> the request, and the live answers.
	requests map[string]*recorded
	answered map[string]map[string]any
	// The recorded agent requests by method, in order, with the
	// client's recorded answer to each; and how many of each method the
	// agent has made live.
	agentAsks map[string][]*recorded
	replies   map[string]*recorded
	asked     map[string]int
	// Shapes of the agent's own messages (requests and notifications),
	// recorded and live, counted.
	recShapes, liveShapes map[string]int
}

func newPlayer(msgs []*recorded) *player {
	p := &player{ids: idMap{}, requests: map[string]*recorded{}, answered: map[string]map[string]any{},
		agentAsks: map[string][]*recorded{}, replies: map[string]*recorded{}, asked: map[string]int{},
		recShapes: map[string]int{}, liveShapes: map[string]int{}}
	p.cond = sync.NewCond(&p.mu)
	for _, m := range msgs {
		id, _ := m.id()
		switch {
		case m.dir == ClientToAgent && m.isRequest():
			p.requests[id] = m
		case m.dir == ClientToAgent && m.isAnswer():
			p.replies[id] = m
		case m.dir == AgentToClient && m.isRequest():
			p.agentAsks[m.method()] = append(p.agentAsks[m.method()], m)
			p.recShapes[shape(m.obj)]++
		case m.dir == AgentToClient && m.isNotification():
			p.recShapes[shape(m.obj)]++
		}
	}
	return p
}

func (p *player) differ(line int, msg string) {
	p.mu.Lock()
	p.diffs = append(p.diffs, Difference{Line: line, Message: msg})
	p.mu.Unlock()
}

// outgoing is a recorded client message with the agent's ids in place.
func (p *player) outgoing(m *recorded) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ids.encode(clone(m.obj))
}

// fromAgent handles one line of the agent: an answer is kept for wait, a
// request is answered as recorded (the reply is returned).
func (p *player) fromAgent(line []byte) []byte {
	if line == nil {
		p.differ(0, "the agent wrote a line longer than --max-line: it was not held, nor compared")
		return nil
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil // validation reports it
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	method, _ := obj["method"].(string)
	idv, hasID := obj["id"]
	switch {
	case method == "" && hasID:
		b, _ := json.Marshal(idv)
		p.answered[string(b)] = obj
		p.cond.Broadcast()
	case method != "":
		p.liveShapes[shape(obj)]++
		if !hasID {
			return nil
		}
		k := p.asked[method]
		p.asked[method]++
		asks := p.agentAsks[method]
		var reply map[string]any
		if k < len(asks) {
			rid, _ := asks[k].id()
			if r, ok := p.replies[rid]; ok {
				reply = clone(r.obj)
			}
			p.ids.learn(asks[k].obj["params"], obj["params"])
		}
		if reply == nil {
			// Not in the recording: refuse it, as a client that does
			// not know the method would.
			reply = map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": -32601, "message": "not in the replayed recording"}}
		}
		reply["id"] = idv
		b, err := p.ids.encode(reply)
		if err != nil {
			return nil
		}
		return b
	}
	return nil
}

// wait waits for the live answer to the client request that the recorded
// answer m answers, and compares the two.
func (p *player) wait(m *recorded, timeout time.Duration) {
	id, _ := m.id()
	req, ok := p.requests[id]
	if !ok {
		return // an answer to no client request: validation reports it
	}
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() {
		p.mu.Lock()
		p.cond.Broadcast()
		p.mu.Unlock()
	})
	defer timer.Stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.answered[id] == nil && !p.gone && time.Now().Before(deadline) {
		p.cond.Wait()
	}
	live := p.answered[id]
	if live == nil {
		why := fmt.Sprintf("no answer within %s", timeout)
		if p.gone {
			why = "the agent's output ended first"
		}
		p.diffs = append(p.diffs, Difference{Line: m.line, Message: fmt.Sprintf("%s (line %d) got no answer: %s", req.method(), req.line, why)})
		return
	}
	want, got := shape(m.obj), shape(live)
	if want != got {
		p.diffs = append(p.diffs, Difference{Line: m.line, Message: fmt.Sprintf("the agent answered %s (line %d) with %s; the recording has %s", req.method(), req.line, got, want)})
	}
	p.ids.learn(m.obj["result"], live["result"])
}

func (p *player) agentGone() {
	p.mu.Lock()
	p.gone = true
	p.cond.Broadcast()
	p.mu.Unlock()
}

// finish compares the agent's own messages, counted by shape.
func (p *player) finish() []Difference {
	p.mu.Lock()
	defer p.mu.Unlock()
	keys := map[string]bool{}
	for k := range p.recShapes {
		keys[k] = true
	}
	for k := range p.liveShapes {
		keys[k] = true
	}
	var ks []string
	for k := range keys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	out := p.diffs
	for _, k := range ks {
		if r, l := p.recShapes[k], p.liveShapes[k]; r != l {
			out = append(out, Difference{Message: fmt.Sprintf("the agent sent %d of %s; the recording has %d", l, k, r)})
		}
	}
	// In recorded-line order; what concerns the whole session last.
	order := func(d Difference) int {
		if d.Line == 0 {
			return int(^uint(0) >> 1)
		}
		return d.Line
	}
	sort.SliceStable(out, func(i, j int) bool { return order(out[i]) < order(out[j]) })
	return out
}
