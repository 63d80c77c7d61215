package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/report"
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

// helpFlags returns the flags a help text describes: each line that
// begins "  -name" or "  --name".
func helpFlags(help string) map[string]bool {
	names := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  --?([a-z][\w-]*)`).FindAllStringSubmatch(help, -1) {
		names[m[1]] = true
	}
	return names
}

// TestHelpTeaches: --help shows every mode with an example that uses only
// flags it describes, the check's flags in groups, every flag of the tap
// (those its own help, validate --help -- x, lists), every output format
// and every rule name.
func TestHelpTeaches(t *testing.T) {
	code, help, errs := runCLI(t, "", "--help")
	if code != exitOK || errs != "" {
		t.Fatalf("--help: exit %d, stderr %q", code, errs)
	}
	described := helpFlags(help)
	_, modes, ok := strings.Cut(help, "\nModes, one example each:\n")
	if !ok {
		t.Fatal("--help has no Modes section")
	}
	modes, _, _ = strings.Cut(modes, "\n\n")
	for _, mode := range []string{"check", "tap", "replay", "relay"} {
		m := regexp.MustCompile(`(?m)^  ` + mode + ` +(validate .*)$`).FindStringSubmatch(modes)
		if m == nil {
			t.Errorf("--help has no example of the %s mode", mode)
			continue
		}
		for _, f := range regexp.MustCompile(`(?:^| )--([a-z][\w-]*)`).FindAllStringSubmatch(strings.SplitN(m[1], " -- ", 2)[0], -1) {
			if !described[f[1]] {
				t.Errorf("the %s example uses --%s, which --help does not describe", mode, f[1])
			}
		}
	}
	for _, title := range []string{"Output:", "Reading traces:", "Rules and baselines:", "Tap, replay and relay flags (before --):", "Exit status:"} {
		if !strings.Contains(help, "\n"+title+"\n") {
			t.Errorf("--help has no group %q", title)
		}
	}
	// Every flag of the check is shown (printHelp shows the flags of no
	// group under "Other flags"), and each is in a group but --version.
	_, other, _ := strings.Cut(help, "\nOther flags:\n")
	other, _, _ = strings.Cut(other, "\n\n")
	if got := helpFlags(other); len(got) != 1 || !got["version"] {
		t.Errorf("flags in no group: %v, want only --version; give each a group in helpCheckGroups", got)
	}
	// Every tap flag, from the tap's own help.
	var tapHelp bytes.Buffer
	runTap(context.Background(), []string{"--help", "--", "x"}, strings.NewReader(""), io.Discard, &tapHelp, plugins{})
	tapFlags := helpFlags(tapHelp.String())
	if len(tapFlags) < 10 || !tapFlags["record"] || !tapFlags["listen"] {
		t.Fatalf("the tap's help lists %d flags: %v", len(tapFlags), tapFlags)
	}
	for name := range tapFlags {
		if !described[name] && !regexp.MustCompile(`--`+regexp.QuoteMeta(name)+`[,;\s]`).MatchString(help) {
			t.Errorf("--help does not show the tap's --%s", name)
		}
	}
	for _, f := range report.Formats() {
		if !strings.Contains(help, f.Name) {
			t.Errorf("--help does not name the output format %s", f.Name)
		}
	}
	for _, r := range validate.Rules() {
		if !regexp.MustCompile(`[ \n]` + regexp.QuoteMeta(r) + `[ \n]`).MatchString(help) {
			t.Errorf("--help does not name the rule %s", r)
		}
	}
}

// TestTapFlagOnCheck: a tap-only flag given to a check says which modes
// take it, not only that it is not defined.
func TestTapFlagOnCheck(t *testing.T) {
	code, out, errs := runCLI(t, "", "--record", "x.jsonl", "t.jsonl")
	if code != exitUsage || out != "" || !strings.Contains(errs, "--record is a flag of the tap, replay and relay") || !strings.Contains(errs, "-- AGENT_CMD") {
		t.Errorf("--record on a check: exit %d, stderr %q", code, errs)
	}
}
