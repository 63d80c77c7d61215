package htmlreport

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentproto/agentproto/pkg/validate/finding"
)

// FuzzPage: whatever a trace's line, its file name and a finding hold, the
// page has exactly its two script elements, its data decodes back, and it
// holds no character a browser acts on rather than shows.
func FuzzPage(f *testing.F) {
	f.Add("s.jsonl", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"<a>":"</script><script>alert(1)</script>"}}`, "/params/<a>", "bad <b>&amp;</b>")
	f.Add("<img src=x onerror=alert(1)>", "not json \u202e\u2028 <!--", "", "\x00\xff")
	f.Add("", "", "", "")
	f.Fuzz(func(t *testing.T, file, line, pointer, message string) {
		r := New(Options{MaxLine: 256})
		r.Message(file, Message{Line: 1, Data: []byte(line), Label: message, From: "client", Parsed: true})
		r.Finding(finding.Finding{File: file, Line: 1, Rule: message, Pointer: pointer, Message: message})
		r.Finding(finding.Finding{File: file, Line: 0, Rule: "io", Message: line})
		r.End(file, finding.Summary{Files: 1, Lines: 1, Messages: 1, Errors: 2, ByRule: map[string]int{message: 1}, ByType: map[string]int{line: 1},
			Detected: []finding.Detected{{File: file, Protocol: pointer, Dialect: message, Note: line}}})
		d := inertPage(t, r)
		if len(d.Traces) != 1 || len(d.Traces[0].Findings) != 2 || len(d.Traces[0].Rows) != 1 {
			t.Fatalf("data %+v", d)
		}
	})
}

// FuzzFolderPage: whatever two traces' names, a finding's rule, side and
// message, and the protocol they were read as hold, the page of the folder
// has exactly its two script elements and no character a browser acts on,
// and its overview decodes back: both traces listed, worst first, with
// the counts by side and rule.
func FuzzFolderPage(f *testing.F) {
	f.Add("a.jsonl", "b.jsonl", "schema", "agent", "bad", "acp")
	f.Add("</script><script>alert(1)</script>", "<!--\u2028", "<b>", "\u202e", "\x00\xff", "</script")
	f.Add("", "", "", "", "", "")
	f.Fuzz(func(t *testing.T, first, second, rule, side, message, protocol string) {
		r := New(Options{MaxLine: 256, RuleHelp: func(string) string { return message }})
		for i, name := range []string{first, second} {
			r.Message(name, Message{Line: 1, Data: []byte(message), Label: rule, From: side, Parsed: true})
			for range i + 1 {
				r.Finding(finding.Finding{File: name, Line: 1, Rule: rule, Side: side, Message: message, Pointer: protocol})
			}
			r.End(name, finding.Summary{Files: 1, Lines: 1, Messages: 1, Errors: i + 1, ByRule: map[string]int{rule: i + 1}, ByType: map[string]int{rule: 1},
				Detected: []finding.Detected{{File: name, Protocol: protocol, Dialect: rule, Note: message}}})
		}
		d := inertPage(t, r)
		if d.Totals.Traces != 2 || d.Totals.Errors != 3 || len(d.List) != 2 || len(d.Traces) != 2 {
			t.Fatalf("overview %+v", d)
		}
		if d.List[0][1] != inert(second) || d.List[1][1] != inert(first) {
			t.Errorf("listed %q, %q; want the second (worse) first", d.List[0][1], d.List[1][1])
		}
		if len(d.Sides) != 1 || d.Sides[0][0] != inert(side) || len(d.ByRule) != 1 || d.ByRule[0][0] != inert(rule) || d.Rules[inert(rule)] != inert(message) {
			t.Errorf("by side %v, by rule %v, rules %v", d.Sides, d.ByRule, d.Rules)
		}
	})
}

// inertPage writes r's page, checks that it has exactly its two script
// elements, is UTF-8 and holds no character a browser acts on rather than
// shows, and returns its data.
func inertPage(t *testing.T, r *Report) jsReport {
	t.Helper()
	var buf bytes.Buffer
	if _, err := r.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	lower := strings.ToLower(page)
	if n, m := strings.Count(lower, "<script"), strings.Count(lower, "</script"); n != 2 || m != 2 {
		t.Fatalf("%d script elements, %d end tags", n, m)
	}
	if !utf8.ValidString(page) {
		t.Fatal("the page is not UTF-8")
	}
	for _, c := range page {
		if unsafeRune(c) {
			t.Fatalf("raw %U in the page", c)
		}
	}
	return pageData(t, page)
}
