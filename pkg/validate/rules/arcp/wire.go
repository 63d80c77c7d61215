package arcp

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// This file holds the checks of single members that need more than their
// message's schema (the negotiated features, the session's clock, the
// sequence seen so far) and of the client's acknowledgements. Like
// state.go they read the table's rules and name no message type.

// More checks an ARCP rule may name.
const (
	checkUnsequenced = "unsequenced" // a message outside the sequence carries an event_seq
	checkFormat      = "format"      // a string member matches the rule's pattern (want)
	checkInventory   = "inventory"   // with the feature want, inventory entries list versions
	checkAckRate     = "ack-rate"    // no two acknowledgements without an event between
	checkGapAck      = "gap-ack"     // an acknowledgement past a gap in the sequence
	checkFuture      = "future"      // a time the sender sets lies ahead of the trace's clock
	checkVersioned   = "versioned"   // an agent the inventory versions is named with its version
)

func init() {
	for _, c := range []string{checkUnsequenced, checkFormat, checkInventory, checkAckRate, checkGapAck, checkFuture, checkVersioned} {
		knownChecks[c] = true
	}
}

// compilePatterns compiles the patterns of the table's format rules.
func (s *set) compilePatterns() error {
	for _, r := range s.rules[checkFormat] {
		re, err := regexp.Compile(r.Want)
		if err != nil {
			return fmt.Errorf("rule %s: pattern %q: %w", r.ID, r.Want, err)
		}
		if s.patterns == nil {
			s.patterns = map[string]*regexp.Regexp{}
		}
		s.patterns[r.ID] = re
	}
	return nil
}

// unsequenced reports an event_seq on a message the table does not
// sequence: control messages take no number from the session's sequence.
// A message a deviation already explains is left to it.
func (s *state) unsequenced(m *protocol.Message, entry *registry.ARCPMessage, typ string) {
	if entry.Sequenced || s.deviated {
		return
	}
	for _, r := range s.each(checkUnsequenced) {
		if !m.Has(r.Value) {
			continue
		}
		m.Add(finding.Error, r.ID, r.Value, "%s carries an event_seq: only job events (job.event, job.result, job.error) are numbered; heartbeats, acknowledgements and other control messages carry none and take no number from the session's sequence (ARCP v1.1 §6.4, §8.3)", typ)
	}
}

// format checks the string members a format rule names against its
// pattern. A message a deviation already explains is left to it.
func (s *state) format(m *protocol.Message, typ string) {
	if s.deviated {
		return
	}
	for _, r := range s.set.rules[checkFormat] {
		if !r.AppliesTo(typ) {
			continue
		}
		s.exercised.Rule(r.ID)
		re := s.set.patterns[r.ID]
		for _, f := range m.Resolve(r.Value) {
			v, ok := f.Value.(string)
			if !ok || re.MatchString(v) {
				continue
			}
			m.Add(finding.Error, r.ID, protocol.Pointer(f.Loc), "%s is %s: %s (ARCP v1.1 §%s)", memberName(f.Loc), protocol.Quote(v), r.Text, r.Section)
		}
	}
}

// inventory checks a welcome's agent inventory once the feature that
// makes it versioned is negotiated: each entry an object with versions.
func (s *state) inventory(m *protocol.Message, ss *session, typ string) {
	for _, r := range s.each(checkInventory) {
		if r.Type != typ || ss.features == nil || !ss.features[r.Want] {
			continue
		}
		list, ok := m.At(r.Value).([]any)
		if !ok {
			continue
		}
		for i, e := range list {
			switch e := e.(type) {
			case string:
				m.Add(finding.Error, r.ID, r.Value+"/"+itoa(i), "agent %s is listed by name only, but %s was negotiated: each inventory entry gives the agent's name and the versions a client can pin ({\"name\", \"versions\", \"default\"}, ARCP v1.1 §6.2, §7.5)", protocol.Quote(e), r.Want)
			case map[string]any:
				if _, has := e["versions"]; has || s.deviated {
					continue
				}
				name, hasName := e["name"].(string)
				at := r.Value + "/" + itoa(i)
				if hasName {
					at += "/name" // beside the schema's finding on the entry
				}
				m.Add(finding.Error, r.ID, at, "agent %s has no versions, and %s was negotiated: each inventory entry lists the versions a client can pin (an empty array for an unversioned agent; ARCP v1.1 §6.2, §7.5)", protocol.Quote(name), r.Want)
			}
		}
	}
}

// acked follows the client's acknowledgements: two with no event between
// them are more frequent than the protocol asks (a warning), and one that
// acknowledges past a gap in the sequence carries on where the client
// should have resumed (a warning).
func (s *state) acked(m *protocol.Message, ss *session, typ string) {
	for _, r := range s.set.rules[checkAckRate] {
		if r.Type != typ {
			continue
		}
		s.exercised.Rule(r.ID)
		if ss.ackLine > 0 && ss.sinceAck == 0 && !s.lossy {
			m.Add(finding.Warning, r.ID, "/type", "a second %s with no event since the one on line %d: a client acknowledges at most once per event received, or every few hundred milliseconds, whichever is slower (ARCP v1.1 §6.5 SHOULD)", typ, ss.ackLine)
		}
	}
	for _, r := range s.set.rules[checkGapAck] {
		if r.Type != typ {
			continue
		}
		s.exercised.Rule(r.ID)
		if ss.gapSeq == 0 || s.lossy {
			continue
		}
		if v, ok := protocol.IntValue(m.At(r.Value)); ok && v >= ss.gapSeq {
			m.Add(finding.Warning, r.ID, r.Value, "acknowledges event_seq %d, and event_seq %d came after a gap (line %d): a client that sees the sequence skip a number considers the session broken and resumes it from the last event it processed, rather than carrying on (ARCP v1.1 §8.3 SHOULD)", v, ss.gapSeq, ss.gapLine)
			ss.gapSeq = 0
		}
	}
	for _, r := range s.set.rules[checkAckRate] {
		if r.Type == typ {
			ss.ackLine, ss.sinceAck = m.Line, 0
		}
	}
}

// clock keeps the last time a message of the trace carried (raw, parsed
// only when a check needs it).
func (s *state) clock(m *protocol.Message, entry *registry.ARCPMessage) {
	if entry.Time == "" || len(s.set.rules[checkFuture]) == 0 {
		return
	}
	if b, ok := m.StringBytes(entry.Time); ok {
		s.lastTime = append(s.lastTime[:0], b...)
		s.lastTimeLine = m.Line
	}
}

// future reports a time a sender sets for the future (a lease's
// expires_at) that the trace's own clock already shows past.
func (s *state) future(m *protocol.Message, typ string) {
	for _, r := range s.each(checkFuture) {
		if r.Type != typ || len(s.lastTime) == 0 {
			continue
		}
		at, ok := timeAt(m, r.Value)
		if !ok {
			continue
		}
		now, err := time.Parse(time.RFC3339Nano, string(s.lastTime))
		if err != nil || !at.Before(now) {
			continue
		}
		m.Add(finding.Error, r.ID, r.Value, "%s is %s, before %s, the time line %d already showed: it must lie in the future when the job is submitted, and a past value is refused with INVALID_REQUEST (ARCP v1.1 §9.5)", memberName(protocol.SplitPointer(r.Value)), at.Format(time.RFC3339Nano), now.Format(time.RFC3339Nano), s.lastTimeLine)
	}
}

// versioned reports an agent named without its version where the welcome's
// inventory lists versions for it (an unversioned agent has none to name).
func (s *state) versioned(m *protocol.Message, ss *session, typ string) {
	for _, r := range s.set.rules[checkVersioned] {
		if r.Type != typ || ss.agents == nil || s.deviated {
			continue
		}
		s.exercised.Rule(r.ID)
		for _, f := range m.Resolve(r.Value) {
			v, ok := f.Value.(string)
			if !ok || strings.Contains(v, "@") || len(ss.agents[v]) == 0 {
				continue
			}
			m.Add(finding.Error, r.ID, protocol.Pointer(f.Loc), "agent %s is named without its version, and the welcome lists versions %s for it: %s (ARCP v1.1 §%s)", protocol.Quote(v), strings.Join(ss.agents[v], ", "), r.Text, r.Section)
		}
	}
}
