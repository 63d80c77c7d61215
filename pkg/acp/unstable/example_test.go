package unstable_test

import (
	"encoding/json"
	"fmt"

	"github.com/agentproto/agentproto/pkg/acp"
	"github.com/agentproto/agentproto/pkg/acp/unstable"
)

// Decode an unstable session/fork request with a system prompt: package
// acp reads the JSON-RPC envelope, this package the params, whose content
// blocks are package acp's own. Validate checks them against the schema,
// and they encode back to the same JSON. The line is from
// fixtures/acp/sdk/v1-unstable (a trace of the reference SDK).
func Example() {
	line := `{"jsonrpc":"2.0","id":12,"method":"session/fork","params":{"sessionId":"sess-001","cwd":"/home/dev/project","mcpServers":[],"systemPrompt":{"mode":"override","content":[{"type":"text","text":"You are a careful reviewer."}]}}}`
	msg, err := acp.DecodeMessage([]byte(line))
	if err != nil || msg.Request == nil {
		fmt.Println("not a request:", err)
		return
	}
	var fork unstable.ForkSessionRequest
	if err := json.Unmarshal(msg.Request.Params, &fork); err != nil {
		fmt.Println("decode:", err)
		return
	}
	fmt.Println("valid:", fork.Validate() == nil)
	if sp, ok := fork.SystemPrompt.Get(); ok {
		for _, block := range sp.Content {
			if text, ok := block.(*acp.TextContent); ok {
				fmt.Printf("fork %s in %s, system prompt (%s): %s\n", fork.SessionID, fork.Cwd, sp.Mode, text.Text)
			}
		}
	}
	out, err := json.Marshal(fork)
	fmt.Println("same JSON:", err == nil && string(out) == string(msg.Request.Params))

	// Output:
	// valid: true
	// fork sess-001 in /home/dev/project, system prompt (override): You are a careful reviewer.
	// same JSON: true
}
