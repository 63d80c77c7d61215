package validate

import (
	"strings"
	"testing"
)

// TestMemberOfAnotherVersion: a member that the trace's version does not
// define at a type, but another version of ACP (or its unstable schema)
// does, is named as that version's member with the fix (declare the
// version, or drop the member) instead of a near miss or a call to move
// custom data to _meta. It is the other-version warning: the name is the
// protocol's. The version's own unstable additions on a trace read
// strictly as the version (--dialect v1) are errors, as asked; a member
// only an earlier release defined is the retired warning; a member of
// one's own is the custom-member error.
func TestMemberOfAnotherVersion(t *testing.T) {
	const (
		v1Init   = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true}},"clientInfo":{"name":"acme-editor","version":"2.3.1"}}}`
		v1Agent  = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[],"agentInfo":{"name":"kestrel","version":"0.9.2"}}}`
		v1New    = `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/home/dev/src/app","mcpServers":[]}}`
		v1Prompt = `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"sess_1","prompt":[{"type":"text","text":"Summarise the diff."}]}}`
		v2Agent  = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2,"capabilities":{"session":{}},"info":{"name":"kestrel","version":"2.0.0"}}}`
	)
	cases := []struct {
		name    string
		dialect string
		trace   []string
		line    int
		pointer string
		want    []string // in the message
		not     []string // not in the message
		rule    string   // the finding's rule; "" for other-version
	}{
		{
			name:    "a v1 session/new response with v2's availableCommands",
			trace:   []string{v1Init, v1Agent, v1New, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess_1","availableCommands":[]}}`},
			line:    4,
			pointer: "/result/availableCommands",
			want: []string{
				`member "availableCommands" is not defined by this type in ACP v1 but by the ACP v2 draft:`,
				"a receiver that speaks ACP v1 ignores it",
				"declare the ACP v2 draft (protocolVersion 2 in initialize) or drop the member",
			},
			not: []string{"_meta", "did you mean"},
		},
		{
			name:    "a v1 auth method with v2's methodId, a member of a shared type",
			trace:   []string{v1Init, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[{"id":"login","name":"Log in","methodId":"login"}],"agentInfo":{"name":"kestrel","version":"0.9.2"}}}`},
			line:    2,
			pointer: "/result/authMethods/0/methodId",
			want:    []string{`member "methodId" is not defined by this type in ACP v1 but by the ACP v2 draft:`},
			not:     []string{"unstable ACP v2", "_meta"},
		},
		{
			name:    "usage, an addition of unstable ACP v1, on a trace read strictly as v1",
			dialect: "v1",
			trace:   []string{v1Init, v1Agent, v1New, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess_1"}}`, v1Prompt, `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn","usage":{"totalTokens":900,"inputTokens":700,"outputTokens":200}}}`},
			line:    6,
			pointer: "/result/usage",
			want: []string{
				`member "usage" is not defined by this type in ACP v1 but by unstable ACP v1:`,
				"send it only to a peer that speaks unstable ACP v1 (--dialect v1-unstable reads the trace as that version) or drop the member",
			},
			not:  []string{"_meta"},
			rule: RuleCustomMember,
		},
		{
			name:    "a v2 initialize request with v1's clientInfo",
			trace:   []string{`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"capabilities":{},"info":{"name":"acme-editor","version":"3.0.0"},"clientInfo":{"name":"acme-editor","version":"3.0.0"}}}`, v2Agent},
			line:    1,
			pointer: "/params/clientInfo",
			want: []string{
				`member "clientInfo" is not defined by this type in the ACP v2 draft but by ACP v1:`,
				"declare ACP v1 (protocolVersion 1 in initialize) or drop the member",
			},
		},
		{
			// No version of the registry defines models today, but
			// releases v0.4.1 to v0.13.4 did: retired, not a near miss.
			name:    "models, which an earlier release defined, is retired",
			trace:   []string{v1Init, v1Agent, v1New, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess_1","models":{"currentModelId":"m1","availableModels":[]}}}`},
			line:    4,
			pointer: "/result/models",
			want:    []string{`member "models" was defined here by releases v0.4.1 to v0.13.4`, `config options of category "model"`},
			not:     []string{"but by", "did you mean"},
			rule:    RuleRetired,
		},
		{
			name:    "a member of one's own stays one",
			trace:   []string{v1Init, v1Agent, v1New, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess_1","acmeTheme":"dark"}}`},
			line:    4,
			pointer: "/result/acmeTheme",
			want:    []string{"put custom data in _meta", "no earlier release defined it"},
			not:     []string{"but by"},
			rule:    RuleCustomMember,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := New(Options{Dialect: c.dialect})
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := run(t, e, lines(c.trace...), FileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var found *Finding
			for i, f := range got {
				if f.Line == c.line && f.Pointer == c.pointer {
					if found != nil {
						t.Fatalf("two findings at line %d %s: %v", c.line, c.pointer, got)
					}
					found = &got[i]
				}
			}
			if found == nil {
				t.Fatalf("no finding at line %d %s; got %v", c.line, c.pointer, got)
			}
			switch rule := c.rule; rule {
			case RuleCustomMember:
				if found.Severity != Error || found.Rule != rule || found.Requirement != "acp.ext.no-root-fields" {
					t.Errorf("finding %v: want an error of rule %s for acp.ext.no-root-fields", *found, rule)
				}
			default:
				if rule == "" {
					rule = RuleOtherVersion
				}
				if found.Severity != Warning || found.Rule != rule || found.Requirement != "" {
					t.Errorf("finding %v: want a warning of rule %s that names no requirement", *found, rule)
				}
			}
			for _, w := range c.want {
				if !strings.Contains(found.Message, w) {
					t.Errorf("message %q lacks %q", found.Message, w)
				}
			}
			for _, n := range c.not {
				if strings.Contains(found.Message, n) {
					t.Errorf("message %q has %q", found.Message, n)
				}
			}
		})
	}
}
