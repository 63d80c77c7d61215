package htmlreport

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentproto/agentproto/pkg/validate"
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
		r.Message(file, validate.MessageInfo{Line: 1, Data: []byte(line), Label: message, From: "client", Parsed: true})
		r.Finding(validate.Finding{File: file, Line: 1, Rule: message, Pointer: pointer, Message: message})
		r.Finding(validate.Finding{File: file, Line: 0, Rule: "io", Message: line})
		r.End(file, validate.Summary{Files: 1, Lines: 1, Messages: 1, Errors: 2, ByRule: map[string]int{message: 1}, ByType: map[string]int{line: 1},
			Detected: []validate.Detected{{File: file, Protocol: pointer, Dialect: message, Note: line}}})
		var buf bytes.Buffer
		if _, err := r.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		page := buf.String()
		if n := strings.Count(strings.ToLower(page), "<script"); n != 2 {
			t.Fatalf("%d script elements", n)
		}
		if !utf8.ValidString(page) {
			t.Fatal("the page is not UTF-8")
		}
		for _, c := range page {
			if unsafeRune(c) {
				t.Fatalf("raw %U in the page", c)
			}
		}
		d := pageData(t, page)
		if len(d.Traces) != 1 || len(d.Traces[0].Findings) != 2 || len(d.Traces[0].Rows) != 1 {
			t.Fatalf("data %+v", d)
		}
	})
}
