package report

import (
	"strings"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// Catalogue is where a run's rule descriptions and requirement catalogue
// come from: its protocols and registry (validate.Options), so that a
// protocol plugged in from outside is described as a built-in one is. Nil
// fields mean the built-in protocols and the embedded registry.
type Catalogue struct {
	Protocols []validate.Protocol
	Registry  *registry.Registry
}

// registry is the catalogue's registry: Registry, else the embedded one
// (nil if it does not load, which its tests rule out).
func (c Catalogue) registry() *registry.Registry {
	if c.Registry != nil {
		return c.Registry
	}
	reg, err := registry.Embedded()
	if err != nil {
		return nil
	}
	return reg
}

// RuleDocs lists the documented rules of proto, as its registration
// documents them.
func (c Catalogue) RuleDocs(proto string) []protocol.RuleDoc {
	if c.Protocols == nil {
		return validate.RuleDocs(proto)
	}
	var out []protocol.RuleDoc
	for _, p := range c.Protocols {
		if p.Name == proto && p.Docs != nil {
			out = append(out, p.Docs()...)
		}
	}
	return out
}

// Requirement returns the catalogue row id of proto, from the version
// named if it lists the row, else from the first version that does; nil
// when no version of the registry has it.
func (c Catalogue) Requirement(proto, version, id string) *registry.Requirement {
	reg := c.registry()
	if reg == nil {
		return nil
	}
	return reg.FindRequirement(proto, version, id)
}

// Rules describes every rule once (validate.RuleTable of the protocols).
func (c Catalogue) Rules() []protocol.RuleDoc { return validate.RuleTable(c.Protocols) }

// RuleHelp is a look-up of the rules' descriptions.
type RuleHelp map[string]protocol.RuleDoc

// Help returns c's rule descriptions.
func (c Catalogue) Help() RuleHelp {
	h := RuleHelp{}
	for _, d := range c.Rules() {
		h[d.Name] = d
	}
	return h
}

// Lookup returns the description of rule: its own, or for an ARCP
// deviation rule that of deviation:<id>. Its Text has no Markdown code
// marks.
func (h RuleHelp) Lookup(rule string) (protocol.RuleDoc, bool) {
	d, ok := h[rule]
	if !ok && strings.HasPrefix(rule, finding.RuleDeviationPrefix) {
		d, ok = h[finding.RuleDeviationPrefix+"<id>"]
	}
	d.Text = strings.ReplaceAll(d.Text, "`", "")
	return d, ok
}

// FirstSentence is the text up to its first ". " or "; ", for a short
// description.
func FirstSentence(s string) string {
	for _, sep := range []string{". ", "; "} {
		if i := strings.Index(s, sep); i > 0 {
			s = s[:i]
		}
	}
	return strings.TrimSuffix(s, ".")
}

// MarkdownTable writes docs as the rule table of cmd/validate/README.md:
// a header, then a row per rule, "| `name` | severity | text |".
func MarkdownTable(docs []protocol.RuleDoc) string {
	var sb strings.Builder
	sb.WriteString("| rule | severity | what it catches |\n|---|---|---|\n")
	for _, d := range docs {
		sb.WriteString("| `" + d.Name + "` | " + d.Severity + " | " + d.Text + " |\n")
	}
	return sb.String()
}
