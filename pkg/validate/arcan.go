package validate

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/pkg/wire"
)

// arcanState follows the runs of an Arcan AgentEvent stream (bare events,
// SSE frames, or session-store records).
type arcanState struct {
	t     *table
	tags  []string
	runs  *recent[*arcanRun] // the last maxRuns runs
	lossy bool               // a line could not be read
}

type arcanRun struct {
	started, errored, finished bool
	partial                    bool // first seen after an unreadable line
	iteration                  int64
	hasIteration               bool
	calls                      map[string]bool
}

func newArcan(t *table) *arcanState {
	s := &arcanState{t: t, runs: newRecent[*arcanRun](maxRuns)}
	for k := range t.events {
		s.tags = append(s.tags, k)
	}
	sort.Strings(s.tags)
	return s
}

// maxRuns bounds the runs remembered (see recent); far more than run at
// once.
const maxRuns = 1 << 16

func (s *arcanState) dialect() string { return s.t.Version }

func (s *arcanState) finish(int) []Finding { return nil }

// lost: an unreadable line may have started a run or requested a call, so
// runs first seen after it are not held to those rules.
func (s *arcanState) lost(*message) { s.lossy = true }

func (s *arcanState) step(m *message) {
	o := m.obj
	if o == nil {
		m.add(Error, RuleSchema, "", "an Arcan event must be a JSON object tagged by part_type, got %s", wire.Describe(m.value))
		return
	}
	ev := o
	var loc []string
	if _, tagged := o["part_type"]; !tagged && s.t.store != nil {
		if inner, ok := o["event"]; ok {
			// A session-store record: the record's own fields against
			// the store schema, the event against its variant's schema.
			m.checks = append(m.checks, check{c: s.t.store, value: o, skip: func(l []string) bool {
				return len(l) > 0 && l[0] == "event"
			}})
			loc = []string{"event"}
			m.rtSchema = s.t.store.id
			var ok bool
			if ev, ok = inner.(map[string]any); !ok {
				m.label = "store record"
				m.add(Error, RuleSchema, "/event", "the record's event must be an AgentEvent object, got %s", wire.Describe(inner))
				return
			}
		}
	}
	base := pointer(loc)
	tagV, ok := ev["part_type"]
	if !ok {
		m.label = "untagged"
		m.add(Error, RuleSchema, base, "missing required field \"part_type\": every AgentEvent is tagged with one of %s (arcan: AgentEvent)", strings.Join(s.tags, ", "))
		return
	}
	tag, _ := tagV.(string)
	entry := s.t.events[tag]
	if entry == nil {
		m.label = "unknown part_type"
		msg := fmt.Sprintf("%s is not one of %s (arcan: AgentEvent); Arcan rejects unknown variants", display(tagV), strings.Join(s.tags, ", "))
		for _, k := range s.tags {
			if tag != "" && fold(k) == fold(tag) {
				msg += fmt.Sprintf("; did you mean %q? tags are snake_case", k)
				break
			}
		}
		m.add(Error, RuleSchema, base+"/part_type", "%s", msg)
		return
	}
	m.label = tag
	m.checks = append(m.checks, check{c: entry.schema, loc: loc, value: ev})
	if m.rtSchema == "" {
		m.rtSchema = entry.schema.id
	}
	s.state(m, tag, ev, base)
}

func (s *arcanState) state(m *message, tag string, ev map[string]any, base string) {
	runID, ok := ev["run_id"].(string)
	if !ok {
		return
	}
	r, _ := s.runs.get(runID)
	if r == nil {
		r = &arcanRun{calls: map[string]bool{}, partial: s.lossy}
		s.runs.put(runID, r)
	}
	switch {
	case tag == "run_started":
		if r.finished {
			m.add(Error, RuleEventAfterFinish, "", "run %q starts again after its run_finished: a run id is used for one run only", runID)
		} else if r.started {
			m.add(Error, RuleEventAfterFinish, "", "run %q started twice: run_started comes once, first", runID)
		}
		r.started = true
	case r.finished:
		m.add(Error, RuleEventAfterFinish, "", "%s after run %q finished: run_finished is the last event of a run", tag, runID)
	case r.errored && tag != "run_finished":
		m.add(Error, RuleEventAfterFinish, "", "%s after run %q errored: only run_finished may follow run_errored", tag, runID)
	case !r.started && tag == "run_errored":
		// The daemon reports a run that failed before it could start
		// with run_errored alone.
	case !r.started && !r.partial:
		m.add(Error, RuleRunNotStarted, "", "%s for run %q before its run_started: run_started is the first event of every run", tag, runID)
	}
	if it, ok := intValue(ev["iteration"]); ok {
		if r.hasIteration && it < r.iteration {
			m.add(Error, RuleIterationOrder, base+"/iteration", "iteration %d after iteration %d in run %q: iterations never go back", it, r.iteration, runID)
		} else {
			r.iteration, r.hasIteration = it, true
		}
	}
	switch tag {
	case "tool_call_requested":
		if call, ok := ev["call"].(map[string]any); ok {
			if id, ok := call["call_id"].(string); ok {
				if r.calls == nil {
					r.calls = map[string]bool{}
				}
				r.calls[id] = true
			}
		}
	case "tool_call_completed":
		if res, ok := ev["result"].(map[string]any); ok {
			if id, ok := res["call_id"].(string); ok && !r.calls[id] && !s.lossy {
				m.add(Error, RuleUnknownCallID, base+"/result/call_id", "tool_call_completed for call %q, which no tool_call_requested of run %q asked for", id, runID)
			}
		}
	case "tool_call_failed":
		if id, ok := ev["call_id"].(string); ok && !r.calls[id] && !s.lossy {
			m.add(Error, RuleUnknownCallID, base+"/call_id", "tool_call_failed for call %q, which no tool_call_requested of run %q asked for", id, runID)
		}
	case "run_errored":
		r.errored = true
	case "run_finished":
		r.finished = true
		r.calls = nil // no longer needed; keep the state small
	}
}

// intValue reads an integer JSON number.
func intValue(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}
