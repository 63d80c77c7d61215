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
	initV2  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"ed","version":"1"},"capabilities":{}}}`
	initV2R = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2,"info":{"name":"ag","version":"1"},"capabilities":{"session":{}}}}`
)

// In v2, as in v1, an error with id null answers a message whose id could
// not be read; one that answers a readable request or a notification is
// the state rule's, not the envelope's.
func TestV2NullIDAnswers(t *testing.T) {
	got, _ := check(t, validate.Options{}, initV2, initV2R,
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w"`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/list","params":{"cursor":"c"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"Invalid params"}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`)
	if r := rules(got); r != "3 error json /params; 6 error notification-answer /id; 8 error notification-answer /id" {
		t.Errorf("got %s", r)
	}
}

// checkDirs checks a trace with its direction sidecar ("c" for client to
// agent, "a" for agent to client, one a line) and returns its findings as
// "LINE severity rule pointer requirement side".
func checkDirs(t *testing.T, opts validate.Options, dirs string, lines ...string) string {
	t.Helper()
	if len(dirs) != len(lines) {
		t.Fatalf("%d directions for %d lines", len(dirs), len(lines))
	}
	var sidecar strings.Builder
	for _, d := range dirs {
		sidecar.WriteString(map[rune]string{'c': "c2a\n", 'a': "a2c\n"}[d])
	}
	e, err := validate.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	_, err = e.Check(context.Background(), "t", strings.NewReader(strings.Join(lines, "\n")+"\n"),
		validate.FileOptions{Directions: strings.NewReader(sidecar.String())}, func(f validate.Finding) {
			out = append(out, fmt.Sprintf("%d %s %s %s %s %s", f.Line, f.Severity, f.Rule, f.Pointer, f.Requirement, f.Side))
		})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, "; ")
}

const (
	newV2  = `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w"}}`
	newV2R = `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`
)

// A v2 batch and its answer as an array, in another order than the
// requests: each entry is checked as a message of its own, and nothing is
// wrong.
func TestV2BatchAnsweredInAnyOrder(t *testing.T) {
	got := checkDirs(t, validate.Options{}, "cacacac", initV2, initV2R, newV2, newV2R,
		`[{"jsonrpc":"2.0","id":2,"method":"session/list","params":{}},{"jsonrpc":"2.0","method":"_acme/focus","params":{"file":"/w/a.go"}},{"jsonrpc":"2.0","id":"x","method":"session/list","params":{"cwd":"/w"}}]`,
		`[{"jsonrpc":"2.0","id":"x","result":{"sessions":[]}},{"jsonrpc":"2.0","id":2,"result":{"sessions":[{"sessionId":"s1","cwd":"/w"}]}}]`,
		`[{"jsonrpc":"2.0","method":"_acme/heartbeat","params":{}},{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}]`)
	if got != "" {
		t.Errorf("got %s", got)
	}
}

// What is wrong inside an entry is reported on the batch's line, with a
// pointer rooted at the line's array, blaming the entry's sender.
func TestV2BatchEntryFindings(t *testing.T) {
	got := checkDirs(t, validate.Options{}, "cacacac", initV2, initV2R, newV2, newV2R,
		`[{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}},{"jsonrpc":"2.0","id":2,"method":"session/list","params":{"cursor":7}},{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"nope"}}]`,
		`[{"jsonrpc":"2.0","id":2,"result":{"sessions":[{"sessionId":"s1","cwd":"/w"}]}},{"jsonrpc":"2.0","id":9,"result":{}}]`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`)
	want := "5 error schema /1/params/cursor acp.schema.shape client; " +
		"5 error unknown-session /2/params/sessionId acp.session.known-id client; " +
		"6 error unanswered-response /1/id acp.jsonrpc.answer-known-id agent"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// The batch rules of v2's transport, each broken once.
func TestV2BatchRules(t *testing.T) {
	for _, c := range []struct {
		name, dirs string
		lines      []string
		want       string
	}{{
		name:  "empty batch, answered with one error",
		dirs:  "ca",
		lines: []string{`[]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`},
		want:  "5 error batch  acp.jsonrpc.batch-non-empty client",
	}, {
		name:  "empty batch, answered with an array",
		dirs:  "ca",
		lines: []string{`[]`, `[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}]`},
		want:  "5 error batch  acp.jsonrpc.batch-non-empty client; 6 error batch  acp.jsonrpc.batch-empty-single-answer agent",
	}, {
		name:  "notifications answered with an empty array",
		dirs:  "ca",
		lines: []string{`[{"jsonrpc":"2.0","method":"_acme/a","params":{}},{"jsonrpc":"2.0","method":"_acme/b"}]`, `[]`},
		want:  "6 error batch  acp.jsonrpc.batch-no-empty-response agent",
	}, {
		name:  "a notification of a batch answered",
		dirs:  "ca",
		lines: []string{`[{"jsonrpc":"2.0","id":2,"method":"session/list","params":{}},{"jsonrpc":"2.0","method":"_acme/a"}]`, `[{"jsonrpc":"2.0","id":2,"result":{"sessions":[]}},{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found"}}]`},
		want:  "6 error notification-answer /1/id acp.jsonrpc.no-answer-to-notification agent",
	}, {
		name:  "lifecycle messages inside a batch",
		dirs:  "cac",
		lines: []string{`[{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w"}},{"jsonrpc":"2.0","id":3,"method":"session/list","params":{}}]`, `[{"jsonrpc":"2.0","id":3,"result":{"sessions":[]}},{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s2"}}]`, `[{"jsonrpc":"2.0","method":"_acme/a"},{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s2","prompt":[{"type":"text","text":"hi"}]}}]`},
		want:  "5 warning batch /0/method acp.jsonrpc.batch-no-lifecycle client; 7 warning batch /1/method acp.jsonrpc.batch-no-lifecycle client; 7 warning unanswered-request  acp.jsonrpc.answer-once agent",
	}, {
		name:  "answers on lines of their own, then an array that lacks one",
		dirs:  "caaca",
		lines: []string{`[{"jsonrpc":"2.0","id":2,"method":"session/list","params":{}},{"jsonrpc":"2.0","id":3,"method":"session/list","params":{}}]`, `{"jsonrpc":"2.0","id":2,"result":{"sessions":[]}}`, `{"jsonrpc":"2.0","id":3,"result":{"sessions":[]}}`, `[{"jsonrpc":"2.0","id":4,"method":"session/list","params":{}},{"jsonrpc":"2.0","id":5,"method":"session/list","params":{}}]`, `[{"jsonrpc":"2.0","id":5,"result":{"sessions":[]}}]`},
		want:  "6 warning batch /id acp.jsonrpc.batch-response-array agent; 9 warning batch  acp.jsonrpc.batch-answer-each agent; 9 warning unanswered-request  acp.jsonrpc.answer-once agent",
	}, {
		name:  "invalid entries, each answered with its own error",
		dirs:  "ca",
		lines: []string{`[{"jsonrpc":"2.0","id":2,"method":"session/list","params":{}},7,{"jsonrpc":"2.0","id":1.5,"method":"session/list","params":{}},[{"jsonrpc":"2.0","method":"_acme/a"}]]`, `[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}},{"jsonrpc":"2.0","id":2,"result":{"sessions":[]}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}]`},
		want:  "5 error schema /1 acp.schema.shape client; 5 error schema /2/id acp.schema.shape client; 5 error schema /3 acp.schema.shape client",
	}, {
		name:  "invalid entries, the array lacks their errors",
		dirs:  "ca",
		lines: []string{`[{"jsonrpc":"2.0","id":2,"method":"session/list","params":{}},{"jsonrpc":"2.0"},{"jsonrpc":"2.0","params":{}}]`, `[{"jsonrpc":"2.0","id":2,"result":{"sessions":[]}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}]`},
		want:  "5 error schema /1 acp.schema.shape client; 5 error schema /2 acp.schema.shape client; 6 warning batch  acp.jsonrpc.batch-invalid-entry-answer agent",
	}, {
		name:  "a batch of invalid entries only, answered in full",
		dirs:  "ca",
		lines: []string{`[1,2]`, `[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}]`},
		want:  "5 error schema /0 acp.schema.shape client; 5 error schema /1 acp.schema.shape client",
	}} {
		t.Run(c.name, func(t *testing.T) {
			got := checkDirs(t, validate.Options{}, "cacac"[:4]+c.dirs, append([]string{initV2, initV2R, newV2, newV2R}, c.lines...)...)
			if got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// ACP v1 has no batches: a batch is one error, which says that v2 has
// them, and its receiver's error with id null answers it.
func TestV1BatchIsAnError(t *testing.T) {
	got := checkDirs(t, validate.Options{}, "cacaca", initV1, initV1R,
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
		`[{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}},{"jsonrpc":"2.0","method":"session/cancel","params":{"session":1}}]`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`)
	if got != "5 error schema  acp.schema.shape client" {
		t.Errorf("got %s", got)
	}
	got2, _ := check(t, validate.Options{}, initV1, `[]`)
	n := 0
	for _, f := range got2 {
		if f.Rule != validate.RuleSchema {
			continue
		}
		n++
		if f.Line != 2 || !strings.Contains(f.Message, "ACP v1 has no JSON-RPC batches") || !strings.Contains(f.Message, "this line is an empty array; batches are part of the ACP v2") {
			t.Errorf("the finding does not say v1 has no batches and v2 does: %s", f)
		}
	}
	if n != 1 {
		t.Errorf("%d schema findings, want 1: %s", n, rules(got2))
	}
}

// Without a sidecar, a batch's sender is the sender of its entries as the
// method table names it, and an array of answers is the receiver's.
func TestV2BatchWithoutSidecar(t *testing.T) {
	got, _ := check(t, validate.Options{}, initV2, initV2R, newV2, newV2R,
		`[{"jsonrpc":"2.0","id":2,"method":"session/list","params":{}},{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}]`,
		`[{"jsonrpc":"2.0","id":3,"result":{"messageId":"m1"}}]`,
		`[{"jsonrpc":"2.0","method":"_acme/a"}]`,
		`[]`)
	want := []string{
		"5 warning batch /1/method acp.jsonrpc.batch-no-lifecycle client",
		"6 warning batch  acp.jsonrpc.batch-answer-each agent",
		"8 error batch  acp.jsonrpc.batch-no-empty-response",
	}
	var have []string
	for _, f := range got {
		if f.Rule == "batch" {
			have = append(have, strings.TrimSpace(fmt.Sprintf("%d %s %s %s %s %s", f.Line, f.Severity, f.Rule, f.Pointer, f.Requirement, f.Side)))
		}
	}
	if strings.Join(have, "; ") != strings.Join(want, "; ") {
		t.Errorf("got  %s\nwant %s", strings.Join(have, "; "), strings.Join(want, "; "))
	}
}

// --dialect v2-unstable reads a batch as v2 does: its tables extend v2's,
// whose lifecycle marks apply.
func TestV2UnstableBatch(t *testing.T) {
	got := checkDirs(t, validate.Options{Dialect: "v2-unstable"}, "cacacac", initV2, initV2R, newV2, newV2R,
		`[{"jsonrpc":"2.0","id":2,"method":"session/resume","params":{"sessionId":"s1","cwd":"/w"}}]`,
		`[{"jsonrpc":"2.0","id":2,"result":{}}]`,
		`[]`)
	want := "5 warning batch /0/method acp.jsonrpc.batch-no-lifecycle client; 7 error batch  acp.jsonrpc.batch-non-empty client"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// A batch longer than the engine splits is checked in part, with a
// warning that says so; answers to its unread requests are not errors.
func TestV2HugeBatch(t *testing.T) {
	var sb strings.Builder
	sb.WriteByte('[')
	const n = protocol.MaxEntries + 10
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"jsonrpc":"2.0","id":%d,"method":"session/list","params":{}}`, i+2)
	}
	sb.WriteByte(']')
	got := checkDirs(t, validate.Options{}, "cacacaa", initV2, initV2R, newV2, newV2R, sb.String(),
		`{"jsonrpc":"2.0","id":2,"result":{"sessions":[]}}`,
		fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"sessions":[]}}`, n+1))
	if !strings.HasPrefix(got, "5 warning state-window   client; 6 warning batch /id acp.jsonrpc.batch-response-array agent") || strings.Contains(got, "error") {
		t.Errorf("got %s", got)
	}
}
