package acp_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate"
)

// What a reader of a trace (validate.FileOptions.Message) sees of each ACP
// message, as Rules.Annotator reads it: its brief, its session and the
// lifecycles it moves. A terminal's answer names the terminal, and so adds
// the create step to its request's line.
func Example_annotation() {
	trace := strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"terminal":true},"clientInfo":{"name":"ed","version":"1.2"}}}`,
		`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"terminal/create","params":{"sessionId":"s1","command":"make"}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"terminalId":"t1"}}`,
	}, "\n")
	engine, err := validate.New(validate.Options{})
	if err != nil {
		log.Fatal(err)
	}
	show := func(m validate.MessageInfo) {
		a := m.Annotation
		fmt.Printf("%d %s %q", m.Line, a.Brief, a.Groups)
		if a.Peer.Name != "" {
			fmt.Printf(" %s: %s", a.Peer.Side, a.Peer.Name)
		}
		for _, s := range a.Steps {
			fmt.Printf(" [%s %s line %d: %s]", s.Kind, s.ID, s.Line, s.State)
		}
		fmt.Println()
	}
	if _, err := engine.Check(context.Background(), "t.jsonl", strings.NewReader(trace), validate.FileOptions{Message: show}, func(validate.Finding) {}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 1 protocolVersion 1 [] client: ed 1.2
	// 2 result []
	// 3 session/new []
	// 4 result ["session s1"]
	// 5 create: make ["session s1"]
	// 6 result ["session s1"] [terminal t1 line 5: create: make] [terminal t1 line 6: created t1]
}
