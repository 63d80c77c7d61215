package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/spool"
	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/schema/registry"
)

// SARIF 2.1.0 (--format sarif): one log with one run, written as findings
// come (results first, then the tool and the rules the results used), so
// memory does not grow with the number of findings beyond one entry per
// rule.

const sarifSchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

type sarifText struct {
	Text string `json:"text"`
}

type sarifMultiText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          sarifProps        `json:"properties"`
}

type sarifProps struct {
	Protocol    string `json:"protocol,omitempty"`
	Dialect     string `json:"dialect,omitempty"`
	Pointer     string `json:"pointer,omitempty"`
	Requirement string `json:"requirement,omitempty"`
	Side        string `json:"side,omitempty"`
	// Citation and Level are the requirement's, from its catalogue.
	Citation string `json:"citation,omitempty"`
	Level    string `json:"requirementLevel,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	Help                 sarifMultiText `json:"help"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
	Properties *sarifRuleProps `json:"properties,omitempty"`
}

// sarifRuleProps are a rule's catalogue rows: the requirements its
// findings show broken, with where the spec states each.
type sarifRuleProps struct {
	Requirements []sarifRequirement `json:"requirements"`
}

type sarifRequirement struct {
	ID       string `json:"id"`
	Level    string `json:"level"`
	Citation string `json:"citation"`
}

type sarifTail struct {
	Tool struct {
		Driver struct {
			Name           string      `json:"name"`
			InformationURI string      `json:"informationUri"`
			Rules          []sarifRule `json:"rules"`
		} `json:"driver"`
	} `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	ColumnKind  string            `json:"columnKind"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

// sarifState is what the SARIF writer remembers between findings.
type sarifState struct {
	started bool
	results int
	rules   []sarifRule
	index   map[string]int
	docs    map[string]ruleDoc
	ioErrs  []string
	// reqs keeps the catalogue rows results have named, by protocol,
	// dialect and id.
	reqs map[[3]string]*registry.Requirement
	// cat is where the rules' documentation and the catalogue rows
	// come from: the run's protocols and registry.
	cat runCatalogue
}

func (p *printer) sarifStart() {
	if p.sarif.started {
		return
	}
	p.sarif.started = true
	_, p.werr = fmt.Fprintf(p.w, `{"version":"2.1.0","$schema":%q,"runs":[{"results":[`+"\n", sarifSchemaURI)
}

func (p *printer) sarifResult(f validate.Finding) {
	s := &p.sarif
	p.sarifStart()
	if s.index == nil {
		s.index, s.docs, s.cat = map[string]int{}, ruleDocs(), p.catalogue
	}
	idx, ok := s.index[f.Rule]
	if !ok {
		idx = len(s.rules)
		s.index[f.Rule] = idx
		r := sarifRuleOf(s.docs, f.Rule, s.summaryOf(f))
		r.Properties = s.ruleRows(f)
		s.rules = append(s.rules, r)
	}
	if f.Rule == validate.RuleIO {
		s.ioErrs = append(s.ioErrs, f.File+": "+f.Message)
	}
	loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: artifactURI(f.File)}}}
	if f.Line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line}
	}
	if f.Pointer != "" {
		loc.LogicalLocations = []sarifLogical{{FullyQualifiedName: f.Pointer, Kind: "member"}}
	}
	msg := f.Message
	if f.Pointer != "" {
		msg = f.Pointer + ": " + msg
	}
	level := "error"
	if f.Severity == validate.Warning {
		level = "warning"
	}
	r := sarifResult{
		RuleID: f.Rule, RuleIndex: idx, Level: level, Message: sarifText{Text: msg},
		Locations:           []sarifLocation{loc},
		PartialFingerprints: map[string]string{"agentprotoFinding/v1": fingerprint(f)},
		Properties:          sarifProps{Protocol: f.Protocol, Dialect: f.Dialect, Pointer: f.Pointer, Requirement: f.Requirement, Side: f.Side},
	}
	if q := s.requirement(f); q != nil {
		r.Properties.Citation, r.Properties.Level = q.Citation(), q.Level
	}
	if s.results > 0 {
		if _, p.werr = p.w.WriteString(","); p.werr != nil {
			return
		}
	}
	s.results++
	p.werr = p.encodeJSON(r)
}

func (p *printer) sarifEnd(ok bool) {
	p.sarifStart()
	if p.werr != nil {
		return
	}
	var t sarifTail
	t.Tool.Driver.Name = "agentproto validate"
	t.Tool.Driver.InformationURI = "https://github.com/agentproto/agentproto/tree/main/cmd/validate"
	t.Tool.Driver.Rules = p.sarif.rules
	if t.Tool.Driver.Rules == nil {
		t.Tool.Driver.Rules = []sarifRule{}
	}
	inv := sarifInvocation{ExecutionSuccessful: ok}
	for _, e := range p.sarif.ioErrs {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "error", Message: sarifText{Text: e}})
	}
	t.Invocations = []sarifInvocation{inv}
	t.ColumnKind = "unicodeCodePoints"
	p.buf.Reset()
	if err := p.enc.Encode(t); err != nil {
		p.werr = err
		return
	}
	// The tail's members continue the run object the results opened.
	tail := strings.TrimSpace(string(escapeJSONLine(p.buf.Bytes())))
	if _, p.werr = p.w.WriteString("]," + tail[1:len(tail)-1] + "}]}\n"); p.werr != nil {
		return
	}
}

// sarifRuleOf describes rule from its README row; a rule the README does
// not describe (a protocol's from outside) by summary, its registration's
// words, if any.
func sarifRuleOf(docs map[string]ruleDoc, rule, summary string) sarifRule {
	r := sarifRule{ID: rule}
	d, ok := ruleHelp(docs, rule)
	if !ok {
		d = ruleDoc{severity: "error", text: "a finding of rule " + rule}
		if summary != "" {
			d.text = summary
		}
	}
	r.ShortDescription.Text = firstSentence(d.text)
	r.FullDescription.Text = d.text
	r.Help = sarifMultiText{
		Text:     d.text + " See cmd/validate/README.md (Rules) for every rule, and --disable, --warn or .agentproto.json to turn one off or down.",
		Markdown: "**" + rule + "** (" + d.severity + "): " + d.text + "\n\nEvery rule is described in `cmd/validate/README.md`; `--disable " + rule + "`, `--warn " + rule + "` or `.agentproto.json` turn it off or down.",
	}
	r.DefaultConfiguration.Level = "error"
	if d.severity == "warning" {
		r.DefaultConfiguration.Level = "warning"
	}
	return r
}

// artifactURI is a file name as a URI reference: a relative path with
// forward slashes, or a file: URI for an absolute path.
func artifactURI(name string) string {
	p := filepath.ToSlash(name)
	if filepath.IsAbs(name) {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}

// fingerprint identifies a finding by what a baseline matches (file, rule,
// pointer, message), not by its line.
func fingerprint(f validate.Finding) string {
	h := sha256.Sum256([]byte(filepath.ToSlash(f.File) + "\x00" + f.Rule + "\x00" + f.Pointer + "\x00" + f.Message))
	return hex.EncodeToString(h[:16])
}

// JUnit XML (--format junit): one test suite per trace holding one test
// case, which fails when the trace has an error finding: one failure
// element whose message is the first error and whose text lists them all,
// or one error element when the trace could not be read (an io finding),
// listing the io findings and then the errors. So a suite counts one test
// and at most one failure or error, as JUnit readers expect. The warnings
// are the test case's system-out, one per line. The suite's counts come
// before its children, so a trace's lines are written to spools as findings
// come (in memory up to spool.Memory each, in a temporary file past it) and
// copied out when the trace ends: memory does not grow with the number of
// findings.

type junitState struct {
	started bool
	// The error findings and the io findings of the trace: how many, the
	// first one's message and rule, and their lines.
	failures, errs     int
	failHead, failRule string
	errHead            string
	errBody, body      spool.Spool
	warnings           spool.Spool
}

func (p *printer) junitStart() {
	if p.junit.started {
		return
	}
	p.junit.started = true
	_, p.werr = p.w.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<testsuites name="agentproto validate">` + "\n")
}

// junitFinding writes one finding's line to the spool of its element.
func (p *printer) junitFinding(f validate.Finding) {
	j := &p.junit
	// Each line is escaped as in the text format (a newline in it shows
	// as \n); the lines are separated by real newlines.
	line := xmlEscape(textFinding(f)) + "\n"
	var err error
	switch {
	case f.Rule == validate.RuleIO:
		if j.errs == 0 {
			j.errHead = f.Message
		}
		j.errs++
		_, err = j.errBody.WriteString(line)
	case f.Severity == validate.Warning:
		_, err = j.warnings.WriteString(line)
	default:
		if j.failures == 0 {
			j.failHead = fmt.Sprintf("line %d", f.Line)
			if f.Pointer != "" {
				j.failHead += " " + f.Pointer
			}
			j.failHead += ": " + f.Message
			j.failRule = f.Rule
		}
		j.failures++
		_, err = j.body.WriteString(line)
	}
	if err != nil {
		p.werr = err
	}
}

// junitMore says how many findings an element holds besides the first.
func junitMore(n int, what string) string {
	switch {
	case n <= 1:
		return ""
	case n == 2:
		return fmt.Sprintf(" (and 1 more %s)", what)
	}
	return fmt.Sprintf(" (and %d more %ss)", n-1, what)
}

// junitFile writes the test suite of one trace.
func (p *printer) junitFile(name string) {
	j := &p.junit
	defer func() {
		j.failures, j.errs = 0, 0
		j.failHead, j.failRule, j.errHead = "", "", ""
		j.errBody.Reset()
		j.body.Reset()
		j.warnings.Reset()
	}()
	p.junitStart()
	if p.werr != nil {
		return
	}
	failed, errored := 0, 0
	switch {
	case j.errs > 0:
		errored = 1
	case j.failures > 0:
		failed = 1
	}
	n := xmlEscape(name)
	if _, p.werr = fmt.Fprintf(p.w, "  <testsuite name=\"%s\" tests=\"1\" failures=\"%d\" errors=\"%d\" skipped=\"0\">\n    <testcase name=\"%s\" classname=\"agentproto.validate\">\n",
		n, failed, errored, n); p.werr != nil {
		return
	}
	element := func(tag, message, typ string, bodies ...*spool.Spool) {
		if p.werr != nil {
			return
		}
		open := fmt.Sprintf("      <%s message=\"%s\" type=\"%s\">", tag, xmlEscape(message), xmlEscape(typ))
		if tag == "system-out" {
			open = "      <system-out>"
		}
		if _, p.werr = p.w.WriteString(open); p.werr != nil {
			return
		}
		for _, b := range bodies {
			if p.werr = b.CopyTo(p.w); p.werr != nil {
				return
			}
		}
		_, p.werr = fmt.Fprintf(p.w, "</%s>\n", tag)
	}
	switch {
	case errored == 1:
		element("error", j.errHead+junitMore(j.errs, "io finding"), validate.RuleIO, &j.errBody, &j.body)
	case failed == 1:
		element("failure", j.failHead+junitMore(j.failures, "error"), j.failRule, &j.body)
	}
	if j.warnings.Size() > 0 {
		element("system-out", "", "", &j.warnings)
	}
	if p.werr == nil {
		_, p.werr = p.w.WriteString("    </testcase>\n  </testsuite>\n")
	}
}

func (p *printer) junitEnd() {
	p.junitStart()
	if p.werr == nil {
		_, p.werr = p.w.WriteString("</testsuites>\n")
	}
}

// xmlEscape makes s inert as escapeText does, then escapes it for XML
// text and attribute values.
func xmlEscape(s string) string {
	var sb strings.Builder
	_ = xml.EscapeText(&sb, []byte(escapeText(s)))
	return sb.String()
}

// requirement returns the catalogue row a finding names, looked up once per
// protocol, dialect and id.
func (s *sarifState) requirement(f validate.Finding) *registry.Requirement {
	if f.Requirement == "" {
		return nil
	}
	k := [3]string{f.Protocol, f.Dialect, f.Requirement}
	q, ok := s.reqs[k]
	if !ok {
		if s.reqs == nil {
			s.reqs = map[[3]string]*registry.Requirement{}
		}
		q = s.cat.requirement(f.Protocol, f.Dialect, f.Requirement)
		s.reqs[k] = q
	}
	return q
}

// ruleRows lists the catalogue rows the rule of f checks in its protocol
// and version, each with its citation; nil when there are none.
func (s *sarifState) ruleRows(f validate.Finding) *sarifRuleProps {
	var out []sarifRequirement
	seen := map[string]bool{}
	for _, d := range s.cat.ruleDocs(f.Protocol) {
		if d.Name != f.Rule {
			continue
		}
		for _, id := range d.Requirements {
			if seen[id] || !d.Checks(id, f.Dialect) {
				continue
			}
			seen[id] = true
			if q := s.requirement(validate.Finding{Protocol: f.Protocol, Dialect: f.Dialect, Requirement: id}); q != nil {
				out = append(out, sarifRequirement{ID: id, Level: q.Level, Citation: q.Citation()})
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return &sarifRuleProps{Requirements: out}
}

// summaryOf is the summary the registration of f's protocol gives f's
// rule; "" when it gives none.
func (s *sarifState) summaryOf(f validate.Finding) string {
	for _, d := range s.cat.ruleDocs(f.Protocol) {
		if d.Name == f.Rule {
			return d.Summary
		}
	}
	return ""
}
