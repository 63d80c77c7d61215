package validate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/schema/registry"
)

// checkedRows are the catalogue rows some rule of proto checks.
func checkedRows(proto string) map[string]bool {
	out := map[string]bool{}
	for _, d := range validate.RuleDocs(proto) {
		for _, id := range d.Requirements {
			out[id] = true
		}
	}
	return out
}

// TestRuleRowsExist: every row a rule says it checks is in a catalogue of
// its protocol, so findings never name a row a user cannot look up.
func TestRuleRowsExist(t *testing.T) {
	reg, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.CatalogueErr(); err != nil {
		t.Fatal(err)
	}
	for _, proto := range registry.Protocols() {
		have := map[string]bool{}
		for _, q := range reg.AllRequirements(proto) {
			have[q.ID] = true
		}
		for id := range checkedRows(proto) {
			if !have[id] {
				t.Errorf("%s: a rule cites %s, which no catalogue of %s has", proto, id, proto)
			}
		}
	}
}

// TestCatalogueExamples runs the example of every checked ACP row through
// the engine, read as the row's version: the row's requirement must be
// reported on the example's last line, which is the one that breaks it, and
// blamed on the side that sent it.
func TestCatalogueExamples(t *testing.T) {
	reg, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	e, err := validate.New(validate.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	checked := checkedRows("acp")
	rows := map[string][]string{}
	for _, d := range validate.RuleDocs("acp") {
		rows[d.Name] = d.Requirements
	}
	tried := 0
	for _, q := range reg.AllRequirements("acp") {
		if !checked[q.ID] || len(q.Example) == 0 || q.Observe == registry.ObserveNone || !slices.Contains(exampleVersions, q.Version) {
			continue
		}
		if skipExample(q) {
			continue
		}
		tried++
		var trace, dirs bytes.Buffer
		for _, ex := range q.Example {
			trace.Write(compact(t, ex.Message))
			trace.WriteByte('\n')
			dir := "c2a"
			if ex.From == "agent" {
				dir = "a2c"
			}
			dirs.WriteString(dir + "\n")
		}
		last := len(q.Example)
		from := q.Example[last-1].From
		var got []validate.Finding
		_, err := e.Check(context.Background(), q.Version+"/"+q.ID, bytes.NewReader(trace.Bytes()),
			validate.FileOptions{Directions: bytes.NewReader(dirs.Bytes())}, func(f validate.Finding) { got = append(got, f) })
		if err != nil {
			t.Errorf("%s (%s): %v", q.ID, q.Version, err)
			continue
		}
		// The row itself, or a finding of a rule that checks it (a
		// general row whose breach a more precise row names).
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
	if tried < 10 {
		t.Errorf("only %d examples tried", tried)
	}
}

// exampleVersions are the ACP versions whose method tables carry the
// effects the behaviour checks read.
var exampleVersions = []string{"v1", "v1-unstable"}

// skipExample: rows whose examples cannot stand as a trace on their own.
func skipExample(q *registry.Requirement) bool {
	switch q.ID {
	case "acp.transport.utf8", "acp.transport.agent-stdout-only-acp", "acp.transport.client-stdin-only-acp":
		// Invalid bytes and log lines cannot be written as the JSON
		// values an example holds; the fixtures of the json rule have
		// them.
		return true
	}
	return false
}

func compact(t *testing.T, raw []byte) []byte {
	var b bytes.Buffer
	if err := jsonCompact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jsonCompact(dst *bytes.Buffer, src []byte) error { return json.Compact(dst, src) }
