package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate"
)

// Text is --format text: one line per finding (FindingText), then a
// summary that lists every trace and the findings by rule (with
// Options.Verbose, the messages by type too), and with Options.Coverage
// each trace's requirements.
type Text struct {
	out
	opts   Options
	traces traceList
	// wrote is set once a finding is written: the summary then starts
	// after a blank line.
	wrote bool
}

// NewText returns a Text writer on w.
func NewText(w io.Writer, o Options) *Text {
	t := &Text{out: newOut(w), opts: o}
	t.release = t.traces.reset
	return t
}

// Finding writes f as one line.
func (t *Text) Finding(f validate.Finding) {
	t.traces.finding(f)
	if t.err != nil {
		return
	}
	t.wrote = true
	_, t.err = fmt.Fprintln(t.w, FindingText(f))
}

// EndTrace keeps what the trace was read as, for the summary.
func (t *Text) EndTrace(name string, sum validate.Summary) {
	if t.err == nil {
		t.err = t.traces.end(&t.out, name, sum)
	}
	t.Flush()
}

// End writes the summary (unless Options.NoSummary) and, with
// Options.Coverage, each trace's requirements.
func (t *Text) End(s Totals) {
	if t.err != nil {
		return
	}
	if !t.opts.NoSummary {
		t.summary(s, true)
	}
	if t.opts.Coverage {
		t.coverage(s.Summary)
	}
}

// FindingText renders FILE:LINE: SEVERITY: POINTER: MESSAGE [RULE
// REQUIREMENT, SIDE] (the requirement and side where known; FILE:
// SEVERITY: … for a finding about the whole file), each part escaped by
// EscapeText.
func FindingText(f validate.Finding) string {
	var sb strings.Builder
	sb.Grow(len(f.File) + len(f.Pointer) + len(f.Message) + len(f.Rule) + len(f.Requirement) + len(f.Side) + 32)
	writeEscaped(&sb, f.File, nil)
	if f.Line > 0 { // none for a finding about the whole file (it could not be read)
		var num [20]byte
		sb.WriteByte(':')
		sb.Write(strconv.AppendInt(num[:0], int64(f.Line), 10))
	}
	sb.WriteString(": ")
	sb.WriteString(f.Severity.String())
	sb.WriteString(": ")
	if f.Pointer != "" {
		writeEscaped(&sb, f.Pointer, nil)
		sb.WriteString(": ")
	}
	writeEscaped(&sb, f.Message, nil)
	// f.Tag(), escaped.
	sb.WriteString(" [")
	writeEscaped(&sb, f.Rule, nil)
	if f.Requirement != "" {
		sb.WriteByte(' ')
		writeEscaped(&sb, f.Requirement, nil)
	}
	if f.Side != "" {
		sb.WriteString(", ")
		writeEscaped(&sb, f.Side, nil)
	}
	sb.WriteByte(']')
	return sb.String()
}

// summary writes the summary's first line and, if whole, what each trace
// was read as, its types and rules.
func (t *Text) summary(s Totals, whole bool) {
	w := t.w
	line := summaryLine(s)
	if !t.wrote {
		line = line[1:] // nothing above to set it apart from
	}
	fmt.Fprint(w, line)
	if !whole {
		return
	}
	fmt.Fprint(w, sideLine(s))
	if err := t.traces.each(&t.out, s.Summary, true, func(d JSONDetected, _ []byte, noisy bool) error {
		proto := d.Protocol
		if proto == "" {
			proto = "no protocol recognised"
		}
		if !t.opts.Verbose && !noisy && d.Protocol != "" {
			_, err := fmt.Fprintf(w, "  %s: %s %s, no findings\n", EscapeText(d.File), EscapeText(proto), EscapeText(d.Dialect))
			return err
		}
		fmt.Fprintf(w, "  %s: %s %s\n", EscapeText(d.File), EscapeText(proto), EscapeText(d.Dialect))
		if d.Note != "" {
			fmt.Fprintf(w, "    %s\n", EscapeText(d.Note))
		}
		if len(d.Peers) > 0 {
			var peers []string
			for _, p := range d.Peers {
				peers = append(peers, p.Side+" "+strings.TrimSpace(p.Name+" "+p.Version))
			}
			fmt.Fprintf(w, "    %s\n", EscapeText(strings.Join(peers, "; ")))
		}
		if c := d.Coverage; c != nil {
			where := "--coverage lists them"
			if t.opts.Coverage {
				where = "listed below"
			}
			fmt.Fprintf(w, "    requirements: %d exercised and held, %d violated, %d checked but not exercised, %d not checked (%s)\n", len(c.Exercised), len(c.Violated), len(c.Unexercised), len(c.Unchecked), where)
		}
		return nil
	}); err != nil {
		t.err = err
		return
	}
	if len(s.ByType) > 0 && t.opts.Verbose {
		fmt.Fprintln(w, "messages by type:")
		for _, k := range validate.SortedKeys(s.ByType) {
			fmt.Fprintf(w, "  %8d  %s\n", s.ByType[k], EscapeText(k))
		}
	}
	if len(s.ByRule) > 0 {
		fmt.Fprintln(w, "findings by rule:")
		for _, k := range validate.SortedKeys(s.ByRule) {
			fmt.Fprintf(w, "  %8d  %s\n", s.ByRule[k], EscapeText(k))
		}
	}
}

// summaryLine is the summary's first line, after a blank line.
func summaryLine(s Totals) string {
	known := ""
	if s.Known > 0 {
		known = fmt.Sprintf(" (and %d known from the baseline, not shown)", s.Known)
	}
	return fmt.Sprintf("\nsummary: %s, %s, %s: %s, %s%s\n", Plural(s.Files, "file"), Plural(s.Lines, "line"), Plural(s.Messages, "message"), Plural(s.Errors, "error"), Plural(s.Warnings, "warning"), known)
}

// coverage writes what the traces showed of their catalogues: for one
// trace (or with Options.Verbose, for each) the rows it violated,
// exercised and never reached, and for more than one the combined view of
// each version.
func (t *Text) coverage(s validate.Summary) {
	if t.err != nil {
		return
	}
	var all combinedCoverage
	n := 0
	t.err = t.traces.each(&t.out, s, true, func(d JSONDetected, _ []byte, _ bool) error {
		if d.Coverage != nil {
			all.add(d)
			n++
		}
		return nil
	})
	if t.err != nil || n == 0 {
		return
	}
	if n == 1 || t.opts.Verbose {
		t.err = t.traces.each(&t.out, s, true, t.traceCoverage)
	}
	if n > 1 && t.err == nil {
		t.err = all.write(t.w)
	}
}

// traceCoverage writes the rows one trace violated, exercised and never
// reached.
func (t *Text) traceCoverage(d JSONDetected, _ []byte, _ bool) error {
	c := d.Coverage
	if c == nil {
		return nil
	}
	w := t.w
	fmt.Fprintf(w, "\ncoverage of %s (%s %s):\n", EscapeText(d.File), EscapeText(d.Protocol), EscapeText(d.Dialect))
	for _, part := range []struct {
		what string
		ids  []string
	}{{"violated", c.Violated}, {"exercised", c.Exercised}, {"not exercised", c.Unexercised}} {
		for _, id := range part.ids {
			fmt.Fprintf(w, "  %-14s %s\n", part.what, EscapeText(id))
		}
	}
	_, err := fmt.Fprintf(w, "  %d rows are not checked by any rule (validate --list-rules)\n", len(c.Unchecked))
	return err
}

// Plural is "1 noun" or "N nouns".
func Plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
