package htmlreport

import (
	"bytes"
	"container/heap"
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// The overview of a report of several traces: the run's totals, its
// findings by side and by rule, and a table of the traces, worst first.
// What it needs of a finished trace is counts and one row of the table; the
// table keeps the Options.MaxListed worst rows and the page the messages of
// the Options.MaxDetailed worst traces (up to Options.MaxDetailBytes), so
// that memory and the page stay bounded however many traces are checked.
// The rest is counted, and the page says what it left out.

// tally counts findings and the traces they are in.
type tally struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Traces   int `json:"traces"`
}

// totals are the counts of every trace of the report, listed or not.
type totals struct {
	Traces   int `json:"traces"`
	Lines    int `json:"lines"`
	Messages int `json:"messages"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	// Failed counts the traces with an error, Warned those with
	// warnings only.
	Failed int `json:"failed"`
	Warned int `json:"warned"`
}

// worst is a finished trace as the overview ranks it: by errors, then
// warnings, then the order it was checked in.
type worst struct {
	errors, warnings, n int
	row                 []byte // its row of the table (listHeap)
	off, size           int64  // its data in Report.details (detailHeap)
}

// worse reports whether a ranks before b.
func (a *worst) worse(b *worst) bool {
	if a.errors != b.errors {
		return a.errors > b.errors
	}
	if a.warnings != b.warnings {
		return a.warnings > b.warnings
	}
	return a.n < b.n
}

// worstHeap keeps the worst traces seen, the least bad of them on top (to
// be dropped when a worse one comes).
type worstHeap []*worst

func (h worstHeap) Len() int           { return len(h) }
func (h worstHeap) Less(i, j int) bool { return h[j].worse(h[i]) }
func (h worstHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstHeap) Push(x any)        { *h = append(*h, x.(*worst)) }
func (h *worstHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}

// admit reports whether w would be among the max worst of h.
func (h worstHeap) admit(w *worst, max int) bool {
	return len(h) < max || w.worse(h[0])
}

// add puts w in h, dropping the least bad if h then holds more than max;
// it returns the one dropped, or nil.
func (h *worstHeap) add(w *worst, max int) *worst {
	heap.Push(h, w)
	if h.Len() > max {
		return heap.Pop(h).(*worst)
	}
	return nil
}

// sorted returns h's traces, worst first (h is left unordered).
func (h worstHeap) sorted() []*worst {
	out := append([]*worst(nil), h...)
	sort.Slice(out, func(i, j int) bool { return out[i].worse(out[j]) })
	return out
}

// jsHead is the first line of the page's data: the overview, and what
// the page left out.
type jsHead struct {
	Title  string `json:"title"`
	Totals totals `json:"totals"`
	// Sides and ByRule: [name, errors, warnings, traces], most findings
	// first.
	Sides  [][]any `json:"sides"`
	ByRule [][]any `json:"byRule"`
	// Rules describes the rules of the findings.
	Rules map[string]string `json:"rules"`
	// List is the table of traces, worst first: [n, name, errors,
	// warnings, lines, messages, protocol, dialect, [[side, errors,
	// warnings]...], [[rule, findings]...], the trace's line of the
	// data (0: its messages are not in the page)].
	List [][]any `json:"-"`
	// Unlisted counts the traces not in List.
	Unlisted tally `json:"unlisted"`
	// Left is the number of listed traces whose messages the page does
	// not hold; MaxDetailed and MaxDetailBytes are the bounds that left
	// them out.
	Left           int   `json:"left"`
	MaxListed      int   `json:"maxListed"`
	MaxDetailed    int   `json:"maxDetailed"`
	MaxDetailBytes int64 `json:"maxDetailBytes"`
	DetailBytes    int64 `json:"detailBytes"`
}

// sortedTallies lists m most findings first, then by name, as [name,
// errors, warnings, traces].
func sortedTallies(m map[string]*tally) [][]any {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := m[keys[i]], m[keys[j]]
		if x, y := a.Errors+a.Warnings, b.Errors+b.Warnings; x != y {
			return x > y
		}
		return keys[i] < keys[j]
	})
	out := make([][]any, len(keys))
	for i, k := range keys {
		t := m[k]
		out[i] = []any{k, t.Errors, t.Warnings, t.Traces}
	}
	return out
}

// maxRowRules bounds the rules a row of the table names (the most
// frequent in the trace).
const maxRowRules = 64

// overviewRow counts t, and returns its rank and row of the table.
func (r *Report) overviewRow(t *traceData) *worst {
	tot := &r.totals
	tot.Traces++
	tot.Lines += t.sum.Lines
	tot.Messages += t.sum.Messages
	tot.Errors += t.sum.Errors
	tot.Warnings += t.sum.Warnings
	switch {
	case t.sum.Errors > 0:
		tot.Failed++
	case t.sum.Warnings > 0:
		tot.Warned++
	}
	sides, rules := map[string]*tally{}, map[string]*tally{}
	for _, f := range t.findings {
		for _, c := range []struct {
			m   map[string]*tally
			key string
		}{{sides, f.side}, {rules, f.rule}} {
			k := c.m[c.key]
			if k == nil {
				k = &tally{}
				c.m[c.key] = k
			}
			if f.warning {
				k.Warnings++
			} else {
				k.Errors++
			}
		}
	}
	for _, c := range []struct{ from, into map[string]*tally }{{sides, r.sides}, {rules, r.byRule}} {
		for k, n := range c.from {
			all := c.into[k]
			if all == nil {
				all = &tally{}
				c.into[k] = all
			}
			all.Errors += n.Errors
			all.Warnings += n.Warnings
			all.Traces++
		}
	}
	rowSides := make([][]any, 0, len(sides))
	for _, s := range sortedTallies(sides) {
		rowSides = append(rowSides, s[:3])
	}
	rowRules := sortedCounts(t.sum.ByRule)
	if len(rowRules) > maxRowRules {
		rowRules = rowRules[:maxRowRules]
	}
	proto, dialect := "", ""
	if len(t.sum.Detected) > 0 {
		proto, dialect = inert(t.sum.Detected[0].Protocol), inert(t.sum.Detected[0].Dialect)
	}
	w := &worst{errors: t.sum.Errors, warnings: t.sum.Warnings, n: t.n}
	if !r.listed.admit(w, r.opts.MaxListed) {
		r.unlist(w)
		return w
	}
	row, err := json.Marshal([]any{t.n, inert(t.name), t.sum.Errors, t.sum.Warnings, t.sum.Lines, t.sum.Messages, proto, dialect, rowSides, rowRules})
	if err != nil {
		r.fail(fmt.Errorf("htmlreport: encoding the data: %w", err))
		return w
	}
	w.row = row
	if out := r.listed.add(w, r.opts.MaxListed); out != nil {
		r.unlist(out)
	}
	return w
}

// unlist counts a trace the table leaves out.
func (r *Report) unlist(w *worst) {
	r.unlisted.Traces++
	r.unlisted.Errors += w.errors
	r.unlisted.Warnings += w.warnings
}

func (r *Report) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// writeData writes the page's data: the head, then one line per trace
// whose messages the page holds, read back from the spool.
func (r *Report) writeData(w io.Writer) error {
	listed := r.listed.sorted()
	cands := r.detailed.sorted()
	// The worst traces, while their data fits: the worst one always. (The
	// page then holds the messages of the traces at the top of the
	// table, as it says.)
	var size int64
	var shown []*worst
	for _, c := range cands {
		if len(shown) > 0 && size+c.size > r.opts.MaxDetailBytes {
			break
		}
		size += c.size
		shown = append(shown, c)
	}
	// In the data, in the order of the spool, to read it once.
	sort.Slice(shown, func(i, j int) bool { return shown[i].off < shown[j].off })
	line := map[int]int{}
	for i, c := range shown {
		line[c.n] = i + 1
	}
	head := jsHead{Title: inert(r.opts.Title), Totals: r.totals, Sides: sortedTallies(r.sides), ByRule: sortedTallies(r.byRule),
		Rules: r.rules, Unlisted: r.unlisted, Left: len(listed) - len(shown), MaxListed: r.opts.MaxListed,
		MaxDetailed: r.opts.MaxDetailed, MaxDetailBytes: r.opts.MaxDetailBytes, DetailBytes: size}
	b, err := marshalHTML(head)
	if err != nil {
		return err
	}
	// The list is written row by row, each row as spooled, with its line
	// of the data.
	b = bytes.TrimSuffix(b, []byte("}"))
	var buf bytes.Buffer
	buf.Write(b)
	buf.WriteString(`,"list":[`)
	for i, l := range listed {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(bytes.TrimSuffix(l.row, []byte("]")))
		fmt.Fprintf(&buf, ",%d]", line[l.n])
		if buf.Len() > 64<<10 {
			if _, err := buf.WriteTo(w); err != nil {
				return err
			}
		}
	}
	buf.WriteString("]}")
	if _, err := buf.WriteTo(w); err != nil {
		return err
	}
	if len(shown) == 0 {
		return nil
	}
	rd, err := r.details.Reader()
	if err != nil {
		return fmt.Errorf("htmlreport: %w", err)
	}
	var at int64
	for _, c := range shown {
		if _, err := io.CopyN(io.Discard, rd, c.off-at); err != nil {
			return fmt.Errorf("htmlreport: reading back the data: %w", err)
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		if _, err := io.CopyN(w, rd, c.size); err != nil {
			return fmt.Errorf("htmlreport: reading back the data: %w", err)
		}
		at = c.off + c.size
	}
	return nil
}

// marshalHTML encodes v as JSON with <, > and & escaped, without the
// encoder's newline.
func marshalHTML(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("htmlreport: encoding the data: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
