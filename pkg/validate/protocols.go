package validate

import (
	"slices"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/pkg/validate/rules/acp"
	"github.com/agentproto/agentproto/pkg/validate/rules/arcan"
	"github.com/agentproto/agentproto/pkg/validate/rules/arcp"
	"github.com/agentproto/agentproto/schema/registry"
)

// A protocol the engine checks is registered here, once: the constructor of
// its rules and the documentation of the rules it reports. The order is the
// order a trace's protocol is tried in.
type registration struct {
	name  string
	rules func(*registry.Registry, *protocol.Schemas) protocol.Rules
	docs  func() []protocol.RuleDoc
}

func registered() []registration {
	return []registration{
		{"acp", func(r *registry.Registry, s *protocol.Schemas) protocol.Rules { return acp.New(r, s) }, acp.RuleDocs},
		{"arcp", func(r *registry.Registry, s *protocol.Schemas) protocol.Rules { return arcp.New(r, s) }, arcp.RuleDocs},
		{"arcan", func(r *registry.Registry, s *protocol.Schemas) protocol.Rules { return arcan.New(r, s) }, arcan.RuleDocs},
	}
}

// RuleDocs lists the documented rules of proto ("" for every protocol),
// as its rules package documents them.
func RuleDocs(proto string) []protocol.RuleDoc {
	var out []protocol.RuleDoc
	for _, p := range registered() {
		if proto == "" || p.name == proto {
			out = append(out, p.docs()...)
		}
	}
	return out
}

// Rules lists every rule name a finding may carry (besides the
// "deviation:<id>" rules of ARCP's deviation table), each once, sorted: the
// engine's and every protocol's.
func Rules() []string {
	out := finding.Rules()
	for _, d := range RuleDocs("") {
		if !slices.Contains(out, d.Name) {
			out = append(out, d.Name)
		}
	}
	slices.Sort(out)
	return out
}

// KnownRule reports whether rule is one of Rules or a deviation rule.
func KnownRule(rule string) bool {
	return finding.Known(rule) || slices.Contains(Rules(), rule)
}

// LookupRequirement returns the row id of the catalogue of a protocol's
// version (or dialect) name, else of any version of the protocol, or nil.
func LookupRequirement(proto, version, id string) *registry.Requirement {
	if id == "" {
		return nil
	}
	reg, err := registry.Embedded()
	if err != nil {
		return nil
	}
	var found *registry.Requirement
	for _, q := range reg.AllRequirements(proto) {
		if q.ID != id {
			continue
		}
		if q.Version == version {
			return q
		}
		if found == nil {
			found = q
		}
	}
	return found
}
