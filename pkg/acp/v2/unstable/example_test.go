package unstable_test

import (
	"encoding/json"
	"fmt"

	v2 "github.com/agentproto/agentproto/pkg/acp/v2"
	"github.com/agentproto/agentproto/pkg/acp/v2/unstable"
)

// Decode an unstable session/fork request of the v2 draft with a system
// prompt: the params are this package's, their content blocks package
// v2's own. Validate checks them against the schema, and they encode back
// to the same JSON. The line is from fixtures/acp/sdk/v2-unstable (a
// trace of the reference SDK).
func Example() {
	line := `{"jsonrpc":"2.0","id":12,"method":"session/fork","params":{"sessionId":"sess-001","cwd":"/home/dev/project","mcpServers":[],"systemPrompt":{"mode":"override","content":[{"type":"text","text":"You are a careful reviewer."}]}}}`
	var msg struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal([]byte(line), &msg); err != nil {
		fmt.Println(err)
		return
	}
	var fork unstable.ForkSessionRequest
	if err := json.Unmarshal(msg.Params, &fork); err != nil {
		fmt.Println("decode:", err)
		return
	}
	fmt.Println("valid:", fork.Validate() == nil)
	if sp, ok := fork.SystemPrompt.Get(); ok {
		for _, block := range sp.Content {
			if text, ok := block.(*v2.TextContent); ok {
				fmt.Printf("%s: fork %s in %s, system prompt (%s): %s\n", msg.Method, fork.SessionID, fork.Cwd, sp.Mode, text.Text)
			}
		}
	}
	out, err := json.Marshal(fork)
	fmt.Println("same JSON:", err == nil && string(out) == string(msg.Params))

	// Output:
	// valid: true
	// session/fork: fork sess-001 in /home/dev/project, system prompt (override): You are a careful reviewer.
	// same JSON: true
}
