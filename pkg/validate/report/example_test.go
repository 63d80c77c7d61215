package report_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/report"
)

// A program that embeds the engine writes its findings in any of the
// command's formats: here GitHub Actions annotations and the summary line.
func Example() {
	eng, err := validate.New(validate.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := report.New("github", os.Stdout, report.Options{})
	trace := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"ed","version":"1"},"clientCapabilities":{}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"ag","version":"1"},"agentCapabilities":{}}}
{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}
`
	sum, err := eng.Check(context.Background(), "session.jsonl", strings.NewReader(trace), validate.FileOptions{}, out.Finding)
	if err != nil {
		fmt.Println(err)
		return
	}
	out.EndTrace("session.jsonl", sum)
	out.End(report.Totals{Summary: sum})
	if err := out.Close(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// ::error file=session.jsonl,line=3,title=acp absolute-path / acp.session.cwd-absolute (client)::/params/cwd: path "relative/dir" is relative: every file-system path the protocol carries is absolute (the agent resolves nothing against its own working directory)
	// ::warning file=session.jsonl,line=3,title=acp unanswered-request / acp.jsonrpc.answer-once (agent)::the "session/new" request on line 3 was never answered before the trace ends: every request gets exactly one response (if the trace was cut short, this is expected)
	//
	// summary: 1 file, 3 lines, 3 messages: 1 error, 1 warning
}

// SARIF for code scanning, from findings made by hand: each result names
// its rule, whose description comes from the rules' documentation.
func ExampleNewSARIF() {
	var sb strings.Builder
	w := report.NewSARIF(&sb, report.Options{})
	w.Finding(validate.Finding{File: "t.jsonl", Line: 2, Severity: validate.Error, Rule: "json", Message: "not JSON"})
	w.EndTrace("t.jsonl", validate.Summary{})
	w.End(report.Totals{})
	if err := w.Close(); err != nil {
		fmt.Println(err)
	}
	s := sb.String()
	fmt.Println(strings.HasPrefix(s, `{"version":"2.1.0"`), strings.Contains(s, `"ruleId":"json"`), strings.Contains(s, `"shortDescription":{"text":"not valid JSON: syntax, invalid UTF-8`))
	// Output: true true true
}
