package validate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOfficialACPSDKTraffic runs the traffic recorded from the official ACP
// SDK (fixtures/acp/sdk: the stable, unstable, v2 and v2 unstable
// entrypoints) with no options, as a user's CI would: not one error, with
// or without the direction sidecars, and each trace read as the version its
// initialize names.
func TestOfficialACPSDKTraffic(t *testing.T) {
	e := testEngine(t)
	want := map[string]string{"v1": "v1", "v1-unstable": "v1", "v2": "v2", "v2-unstable": "v2"}
	files, _ := filepath.Glob(filepath.Join(fixturesDir, "acp", "sdk", "*", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no recorded SDK traffic under fixtures/acp/sdk")
	}
	for _, p := range files {
		ep := filepath.Base(filepath.Dir(p))
		for _, withDir := range []bool{true, false} {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			var fo FileOptions
			if withDir {
				d, err := os.Open(sidecar(p, ".dir"))
				if err != nil {
					t.Fatal(err)
				}
				fo.Directions = d
				defer d.Close()
			}
			var got []string
			sum, err := e.Check(context.Background(), p, f, fo, func(fd Finding) {
				if fd.Severity == Error {
					got = append(got, fmt.Sprintf("%d %s %s", fd.Line, fd.Rule, fd.Pointer))
				}
			})
			f.Close()
			name := filepath.Join(ep, filepath.Base(p))
			if len(got) > 0 {
				t.Errorf("%s, sidecar %v: errors %q, want none", name, withDir, got)
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := sum.Detected[0]; d.Protocol != "acp" || d.Dialect != want[ep] || !strings.Contains(d.Note, "initialize response protocolVersion") {
				t.Errorf("%s: read as %s %s (%s), want acp %s from its initialize", p, d.Protocol, d.Dialect, d.Note, want[ep])
			}
		}
	}
}

// TestRealAgentsTraffic runs the traffic of real ACP agents
// (fixtures/acp/agents: shipping agents from npm, driven by a plain v1
// client) with no options: its errors are exactly the agents' true
// violations of the spec listed here, each with the reason; anything else
// is a false error on real traffic. Warnings (unstable additions, members
// earlier releases defined) are advice and not pinned.
func TestRealAgentsTraffic(t *testing.T) {
	e := testEngine(t)
	want := map[string][]string{
		// session/load's and session/resume's results define modes,
		// configOptions and _meta; no release of ACP had sessionId there
		// (acp.ext.no-root-fields, a MUST NOT).
		"claude-agent-acp/05-load.jsonl":         {"8 custom-member /result/sessionId"},
		"claude-agent-acp/06-resume-close.jsonl": {"5 custom-member /result/sessionId"},
		"claude-code-acp/06-resume-close.jsonl":  {"4 custom-member /result/sessionId"},
		// A turn the client cancelled ends with stopReason "cancelled",
		// never "end_turn" nor an error (acp.prompt.cancelled-stop-reason,
		// acp.prompt.cancel-no-error).
		"opencode/03-prompt.jsonl":        {"9 cancellation /result/stopReason"},
		"opencode/04-prompt-cancel.jsonl": {"8 cancellation /error"},
	}
	files, _ := filepath.Glob(filepath.Join(fixturesDir, "acp", "agents", "*", "*.jsonl"))
	if len(files) < 20 {
		t.Fatalf("%d real-agent traces under fixtures/acp/agents, want at least 20", len(files))
	}
	for _, p := range files {
		rel := filepath.ToSlash(strings.TrimPrefix(p, filepath.Join(fixturesDir, "acp", "agents")+string(filepath.Separator)))
		var got []string
		for _, f := range checkFile(t, e, p) {
			if f.Severity == Error {
				got = append(got, fmt.Sprintf("%d %s %s", f.Line, f.Rule, f.Pointer))
			}
		}
		if d := cmp.Diff(want[rel], got); d != "" {
			t.Errorf("%s: errors differ from the agent's known violations (-want +got):\n%s", rel, d)
		}
		delete(want, rel)
	}
	for rel := range want {
		t.Errorf("%s: no such trace", rel)
	}
}
