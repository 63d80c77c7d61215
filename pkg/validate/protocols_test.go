package validate

import (
	"slices"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// What versions.json says of each built-in protocol is what its rules do:
// the sidecar tokens the rules read are the registry's, and an object
// carrying just the registry's marks is the protocol's. The tap, the
// engine's view of a trace and the page rely on the registry's word.
func TestProtocolsAgreeWithRegistry(t *testing.T) {
	reg, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range Protocols() {
		names = append(names, p.Name)
		facts := reg.Protocol(p.Name)
		rules := p.Rules(reg, protocol.NewSchemas())
		if got := rules.Directions(); !slices.Equal(got, facts.Directions) {
			t.Errorf("%s: the rules read sidecar tokens %q, the registry says %q", p.Name, got, facts.Directions)
		}
		marked := map[string]any{}
		for _, m := range facts.Marks {
			marked[m] = "x"
		}
		if !rules.Identify(marked) {
			t.Errorf("%s: an object with the registry's marks %s is not the protocol's", p.Name, facts.MarksText())
		}
		for i, m := range facts.Marks {
			if len(facts.Marks) == 1 {
				break
			}
			partial := map[string]any{}
			for _, o := range facts.Marks[:i] {
				partial[o] = "x"
			}
			for _, o := range facts.Marks[i+1:] {
				partial[o] = "x"
			}
			if rules.Identify(partial) {
				t.Errorf("%s: an object without mark %q is still the protocol's; the registry says every mark is needed", p.Name, m)
			}
		}
	}
	if !slices.Equal(names, reg.Protocols()) {
		t.Errorf("the engine checks %v, the registry lists %v", names, reg.Protocols())
	}
}
