package acp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

const (
	initV1  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"ed","version":"1"}}}`
	initV1R = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"ag","version":"1"},"agentCapabilities":{}}}`
)

func check(t *testing.T, opts validate.Options, lines ...string) ([]validate.Finding, validate.Summary) {
	t.Helper()
	e, err := validate.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []validate.Finding
	sum, err := e.Check(context.Background(), "t", strings.NewReader(strings.Join(lines, "\n")+"\n"), validate.FileOptions{}, func(f validate.Finding) { got = append(got, f) })
	if err != nil {
		t.Fatal(err)
	}
	return got, sum
}

func rules(fs []validate.Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%d %s %s %s", f.Line, f.Severity, f.Rule, f.Pointer))
	}
	return strings.Join(out, "; ")
}

// A long-running agent's trace outgrows the state window; ids that fell out
// of it are never reported as unknown.
func TestLongTraceForgetsNothingIntoErrors(t *testing.T) {
	lines := []string{initV1, initV1R}
	const n = 9000 // more sessions than the window holds (4,096, compacted past twice that)
	for i := 0; i < n; i++ {
		lines = append(lines,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`, i+1),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"sessionId":"s%d"}}`, i+1, i))
	}
	lines = append(lines, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s0","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"still here"}}}}`)
	got, _ := check(t, validate.Options{}, lines...)
	for _, f := range got {
		if f.Severity == validate.Error {
			t.Errorf("%s", f)
		}
	}
	if len(got) != 1 || got[0].Rule != validate.RuleStateWindow {
		t.Errorf("want one state-window warning, got %s", rules(got))
	}
}

// The trace's own version decides: a v2 initialize makes the trace v2.
func TestVersionFromInitialize(t *testing.T) {
	_, sum := check(t, validate.Options{},
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"ed","version":"1"},"capabilities":{}}}`)
	if d := sum.Detected[0]; d.Dialect != "v2" || !strings.Contains(d.Note, "protocolVersion 2, line 1") {
		t.Errorf("detected %+v, want v2 from initialize on line 1", d)
	}
	// A client proposes v2, the agent answers v1: the connection speaks v1.
	got, sum := check(t, validate.Options{},
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"ed","version":"1"},"capabilities":{}}}`,
		`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"ag","version":"1"},"agentCapabilities":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`)
	if d := sum.Detected[0]; d.Dialect != "v1" || !strings.Contains(d.Note, "response protocolVersion 1, line 2") {
		t.Errorf("detected %+v, want v1 from the initialize response on line 2", d)
	}
	for _, f := range got {
		if f.Severity == validate.Error && f.Line > 1 {
			t.Errorf("%s", f)
		}
	}
}

// mcp/message is both a request the client handles and a notification the
// agent handles: neither use is a direction or kind error.
func TestSameNameRequestAndNotification(t *testing.T) {
	got, _ := check(t, validate.Options{Dialect: "v1-unstable"}, initV1, initV1R,
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
		`{"jsonrpc":"2.0","id":0,"method":"mcp/message","params":{"serverId":"srv","requestId":"r1","method":"tools/list"}}`,
		`{"jsonrpc":"2.0","method":"mcp/message","params":{"serverId":"srv","requestId":"r1","method":"notifications/progress","params":{}}}`,
		`{"jsonrpc":"2.0","id":0,"result":{"result":{"tools":[]}}}`)
	if len(got) != 0 {
		t.Errorf("want no finding, got %s", rules(got))
	}
}

// A capture that begins mid-session is read as one unless the user says
// otherwise; --partial=false reports what it cannot know.
func TestPartialCapture(t *testing.T) {
	update := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s9","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`
	got, _ := check(t, validate.Options{}, update, `{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}`)
	if rules(got) != "1 warning partial-capture /method" {
		t.Errorf("auto: got %s", rules(got))
	}
	got, _ = check(t, validate.Options{Partial: protocol.PartialNo}, update)
	if !strings.Contains(rules(got), "error not-initialized") || !strings.Contains(rules(got), "error unknown-session") {
		t.Errorf("--partial=false: got %s", rules(got))
	}
	// A trace that starts state without initialize is complete, and wrong.
	got, _ = check(t, validate.Options{}, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)
	if rules(got) != "1 error not-initialized /method; 1 warning unanswered-request " {
		t.Errorf("session/new first: got %s", rules(got))
	}
}

// Sessions an extension method creates are not in the tables; updates for
// them are not reported.
func TestExtensionMethodMayCreateSessions(t *testing.T) {
	got, _ := check(t, validate.Options{}, initV1, initV1R,
		`{"jsonrpc":"2.0","id":1,"method":"_acme/spawn","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"session":{"id":"s-ext"}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-ext","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-other","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`)
	if rules(got) != "6 error unknown-session /params/sessionId" {
		t.Errorf("got %s", rules(got))
	}
}

// A request about a session the agent does not know, answered with an
// error, is not the sender's fault; but a prompt is only ever for a
// session this connection set up.
func TestRefusedRequestIsNotAnError(t *testing.T) {
	got, _ := check(t, validate.Options{}, initV1, initV1R,
		`{"jsonrpc":"2.0","id":1,"method":"session/set_mode","params":{"sessionId":"nope","modeId":"ask"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Resource not found"}}`)
	if len(got) != 0 {
		t.Errorf("got %s", rules(got))
	}
	got, _ = check(t, validate.Options{}, initV1, initV1R,
		`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"nope","prompt":[]}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Resource not found"}}`)
	if rules(got) != "3 error session-setup /params/sessionId" {
		t.Errorf("prompt: got %s", rules(got))
	}
}
