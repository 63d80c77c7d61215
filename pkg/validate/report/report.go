package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate"
)

// Writer writes one output format. Its methods are called from one
// goroutine: Finding for each finding, EndTrace once each trace is
// checked, then End and Close. After a write error every call does
// nothing and Err reports it.
type Writer interface {
	// Finding writes (or keeps, for a format written at the end) one
	// finding.
	Finding(f validate.Finding)
	// EndTrace ends the trace name, whose summary is sum; what sum.Detected
	// says of it is kept for the run's summary out of memory.
	EndTrace(name string, sum validate.Summary)
	// End ends the run: t are its counts, and its Detected lists only the
	// traces no EndTrace was given.
	End(t Totals)
	// Flush writes out what is buffered and returns Err.
	Flush() error
	// Err is the first write error, if any.
	Err() error
	// Close flushes the output, drops what was kept for the summary and
	// returns Err. It is the last call.
	Close() error
}

// RecordWriter is a Writer that draws each record of a trace too (the
// HTML report shows every message): Records returns what is told each
// record of the trace name (validate.FileOptions.Message).
type RecordWriter interface {
	Writer
	Records(name string) func(validate.MessageInfo)
}

// Totals are what End is told of a run.
type Totals struct {
	validate.Summary
	// Known is the number of findings a baseline held back.
	Known int
	// Incomplete is set when a trace could not be read to its end or the
	// run was stopped (SARIF's invocation then did not succeed).
	Incomplete bool
	// BySide counts the findings of each side at fault, by the name the
	// findings give it ("" for findings that blame no side), including
	// those of sides Sides leaves out.
	BySide map[string]SideCount
	// Sides, if set, are the only sides whose findings were written and
	// counted in Summary (--side); findings that blame no side always are.
	Sides []string
}

// SideCount is what the findings of one side came to.
type SideCount struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// AddSide counts f in t.BySide.
func (t *Totals) AddSide(f validate.Finding) {
	if t.BySide == nil {
		t.BySide = map[string]SideCount{}
	}
	c := t.BySide[f.Side]
	if f.Severity == validate.Warning {
		c.Warnings++
	} else {
		c.Errors++
	}
	t.BySide[f.Side] = c
}

// MergeSides adds the per-side counts of o to t, and takes its Sides if
// t has none.
func (t *Totals) MergeSides(o Totals) {
	for side, c := range o.BySide {
		if t.BySide == nil {
			t.BySide = map[string]SideCount{}
		}
		s := t.BySide[side]
		s.Errors += c.Errors
		s.Warnings += c.Warnings
		t.BySide[side] = s
	}
	if len(t.Sides) == 0 {
		t.Sides = o.Sides
	}
}

// Counted reports whether the findings of side are counted in t.
func (t Totals) Counted(side string) bool {
	return len(t.Sides) == 0 || side == "" || slices.Contains(t.Sides, side)
}

// sideLine is the text summary's line of per-side totals ("" when no
// finding blames a side): each side's errors and warnings, those of the
// sides left out marked so.
func sideLine(t Totals) string {
	var parts []string
	for _, side := range slices.Sorted(maps.Keys(t.BySide)) {
		c := t.BySide[side]
		name := side
		if side == "" {
			name = "no side"
		}
		part := EscapeText(name) + " " + Plural(c.Errors, "error") + ", " + Plural(c.Warnings, "warning")
		if !t.Counted(side) {
			part += " (not counted)"
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 || len(parts) == 1 && t.BySide[""] != (SideCount{}) {
		return ""
	}
	line := "by side: " + strings.Join(parts, "; ")
	if len(t.Sides) > 0 {
		line += " (--side " + EscapeText(strings.Join(t.Sides, ",")) + ")"
	}
	return line + "\n"
}

// Options say what a Writer writes besides the findings.
type Options struct {
	// Verbose gives every trace's details in the text summary; without it
	// a trace with no finding gets one line.
	Verbose bool
	// NoSummary leaves out the text format's summary (the other formats'
	// summaries are part of their document).
	NoSummary bool
	// Coverage lists, after the text summary, the requirements each trace
	// violated, exercised and never reached.
	Coverage bool
	// Rules is where SARIF and HTML find the rules' descriptions and the
	// requirement catalogue.
	Rules Catalogue
}

// Format is one output format: its --format name, whether it can be
// written as findings come (a live check writes each at once), a few words
// that say what it is, and its Writer; and for the command's help, an
// example command line and what the format is for.
type Format struct {
	Name string
	Live bool
	Help string
	New  func(w io.Writer, o Options) Writer

	Example, Use string
}

// Formats lists the built-in formats, text first.
func Formats() []Format {
	return []Format{
		{Name: "text", Live: true, New: func(w io.Writer, o Options) Writer { return NewText(w, o) }},
		{Name: "json", Live: true, New: func(w io.Writer, o Options) Writer { return NewJSON(w, o) }},
		{Name: "github", Live: true, New: func(w io.Writer, o Options) Writer { return NewGitHub(w, o) }},
		{Name: "sarif", Help: "SARIF 2.1.0", New: func(w io.Writer, o Options) Writer { return NewSARIF(w, o) },
			Example: "validate --format sarif traces/ > validate.sarif", Use: "for code scanning"},
		testSuitesFormat(),
		{Name: "html", Help: "one self-contained page to look at", New: func(w io.Writer, o Options) Writer { return NewHTML(w, o) },
			Example: "validate --format html traces/ > report.html", Use: "the folder's totals and traces worst first; per trace both peers' messages in two lanes, requests linked to answers, every finding at its message (report.html#L14)"},
	}
}

// Lookup returns the format named name, of Formats or extra.
func Lookup(name string, extra ...Format) (Format, bool) {
	for _, f := range append(Formats(), extra...) {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// New returns a Writer of the format named name (of Formats or extra) on
// w; false when there is none.
func New(name string, w io.Writer, o Options, extra ...Format) (Writer, bool) {
	f, ok := Lookup(name, extra...)
	if !ok {
		return nil, false
	}
	return f.New(w, o), true
}

// Names lists the formats' names as a sentence ("text, json or github"),
// only the live ones if live is set.
func Names(live bool) string {
	var names []string
	for _, f := range Formats() {
		if f.Live || !live {
			names = append(names, f.Name)
		}
	}
	return OrList(names)
}

// Described lists the formats' names as Names does, then, in brackets,
// what the formats with Help are ("sarif: SARIF 2.1.0; …").
func Described() string {
	var help []string
	for _, f := range Formats() {
		if f.Help != "" {
			help = append(help, f.Name+": "+f.Help)
		}
	}
	return Names(false) + " (" + strings.Join(help, "; ") + ")"
}

// OrList writes names as a sentence: "a, b or c".
func OrList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// out is the buffered output of a Writer and its first error; every
// format embeds one.
type out struct {
	w   *bufio.Writer
	err error
	// One JSON value, before escapeJSONLine.
	buf bytes.Buffer
	enc *json.Encoder
	// release drops what the format kept for its summary (Close).
	release func()
}

func newOut(w io.Writer) out { return out{w: bufio.NewWriterSize(w, 64<<10)} }

// encoder returns the JSON encoder of o.buf, made on first use.
func (o *out) encoder() *json.Encoder {
	if o.enc == nil {
		o.enc = json.NewEncoder(&o.buf)
		o.enc.SetEscapeHTML(false)
	}
	return o.enc
}

// marshal encodes v into o.buf as one line, escaped by escapeJSONLine.
func (o *out) marshal(v any) ([]byte, error) {
	o.buf.Reset()
	if err := o.encoder().Encode(v); err != nil {
		return nil, err
	}
	return escapeJSONLine(o.buf.Bytes()), nil
}

// encodeJSON writes v as one line of JSON. encoding/json escapes C0
// controls, U+2028 and U+2029 and replaces invalid UTF-8; the characters it
// leaves raw that a terminal may act on (DEL, C1 controls, bidirectional
// overrides) are escaped too, which keeps the same JSON value.
func (o *out) encodeJSON(v any) error {
	b, err := o.marshal(v)
	if err != nil {
		return err
	}
	_, err = o.w.Write(b)
	return err
}

func (o *out) Err() error { return o.err }

func (o *out) Flush() error {
	if err := o.w.Flush(); err != nil && o.err == nil {
		o.err = err
	}
	return o.err
}

func (o *out) Close() error {
	if o.release != nil {
		o.release()
	}
	return o.Flush()
}
