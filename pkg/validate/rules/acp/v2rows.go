package acp

// The checks of ACP v2's rows that its method tables' own effects carry:
// capabilities at v2's pointers, methods an advertised capability obliges
// the agent to implement, how a session's work reports that it waits on
// the user and goes on, updates after cancelled or closed work, replayed
// messages' ids, what the first report of a tool call or terminal gives,
// permission outcomes that approve nothing, names that repeat, and the
// patch text of diffs.

import (
	"slices"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// Rule names of the checks of this file.
const (
	RuleDiffPatch     = "diff-patch"     // a diff's patch text that is not what the spec allows
	RuleFirstReport   = "first-report"   // the first report of a tool call or terminal without what it should give
	RuleDuplicateName = "duplicate-name" // a name repeated where the spec wants them unique
	RuleApproval      = "approval"       // a tool run though its permission outcome approved nothing
)

// The rows of this file's checks.
const (
	reqPromptAck          = "acp.turn.prompt-ack"
	reqRequiresAction     = "acp.turn.requires-action"
	reqRunningAfterAction = "acp.turn.running-after-action"
	reqCloseCancels       = "acp.session.close-cancels"
	reqReplayMessageID    = "acp.session.replay-message-id"
	reqUnknownOutcome     = "acp.permission.unknown-outcome-not-approval"
	reqPatchConsistent    = "acp.diff.patch-consistent"
	reqPatchProvided      = "acp.diff.patch-provided"
	reqPatchAbsolute      = "acp.diff.patch-paths-absolute"
	reqPatchNoCommit      = "acp.diff.no-commit-metadata"
)

// maxV2IDs bounds the ids each session remembers for the checks of this
// file (first reports, replayed messages, unapproved tool calls).
const maxV2IDs = 1024

// v2GateRows names the rows of v2's capability gates, whose pointers
// (/capabilities/…) are the same for both sides.
var v2GateRows = map[string]string{
	"/capabilities/elicitation":                   "acp.elicitation.mode-gated",
	"/capabilities/session/delete":                "acp.session.delete-gated",
	"/capabilities/session/additionalDirectories": "acp.session.additional-directories-gated",
}

// v2GateRow is the row of a v2 capability gate.
func v2GateRow(capability string) (string, bool) {
	if id, ok := v2GateRows[capability]; ok {
		return id, true
	}
	switch {
	case strings.HasPrefix(capability, "/capabilities/elicitation/"):
		return "acp.elicitation.mode-gated", true
	case strings.HasPrefix(capability, "/capabilities/session/prompt/"):
		return "acp.prompt.content-gated", true
	case strings.HasPrefix(capability, "/capabilities/session/mcp/"):
		return "acp.mcp.transport-gated", true
	}
	return "", false
}

// v2PathRows are the rows of the paths that have one of their own.
var v2PathRows = map[string]string{
	"/params/update/cwd":  "acp.terminal.cwd-absolute",
	"/params/subject/cwd": "acp.permission.command-cwd-absolute",
}

// v2RuleDocs are the rows v2's method tables let the rules check.
func v2RuleDocs() []protocol.RuleDoc {
	return []protocol.RuleDoc{
		{Name: finding.RuleSchema, Summary: "a message does not match its method's schema", Requirements: []string{"acp.jsonrpc.version", "acp.jsonrpc.result-or-error", "acp.init.agent-answer", "acp.mcp.type-discriminator", "acp.turn.message-id", "acp.plan.plan-id", "acp.config.default-value", "acp.list.answer-sessions", "acp.session.close-params"}, Versions: stateVersions},
		{Name: RuleNotInitialized, Summary: "session/list or session/delete before initialize is answered", Requirements: []string{"acp.list.after-init", "acp.delete.after-init"}, Versions: stateVersions},
		{Name: RuleCapability, Summary: "a call, or an offer, that the other side's capabilities do not permit", Requirements: withRestated("acp.elicitation.mode-gated", "acp.session.delete-gated", "acp.prompt.content-gated", "acp.mcp.transport-gated", "acp.session.additional-directories-gated", "acp.auth.login-gated", "acp.auth.logout-gated", reqAuthNoTerminal), Versions: stateVersions},
		{Name: RuleMethodNotFound, Summary: "a method the agent's advertised capabilities or auth methods oblige it to implement, answered \"method not found\" (-32601)", Requirements: []string{"acp.auth.methods-implemented", "acp.session.list-required", "acp.session.resume-required", "acp.session.close-required"}, Versions: stateVersions},
		{Name: RuleOpenValue, Summary: "a value of one's own in an open set (a plan's type, priority or status, a content block's type, a config option's type, an MCP server's type, a command input's type, a tool kind or status, a permission option's kind) without the \"_\"", Requirements: []string{"acp.plan.custom-type-prefix", "acp.plan.custom-priority-prefix", "acp.plan.custom-status-prefix", "acp.content.custom-type-prefix", "acp.config.custom-type-prefix", "acp.mcp.custom-type-prefix", "acp.command.custom-input-prefix", "acp.tool-call.custom-kind-prefix", "acp.permission.custom-kind-prefix", "acp.tool-call.custom-status-prefix"}, Versions: stateVersions},
		{Name: RuleAbsolutePath, Summary: "a path that is not absolute: a tool call's location, a diff's change, an MCP server's command, a terminal's or a command's working directory", Requirements: []string{reqPathsAbsolute, "acp.terminal.cwd-absolute", "acp.permission.command-cwd-absolute"}, Versions: stateVersions},
		{Name: RuleBaselineContent, Summary: "a prompt of only the content every agent accepts (text, resource_link) refused as invalid params", Requirements: []string{reqBaselineContent, reqTextSupported}, Versions: stateVersions},
		{Name: RuleConfigOptions, Summary: "an answer to session/set_config_option that does not list every option", Requirements: []string{reqConfigComplete}, Versions: stateVersions},
		{Name: RuleCancellation, Summary: "content or tool-call updates after the idle state that reported the work cancelled, or after a close's answer; a permission request of cancelled work not answered \"cancelled\"", Requirements: withRestated(reqUpdatesBefore, reqPermissionCancel, reqCloseCancels), Versions: stateVersions},
		{Name: RuleTurnState, Summary: "a prompt answered only once its work was over; and, as warnings, work that waits on the user without reporting requires_action, or goes on without reporting running again", Requirements: []string{reqPromptAck, reqRequiresAction, reqRunningAfterAction}, Versions: stateVersions},
		{Name: RuleHistoryReplay, Summary: "two messages replayed by session/resume under one messageId", Requirements: []string{reqReplayMessageID}, Versions: stateVersions},
		{Name: RuleFirstReport, Summary: "the first update of a tool call without its title, or of a terminal without its command (warnings)", Requirements: []string{"acp.tool-call.title-first", "acp.terminal.command-first"}, Versions: stateVersions},
		{Name: RuleDuplicateName, Summary: "two environment variables of one terminal auth method with the same name", Requirements: []string{"acp.auth.terminal-env-unique"}, Versions: stateVersions},
		{Name: RuleApproval, Summary: "a tool call run after its permission request was answered with an outcome the version does not define", Requirements: []string{reqUnknownOutcome}, Versions: stateVersions},
		{Name: RuleDiffPatch, Summary: "a git_patch text with commit headers, relative paths (a/ b/), or files its changes do not list; and, as a warning, a text file's diff without a patch", Requirements: []string{reqPatchNoCommit, reqPatchAbsolute, reqPatchConsistent, reqPatchProvided}, Versions: stateVersions},
	}
}

// v2Turn is what the checks of this file keep about a session.
type v2Turn struct {
	// startedAsked is set when work was reported while a prompt awaited
	// its answer, and heldIdle is the line of the idle state that ended
	// it before the answer came.
	startedAsked bool
	heldIdle     int
	// asks are the lines of the requests the session's running work
	// waits on, unanswered; askSeen is set when requires_action was
	// reported while they were open, blocked while it is the last state.
	asks    []int
	askSeen bool
	blocked bool
	// missed is the line of a request answered while the work never
	// reported requires_action, resumeDue the line of the answer after
	// which the work owes running: each is reported at the agent's next
	// update of the session.
	missed, resumeDue int
	// cancelIdle is the line of the idle state that reported cancelled
	// work, closed the line of the answer that closed the session: no
	// content or tool-call update may follow either.
	cancelIdle, closed int
	background         []string               // tool calls the cancelled idle said go on in the background
	first              *protocol.Recent[bool] // ids whose first report was seen
	replaying          bool                   // a resume replays the history
	replayed           map[string]replayed    // ids of the messages it replayed
	approvals          map[int]string         // tool calls permission requests ask about, by request line
	unapproved         map[string]int         // tool calls an unknown outcome answered, with its line
}

// replayed is a message a replay sent: its line and its type.
type replayed struct {
	line int
	tag  string
}

// v2Sent applies the checks of a request or notification.
func (s *state) v2Sent(m *protocol.Message, eff *method, req *request) {
	ef := &eff.Effects
	if r := ef.Requires; r != nil && s.agentInit != nil {
		s.exercise(r.Requirement)
		if !advertised(protocol.At(s.agentInit, r.Capability)) {
			m.Breach(r.Requirement, finding.Error, RuleCapability, "/method", "this needs the agent's %s, which its initialize answer leaves out or empty: the client sends it only when the agent advertised it", dotted(r.Capability))
		}
	}
	s.unique(m, ef.Unique, "/params/")
	sp := ef.Session
	if sp == "" {
		sp = ef.AdoptsSession
	}
	if sp == "" {
		return
	}
	ts := s.turnsAt(m, sp)
	if ts == nil {
		return
	}
	v := &ts.v2
	if ef.AdoptsSession != "" {
		*v = v2Turn{replaying: req != nil && req.replay == registry.ReplayBeforeAnswer}
	}
	if ef.StartsTurn != "" && req != nil {
		v.startedAsked, v.heldIdle, v.cancelIdle = false, 0, 0
	}
	if ef.BlocksTurn != "" && req != nil && ts.fg.working && len(v.asks) < maxAsks {
		if len(v.asks) == 0 {
			v.askSeen = v.blocked
		}
		v.asks = append(v.asks, req.line)
	}
	if a := ef.Approval; a != nil && req != nil {
		if id, ok := m.String(a.ToolCall); ok {
			if v.approvals == nil {
				v.approvals = map[int]string{}
			}
			if len(v.approvals) < maxV2IDs {
				v.approvals[req.line] = id
			}
			delete(v.unapproved, id) // asked again
		}
	}
	if eff.Handler != registry.HandlerClient {
		return
	}
	sb, _ := m.StringBytes(sp)
	sess, _ := s.sessions.GetBytes(sb)
	if req != nil {
		// A request of the agent's may report what it is about (a
		// permission's tool call): the client learns the member there,
		// though the row is about updates.
		if sess != nil && sess.fresh && !s.midSession && !s.lossy {
			s.firstReports(m, ef.FirstHas, v, false)
		}
		return
	}
	s.v2Update(m, ef, ts, sess)
}

// v2Update checks an agent's update of a session.
func (s *state) v2Update(m *protocol.Message, ef *registry.ACPEffects, ts *turnState, sess *session) {
	v := &ts.v2
	t := ef.TurnState
	state, hasState := "", false
	if t != nil && whenMap(m, t.When) {
		state, hasState = m.String(t.State)
	}
	// What the work owes, reported at this update.
	if v.missed > 0 {
		s.exercise(reqRequiresAction)
		m.Breach(reqRequiresAction, finding.Warning, RuleTurnState, "/params/update", "the work of this session waited on the request on line %d until it was answered, and never reported state %s meanwhile: work blocked on a permission or other user action should say so, so the client can show it", v.missed, protocol.Quote(t.Blocked))
		v.missed = 0
	}
	if v.resumeDue > 0 {
		s.exercise(reqRunningAfterAction)
		if !hasState {
			m.Breach(reqRunningAfterAction, finding.Warning, RuleTurnState, "/params/update", "the work reported %s, the request it waited on was answered (line %d), and it goes on without reporting state %s first: work that resumes should report running again before continuing", protocol.Quote(t.Blocked), v.resumeDue, protocol.Quote(t.Resumed))
		}
		v.resumeDue = 0
	}
	if hasState {
		s.v2State(m, t, ts, state)
		return
	}
	if c := ef.Conversation; c != nil && (v.closed > 0 || v.cancelIdle > 0) {
		if tag, ok := m.String(c.At); ok && c.Has(tag) {
			switch {
			case v.closed > 0:
				s.exercise(reqCloseCancels)
				m.Breach(reqCloseCancels, finding.Error, RuleCancellation, c.At, "an update of type %s after the answer that closed the session (line %d): closing cancels the session's work as session/cancel does, and once the close is answered no update of that work follows (later ones are not reported)", protocol.Quote(tag), v.closed)
				v.closed = 0
			case v.cancelIdle > 0 && inBackground(m, t, v.background):
				// Background work, which the idle state said goes on.
			case v.cancelIdle > 0:
				s.exercise(reqUpdatesBefore)
				m.Breach(reqUpdatesBefore, finding.Error, RuleCancellation, c.At, "an update of type %s after the idle state that reported the work cancelled (line %d): every update of cancelled work comes before that state (later ones are not reported)", protocol.Quote(tag), v.cancelIdle)
				v.cancelIdle = 0
			}
		}
	}
	if r := ef.ReplayMessages; r != nil && v.replaying {
		s.replayedMessage(m, r, v)
	}
	if sess != nil && sess.fresh && !s.midSession && !s.lossy {
		s.firstReports(m, ef.FirstHas, v, true)
	}
	if tr := ef.ToolRuns; tr != nil && len(v.unapproved) > 0 && whenMap(m, tr.When) {
		id, _ := m.String(tr.ID)
		status, _ := m.String(tr.Status)
		if line, ok := v.unapproved[id]; ok && slices.Contains(tr.Running, status) {
			delete(v.unapproved, id)
			m.Breach(reqUnknownOutcome, finding.Error, RuleApproval, tr.Status, "tool call %s is reported %s, but its permission request was answered with an outcome this version does not define (line %d): an outcome the agent does not understand approves nothing, and the operation is not run", protocol.Quote(clip(id)), protocol.Quote(status), line)
		}
	}
	s.diffs(m, ef.Diffs)
}

// v2State follows a reported state of the session's work.
func (s *state) v2State(m *protocol.Message, t *registry.ACPTurnState, ts *turnState, state string) {
	v := &ts.v2
	switch state {
	case t.Idle:
		if ts.fg.asked && v.startedAsked {
			v.heldIdle = m.Line
		}
		v.cancelIdle = 0
		if r, _ := m.String(t.StopReason); r == t.Cancelled && t.Cancelled != "" {
			s.exercise(reqUpdatesBefore)
			v.cancelIdle = m.Line
			v.background = m.Strings(t.Background)
		}
		v.asks, v.blocked, v.askSeen, v.startedAsked = nil, false, false, false
	case t.Blocked:
		v.blocked, v.askSeen = true, true
	default:
		v.blocked, v.cancelIdle = false, 0
		if ts.fg.asked {
			v.startedAsked = true
		}
	}
}

// v2Answered applies the checks of an answer to req (errored: a JSON-RPC
// error, with its code).
func (s *state) v2Answered(m *protocol.Message, req *request, errored bool, code int64, hasCode bool) {
	ef := &req.eff.Effects
	if r := ef.ImplementedIf; r != nil && req.m != nil && s.agentInit != nil {
		s.exercise(r.Requirement)
		if errored && hasCode && code == codeMethodNotFound && advertised(protocol.At(s.agentInit, r.Capability)) {
			m.Breach(r.Requirement, finding.Error, RuleMethodNotFound, "/error/code", "the agent's initialize answer sets %s, which obliges it to implement %s, and it answered %d (method not found)", dotted(r.Capability), req.m.Method, codeMethodNotFound)
		}
	}
	if !errored {
		s.unique(m, ef.Unique, "/result/")
	}
	sid := req.sid
	if sid == "" {
		sid = req.closes
	}
	if sid == "" {
		return
	}
	ts := s.turns(sid)
	if ts == nil {
		return
	}
	v := &ts.v2
	if ef.StartsTurn != "" && ef.MessageID != "" && !errored {
		s.exercise(reqPromptAck)
		if v.heldIdle > 0 {
			m.Breach(reqPromptAck, finding.Error, RuleTurnState, ef.MessageID, "the prompt is answered only now, after the idle state on line %d ended the work it started: the agent answers a prompt as soon as it accepts it, and reports the work's end with state_update", v.heldIdle)
		}
		v.startedAsked, v.heldIdle = false, 0
	}
	if ef.BlocksTurn != "" {
		for i, line := range v.asks {
			if line != req.line {
				continue
			}
			v.asks = append(v.asks[:i], v.asks[i+1:]...)
			s.exercise(reqRequiresAction)
			switch {
			case !v.askSeen:
				v.missed = req.line
			case v.blocked && len(v.asks) == 0 && !ts.fg.cancelled:
				// Work that goes on (cancelled work ends instead).
				s.exercise(reqRunningAfterAction)
				v.resumeDue = m.Line
			}
			break
		}
	}
	if a := ef.Approval; a != nil {
		id, ok := v.approvals[req.line]
		delete(v.approvals, req.line)
		if out, has := m.String(a.Outcome); ok && has && !errored {
			s.exercise(reqUnknownOutcome)
			if !slices.Contains(a.Known, out) && len(v.unapproved) < maxV2IDs {
				if v.unapproved == nil {
					v.unapproved = map[string]int{}
				}
				v.unapproved[id] = m.Line
			}
		}
	}
	if ef.AdoptsSession != "" {
		v.replaying, v.replayed = false, nil
	}
	if ef.ClosesSession != "" && ef.CancelsTurn != "" && !errored {
		s.exercise(reqCloseCancels)
		v.closed = m.Line
	}
}

// replayedMessage checks a whole message replayed while a resume replays
// the history: its id is not another replayed message's.
func (s *state) replayedMessage(m *protocol.Message, r *registry.ACPMessageID, v *v2Turn) {
	tag, ok := m.String(r.At)
	if !ok || !slices.Contains(r.Tags, tag) {
		return
	}
	id, ok := m.String(r.ID)
	if !ok {
		return
	}
	s.exercise(reqReplayMessageID)
	if was, seen := v.replayed[id]; seen {
		if was.tag == tag {
			// The same type: a message replaced whole, or another.
			m.Breach(reqReplayMessageID, finding.Warning, RuleHistoryReplay, r.ID, "the replayed %s has messageId %s, as the one replayed on line %d: unless it replaces that message whole, each replayed message has an id of its own (a judgement: the trace cannot tell a replacement from another message)", tag, protocol.Quote(clip(id)), was.line)
		} else {
			m.Breach(reqReplayMessageID, finding.Error, RuleHistoryReplay, r.ID, "the replayed message of type %s has messageId %s, which the %s replayed on line %d has too: each replayed message has an id of its own", protocol.Quote(tag), protocol.Quote(clip(id)), was.tag, was.line)
		}
		return
	}
	if v.replayed == nil {
		v.replayed = map[string]replayed{}
	}
	if len(v.replayed) < maxV2IDs {
		v.replayed[id] = replayed{m.Line, tag}
	}
}

// firstReports checks the first update about each id (effect FirstHas):
// it gives what the first report should. Unless warn is set, a message
// that gives it counts as the first report, and one that does not is not
// reported.
func (s *state) firstReports(m *protocol.Message, list []registry.ACPFirstHas, v *v2Turn, warn bool) {
	for i := range list {
		f := &list[i]
		if !whenMap(m, f.When) {
			continue
		}
		id, ok := m.String(f.ID)
		if !ok {
			continue
		}
		if v.first == nil {
			v.first = protocol.NewRecent[bool](maxV2IDs)
		}
		key := f.Requirement + "\x00" + id
		if _, seen := v.first.Get(key); seen || v.first.Forgotten(key) {
			continue
		}
		has := m.At(f.Member) != nil
		if !warn && !has {
			continue
		}
		v.first.Put(key, true)
		s.exercise(f.Requirement)
		if has {
			continue
		}
		member := f.Member[strings.LastIndexByte(f.Member, '/')+1:]
		m.Breach(f.Requirement, finding.Warning, RuleFirstReport, strings.TrimSuffix(f.Member, "/"+member), "the first update about %s has no %s: the first report should give it, so the client can show what runs (a judgement: leave it out only when there is none)", protocol.Quote(clip(id)), member)
	}
}

// unique checks lists whose names do not repeat within one object
// (effect Unique), under prefix.
func (s *state) unique(m *protocol.Message, list []registry.ACPUnique, prefix string) {
	for _, u := range list {
		if !strings.HasPrefix(u.Within, prefix) {
			continue
		}
		base, _, star := strings.Cut(u.Within, "/*")
		objs := []any{m.At(base)}
		if star {
			objs, _ = objs[0].([]any)
		}
		listBase, name, _ := strings.Cut(u.At, "/*")
		for i, o := range objs {
			entries, _ := protocol.At(o, listBase).([]any)
			if len(entries) == 0 {
				continue
			}
			s.exercise(u.Requirement)
			seen := map[string]bool{}
			for j, e := range entries {
				n, ok := protocol.At(e, name).(string)
				if !ok {
					continue
				}
				if seen[n] {
					at := base
					if star {
						at += "/" + itoa(i)
					}
					m.Breach(u.Requirement, finding.Error, RuleDuplicateName, at+listBase+"/"+itoa(j)+name, "name %s is given twice in this list: within one object each name appears once, so which value holds is not left to chance", protocol.Quote(clip(n)))
					break
				}
				seen[n] = true
			}
		}
	}
}

// inBackground reports whether an update is about a tool call that the
// list says goes on in the background.
func inBackground(m *protocol.Message, t *registry.ACPTurnState, list []string) bool {
	if t == nil || t.ToolCall == "" || len(list) == 0 {
		return false
	}
	id, ok := m.String(t.ToolCall)
	return ok && slices.Contains(list, id)
}

// dotted renders a pointer into the initialize result as the docs name
// it (capabilities.session).
func dotted(ptr string) string {
	return strings.ReplaceAll(strings.TrimPrefix(ptr, "/"), "/", ".")
}

// advertised reports whether a capability is set: an object or true, or
// a non-empty list (auth methods).
func advertised(v any) bool {
	if l, ok := v.([]any); ok {
		return len(l) > 0
	}
	return protocol.Truthy(v)
}

// whenMap reports whether each pointer of when leads to its string.
func whenMap(m *protocol.Message, when map[string]string) bool {
	for p, want := range when {
		if !m.StringIs(p, want) {
			return false
		}
	}
	return true
}

// eachNested is eachString for a pointer with more than one "*": each
// element of the array at base is visited with the pointer's rest.
func eachNested(m *protocol.Message, base, rest string, f func(v []byte, at func() string)) {
	arr, _ := m.At(base).([]any)
	for i := range arr {
		p := base + "/" + itoa(i) + rest
		eachString(m, p, f)
	}
}
