package main

import (
	"github.com/agentproto/agentproto/internal/spool"
	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/report"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestGrowingFileIsReadToItsSizeAtOpen: a trace appended to while it is
// checked is checked as it was when opened, so a writer faster than the
// reader cannot keep the check going: what is appended after the open is
// not read.
func TestGrowingFileIsReadToItsSizeAtOpen(t *testing.T) {
	p := filepath.Join(t.TempDir(), "grow.jsonl")
	first := strings.Repeat(acpInit+"\n", 100)
	if err := os.WriteFile(p, []byte(first), 0o644); err != nil {
		t.Fatal(err)
	}
	r, c, err := openTrace(p, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	w, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Appended after the open, between the reads: ten times the size.
	more := []byte(strings.Repeat(acpNew+"\n", 1000))
	buf := make([]byte, 512)
	var got []byte
	for {
		if _, err := w.Write(more); err != nil {
			t.Fatal(err)
		}
		n, err := r.Read(buf)
		got = append(got, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > len(first) {
			t.Fatalf("read %d bytes of a file that had %d when opened", len(got), len(first))
		}
	}
	if string(got) != first {
		t.Errorf("read %d bytes, want the %d the file had when opened", len(got), len(first))
	}
}

// TestJUnitHoldsNoFindings: JUnit output keeps a trace's elements in
// spools, not its findings: 200,000 findings of one trace leave the live
// heap within a few spools' memory (holding them took over 600 MB for a
// million), and the suite written when the trace ends holds every one.
func TestJUnitHoldsNoFindings(t *testing.T) {
	var out countingWriter
	p := report.NewJUnit(&out, report.Options{})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const n = 200000
	for i := 1; i <= n; i++ {
		sev := validate.Error
		if i%4 == 0 {
			sev = validate.Warning
		}
		p.Finding(validate.Finding{File: "t.jsonl", Line: i, Severity: sev, Rule: "schema", Pointer: "/params/x", Message: "a message <&> long enough to count, line " + strconv.Itoa(i)})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 8*spool.Memory {
		t.Errorf("%d findings held %d KiB of heap, want at most %d KiB", n, grew>>10, 8*spool.Memory>>10)
	}
	p.EndTrace("t.jsonl", validate.Summary{})
	p.End(report.Totals{})
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	head := out.head.String()
	if !strings.Contains(head, `<testsuite name="t.jsonl" tests="1" failures="1" errors="0" skipped="0">`) || !strings.Contains(head, "(and 149999 more errors)") {
		t.Errorf("suite header: %s", head)
	}
	// One failure listing the errors and one system-out listing the
	// warnings: a line each.
	if out.failures != 1 || out.systemOut != 1 || out.lines < n || !strings.HasSuffix(out.tail, "</testsuites>\n") {
		t.Errorf("wrote %d failures, %d system-out and %d lines, ending %q", out.failures, out.systemOut, out.lines, out.tail)
	}
}

// countingWriter keeps the start and the end of what is written and
// counts the elements of interest, without holding the output.
type countingWriter struct {
	head                strings.Builder
	tail                string
	failures, systemOut int
	lines               int
	carry               string
}

func (w *countingWriter) Write(b []byte) (int, error) {
	if w.head.Len() < 4096 {
		w.head.Write(b[:min(len(b), 4096)])
	}
	w.lines += strings.Count(string(b), "\n")
	s := w.carry + string(b)
	w.failures += strings.Count(s, "<failure ")
	w.systemOut += strings.Count(s, "<system-out>")
	// An element name cut between two writes is counted with the next.
	if i := strings.LastIndexByte(s, '<'); i >= 0 && len(s)-i < 16 {
		w.failures -= strings.Count(s[i:], "<failure ")
		w.systemOut -= strings.Count(s[i:], "<system-out>")
		w.carry = s[i:]
	} else {
		w.carry = ""
	}
	w.tail = s[max(0, len(s)-64):]
	return len(b), nil
}
