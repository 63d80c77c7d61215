package validate

import (
	"slices"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/pkg/validate/rules/acp"
	"github.com/agentproto/agentproto/pkg/validate/rules/arcan"
	"github.com/agentproto/agentproto/pkg/validate/rules/arcp"
	"github.com/agentproto/agentproto/schema/registry"
)

// Protocol is one protocol the engine checks: its name (as the registry
// writes it), the constructor of its rules and the documentation of the
// rules it reports. Everything else the engine knows of a protocol it
// asks its rules (protocol.Rules, and the optional interfaces of package
// protocol).
type Protocol struct {
	Name string
	// Rules makes the protocol's rules over the registry's versions of
	// it, with schemas from the registry's folder.
	Rules func(*registry.Registry, *protocol.Schemas) protocol.Rules
	// Docs documents the rules the protocol's findings name.
	Docs func() []protocol.RuleDoc
}

// Protocols is the one list of the protocols the engine checks by
// default, in the order a trace's protocol is tried (Options.Protocols
// replaces it).
func Protocols() []Protocol {
	return []Protocol{
		{"acp", func(r *registry.Registry, s *protocol.Schemas) protocol.Rules { return acp.New(r, s) }, acp.RuleDocs},
		{"arcp", func(r *registry.Registry, s *protocol.Schemas) protocol.Rules { return arcp.New(r, s) }, arcp.RuleDocs},
		{"arcan", func(r *registry.Registry, s *protocol.Schemas) protocol.Rules { return arcan.New(r, s) }, arcan.RuleDocs},
	}
}

// RuleDocs lists the documented rules of proto ("" for every protocol),
// as its rules package documents them.
func RuleDocs(proto string) []protocol.RuleDoc {
	var out []protocol.RuleDoc
	for _, p := range Protocols() {
		if proto == "" || p.Name == proto {
			out = append(out, p.Docs()...)
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
		// A deviation is one of the family deviation:<id>, which is
		// described and named once.
		if strings.HasPrefix(d.Name, RuleDeviationPrefix) {
			continue
		}
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
	reg, err := registry.Embedded()
	if err != nil {
		return nil
	}
	return reg.FindRequirement(proto, version, id)
}
