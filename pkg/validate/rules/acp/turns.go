package acp

import (
	"slices"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// Requirements of the foreground state that a session reports with its
// own notifications (ACP v2's state_update), rather than with the answer
// to its prompt.
const (
	reqRunningBeforeIdle = "acp.turn.running-before-idle"
	reqStopReason        = "acp.prompt.stop-reason"
	reqCustomStopReason  = "acp.prompt.custom-stop-reason-prefix"
	reqCancelNoError     = "acp.prompt.cancel-no-error"
	reqUserMessageEcho   = "acp.turn.user-message-echo"
	reqIdleWhenReady     = "acp.turn.idle-when-ready"
)

// RuleTurnState names the findings about a session's reported states.
const RuleTurnState = "turn-state"

// stateVersions are the versions whose method tables carry the effects of
// reported foreground states.
var stateVersions = []string{"v2", "v2-unstable"}

// foreground is what a session's reported states have left to check.
type foreground struct {
	working     bool   // running (or another working state) since the last idle
	taken       bool   // a prompt was accepted since the last idle
	cancelled   bool   // the client cancelled the work since the last idle
	cancelledBy string // the method that cancelled it
	wantMsg     string // the user message id the accepted prompt's answer named
	line        int    // where work last began
	accepted    int    // the line of the answer that accepted the prompt
	// asked is set while a prompt awaits its answer; a user message
	// reported then (the schema lets it come before the answer or after)
	// is early, on line earlyLine, with its messageId ("" without one).
	asked     bool
	early     *string
	earlyLine int
}

// askedTurn notes a prompt sent on the session: until its answer, a user
// message reported is the prompt's.
func (s *state) askedTurn(ts *turnState) {
	ts.fg.asked, ts.fg.early = true, nil
}

// acceptedTurn notes the answer that accepted a prompt: the work it
// starts, and the id of the user message the agent must now report.
func (s *state) acceptedTurn(m *protocol.Message, req *request) {
	ts := s.turns(req.sid)
	if ts == nil {
		return
	}
	ts.fg.taken, ts.fg.accepted = true, m.Line
	if req.cancelled {
		ts.fg.cancelled, ts.fg.cancelledBy = true, req.cancelledBy
	}
	p := req.eff.Effects.MessageID
	if p != "" {
		ts.fg.wantMsg, _ = m.String(p)
	}
	early := ts.fg.early
	ts.fg.asked, ts.fg.early = false, nil
	if early == nil || ts.fg.wantMsg == "" {
		return
	}
	// The user message came before this answer, as the schema allows:
	// it is the one the answer names.
	want := ts.fg.wantMsg
	ts.fg.wantMsg = ""
	s.exercise(reqUserMessageEcho)
	if *early != "" && *early != want {
		m.Breach(reqUserMessageEcho, finding.Error, RuleTurnState, p, "this answer names the prompt's user message %s, but the user message reported on line %d, before it, has messageId %s: the agent reports the prompt as the message the answer names", protocol.Quote(want), ts.fg.earlyLine, protocol.Quote(*early))
	}
}

// cancelForeground notes a cancel of the session's work.
func (s *state) cancelForeground(ts *turnState, by string) {
	if ts.fg.working || ts.fg.taken {
		ts.fg.cancelled, ts.fg.cancelledBy = true, by
	}
}

// userMessage checks that the first user message reported after a prompt
// was accepted carries the id the answer named.
func (s *state) userMessage(m *protocol.Message, ef *registry.ACPEffects, ts *turnState) {
	um := ef.UserMessage
	if ts.fg.wantMsg == "" && !ts.fg.asked {
		return
	}
	tag, ok := m.StringBytes(um.At)
	if !ok || !slices.Contains(um.Tags, string(tag)) {
		return
	}
	if ts.fg.wantMsg == "" {
		// Before the prompt's answer: kept for it to check.
		if ts.fg.early == nil {
			id, _ := m.String(um.ID)
			ts.fg.early, ts.fg.earlyLine = &id, m.Line
		}
		return
	}
	want := ts.fg.wantMsg
	ts.fg.wantMsg = ""
	s.exercise(reqUserMessageEcho)
	if got, ok := m.String(um.ID); ok && got != want {
		m.Breach(reqUserMessageEcho, finding.Error, RuleTurnState, um.ID, "the user message is reported with messageId %s, but the answer that accepted the prompt named %s: the agent reports the prompt as the message the answer named", protocol.Quote(got), protocol.Quote(want))
	}
}

// turnState checks a report of the session's foreground state.
func (s *state) turnState(m *protocol.Message, ts *turnState, t *registry.ACPTurnState) {
	state, ok := m.String(t.State)
	if !ok {
		return
	}
	if state != t.Idle {
		if !ts.fg.working {
			ts.fg.working, ts.fg.line = true, m.Line
		}
		return
	}
	fg := ts.fg
	// A prompt awaiting its answer is the next work's: it stays.
	ts.fg = foreground{asked: fg.asked, early: fg.early, earlyLine: fg.earlyLine}
	if fg.wantMsg != "" {
		s.exercise(reqUserMessageEcho)
		m.Breach(reqUserMessageEcho, finding.Error, RuleTurnState, t.State, "the work of the prompt accepted on line %d ends, and the user message it became (messageId %s) was never reported: after accepting a prompt the agent reports it with a user_message or user_message_chunk update", fg.accepted, protocol.Quote(fg.wantMsg))
	}
	reason, hasReason := m.String(t.StopReason)
	if hasReason {
		s.exercise(reqRunningBeforeIdle)
		s.exercise(reqCustomStopReason)
		switch {
		case !fg.working:
			m.Breach(reqRunningBeforeIdle, finding.Error, RuleTurnState, t.StopReason, "an idle state with stopReason %s, but no state_update reported running work since the session was last idle: the agent reports running when foreground work starts", protocol.Quote(reason))
		case !slices.Contains(t.Reasons, reason) && !strings.HasPrefix(reason, "_"):
			m.Breach(reqCustomStopReason, finding.Error, RuleTurnState, t.StopReason, "stop reason %s is none of %s: a stop reason of one's own starts with \"_\" (%s); others are kept for later versions of ACP", protocol.Quote(reason), strings.Join(t.Reasons, ", "), protocol.Quote("_"+reason))
		}
	} else if fg.working {
		s.exercise(reqStopReason)
		m.Breach(reqStopReason, finding.Error, RuleTurnState, strings.TrimSuffix(t.StopReason, "/stopReason"), "an idle state that ends the running work reported on line %d has no stopReason: the agent says why the work stopped", fg.line)
	}
	if !fg.cancelled {
		return
	}
	s.exercise(reqCancelledReason)
	switch {
	case reason == t.Cancelled:
	case reason == t.Failed && t.Failed != "":
		m.Breach(reqCancelNoError, finding.Error, RuleCancellation, t.StopReason, "the client cancelled this work (%s), and the agent reports stopReason %s: the failures that aborting causes are reported as stopReason %s", fg.cancelledBy, protocol.Quote(reason), protocol.Quote(t.Cancelled))
	case hasReason:
		m.Breach(reqCancelledReason, finding.Error, RuleCancellation, t.StopReason, "the client cancelled this work (%s), and the agent reports stopReason %s: cancelled work ends with stopReason %s", fg.cancelledBy, protocol.Quote(reason), protocol.Quote(t.Cancelled))
	}
}

// unanswered warns, at the end of a trace, of requests that were never
// answered: the receiver broke off, or the trace was cut short.
func (s *state) unanswered(lastLine int) []finding.Finding {
	if s.lossy {
		return nil // a line that could not be read may have been the answer
	}
	var out []finding.Finding
	type open struct {
		line           int
		name, dir, key string
	}
	var reqs []open
	for _, k := range s.pending.Keys() {
		if r, _ := s.pending.Get(k); r != nil && r.dir != "" {
			reqs = append(reqs, open{r.line, r.name, r.dir, k})
		}
	}
	// By line, and the requests of one batch by their keys: the same
	// order on every run.
	sort.Slice(reqs, func(i, j int) bool {
		return reqs[i].line < reqs[j].line || reqs[i].line == reqs[j].line && reqs[i].key < reqs[j].key
	})
	for i, r := range reqs {
		if i == 8 {
			out = append(out, finding.Finding{Line: lastLine, Severity: finding.Warning, Rule: RuleUnansweredRequest, Requirement: reqAnswerOnce,
				Message: itoa(len(reqs)-8) + " more requests were never answered (the first 8 are reported above)"})
			break
		}
		// On the last line: findings come in line order.
		out = append(out, finding.Finding{Line: lastLine, Severity: finding.Warning, Rule: RuleUnansweredRequest, Requirement: reqAnswerOnce, Side: sideOf(opposite(r.dir)),
			Message: "the " + protocol.Quote(r.name) + " request on line " + itoa(r.line) + " was never answered before the trace ends: every request gets exactly one response (if the trace was cut short, this is expected)"})
	}
	return out
}

// unfinishedWork warns, at the end of a trace, of sessions whose reported
// work never became idle again.
func (s *state) unfinishedWork(lastLine int) []finding.Finding {
	var out []finding.Finding
	ids := s.sessions.Keys()
	sort.Strings(ids)
	for _, sid := range ids {
		sess, _ := s.sessions.Get(sid)
		if sess == nil || sess.turns == nil || !sess.turns.fg.working || len(out) >= 8 {
			continue
		}
		s.exercise(reqIdleWhenReady)
		out = append(out, finding.Finding{Line: lastLine, Severity: finding.Warning, Rule: RuleTurnState, Requirement: reqIdleWhenReady, Side: sideAgent,
			Message: "session " + protocol.Quote(sid) + " was reported running (line " + itoa(sess.turns.fg.line) + ") and never idle again before the trace ends: an agent reports idle when it can take a new prompt (if the trace was cut short, this is expected)"})
	}
	return out
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	if n == 0 {
		return "0"
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
