package validate

import (
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/suggest"
)

// RuleControl says what a team intends for some rules: findings of a
// disabled rule are dropped before they are counted or reported, and
// errors of a rule turned down are reported as warnings. A rule is named
// exactly ("unstable") or by a prefix ending in "*" ("deviation:*").
// The zero value changes nothing.
type RuleControl struct {
	Disable []string
	Warn    []string
}

// Merge returns c with the rules of o added.
func (c RuleControl) Merge(o RuleControl) RuleControl {
	return RuleControl{
		Disable: append(append([]string(nil), c.Disable...), o.Disable...),
		Warn:    append(append([]string(nil), c.Warn...), o.Warn...),
	}
}

// Empty reports whether c changes nothing.
func (c RuleControl) Empty() bool { return len(c.Disable) == 0 && len(c.Warn) == 0 }

// Check reports the first rule name of c that names no rule, with the rule
// it most likely stands for.
func (c RuleControl) Check() error {
	for _, list := range [][]string{c.Disable, c.Warn} {
		for _, r := range list {
			if err := CheckRuleName(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckRuleName reports whether name (or a prefix ending in "*") names a
// rule findings can carry and that may be turned off or down: the io rule
// cannot, since a trace that could not be read was not checked.
func CheckRuleName(name string) error {
	if name == RuleIO {
		return fmt.Errorf("rule %q cannot be disabled or turned down: a trace that could not be read was not checked", name)
	}
	if p, ok := strings.CutSuffix(name, "*"); ok {
		if p == "" {
			return fmt.Errorf("rule pattern %q matches every rule: name the rules", name)
		}
		for _, r := range append(Rules(), RuleDeviationPrefix) {
			if strings.HasPrefix(r, p) {
				return nil
			}
		}
		return fmt.Errorf("rule pattern %q matches no rule (the rules are listed in cmd/validate/README.md)", name)
	}
	if KnownRule(name) {
		return nil
	}
	msg := fmt.Sprintf("unknown rule %q", name)
	if near := suggest.Near(name, Rules()); near != "" {
		msg += fmt.Sprintf(": did you mean %q?", near)
	} else {
		msg += " (the rules are listed in cmd/validate/README.md)"
	}
	return fmt.Errorf("%s", msg)
}
