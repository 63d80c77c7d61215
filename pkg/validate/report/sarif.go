package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/schema/registry"
)

// SARIF is --format sarif: one SARIF 2.1.0 log with one run, written as
// findings come (results first, then the tool and the rules the results
// used), so memory does not grow with the number of findings beyond one
// entry per rule. Each rule is described from its RuleDoc (Options.Rules)
// with the catalogue rows it checks.
type SARIF struct {
	out
	started bool
	results int
	rules   []sarifRule
	index   map[string]int
	help    RuleHelp
	ioErrs  []string
	// reqs keeps the catalogue rows results have named, by protocol,
	// dialect and id.
	reqs map[[3]string]*registry.Requirement
	cat  Catalogue
}

// NewSARIF returns a SARIF writer on w.
func NewSARIF(w io.Writer, o Options) *SARIF { return &SARIF{out: newOut(w), cat: o.Rules} }

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
	// Properties give the per-side totals, when a finding blamed a side.
	Properties *sarifRunProps `json:"properties,omitempty"`
}

// sarifRunProps are the run's per-side totals (Totals.BySide) and the
// sides whose findings are its results (--side), if not all.
type sarifRunProps struct {
	BySide map[string]SideCount `json:"bySide"`
	Sides  []string             `json:"sides,omitempty"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

func (s *SARIF) start() {
	if s.started {
		return
	}
	s.started = true
	_, s.err = fmt.Fprintf(s.w, `{"version":"2.1.0","$schema":%q,"runs":[{"results":[`+"\n", sarifSchemaURI)
}

// Finding writes f as a result.
func (s *SARIF) Finding(f validate.Finding) {
	if s.err != nil {
		return
	}
	s.start()
	if s.index == nil {
		s.index, s.help = map[string]int{}, s.cat.Help()
	}
	idx, ok := s.index[f.Rule]
	if !ok {
		idx = len(s.rules)
		s.index[f.Rule] = idx
		r := sarifRuleOf(s.help, f.Rule, s.summaryOf(f))
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
		if _, s.err = s.w.WriteString(","); s.err != nil {
			return
		}
	}
	s.results++
	s.err = s.encodeJSON(r)
}

// EndTrace flushes what is written of the trace.
func (s *SARIF) EndTrace(string, validate.Summary) { s.Flush() }

// End writes the tool, the rules the results used and the invocation,
// which succeeded unless t.Incomplete.
func (s *SARIF) End(t Totals) {
	if s.err != nil {
		return
	}
	s.start()
	if s.err != nil {
		return
	}
	var tail sarifTail
	tail.Tool.Driver.Name = "agentproto validate"
	tail.Tool.Driver.InformationURI = "https://github.com/agentproto/agentproto/tree/main/cmd/validate"
	tail.Tool.Driver.Rules = s.rules
	if tail.Tool.Driver.Rules == nil {
		tail.Tool.Driver.Rules = []sarifRule{}
	}
	inv := sarifInvocation{ExecutionSuccessful: !t.Incomplete}
	for _, e := range s.ioErrs {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "error", Message: sarifText{Text: e}})
	}
	tail.Invocations = []sarifInvocation{inv}
	tail.ColumnKind = "unicodeCodePoints"
	if sideLine(t) != "" {
		tail.Properties = &sarifRunProps{BySide: t.BySide, Sides: t.Sides}
	}
	b, err := s.marshal(tail)
	if err != nil {
		s.err = err
		return
	}
	// The tail's members continue the run object the results opened.
	line := strings.TrimSpace(string(b))
	_, s.err = s.w.WriteString("]," + line[1:len(line)-1] + "}]}\n")
}

// sarifRuleOf describes rule from its RuleDoc's text; a rule that has none
// (a protocol's from outside) by summary, its registration's words, if
// any.
func sarifRuleOf(help RuleHelp, rule, summary string) sarifRule {
	r := sarifRule{ID: rule}
	d, ok := help.Lookup(rule)
	if !ok || d.Text == "" {
		d.Severity, d.Text = "error", "a finding of rule "+rule
		if summary != "" {
			d.Text = summary
		}
	}
	r.ShortDescription.Text = FirstSentence(d.Text)
	r.FullDescription.Text = d.Text
	r.Help = sarifMultiText{
		Text:     d.Text + " See cmd/validate/README.md (Rules) for every rule, and --disable, --warn or .agentproto.json to turn one off or down.",
		Markdown: "**" + rule + "** (" + d.Severity + "): " + d.Text + "\n\nEvery rule is described in `cmd/validate/README.md`; `--disable " + rule + "`, `--warn " + rule + "` or `.agentproto.json` turn it off or down.",
	}
	r.DefaultConfiguration.Level = "error"
	if d.Severity == "warning" {
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

// requirement returns the catalogue row a finding names, looked up once per
// protocol, dialect and id.
func (s *SARIF) requirement(f validate.Finding) *registry.Requirement {
	if f.Requirement == "" {
		return nil
	}
	k := [3]string{f.Protocol, f.Dialect, f.Requirement}
	q, ok := s.reqs[k]
	if !ok {
		if s.reqs == nil {
			s.reqs = map[[3]string]*registry.Requirement{}
		}
		q = s.cat.Requirement(f.Protocol, f.Dialect, f.Requirement)
		s.reqs[k] = q
	}
	return q
}

// ruleRows lists the catalogue rows the rule of f checks in its protocol
// and version, each with its citation; nil when there are none.
func (s *SARIF) ruleRows(f validate.Finding) *sarifRuleProps {
	var out []sarifRequirement
	seen := map[string]bool{}
	for _, d := range s.cat.RuleDocs(f.Protocol) {
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
func (s *SARIF) summaryOf(f validate.Finding) string {
	for _, d := range s.cat.RuleDocs(f.Protocol) {
		if d.Name == f.Rule {
			return d.Summary
		}
	}
	return ""
}
