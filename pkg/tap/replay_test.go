//go:build unix

package tap

import (
	"context"
	"strings"
	"testing"
	"time"
)

// recordedSession is a session with the scripted agent as it was recorded
// once, when the agent named its session "rec-7" and asked its permission
// with id 0.
var recordedSession = []struct{ dir, line string }{
	{"c2a", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"ed","version":"1"}}}`},
	{"a2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"ag","version":"1"},"agentCapabilities":{},"authMethods":[]}}`},
	{"c2a", `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`},
	{"a2c", `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"rec-7"}}`},
	{"c2a", `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"rec-7","prompt":[{"type":"text","text":"hi"}]}}`},
	{"a2c", `{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"rec-7","toolCall":{"toolCallId":"t1"},"options":[{"optionId":"ok","name":"OK","kind":"allow_once"}]}}`},
	{"c2a", `{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}`},
	{"a2c", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec-7","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"done"}}}}`},
	{"a2c", `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`},
}

func replayOf(t *testing.T, mode string) (ReplayResult, string) {
	t.Helper()
	var trace, dirs strings.Builder
	for _, m := range recordedSession {
		trace.WriteString(m.line + "\n")
		dirs.WriteString(m.dir + "\n")
	}
	cmd, env := childCmd(t, mode)
	var rec, stderr lockedBuffer
	res, err := Replay(context.Background(), ReplayConfig{Command: cmd, Env: env, Stderr: &stderr, Trace: strings.NewReader(trace.String()),
		Directions: strings.NewReader(dirs.String()), Record: &rec, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("Replay: %v (stderr %s)", err, stderr.String())
	}
	return res, rec.String()
}

func TestReplayAnswersAsRecordedWithTheAgentsOwnIds(t *testing.T) {
	res, rec := replayOf(t, "acp")
	if res.ExitCode != 0 {
		t.Errorf("the agent exited %d: it saw a prompt for a session it did not create", res.ExitCode)
	}
	if len(res.Differences) != 0 {
		t.Errorf("differences: %+v", res.Differences)
	}
	// The permission was answered under the agent's id, and the prompt
	// carried the agent's session id.
	for _, want := range []string{`"id":"perm-9","jsonrpc":"2.0","result":{"outcome":{"optionId":"ok","outcome":"selected"}}`, `"sessionId":"live-1"`} {
		if !strings.Contains(rec, want) {
			t.Errorf("the replayed session lacks %s:\n%s", want, rec)
		}
	}
	if n := strings.Count(rec, "\n"); n != len(recordedSession) {
		t.Errorf("replayed %d lines, recorded %d", n, len(recordedSession))
	}
}

func TestReplayNamesTheShapesThatDiffer(t *testing.T) {
	res, _ := replayOf(t, "acp-refuses")
	var msgs []string
	for _, d := range res.Differences {
		msgs = append(msgs, d.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{
		"the agent answered session/new (line 3) with error -32603; the recording has a result",
		"the agent sent 0 of notification session/update agent_message_chunk; the recording has 1",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("differences lack %q:\n%s", want, all)
		}
	}
	if len(res.Differences) > 0 && res.Differences[0].Line != 4 {
		t.Errorf("first difference at line %d, want 4 (the recorded answer)", res.Differences[0].Line)
	}
}
