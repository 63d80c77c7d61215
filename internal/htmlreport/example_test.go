package htmlreport_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/htmlreport"
	"github.com/agentproto/agentproto/pkg/validate/finding"
)

// A report of several traces opens on an overview of them, worst first;
// past MaxDetailed traces it holds the messages of the worst only, and
// lists the others with their counts.
func Example_folder() {
	r := htmlreport.New(htmlreport.Options{MaxDetailed: 1})
	for i, name := range []string{"clean.jsonl", "broken.jsonl"} {
		r.Message(name, htmlreport.Message{Line: 1, Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`), Label: "initialize", From: "client", Parsed: true})
		if i == 1 {
			r.Finding(finding.Finding{File: name, Line: 1, Severity: finding.Error, Rule: "schema", Side: "client", Message: "params: protocolVersion is missing"})
		}
		r.End(name, finding.Summary{Files: 1, Lines: 1, Messages: 1, Errors: i, ByRule: map[string]int{"schema": i}})
	}
	var page bytes.Buffer
	if _, err := r.WriteTo(&page); err != nil {
		fmt.Println(err)
		return
	}
	s := page.String()
	fmt.Println(strings.HasPrefix(s, "<!DOCTYPE html>"))
	// The overview lists both, the broken one first; the page holds the
	// messages of that one only.
	fmt.Println(strings.Index(s, `"broken.jsonl"`) < strings.Index(s, `"clean.jsonl"`))
	fmt.Println(strings.Count(s, `"initialize"`))
	// Output:
	// true
	// true
	// 1
}
