package arcan

import (
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strings"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// This file holds the run rules: an event's place in its run's lifecycle,
// iterations and turns, tool calls, state revisions and approvals, and how
// a run finished.

// rules applies the run rules to an event, from the effects its variant
// declares in the version's dispatch table; base is where the event sits
// in the line ("" bare, "/event" in a store record).
func (s *state) rules(m *protocol.Message, tag string, base string) {
	runID, ok := s.str(m, "/run_id")
	if !ok {
		return
	}
	e := s.t.v.Arcan().Event(tag)
	if e == nil {
		return
	}
	eff := &e.Effects
	r := s.run(runID)
	if s.lifecycle(m, r, eff, tag, runID) {
		return // the line's finding is its place in the run's lifecycle
	}
	// whole: the run's events are in the trace from its run_started on,
	// so what the run has not shown did not happen.
	whole := r.started && !r.partial
	s.session(m, r, base, runID)
	current := s.iteration(m, r, eff, tag, base, runID, whole)
	if current && r.opened {
		s.turn(m, r, eff, tag, base, runID)
	}
	s.calls(m, r, eff, tag, base, runID)
	s.revision(m, r, eff, base, runID)
	if eff.Patch != "" {
		s.exercised.Row(RowPatchFormat)
		patchFormat(m, s.node(m, eff.Patch), base, eff.Patch)
	}
	s.streamed(m, r, eff)
	s.approvals(m, r, eff, base, runID, whole)
	s.ends(m, r, eff, base, runID, whole)
}

// run is the run of id, new if the stream has not shown it.
func (s *state) run(id string) *run {
	r, _ := s.runs.Get(id)
	if r == nil {
		r = &run{partial: s.lossy}
		s.runs.Put(id, r)
	}
	return r
}

// lifecycle checks an event's place in its run: run_started first and
// once, nothing after run_finished, only run_finished after run_errored.
// It reports whether the event breached one of them.
func (s *state) lifecycle(m *protocol.Message, r *run, eff *registry.ArcanEffects, tag, runID string) bool {
	s.exercised.Rule(RuleRunNotStarted)
	s.exercised.Rule(RuleEventAfterFinish)
	before := len(m.State)
	switch {
	case eff.StartsRun:
		if r.finished {
			m.Breach("arcan.run.started-once", finding.Error, RuleEventAfterFinish, "", "run %q starts again after its run_finished: a run id is used for one run only", runID)
		} else if r.started {
			m.Breach("arcan.run.started-once", finding.Error, RuleEventAfterFinish, "", "run %q started twice: run_started comes once, first", runID)
		}
		r.started = true
		if n, ok := s.uint(m, eff.MaxIterations); ok && eff.MaxIterations != "" {
			r.maxIterations, r.hasMax = n, true
		}
	case r.finished:
		m.Breach("arcan.run.finished-last", finding.Error, RuleEventAfterFinish, "", "%s after run %q finished: run_finished is the last event of a run", tag, runID)
	case r.errored && !eff.FinishesRun:
		m.Breach("arcan.run.only-finished-after-error", finding.Error, RuleEventAfterFinish, "", "%s after run %q errored: only run_finished may follow run_errored", tag, runID)
	case !r.started && eff.ErrorsRun:
		// The daemon reports a run that failed before it could start
		// with run_errored alone.
	case !r.started && !r.partial:
		m.Add(finding.Error, RuleRunNotStarted, "", "%s for run %q before its run_started: run_started is the first event of every run", tag, runID)
	}
	return len(m.State) > before
}

// calls follows a run's tool calls: each requested under an id of its
// own, and each ended once, by a call the run requested.
func (s *state) calls(m *protocol.Message, r *run, eff *registry.ArcanEffects, tag, base, runID string) {
	if eff.RequestsCall != "" {
		s.exercised.Row(RowCallIDUnique)
		if id, ok := s.str(m, eff.RequestsCall); ok {
			if r.calls == nil {
				r.calls = map[string]uint8{}
			}
			if r.calls[id] != 0 {
				m.Breach(RowCallIDUnique, finding.Warning, RuleToolCallID, base+eff.RequestsCall, "call id %q is requested a second time in run %q: Arcan names each tool call of a run with its own id, and a result could not say which call it answers", id, runID)
			} else {
				r.calls[id] = callRequested
			}
			r.toolTurn = true
		}
	}
	if eff.EndsCall != "" {
		s.exercised.Rule(RuleUnknownCallID)
		s.exercised.Row(RowOneOutcome)
		if id, ok := s.str(m, eff.EndsCall); ok && !s.lossy {
			switch r.calls[id] {
			case 0:
				m.Add(finding.Error, RuleUnknownCallID, base+eff.EndsCall, "%s for call %q, which no tool_call_requested of run %q asked for", tag, id, runID)
			case callEnded:
				m.Breach(RowOneOutcome, finding.Warning, RuleToolCallID, base+eff.EndsCall, "a second outcome (%s) for call %q of run %q: Arcan gives each tool call one outcome, tool_call_completed or tool_call_failed", tag, id, runID)
			default:
				r.calls[id] = callEnded
			}
		}
	}
}

// revision checks that the run's state revision goes up by one with each
// applied patch.
func (s *state) revision(m *protocol.Message, r *run, eff *registry.ArcanEffects, base, runID string) {
	if eff.Revision == "" {
		return
	}
	s.exercised.Row(RowRevisionSteps)
	if rev, ok := s.uint(m, eff.Revision); ok {
		if r.hasRevision && rev != r.revision+1 && !(rev == r.revision && rev == math.MaxUint64) {
			m.Breach(RowRevisionSteps, finding.Warning, RuleStatePatch, base+eff.Revision, "revision %d after revision %d in run %q: Arcan's state revision goes up by one with each applied patch, so the next patch has revision %d", rev, r.revision, runID, r.revision+1)
		}
		r.revision, r.hasRevision = rev, true
	}
}

// streamed remembers the texts a run streamed.
func (s *state) streamed(m *protocol.Message, r *run, eff *registry.ArcanEffects) {
	if eff.Text == "" {
		return
	}
	if t, ok := s.strBytes(m, eff.Text); ok {
		if r.texts == nil {
			r.texts = map[uint64]struct{}{}
		}
		r.texts[maphash.Bytes(textSeed, t)] = struct{}{}
	}
}

// approvals follows a run's approvals: each resolved one was requested and
// not resolved yet.
func (s *state) approvals(m *protocol.Message, r *run, eff *registry.ArcanEffects, base, runID string, whole bool) {
	if eff.RequestsApproval != "" {
		if id, ok := s.str(m, eff.RequestsApproval); ok {
			if r.approvals == nil {
				r.approvals = map[string]bool{}
			}
			r.approvals[id] = true
		}
	}
	if eff.ResolvesApproval != "" {
		s.exercised.Row(RowApprovalAnswers)
		if id, ok := s.str(m, eff.ResolvesApproval); ok && !s.lossy && whole {
			if !r.approvals[id] {
				m.Breach(RowApprovalAnswers, finding.Warning, RuleApprovalID, base+eff.ResolvesApproval, "approval_resolved for approval %q, which no unresolved approval_requested of run %q asked for", id, runID)
			}
			delete(r.approvals, id)
		}
	}
}

// ends records a run that errored or finished, and checks how a whole run
// finished.
func (s *state) ends(m *protocol.Message, r *run, eff *registry.ArcanEffects, base, runID string, whole bool) {
	if eff.ErrorsRun {
		r.errored = true
	}
	if eff.FinishesRun {
		if whole && !r.finished {
			s.finished(m, r, eff, base, runID)
		}
		r.finished = true
		r.calls, r.texts, r.approvals = nil, nil, nil // no longer needed; keep the state small
	}
}

// callRequested and callEnded are a tool call's states in run.calls.
const (
	callRequested uint8 = 1 + iota
	callEnded
)

// textSeed hashes the texts a run streamed.
var textSeed = maphash.MakeSeed()

// session: every event of a run names the run's session.
func (s *state) session(m *protocol.Message, r *run, base, runID string) {
	at := s.node(m, "/session_id")
	b, ok := m.Doc.StringBytes(at)
	if !ok {
		sid, ok := m.Doc.String(at) // escaped: decode it
		if !ok {
			return
		}
		b = []byte(sid)
	}
	s.exercised.Row(RowSameSession)
	switch {
	case !r.hasSession:
		r.session, r.hasSession = string(b), true
	case string(b) != r.session:
		m.Breach(RowSameSession, finding.Warning, RuleRunSession, base+"/session_id", "run %q belongs to session %q, but this event names session %q: every event of a run carries its run's session", runID, r.session, b)
	}
}

// iteration follows the run's iterations; it reports whether the event
// belongs to the current one (or names none).
func (s *state) iteration(m *protocol.Message, r *run, eff *registry.ArcanEffects, tag, base, runID string, whole bool) bool {
	if eff.Iteration == "" {
		return true
	}
	n, ok := s.uint(m, eff.Iteration)
	if !ok || n > math.MaxUint32 {
		return false // not a u32: the schema's finding
	}
	it := int64(n)
	s.exercised.Rule(RuleIterationOrder)
	switch {
	case r.hasIteration && it < r.iteration:
		m.Add(finding.Error, RuleIterationOrder, base+eff.Iteration, "iteration %d after iteration %d in run %q: iterations never go back", it, r.iteration, runID)
		return false
	case eff.StartsIteration:
		if whole {
			s.exercised.Row(RowIterationConsecutive)
			s.exercised.Row(RowIterationWithinMax)
			want := r.iteration + 1
			switch {
			case r.hasMax && n > r.maxIterations:
				m.Breach(RowIterationWithinMax, finding.Warning, RuleIterationSequence, base+eff.Iteration, "iteration %d of run %q is beyond its max_iterations %d: Arcan ends a run that used its budget with run_errored (max iteration budget exceeded) instead of starting another iteration", it, runID, r.maxIterations)
			case it != want:
				m.Breach(RowIterationConsecutive, finding.Warning, RuleIterationSequence, base+eff.Iteration, "iteration %d starts after iteration %d in run %q: Arcan numbers a run's iterations 1, 2, 3, … with none skipped or repeated, so this one would be %d", it, r.iteration, runID, want)
			}
		}
		r.iteration, r.hasIteration, r.opened = it, true, true
		r.modelOut, r.hasCount, r.directives = false, false, 0
		return true
	case r.hasIteration && it == r.iteration:
		if whole {
			s.exercised.Row(RowIterationStartFirst)
		}
		return true
	case whole:
		// An event of an iteration the run has not started.
		s.exercised.Row(RowIterationStartFirst)
		now := "has started no iteration"
		if r.hasIteration {
			now = fmt.Sprintf("is in iteration %d", r.iteration)
		}
		m.Breach(RowIterationStartFirst, finding.Warning, RuleIterationSequence, base+eff.Iteration, "%s carries iteration %d, but run %q %s: the events of an iteration follow its iteration_started, and carry its number", tag, it, runID, now)
		return false
	default:
		// A run first seen mid-way: take the iteration as it comes.
		r.iteration, r.hasIteration, r.opened = it, true, false
		return true
	}
}

// turn checks an event's place in its iteration: context_compacted before
// the model turn's model_output, the directives' events after it, and no
// more directive events than the turn had directives.
func (s *state) turn(m *protocol.Message, r *run, eff *registry.ArcanEffects, tag, base, runID string) {
	switch eff.Turn {
	case registry.ArcanBeforeModel:
		s.exercised.Row(RowCompactionFirst)
		if r.modelOut {
			m.Breach(RowCompactionFirst, finding.Warning, RuleTurnOrder, "", "%s after iteration %d's model_output in run %q: Arcan compacts the context before it calls the model", tag, r.iteration, runID)
		}
	case registry.ArcanModelOutput:
		r.modelOut = true
		r.stopReason, _ = s.str(m, eff.StopReason)
		r.directiveCount, r.hasCount = s.uint(m, eff.DirectiveCount)
		r.directives = 0
		r.toolTurn = false
	case registry.ArcanAfterModel:
		s.exercised.Row(RowModelOutputFirst)
		if !r.modelOut {
			m.Breach(RowModelOutputFirst, finding.Warning, RuleTurnOrder, "", "%s before iteration %d's model_output in run %q: Arcan emits model_output first, then one event per directive of the model's turn", tag, r.iteration, runID)
			return
		}
		if eff.Directive && r.hasCount {
			s.exercised.Row(RowDirectiveCount)
			r.directives++
			if r.directives > r.directiveCount {
				m.Breach(RowDirectiveCount, finding.Warning, RuleTurnOrder, "", "%s is directive event %d of iteration %d in run %q, whose model_output has directive_count %d: each directive yields one event", tag, r.directives, r.iteration, runID, r.directiveCount)
			}
		}
	}
}

// finished checks how a run whose whole history is in the trace ended:
// total_iterations, the reason against the last model turn or the error,
// and a final answer that was streamed.
func (s *state) finished(m *protocol.Message, r *run, eff *registry.ArcanEffects, base, runID string) {
	if eff.TotalIterations != "" {
		s.exercised.Row(RowTotalIterations)
		if n, ok := s.uint(m, eff.TotalIterations); ok && n <= math.MaxUint32 {
			want := uint64(0)
			if r.hasIteration {
				want = uint64(r.iteration)
			}
			if n != want {
				m.Breach(RowTotalIterations, finding.Warning, RuleRunOutcome, base+eff.TotalIterations, "total_iterations %d, but the last iteration run %q started is %d: Arcan reports the number of the last iteration_started (0 when there was none)", n, runID, want)
			}
		}
	}
	if eff.Reason != "" {
		t := s.t.v.Arcan()
		if reason, ok := s.str(m, eff.Reason); ok && t.KnownReason(reason) {
			switch {
			case r.errored:
				s.exercised.Row(RowErroredReason)
				if !slices.Contains(t.ErrorReasons, reason) {
					m.Breach(RowErroredReason, finding.Warning, RuleRunOutcome, base+eff.Reason, "run %q reported run_errored but finishes with reason %q: after an error Arcan finishes with one of %s", runID, reason, strings.Join(t.ErrorReasons, ", "))
				}
			case r.stopReason != "" && !r.toolTurn:
				s.exercised.Row(RowReasonFollows)
				if want, ok := t.RunReasons[r.stopReason]; ok && reason != want {
					m.Breach(RowReasonFollows, finding.Warning, RuleRunOutcome, base+eff.Reason, "run %q finishes with reason %q after a model turn that stopped with %q and no error: Arcan finishes such a run with %q", runID, reason, r.stopReason, want)
				}
			}
		}
	}
	if eff.FinalAnswer != "" {
		s.exercised.Row(RowFinalAnswerStreamed)
		if t, ok := s.strBytes(m, eff.FinalAnswer); ok {
			if _, sent := r.texts[maphash.Bytes(textSeed, t)]; !sent {
				m.Breach(RowFinalAnswerStreamed, finding.Warning, RuleRunOutcome, base+eff.FinalAnswer, "run %q's final_answer was not streamed: Arcan sends a final answer as a text_delta of the same text before run_finished repeats it", runID)
			}
		}
	}
}

// patchFormat checks that a json_patch StatePatch holds an RFC 6902
// operation array: objects with a string op and path.
func patchFormat(m *protocol.Message, at int, base, ptr string) {
	d := &m.Doc
	if at < 0 || !d.StringIs(d.Member(at, "format"), "json_patch") {
		return
	}
	p := d.Member(at, "patch")
	if p < 0 {
		return
	}
	ok := d.Type(p) == jsonscan.Array
	if ok {
		d.Elements(p, func(e int) bool {
			_, op := d.String(d.Member(e, "op"))
			_, path := d.String(d.Member(e, "path"))
			ok = d.Type(e) == jsonscan.Object && op && path
			return ok
		})
	}
	if !ok {
		m.Breach(RowPatchFormat, finding.Warning, RuleStatePatch, base+ptr+"/patch", "a json_patch patch is an RFC 6902 array of operations, each with a string op and path; Arcan could not apply this one to the state")
	}
}
