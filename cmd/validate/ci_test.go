package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/report"
)

// copyFixtures copies the named fixture files (relative to ../../fixtures)
// into dir, keeping their base names.
func copyFixtures(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(n)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIOFindingInEveryFormat: a missing path and a folder with no trace are
// io findings in every output format (the reason was only on stderr, and
// --format json said "errors":0), with exit status 2.
func TestIOFindingInEveryFormat(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.jsonl")
	emptyDir := t.TempDir()
	for _, format := range []string{"text", "json", "github", "sarif", "junit"} {
		t.Run(format, func(t *testing.T) {
			code, out, errs := runCLI(t, "", "--format", format, missing, emptyDir)
			if code != exitUsage {
				t.Fatalf("exit %d, want 2\n%s%s", code, out, errs)
			}
			for _, want := range []string{"no such file or directory", "the folder holds no trace"} {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			switch format {
			case "json":
				var sum jsonSummary
				lines := strings.Split(strings.TrimSpace(out), "\n")
				if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || sum.Summary.Errors != 2 || sum.Summary.ByRule["io"] != 2 {
					t.Errorf("summary %s: want 2 io errors", lines[len(lines)-1])
				}
			case "github":
				if strings.Count(out, "::error file=") != 2 || !strings.Contains(out, "title=io::") {
					t.Errorf("want two io annotations:\n%s", out)
				}
			case "sarif":
				log := decodeSARIF(t, out)
				if log.Runs[0].Invocations[0].ExecutionSuccessful || len(log.Runs[0].Results) != 2 {
					t.Errorf("want 2 results and an unsuccessful invocation:\n%s", out)
				}
			case "junit":
				suites := decodeJUnit(t, out)
				if len(suites.Suites) != 2 || suites.Suites[0].Errors != 1 || suites.Suites[1].Errors != 1 {
					t.Errorf("want 2 suites with one error each:\n%s", out)
				}
			}
		})
	}
}

// TestCorruptGzipIsAnIOFindingToo: the path that already gave a finding
// (corrupt compressed data) and an unopenable path agree.
func TestCorruptGzipIsAnIOFindingToo(t *testing.T) {
	p := writeFile(t, "bad.jsonl.gz", "\x1f\x8b\x08\x00garbage")
	code, out, _ := runCLI(t, "", "--format", "json", p)
	if code != exitUsage || !strings.Contains(out, `"rule":"io"`) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// TestFolderIsWalked: a folder is walked for traces; sidecars (.dir, .conn,
// .expect), README files, other kinds of file and hidden folders are not
// read as traces, and a glob that names the sidecars does not report them.
func TestFolderIsWalked(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	hidden := filepath.Join(root, ".git")
	for _, d := range []string{sub, hidden} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFixtures(t, root, "acp/valid/01-code-review.jsonl", "acp/valid/01-code-review.dir")
	copyFixtures(t, sub, "acp/invalid/01-session-update-schema.jsonl", "acp/invalid/01-session-update-schema.dir", "acp/invalid/01-session-update-schema.expect", "misc/README.md")
	for name, content := range map[string]string{
		filepath.Join(root, "notes.yaml"):      "a: b\n",
		filepath.Join(hidden, "x.jsonl"):       "not json\n",
		filepath.Join(root, "capture"):         acpInit + "\n" + acpInitResp + "\n", // no extension, looks like a trace
		filepath.Join(root, "LICENSE"):         "text\n",
		filepath.Join(sub, "stray.conn"):       "1\n", // a sidecar without its trace is still a sidecar
		filepath.Join(root, "events.sse"):      "data: {\"part_type\":\"run_started\",\"run_id\":\"r\"}\n\n",
		filepath.Join(root, "more.ndjson.txt"): "ignored\n",
		filepath.Join(root, "bundle.tar.gz"):   "\x1f\x8b\x08\x00not a trace",
	} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := runCLI(t, "", "--format", "json", root)
	var det []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.Contains(l, `"rule":"json"`) {
			t.Errorf("a non-trace was read as a trace: %s", l)
		}
	}
	var sum jsonSummary
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatal(err)
	}
	for _, d := range sum.Summary.Detected {
		rel, _ := filepath.Rel(root, d.File)
		det = append(det, filepath.ToSlash(rel))
	}
	want := "01-code-review.jsonl capture events.sse sub/01-session-update-schema.jsonl"
	if strings.Join(det, " ") != want || sum.Summary.Files != 4 {
		t.Fatalf("files read: %v (%d), want %s\n%s", det, sum.Summary.Files, want, errs)
	}
	if code != exitFindings {
		t.Fatalf("exit %d, want 1 (the invalid trace)", code)
	}

	// The shell's expansion of sub/*: sidecars and the README are named
	// but are not traces.
	names, _ := filepath.Glob(filepath.Join(sub, "*"))
	code, out, _ = runCLI(t, "", names...)
	if code != exitFindings || !strings.Contains(out, "summary: 1 file,") || strings.Contains(out, "[json]") {
		t.Fatalf("glob of a folder with sidecars: exit %d\n%s", code, out)
	}
}

// TestRepositoryFixturesWalk: validate fixtures/acp/valid (refused before,
// "is a directory") reads every trace of the folder and no sidecar.
func TestRepositoryFixturesWalk(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "acp", "valid")
	traces, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	code, out, errs := runCLI(t, "", dir)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if want := "summary: " + plural(len(traces), "file") + ","; !strings.Contains(out, want) {
		t.Fatalf("want %q:\n%s", want, out)
	}
}

type sarifLog struct {
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name  string `json:"name"`
				Rules []struct {
					ID               string    `json:"id"`
					ShortDescription sarifText `json:"shortDescription"`
					Help             struct {
						Text string `json:"text"`
					} `json:"help"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string          `json:"ruleId"`
			RuleIndex int             `json:"ruleIndex"`
			Level     string          `json:"level"`
			Message   sarifText       `json:"message"`
			Locations []sarifLocation `json:"locations"`
		} `json:"results"`
		Invocations []struct {
			ExecutionSuccessful bool `json:"executionSuccessful"`
		} `json:"invocations"`
	} `json:"runs"`
}

// decodeSARIF decodes a SARIF log and checks the structure SARIF 2.1.0
// requires of it (and what code scanning reads): version, one run with a
// named driver, each result's ruleIndex pointing at its rule, a level, a
// message, a file URI, lines from 1.
func decodeSARIF(t *testing.T, out string) sarifLog {
	t.Helper()
	var log sarifLog
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&log); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("data after the SARIF log:\n%s", out)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name == "" || len(log.Runs[0].Invocations) != 1 {
		t.Fatalf("not a SARIF 2.1.0 log with one run:\n%s", out)
	}
	run := log.Runs[0]
	seen := map[string]bool{}
	for _, r := range run.Tool.Driver.Rules {
		if seen[r.ID] || r.ShortDescription.Text == "" || r.Help.Text == "" {
			t.Errorf("rule %q repeated or undescribed", r.ID)
		}
		seen[r.ID] = true
	}
	for _, r := range run.Results {
		if r.RuleIndex < 0 || r.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result of %q: ruleIndex %d points elsewhere", r.RuleID, r.RuleIndex)
		}
		if r.Level != "error" && r.Level != "warning" || r.Message.Text == "" || len(r.Locations) != 1 || r.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" {
			t.Errorf("result incomplete: %+v", r)
		}
		if reg := r.Locations[0].PhysicalLocation.Region; reg != nil && reg.StartLine < 1 {
			t.Errorf("startLine %d", reg.StartLine)
		}
	}
	return log
}

// sarifSchemaPath is where npm ci --prefix cmd/validate/testdata/sarif puts
// the SARIF 2.1.0 JSON Schema.
const sarifSchemaPath = "testdata/sarif/node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"

// TestSARIFOutput: --format sarif gives one SARIF 2.1.0 log, valid by the
// SARIF 2.1.0 JSON Schema, with rules described from the README, results
// at file and line, and the JSON pointer as a logical location.
func TestSARIFOutput(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "acp", "invalid")
	code, out, errs := runCLI(t, "", "--format", "sarif", dir, filepath.Join("..", "..", "fixtures", "misc"), filepath.Join(t.TempDir(), "missing.jsonl"))
	if code != exitUsage {
		t.Fatalf("exit %d, want 2 (one missing file)\n%s", code, errs)
	}
	log := decodeSARIF(t, out)
	run := log.Runs[0]
	if len(run.Results) < 20 {
		t.Fatalf("only %d results", len(run.Results))
	}
	found := false
	for _, r := range run.Results {
		l := r.Locations[0]
		if r.RuleID == "schema" && l.PhysicalLocation.ArtifactLocation.URI == "../../fixtures/acp/invalid/01-session-update-schema.jsonl" &&
			l.PhysicalLocation.Region != nil && l.PhysicalLocation.Region.StartLine == 6 &&
			len(l.LogicalLocations) == 1 && l.LogicalLocations[0].FullyQualifiedName == "/params/update" {
			found = true
		}
	}
	if !found {
		t.Errorf("no schema result at 01-session-update-schema.jsonl:6 /params/update")
	}

	b, err := os.ReadFile(sarifSchemaPath)
	if err != nil {
		t.Skipf("the SARIF 2.1.0 schema is not installed (%v): run npm ci --prefix cmd/validate/testdata/sarif to check the output against it", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("the SARIF output breaks the SARIF 2.1.0 schema: %v", err)
	}
	// A clean run is a valid log too.
	_, clean, _ := runCLI(t, "", "--format", "sarif", filepath.Join("..", "..", "fixtures", "acp", "valid", "01-code-review.jsonl"))
	if inst, err := jsonschema.UnmarshalJSON(strings.NewReader(clean)); err != nil || sch.Validate(inst) != nil {
		t.Fatalf("a run without findings is not a valid SARIF log:\n%s", clean)
	}
}

// TestEveryRuleIsDescribed: the SARIF rules' help comes from the rules'
// RuleDocs (as the README's rule table does), which must describe every
// rule.
func TestEveryRuleIsDescribed(t *testing.T) {
	help := report.Catalogue{}.Help()
	for _, r := range append(validate.Rules(), "deviation:x") {
		if d, ok := help.Lookup(r); !ok || d.Text == "" || d.Severity == "" {
			t.Errorf("no RuleDoc describes rule %q", r)
		}
	}
}

type junitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	Suites  []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Cases    []struct {
			Name     string `xml:"name,attr"`
			Failures []struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Errors []struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func decodeJUnit(t *testing.T, out string) junitSuites {
	t.Helper()
	var s junitSuites
	if err := xml.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("not XML: %v\n%s", err, out)
	}
	for _, su := range s.Suites {
		if su.Tests != len(su.Cases) || len(su.Cases) != 1 || su.Failures != len(su.Cases[0].Failures) || su.Errors != len(su.Cases[0].Errors) {
			t.Errorf("suite %q: counts disagree with its contents", su.Name)
		}
		// A test case fails once, with a failure or an error.
		if su.Failures+su.Errors > su.Tests {
			t.Errorf("suite %q: %d failures and %d errors of %d tests", su.Name, su.Failures, su.Errors, su.Tests)
		}
	}
	return s
}

// TestJUnitOutput: one test case per trace, a failure per error finding
// (rule as type), warnings in system-out, and text from the trace escaped.
func TestJUnitOutput(t *testing.T) {
	good := writeFile(t, "good.jsonl", strings.Join([]string{acpInit, acpInitResp, acpNew, acpNewResp}, "\n"))
	bad := writeFile(t, "bad <&\x1b>.jsonl", strings.Join([]string{acpInit, acpInitResp, acpNew, acpNewResp, acpBadType, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"locatons":1}}}`}, "\n"))
	// The misspelt member is turned down to a warning, which goes to
	// system-out.
	code, out, _ := runCLI(t, "", "--format", "junit", "--warn", "custom-member", good, bad)
	if code != exitFindings {
		t.Fatalf("exit %d", code)
	}
	if strings.Contains(out, "\x1b") {
		t.Fatalf("raw escape in the XML")
	}
	s := decodeJUnit(t, out)
	if len(s.Suites) != 2 || s.Suites[0].Failures != 0 || s.Suites[1].Failures != 1 {
		t.Fatalf("want a passing and a failing suite:\n%s", out)
	}
	f := s.Suites[1].Cases[0].Failures[0]
	if f.Type != "schema" || !strings.Contains(f.Message, "line 5 /params/update/content/type") || !strings.HasSuffix(s.Suites[1].Name, `bad <&\x1b>.jsonl`) {
		t.Fatalf("failure %+v in suite %q", f, s.Suites[1].Name)
	}
	// The warnings are lines of system-out, not one line with \n in it.
	sysout := s.Suites[1].Cases[0].SystemOut
	if strings.Contains(sysout, `\n`) || strings.Count(sysout, "\n") != 1 || !strings.Contains(sysout, "warning:") {
		t.Errorf("system-out %q: want the warning on a line of its own", sysout)
	}
}

// TestJUnitCounts: a trace with many errors and warnings is one test case
// with one failure, whose message is the first error and whose text lists
// every error, one per line as the text format prints them, and whose
// system-out lists every warning, one per line; a trace that cannot be
// read is one error; the counts never exceed the tests.
func TestJUnitCounts(t *testing.T) {
	traces := []string{"01-session-update-schema", "06-unanswered-and-duplicate-responses", "11-partial-capture"}
	var paths []string
	for _, tr := range traces {
		paths = append(paths, filepath.Join("..", "..", "fixtures", "acp", "invalid", tr+".jsonl"))
	}
	_, text, _ := runCLI(t, "", append([]string{"--summary=false"}, paths...)...)
	_, out, _ := runCLI(t, "", append(append([]string{"--format", "junit"}, paths...), filepath.Join(t.TempDir(), "missing.jsonl"))...)
	s := decodeJUnit(t, out)
	if len(s.Suites) != 4 {
		t.Fatalf("%d suites, want 4", len(s.Suites))
	}
	sawWarnings := false
	for i, su := range s.Suites[:3] {
		var errs, warns []string
		for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
			if strings.HasPrefix(l, paths[i]+":") && strings.Contains(l, ": error: ") {
				errs = append(errs, l)
			}
			if strings.HasPrefix(l, paths[i]+":") && strings.Contains(l, ": warning: ") {
				warns = append(warns, l)
			}
		}
		c := su.Cases[0]
		if len(errs) == 0 || su.Failures != 1 || su.Errors != 0 || len(c.Failures) != 1 {
			t.Fatalf("suite %s: %d failures, %d errors; the text format has %d errors", su.Name, su.Failures, su.Errors, len(errs))
		}
		if got := strings.Split(strings.TrimSuffix(c.Failures[0].Text, "\n"), "\n"); strings.Join(got, "\n") != strings.Join(errs, "\n") {
			t.Errorf("suite %s: the failure lists\n%s\nwant the text format's errors\n%s", su.Name, strings.Join(got, "\n"), strings.Join(errs, "\n"))
		}
		more := fmt.Sprintf("(and %d more errors)", len(errs)-1)
		if len(errs) == 2 {
			more = "(and 1 more error)"
		}
		if len(errs) > 1 && !strings.HasSuffix(c.Failures[0].Message, more) {
			t.Errorf("suite %s: failure message %q does not count the other errors", su.Name, c.Failures[0].Message)
		}
		if len(warns) > 0 {
			sawWarnings = true
			if got := strings.TrimSuffix(c.SystemOut, "\n"); got != strings.Join(warns, "\n") {
				t.Errorf("suite %s: system-out\n%s\nwant the text format's warnings\n%s", su.Name, got, strings.Join(warns, "\n"))
			}
		}
	}
	if !sawWarnings {
		t.Error("no trace had warnings: choose one that has")
	}
	if io := s.Suites[3]; io.Errors != 1 || io.Failures != 0 || len(io.Cases[0].Errors) != 1 {
		t.Errorf("unreadable trace: %d errors, %d failures", io.Errors, io.Failures)
	}
}

// TestRuleControlFlags: --disable drops a rule's findings, --warn turns its
// errors into warnings (exit 0), an unknown rule is a usage error with the
// rule meant, and io cannot be turned off.
func TestRuleControlFlags(t *testing.T) {
	bad := writeFile(t, "bad.jsonl", strings.Join([]string{acpInit, acpInitResp, acpNew, acpNewResp, acpBadType}, "\n"))
	if code, out, _ := runCLI(t, "", "--disable", "schema", bad); code != exitOK || strings.Contains(out, "[schema]") || !strings.Contains(out, "0 errors, 0 warnings") {
		t.Fatalf("--disable schema: exit %d\n%s", code, out)
	}
	code, out, _ := runCLI(t, "", "--warn", "schema", bad)
	if code != exitOK || !strings.Contains(out, ":5: warning: /params/update/content/type:") {
		t.Fatalf("--warn schema: exit %d\n%s", code, out)
	}
	if code, _, _ := runCLI(t, "", "--warn", "schema", "--strict", bad); code != exitFindings {
		t.Fatalf("--warn with --strict: exit %d, want 1", code)
	}
	for _, tc := range []struct{ args, want string }{
		{"--disable scheme", `unknown rule "scheme": did you mean "schema"?`},
		{"--warn io", `rule "io" cannot be disabled`},
		{"--disable nothing-like-it", `unknown rule "nothing-like-it"`},
		{"--disable deviation:*,seq-gap", ""},
	} {
		code, _, errs := runCLI(t, "", append(strings.Fields(tc.args), bad)...)
		if tc.want == "" {
			if code == exitUsage {
				t.Errorf("%s: %s", tc.args, errs)
			}
			continue
		}
		if code != exitUsage || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want one line with %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestConfigFile: .agentproto.json is found by walking up from the trace,
// its per-glob settings apply to the matching traces only, and a config
// that breaks its schema or names an unknown rule stops the run.
func TestConfigFile(t *testing.T) {
	root := t.TempDir()
	legacy := filepath.Join(root, "traces", "legacy")
	if err := os.MkdirAll(legacy, 0o755); err != nil {
		t.Fatal(err)
	}
	trace := strings.Join([]string{acpInit, acpInitResp, acpNew, acpNewResp, acpBadType}, "\n")
	for _, p := range []string{filepath.Join(root, "traces", "new.jsonl"), filepath.Join(legacy, "old.jsonl")} {
		if err := os.WriteFile(p, []byte(trace), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(root, ".agentproto.json")
	write := func(s string) {
		if err := os.WriteFile(cfg, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"overrides":[{"files":["traces/legacy/**"],"warn":["schema"]}]}`)
	code, out, errs := runCLI(t, "", filepath.Join(root, "traces"))
	if code != exitFindings || !strings.Contains(out, "old.jsonl:5: warning:") || !strings.Contains(out, "new.jsonl:5: error:") {
		t.Fatalf("per-glob warn: exit %d\n%s%s", code, out, errs)
	}
	write(`{"disable":["schema"]}`)
	if code, out, _ := runCLI(t, "", filepath.Join(root, "traces")); code != exitOK {
		t.Fatalf("disabled by config: exit %d\n%s", code, out)
	}
	if code, _, _ := runCLI(t, "", "--no-config", filepath.Join(root, "traces")); code != exitFindings {
		t.Fatalf("--no-config: exit %d", code)
	}
	for cfgText, want := range map[string]string{
		`{"disable":"schema"}`:                 "does not fit its schema: /disable",
		`{"warn":["schema"],"colour":"red"}`:   "does not fit its schema",
		`{"overrides":[{"disable":["json"]}]}`: "does not fit its schema: /overrides/0",
		`{"disable":["shcema"]}`:               `did you mean "schema"?`,
		`{"disable":`:                          "not valid JSON",
	} {
		write(cfgText)
		code, _, errs := runCLI(t, "", filepath.Join(root, "traces", "new.jsonl"))
		if code != exitUsage || !strings.Contains(errs, want) || !strings.Contains(errs, ".agentproto.json") {
			t.Errorf("config %s: exit %d, stderr %q; want 2 and %q", cfgText, code, errs, want)
		}
	}
}

// TestBaseline: --write-baseline records today's findings (exit 0); with
// --baseline they are held back, also after lines above them moved, and
// only a new finding fails the build.
func TestBaseline(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.jsonl")
	lines := []string{acpInit, acpInitResp, acpNew, acpNewResp, acpBadType}
	if err := os.WriteFile(tr, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "known.json")
	if code, out, errs := runCLI(t, "", "--write-baseline", base, tr); code != exitOK || strings.Contains(out, "[schema ") || !strings.Contains(errs, "wrote "+base+": 1 finding,") {
		t.Fatalf("--write-baseline: exit %d\n%s%s", code, out, errs)
	}
	b, err := os.ReadFile(base)
	if err != nil || !strings.Contains(string(b), `"file": "t.jsonl"`) || !strings.Contains(string(b), `"pointer": "/params/update/content/type"`) {
		t.Fatalf("baseline file (names relative to its folder):\n%s", b)
	}
	if code, out, _ := runCLI(t, "", "--baseline", base, tr); code != exitOK || strings.Contains(out, "[schema]") || !strings.Contains(out, "1 known from the baseline") {
		t.Fatalf("--baseline: exit %d\n%s", code, out)
	}
	// The known finding moves down a line; a new one appears.
	moved := append([]string{acpInit, acpInitResp, acpNew, acpNewResp, acpExtra, acpBadType}, strings.Replace(acpBadType, `"txt"`, `"html"`, 1))
	if err := os.WriteFile(tr, []byte(strings.Join(moved, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "", "--baseline", base, "--format", "json", tr)
	if code != exitFindings || strings.Count(out, `"rule":"schema"`) != 1 || !strings.Contains(out, `"line":7`) {
		t.Fatalf("only the new finding should show: exit %d\n%s", code, out)
	}
	if code, _, errs := runCLI(t, "", "--baseline", filepath.Join(dir, "none.json"), tr); code != exitUsage || !strings.Contains(errs, "--baseline") {
		t.Fatalf("missing baseline: exit %d %q", code, errs)
	}
}

// TestNonRegularPath: a device is an io finding, not a trace read forever
// or an empty one.
func TestNonRegularPath(t *testing.T) {
	if _, err := os.Stat(os.DevNull); err != nil {
		t.Skip("no null device")
	}
	code, out, _ := runCLI(t, "", "--format", "json", os.DevNull)
	if code != exitUsage || !strings.Contains(out, `"rule":"io"`) || !strings.Contains(out, "not a regular file (a device)") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// TestCatalogueFlags: --list-rules lists every row with its citation and
// what checks it; --explain prints one row with its example; --coverage
// lists what a trace exercised and violated.
func TestCatalogueFlags(t *testing.T) {
	code, out, errs := runCLI(t, "", "--list-rules", "--protocol", "acp", "--dialect", "v1")
	if code != exitOK || !strings.Contains(out, "acp.prompt.cancelled-stop-reason") || !strings.Contains(out, "docs-v1/prompt-turn.mdx § Cancellation") || !strings.Contains(out, "checked by cancellation") {
		t.Fatalf("--list-rules: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = runCLI(t, "", "--list-rules", "--format", "json")
	var rows, checked int
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			ID        string   `json:"id"`
			Citation  string   `json:"citation"`
			CheckedBy []string `json:"checked_by"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.ID == "" || r.Citation == "" {
			t.Fatalf("--list-rules --format json: %q: %v", line, err)
		}
		rows++
		if len(r.CheckedBy) > 0 {
			checked++
		}
	}
	if code != exitOK || rows < 300 || checked < 50 {
		t.Fatalf("--list-rules --format json: exit %d, %d rows, %d checked", code, rows, checked)
	}
	code, out, _ = runCLI(t, "", "--explain", "acp.session.unique-id")
	if code != exitOK || !strings.Contains(out, "MUST, binds the agent") || !strings.Contains(out, "checked by the rule duplicate-session") || !strings.Contains(out, "example (the last message breaks it)") {
		t.Fatalf("--explain: exit %d\n%s", code, out)
	}
	code, _, errs = runCLI(t, "", "--explain", "acp.session.unique")
	if code != exitUsage || !strings.Contains(errs, `did you mean "acp.session.unique-id"?`) {
		t.Fatalf("--explain of a near miss: exit %d\n%s", code, errs)
	}
	tr := writeFile(t, "t.jsonl", strings.Join([]string{acpInit, acpInitResp, acpNew, acpNewResp, acpNew, acpNewResp}, "\n"))
	code, out, _ = runCLI(t, "", "--coverage", tr)
	if code != exitFindings || !strings.Contains(out, "violated       acp.session.unique-id") || !strings.Contains(out, "exercised      acp.schema.shape") {
		t.Fatalf("--coverage: exit %d\n%s", code, out)
	}
}

// TestSummaryOneLinePerCleanTrace: in the text summary a trace with no
// finding is one line; a trace with findings, or any trace with -v, shows
// how its version was decided, its peers and its requirements.
func TestSummaryOneLinePerCleanTrace(t *testing.T) {
	clean, bad := "../../fixtures/acp/valid/01-code-review.jsonl", "../../fixtures/acp/invalid/12-cancellation.jsonl"
	_, out, _ := runCLI(t, "", clean, bad)
	if !strings.Contains(out, "\n  "+clean+": acp v1, no findings\n") {
		t.Errorf("the clean trace is not one line:\n%s", out)
	}
	if !strings.Contains(out, "\n  "+bad+": acp v1\n    ACP v1: initialize response protocolVersion 1") || strings.Count(out, "requirements: ") != 1 {
		t.Errorf("the trace with findings lacks its details, or the clean one has them:\n%s", out)
	}
	_, out, _ = runCLI(t, "", "-v", clean, bad)
	if strings.Contains(out, "no findings") || strings.Count(out, "requirements: ") != 2 {
		t.Errorf("-v should give both traces their details:\n%s", out)
	}
}

// TestSkippedFilesAreCounted: files of a walked folder that nothing marks
// as traces are counted on stderr, and named with -v; a named one is read.
func TestSkippedFilesAreCounted(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"a.jsonl": acpInit + "\n" + acpInitResp + "\n", "capture.txt": "data: {}\n", "notes.log": "x\n", "README.md": "# traces\n", "a.dir": "c2a\na2c\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, errs := runCLI(t, "", dir)
	if code != exitOK || !strings.Contains(errs, "2 files of the folders not read") || strings.Contains(errs, "capture.txt") {
		t.Errorf("exit %d, stderr:\n%s", code, errs)
	}
	_, _, errs = runCLI(t, "", "-v", dir)
	if !strings.Contains(errs, "not read: "+filepath.Join(dir, "capture.txt")) || !strings.Contains(errs, "not read: "+filepath.Join(dir, "notes.log")) || strings.Contains(errs, "README") || strings.Contains(errs, "a.dir") {
		t.Errorf("-v stderr:\n%s", errs)
	}
	if _, out, errs := runCLI(t, "", "-v", filepath.Join(dir, "notes.log")); strings.Contains(errs, "not read") || !strings.Contains(out, "notes.log") {
		t.Errorf("a named file is read: %s%s", out, errs)
	}
}
