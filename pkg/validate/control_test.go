package validate

import (
	"bytes"
	"strings"
	"testing"
)

// TestRuleControl: a disabled rule's findings are neither reported nor
// counted; a rule turned down is counted as a warning; io is untouched.
func TestRuleControl(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := lines(acpInit, acpInitResp, acpNew, acpNewResp, acpBadChunk)
	got, sum, _ := run(t, e, in, FileOptions{Rules: &RuleControl{Disable: []string{"schema"}}})
	if len(got) != 0 || sum.Errors != 0 || sum.ByRule["schema"] != 0 {
		t.Fatalf("disabled: %v %+v", got, sum)
	}
	got, sum, _ = run(t, e, in, FileOptions{Rules: &RuleControl{Warn: []string{"sch*"}}})
	if len(got) != 1 || got[0].Severity != Warning || sum.Errors != 0 || sum.Warnings != 1 {
		t.Fatalf("turned down: %v %+v", got, sum)
	}
	rc := RuleControl{Disable: []string{"io"}}
	if f, keep := rc.apply(Finding{Rule: RuleIO, Severity: Error}); !keep || f.Severity != Error {
		t.Fatal("io was dropped")
	}
	for _, bad := range []string{"io", "*", "nope*", "schemaa"} {
		if CheckRuleName(bad) == nil {
			t.Errorf("CheckRuleName(%q) accepted it", bad)
		}
	}
	for _, good := range []string{"schema", "deviation:go-output", "deviation:*", "seq-*"} {
		if err := CheckRuleName(good); err != nil {
			t.Errorf("CheckRuleName(%q): %v", good, err)
		}
	}
}

// TestBaselineRoundTrip: a written baseline read back holds back exactly
// the findings it recorded, once per count, whatever their line.
func TestBaselineRoundTrip(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	w := NewBaselineWriter(dir)
	in := lines(acpInit, acpInitResp, acpNew, acpNewResp, acpBadChunk, acpBadChunk)
	got, _, _ := run(t, e, in, FileOptions{})
	for _, f := range got {
		w.Add(f)
	}
	b, err := w.Encode()
	if err != nil || !strings.Contains(string(b), `"count": 2`) {
		t.Fatalf("encode: %v\n%s", err, b)
	}
	base, err := ReadBaseline(bytes.NewReader(b), dir)
	if err != nil {
		t.Fatal(err)
	}
	// Three bad chunks, one line lower: two are known, the third is new.
	in = lines(acpInit, acpInitResp, acpNew, acpNewResp, acpChunk, acpBadChunk, acpBadChunk, acpBadChunk)
	got, sum, _ := run(t, e, in, FileOptions{Baseline: base})
	if len(got) != 1 || got[0].Line != 8 || sum.Errors != 1 || base.Matched() != 2 {
		t.Fatalf("got %v, %d matched", got, base.Matched())
	}
	for _, bad := range []string{`{"version":2,"findings":[]}`, `{"version":1,"findings":[{"file":"t","rule":"schema","count":0}]}`, `{"version":1,"extra":1}`, `[`} {
		if _, err := ReadBaseline(strings.NewReader(bad), dir); err == nil {
			t.Errorf("ReadBaseline(%s) accepted it", bad)
		}
	}
}
