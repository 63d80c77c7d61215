package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/spool"
	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/report"
)

// TestFinishedTracesLeaveMemory: in every format, what a finished trace
// leaves for the end of the run (its line of the summary, with its
// coverage; its part of the HTML page) waits in a spool, not on the heap:
// 2,000 traces with a catalogue's coverage each (over 20 MB if held)
// leave the live heap within a few spools' memory, and the report written
// at the end still lists every one.
func TestFinishedTracesLeaveMemory(t *testing.T) {
	ids := make([]string, 300)
	for i := range ids {
		ids[i] = fmt.Sprintf("acp.requirement.row-%03d-of-a-long-catalogue", i)
	}
	const n = 2000
	for _, f := range report.Formats() {
		t.Run(f.Name, func(t *testing.T) {
			// The output goes to a file, so that the heap holds only
			// what the printer keeps.
			out, err := os.Create(filepath.Join(t.TempDir(), "report"))
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			p := newWriter(f.Name, out, report.Options{})
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for i := range n {
				name := fmt.Sprintf("traces/t%05d.jsonl", i)
				rec := records(p, name)
				if rec != nil {
					rec(validate.MessageInfo{Line: 1, Data: []byte(acpInit)})
				}
				p.Finding(validate.Finding{File: name, Line: 1, Severity: validate.Warning, Rule: "unanswered-request", Message: "never answered"})
				d := validate.Detected{File: name, Protocol: "acp", Dialect: "v1", Note: "ACP v1: initialize",
					Coverage: &validate.Coverage{Exercised: ids[:100], Unexercised: ids[100:200], Unchecked: ids[200:]}}
				p.EndTrace(name, validate.Summary{Files: 1, Lines: 1, Messages: 1, Warnings: 1, Detected: []validate.Detected{d}})
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 8*spool.Memory {
				t.Errorf("%d finished traces held %d KiB of heap, want at most %d KiB", n, grew>>10, 8*spool.Memory>>10)
			}
			p.End(report.Totals{Summary: validate.Summary{Files: n, Lines: n, Messages: n, Warnings: n}})
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(out.Name())
			if err != nil {
				t.Fatal(err)
			}
			report := string(b)
			if got := strings.Count(report, fmt.Sprintf("traces/t%05d.jsonl", n-1)); got == 0 {
				t.Errorf("the report does not name the last trace")
			}
			// The summary lists each trace with its coverage: JSON
			// each row, text their counts.
			want := map[string]string{"json": ids[150], "text": "requirements: 100 exercised and held, 0 violated, 100 checked but not exercised, 100 not checked"}[f.Name]
			if got := strings.Count(report, want); want != "" && got != n {
				t.Errorf("the summary lists a trace's coverage %d times, want once per trace, %d", got, n)
			}
		})
	}
}
