package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate"
)

// htmlTrace checks a fixture into an HTML page, as --format html does,
// and returns the page's data of the trace.
func htmlTrace(t *testing.T, path string) (tr struct {
	Peers  map[string]string `json:"peers"`
	Groups []string          `json:"groups"`
	Lanes  [2]string         `json:"lanes"`
	Rows   [][]any           `json:"rows"`
	Lives  [][]any           `json:"lives"`
}) {
	t.Helper()
	path = filepath.Join("..", "..", "..", "fixtures", path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e, err := validate.New(validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	h := NewHTML(&page, Options{})
	sum, err := e.Check(context.Background(), path, f, validate.FileOptions{Message: h.Records(path)}, h.Finding)
	if err != nil {
		t.Fatal(err)
	}
	h.EndTrace(path, sum)
	h.End(Totals{Summary: sum})
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(page.String(), "\n") {
		if strings.HasPrefix(l, `{"n":1,`) {
			if err := json.Unmarshal([]byte(l), &tr); err != nil {
				t.Fatal(err)
			}
			return tr
		}
	}
	t.Fatalf("%s: the page holds no trace", path)
	return tr
}

// lives lists a page's lifecycles as "kind id: LINE state | LINE state…".
func lives(lv [][]any) []string {
	var out []string
	for _, l := range lv {
		var steps []string
		for _, s := range l[3].([]any) {
			s := s.([]any)
			steps = append(steps, fmt.Sprintf("%v %v", s[0], s[1]))
		}
		out = append(out, fmt.Sprintf("%v %v: %s", l[0], l[1], strings.Join(steps, " | ")))
	}
	return out
}

// TestHTMLShowsWhatEachProtocolReads: the page of a recorded trace of
// each protocol shows what the protocol's rules read in its messages (each
// rules package annotates: protocol.Annotating), its implementations, its
// sessions, jobs or runs, its lifecycles and its lanes.
func TestHTMLShowsWhatEachProtocolReads(t *testing.T) {
	acp := htmlTrace(t, "acp/valid/02-refactor-with-permission.jsonl")
	if acp.Peers["client"] != "Acme Editor (acme-editor) 2.3.1" || acp.Peers["agent"] != "Kestrel Coding Agent (kestrel) 0.9.2" {
		t.Errorf("acp peers %v", acp.Peers)
	}
	if strings.Join(acp.Groups, ",") != "session sess_9HX3TB0QWE5C" {
		t.Errorf("acp groups %q", acp.Groups)
	}
	got := strings.Join(lives(acp.Lives), "\n")
	for _, want := range []string{
		"tool call call_02: 10 tool_call pending: Rename Fetch to Get in store.go | 13 tool_call_update in_progress | 16 tool_call_update completed",
		"permission line 11: 11 asked: Rename Fetch to Get in store.go | 12 answered: selected allow-always",
		"tool call call_04: 21 tool_call pending: Delete internal/ledger/fetch_legacy.go | 24 tool_call_update failed",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("acp lifecycles:\n%s\nwant among them %q", got, want)
		}
	}
	if acp.Lanes != [2]string{"client", "agent"} {
		t.Errorf("acp lanes %q", acp.Lanes)
	}

	arcp := htmlTrace(t, "arcp/recordings/go-sdk/02_job_all_event_kinds.jsonl")
	if arcp.Peers["client"] != "arcp-trace-recorder 0.1.0" || arcp.Peers["agent"] != "arcp-go-runtime 1.0.0" {
		t.Errorf("arcp peers %v", arcp.Peers)
	}
	// job.accepted (line 4) answers the job.submit of line 3 by its
	// trace_id, and the job's lifecycle begins there.
	for _, r := range arcp.Rows {
		if r[1].(float64) == 4 && r[5].(float64) != 3 {
			t.Errorf("arcp line 4 answers line %v, want 3", r[5])
		}
	}
	if got := strings.Join(lives(arcp.Lives), "\n"); !strings.Contains(got, "job job_01M80FF6W83CMYDTY3SCCJEQJM: 3 job.submit | 4 job.accepted |") {
		t.Errorf("arcp lifecycles:\n%s", got)
	}
	if arcp.Lanes != [2]string{"client", "runtime"} {
		t.Errorf("arcp lanes %q", arcp.Lanes)
	}

	arcan := htmlTrace(t, "arcan/valid/tool-run.jsonl")
	got = strings.Join(lives(arcan.Lives), "\n")
	for _, want := range []string{"run 3d9f6b2e-7c41-4a8e-b5d2-91e07f3c6a58: ", "tool call toolu_01HQ3V8rZk2mW7: "} {
		if !strings.Contains(got, want) {
			t.Errorf("arcan lifecycles:\n%s\nwant %q", got, want)
		}
	}
	if !strings.HasPrefix(arcan.Peers["agent"], "Arcan agent loop, provider ") {
		t.Errorf("arcan peers %v", arcan.Peers)
	}
	if arcan.Lanes != [2]string{"consumer", "agent loop"} {
		t.Errorf("arcan lanes %q", arcan.Lanes)
	}
	for _, r := range arcan.Rows {
		if r[2] != "a" {
			t.Errorf("arcan line %v drawn in lane %q, want the agent loop's", r[1], r[2])
		}
	}
}
