package validate_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate"
)

// Embed the engine: check a few ACP lines held in a string and print each
// finding with its line, rule and JSON pointer.
func Example() {
	trace := strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"ed","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"ag","version":"1"},"agentCapabilities":{},"authMethods":[]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/src/app","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess_1"}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"current_mode_update","modeId":"code"}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_9","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"txt","text":"hi"}}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
	}, "\n")

	engine, err := validate.New(validate.Options{})
	if err != nil {
		log.Fatal(err)
	}
	sum, err := engine.Check(context.Background(), "example.jsonl", strings.NewReader(trace), validate.FileOptions{}, func(f validate.Finding) {
		fmt.Printf("line %d %s %s %s\n  %s\n", f.Line, f.Severity, f.Rule, f.Pointer, f.Message)
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d messages, %d errors\n", sum.Messages, sum.Errors)
	// Output:
	// line 5 error schema /params/update
	//   missing required field "currentModeId"; found "modeId": did you mean "currentModeId"? (acp: CurrentModeUpdate)
	// line 6 error schema /params/update/content/type
	//   "txt" is not one of text, image, audio, resource_link, resource; did you mean "text"? (acp: ContentBlock)
	// line 6 error unknown-session /params/sessionId
	//   unknown session "sess_9": no answer to a request that creates, loads, resumes, forks or lists sessions introduced it in this trace
	// line 7 error duplicate-response /id
	//   second response to request id 1: each request is answered exactly once
	// 7 messages, 4 errors
}
