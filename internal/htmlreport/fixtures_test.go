package htmlreport

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// view returns the data of the report of one fixture.
func fixtureView(t *testing.T, path string) *jsTrace {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, page := build(t, Options{}, path, string(b))
	d := pageData(t, page)
	return d.Traces[0]
}

// steps lists a lifecycle's steps as "LINE state".
func steps(tr *jsTrace, kind, id string) []string {
	for _, l := range tr.Lives {
		if l[0] == kind && l[1] == id {
			var out []string
			for _, s := range l[3].([]any) {
				s := s.([]any)
				out = append(out, fmt.Sprintf("%v %v", s[0], s[1]))
			}
			return out
		}
	}
	return nil
}

func answers(tr *jsTrace, line int) int {
	for _, r := range tr.Rows {
		if int(r[1].(float64)) == line {
			return int(r[5].(float64))
		}
	}
	return -1
}

// TestFixtureViews: on recorded traffic of each protocol, the report names
// the implementations, pairs requests and answers, and follows terminals,
// jobs, runs and tool calls from start to end.
func TestFixtureViews(t *testing.T) {
	acp := fixtureView(t, "../../fixtures/acp/sdk/v1/04-terminals-fs.jsonl")
	if acp.Peers["client"] != "Recorder Client (recorder-client) 1.0.0" || acp.Peers["agent"] != "Recorder Agent (recorder-agent) 1.0.0" {
		t.Errorf("acp peers %v", acp.Peers)
	}
	// Both sides use id 3: the terminal/create of line 15 is answered
	// on line 16, the prompt of line 7 later.
	if a := answers(acp, 16); a != 15 {
		t.Errorf("line 16 answers line %d, want 15", a)
	}
	want := []string{"15 create: npm", "16 created term-1", "18 terminal/output", "20 terminal/wait_for_exit", "22 terminal/output", "24 terminal/release"}
	if got := steps(acp, "terminal", "term-1"); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("terminal term-1: %q, want %q", got, want)
	}

	v2 := fixtureView(t, "../../fixtures/acp/sdk/v2/04-terminals-background.jsonl")
	if v2.Peers["client"] != "Recorder Client (recorder-client) 2.0.0" || v2.Peers["agent"] != "Recorder Agent (recorder-agent) 2.0.0" {
		t.Errorf("acp v2 peers %v", v2.Peers)
	}

	arcp := fixtureView(t, "../../fixtures/arcp/recordings/go-sdk/02_job_all_event_kinds.jsonl")
	if arcp.Peers["client"] != "arcp-trace-recorder 0.1.0" || arcp.Peers["agent"] != "arcp-go-runtime 1.0.0" {
		t.Errorf("arcp peers %v", arcp.Peers)
	}
	if a, b := answers(arcp, 2), answers(arcp, 4); a != 1 || b != 3 {
		t.Errorf("welcome answers line %d (want 1), job.accepted line %d (want 3, by trace_id)", a, b)
	}
	job := steps(arcp, "job", "job_01M80FF6W83CMYDTY3SCCJEQJM")
	if len(job) < 4 || job[0] != "3 job.submit" || job[1] != "4 job.accepted" || !strings.HasSuffix(job[len(job)-1], " job.result") {
		t.Errorf("job lifecycle %q, want job.submit, job.accepted, … job.result", job)
	}

	rfc := fixtureView(t, "../../fixtures/arcp/rfc0001/valid/challenge-handshake.jsonl")
	if rfc.Peers["client"] != "example-client 1.4.2, edge-agent 2.0.0" || rfc.Peers["agent"] != "arcp-rs 0.7.1" {
		t.Errorf("arcp rfc0001 peers %v", rfc.Peers)
	}

	arcan := fixtureView(t, "../../fixtures/arcan/valid/tool-run.jsonl")
	run := steps(arcan, "run", "3d9f6b2e-7c41-4a8e-b5d2-91e07f3c6a58")
	if len(run) < 3 || !strings.HasSuffix(run[0], " run_started") || !strings.Contains(run[len(run)-1], " run_finished") {
		t.Errorf("run lifecycle %q", run)
	}
	call := steps(arcan, "tool call", "toolu_01HQ3V8rZk2mW7")
	if len(call) != 2 || !strings.HasSuffix(call[0], "tool_call_requested: bash") || !strings.HasSuffix(call[1], "tool_call_completed: bash") {
		t.Errorf("tool call lifecycle %q", call)
	}
	for _, r := range arcan.Rows {
		if r[2] != "a" {
			t.Errorf("an Arcan event in the %q lane, want the agent's", r[2])
		}
	}
}
