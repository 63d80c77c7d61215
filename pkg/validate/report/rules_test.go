package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate"
)

// TestRuleTableNamesRules: every rule the table describes is one a finding
// may carry, described once with a severity the table knows.
func TestRuleTableNamesRules(t *testing.T) {
	rules := validate.Rules()
	seen := map[string]bool{}
	for _, d := range validate.RuleTable(nil) {
		if !slices.Contains(rules, d.Name) && d.Name != "deviation:<id>" {
			t.Errorf("the rule table describes %q, which no finding carries", d.Name)
		}
		if seen[d.Name] {
			t.Errorf("rule %q described twice", d.Name)
		}
		seen[d.Name] = true
		if !slices.Contains([]string{"error", "warning", "error / warning"}, d.Severity) || d.Text == "" || strings.Contains(d.Text, "\n") {
			t.Errorf("rule %q: severity %q, text %q: want error, warning or both, and one paragraph", d.Name, d.Severity, d.Text)
		}
	}
}

// TestRuleHelpDeviation: a deviation rule is described by its family's
// row, without Markdown code marks.
func TestRuleHelpDeviation(t *testing.T) {
	d, ok := Catalogue{}.Help().Lookup("deviation:go-output")
	if !ok || d.Severity != "warning" || strings.Contains(d.Text, "`") || !strings.Contains(d.Text, "deviations.json") {
		t.Fatalf("deviation:go-output described as %+v (found %v)", d, ok)
	}
	if _, ok := (Catalogue{}).Help().Lookup("no-such-rule"); ok {
		t.Error("an unknown rule has a description")
	}
}
