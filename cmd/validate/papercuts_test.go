package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate"
)

var (
	validACP = filepath.Join("..", "..", "fixtures", "acp", "valid")
	oneValid = filepath.Join(validACP, "01-code-review.jsonl")
)

// TestListRulesViews: the catalogue's table opens on its first heading,
// each version with its column names; --list-rules --rules lists every
// rule once under a heading, with a line of what it catches.
func TestListRulesViews(t *testing.T) {
	out := mustRun(t, exitOK, "--list-rules", "--protocol", "acp", "--dialect", "v1")
	if !strings.HasPrefix(out, "acp v1\n  requirement ") || !strings.Contains(out, " level ") || !strings.Contains(out, " citation\n") {
		t.Errorf("--list-rules does not open on its heading and column names:\n%.300s", out)
	}
	out = mustRun(t, exitOK, "--list-rules", "--rules")
	for _, h := range []string{"rules of every protocol", "\nacp rules", "\narcp rules", "\narcan rules"} {
		if !strings.Contains(out, h) {
			t.Errorf("--list-rules --rules lacks the heading %q", h)
		}
	}
	for _, r := range append(validate.Rules(), "deviation:<id>") {
		n := 0
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 2 && f[0] == r {
				n++
			}
		}
		if n != 1 {
			t.Errorf("--list-rules --rules lists rule %q %d times, want once with its description", r, n)
		}
	}
	out = mustRun(t, exitOK, "--list-rules", "--rules", "--protocol", "arcan", "--format", "json")
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r ruleRow
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Rule == "" || r.Summary == "" || r.Protocol != "" && r.Protocol != "arcan" {
			t.Errorf("--list-rules --rules --protocol arcan --format json: %q (%v)", l, err)
		}
	}
	if code, _, errs := runCLI(t, "", "--rules"); code != exitUsage || !strings.Contains(errs, "--list-rules --rules") {
		t.Errorf("--rules alone: exit %d, stderr %q", code, errs)
	}
}

// TestCleanRunShort: a clean run's text output starts with its summary
// (no blank line before it) and keeps the messages by type for -v.
func TestCleanRunShort(t *testing.T) {
	out := mustRun(t, exitOK, validACP)
	if !strings.HasPrefix(out, "summary: ") || strings.Contains(out, "messages by type") {
		t.Errorf("a clean run's output:\n%s", out)
	}
	if out := mustRun(t, exitOK, "-v", validACP); !strings.Contains(out, "messages by type") {
		t.Errorf("-v lacks the messages by type:\n%s", out)
	}
	if out := mustRun(t, exitFindings, clientOnly); !strings.Contains(out, "[not-initialized") || !strings.Contains(out, "]\n\nsummary: ") {
		t.Errorf("findings and the summary are not set apart by a blank line:\n%s", out)
	}
}

// TestErrorsOnceAndPathsOnce: a path that cannot be read is said once
// (text: as its io finding; other formats: also on stderr), and a trace
// named twice, however, is checked once.
func TestErrorsOnceAndPathsOnce(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.jsonl")
	code, out, errs := runCLI(t, "", "--progress", "never", missing)
	if n := strings.Count(out+errs, "no such file or directory"); code != exitUsage || n != 1 {
		t.Errorf("a missing path: exit %d, said %d times:\n%s%s", code, n, out, errs)
	}
	if code, _, errs := runCLI(t, "", "--progress", "never", "--format", "json", missing); code != exitUsage || !strings.Contains(errs, "no such file or directory") {
		t.Errorf("--format json: a missing path: exit %d, stderr %q", code, errs)
	}

	rel, err := filepath.Rel(".", oneValid)
	if err != nil {
		t.Fatal(err)
	}
	out = mustRun(t, exitOK, oneValid, "./"+rel, oneValid+"/", filepath.Dir(oneValid)+"/../valid/"+filepath.Base(oneValid))
	if !strings.HasPrefix(out, "summary: 1 file,") {
		t.Errorf("one trace named four ways:\n%s", out)
	}
	out = mustRun(t, exitOK, validACP, validACP+"/")
	if first, want := strings.SplitN(out, "\n", 2)[0], fmt.Sprintf("%d files", validTraces(t)); !strings.Contains(first, want) {
		t.Errorf("one folder named twice: %s, want %s", first, want)
	}
}

// TestWriteBaselineSummary: after --write-baseline (whose findings go to
// the file only, in text), the summary does not list a trace with findings
// as having none.
func TestWriteBaselineSummary(t *testing.T) {
	b := filepath.Join(t.TempDir(), "known.json")
	out := mustRun(t, exitOK, "--write-baseline", b, clientOnly)
	if strings.Contains(out, "no findings") || !strings.Contains(out, "1 error") {
		t.Errorf("--write-baseline summary:\n%s", out)
	}
	if _, err := os.Stat(b); err != nil {
		t.Fatal(err)
	}
}

// TestFolderCoverage: --coverage over a folder gives one combined view
// per version (each row once, with the traces that violated or exercised
// it); -v adds each trace's; the summary's hint says where they are.
func TestFolderCoverage(t *testing.T) {
	out := mustRun(t, exitOK, "--coverage", validACP)
	if !strings.Contains(out, fmt.Sprintf("\ncoverage of %d traces (acp v1), combined:\n", validTraces(t))) || strings.Contains(out, "\ncoverage of "+validACP) {
		t.Errorf("--coverage over a folder:\n%s", out)
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && (f[0] == "violated" || f[0] == "exercised") || len(f) >= 3 && f[0] == "not" {
			id := f[1]
			if f[0] == "not" {
				id = f[2]
			}
			if seen[id] {
				t.Errorf("row %s listed twice in the combined view", id)
			}
			seen[id] = true
		}
	}
	if len(seen) == 0 {
		t.Errorf("the combined view lists no row:\n%s", out)
	}
	out = mustRun(t, exitOK, "--coverage", "-v", validACP)
	if !strings.Contains(out, "\ncoverage of "+oneValid) || !strings.Contains(out, "(listed below)") || strings.Contains(out, "--coverage lists them") {
		t.Errorf("--coverage -v over a folder lacks each trace's view or says --coverage lists them:\n%.2000s", out)
	}
	if out := mustRun(t, exitOK, "--coverage", oneValid); !strings.Contains(out, "\ncoverage of "+oneValid) || strings.Contains(out, "combined") {
		t.Errorf("--coverage of one trace:\n%s", out)
	}
}

// validTraces is the number of traces in validACP.
func validTraces(t *testing.T) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(validACP, "*.jsonl"))
	if err != nil || len(m) < 2 {
		t.Fatalf("%s holds %d traces (%v), want a folder of them", validACP, len(m), err)
	}
	return len(m)
}

// TestExplainEitherSide: a requirement that binds either peer says so in
// words.
func TestExplainEitherSide(t *testing.T) {
	out := mustRun(t, exitOK, "--explain", "acp.ext.no-root-fields")
	if !strings.Contains(out, "MUST NOT, binds either side") || strings.Contains(out, "the either") {
		t.Errorf("--explain acp.ext.no-root-fields:\n%s", out)
	}
}
