package acp_test

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/pkg/acp"
)

// Decode a stream of session/update notifications and switch on the kind
// of update. A kind this package does not know is kept, not dropped.
func Example() {
	stream := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Looking at the tests."}}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Run go test","kind":"execute","status":"pending"}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"hologram","frames":3}}}`
	sc := bufio.NewScanner(strings.NewReader(stream))
	for sc.Scan() {
		msg, err := acp.DecodeMessage(sc.Bytes())
		if err != nil || msg.Notification == nil || msg.Notification.Method != "session/update" {
			fmt.Println("skipped:", err)
			continue
		}
		params, err := acp.DecodeParams("session/update", msg.Notification.Params)
		if err != nil {
			fmt.Println("bad params:", err)
			continue
		}
		switch u := params.(*acp.SessionNotification).Update.(type) {
		case *acp.AgentMessageChunk:
			if text, ok := u.Content.(*acp.TextContent); ok {
				fmt.Println("agent says:", text.Text)
			}
		case *acp.ToolCall:
			fmt.Printf("tool call %s: %s\n", u.ToolCallID, u.Title)
		case *acp.ToolCallUpdate:
			status, _ := u.Status.Get()
			fmt.Printf("tool call %s is now %s\n", u.ToolCallID, status)
		case *acp.UnknownSessionUpdate:
			fmt.Printf("kept an unknown update %q: %s\n", u.Tag, u.Raw)
		}
	}
	// Output:
	// agent says: Looking at the tests.
	// tool call t1: Run go test
	// tool call t1 is now completed
	// kept an unknown update "hologram": {"sessionUpdate":"hologram","frames":3}
}
