package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate"
)

// renderFiles renders findings as one trace per finding, as run does.
func renderFiles(t *testing.T, format string, fs []validate.Finding) string {
	t.Helper()
	var out bytes.Buffer
	p := newWriter(format, &out)
	for _, f := range fs {
		p.Finding(f)
		p.EndTrace(f.File, validate.Summary{})
	}
	p.End(Totals{Summary: validate.Summary{Files: len(fs)}})
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// FuzzReportFormats: whatever the strings of a finding, --format sarif is
// one JSON document and --format junit one XML document, both without raw
// control characters, and the strings read back (SARIF) or are shown
// escaped (JUnit).
func FuzzReportFormats(f *testing.F) {
	f.Add(hostile.File, hostile.Pointer, hostile.Message, hostile.Rule)
	f.Add("a b/c%20d.jsonl", "/~0~1", "]]> <x/> & \"'", "deviation:go-output")
	f.Add("/abs/path.jsonl", "", "\x00\x7f\u0085", "io")
	f.Add("", "", "", "")
	f.Fuzz(func(t *testing.T, file, pointer, message, rule string) {
		fs := []validate.Finding{
			{File: file, Line: 3, Severity: validate.Error, Protocol: "acp", Dialect: "v1", Rule: rule, Pointer: pointer, Message: message},
			{File: file, Line: 0, Severity: validate.Warning, Protocol: "", Dialect: pointer, Rule: "schema", Message: pointer},
		}
		sarif := renderFiles(t, "sarif", fs)
		if r := rawControl(sarif); r >= 0 {
			t.Fatalf("sarif: raw %U", r)
		}
		var log struct {
			Runs []struct {
				Results []struct {
					RuleID  string    `json:"ruleId"`
					Message sarifText `json:"message"`
				} `json:"results"`
			} `json:"runs"`
		}
		dec := json.NewDecoder(strings.NewReader(sarif))
		if err := dec.Decode(&log); err != nil || dec.More() {
			t.Fatalf("sarif: not one JSON document (%v): %q", err, sarif)
		}
		if len(log.Runs) != 1 || len(log.Runs[0].Results) != 2 || log.Runs[0].Results[0].RuleID != validUTF8(rule) {
			t.Fatalf("sarif: results changed: %q", sarif)
		}
		junit := renderFiles(t, "junit", fs)
		if r := rawControl(junit); r >= 0 {
			t.Fatalf("junit: raw %U", r)
		}
		var suites junitSuites
		if err := xml.Unmarshal([]byte(junit), &suites); err != nil || len(suites.Suites) != 2 {
			t.Fatalf("junit: not the XML of two suites (%v): %q", err, junit)
		}
		if got, want := suites.Suites[0].Name, EscapeText(file); got != want {
			t.Fatalf("junit: suite name %q, want %q", got, want)
		}
	})
}

// TestJUnitChildOrder: a trace with findings and then an io failure is one
// error element, listing the io finding and then the errors, before the
// warnings' system-out, as the JUnit schemas order a test case; no
// failure element besides it.
func TestJUnitChildOrder(t *testing.T) {
	fs := []validate.Finding{
		{File: "t.jsonl", Line: 2, Severity: validate.Warning, Rule: "unstable", Message: "w"},
		{File: "t.jsonl", Line: 3, Severity: validate.Error, Rule: "schema", Message: "bad"},
		{File: "t.jsonl", Line: 9, Severity: validate.Error, Rule: validate.RuleIO, Message: "reading stopped"},
	}
	var out bytes.Buffer
	p := newWriter("junit", &out)
	for _, f := range fs {
		p.Finding(f)
	}
	p.EndTrace("t.jsonl", validate.Summary{})
	p.End(Totals{Summary: validate.Summary{}})
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	e, f, o := strings.Index(s, "<error "), strings.Index(s, "<failure "), strings.Index(s, "<system-out>")
	if e < 0 || f >= 0 || o < e || !strings.Contains(s, ">t.jsonl:9: error: reading stopped [io]\nt.jsonl:3: error: bad [schema]\n</error>") {
		t.Fatalf("want one error listing the io finding then the error, then system-out:\n%s", s)
	}
	decodeJUnit(t, s)
}

// junitSuites is a JUnit document as the tests read it.
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

// decodeJUnit decodes a JUnit document and checks its counts.
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
