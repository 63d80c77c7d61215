package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate"
)

// GitHub is --format github: a GitHub Actions workflow command
// (::error or ::warning) per finding, then the summary's first line.
type GitHub struct {
	out
}

// NewGitHub returns a GitHub writer on w.
func NewGitHub(w io.Writer, _ Options) *GitHub { return &GitHub{out: newOut(w)} }

// Finding writes f as a workflow command.
func (g *GitHub) Finding(f validate.Finding) {
	if g.err != nil {
		return
	}
	_, g.err = fmt.Fprintln(g.w, Annotation(f))
}

// EndTrace flushes what is written of the trace.
func (g *GitHub) EndTrace(string, validate.Summary) { g.Flush() }

// End writes the summary's first line.
func (g *GitHub) End(t Totals) {
	if g.err == nil {
		_, g.err = io.WriteString(g.w, summaryLine(t))
	}
}

// Annotation renders f as a workflow command, escaped as GitHub Actions
// requires: % CR LF in the message; also : and , in properties; other
// control characters as EscapeText shows them.
func Annotation(f validate.Finding) string {
	level := "error"
	if f.Severity == validate.Warning {
		level = "warning"
	}
	props := []string{"file=" + escape(filepath.ToSlash(f.File), githubProperty)}
	if f.Line > 0 {
		props = append(props, fmt.Sprintf("line=%d", f.Line))
	}
	title := f.Rule
	if f.Protocol != "" {
		title = f.Protocol + " " + f.Rule
	}
	if f.Requirement != "" {
		title += " / " + f.Requirement
	}
	if f.Side != "" {
		title += " (" + f.Side + ")"
	}
	props = append(props, "title="+escape(title, githubProperty))
	msg := f.Message
	if f.Pointer != "" {
		msg = f.Pointer + ": " + msg
	}
	return fmt.Sprintf("::%s %s::%s", level, strings.Join(props, ","), escape(msg, githubData))
}

// githubData reserves what ends or escapes the message of a workflow
// command: % CR LF.
func githubData(c byte) string {
	switch c {
	case '%':
		return "%25"
	case '\r':
		return "%0D"
	case '\n':
		return "%0A"
	}
	return ""
}

// githubProperty reserves, in a property value, what githubData does and
// what ends a property: : and ,.
func githubProperty(c byte) string {
	switch c {
	case ':':
		return "%3A"
	case ',':
		return "%2C"
	}
	return githubData(c)
}
