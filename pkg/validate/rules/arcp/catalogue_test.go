package arcp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/rules/arcp"
	"github.com/agentproto/agentproto/schema/registry"
)

// arcpRows maps each ARCP rule to the catalogue rows it checks.
func arcpRows() map[string][]string {
	out := map[string][]string{}
	for _, d := range arcp.RuleDocs() {
		out[d.Name] = append(out[d.Name], d.Requirements...)
	}
	return out
}

// TestCatalogueExamples runs the example of every checked ARCP v1.1 row
// through the engine: the row (or a rule that checks it) must be reported
// on the example's last line, which is the one that breaks it, and blamed
// on the side that sent it.
func TestCatalogueExamples(t *testing.T) {
	reg, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	e := testEngine(t)
	rows := arcpRows()
	checked := map[string]bool{}
	for _, rs := range rows {
		for _, id := range rs {
			checked[id] = true
		}
	}
	tried := 0
	for _, q := range reg.AllRequirements("arcp") {
		if !checked[q.ID] || q.Observe == registry.ObserveNone {
			continue
		}
		if len(q.Example) == 0 {
			t.Errorf("%s (%s): checked, but the row has no example", q.ID, q.Version)
			continue
		}
		tried++
		var trace, dirs bytes.Buffer
		for _, ex := range q.Example {
			var b bytes.Buffer
			if err := json.Compact(&b, ex.Message); err != nil {
				t.Fatalf("%s: %v", q.ID, err)
			}
			trace.Write(b.Bytes())
			trace.WriteByte('\n')
			dir := "c2r"
			if ex.From == "runtime" {
				dir = "r2c"
			}
			dirs.WriteString(dir + "\n")
		}
		last := len(q.Example)
		from := q.Example[last-1].From
		got, _ := check(t, e, q.Version+"/"+q.ID, trace.Bytes(), dirs.Bytes(), "")
		if !slices.ContainsFunc(got, func(f validate.Finding) bool {
			return f.Line == last && f.Side == from && (f.Requirement == q.ID || slices.Contains(rows[f.Rule], q.ID))
		}) {
			var lines []string
			for _, f := range got {
				lines = append(lines, f.String())
			}
			t.Errorf("%s (%s): want it reported on line %d, blaming the %s; got:\n\t%s\ntrace:\n%s", q.ID, q.Version, last, from, strings.Join(lines, "\n\t"), trace.String())
		}
	}
	if tried < 20 {
		t.Errorf("only %d examples tried", tried)
	}
}

// TestValidTracesExerciseCheckedRows: every row an ARCP rule checks is
// exercised, and held, by at least one valid trace: the hand-written valid
// fixtures and the SDKs' recorded traffic.
func TestValidTracesExerciseCheckedRows(t *testing.T) {
	e := testEngine(t)
	files, err := filepath.Glob(filepath.Join(fixtures, "v1.1", "valid", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	exercised := map[string]bool{}
	note := func(sum validate.Summary) {
		for _, d := range sum.Detected {
			if d.Coverage == nil {
				continue
			}
			for _, id := range d.Coverage.Exercised {
				exercised[id] = true
			}
		}
	}
	for _, f := range files {
		dir, err := os.ReadFile(strings.TrimSuffix(f, ".jsonl") + ".dir")
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		got, sum := check(t, e, filepath.Base(f), bytes.Join(readLines(t, f), []byte("\n")), dir, "")
		for _, fd := range got {
			t.Errorf("%s: a finding on a valid trace: %s", filepath.Base(f), fd)
		}
		note(sum)
	}
	for _, fs := range recorded(t) {
		for _, f := range fs {
			for _, c := range split(t, f) {
				_, sum := check(t, e, c.name, c.lines, c.dir, "")
				note(sum)
			}
		}
	}
	var missing []string
	for _, d := range arcp.RuleDocs() {
		for _, id := range d.Requirements {
			if !exercised[id] && !slices.Contains(missing, id) {
				missing = append(missing, id)
			}
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("no valid trace exercises %v", missing)
	}
}
