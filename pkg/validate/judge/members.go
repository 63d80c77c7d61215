package judge

// Strategy 9, the members of a valid value that its schema does not
// define: near misses of a member it defines, additions of the unstable
// schema, members of other versions, retired members and custom ones.

import (
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate/explain"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// nearMisses adds a warning for each member of the check's value, valid by
// sch, that is a near miss of a member sch defines, if the check asks. A
// member another version of the protocol defines at the same type is named
// as such instead.
func (t *Trace) nearMisses(v *Verdict, m *protocol.Message, sch *protocol.Schema, ck protocol.Check) {
	if ck.Closed {
		t.undefined(v, m, sch, ck)
		return
	}
	if !ck.NearMiss {
		return
	}
	for _, ms := range sch.NearMisses(valueOf(m, ck)) {
		loc := append(append([]string(nil), ck.Loc...), ms.Loc...)
		msg := fmt.Sprintf("unknown member %s is a near miss of %s, which this object defines: a receiver ignores %s, so its value is lost; did you mean %s?",
			protocol.Quote(ms.Key), protocol.Quote(ms.Want), protocol.Quote(ms.Key), protocol.Quote(ms.Want))
		if d := t.elsewhere(ms); d.Found() {
			msg = fmt.Sprintf("unknown member %s is not defined by this type", protocol.Quote(ms.Key)) + d.Hint()
		}
		v.Once = append(v.Once, finding.Finding{Line: m.Line, Severity: finding.Warning, Rule: finding.RuleNearMiss, Pointer: protocol.Pointer(loc), Message: msg})
	}
}

// elsewhere looks up a member the check's type lacks in the other versions
// of the file's protocol.
func (t *Trace) elsewhere(ms protocol.Miss) explain.Defined {
	if t.proto == "" {
		return explain.Defined{}
	}
	return t.j.elsewhere.Lookup(t.proto, ms.Types, ms.Key)
}

// undefined judges each member of the check's value, valid by sch (the
// widest schema the value may pass), that sch does not define. What the
// member is decides the verdict, each its own rule:
//   - an addition of the version's unstable schema: the unstable warning,
//     at the member;
//   - a member another version of the protocol defines: the
//     other-version warning, naming it (an error when that version is
//     only the version's own additions: the trace is read strictly);
//   - a member an earlier release defined and the version has removed:
//     the retired warning, naming the releases and what replaced it;
//   - a member no release ever defined: the custom-member error, since
//     the protocol reserves every name of its types (a near miss of a
//     member it defines says which one was meant).
func (t *Trace) undefined(out *Verdict, m *protocol.Message, sch *protocol.Schema, ck protocol.Check) {
	v := valueOf(m, ck)
	misses := sch.Undefined(v)
	var wide map[string]bool // the members the wider schema defines too
	if ck.Alt != nil && sch != ck.Alt && len(misses) > 0 {
		wide = map[string]bool{}
		for _, ms := range misses {
			wide[protocol.Pointer(ms.Loc)] = true
		}
		for _, ms := range ck.Alt.Undefined(v) {
			delete(wide, protocol.Pointer(ms.Loc))
		}
	}
	for _, ms := range misses {
		loc := append(append([]string(nil), ck.Loc...), ms.Loc...)
		ptr := protocol.Pointer(loc)
		key := protocol.Quote(ms.Key)
		if wide[protocol.Pointer(ms.Loc)] {
			out.Once = append(out.Once, finding.Finding{Line: m.Line, Severity: finding.Warning, Rule: ck.AltRule, Pointer: ptr, Dialect: ck.AltVersion,
				Message: fmt.Sprintf("member %s is not part of %s but an addition of %s: a peer that implements only the stable protocol ignores it, so its value is lost there; --dialect %s accepts it silently", key, t.titleOf(ck.Schema.ID), t.versionTitle(ck.AltVersion), ck.AltVersion)})
			continue
		}
		if d := t.elsewhere(ms); d.Found() {
			msg := fmt.Sprintf("member %s is not defined by this type", key) + d.Hint()
			if d.OnlyExtensions() {
				// The version's own additions on a trace read
				// strictly as the version (--dialect): the reader
				// asked for them to be errors.
				out.Out = append(out.Out, finding.Finding{Line: m.Line, Severity: finding.Error, Rule: finding.RuleCustomMember, Pointer: ptr, Message: msg})
				continue
			}
			out.Once = append(out.Once, finding.Finding{Line: m.Line, Severity: finding.Warning, Rule: finding.RuleOtherVersion, Pointer: ptr, Message: msg})
			continue
		}
		if h, title, ok := t.retiredMember(v, ms); ok {
			out.Once = append(out.Once, finding.Finding{Line: m.Line, Severity: finding.Warning, Rule: finding.RuleRetired, Pointer: ptr, Message: retiredMessage(ms.Key, h, title)})
			continue
		}
		msg := fmt.Sprintf("member %s is not defined by this type, and no earlier release defined it: the protocol's types take no members of one's own (every name is kept for its later versions); put custom data in _meta", key)
		if ms.Want != "" {
			msg = fmt.Sprintf("member %s is not defined by this type: a receiver ignores it, so its value is lost; did you mean %s?", key, protocol.Quote(ms.Want))
		}
		out.Out = append(out.Out, finding.Finding{Line: m.Line, Severity: finding.Error, Rule: finding.RuleCustomMember, Pointer: ptr, Message: msg})
	}
}

// retiredMember looks a member up in the history of the version of the
// types it was judged against, and returns what the history says with
// the title of that version.
func (t *Trace) retiredMember(v any, ms protocol.Miss) (registry.HistoryMember, string, bool) {
	if len(ms.Types) == 0 {
		return registry.HistoryMember{}, "", false
	}
	ver := t.j.reg.ForID(ms.Types[0])
	h, err := t.j.reg.History(ver)
	if h == nil || err != nil {
		return registry.HistoryMember{}, "", false
	}
	obj, _ := protocol.Lookup(v, ms.Loc[:len(ms.Loc)-1]).(map[string]any)
	hm, ok := h.Member(ms.Types, ms.Key, obj)
	if !ok {
		return registry.HistoryMember{}, "", false
	}
	return hm, t.baseTitle(ver), true
}

// retiredMessage says of member key what the history says of it.
func retiredMessage(key string, h registry.HistoryMember, title string) string {
	var sb strings.Builder
	if len(h.When) == 2 {
		fmt.Fprintf(&sb, "member %s belongs to the variant selected by %s %s, which %s of %s defined and which has since been removed",
			protocol.Quote(key), h.When[0], protocol.Quote(h.When[1]), h.Releases(), title)
	} else {
		fmt.Fprintf(&sb, "member %s was defined here by %s of %s and has since been removed", protocol.Quote(key), h.Releases(), title)
	}
	sb.WriteString(": a peer built against a current release ignores it, so its value is lost there")
	if h.Successor != "" {
		sb.WriteString("; " + h.Successor + " took its place")
	}
	return sb.String()
}

// titleOf is the title of the version whose folder holds the schema id.
func (t *Trace) titleOf(id string) string {
	if v := t.j.reg.ForID(id); v != nil {
		return v.Title
	}
	return "this version"
}

// versionTitle is the title of the file's protocol's version name.
func (t *Trace) versionTitle(name string) string {
	if t.proto != "" {
		if v := t.j.reg.Lookup(t.proto, name); v != nil {
			return v.Title
		}
	}
	return name
}

// baseTitle is the title of v, or of the version it extends: a release
// history is the protocol's, unstable schema and all.
func (t *Trace) baseTitle(v *registry.Version) string {
	if v == nil {
		return "the protocol"
	}
	return t.j.reg.Base(v).Title
}
