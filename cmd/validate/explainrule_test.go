package main

import (
	"os"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/report"
)

// TestExplainTakesRuleNames: the first word in a finding's brackets is a
// rule name, and --explain prints what the rule catches and why it is an
// error or a warning; a requirement id still prints its row.
func TestExplainTakesRuleNames(t *testing.T) {
	for rule, want := range map[string][]string{
		"retired":       {"rule retired (warning)", "A warning, not an error"},
		"custom-member": {"rule custom-member (error)", "An error, because no reading of the protocol"},
		"unstable":      {"rule unstable (warning)"},
	} {
		code, out, errOut := runCLI(t, "", "--explain", rule)
		if code != exitOK {
			t.Errorf("--explain %s: exit %d, stderr %q", rule, code, errOut)
		}
		text := strings.Join(strings.Fields(out), " ")
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("--explain %s lacks %q:\n%s", rule, w, out)
			}
		}
	}
	if code, out, _ := runCLI(t, "", "--explain", "acp.ext.no-root-fields"); code != exitOK || !strings.Contains(out, "acp.ext.no-root-fields (acp v1)") {
		t.Errorf("--explain of a requirement id: exit %d:\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, "", "--explain", "no-such-rule"); code != exitUsage || !strings.Contains(errOut, "no requirement") {
		t.Errorf("--explain of nothing: exit %d, stderr %q", code, errOut)
	}
}

// TestREADMERuleTableFresh: the README's rule table is the one go generate
// writes from the rules' RuleDocs (internal/ruletable), row for row.
func TestREADMERuleTableFresh(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := report.MarkdownTable(validate.RuleTable(nil)); !strings.Contains(string(b), "\n## Rules\n\n"+want) {
		t.Error("README.md's rule table is not what the rules describe: run go generate ./cmd/validate")
	}
}
