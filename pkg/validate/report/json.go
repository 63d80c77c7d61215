package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/agentproto/agentproto/pkg/validate"
)

// JSON is --format json: one JSON object per line for each finding
// (JSONFinding), then one line with the summary (JSONSummary), whose list
// of traces is its last member. Field names and types are a contract
// (cmd/validate/README.md): they change additively only.
type JSON struct {
	out
	traces traceList
}

// NewJSON returns a JSON writer on w.
func NewJSON(w io.Writer, _ Options) *JSON {
	j := &JSON{out: newOut(w)}
	j.release = j.traces.reset
	return j
}

// JSONFinding is the --format json shape of a finding.
type JSONFinding struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Severity string `json:"severity"`
	Protocol string `json:"protocol"`
	Dialect  string `json:"dialect"`
	Rule     string `json:"rule"`
	Pointer  string `json:"pointer"`
	Message  string `json:"message"`
	// Requirement is the catalogue row the finding shows broken and Side
	// the peer at fault, when known.
	Requirement string `json:"requirement,omitempty"`
	Side        string `json:"side,omitempty"`
}

// FindingJSON is f as --format json writes it.
func FindingJSON(f validate.Finding) JSONFinding {
	return JSONFinding{
		File: f.File, Line: f.Line, Severity: f.Severity.String(), Protocol: f.Protocol,
		Dialect: f.Dialect, Rule: f.Rule, Pointer: f.Pointer, Message: f.Message,
		Requirement: f.Requirement, Side: f.Side,
	}
}

// Finding is the finding j stands for.
func (j JSONFinding) Finding() validate.Finding {
	f := validate.Finding{File: j.File, Line: j.Line, Severity: validate.Error, Protocol: j.Protocol, Dialect: j.Dialect,
		Rule: j.Rule, Pointer: j.Pointer, Message: j.Message, Requirement: j.Requirement, Side: j.Side}
	if j.Severity == validate.Warning.String() {
		f.Severity = validate.Warning
	}
	return f
}

// JSONSummary is the last line of --format json.
type JSONSummary struct {
	Summary struct {
		Files    int            `json:"files"`
		Lines    int            `json:"lines"`
		Messages int            `json:"messages"`
		Errors   int            `json:"errors"`
		Warnings int            `json:"warnings"`
		Known    int            `json:"known,omitempty"`
		ByRule   map[string]int `json:"by_rule"`
		ByType   map[string]int `json:"by_type"`
		// BySide counts the findings of each side at fault, those of
		// sides Sides (--side) leaves out included; "" is the
		// findings that blame no side.
		BySide   map[string]SideCount `json:"by_side,omitempty"`
		Sides    []string             `json:"sides,omitempty"`
		Detected []JSONDetected       `json:"detected"`
	} `json:"summary"`
}

// JSONDetected is what a trace was read as, in the summary's list.
type JSONDetected struct {
	File     string        `json:"file"`
	Protocol string        `json:"protocol"`
	Dialect  string        `json:"dialect"`
	Note     string        `json:"note,omitempty"`
	Peers    []JSONPeer    `json:"peers,omitempty"`
	Coverage *JSONCoverage `json:"coverage,omitempty"`
}

// JSONPeer is an implementation a trace names.
type JSONPeer struct {
	Side    string `json:"side"`
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// JSONCoverage is what a trace showed of its version's requirement
// catalogue: the ids of the rows it exercised and that held, that it
// violated, that are checked but it never exercised, and that no rule
// checks.
type JSONCoverage struct {
	Exercised   []string `json:"exercised"`
	Violated    []string `json:"violated"`
	Unexercised []string `json:"unexercised"`
	Unchecked   []string `json:"unchecked"`
}

// DetectedJSON is d as the summary of --format json lists it.
func DetectedJSON(d validate.Detected) JSONDetected {
	out := JSONDetected{File: d.File, Protocol: d.Protocol, Dialect: d.Dialect, Note: d.Note}
	for _, p := range d.Peers {
		out.Peers = append(out.Peers, JSONPeer{Side: p.Side, Name: p.Name, Version: p.Version})
	}
	if c := d.Coverage; c != nil {
		nonNil := func(l []string) []string {
			if l == nil {
				return []string{}
			}
			return l
		}
		out.Coverage = &JSONCoverage{Exercised: nonNil(c.Exercised), Violated: nonNil(c.Violated), Unexercised: nonNil(c.Unexercised), Unchecked: nonNil(c.Unchecked)}
	}
	return out
}

// Detected is what the run had of the trace d lists.
func (d JSONDetected) Detected() validate.Detected {
	out := validate.Detected{File: d.File, Protocol: d.Protocol, Dialect: d.Dialect, Note: d.Note}
	for _, p := range d.Peers {
		out.Peers = append(out.Peers, validate.Peer{Side: p.Side, Name: p.Name, Version: p.Version})
	}
	if c := d.Coverage; c != nil {
		out.Coverage = &validate.Coverage{Exercised: c.Exercised, Violated: c.Violated, Unexercised: c.Unexercised, Unchecked: c.Unchecked}
	}
	return out
}

// Finding writes f as one line.
func (j *JSON) Finding(f validate.Finding) {
	j.traces.finding(f)
	if j.err != nil {
		return
	}
	j.err = j.encodeJSON(FindingJSON(f))
}

// EndTrace keeps what the trace was read as, for the summary.
func (j *JSON) EndTrace(name string, sum validate.Summary) {
	if j.err == nil {
		j.err = j.traces.end(&j.out, name, sum)
	}
	j.Flush()
}

// End writes the summary line.
func (j *JSON) End(t Totals) {
	if j.err != nil {
		return
	}
	s := t.Summary
	var js JSONSummary
	js.Summary.Files, js.Summary.Lines, js.Summary.Messages = s.Files, s.Lines, s.Messages
	js.Summary.Errors, js.Summary.Warnings = s.Errors, s.Warnings
	js.Summary.Known = t.Known
	js.Summary.BySide, js.Summary.Sides = t.BySide, t.Sides
	js.Summary.ByRule, js.Summary.ByType = s.ByRule, s.ByType
	if js.Summary.ByRule == nil {
		js.Summary.ByRule = map[string]int{}
	}
	if js.Summary.ByType == nil {
		js.Summary.ByType = map[string]int{}
	}
	// The summary is written around its list of traces, which is read
	// back one trace at a time: "detected" is its last member.
	js.Summary.Detected = []JSONDetected{}
	b, err := j.marshal(js)
	if j.err = err; err != nil {
		return
	}
	head := string(b)
	const empty = "[]}}\n"
	if !strings.HasSuffix(head, empty) {
		j.err = fmt.Errorf("the JSON summary does not end with its list of traces")
		return
	}
	if _, j.err = j.w.WriteString(head[:len(head)-len(empty)+1]); j.err != nil {
		return
	}
	n := 0
	j.err = j.traces.each(&j.out, s, false, func(_ JSONDetected, raw []byte, _ bool) error {
		if n++; n > 1 {
			if err := j.w.WriteByte(','); err != nil {
				return err
			}
		}
		_, err := j.w.Write(raw)
		return err
	})
	if j.err == nil {
		_, j.err = j.w.WriteString(empty[1:])
	}
}

// escapeJSONLine escapes, as \uXXXX, the characters unsafeRune reports and
// DEL in a line of JSON written by encoding/json. They can only occur inside
// strings, where the escape stands for the same character.
func escapeJSONLine(b []byte) []byte {
	i := 0
	for i < len(b) {
		if b[i] == 0x7f {
			break
		}
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if unsafeRune(r) {
			break
		}
		i += size
	}
	if i == len(b) {
		return b
	}
	out := append(make([]byte, 0, len(b)+16), b[:i]...)
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if r == 0x7f || unsafeRune(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}
