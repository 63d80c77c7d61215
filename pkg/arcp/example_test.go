package arcp_test

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/pkg/arcp"
	"github.com/agentproto/agentproto/pkg/wire"
)

// Build a job.submit, then decode the runtime's job.event stream and switch
// on the kind of each event.
func Example() {
	key := "nightly-42"
	submit := arcp.JobSubmit{
		Envelope:  arcp.Envelope{ID: "msg_01"},
		SessionID: "sess_01",
		Payload: arcp.JobSubmitPayload{
			Agent:          "code-refactor@1.0.0",
			Input:          []byte(`{"instruction":"Rename the logger."}`),
			IdempotencyKey: &key,
		},
	}
	if err := submit.Validate(); err != nil {
		fmt.Println("invalid:", err)
		return
	}
	out, _ := wire.Marshal(&submit)
	fmt.Println(string(out))

	stream := `{"arcp":"1.1","id":"msg_02","type":"job.event","session_id":"sess_01","job_id":"job_01","event_seq":1,"payload":{"kind":"log","ts":"2026-11-22T02:12:34Z","body":{"level":"info","message":"reading sources"}}}
{"arcp":"1.1","id":"msg_03","type":"job.event","session_id":"sess_01","job_id":"job_01","event_seq":2,"payload":{"kind":"tool_call","ts":"2026-11-22T02:12:35Z","body":{"tool":"grep","args":{"pattern":"log."},"call_id":"c1"}}}
{"arcp":"1.1","id":"msg_04","type":"job.event","session_id":"sess_01","job_id":"job_01","event_seq":3,"payload":{"kind":"x-vendor.acme.trace","ts":"2026-11-22T02:12:36Z","body":{"span":"s1"}}}`
	sc := bufio.NewScanner(strings.NewReader(stream))
	for sc.Scan() {
		msg, err := arcp.UnmarshalMessage(sc.Bytes())
		if err != nil {
			fmt.Println("bad line:", err)
			continue
		}
		ev, ok := msg.(*arcp.JobEvent)
		if !ok {
			continue
		}
		switch body := ev.Payload.(type) {
		case *arcp.LogEvent:
			fmt.Printf("%d log %s: %s\n", ev.EventSeq, body.Body.Level, body.Body.Message)
		case *arcp.ToolCallEvent:
			fmt.Printf("%d tool call %s: %s %s\n", ev.EventSeq, body.Body.CallID, body.Body.Tool, body.Body.Args)
		case *arcp.UnknownJobEventPayload:
			fmt.Printf("%d kept %s as is\n", ev.EventSeq, body.Tag)
		}
	}
	// Output:
	// {"arcp":"1.1","id":"msg_01","type":"job.submit","session_id":"sess_01","payload":{"agent":"code-refactor@1.0.0","input":{"instruction":"Rename the logger."},"idempotency_key":"nightly-42"}}
	// 1 log info: reading sources
	// 2 tool call c1: grep {"pattern":"log."}
	// 3 kept x-vendor.acme.trace as is
}
