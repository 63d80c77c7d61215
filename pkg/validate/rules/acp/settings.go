package acp

// Ids that name one thing, settings the agent offered, answers that must
// be results, and a session's own working directory: each read from an
// effect of the method tables. The docs state most of them without a
// keyword, so their findings are warnings.

import (
	"slices"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// Rows of ids and settings, stated in the docs without a keyword: their
// findings are warnings.
const (
	reqUniquePendingID   = "acp.jsonrpc.unique-pending-id"
	reqToolCallUnique    = "acp.tool-call.unique-id"
	reqOptionUnique      = "acp.permission.unique-option-id"
	reqConfigValue       = "acp.config.value-offered"
	reqModeAvailable     = "acp.mode.available"
	reqAuthAdvertised    = "acp.auth.method-advertised"
	reqTerminalReleased  = "acp.terminal.invalid-after-release"
	RuleSettings         = "settings"         // a mode, config value or auth method the agent did not offer (a warning)
	RuleNotFound         = "not-found-answer" // a list with no match, or a delete of what is gone, answered "resource not found"
	RuleIDs              = "ids"              // a request id, tool call id or option id used twice where it names one thing (a warning)
	maxReleasedTerminals = 64                 // released terminals remembered per session
)

// pendingReused reports a request whose id is one of its sender's requests
// still awaiting an answer; the kept request then stands for both, so that
// the second answer is not called a duplicate.
func (s *state) pendingReused(m *protocol.Message, prev, kept *request) {
	s.exercise(reqUniquePendingID)
	if prev == nil {
		return
	}
	kept.twin = prev
	m.Breach(reqUniquePendingID, finding.Warning, RuleIDs, "/id", "request id %s is the id of the %s request on line %d, which still awaits its answer: an id correlates a response with its request, so a sender never reuses one that is pending (the answers cannot say which is which)", protocol.Display(m.At("/id")), prev.name, prev.line)
}

// uniqueOptions checks that the options a request offers each have an id
// of their own.
func (s *state) uniqueOptions(m *protocol.Message, p string) {
	ids := m.Strings(p)
	if len(ids) == 0 {
		return
	}
	s.exercise(reqOptionUnique)
	for i, id := range ids {
		for _, prev := range ids[:i] {
			if prev == id {
				m.Breach(reqOptionUnique, finding.Warning, RuleIDs, strings.Replace(p, "*", itoa(i), 1), "option id %s is offered twice in this request: each option has an id of its own, so that the answer's optionId names one option", protocol.Quote(clip(id)))
				return
			}
		}
	}
}

// choice checks a request that sets a session's mode or config option
// (effect Chooses) against what the session offered.
func (s *state) choice(m *protocol.Message, sessionAt string, c *registry.ACPChoice) {
	sid, ok := m.String(sessionAt)
	if !ok {
		return
	}
	sess, known := s.sessions.Get(sid)
	if !known {
		return
	}
	if c.Mode != "" && sess.modes != nil {
		s.exercise(reqModeAvailable)
		if id, ok := m.String(c.Mode); ok && !slices.Contains(sess.modes, id) {
			m.Breach(reqModeAvailable, finding.Warning, RuleSettings, c.Mode, "mode %s is not one of the session's availableModes (%s): the mode to switch to is one of those the agent offered", protocol.Quote(clip(id)), quoteList(sess.modes))
		}
	}
	if c.Config == "" || sess.options == nil {
		return
	}
	id, ok := m.String(c.Config)
	opt, offered := sess.options[id]
	if !ok || !offered {
		return // the agent answers for an option it does not have
	}
	s.exercise(reqConfigValue)
	v := m.At(c.Value)
	switch {
	case opt.kind == "boolean":
		if _, isBool := v.(bool); !isBool {
			m.Breach(reqConfigValue, finding.Warning, RuleSettings, c.Value, "option %s is a boolean, and the value sent is %s: a boolean option is set with true or false", protocol.Quote(clip(id)), protocol.Describe(v))
		}
	case opt.kind == "select" && len(opt.values) > 0:
		str, isStr := v.(string)
		if !isStr || !slices.Contains(opt.values, str) {
			m.Breach(reqConfigValue, finding.Warning, RuleSettings, c.Value, "%s is not one of the values option %s offers (%s): a select option is set to one of its options' values", protocol.Display(v), protocol.Quote(clip(id)), quoteList(opt.values))
		}
	}
}

// settingsOffered keeps what an answer offers a session: its modes' ids
// and each config option's type and values.
func (s *state) settingsOffered(m *protocol.Message, md *registry.ACPModes, sess *session, opts []any) {
	if sess == nil {
		return
	}
	if md.Available != "" && m.Present(md.Modes) {
		sess.modes = m.Strings(md.Modes + md.Available)
	}
	if opts == nil {
		return
	}
	sess.options = map[string]configOffer{}
	for _, o := range opts {
		id, _ := protocol.At(o, md.ID).(string)
		kind, _ := protocol.At(o, md.Type).(string)
		if id == "" || len(sess.options) >= 256 {
			continue
		}
		off := configOffer{kind: kind}
		list, _ := protocol.At(o, md.Choices).([]any)
		for _, c := range list {
			if v, ok := protocol.At(c, "/value").(string); ok {
				off.values = append(off.values, v)
				continue
			}
			group, _ := protocol.At(c, md.Choices).([]any) // a group of choices
			for _, g := range group {
				if v, ok := protocol.At(g, "/value").(string); ok {
					off.values = append(off.values, v)
				}
			}
		}
		sess.options[id] = off
	}
}

// configOffer is a config option a session offers: its type and, for a
// select, its values.
type configOffer struct {
	kind   string
	values []string
}

// terminalUsed checks that the terminals a message acts on or shows were
// not released.
func (s *state) terminalUsed(m *protocol.Message, sessionAt string, t *registry.ACPTerminal) {
	if s.ob.terminals == nil && s.ob.released == nil {
		return // no terminal was created on the connection
	}
	for _, p := range [...]string{t.Uses, t.Embeds} {
		if p == "" {
			continue
		}
		eachString(m, p, func(id []byte, at func() string) {
			s.exercise(reqTerminalReleased)
			if len(s.ob.released) == 0 {
				return // nothing released yet: read no further
			}
			sid, ok := m.StringBytes(sessionAt)
			if !ok {
				return
			}
			if line, gone := s.ob.released[string(sid)][string(id)]; gone && line != m.Line {
				what := "acts on"
				if p == t.Embeds {
					what = "embeds"
				}
				m.Breach(reqTerminalReleased, finding.Warning, RuleTerminalLifecycle, at(), "this message %s terminal %s, released on line %d: after terminal/release the terminal's id is no longer valid", what, protocol.Quote(clip(string(id))), line)
			}
		})
	}
}

// released notes a terminal released on a session.
func (s *state) released(sid, id string, line int) {
	if s.ob.released == nil {
		s.ob.released = map[string]map[string]int{}
	}
	set := s.ob.released[sid]
	if set == nil {
		set = map[string]int{}
		s.ob.released[sid] = set
	}
	if len(set) < maxReleasedTerminals {
		set[id] = line
	}
}

// refusedNotFound checks an error answer "resource not found" to a request
// whose no-match or missing-target answer is a result (effect NotFoundRow).
func (s *state) refusedNotFound(m *protocol.Message, req *request, code int64, hasCode bool) {
	row := req.eff.Effects.NotFoundRow
	if row == "" {
		return
	}
	s.exercise(row)
	if hasCode && code == codeResourceNotFound {
		m.Breach(row, s.severity(row), RuleNotFound, "/error/code", "%s answered %d (resource not found): %s", req.name, code, s.rowSummary(row))
	}
}

// twinAnswered picks which of two pending requests of one id an answer
// answers (latest, whose earlier twin shares its id): the one whose result
// schema the result fits when only one does, else the earlier, which was
// sent first. It returns that request and the one left pending.
func (s *state) twinAnswered(m *protocol.Message, latest *request, hasResult bool) (answered, rest *request) {
	earlier := latest.twin
	fits := func(r *request) bool {
		return r.m != nil && r.m.result != nil && r.m.result.Valid(m.At("/result"))
	}
	pick := earlier
	if hasResult && fits(latest) && !fits(earlier) {
		pick = latest
	}
	if pick == earlier {
		latest.twin = earlier.twin
		return earlier, latest
	}
	latest.twin = nil
	return latest, earlier
}

// reqSameCwd is the row of a load or resume that names another working
// directory than the session's.
const reqSameCwd = "acp.session.same-cwd"

// listed notes the working directory of each session a list gives.
func (s *state) listed(m *protocol.Message, l *registry.ACPListed) {
	for _, el := range m.Resolve(l.At) {
		id, _ := protocol.At(el.Value, l.ID).(string)
		cwd, _ := protocol.At(el.Value, l.Cwd).(string)
		if id == "" || cwd == "" {
			continue
		}
		if sess, ok := s.sessions.Get(id); ok && sess.cwd == "" {
			sess.cwd = cwd
		}
	}
}

// sameCwd checks that a request bringing in a session names the session's
// own working directory, where it is known (from its creation here or a
// list).
func (s *state) sameCwd(m *protocol.Message, sessionAt, p string) {
	sid, ok := m.String(sessionAt)
	cwd, ok2 := m.String(p)
	if !ok || !ok2 {
		return
	}
	sess, known := s.sessions.Get(sid)
	if !known || sess.cwd == "" {
		return
	}
	s.exercise(reqSameCwd)
	if strings.TrimRight(cwd, "/") != strings.TrimRight(sess.cwd, "/") {
		m.Breach(reqSameCwd, finding.Warning, RuleSessionSetup, p, "cwd %s is not session %s's working directory (%s): a load or resume may change the additional roots, as long as its cwd is the session's", protocol.Quote(clip(cwd)), protocol.Quote(clip(sid)), protocol.Quote(clip(sess.cwd)))
	}
}

// authMethod checks that a request does not use an auth method of the
// forbidden type (a terminal method is run by the client, not through the
// connection). Where a gate (effect Requires) covers a request sent with
// no method advertised at all, that gate reports it.
func (s *state) authMethod(m *protocol.Message, a *registry.ACPAuthMethod, gated bool) {
	s.exercise(reqAuthNoTerminal)
	id, ok := m.String(a.At)
	if !ok || s.authMethods == "" {
		return
	}
	s.exercise(reqAuthAdvertised)
	list, _ := protocol.At(s.agentInit, s.authMethods).([]any)
	if gated && len(list) == 0 {
		return
	}
	var ids []string
	for _, x := range list {
		o, _ := x.(map[string]any)
		oid := o["id"]
		if oid == nil {
			oid = o["methodId"] // v2's name
		}
		if oid == id && o["type"] == a.ForbiddenType && a.ForbiddenType != "" {
			m.Breach(reqAuthNoTerminal, finding.Error, RuleCapability, a.At, "auth method %s is of type %s, which the client runs itself (in a terminal, then reconnects); it must not be passed to this request", protocol.Quote(id), protocol.Quote(a.ForbiddenType))
			return
		}
		if oid == id {
			return
		}
		if x, ok := oid.(string); ok {
			ids = append(ids, x)
		}
	}
	if s.midSession {
		return
	}
	m.Breach(reqAuthAdvertised, finding.Warning, RuleSettings, a.At, "auth method %s is not one the initialize result advertised (%s): authenticate names one of the agent's auth methods", protocol.Quote(clip(id)), quoteList(ids))
}
