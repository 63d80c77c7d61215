package htmlreport

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/spool"
	"github.com/agentproto/agentproto/pkg/validate/finding"
)

// fleetTrace feeds r one trace of one message with errs errors and warns
// warnings, the errors the agent's and the warnings the client's.
func fleetTrace(r *Report, name string, errs, warns int) {
	r.Message(name, Message{Line: 1, Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`), Label: "initialize", From: "client", Parsed: true})
	sum := finding.Summary{Files: 1, Lines: 1, Messages: 1, Errors: errs, Warnings: warns, ByRule: map[string]int{},
		Detected: []finding.Detected{{File: name, Protocol: "acp", Dialect: "v1"}}}
	for i := 0; i < errs; i++ {
		r.Finding(finding.Finding{File: name, Line: 1, Severity: finding.Error, Rule: "schema", Side: "agent", Message: "bad"})
		sum.ByRule["schema"]++
	}
	for i := 0; i < warns; i++ {
		r.Finding(finding.Finding{File: name, Line: 1, Severity: finding.Warning, Rule: "unstable", Side: "client", Message: "unstable"})
		sum.ByRule["unstable"]++
	}
	r.End(name, sum)
}

func page(t *testing.T, r *Report) jsReport {
	t.Helper()
	var buf bytes.Buffer
	if _, err := r.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return pageData(t, buf.String())
}

// TestOverviewCountsAndOrder: the overview counts every trace, by side and
// by rule, and lists the traces worst first (errors, then warnings, then
// the order they were checked in), each pointing at its line of the data.
func TestOverviewCountsAndOrder(t *testing.T) {
	r := New(Options{RuleHelp: func(rule string) string { return "help for " + rule }})
	fleetTrace(r, "a.jsonl", 0, 0)
	fleetTrace(r, "b.jsonl", 1, 5)
	fleetTrace(r, "c.jsonl", 3, 0)
	fleetTrace(r, "d.jsonl", 1, 5)
	fleetTrace(r, "e.jsonl", 0, 2)
	d := page(t, r)
	want := totals{Traces: 5, Lines: 5, Messages: 5, Errors: 5, Warnings: 12, Failed: 3, Warned: 1}
	if d.Totals != want {
		t.Errorf("totals %+v, want %+v", d.Totals, want)
	}
	var order []string
	for _, e := range d.List {
		order = append(order, e[1].(string))
	}
	if got := strings.Join(order, " "); got != "c.jsonl b.jsonl d.jsonl e.jsonl a.jsonl" {
		t.Errorf("listed %s, want the worst first", got)
	}
	if fmt.Sprint(d.Sides) != "[[client 0 12 3] [agent 5 0 3]]" {
		t.Errorf("by side %v", d.Sides)
	}
	if fmt.Sprint(d.ByRule) != "[[unstable 0 12 3] [schema 5 0 3]]" {
		t.Errorf("by rule %v", d.ByRule)
	}
	if d.Rules["schema"] != "help for schema" {
		t.Errorf("rule help %v", d.Rules)
	}
	// Each listed trace's data is on the line its row names.
	for _, e := range d.List {
		line := int(e[10].(float64))
		if line < 1 || line > len(d.Traces) || d.Traces[line-1].Name != e[1] || d.Traces[line-1].N != int(e[0].(float64)) {
			t.Errorf("row %v points at line %d of the data", e, line)
		}
	}
	if c := d.List[0]; fmt.Sprint(c[8], c[9]) != "[[agent 3 0]] [[schema 3]]" {
		t.Errorf("c.jsonl's sides and rules: %v %v", c[8], c[9])
	}
	if d.Unlisted.Traces != 0 || d.Left != 0 {
		t.Errorf("left out %+v and %d with every trace shown", d.Unlisted, d.Left)
	}
}

// TestOverviewBounds: past MaxListed the table keeps the worst traces and
// counts the others; past MaxDetailed or MaxDetailBytes the page holds the
// data of the worst only, and says how many it left out.
func TestOverviewBounds(t *testing.T) {
	r := New(Options{MaxListed: 10, MaxDetailed: 4})
	for i := range 100 {
		// Trace i has i%13 errors: the worst are those with 12.
		fleetTrace(r, fmt.Sprintf("t%03d.jsonl", i), i%13, 0)
	}
	d := page(t, r)
	if len(d.List) != 10 || d.Unlisted.Traces != 90 || d.Totals.Traces != 100 {
		t.Fatalf("listed %d, unlisted %+v, of %d", len(d.List), d.Unlisted, d.Totals.Traces)
	}
	errs := 0
	for i := range 100 {
		errs += i % 13
	}
	listedErrs := 0
	for _, e := range d.List {
		listedErrs += int(e[2].(float64))
	}
	if listedErrs+d.Unlisted.Errors != errs || d.Totals.Errors != errs {
		t.Errorf("listed %d + unlisted %d errors, totals %d, want %d", listedErrs, d.Unlisted.Errors, d.Totals.Errors, errs)
	}
	// 12 errors: traces 12, 25, 38, 51, 64, 77, 90; then 11: 11, 24, 37.
	var names []string
	for _, e := range d.List {
		names = append(names, e[1].(string))
	}
	if got := strings.Join(names, " "); got != "t012.jsonl t025.jsonl t038.jsonl t051.jsonl t064.jsonl t077.jsonl t090.jsonl t011.jsonl t024.jsonl t037.jsonl" {
		t.Errorf("listed %s", got)
	}
	if len(d.Traces) != 4 || d.Left != 6 {
		t.Errorf("%d traces held whole, %d left out; want 4 and 6", len(d.Traces), d.Left)
	}
	for i, e := range d.List {
		if held := e[10].(float64) > 0; held != (i < 4) {
			t.Errorf("row %d (%s) held %v", i, e[1], held)
		}
	}

	// A bound in bytes: the worst trace always, then those that fit.
	r = New(Options{MaxDetailBytes: 1})
	for i := range 5 {
		fleetTrace(r, fmt.Sprintf("t%d.jsonl", i), i, 0)
	}
	d = page(t, r)
	if len(d.Traces) != 1 || d.Traces[0].Name != "t4.jsonl" || d.Left != 4 {
		t.Errorf("with a 1-byte bound the page holds %d traces (left %d)", len(d.Traces), d.Left)
	}

	// The traces at the top of the table, while they fit: not the third
	// when the second does not fit, so that the page holds a top of the
	// table, as it says.
	r = New(Options{MaxDetailBytes: 8 << 10})
	fleetTrace(r, "worst.jsonl", 3, 0)
	big := `{"jsonrpc":"2.0","method":"x","params":{"t":"` + strings.Repeat("b", 20<<10) + `"}}`
	r.Message("big.jsonl", Message{Line: 1, Data: []byte(big), Parsed: true})
	r.Finding(finding.Finding{File: "big.jsonl", Line: 1, Severity: finding.Error, Rule: "schema"})
	r.Finding(finding.Finding{File: "big.jsonl", Line: 1, Severity: finding.Error, Rule: "schema"})
	r.End("big.jsonl", finding.Summary{Files: 1, Lines: 1, Messages: 1, Errors: 2})
	fleetTrace(r, "third.jsonl", 1, 0)
	d = page(t, r)
	if len(d.Traces) != 1 || d.Traces[0].Name != "worst.jsonl" || d.Left != 2 {
		var held []string
		for _, tr := range d.Traces {
			held = append(held, tr.Name)
		}
		t.Errorf("the page holds %q (left %d), want the worst only", held, d.Left)
	}
}

// TestOverviewOfOneTrace: a report of one trace lists it, with its data.
func TestOverviewOfOneTrace(t *testing.T) {
	r := New(Options{})
	fleetTrace(r, "only.jsonl", 2, 1)
	d := page(t, r)
	if len(d.List) != 1 || len(d.Traces) != 1 || d.List[0][10].(float64) != 1 || d.Totals.Traces != 1 {
		t.Errorf("list %v, %d traces", d.List, len(d.Traces))
	}
	// And of none: an empty list.
	d = page(t, New(Options{}))
	if len(d.List) != 0 || len(d.Traces) != 0 || d.Totals.Traces != 0 {
		t.Errorf("an empty report lists %v", d.List)
	}
}

// TestFleetLeavesMemory: the traces past the bounds leave counts only:
// 5,000 traces of a 2 KB message and twenty findings each (over 20 MB if
// held) leave the live heap within a few spools' memory, and the page
// still counts every one.
func TestFleetLeavesMemory(t *testing.T) {
	r := New(Options{MaxListed: 200, MaxDetailed: 50})
	msg := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"text":"` + strings.Repeat("x", 2000) + `"}}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const n = 5000
	for i := range n {
		name := fmt.Sprintf("fleet/t%05d.jsonl", i)
		r.Message(name, Message{Line: 1, Data: msg, Label: "session/update", From: "agent", Parsed: true})
		for k := range 20 {
			r.Finding(finding.Finding{File: name, Line: 1, Severity: finding.Severity(k % 2), Rule: fmt.Sprintf("rule-%d", k), Side: "agent", Message: strings.Repeat("m", 50)})
		}
		r.End(name, finding.Summary{Files: 1, Lines: 1, Messages: 1, Errors: 10, Warnings: 10, ByRule: map[string]int{"rule-0": 20}})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 8*spool.Memory {
		t.Errorf("%d finished traces held %d KiB of heap, want at most %d KiB", n, grew>>10, 8*spool.Memory>>10)
	}
	d := page(t, r)
	if d.Totals.Traces != n || len(d.List) != 200 || len(d.Traces) != 50 || d.Unlisted.Traces != n-200 {
		t.Errorf("%d traces, %d listed, %d held, %d unlisted", d.Totals.Traces, len(d.List), len(d.Traces), d.Unlisted.Traces)
	}
}
