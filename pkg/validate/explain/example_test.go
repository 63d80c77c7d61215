package explain_test

import (
	"fmt"

	"github.com/agentproto/agentproto/pkg/validate/explain"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// A session/new response of ACP v1 carries availableCommands, which v1's
// NewSessionResponse does not define: the ACP v2 draft does.
func ExampleElsewhere_Lookup() {
	reg, err := registry.Embedded()
	if err != nil {
		fmt.Println(err)
		return
	}
	e := explain.NewElsewhere(reg, protocol.NewSchemas())
	d := e.Lookup("acp", []string{"https://agentproto.dev/schema/acp/v1/session.new.result.json"}, "availableCommands")
	fmt.Printf("member %q is not defined by this type%s\n", d.Key, d.Hint())
	fmt.Println(e.Lookup("acp", []string{"https://agentproto.dev/schema/acp/v1/session.new.result.json"}, "acmeTheme").Found())
	// Output:
	// member "availableCommands" is not defined by this type in ACP v1 but by the ACP v2 draft: a receiver that speaks ACP v1 ignores it, so its value is lost; declare the ACP v2 draft (protocolVersion 2 in initialize) or drop the member
	// false
}
