package validate

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate/internal/synth"
)

// TestTaggedUnionExplainedByItsTag: a value whose tag names an
// alternative is explained by that alternative, however many of its
// other members are wrong, and however few another alternative would
// complain about. A tool call with an invented kind and status is a tool
// call with two wrong members, not a session_info_update with a wrong
// tag (the alternative that requires nothing but its tag).
func TestTaggedUnionExplainedByItsTag(t *testing.T) {
	e := testEngine(t)
	head := string(synth.Lines(synth.ACP, 4))
	line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_bench","update":{"sessionUpdate":"tool_call","toolCallId":"call_02","title":"Open the app","kind":"browse","status":"running"}}}` + "\n"
	schemaFindingsAre(t, e, []byte(head+line),
		`/params/update/kind: "browse" is not one of read, edit, delete, move, search, execute, think, fetch, switch_mode, other (acp: ToolKind)`,
		`/params/update/status: "running" is not one of pending, in_progress, completed, failed (acp: ToolCallStatus)`,
	)
}

// schemaFindingsAre checks that the schema findings of data, as pointer
// and message, are want.
func schemaFindingsAre(t *testing.T, e *Engine, data []byte, want ...string) {
	t.Helper()
	var got []string
	for _, f := range findingsOf(t, e, "t.jsonl", data) {
		if f.Rule == RuleSchema {
			got = append(got, f.Pointer+": "+f.Message)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCatchAllLosesOnTheTag: an open union's catch-all alternative, which
// takes any tag the others do not list, loses on a listed tag as they do
// on theirs, so a value with a listed tag is explained by that tag's
// alternative. An embedded resource whose resource is empty is missing
// the resource's members, not "a shape that is not allowed" (the
// catch-all's complaint about the tag, which it was explained by when
// the catch-all's one complaint outnumbered the resource's two).
func TestCatchAllLosesOnTheTag(t *testing.T) {
	e := testEngine(t)
	trace, err := os.ReadFile(fixturesDir + "/acp/sdk/v2/02-prompt-all-updates.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(trace, []byte("\n"))
	var data []byte
	for _, l := range lines[:8] { // the handshake, a session and the prompt
		data = append(data, l...)
	}
	data = append(data, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-001","update":{"sessionUpdate":"agent_message","messageId":"msg-002","content":[{"type":"resource","resource":{}}]}}}`+"\n"...)
	schemaFindingsAre(t, e, data,
		`/params/update/content/0/resource: missing required field "text" (acp: TextResourceContents)`,
		`/params/update/content/0/resource: missing required field "uri" (acp: TextResourceContents)`,
	)
}

// TestDeeperComplaintsExplain: of two alternatives with as many
// complaints, the one whose complaints lie deeper explains the value. An
// ARCP agent inventory (a list of names, or a list of agent objects)
// holding one agent object with a numeric name is a list of agents with
// a wrong name, not a list of names whose first is an object.
func TestDeeperComplaintsExplain(t *testing.T) {
	e := testEngine(t)
	trace, err := os.ReadFile(fixturesDir + "/arcp/v1.1/valid/agent-versioning.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(trace, []byte("\n"))
	var welcome map[string]any
	if err := json.Unmarshal(lines[1], &welcome); err != nil || welcome["type"] != "session.welcome" {
		t.Fatalf("line 2 of the fixture is not a session.welcome (%v)", err)
	}
	caps := welcome["payload"].(map[string]any)["capabilities"].(map[string]any)
	caps["agents"] = []any{map[string]any{"name": 42, "versions": []any{"1.0.0"}, "default": "1.0.0"}}
	line, err := json.Marshal(welcome)
	if err != nil {
		t.Fatal(err)
	}
	data := append(append(append([]byte(nil), lines[0]...), line...), '\n')
	schemaFindingsAre(t, e, data, `/payload/capabilities/agents/0/name: wrong type: got number, want string (arcp: AgentName)`)
}
