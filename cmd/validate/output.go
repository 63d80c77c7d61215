package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate"
)

// printer writes findings and the summary in one of the output formats.
type printer struct {
	format string
	w      *bufio.Writer
	enc    *json.Encoder
	werr   error
}

func newPrinter(format string, w io.Writer) *printer {
	bw := bufio.NewWriterSize(w, 64<<10)
	p := &printer{format: format, w: bw}
	p.enc = json.NewEncoder(bw)
	p.enc.SetEscapeHTML(false)
	return p
}

// jsonFinding is the --format json shape of a finding. Field names and
// types are a contract (cmd/validate/README.md): change them additively only.
type jsonFinding struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Severity string `json:"severity"`
	Protocol string `json:"protocol"`
	Dialect  string `json:"dialect"`
	Rule     string `json:"rule"`
	Pointer  string `json:"pointer"`
	Message  string `json:"message"`
}

// jsonSummary is the last line of --format json.
type jsonSummary struct {
	Summary struct {
		Files    int            `json:"files"`
		Lines    int            `json:"lines"`
		Messages int            `json:"messages"`
		Errors   int            `json:"errors"`
		Warnings int            `json:"warnings"`
		ByRule   map[string]int `json:"by_rule"`
		ByType   map[string]int `json:"by_type"`
		Detected []jsonDetected `json:"detected"`
	} `json:"summary"`
}

type jsonDetected struct {
	File     string `json:"file"`
	Protocol string `json:"protocol"`
	Dialect  string `json:"dialect"`
	Note     string `json:"note,omitempty"`
}

func (p *printer) finding(f validate.Finding) {
	if p.werr != nil {
		return
	}
	switch p.format {
	case "json":
		p.werr = p.enc.Encode(jsonFinding{
			File: f.File, Line: f.Line, Severity: f.Severity.String(), Protocol: f.Protocol,
			Dialect: f.Dialect, Rule: f.Rule, Pointer: f.Pointer, Message: f.Message,
		})
	case "github":
		_, p.werr = fmt.Fprintln(p.w, githubAnnotation(f))
	default:
		_, p.werr = fmt.Fprintln(p.w, textFinding(f))
	}
}

// textFinding renders FILE:LINE: SEVERITY: POINTER: MESSAGE [RULE].
func textFinding(f validate.Finding) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s:%d: %s: ", f.File, f.Line, f.Severity)
	if f.Pointer != "" {
		sb.WriteString(f.Pointer)
		sb.WriteString(": ")
	}
	sb.WriteString(f.Message)
	fmt.Fprintf(&sb, " [%s]", f.Rule)
	return sb.String()
}

// githubAnnotation renders a workflow command, escaped as GitHub Actions
// requires: % CR LF in the message; also : and , in properties.
func githubAnnotation(f validate.Finding) string {
	level := "error"
	if f.Severity == validate.Warning {
		level = "warning"
	}
	props := []string{"file=" + escapeProperty(f.File)}
	if f.Line > 0 {
		props = append(props, fmt.Sprintf("line=%d", f.Line))
	}
	title := f.Rule
	if f.Protocol != "" {
		title = f.Protocol + " " + f.Rule
	}
	props = append(props, "title="+escapeProperty(title))
	msg := f.Message
	if f.Pointer != "" {
		msg = f.Pointer + ": " + msg
	}
	return fmt.Sprintf("::%s %s::%s", level, strings.Join(props, ","), escapeData(msg))
}

func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

func (p *printer) summary(s validate.Summary) {
	if p.werr != nil {
		return
	}
	if p.format == "json" {
		var js jsonSummary
		js.Summary.Files, js.Summary.Lines, js.Summary.Messages = s.Files, s.Lines, s.Messages
		js.Summary.Errors, js.Summary.Warnings = s.Errors, s.Warnings
		js.Summary.ByRule, js.Summary.ByType = s.ByRule, s.ByType
		if js.Summary.ByRule == nil {
			js.Summary.ByRule = map[string]int{}
		}
		if js.Summary.ByType == nil {
			js.Summary.ByType = map[string]int{}
		}
		js.Summary.Detected = []jsonDetected{}
		for _, d := range s.Detected {
			js.Summary.Detected = append(js.Summary.Detected, jsonDetected{File: d.File, Protocol: d.Protocol, Dialect: d.Dialect, Note: d.Note})
		}
		p.werr = p.enc.Encode(js)
		return
	}
	w := p.w
	fmt.Fprintf(w, "\nsummary: %s, %s, %s: %s, %s\n", plural(s.Files, "file"), plural(s.Lines, "line"), plural(s.Messages, "message"), plural(s.Errors, "error"), plural(s.Warnings, "warning"))
	if p.format == "github" {
		return
	}
	for _, d := range s.Detected {
		proto := d.Protocol
		if proto == "" {
			proto = "no protocol recognised"
		}
		fmt.Fprintf(w, "  %s: %s %s\n", d.File, proto, d.Dialect)
		if d.Note != "" {
			fmt.Fprintf(w, "    %s\n", d.Note)
		}
	}
	if len(s.ByType) > 0 {
		fmt.Fprintln(w, "messages by type:")
		for _, k := range validate.SortedKeys(s.ByType) {
			fmt.Fprintf(w, "  %8d  %s\n", s.ByType[k], k)
		}
	}
	if len(s.ByRule) > 0 {
		fmt.Fprintln(w, "findings by rule:")
		for _, k := range validate.SortedKeys(s.ByRule) {
			fmt.Fprintf(w, "  %8d  %s\n", s.ByRule[k], k)
		}
	}
}

func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// flush writes out what is buffered, so that findings show file by file.
func (p *printer) flush() {
	if err := p.w.Flush(); err != nil && p.werr == nil {
		p.werr = err
	}
}

// err flushes the output and reports the first write error.
func (p *printer) err() error {
	if err := p.w.Flush(); err != nil && p.werr == nil {
		p.werr = err
	}
	return p.werr
}
