package validate_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// TestArcanCatalogueExamples runs the example of every checked Arcan row
// through the engine: the row must be reported on the example's last line,
// blaming the agent, as an error when the row is a MUST or MUST NOT and as
// a warning otherwise (a SHOULD, or what the notes describe the reference
// doing).
func TestArcanCatalogueExamples(t *testing.T) {
	reg, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	e, err := validate.New(validate.Options{Workers: 1, Protocol: "arcan"})
	if err != nil {
		t.Fatal(err)
	}
	docs := validate.RuleDocs("arcan")
	schemaRows := map[string]bool{}
	for _, d := range docs {
		if d.Name == validate.RuleSchema {
			for _, id := range d.Requirements {
				schemaRows[id] = true
			}
		}
	}
	tried := 0
	for _, q := range reg.AllRequirements("arcan") {
		if !slices.ContainsFunc(docs, func(d protocol.RuleDoc) bool { return d.Checks(q.ID, q.Version) }) {
			continue
		}
		if len(q.Example) == 0 {
			t.Errorf("%s: checked, but has no example", q.ID)
			continue
		}
		tried++
		var trace bytes.Buffer
		for _, ex := range q.Example {
			trace.Write(compact(t, ex.Message))
			trace.WriteByte('\n')
		}
		last := len(q.Example)
		var got []validate.Finding
		if _, err := e.Check(context.Background(), q.ID, bytes.NewReader(trace.Bytes()), validate.FileOptions{}, func(f validate.Finding) { got = append(got, f) }); err != nil {
			t.Errorf("%s: %v", q.ID, err)
			continue
		}
		want := validate.Warning
		if q.Strong() {
			want = validate.Error
		}
		// The row itself, or a schema error for a row the schema rule
		// checks (the schema's finding names its general row).
		if !slices.ContainsFunc(got, func(f validate.Finding) bool {
			return f.Line == last && f.Side == "agent" && f.Severity == want &&
				(f.Requirement == q.ID || f.Rule == validate.RuleSchema && schemaRows[q.ID])
		}) {
			var lines []string
			for _, f := range got {
				lines = append(lines, f.String())
			}
			t.Errorf("%s (%s): want it reported on line %d as %s; got:\n\t%s\ntrace:\n%s", q.ID, q.Level, last, want, strings.Join(lines, "\n\t"), trace.String())
		}
	}
	if tried < 20 {
		t.Errorf("only %d examples tried", tried)
	}
}

// TestArcanValidTracesExerciseCheckedRows: every Arcan row a rule checks
// is exercised, and held, by at least one valid fixture, with no finding.
func TestArcanValidTracesExerciseCheckedRows(t *testing.T) {
	e, err := validate.New(validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, pat := range []string{"*.jsonl", "*.sse"} {
		fs, _ := filepath.Glob(filepath.Join("../../fixtures/arcan/valid", pat))
		files = append(files, fs...)
	}
	if len(files) < 10 {
		t.Fatalf("only %d valid traces", len(files))
	}
	exercised := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := e.Check(context.Background(), f, bytes.NewReader(data), validate.FileOptions{}, func(fd validate.Finding) {
			t.Errorf("%s", fd)
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range sum.Detected {
			if d.Coverage == nil {
				t.Fatalf("%s: no coverage", f)
			}
			for _, id := range d.Coverage.Exercised {
				exercised[id] = true
			}
		}
	}
	var missing []string
	for id := range checkedRows("arcan") {
		if !exercised[id] {
			missing = append(missing, id)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("no valid Arcan trace exercises %v", missing)
	}
}
