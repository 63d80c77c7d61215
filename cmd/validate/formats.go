package main

import (
	"fmt"

	"github.com/agentproto/agentproto/internal/htmlreport"
	"github.com/agentproto/agentproto/pkg/validate"
)

// An output format is one entry of outputFormats: its --format name, whether
// the live tap can write it (a format that writes as findings come), and
// the printer that writes it. A new format is its printer's file and one
// entry here.
type outputFormat struct {
	name string
	live bool
	new  func() formatPrinter
}

// formatPrinter writes one output format: each finding, the end of each
// trace, and the end of the run. A finished trace's summary is given to
// endFile; end gets the run's counts, and in its Detected only what no
// endFile was given (memory does not grow with the number of traces).
type formatPrinter interface {
	finding(p *printer, f validate.Finding)
	endFile(p *printer, name string, sum validate.Summary)
	end(p *printer, s validate.Summary)
}

// tracesLister is a format whose summary lists every trace (end reads
// them back through printer.eachTrace; its Summary's Detected holds only
// those no file call ended).
type tracesLister interface {
	listsTraces() bool
}

// recordTaker is a format that wants each record of a trace too (the HTML
// report draws every message).
type recordTaker interface {
	records(name string) func(validate.MessageInfo)
}

func outputFormats() []outputFormat {
	return []outputFormat{
		{"text", true, func() formatPrinter { return textFormat{} }},
		{"json", true, func() formatPrinter { return jsonFormat{} }},
		{"github", true, func() formatPrinter { return githubFormat{} }},
		{"sarif", false, func() formatPrinter { return sarifFormat{} }},
		{"junit", false, func() formatPrinter { return junitFormat{} }},
		{"html", false, func() formatPrinter { return htmlFormat{newHTMLReport()} }},
	}
}

// lookupFormat returns the format named name, of outputFormats or extra.
func lookupFormat(name string, extra ...outputFormat) (outputFormat, bool) {
	for _, f := range append(outputFormats(), extra...) {
		if f.name == name {
			return f, true
		}
	}
	return outputFormat{}, false
}

// formatNames lists the formats' names as a sentence ("text, json or
// github"), the live ones only if live is set.
func formatNames(live bool) string {
	var names []string
	for _, f := range outputFormats() {
		if f.live || !live {
			names = append(names, f.name)
		}
	}
	return orList(names)
}

// textFormat is --format text: one line per finding, then the summary.
type textFormat struct{}

func (textFormat) finding(p *printer, f validate.Finding) {
	_, p.werr = fmt.Fprintln(p.w, textFinding(f))
}
func (textFormat) endFile(*printer, string, validate.Summary) {}
func (textFormat) end(p *printer, s validate.Summary)         { p.textSummary(s, true) }
func (textFormat) listsTraces() bool                          { return true }

// githubFormat is --format github: a workflow command per finding, then
// the summary's first line.
type githubFormat struct{}

func (githubFormat) finding(p *printer, f validate.Finding) {
	_, p.werr = fmt.Fprintln(p.w, githubAnnotation(f))
}
func (githubFormat) endFile(*printer, string, validate.Summary) {}
func (githubFormat) end(p *printer, s validate.Summary)         { p.textSummary(s, false) }

// jsonFormat is --format json: a JSON object per finding, then the
// summary object.
type jsonFormat struct{}

func (jsonFormat) finding(p *printer, f validate.Finding) {
	p.werr = p.encodeJSON(jsonFinding{
		File: f.File, Line: f.Line, Severity: f.Severity.String(), Protocol: f.Protocol,
		Dialect: f.Dialect, Rule: f.Rule, Pointer: f.Pointer, Message: f.Message,
		Requirement: f.Requirement, Side: f.Side,
	})
}
func (jsonFormat) endFile(*printer, string, validate.Summary) {}
func (jsonFormat) end(p *printer, s validate.Summary)         { p.jsonSummary(s) }
func (jsonFormat) listsTraces() bool                          { return true }

// sarifFormat is --format sarif: one SARIF 2.1.0 log of the run.
type sarifFormat struct{}

func (sarifFormat) finding(p *printer, f validate.Finding)     { p.sarifResult(f) }
func (sarifFormat) endFile(*printer, string, validate.Summary) {}
func (sarifFormat) end(p *printer, _ validate.Summary)         { p.sarifEnd(!p.ioFailed) }

// junitFormat is --format junit: a test suite per trace.
type junitFormat struct{}

func (junitFormat) finding(p *printer, f validate.Finding)              { p.junitFinding(f) }
func (junitFormat) endFile(p *printer, name string, _ validate.Summary) { p.junitFile(name) }
func (junitFormat) end(p *printer, _ validate.Summary)                  { p.junitEnd() }

// htmlFormat is --format html: one self-contained page of every trace
// (package htmlreport), written at the end.
type htmlFormat struct{ r *htmlreport.Report }

func (h htmlFormat) finding(_ *printer, f validate.Finding) { h.r.Finding(f) }
func (h htmlFormat) endFile(_ *printer, name string, sum validate.Summary) {
	h.r.End(name, sum)
}
func (h htmlFormat) end(p *printer, _ validate.Summary) {
	if _, err := h.r.WriteTo(p.w); err != nil && p.werr == nil {
		p.werr = err
	}
}
func (h htmlFormat) records(name string) func(validate.MessageInfo) {
	return func(m validate.MessageInfo) { h.r.Message(name, m) }
}
