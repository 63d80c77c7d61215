package arcp

import (
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// This file checks what a session may send against the features its hello
// and welcome negotiated.

// features checks a message type, event kind or member gated by a feature
// against the session's negotiated features.
func (s *state) features(m *protocol.Message, r *registry.ARCPRule, ss *session, entry *registry.ARCPMessage, typ, kind string) {
	t := s.set.t
	if entry.Feature != "" && !ss.features[entry.Feature] {
		m.Add(finding.Error, r.ID, "/type", "%s needs the %q feature, which was not negotiated (hello and welcome share: %s)", typ, entry.Feature, featureList(ss.features))
	}
	if ev := t.Event(kind); ev != nil && ev.Feature != "" && !ss.features[ev.Feature] {
		m.Add(finding.Error, r.ID, "/payload/kind", "%s events need the %q feature, which was not negotiated (hello and welcome share: %s)", kind, ev.Feature, featureList(ss.features))
	}
	for _, ff := range t.FieldFeatures {
		if ff.Type != typ || ss.features[ff.Feature] {
			continue
		}
		for _, f := range m.Resolve(ff.Pointer) {
			if ff.HasPattern() {
				str, ok := f.Value.(string)
				if !ok || !ff.Match(str) {
					continue
				}
			}
			m.Add(finding.Error, r.ID, protocol.Pointer(f.Loc), "%s needs the %q feature, which was not negotiated (hello and welcome share: %s)", memberName(f.Loc), ff.Feature, featureList(ss.features))
			break
		}
	}
}
