package arcan_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentproto/agentproto/pkg/arcan"
)

// ExampleSSEReader reads an Arcan event stream and prints the assistant's text
// and the tools it calls.
func ExampleSSEReader() {
	stream := `data: {"part_type":"run_started","run_id":"r1","session_id":"demo","provider":"mock-provider","max_iterations":24}

data: {"part_type":"iteration_started","run_id":"r1","session_id":"demo","iteration":1}

data: {"part_type":"text_delta","run_id":"r1","session_id":"demo","iteration":1,"delta":"Let me look at the manifest."}

:

data: {"part_type":"tool_call_requested","run_id":"r1","session_id":"demo","iteration":1,"call":{"call_id":"toolu_01","tool_name":"read_file","input":{"path":"Cargo.toml"}}}

data: {"part_type":"tool_call_completed","run_id":"r1","session_id":"demo","iteration":1,"result":{"call_id":"toolu_01","tool_name":"read_file","output":{"content":"[workspace]"}}}

data: {"part_type":"text_delta","run_id":"r1","session_id":"demo","iteration":2,"delta":" It is a workspace."}

data: {"part_type":"run_finished","run_id":"r1","session_id":"demo","reason":"completed","total_iterations":2,"final_answer":null}

`
	r := arcan.NewSSEReader(strings.NewReader(stream))
	for {
		frame, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		ev, err := arcan.UnmarshalAgentEvent(frame.Data)
		if err != nil {
			fmt.Printf("line %d: %v\n", frame.Line, err)
			continue
		}
		switch ev := ev.(type) {
		case *arcan.TextDelta:
			fmt.Printf("text: %q\n", ev.Delta)
		case *arcan.ToolCallRequested:
			fmt.Printf("tool call %s: %s %s (line %d)\n", ev.Call.CallID, ev.Call.ToolName, ev.Call.Input, frame.Line)
		case *arcan.RunFinished:
			fmt.Println("finished:", ev.Reason)
		}
	}
	// Output:
	// text: "Let me look at the manifest."
	// tool call toolu_01: read_file {"path":"Cargo.toml"} (line 9)
	// text: " It is a workspace."
	// finished: completed
}
