package acptest_test

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing/iotest"

	"github.com/agentproto/agentproto/pkg/acp/acptest"
	"github.com/agentproto/agentproto/pkg/validate"
)

// An agent whose answer to a prompt names no stop reason breaks a
// requirement: the check names it, the side at fault and the line.
func ExampleNew() {
	client := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`,
	}, "\n") + "\n"
	// The client's lines arrive one at a time, as from a real client.
	check, err := acptest.New(acptest.AgentSide, iotest.OneByteReader(strings.NewReader(client)), io.Discard)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The agent under test reads each request and answers it.
	in := bufio.NewReader(check.Reader)
	for _, answer := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
	} {
		if _, err := in.ReadString('\n'); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Fprintln(check.Writer, answer)
	}
	findings, _ := check.Close()
	for _, f := range findings {
		if f.Severity != validate.Error {
			continue // SHOULDs the exchange does not follow (no clientInfo, …)
		}
		fmt.Printf("line %d, %s's %s: %s\n", f.Line, f.Side, f.Severity, f.Requirement)
	}
	// Output:
	// line 6, agent's error: acp.schema.shape
}
