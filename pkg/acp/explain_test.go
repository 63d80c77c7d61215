package acp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/acp"
	"github.com/agentproto/agentproto/pkg/wire"
)

// hostilePrompt is a session/prompt's params with n text blocks whose
// text is a number: a defect in each of n elements.
func hostilePrompt(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"sessionId":"s","prompt":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"text","text":5}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// TestExplainAtBoundsItsList: a value with a defect in each of thousands
// of elements gets the first wire.MaxExplained of them (and the one that
// stopped the list), and the list says it is not whole; a value with
// fewer gets every one.
func TestExplainAtBoundsItsList(t *testing.T) {
	c, ok := acp.Lookup("https://agentproto.dev/schema/acp/v1/session.prompt.params.json")
	if !ok {
		t.Fatal("no codec for session/prompt's params")
	}
	for _, n := range []int{3, wire.MaxExplained - 1, 5000} {
		errs, whole := c.ExplainAt(wire.NewDecoder(hostilePrompt(n)), "")
		want := min(n, wire.MaxExplained+1)
		if len(errs) != want || whole != (n < wire.MaxExplained) {
			t.Errorf("%d bad blocks: %d errors (want %d), whole %v", n, len(errs), want, whole)
			continue
		}
		for i, e := range errs[:min(n, wire.MaxExplained)] {
			if p := fmt.Sprintf("/prompt/%d/text", i); e.Pointer != p || e.Keyword != "type" {
				t.Errorf("%d bad blocks: error %d is %s (%s), want %s (type)", n, i, e.Pointer, e.Keyword, p)
				break
			}
		}
	}
}

// BenchmarkExplainAtHostile explains values with a defect in each of n
// elements: the cost per byte stays flat as n grows (the list stops at
// wire.MaxExplained).
func BenchmarkExplainAtHostile(b *testing.B) {
	c, _ := acp.Lookup("https://agentproto.dev/schema/acp/v1/session.prompt.params.json")
	for _, n := range []int{1000, 16000} {
		data := hostilePrompt(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			var d wire.Decoder
			for b.Loop() {
				d.Reset(data)
				c.ExplainAt(&d, "")
			}
		})
	}
}

// TestExplainAtHints: an explanation names the value a misspelt tag or
// enum value stands for, and the member a missing one was most likely
// written as, as the validator's findings do.
func TestExplainAtHints(t *testing.T) {
	c, ok := acp.Lookup("https://agentproto.dev/schema/acp/v1/session.update.params.json")
	if !ok {
		t.Fatal("no codec for session/update's params")
	}
	cases := []struct{ in, want string }{
		{`{"sessionId":"s","update":{"sessionUpdate":"agent_mesage_chunk","content":{"type":"text","text":"hi"}}}`,
			`/update/sessionUpdate: "agent_mesage_chunk" is not one of agent_message_chunk, agent_thought_chunk, available_commands_update, compaction_summary_chunk, compaction_update, config_option_update, current_mode_update, notice, plan, session_info_update, tool_call, tool_call_update, usage_update, user_message_chunk; did you mean "agent_message_chunk"?`},
		{`{"sesionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"txt","text":"hi"}}}`,
			`: missing required member "sessionId"; found "sesionId": did you mean "sessionId"?` + "\n" +
				`/update/content/type: "txt" is not one of audio, image, resource, resource_link, text; did you mean "text"?`},
		{`{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c","title":"t","kind":"reed","status":"in-progress"}}`,
			`/update/kind: "reed" is not one of read, edit, delete, move, search, execute, think, fetch, switch_mode, other; did you mean "read"?` + "\n" +
				`/update/status: "in-progress" is not one of pending, in_progress, completed, failed; did you mean "in_progress"?`},
		{`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"kind":"text","text":"hi"}}}`,
			`/update/content: missing the tag member "type"`},
		{`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"Type":"text","text":"hi"}}}`,
			`/update/content: missing the tag member "type"; found "Type": did you mean "type"?`},
		{`{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"content":"x","priority":"urgent","status":"pending"}]}}`,
			`/update/entries/0/priority: "urgent" is not one of high, medium, low`},
	}
	for _, tc := range cases {
		errs, whole := c.ExplainAt(wire.NewDecoder([]byte(tc.in)), "")
		var lines []string
		for _, e := range errs {
			lines = append(lines, e.Pointer+": "+e.Msg)
		}
		if got := strings.Join(lines, "\n"); got != tc.want || !whole {
			t.Errorf("%s\n got (whole %v)\n%s\nwant\n%s", tc.in, whole, got, tc.want)
		}
	}
}
