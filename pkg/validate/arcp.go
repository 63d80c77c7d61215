package validate

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/pkg/wire"
	"github.com/agentproto/agentproto/schema"
)

// Dialects of ARCP.
const (
	dialectCanonical = "canonical"
	dialectGo        = "go-sdk"
	dialectRust      = "rust-sdk"
)

// arcpTables are the compiled ARCP schema sets: canonical v1.1 and, when
// present, the Rust SDK's RFC-0001-v2 dialect.
type arcpTables struct {
	canonical, rust *arcpSet
}

// arcpSet is one ARCP dispatch table with what the state rules read from it.
type arcpSet struct {
	t          *table
	extra      arcpExtra
	vendorKind *regexp.Regexp
	devs       []*deviation
	types      []string // known message types, sorted
	kinds      []string // known event kinds, sorted
}

// arcpExtra is the part of an ARCP dispatch table beyond the common shape.
type arcpExtra struct {
	VendorEventKind string `json:"vendor_event_kind"`
	FieldFeatures   []struct {
		Type    string `json:"type"`
		Pointer string `json:"pointer"`
		Feature string `json:"feature"`
		Matches string `json:"matches"`
		re      *regexp.Regexp
	} `json:"field_features"`
	Messages []struct {
		Type         string `json:"type"`
		Sequenced    bool   `json:"sequenced"`
		Terminal     bool   `json:"terminal"`
		SupersededBy string `json:"superseded_by"`
	} `json:"messages"`
}

// deviation is one entry of deviations.json: a known SDK's departure from
// canonical ARCP v1.1, reported as a warning.
type deviation struct {
	ID           string          `json:"id"`
	SDK          string          `json:"sdk"`
	MessageTypes []string        `json:"message_types"`
	EventKind    string          `json:"event_kind"`
	Pointer      string          `json:"pointer"`
	Canonical    string          `json:"canonical"`
	Detect       deviationDetect `json:"detect"`
	Note         string          `json:"note"`
}

type deviationDetect struct {
	Present stringList     `json:"present"`
	Absent  stringList     `json:"absent"`
	Equals  map[string]any `json:"equals"`
	State   string         `json:"state"`
	Answers string         `json:"answers"`
}

// stringList decodes a string or an array of strings.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("want a string or an array of strings: %w", err)
	}
	*l = many
	return nil
}

func newARCPTables(tables map[string]*table, set *schemaSet) (*arcpTables, error) {
	var out arcpTables
	for dir, t := range tables {
		if t.Protocol != "arcp" {
			continue
		}
		if err := t.compile(set); err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		s, err := newARCPSet(t)
		if err != nil {
			return nil, err
		}
		if strings.Contains(dir, "rfc0001") {
			out.rust = s
		} else if out.canonical == nil || dir > out.canonical.t.dir {
			out.canonical = s
		}
	}
	if out.canonical == nil && out.rust == nil {
		return nil, nil
	}
	return &out, nil
}

func newARCPSet(t *table) (*arcpSet, error) {
	s := &arcpSet{t: t}
	b, err := fs.ReadFile(schema.Files, path.Join(t.dir, schema.DispatchTable))
	if err != nil {
		return nil, fmt.Errorf("arcp: %w", err)
	}
	if err := json.Unmarshal(b, &s.extra); err != nil {
		return nil, fmt.Errorf("arcp: %s: %w", t.dir, err)
	}
	if s.extra.VendorEventKind != "" {
		if s.vendorKind, err = regexp.Compile(s.extra.VendorEventKind); err != nil {
			return nil, fmt.Errorf("arcp: %s: vendor_event_kind: %w", t.dir, err)
		}
	}
	for i := range s.extra.FieldFeatures {
		ff := &s.extra.FieldFeatures[i]
		if ff.Matches != "" {
			if ff.re, err = regexp.Compile(ff.Matches); err != nil {
				return nil, fmt.Errorf("arcp: %s: field feature %s: %w", t.dir, ff.Feature, err)
			}
		}
	}
	if b, err := fs.ReadFile(schema.Files, path.Join(t.dir, "deviations.json")); err == nil {
		var doc struct {
			Deviations []*deviation `json:"deviations"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("arcp: %s/deviations.json: %w", t.dir, err)
		}
		s.devs = doc.Deviations
	}
	for k := range t.messages {
		s.types = append(s.types, k)
	}
	sort.Strings(s.types)
	for k := range t.events {
		s.kinds = append(s.kinds, k)
	}
	sort.Strings(s.kinds)
	return s, nil
}

func (s *arcpSet) flags(typ string) (sequenced, terminal bool, supersededBy string) {
	for _, m := range s.extra.Messages {
		if m.Type == typ {
			return m.Sequenced, m.Terminal, m.SupersededBy
		}
	}
	return false, false, ""
}

// arcpState follows one ARCP trace: one or more sessions, possibly cut at a
// resume.
type arcpState struct {
	tb   *arcpTables
	set  *arcpSet
	dial string

	sawHello    bool              // a fresh session.hello (no resume): the trace holds the session's start
	welcomed    bool              // a session.welcome has been seen
	sessions    *recent[bool]     // session ids announced by welcome or resume
	features    map[string]bool   // negotiated features; nil until a welcome lists them
	offered     map[string]bool   // features the last hello offered
	lastSeq     *recent[int64]    // last event_seq by session (and sending side)
	jobs        *recent[*arcpJob] // the last maxJobs jobs
	listJobs    *recent[bool]     // outstanding session.list_jobs envelope ids
	openSubmits int               // job.submit messages not yet accepted
	lossy       bool              // a line could not be read
}

type arcpJob struct {
	session            string // the session it was accepted in
	accepted, terminal bool
	chunked            bool
}

func newARCP(tb *arcpTables, forced string, msgs []*message) handler {
	s := &arcpState{
		tb:       tb,
		sessions: newRecent[bool](maxARCPSessions),
		lastSeq:  newRecent[int64](maxARCPSessions),
		jobs:     newRecent[*arcpJob](maxJobs),
		listJobs: newRecent[bool](maxARCPSessions),
	}
	s.set = tb.canonical
	s.dial = dialectCanonical
	switch forced {
	case dialectRust:
		if tb.rust != nil {
			s.set, s.dial = tb.rust, dialectRust
		}
	case dialectGo, dialectCanonical:
		s.dial = forced
	default:
		s.dial = s.detectDialect(msgs)
		if s.dial == dialectRust {
			s.set = tb.rust
		}
	}
	if s.set == nil {
		s.set = tb.rust
	}
	return s
}

// detectDialect names the dialect of a trace from its first messages: the
// Rust SDK's own message types, or the SDK that every deviation seen names.
func (s *arcpState) detectDialect(msgs []*message) string {
	if s.tb.rust != nil {
		for _, m := range msgs {
			if m.obj == nil {
				continue
			}
			typ, _ := m.obj["type"].(string)
			if _, ok := s.tb.rust.t.messages[typ]; ok && (s.tb.canonical == nil || s.tb.canonical.t.messages[typ] == nil) {
				return dialectRust
			}
		}
	}
	if s.tb.canonical == nil {
		return dialectRust
	}
	var common map[string]bool
	for _, m := range msgs {
		if m.obj == nil {
			continue
		}
		for _, d := range s.tb.canonical.devs {
			if d.Detect.State != "" || !d.matches(m.obj) {
				continue
			}
			sdks := map[string]bool{}
			for _, sdk := range strings.Split(d.SDK, ",") {
				sdks[slug(sdk)] = true
			}
			if common == nil {
				common = sdks
				continue
			}
			for k := range common {
				if !sdks[k] {
					delete(common, k)
				}
			}
		}
	}
	if len(common) == 0 {
		return dialectCanonical
	}
	if common[dialectGo] {
		return dialectGo
	}
	names := make([]string, 0, len(common))
	for k := range common {
		names = append(names, k)
	}
	sort.Strings(names)
	return names[0]
}

// Bounds of the ARCP state (see recent).
const (
	maxARCPSessions = 4096
	maxJobs         = 1 << 16
)

// slug turns "Go SDK" into "go-sdk", "TypeScript SDK" into "typescript-sdk".
func slug(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.ReplaceAll(s, "#", "sharp")
	return strings.Join(strings.Fields(s), "-")
}

func (s *arcpState) dialect() string { return s.dial }

func (s *arcpState) finish(int) []Finding { return nil }

// lost: an unreadable line may have carried the next event_seq, an
// acceptance or a list_jobs request; the rules restart from what follows.
func (s *arcpState) lost(*message) {
	s.lastSeq = newRecent[int64](maxARCPSessions)
	s.lossy = true
}

// matches reports whether the deviation's detection holds for message o.
func (d *deviation) matches(o map[string]any) bool {
	typ, _ := o["type"].(string)
	ok := false
	for _, t := range d.MessageTypes {
		if t == typ {
			ok = true
		}
	}
	if !ok {
		return false
	}
	if d.EventKind != "" {
		p, _ := o["payload"].(map[string]any)
		if k, _ := p["kind"].(string); k != d.EventKind {
			return false
		}
	}
	if len(d.Detect.Present) > 0 {
		found := false
		for _, ptr := range d.Detect.Present {
			if len(resolve(o, splitPointer(ptr), nil)) > 0 {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	for _, ptr := range d.Detect.Absent {
		if !absentSomewhere(o, splitPointer(ptr)) {
			return false
		}
	}
	for ptr, want := range d.Detect.Equals {
		vals := resolve(o, splitPointer(ptr), nil)
		if len(vals) == 0 || !jsonEqual(vals[0].v, want) {
			return false
		}
	}
	return true
}

type located struct {
	loc []string
	v   any
}

// resolve follows a pointer whose "*" tokens stand for every array index,
// returning every value found.
func resolve(v any, toks []string, at []string) []located {
	if len(toks) == 0 {
		return []located{{append([]string(nil), at...), v}}
	}
	t := toks[0]
	switch c := v.(type) {
	case map[string]any:
		if t == "*" {
			var out []located
			keys := make([]string, 0, len(c))
			for k := range c {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				out = append(out, resolve(c[k], toks[1:], append(at, k))...)
			}
			return out
		}
		if cv, ok := c[t]; ok {
			return resolve(cv, toks[1:], append(at, t))
		}
	case []any:
		if t == "*" {
			var out []located
			for i, cv := range c {
				out = append(out, resolve(cv, toks[1:], append(at, fmt.Sprint(i)))...)
			}
			return out
		}
		for i, cv := range c {
			if fmt.Sprint(i) == t {
				return resolve(cv, toks[1:], append(at, t))
			}
		}
	}
	return nil
}

// absentSomewhere reports whether the last token of the pointer is missing
// from an object the rest of it reaches.
func absentSomewhere(o map[string]any, toks []string) bool {
	if len(toks) == 0 {
		return false
	}
	for _, p := range resolve(o, toks[:len(toks)-1], nil) {
		if pm, ok := p.v.(map[string]any); ok {
			if _, has := pm[toks[len(toks)-1]]; !has {
				return true
			}
		}
	}
	return false
}

func jsonEqual(a, b any) bool {
	ab, err1 := json.Marshal(a)
	bb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ab) == string(bb)
}

// step dispatches one ARCP message and applies the state rules.
func (s *arcpState) step(m *message) {
	o := m.obj
	if o == nil {
		m.add(Error, RuleSchema, "", "an ARCP message must be a JSON object (an envelope with arcp, id, type and payload), got %s", wire.Describe(m.value))
		return
	}
	typV, ok := o["type"]
	typ, isStr := typV.(string)
	if !ok || !isStr {
		m.label = "untyped"
		if !ok {
			m.add(Error, RuleSchema, "", "missing required field \"type\": every ARCP envelope names its message type (arcp: Envelope)")
		} else {
			m.add(Error, RuleSchema, "/type", "wrong type: got %s, want string (arcp: Envelope)", strings.TrimPrefix(strings.TrimPrefix(wire.Describe(typV), "an "), "a "))
		}
		return
	}
	set := s.set
	entry := set.t.messages[typ]
	if entry == nil {
		m.label = "unknown type"
		if strings.HasPrefix(typ, "x-vendor.") {
			m.add(Warning, RuleUnknownType, "/type", "vendor message type %q is not part of ARCP %s: a receiver that does not know it ignores it", typ, set.t.Version)
			return
		}
		msg := fmt.Sprintf("unknown message type %q: ARCP %s has %s", typ, set.t.Version, strings.Join(set.types, ", "))
		if near := nearMethod(typ, set.types); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		m.add(Error, RuleUnknownType, "/type", "%s", msg)
		return
	}
	m.label = typ
	ck := check{c: entry.schema, value: o}
	m.rtSchema = entry.schema.id
	payload, _ := o["payload"].(map[string]any)

	// Event kinds: reserved kinds have a body schema; vendor kinds are
	// ignored by receivers; anything else is rejected.
	kind := ""
	if typ == "job.event" && payload != nil {
		kind, _ = payload["kind"].(string)
		m.label = typ + " " + kind
		if kind != "" && set.t.events[kind] == nil {
			if set.vendorKind != nil && set.vendorKind.MatchString(kind) {
				m.label = typ + " (vendor kind)"
			} else {
				msg := fmt.Sprintf("unknown event kind %q: ARCP %s reserves %s, and other kinds must be in the x-vendor. namespace (arcp: JobEventPayload)", kind, set.t.Version, strings.Join(set.kinds, ", "))
				if near := nearMethod(kind, set.kinds); near != "" {
					msg += fmt.Sprintf("; did you mean %q?", near)
				}
				// The event payload's schema admits reserved and vendor
				// kinds only: a schema finding, with the list.
				m.add(Error, RuleSchema, "/payload/kind", "%s", msg)
				ck.skip = func(l []string) bool { return hasPrefix(l, []string{"payload"}) }
				m.label = typ + " (unknown kind)"
			}
		}
	}

	// Dialect deviations: a warning each, and the schema's complaint at the
	// same place is left to the warning.
	var devLocs [][]string
	for _, d := range set.devs {
		if d.Detect.State != "" || !d.matches(o) {
			continue
		}
		ptr := d.where(o)
		m.add(Warning, RuleDeviationPrefix+d.ID, ptr, "%s dialect: %s; canonical ARCP v1.1 has %s. %s", d.SDK, describeDeviation(d), d.Canonical, d.Note)
		devLocs = append(devLocs, splitPointer(ptr))
	}
	if len(devLocs) > 0 {
		prev := ck.skip
		ck.skip = func(l []string) bool {
			if prev != nil && prev(l) {
				return true
			}
			for _, dl := range devLocs {
				if hasPrefix(l, dl) || len(dl) > 0 && len(l) == len(dl)-1 && hasPrefix(dl, l) {
					return true
				}
			}
			return false
		}
	}
	m.checks = append(m.checks, ck)
	s.state(m, typ, kind, o, payload)
}

// where points at the deviation in o: the first field whose presence gave
// it away, or the place of the missing field, or the table's pointer.
func (d *deviation) where(o map[string]any) string {
	for _, p := range d.Detect.Present {
		if found := resolve(o, splitPointer(p), nil); len(found) > 0 {
			return pointer(found[0].loc)
		}
	}
	for _, p := range d.Detect.Absent {
		toks := splitPointer(p)
		if len(toks) == 0 {
			continue
		}
		last := toks[len(toks)-1]
		for _, f := range resolve(o, toks[:len(toks)-1], nil) {
			if pm, ok := f.v.(map[string]any); ok {
				if _, has := pm[last]; !has {
					return pointer(append(f.loc, last))
				}
			}
		}
	}
	if found := resolve(o, splitPointer(d.Pointer), nil); len(found) > 0 {
		return pointer(found[0].loc)
	}
	return strings.ReplaceAll(d.Pointer, "*", "0")
}

func describeDeviation(d *deviation) string {
	switch {
	case len(d.Detect.Present) > 0:
		return fmt.Sprintf("sends %s", strings.Join(d.Detect.Present, " and "))
	case len(d.Detect.Absent) > 0:
		return fmt.Sprintf("leaves out %s", strings.Join(d.Detect.Absent, " and "))
	case len(d.Detect.Equals) > 0:
		var parts []string
		for k, v := range d.Detect.Equals {
			parts = append(parts, fmt.Sprintf("%s = %s", k, display(v)))
		}
		sort.Strings(parts)
		return "sends " + strings.Join(parts, " and ")
	}
	return fmt.Sprintf("sends %s %s", strings.Join(d.MessageTypes, "/"), d.Pointer)
}

// state applies the ARCP rules no schema can express.
func (s *arcpState) state(m *message, typ, kind string, o, payload map[string]any) {
	set := s.set
	sid, hasSID := o["session_id"].(string)
	jobID, _ := o["job_id"].(string)
	sequenced, terminal, _ := set.flags(typ)

	switch typ {
	case "session.hello", "session.open":
		s.offered = featureSet(payload)
		if res, ok := payload["resume"].(map[string]any); ok {
			// A resume: the session and its events began before the
			// trace did (or on an earlier connection).
			rsid, _ := res["session_id"].(string)
			if rsid != "" {
				s.sessions.put(rsid, true)
				if seq, ok := intValue(res["last_event_seq"]); ok {
					s.lastSeq.put(rsid, seq)
				}
			}
		} else if payload != nil && payload["resume_token"] == nil {
			s.sawHello = true
		}
	case "session.resume":
		if hasSID {
			s.sessions.put(sid, true)
			if seq, ok := intValue(payload["last_event_seq"]); ok {
				s.lastSeq.put(sid, seq)
			}
		}
	case "session.welcome", "session.accepted":
		if typ == "session.accepted" {
			if psid, ok := payload["session_id"].(string); ok {
				sid, hasSID = psid, true
			}
		}
		if hasSID {
			s.sessions.put(sid, true)
		}
		s.welcomed = true
		if wf := featureSet(payload); wf != nil {
			// Negotiated: what both sides listed, when the hello is in
			// the trace; else what the welcome says.
			s.features = wf
			if s.offered != nil {
				for f := range wf {
					if !s.offered[f] {
						delete(s.features, f)
					}
				}
			}
		}
		return
	}

	// Session ids must be those the runtime announced, and a job's
	// messages carry the session the job was accepted in.
	if _, known := s.sessions.get(sid); hasSID && s.welcomed && !known {
		m.add(Error, RuleSessionMismatch, "/session_id", "session_id %q differs from the session the welcome announced (%s): every message of a session carries its id", sid, sortedSet(s.sessions.keys()))
	} else if j, _ := s.jobs.get(jobID); hasSID && jobID != "" && typ != "job.accepted" && j != nil && j.session != "" && j.session != sid {
		// (A job.accepted places the job: an idempotent retry may
		// accept the same job again in a new session.)
		m.add(Error, RuleSessionMismatch, "/session_id", "job %q belongs to session %q, but this message carries session_id %q", jobID, j.session, sid)
	}

	// Features used must have been negotiated.
	if s.features != nil {
		entry := set.t.messages[typ]
		if entry != nil && entry.Feature != "" && !s.features[entry.Feature] {
			m.add(Error, RuleFeatureNotNegotiated, "/type", "%s needs the %q feature, which was not negotiated (hello and welcome share: %s)", typ, entry.Feature, featureList(s.features))
		}
		if ev := set.t.events[kind]; ev != nil && ev.Feature != "" && !s.features[ev.Feature] {
			m.add(Error, RuleFeatureNotNegotiated, "/payload/kind", "%s events need the %q feature, which was not negotiated (hello and welcome share: %s)", kind, ev.Feature, featureList(s.features))
		}
		for _, ff := range set.extra.FieldFeatures {
			if ff.Type != typ || s.features[ff.Feature] {
				continue
			}
			for _, f := range resolve(o, splitPointer(ff.Pointer), nil) {
				if ff.re != nil {
					str, ok := f.v.(string)
					if !ok || !ff.re.MatchString(str) {
						continue
					}
				}
				m.add(Error, RuleFeatureNotNegotiated, pointer(f.loc), "%s needs the %q feature, which was not negotiated (hello and welcome share: %s)", pointer(f.loc), ff.Feature, featureList(s.features))
				break
			}
		}
	}

	// event_seq: strictly increasing and gap-free per session.
	if seq, ok := intValue(o["event_seq"]); ok && sequenced {
		// One sequence per session and sending side (the Rust dialect
		// numbers the client's messages too).
		key := sid
		if e := set.t.messages[typ]; e != nil && e.Direction == "client" {
			key += "\x00client"
		}
		if last, seen := s.lastSeq.get(key); seen {
			switch {
			case seq <= last:
				m.add(Error, RuleSeqOrder, "/event_seq", "event_seq %d after %d: the session's sequence must strictly increase", seq, last)
				seq = last
			case seq > last+1:
				missing := fmt.Sprint(last + 1)
				if seq > last+2 {
					missing = fmt.Sprintf("%d to %d", last+1, seq-1)
				}
				m.add(Error, RuleSeqGap, "/event_seq", "event_seq jumps from %d to %d: %s missing; the sequence is gap-free", last, seq, missing)
			}
		}
		s.lastSeq.put(key, seq)
	}

	switch typ {
	case "job.submit", "tool.invoke":
		s.openSubmits++
	case "job.accepted":
		if s.openSubmits > 0 {
			s.openSubmits--
		}
		if id, ok := payload["job_id"].(string); ok && jobID == "" {
			jobID = id
		}
		if jobID != "" {
			j := s.job(jobID)
			j.accepted = true
			if hasSID {
				j.session = sid
			}
		}
	case "session.list_jobs":
		if id, ok := o["id"].(string); ok {
			s.listJobs.put(id, true)
		}
	case "job.subscribed":
		// A job one subscribes to was accepted, perhaps on another
		// connection.
		if id, ok := payload["job_id"].(string); ok {
			s.job(id).accepted = true
		}
	case "session.jobs":
		// Listed jobs exist: they were accepted before.
		if list, ok := payload["jobs"].([]any); ok {
			for _, it := range list {
				if e, ok := it.(map[string]any); ok {
					if id, ok := e["job_id"].(string); ok {
						s.job(id).accepted = true
					}
				}
			}
		}
		if rid, ok := payload["request_id"].(string); ok {
			if _, asked := s.listJobs.get(rid); asked {
				s.listJobs.delete(rid)
			} else if s.sawHello && !s.lossy {
				m.add(Error, RuleListJobsUnanswered, "/payload/request_id", "session.jobs answers request %q, but no outstanding session.list_jobs has that id", rid)
			}
		}
	case "job.event":
		if kind == "result_chunk" && jobID != "" {
			s.job(jobID).chunked = true
		}
	}

	if terminal && jobID != "" {
		j, _ := s.jobs.get(jobID)
		switch {
		case j != nil && j.terminal:
			m.add(Error, RuleTerminalTwice, "/job_id", "second terminal message for job %q: a job ends with exactly one job.result or job.error", jobID)
		case (j == nil || !j.accepted) && s.sawHello && !s.lossy:
			if s.unacceptedDeviation(m, typ) {
				break
			}
			m.add(Error, RuleTerminalBeforeAccepted, "/job_id", "%s for job %q, which was not accepted: a job.accepted comes before any terminal message", typ, jobID)
		}
		j = s.job(jobID)
		j.terminal = true
		if typ == "job.result" && j.chunked {
			if _, ok := payload["result_id"]; !ok && payload != nil {
				m.add(Error, RuleResultIDMissing, "/payload", "job.result ends a result streamed in result_chunk events, so it must carry result_id")
			}
		}
	}
}

// unacceptedDeviation reports a terminal message for a never-accepted job
// as the known SDK behaviour that answers a refused submit that way.
func (s *arcpState) unacceptedDeviation(m *message, typ string) bool {
	for _, d := range s.set.devs {
		if d.Detect.State != RuleTerminalBeforeAccepted || s.openSubmits == 0 {
			continue
		}
		okType := false
		for _, t := range d.MessageTypes {
			okType = okType || t == typ
		}
		if !okType {
			continue
		}
		s.openSubmits--
		m.add(Warning, RuleDeviationPrefix+d.ID, d.Pointer, "%s dialect: a refused submit is answered with %s for a job that was never accepted; canonical ARCP v1.1 answers with %s. %s", d.SDK, typ, d.Canonical, d.Note)
		return true
	}
	return false
}

// featureSet reads payload.capabilities.features, or nil.
func featureSet(payload map[string]any) map[string]bool {
	caps, ok := payload["capabilities"].(map[string]any)
	if !ok {
		return nil
	}
	fl, ok := caps["features"].([]any)
	if !ok {
		return nil
	}
	out := make(map[string]bool, len(fl))
	for _, f := range fl {
		if fs, ok := f.(string); ok {
			out[fs] = true
		}
	}
	return out
}

func (s *arcpState) job(id string) *arcpJob {
	j, _ := s.jobs.get(id)
	if j == nil {
		j = &arcpJob{}
		s.jobs.put(id, j)
	}
	return j
}

// sortedSet quotes and lists a few ids.
func sortedSet(ids []string) string {
	sort.Strings(ids)
	more := ""
	if len(ids) > 5 {
		ids, more = ids[:5], ", …"
	}
	out := make([]string, len(ids))
	for i, k := range ids {
		out[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(out, ", ") + more
}

func featureList(m map[string]bool) string {
	if len(m) == 0 {
		return "none"
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
