package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestVersionFlag: --version prints one line naming the command, its
// module and version, and exits 0 without reading any trace (even one
// that is named).
func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version"}, {"--version", "no-such-trace.jsonl"}} {
		code, out, errs := runCLI(t, "", args...)
		if code != exitOK || errs != "" {
			t.Fatalf("%q: exit %d, stderr %q", args, code, errs)
		}
		if !regexp.MustCompile(`^validate github\.com/agentproto/agentproto \S+.*, go1\.\d+.*\n$`).MatchString(out) {
			t.Errorf("%q: %q, want validate, the module, its version and the Go version on one line", args, out)
		}
	}
}

// TestFlagsAfterPaths: flags may come after the paths, or between them,
// as they may before; "-" stays standard input wherever it is; a misspelt
// flag after a path is a usage error naming it, not a file that cannot be
// opened.
func TestFlagsAfterPaths(t *testing.T) {
	good := writeFile(t, "good.jsonl", strings.Join([]string{acpInit, acpInitResp, acpNew, acpNewResp, acpExtra}, "\n"))
	bad := writeFile(t, "bad.jsonl", strings.Join([]string{acpInit, acpInitResp, acpNew, acpNewResp, acpBadType}, "\n"))
	// jsonSummary returns the files and errors the summary object counts.
	jsonSummary := func(t *testing.T, out string) map[string]any {
		t.Helper()
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var last struct {
			Summary struct{ Files, Errors int }
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
			t.Fatalf("last line is not JSON: %v\n%.500s", err, out)
		}
		return map[string]any{"files": float64(last.Summary.Files), "errors": float64(last.Summary.Errors)}
	}
	for _, args := range [][]string{
		{"--format", "json", good, bad},
		{good, bad, "--format", "json"},
		{good, "--format=json", bad},
		{good, "--format", "json", bad, "--workers", "1"},
	} {
		code, out, errs := runCLI(t, "", args...)
		if code != exitFindings || errs != "" {
			t.Fatalf("%q: exit %d, want 1 (the bad trace)\n%s", args, code, errs)
		}
		sum := jsonSummary(t, out)
		if sum["files"] != 2.0 || sum["errors"] != 1.0 {
			t.Errorf("%q: summary %v, want 2 files and 1 error", args, sum)
		}
	}
	// A bool flag after the path: --strict makes a warning fail.
	code, _, _ := runCLI(t, "", good, "--strict")
	if code != exitOK {
		t.Errorf("good trace, --strict after it: exit %d, want 0", code)
	}
	// Standard input after a flag that follows it.
	code, out, errs := runCLI(t, strings.Join([]string{acpInit, acpInitResp, acpNew, acpNewResp, acpBadType}, "\n"), "-", "--format", "json")
	if code != exitFindings || jsonSummary(t, out)["files"] != 1.0 {
		t.Fatalf("- --format json: exit %d\n%.500s%s", code, out, errs)
	}
	// A trailing "--" ends the flags.
	if code, _, errs := runCLI(t, "", good, "--summary=false", "--"); code != exitOK || errs != "" {
		t.Errorf("trailing --: exit %d, stderr %q", code, errs)
	}
	code, out, errs = runCLI(t, "", good, "--fromat", "json")
	if code != exitUsage || out != "" || !strings.Contains(errs, "flag provided but not defined: -fromat") || strings.Contains(errs, "cannot open") {
		t.Errorf("misspelt flag after a path: exit %d, stderr %q", code, errs)
	}
}
