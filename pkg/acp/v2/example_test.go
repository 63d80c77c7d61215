package v2_test

import (
	"encoding/json"
	"fmt"

	v2 "github.com/agentproto/agentproto/pkg/acp/v2"
	"github.com/agentproto/agentproto/pkg/wire"
)

// Decode the params of a v2 session/update notification through the
// method table, validate them and encode them again. The line is from
// fixtures/acp/sdk/v2 (a trace of the reference SDK).
func Example() {
	line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-001","update":{"sessionUpdate":"agent_message_chunk","messageId":"msg-a1","content":{"type":"text","text":"the parser now adds numbers.","annotations":{"audience":["user"]}}}}}`
	var msg struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal([]byte(line), &msg); err != nil {
		fmt.Println(err)
		return
	}
	m, ok := v2.LookupMethod(msg.Method, v2.KindNotification)
	if !ok {
		fmt.Println("no such method:", msg.Method)
		return
	}
	codec, _ := m.Params()
	d := wire.NewDecoder(msg.Params)
	v, err := codec.Decode(d)
	if err == nil {
		err = d.End()
	}
	if err != nil {
		fmt.Println("decode:", err)
		return
	}
	fmt.Println("valid:", codec.ValidateValue(v) == nil)
	n := v.(*v2.UpdateSessionNotification)
	if chunk, ok := n.Update.(*v2.AgentMessageChunk); ok {
		if text, ok := chunk.Content.(*v2.TextContent); ok {
			fmt.Printf("session %s, message %s: %s\n", n.SessionID, chunk.MessageID, text.Text)
		}
	}
	e := wire.NewEncoder(nil)
	codec.Encode(e, v)
	fmt.Println("same JSON:", string(e.Bytes()) == string(msg.Params))
	// Output:
	// valid: true
	// session sess-001, message msg-a1: the parser now adds numbers.
	// same JSON: true
}
