package htmlreport

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"sort"
	"strings"
)

// The page's style sheet and script, allowed by the Content-Security-Policy
// by their hashes.
var (
	//go:embed report.css
	pageCSS string
	//go:embed report.js
	pageJS string
)

// csp allows the page's own style sheet and script and nothing else: no
// other script, style, image, font, frame, connection, form or base URL.
var csp = "default-src 'none'; script-src '" + hash(pageJS) + "'; style-src '" + hash(pageCSS) + "'; img-src 'none'; base-uri 'none'; form-action 'none'"

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// jsTrace is one trace as the page's script reads it. Rows, findings and
// lifecycles are arrays rather than objects, to keep large reports small;
// report.js names their positions.
type jsTrace struct {
	N        int               `json:"n"` // the trace's number, 1 for the first begun
	Name     string            `json:"name"`
	Protocol string            `json:"protocol"`
	Dialect  string            `json:"dialect"`
	Note     string            `json:"note"`
	Peers    map[string]string `json:"peers"`
	Lanes    [2]string         `json:"lanes"`
	Lines    int               `json:"lines"`
	Messages int               `json:"messages"`
	Errors   int               `json:"errors"`
	Warnings int               `json:"warnings"`
	ByType   [][2]any          `json:"byType"`
	ByRule   [][2]any          `json:"byRule"`
	Groups   []string          `json:"groups"`
	// Rows: [n, line, from ("c", "a" or ""), label, brief, answers,
	// [group...], [lifecycle...], text, bytes cut].
	Rows [][]any `json:"rows"`
	// Findings: [line, "error"|"warning", rule, pointer, message,
	// requirement, side].
	Findings [][]any `json:"findings"`
	// Lives: [kind, id, group, [[line, state, more]...], steps left out].
	Lives   [][]any  `json:"lives"`
	Omitted int      `json:"omitted"`
	Ranges  [][2]int `json:"ranges"`
	Cut     int      `json:"cut"`
	// MoreLives and MoreGroups count what began a lifecycle or a
	// session, job or run past the bounds, not followed.
	MoreLives  int  `json:"moreLives"`
	MoreGroups int  `json:"moreGroups"`
	MaxLine    int  `json:"maxLine"`
	Bounded    bool `json:"bounded"`
}

// jsTraceOf returns t as the page's script reads it.
func (r *Report) jsTraceOf(t *traceData) *jsTrace {
	jt := &jsTrace{N: t.n, Name: inert(t.name), Peers: map[string]string{}, Lines: t.sum.Lines, Messages: t.sum.Messages,
		Errors: t.sum.Errors, Warnings: t.sum.Warnings, ByType: sortedCounts(t.sum.ByType), ByRule: sortedCounts(t.sum.ByRule),
		Groups: t.view.groups, MoreLives: t.view.moreLives, MoreGroups: t.view.moreGroups, Omitted: t.omitted, Ranges: t.ranges, Cut: t.cutLines, MaxLine: r.opts.MaxLine, Bounded: t.bounded}
	if jt.Groups == nil {
		jt.Groups = []string{}
	}
	if jt.Ranges == nil {
		jt.Ranges = [][2]int{}
	}
	if len(t.sum.Detected) > 0 {
		d := t.sum.Detected[0]
		jt.Protocol, jt.Dialect, jt.Note = inert(d.Protocol), inert(d.Dialect), inert(d.Note)
	}
	drawn := r.drawing(jt.Protocol)
	jt.Lanes = drawn.Lanes
	for side, names := range t.view.peers {
		jt.Peers[side] = inert(strings.Join(names, ", "))
	}
	for i, g := range jt.Groups {
		jt.Groups[i] = inert(g)
	}
	jt.Rows = make([][]any, 0, len(t.rows))
	for _, rw := range t.rows {
		from := ""
		switch {
		case rw.from == "client":
			from = "c"
		case rw.from == "agent", drawn.OneWay:
			from = "a"
		}
		groups, lives := rw.facts.groups, rw.facts.lives
		if groups == nil {
			groups = []int{}
		}
		if lives == nil {
			lives = []int{}
		}
		answers := rw.answers
		if answers == 0 {
			answers = rw.facts.answers
		}
		jt.Rows = append(jt.Rows, []any{rw.n, rw.line, from, inert(rw.label), inert(rw.facts.brief), answers, groups, lives, rw.text, rw.cut})
	}
	jt.Findings = make([][]any, 0, len(t.findings))
	for _, f := range t.findings {
		sev := "error"
		if f.warning {
			sev = "warning"
		}
		jt.Findings = append(jt.Findings, []any{f.line, sev, f.rule, f.pointer, f.message, f.requirement, f.side})
	}
	jt.Lives = make([][]any, 0, len(t.view.lives))
	for _, l := range t.view.lives {
		sort.SliceStable(l.steps, func(i, j int) bool { return l.steps[i].line < l.steps[j].line })
		steps := make([][]any, len(l.steps))
		for i, s := range l.steps {
			steps[i] = []any{s.line, inert(s.state), s.more}
		}
		jt.Lives = append(jt.Lives, []any{l.kind, inert(l.id), inert(l.group), steps, l.dropped})
	}
	return jt
}

// keepEnded counts the traces that have ended, from the first on, keeps
// what the page needs of them, and forgets them: memory holds only the
// traces still being read.
func (r *Report) keepEnded() {
	i := 0
	for ; i < len(r.traces) && r.traces[i].ended; i++ {
		r.keep(r.traces[i])
		r.traces[i] = nil
	}
	if i > 0 {
		r.traces = append(r.traces[:0], r.traces[i:]...)
	}
}

// keep counts t, keeps its row of the overview, and its data, if it is
// among the worst, in the spool of the page's data.
func (r *Report) keep(t *traceData) {
	if r.opts.RuleHelp != nil {
		for _, f := range t.findings {
			if _, ok := r.rules[f.rule]; !ok {
				r.rules[f.rule] = inert(r.opts.RuleHelp(f.rule))
			}
		}
	}
	w := r.overviewRow(t)
	if r.err != nil || !r.detailed.admit(w, r.opts.MaxDetailed) {
		return
	}
	b, err := marshalHTML(r.jsTraceOf(t))
	if err != nil {
		r.fail(err)
		return
	}
	w.off, w.size = r.details.Size(), int64(len(b))
	if _, err := r.details.Write(b); err != nil {
		r.fail(fmt.Errorf("htmlreport: %w", err))
		return
	}
	// The data of a trace it drops stays in the spool, not in the page.
	r.detailed.add(w, r.opts.MaxDetailed)
}

// WriteTo writes the page.
func (r *Report) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: bufio.NewWriterSize(w, 256<<10)}
	fmt.Fprintf(cw, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n", html.EscapeString(csp))
	fmt.Fprintf(cw, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"referrer\" content=\"no-referrer\">\n<title>%s</title>\n", html.EscapeString(inert(r.opts.Title)))
	fmt.Fprintf(cw, "<style>%s</style>\n</head>\n<body>\n", pageCSS)
	fmt.Fprintf(cw, "<noscript><p>This report shows its traces with its own script, which the browser did not run. The findings, as text, are what <code>validate</code> prints without <code>--format html</code>.</p></noscript>\n")
	// The data: JSON lines, the overview then a trace a line, with <, >
	// and & escaped by encoding/json (so no "</script" can occur), in a
	// script element the browser never runs.
	cw.WriteString("<script type=\"application/json\" id=\"report-data\">")
	for _, t := range r.traces {
		t.end(t.sum)
	}
	r.keepEnded()
	defer r.details.Reset()
	if r.err != nil {
		return cw.n, r.err
	}
	if err := r.writeData(cw); err != nil {
		return cw.n, err
	}
	cw.WriteString("\n</script>\n")
	fmt.Fprintf(cw, "<script>%s</script>\n</body>\n</html>\n", pageJS)
	if cw.err != nil {
		return cw.n, cw.err
	}
	if err := cw.w.(*bufio.Writer).Flush(); err != nil {
		return cw.n, err
	}
	return cw.n, nil
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

func (c *countWriter) WriteString(s string) { c.Write([]byte(s)) }
