package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// findingLines runs validate on a trace and returns its finding lines.
func findingLines(t *testing.T, args ...string) []string {
	t.Helper()
	_, out, _ := runCLI(t, "", append([]string{"--summary=false"}, args...)...)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

func fixture(p string) string { return filepath.Join("..", "..", "fixtures", filepath.FromSlash(p)) }

// TestSharperMessages: each message of the issue that was vague now says
// what is wrong and what was meant.
func TestSharperMessages(t *testing.T) {
	acpTrace := writeFile(t, "m.jsonl", strings.Join([]string{
		acpInit, acpInitResp,
		`{"jsonrpc":"2.0","id":4.5,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`,
		acpNew, acpNewResp,
		`{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1"},"options":[{"optionId":"a","name":"Allow","kind":"allow"}]}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"outcome":{"outcome":"cancelled"}},"error":{"code":1,"message":"m"}}`,
	}, "\n"))
	for _, tc := range []struct {
		name  string
		trace string
		line  string // FILE:LINE: prefix after the trace name
		want  []string
		not   []string
	}{
		{"enum did-you-mean (separator)", fixture("acp/invalid/01-session-update-schema.jsonl"), ":16: ", []string{`"end-turn" is not one of`, `did you mean "end_turn"?`}, nil},
		{"tag did-you-mean", fixture("acp/invalid/01-session-update-schema.jsonl"), ":13: ", []string{`"tool_call_updated"`, `did you mean "tool_call_update"?`}, nil},
		{"enum did-you-mean (prefix)", acpTrace, ":6: ", []string{`"allow" is not one of`, `did you mean "allow_once" or "allow_always"?`}, nil},
		{"a conditional rule names its condition", fixture("arcp/v1.1/invalid/schema-terminal.jsonl"), ":18: ", []string{`/payload/retryable: true must be false because code is "LEASE_EXPIRED"`}, nil},
		{"the pointer is printed once", fixture("arcp/v1.1/invalid/feature-not-negotiated.jsonl"), ":6: ", []string{`/payload/lease_constraints: "lease_constraints" needs the`}, []string{"/payload/lease_constraints: /payload/lease_constraints"}},
		{"both result and error (ARCP)", fixture("arcp/v1.1/invalid/schema-events.jsonl"), ":42: ", []string{`"result" and "error" must not both be present`}, []string{"must not be present here"}},
		{"both result and error (JSON-RPC)", acpTrace, ":7: ", []string{`has both "result" and "error": a JSON-RPC response carries exactly one`}, []string{"more than one alternative"}},
		{"a date-time says what it looks like", fixture("arcp/v1.1/invalid/schema-events.jsonl"), ":138: ", []string{`"13 May 2026" is not an RFC 3339 date-time such as 2026-05-13T09:30:00Z`}, []string{"less than 20 characters"}},
		{"a fractional id", acpTrace, ":3: ", []string{"/id: wrong type: got 4.5, a number with a fraction or an exponent; want string, integer or null"}, nil},
		{"MCP", fixture("misc/mcp.jsonl"), ":1: ", []string{"this looks like MCP (Model Context Protocol)", `"tools/call"`, "[unknown-protocol]"}, nil},
		{"JSON-RPC without ACP methods", fixture("misc/jsonrpc-other.jsonl"), ":1: ", []string{"none of its methods is an ACP method", `"textDocument/hover"`}, nil},
		{"UTF-16", fixture("misc/utf16.jsonl"), ":1: ", []string{"UTF-16 text (little-endian), not UTF-8", "iconv -f UTF-16 -t UTF-8"}, []string{"binary"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, l := range findingLines(t, tc.trace) {
				if strings.HasPrefix(l, tc.trace+tc.line) {
					got = append(got, l)
				}
			}
			if len(got) != 1 {
				t.Fatalf("want one finding on %s%s, got %d:\n%s", tc.trace, tc.line, len(got), strings.Join(got, "\n"))
			}
			for _, w := range tc.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("finding lacks %q:\n%s", w, got[0])
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got[0], n) {
					t.Errorf("finding still says %q:\n%s", n, got[0])
				}
			}
		})
	}
}

// TestOneCauseOneFinding: an array payload is one finding, not one from
// the envelope schema and one from the payload schema.
func TestOneCauseOneFinding(t *testing.T) {
	n := 0
	for _, l := range findingLines(t, fixture("arcp/v1.1/invalid/schema-envelope.jsonl")) {
		if strings.Contains(l, ".jsonl:8: ") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("line 8: %d findings, want 1", n)
	}
}

// TestUnsupportedProtocolIsOneFinding: an MCP trace gives one finding, not a
// dozen ACP errors.
func TestUnsupportedProtocolIsOneFinding(t *testing.T) {
	for _, f := range []string{"misc/mcp.jsonl", "misc/jsonrpc-other.jsonl", "misc/utf16.jsonl"} {
		code, out, _ := runCLI(t, "", "--format", "json", fixture(f))
		if code != exitFindings || strings.Count(out, `"rule":`) != 1 {
			t.Errorf("%s: exit %d, want 1 and one finding:\n%s", f, code, out)
		}
	}
	// Forced, the same MCP trace is read as ACP.
	if code, out, _ := runCLI(t, "", "--protocol", "acp", "--format", "json", fixture("misc/mcp.jsonl")); code != exitFindings || strings.Contains(out, "MCP") {
		t.Errorf("--protocol acp: exit %d\n%s", code, out)
	}
}

// TestUsageMessages: a bad flag is one line and the hint (not the whole
// help), an unknown dialect names each dialect once without a doubled
// prefix, and no trace at all is one line too.
func TestUsageMessages(t *testing.T) {
	f := writeFile(t, "t.jsonl", acpInit+"\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus", f}, "validate: flag provided but not defined: -bogus\nRun 'validate --help' for usage.\n"},
		{[]string{"--max-line"}, "validate: flag needs an argument: -max-line\nRun 'validate --help' for usage.\n"},
		{nil, "validate: no trace given: name one or more files or folders, or - for standard input\nRun 'validate --help' for usage.\n"},
	} {
		code, out, errs := runCLI(t, "", tc.args...)
		if code != exitUsage || out != "" || errs != tc.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, %q", tc.args, code, out, errs, tc.want)
		}
	}
	code, _, errs := runCLI(t, "", "--dialect", "v9", f)
	if code != exitUsage || strings.Contains(errs, "validate: validate:") || strings.Count(errs, " v1,") != 1 || strings.Count(errs, "\n") != 1 {
		t.Errorf("unknown dialect: %q", errs)
	}
}

// TestPointerPrintedOnce: over every fixture, no message repeats the
// pointer it is printed after ("/payload/x: /payload/x needs …").
func TestPointerPrintedOnce(t *testing.T) {
	_, out, _ := runCLI(t, "", "--format", "json", filepath.Join("..", "..", "fixtures"))
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var f jsonFinding
		if err := json.Unmarshal([]byte(l), &f); err != nil || f.Rule == "" {
			continue
		}
		n++
		if len(f.Pointer) > 1 && (strings.HasPrefix(f.Message, f.Pointer) || strings.HasPrefix(f.Message, `"`+f.Pointer)) {
			t.Errorf("%s:%d: %s: %s", f.File, f.Line, f.Pointer, f.Message)
		}
	}
	if n < 100 {
		t.Fatalf("only %d findings over the fixtures", n)
	}
}
