package schema_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// This file holds a small reference implementation of the protocol-state rules
// and the deviation detectors described in fixtures/arcp/README.md and
// schema/arcp/README.md. It exists to keep the fixtures honest: every valid
// trace must produce no finding, and every invalid or dialect trace exactly the
// findings of its .expect file. The validation engine has its own
// implementation; the two meet in the fixtures.

// finding is one expected or produced line of a .expect file.
type finding struct {
	line    int
	rule    string
	pointer string
}

func (f finding) String() string { return fmt.Sprintf("%d %s %s", f.line, f.rule, f.pointer) }

// deviation is one entry of schema/arcp/v1.1/deviations.json.
type deviation struct {
	ID           string   `json:"id"`
	SDK          string   `json:"sdk"`
	MessageTypes []string `json:"message_types"`
	EventKind    string   `json:"event_kind"`
	Pointer      string   `json:"pointer"`
	Canonical    string   `json:"canonical"`
	Detect       struct {
		Present json.RawMessage `json:"present"`
		Absent  string          `json:"absent"`
		Equals  map[string]any  `json:"equals"`
		State   string          `json:"state"`
		Answers string          `json:"answers"`
	} `json:"detect"`
	Note string `json:"note"`
}

func loadDeviations(t *testing.T) []deviation {
	t.Helper()
	var doc struct {
		Deviations []deviation `json:"deviations"`
	}
	if err := json.Unmarshal(readEmbedded(t, "arcp/v1.1/deviations.json"), &doc); err != nil {
		t.Fatalf("arcp/v1.1/deviations.json: %v", err)
	}
	if len(doc.Deviations) == 0 {
		t.Fatal("arcp/v1.1/deviations.json lists no deviation")
	}
	return doc.Deviations
}

// presentList decodes detect.present, a pointer or a list of pointers.
func (d *deviation) presentList() ([]string, error) {
	if len(d.Detect.Present) == 0 {
		return nil, nil
	}
	var one string
	if err := json.Unmarshal(d.Detect.Present, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(d.Detect.Present, &many); err != nil {
		return nil, fmt.Errorf("detect.present of %s is neither a pointer nor a list: %w", d.ID, err)
	}
	return many, nil
}

// matchPointer resolves a pointer whose tokens may be `*` (any member of an
// object or array) and returns the concrete pointers of every match.
func matchPointer(doc any, ptr string) []string {
	if ptr == "" {
		return []string{""}
	}
	var out []string
	var walk func(cur any, toks []string, at string)
	walk = func(cur any, toks []string, at string) {
		if len(toks) == 0 {
			out = append(out, at)
			return
		}
		tok := strings.ReplaceAll(strings.ReplaceAll(toks[0], "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			for _, k := range sortedKeys(c) {
				if tok == "*" || tok == k {
					walk(c[k], toks[1:], at+"/"+escapeToken(k))
				}
			}
		case []any:
			for i, v := range c {
				if tok == "*" || tok == strconv.Itoa(i) {
					walk(v, toks[1:], at+"/"+strconv.Itoa(i))
				}
			}
		}
	}
	walk(doc, strings.Split(ptr[1:], "/"), "")
	return out
}

// absentMatches returns the concrete pointers named by ptr whose parent exists
// but which are missing themselves.
func absentMatches(doc any, ptr string) []string {
	i := strings.LastIndex(ptr, "/")
	parent, last := ptr[:i], ptr[i+1:]
	var out []string
	for _, p := range matchPointer(doc, parent) {
		v, _ := resolvePointer(doc, p)
		if m, ok := v.(map[string]any); ok {
			if _, has := m[last]; !has {
				out = append(out, p+"/"+last)
			}
		}
	}
	return out
}

// detectDeviations returns the line-level (non-state) deviations a line shows,
// each with the concrete pointer where it shows.
func detectDeviations(t *testing.T, devs []deviation, typ string, line map[string]any) []finding {
	t.Helper()
	var out []finding
	for i := range devs {
		d := &devs[i]
		if d.Detect.State != "" || !slices.Contains(d.MessageTypes, typ) {
			continue
		}
		if d.EventKind != "" {
			if k, _ := resolvePointer(line, "/payload/kind"); k != d.EventKind {
				continue
			}
		}
		where := []string{d.Pointer}
		present, err := d.presentList()
		if err != nil {
			t.Fatal(err)
		}
		if present != nil {
			var hits []string
			for _, p := range present {
				hits = append(hits, matchPointer(line, p)...)
			}
			if len(hits) == 0 {
				continue
			}
			where = hits
		}
		if d.Detect.Absent != "" {
			hits := absentMatches(line, d.Detect.Absent)
			if len(hits) == 0 {
				continue
			}
			where = hits
		}
		ok := true
		for p, want := range d.Detect.Equals {
			got, found := resolvePointer(line, p)
			if !found || !reflect.DeepEqual(got, want) {
				ok = false
			}
		}
		if !ok {
			continue
		}
		out = append(out, finding{rule: "deviation:" + d.ID, pointer: where[0]})
	}
	return out
}

// stateSession is what the checker knows about one session.
type stateSession struct {
	started        bool // its first welcome (not a resume) is in the trace
	seqKnown       bool
	lastSeq        int64
	features       map[string]bool // nil until hello and welcome were both seen
	jobs           map[string]*stateJob
	listRequests   map[string]bool
	pendingSubmits int
}

type stateJob struct {
	terminalSeq *int64
	terminated  bool
	chunked     bool
}

// traceChecker applies the state rules to one trace, line by line.
type traceChecker struct {
	t        *testing.T
	version  string
	d        *arcpDispatch
	devs     []deviation
	sessions map[string]*stateSession
	// the hello waiting for its welcome (or session.accepted), and whether it
	// asked to resume and from where
	pendingHello    map[string]any
	pendingResumeAt *int64
	out             []finding
}

func newTraceChecker(t *testing.T, version string, d *arcpDispatch, devs []deviation) *traceChecker {
	return &traceChecker{t: t, version: version, d: d, devs: devs, sessions: map[string]*stateSession{}}
}

func (c *traceChecker) session(id string) *stateSession {
	s, ok := c.sessions[id]
	if !ok {
		s = &stateSession{jobs: map[string]*stateJob{}, listRequests: map[string]bool{}}
		c.sessions[id] = s
	}
	return s
}

func (c *traceChecker) report(line int, rule, pointer string) {
	c.out = append(c.out, finding{line: line, rule: rule, pointer: pointer})
}

func str(v any, ptr string) string {
	s, _ := resolvePointer(v, ptr)
	out, _ := s.(string)
	return out
}

func num(v any, ptr string) (int64, bool) {
	s, ok := resolvePointer(v, ptr)
	if !ok {
		return 0, false
	}
	f, ok := s.(float64)
	return int64(f), ok
}

func stringSet(v any, ptr string) map[string]bool {
	out := map[string]bool{}
	list, _ := resolvePointer(v, ptr)
	items, _ := list.([]any)
	for _, x := range items {
		if s, ok := x.(string); ok {
			out[s] = true
		}
	}
	return out
}

// isJobScoped reports whether a message type refers to a job through the
// envelope's job_id and must appear in a session that accepted or subscribed
// to the job.
func isJobScoped(typ string) bool {
	switch typ {
	case "job.event", "job.result", "job.error", "job.cancel", "job.cancelled", "job.started",
		"job.progress", "job.heartbeat", "job.completed", "job.failed", "job.result_chunk":
		return true
	}
	return false
}

func (c *traceChecker) line(no int, v map[string]any) {
	typ := str(v, "/type")
	var entry *dispatchMessage
	for i := range c.d.Messages {
		if c.d.Messages[i].Type == typ {
			entry = &c.d.Messages[i]
		}
	}
	if entry == nil {
		c.t.Fatalf("line %d: type %q is not dispatched", no, typ)
	}
	for _, f := range detectDeviations(c.t, c.devs, typ, v) {
		c.report(no, f.rule, f.pointer)
	}

	// Handshakes: a hello (open) waits for the welcome (accepted) that names
	// its session.
	switch typ {
	case "session.hello", "session.open":
		c.pendingHello = v
		c.pendingResumeAt = nil
		if at, ok := num(v, "/payload/resume/last_event_seq"); ok {
			c.pendingResumeAt = &at
		}
		return
	case "session.resume":
		at, _ := num(v, "/payload/last_event_seq")
		c.pendingResumeAt = &at
		if c.version == "rfc0001" {
			c.pendingHello = v
		}
		return
	case "session.welcome", "session.accepted", "session.resumed":
		id := str(v, "/session_id")
		if typ != "session.welcome" {
			id = str(v, "/payload/session_id")
		}
		s := c.session(id)
		if c.pendingResumeAt != nil {
			s.seqKnown, s.lastSeq = true, *c.pendingResumeAt
		} else if typ != "session.resumed" {
			s.started = true
		}
		if c.version == "v1.1" && c.pendingHello != nil && str(c.pendingHello, "/type") == "session.hello" {
			hello := stringSet(c.pendingHello, "/payload/capabilities/features")
			welcome := stringSet(v, "/payload/capabilities/features")
			s.features = map[string]bool{}
			for f := range hello {
				if welcome[f] {
					s.features[f] = true
				}
			}
		}
		c.pendingHello, c.pendingResumeAt = nil, nil
		return
	}

	sid := str(v, "/session_id")
	if sid == "" {
		return
	}
	s := c.session(sid)

	// Features: a gated message, event kind or field outside the negotiated set.
	if s.features != nil {
		if entry.Feature != "" && !s.features[entry.Feature] {
			c.report(no, "feature-not-negotiated", "/type")
		}
		if typ == "job.event" {
			for _, e := range c.d.Events {
				if e.Kind == str(v, "/payload/kind") && e.Feature != "" && !s.features[e.Feature] {
					c.report(no, "feature-not-negotiated", "/payload/kind")
				}
			}
		}
		for _, f := range c.d.FieldFeatures {
			if f.Type != typ || s.features[f.Feature] {
				continue
			}
			val, ok := resolvePointer(v, f.Pointer)
			if !ok {
				continue
			}
			if f.Matches != "" {
				sv, _ := val.(string)
				if !regexp.MustCompile(f.Matches).MatchString(sv) {
					continue
				}
			}
			c.report(no, "feature-not-negotiated", f.Pointer)
		}
	}

	switch typ {
	case "job.submit", "tool.invoke":
		s.pendingSubmits++
	case "session.error":
		if s.pendingSubmits > 0 {
			s.pendingSubmits--
		}
	case "job.accepted", "job.subscribed":
		if typ == "job.accepted" && str(v, "/payload/parent_job_id") == "" && s.pendingSubmits > 0 {
			s.pendingSubmits--
		}
		if _, ok := s.jobs[str(v, "/payload/job_id")]; !ok {
			s.jobs[str(v, "/payload/job_id")] = &stateJob{}
		}
	case "session.list_jobs":
		s.listRequests[str(v, "/id")] = true
	case "session.jobs":
		if s.started && !s.listRequests[str(v, "/payload/request_id")] {
			c.report(no, "list-jobs-unanswered", "/payload/request_id")
		}
	}

	// Sequence: gap-free and increasing per session, restarted by a resume.
	if seq, ok := num(v, "/event_seq"); ok && entry.Sequenced {
		switch {
		case !s.seqKnown:
		case seq > s.lastSeq+1:
			c.report(no, "seq-gap", "/event_seq")
		case seq <= s.lastSeq:
			c.report(no, "seq-order", "/event_seq")
		}
		if !s.seqKnown || seq > s.lastSeq {
			s.seqKnown, s.lastSeq = true, seq
		}
	}

	if !isJobScoped(typ) {
		return
	}
	jid := str(v, "/job_id")
	job, known := s.jobs[jid]
	if !known {
		for other, os := range c.sessions {
			if _, ok := os.jobs[jid]; ok && other != sid {
				c.report(no, "session-mismatch", "/session_id")
				return
			}
		}
	}
	if typ == "job.event" && str(v, "/payload/kind") == "result_chunk" && known {
		job.chunked = true
	}
	if typ == "job.result_chunk" && known {
		job.chunked = true
	}
	if !entry.Terminal {
		return
	}
	seq, hasSeq := num(v, "/event_seq")
	switch {
	case known && job.terminated:
		if !hasSeq || job.terminalSeq == nil || *job.terminalSeq != seq {
			c.report(no, "terminal-twice", "/job_id")
		}
	case known:
		job.terminated = true
		if hasSeq {
			job.terminalSeq = &seq
		}
		if job.chunked && (typ == "job.result" || typ == "job.completed") && str(v, "/payload/result_id") == "" {
			c.report(no, "result-id-missing", "/payload")
		}
	case s.started:
		if typ == "job.error" && s.pendingSubmits > 0 && c.stateDeviation("terminal-before-accepted") != "" {
			s.pendingSubmits--
			c.report(no, "deviation:"+c.stateDeviation("terminal-before-accepted"), "/job_id")
			return
		}
		c.report(no, "terminal-before-accepted", "/job_id")
	}
}

// stateDeviation names the deviation that replaces a state rule, if any.
func (c *traceChecker) stateDeviation(rule string) string {
	for _, d := range c.devs {
		if d.Detect.State == rule {
			return d.ID
		}
	}
	return ""
}

// checkTrace runs the state rules and deviation detectors over a trace,
// skipping the lines listed in skip (lines that break their schema).
func checkTrace(t *testing.T, version string, d *arcpDispatch, devs []deviation, lines []fixtureLine, skip map[int]bool) []finding {
	t.Helper()
	c := newTraceChecker(t, version, d, devs)
	for _, l := range lines {
		if skip[l.no] {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal(l.raw, &v); err != nil {
			t.Fatalf("line %d: %v", l.no, err)
		}
		c.line(l.no, v)
	}
	return c.out
}

func sameFindings(got, want []finding) bool {
	key := func(fs []finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.String())
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(key(got), key(want))
}

// TestARCPFixtureStates checks that the valid traces break no state rule and
// show no deviation, and that the invalid and dialect traces produce exactly
// the state findings and deviations of their .expect files.
func TestARCPFixtureStates(t *testing.T) {
	devs := loadDeviations(t)
	for _, version := range arcpVersions() {
		d := loadDispatch(t, version)
		var devsFor []deviation
		if version == "v1.1" {
			devsFor = devs
		}
		for _, file := range fixtureFiles(t, version, "valid") {
			if got := checkTrace(t, version, d, devsFor, readTrace(t, file), nil); len(got) != 0 {
				t.Errorf("%s: a valid trace produced findings %v", file, got)
			}
		}
		kinds := []string{"invalid"}
		if version == "v1.1" {
			kinds = append(kinds, "dialect")
		}
		for _, kind := range kinds {
			for _, file := range fixtureFiles(t, version, kind) {
				lines := readTrace(t, file)
				exp := readExpect(t, strings.TrimSuffix(file, ".jsonl")+".expect", len(lines))
				skip := map[int]bool{}
				var want []finding
				for _, e := range exp {
					if e.rule == "schema" {
						skip[e.line] = true
						continue
					}
					want = append(want, finding(e))
				}
				got := checkTrace(t, version, d, devsFor, lines, skip)
				if !sameFindings(got, want) {
					t.Errorf("%s: findings\n%v\nwant\n%v", file, got, want)
				}
			}
		}
	}
}

// TestARCPDialectFixtures checks that every line of the dialect traces is valid
// against the canonical schemas: a documented deviation is a warning, never a
// schema error.
func TestARCPDialectFixtures(t *testing.T) {
	cache := newSchemaCache(t)
	d := loadDispatch(t, "v1.1")
	ids := map[string]bool{}
	for _, file := range fixtureFiles(t, "v1.1", "dialect") {
		lines := readTrace(t, file)
		for _, l := range lines {
			if err := validateLine(cache, "v1.1", d, l.raw); err != nil {
				t.Errorf("%s:%d: a dialect line must be schema-valid: %v", file, l.no, err)
			}
		}
		for _, e := range readExpect(t, strings.TrimSuffix(file, ".jsonl")+".expect", len(lines)) {
			id, ok := strings.CutPrefix(e.rule, "deviation:")
			if !ok {
				t.Errorf("%s:%d: dialect traces expect only deviations, got %s", file, e.line, e.rule)
			}
			ids[id] = true
		}
	}
	for _, dev := range loadDeviations(t) {
		if !ids[dev.ID] {
			t.Errorf("no dialect fixture shows deviation %s", dev.ID)
		}
	}
}

// TestARCPDeviationsTable checks the machine-readable deviation table against
// the dispatch table and the human-readable table of schema/arcp/README.md.
func TestARCPDeviationsTable(t *testing.T) {
	d := loadDispatch(t, "v1.1")
	readme := string(readEmbedded(t, "arcp/README.md"))
	seen := map[string]bool{}
	for _, dev := range loadDeviations(t) {
		if dev.ID == "" || seen[dev.ID] {
			t.Errorf("deviation id %q is empty or repeated", dev.ID)
		}
		seen[dev.ID] = true
		if dev.SDK == "" || dev.Pointer == "" || dev.Canonical == "" || dev.Note == "" {
			t.Errorf("%s: sdk, pointer, canonical and note are all required", dev.ID)
		}
		if len(dev.MessageTypes) == 0 {
			t.Errorf("%s: no message_types", dev.ID)
		}
		for _, typ := range dev.MessageTypes {
			if _, ok := d.messageSchema(typ); !ok {
				t.Errorf("%s: message type %s is not dispatched", dev.ID, typ)
			}
		}
		if dev.EventKind != "" {
			if _, ok := d.eventSchema(dev.EventKind); !ok {
				t.Errorf("%s: event kind %s is not dispatched", dev.ID, dev.EventKind)
			}
		}
		if dev.Detect.State != "" && !isStateRule(dev.Detect.State) {
			t.Errorf("%s: detect.state %q is not a state rule", dev.ID, dev.Detect.State)
		}
		if _, err := (&dev).presentList(); err != nil {
			t.Error(err)
		}
		if !strings.Contains(readme, "`"+dev.ID+"`") {
			t.Errorf("schema/arcp/README.md does not document deviation %s", dev.ID)
		}
		if !strings.HasPrefix(dev.Pointer, "/") {
			t.Errorf("%s: pointer %q is not a JSON pointer", dev.ID, dev.Pointer)
		}
	}
}
