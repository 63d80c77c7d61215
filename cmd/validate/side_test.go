package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two ACP traces of the fixtures: one with faults of both sides (3 of the
// agent's, 5 of the client's), one with only the client's.
var (
	bothSides  = filepath.Join("..", "..", "fixtures", "acp", "invalid", "02-request-schema.jsonl")
	clientOnly = filepath.Join("..", "..", "fixtures", "acp", "invalid", "05-not-initialized.jsonl")
)

// jsonRun decodes a --format json run: its findings and its summary.
func jsonRun(t *testing.T, out string) ([]jsonFinding, jsonSummary) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var fs []jsonFinding
	for _, l := range lines[:len(lines)-1] {
		var f jsonFinding
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatalf("finding line %q: %v", l, err)
		}
		fs = append(fs, f)
	}
	var sum jsonSummary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatalf("summary line: %v\n%s", err, out)
	}
	return fs, sum
}

// TestSideFilter: --side agent writes and counts only the agent's
// findings (and those that blame no side); the summary still gives every
// side's totals, the other side's marked as not counted.
func TestSideFilter(t *testing.T) {
	_, all := jsonRun(t, mustRun(t, exitFindings, "--format", "json", bothSides))
	agent, client := all.Summary.BySide["agent"], all.Summary.BySide["client"]
	if agent.Errors == 0 || client.Errors == 0 || all.Summary.Errors != agent.Errors+client.Errors+all.Summary.BySide[""].Errors {
		t.Fatalf("without --side: errors %d, by side %+v: want both sides' faults, adding up", all.Summary.Errors, all.Summary.BySide)
	}

	fs, sum := jsonRun(t, mustRun(t, exitFindings, "--format", "json", "--side", "agent", bothSides))
	for _, f := range fs {
		if f.Side != "agent" && f.Side != "" {
			t.Errorf("--side agent wrote a finding of the %s: %+v", f.Side, f)
		}
	}
	if len(fs) != agent.Errors+agent.Warnings+all.Summary.BySide[""].Errors+all.Summary.BySide[""].Warnings {
		t.Errorf("--side agent wrote %d findings, want the agent's %d", len(fs), agent.Errors+agent.Warnings)
	}
	if sum.Summary.Errors != agent.Errors+all.Summary.BySide[""].Errors || sum.Summary.BySide["client"] != client ||
		len(sum.Summary.Sides) != 1 || sum.Summary.Sides[0] != "agent" {
		t.Errorf("--side agent summary: errors %d, by side %+v, sides %v: want the agent's errors counted and the client's listed",
			sum.Summary.Errors, sum.Summary.BySide, sum.Summary.Sides)
	}
	n := 0
	for _, c := range sum.Summary.ByRule {
		n += c
	}
	if n != len(fs) {
		t.Errorf("by_rule counts %d findings, %d were written", n, len(fs))
	}

	// The client's faults alone fail no run of the agent, and show in the
	// text summary's per-side line only.
	out := mustRun(t, exitOK, "--side", "agent", clientOnly)
	if strings.Contains(out, ": error: ") || !strings.Contains(out, "by side: client 1 error, 0 warnings (not counted) (--side agent)") {
		t.Errorf("--side agent over the client's faults:\n%s", out)
	}
	if out := mustRun(t, exitFindings, clientOnly); !strings.Contains(out, "by side: client 1 error, 0 warnings\n") {
		t.Errorf("the text summary lacks the per-side totals:\n%s", out)
	}
	mustRun(t, exitFindings, "--side", "client", clientOnly)
	mustRun(t, exitOK, "--side", "runtime", clientOnly)

	if code, _, errs := runCLI(t, "", "--side", "server", clientOnly); code != exitUsage || !strings.Contains(errs, `unknown --side "server": want agent, client, consumer or runtime`) {
		t.Errorf("--side server: exit %d, stderr %q", code, errs)
	}
}

// TestSideSARIFAndMerge: SARIF's results are the side's findings and its
// run's properties the per-side totals; JSON shards merge them.
func TestSideSARIFAndMerge(t *testing.T) {
	out := mustRun(t, exitFindings, "--format", "sarif", "--side", "client", bothSides)
	var log struct {
		Runs []struct {
			Results []struct {
				Properties struct {
					Side string `json:"side"`
				} `json:"properties"`
			} `json:"results"`
			Properties struct {
				BySide map[string]struct{ Errors int } `json:"bySide"`
				Sides  []string                        `json:"sides"`
			} `json:"properties"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("not a SARIF log: %v\n%s", err, out)
	}
	run := log.Runs[0]
	for _, r := range run.Results {
		if r.Properties.Side == "agent" {
			t.Errorf("--side client: a result of the agent")
		}
	}
	if run.Properties.BySide["agent"].Errors == 0 || run.Properties.BySide["client"].Errors == 0 || len(run.Properties.Sides) != 1 {
		t.Errorf("SARIF run properties %+v: want both sides' totals and the side kept", run.Properties)
	}

	dir := t.TempDir()
	var shards []string
	for _, k := range []string{"1/2", "2/2"} {
		p := filepath.Join(dir, "shard-"+k[:1]+".json")
		_, o, _ := runCLI(t, "", "--progress", "never", "--format", "json", "--side", "agent", "--shard", k, bothSides, clientOnly)
		if err := os.WriteFile(p, []byte(o), 0o644); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, p)
	}
	_, one := jsonRun(t, mustRun(t, exitFindings, "--format", "json", "--side", "agent", bothSides, clientOnly))
	_, merged := jsonRun(t, mustRun(t, exitFindings, append([]string{"--merge"}, shards...)...))
	if merged.Summary.Errors != one.Summary.Errors || merged.Summary.BySide["client"] != one.Summary.BySide["client"] || len(merged.Summary.Sides) != 1 {
		t.Errorf("merged shards: errors %d, by side %+v; one run: errors %d, by side %+v", merged.Summary.Errors, merged.Summary.BySide, one.Summary.Errors, one.Summary.BySide)
	}
}

// mustRun runs the command and wants the exit status code.
func mustRun(t *testing.T, code int, args ...string) string {
	t.Helper()
	got, out, errs := runCLI(t, "", append([]string{"--progress", "never"}, args...)...)
	if got != code {
		t.Fatalf("validate %s: exit %d, want %d\n%s%s", strings.Join(args, " "), got, code, out, errs)
	}
	return out
}
