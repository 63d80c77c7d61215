package arcan

import (
	"fmt"
	"testing"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// TestAnnotateEvents: an event belongs to its run, and moves the run's
// lifecycle and its tool call's; run_started names the provider.
func TestAnnotateEvents(t *testing.T) {
	an := (*Rules)(nil).Annotator()
	read := func(line int, text string) (protocol.Annotation, bool) {
		var a jsonscan.Arena
		d, err := a.Parse([]byte(text), 0)
		if err != nil {
			t.Fatal(err)
		}
		return an.Annotate(&protocol.Message{Line: line, Data: []byte(text), Doc: d})
	}
	for _, c := range []struct {
		line       int
		event, got string
	}{
		{1, `{"part_type":"run_started","run_id":"r","provider":"anthropic"}`, `run_started [run r] {agent Arcan agent loop, provider anthropic } [{run r run r run_started 1}]`},
		{2, `{"part_type":"tool_call_requested","run_id":"r","call":{"call_id":"c","tool_name":"bash"}}`, `tool_call_requested: bash [run r] {  } [{tool call c run r tool_call_requested: bash 2} {run r run r tool_call_requested 2}]`},
		{3, `{"part_type":"text_delta","run_id":"r","delta":"hello\n  world"}`, `text_delta: hello world [run r] {  } [{run r run r text_delta 3}]`},
		{4, `{"part_type":"run_finished","run_id":"r","reason":"completed"}`, `run_finished [run r] {  } [{run r run r run_finished completed 4}]`},
	} {
		a, ok := read(c.line, c.event)
		if got := fmt.Sprintf("%s %s %v %v", a.Brief, a.Groups, a.Peer, a.Steps); !ok || got != c.got {
			t.Errorf("line %d: %v %s\nwant %s", c.line, ok, got, c.got)
		}
	}
	if _, ok := read(5, `{"part_type":null}`); ok {
		t.Error("an event without a part_type was read")
	}
}
