package rfc0001_test

import (
	"fmt"

	"github.com/agentproto/agentproto/pkg/arcp/rfc0001"
)

// Decode a line of the Rust SDK's dialect, switch on its message type,
// validate it and encode it again. The line is the first of
// fixtures/arcp/rfc0001/valid/tool-invoke.jsonl.
func Example() {
	line := `{"arcp":"1.1","id":"msg_01KR6D5H745TPHPY8AJADGH2BW","timestamp":"2026-05-09T13:00:00.100Z","type":"session.open","payload":{"auth":{"scheme":"bearer","token":"tok_3f09050011b45a6e74a5"},"client":{"kind":"arcp-cli","version":"0.7.1"},"capabilities":{"streaming":true,"durable_jobs":true,"binary_streams":false,"heartbeat_recovery":"fail","binary_encoding":["base64"],"agents":[{"name":"filesystem.search","versions":["1.0.0"],"default":"1.0.0"}]}}}`
	msg, err := rfc0001.UnmarshalMessage([]byte(line))
	if err != nil {
		fmt.Println("decode:", err)
		return
	}
	fmt.Println("valid:", rfc0001.ValidateMessage(msg) == nil)
	switch m := msg.(type) {
	case *rfc0001.SessionOpen:
		fmt.Printf("session.open from %s %s\n", m.Payload.Client.Kind, m.Payload.Client.Version)
	case *rfc0001.UnknownMessage:
		fmt.Println("kept an unknown message type:", m.Tag)
	}
	// The same value, its members in the order of the schema.
	out, err := rfc0001.MarshalMessage(msg)
	if err != nil {
		fmt.Println("encode:", err)
		return
	}
	fmt.Println(string(out))
	// Output:
	// valid: true
	// session.open from arcp-cli 0.7.1
	// {"arcp":"1.1","id":"msg_01KR6D5H745TPHPY8AJADGH2BW","type":"session.open","timestamp":"2026-05-09T13:00:00.100Z","payload":{"auth":{"scheme":"bearer","token":"tok_3f09050011b45a6e74a5"},"client":{"kind":"arcp-cli","version":"0.7.1"},"capabilities":{"streaming":true,"durable_jobs":true,"binary_streams":false,"heartbeat_recovery":"fail","binary_encoding":["base64"],"agents":[{"name":"filesystem.search","versions":["1.0.0"],"default":"1.0.0"}]}}}
}
