package htmlreport

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
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

// jsReport is the page's data, as WriteTo writes it (in parts).
type jsReport struct {
	Title  string     `json:"title"`
	Traces []*jsTrace `json:"traces"`
	// Rules describes the rules of the findings shown.
	Rules map[string]string `json:"rules"`
}

// jsTraceOf returns t as the page's script reads it, and adds the rules of
// its findings to rules.
func (r *Report) jsTraceOf(t *traceData, rules map[string]string) *jsTrace {
	jt := &jsTrace{Name: inert(t.name), Peers: map[string]string{}, Lines: t.sum.Lines, Messages: t.sum.Messages,
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
	drawn := drawing(jt.Protocol)
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
		if _, ok := rules[f.rule]; !ok && r.opts.RuleHelp != nil {
			rules[f.rule] = inert(r.opts.RuleHelp(f.rule))
		}
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

// keepEnded writes the traces that have ended, from the first on, to the
// spool of the page's data and forgets them: memory holds only the traces
// still being read.
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

// keep adds t's JSON to the spool of the page's data.
func (r *Report) keep(t *traceData) {
	if r.err != nil {
		return
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(r.jsTraceOf(t, r.rules)); err != nil {
		r.err = fmt.Errorf("htmlreport: encoding the data: %w", err)
		return
	}
	if r.kept > 0 {
		r.done.WriteString(",")
	}
	r.kept++
	if _, err := r.done.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n"))); err != nil {
		r.err = fmt.Errorf("htmlreport: %w", err)
	}
}

// WriteTo writes the page.
func (r *Report) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: bufio.NewWriterSize(w, 256<<10)}
	fmt.Fprintf(cw, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n", html.EscapeString(csp))
	fmt.Fprintf(cw, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"referrer\" content=\"no-referrer\">\n<title>%s</title>\n", html.EscapeString(inert(r.opts.Title)))
	fmt.Fprintf(cw, "<style>%s</style>\n</head>\n<body>\n", pageCSS)
	fmt.Fprintf(cw, "<noscript><p>This report shows its traces with its own script, which the browser did not run. The findings, as text, are what <code>validate</code> prints without <code>--format html</code>.</p></noscript>\n")
	// The data: JSON, with <, > and & escaped by encoding/json (so no
	// "</script" can occur), in a script element the browser never runs.
	cw.WriteString("<script type=\"application/json\" id=\"report-data\">")
	// It is jsReport, written in parts: the traces come from the spool.
	for _, t := range r.traces {
		r.keep(t)
	}
	r.traces = nil
	defer r.done.Reset()
	if r.err != nil {
		return cw.n, r.err
	}
	title, err := json.Marshal(inert(r.opts.Title)) // escapes <, > and & as before
	if err != nil {
		return cw.n, fmt.Errorf("htmlreport: encoding the data: %w", err)
	}
	cw.WriteString(`{"title":` + string(title) + `,"traces":[`)
	if err := r.done.CopyTo(cw); err != nil {
		return cw.n, err
	}
	cw.WriteString(`],"rules":`)
	rules, err := json.Marshal(r.rules)
	if err != nil {
		return cw.n, fmt.Errorf("htmlreport: encoding the data: %w", err)
	}
	cw.Write(rules)
	cw.WriteString("}\n</script>\n")
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
