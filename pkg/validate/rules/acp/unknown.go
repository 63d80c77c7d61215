package acp

import (
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/suggest"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// This file handles a call of a method the version does not have: an
// extension's, a retired one, a misspelling, or another version's.

// unknownMethod handles a call of a method the version does not have.
func (s *state) unknownMethod(m *protocol.Message, name string, idAt int, hasID bool) {
	m.Label = "unknown method"
	m.From = sideOf(m.Dir)
	switch near := suggest.Near(name, s.t.names); {
	case strings.HasPrefix(name, "_"):
		// ACP reserves names starting with "_" for extensions: a
		// receiver that does not know one ignores it (notification) or
		// answers "method not found" (request). That is the protocol
		// working, not a finding; the summary counts them.
		m.Label = "extension method"
	case s.retired(name) != nil:
		// A method an earlier release defined: the sender was built
		// against it, and a receiver of today answers "method not
		// found" (or ignores a notification). Advice, not a breach.
		h := s.retired(name)
		msg := fmt.Sprintf("method %s was defined by %s of %s and has since been removed: a receiver built against a current release answers \"method not found\" (a notification it ignores)", protocol.Quote(name), h.Releases(), s.baseTitle())
		if h.Successor != "" {
			msg += "; " + h.Successor + " took its place"
		}
		m.Add(finding.Warning, finding.RuleRetired, "/method", "%s", msg)
	case near != "":
		// A misspelling of a method of the version: a defect.
		m.Add(finding.Error, RuleUnknownMethod, "/method", "unknown method %s: %s has no such method, and a receiver answers \"method not found\"; did you mean %q?", protocol.Quote(name), s.t.v.Title, near)
	case s.olderOnly(name):
		// A method only an older version has, on a connection that
		// negotiated a newer one (v2's removed fs/*, session/set_mode):
		// the sender speaks a version it did not agree on.
		s.exercise(reqAgreeVersion)
		m.Breach(reqAgreeVersion, finding.Error, RuleUnknownMethod, "/method", "method %s is a method of %s, which %s removed: once initialize settled %s, both sides follow only its specification, and a receiver answers \"method not found\" (a notification it ignores)", protocol.Quote(name), s.elsewhere(name), s.t.v.Title, s.t.v.Title)
	case s.elsewhere(name) != "":
		// A method of another version: a receiver that does not
		// know it answers "method not found" (or ignores a
		// notification), which the protocol allows. A warning, so that
		// a peer probing for a newer method does not fail a build.
		m.Add(finding.Warning, RuleUnknownMethod, "/method", "method %s is not part of %s: a receiver that does not know it answers \"method not found\" (a notification it ignores); it is a method of %s", protocol.Quote(name), s.t.v.Title, s.elsewhere(name))
	default:
		// No version of ACP has it, and it is not an extension: names
		// outside the spec's must start with "_".
		m.Breach(reqMethodPrefix, finding.Error, RuleUnknownMethod, "/method", "method %s is part of no ACP version: a method of one's own must start with \"_\" (%s), so that it cannot collide with a future method of the protocol; a receiver answers \"method not found\"", protocol.Quote(name), protocol.Quote("_"+name))
	}
	if hasID {
		if k, ok := s.idKey(m.Dir, m, idAt); ok {
			s.pending.Put(string(k), &request{line: m.Line, dir: m.Dir, name: name})
		}
	}
}

// retired returns what an earlier release of the version said of a method
// it no longer has, or nil.
func (s *state) retired(name string) *registry.HistoryMethod {
	h, err := s.reg.History(s.t.v)
	if err != nil {
		return nil
	}
	if hm, ok := h.Method(name); ok {
		return &hm
	}
	return nil
}

// baseTitle is the title of the version, or of the version it extends:
// the releases of the history are the protocol's, unstable schema and all.
func (s *state) baseTitle() string { return s.reg.Base(s.t.v).Title }

// olderOnly reports whether only versions of an older wire version than
// the trace's define a method: one the trace's version removed.
func (s *state) olderOnly(name string) bool {
	if s.t.v.WireVersion < 2 {
		return false
	}
	found := false
	for _, v := range s.reg.Versions("acp") {
		if v == s.t.v || len(v.ACP().Named(name)) == 0 {
			continue
		}
		if v.WireVersion == 0 || v.WireVersion >= s.t.v.WireVersion {
			return false
		}
		found = true
	}
	return found
}

// elsewhere names the other versions of the protocol that define a method.
func (s *state) elsewhere(name string) string {
	var out []string
	for _, v := range s.reg.Versions("acp") {
		if v != s.t.v && len(v.ACP().Named(name)) > 0 {
			out = append(out, v.Title)
		}
	}
	return strings.Join(out, " and ")
}
