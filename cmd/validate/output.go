package main

import (
	"io"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/report"
)

// The output formats are package report's; the command picks one by its
// --format name and escapes what it says on stderr as the text format does.

// escapeText makes s inert on a terminal (report.EscapeText).
func escapeText(s string) string { return report.EscapeText(s) }

// plural is "1 noun" or "N nouns".
func plural(n int, noun string) string { return report.Plural(n, noun) }

// orList writes names as a sentence: "a, b or c".
func orList(names []string) string { return report.OrList(names) }

// newWriter returns the writer of the format named format, of report's
// formats or extra (text for a name they lack).
func newWriter(format string, w io.Writer, o report.Options, extra ...report.Format) report.Writer {
	if out, ok := report.New(format, w, o, extra...); ok {
		return out
	}
	return report.NewText(w, o)
}

// records returns what out is told of each record of the trace name, if
// it draws them; nil if not.
func records(out report.Writer, name string) func(validate.MessageInfo) {
	if r, ok := out.(report.RecordWriter); ok {
		return r.Records(name)
	}
	return nil
}

// The --format json shapes, by the names the command's tests know them.
type (
	jsonFinding = report.JSONFinding
	jsonSummary = report.JSONSummary
)
