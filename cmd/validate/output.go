package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentproto/agentproto/internal/spool"
	"github.com/agentproto/agentproto/internal/textsafe"
	"github.com/agentproto/agentproto/pkg/validate"
)

// printer writes findings and the summary in one of the output formats.
//
// Findings carry text from the traces (keys, values, method and type names)
// and file names: everything printed is escaped for its format here, whatever
// produced the finding, so no input can end an output line, start a CI
// workflow command or reach the terminal as a control sequence. Text shows
// control characters as Go escapes (\n, \x1b, \u0085); github escapes what
// the workflow-command syntax reserves and shows other control characters the
// same way; json escapes them as JSON does.
type printer struct {
	fp   formatPrinter // the format's own writing
	w    *bufio.Writer
	enc  *json.Encoder
	buf  bytes.Buffer // one JSON line, before escapeJSONLine
	werr error

	sarif sarifState
	junit junitState
	// ioFailed is set when a trace could not be read: SARIF's invocation
	// then did not succeed.
	ioFailed bool
	// known is the number of findings a baseline held back.
	known int
	// verbose asks for every trace's details in the text summary; without
	// it a trace with no finding gets one line.
	verbose bool
	// noisy holds the traces with findings shown, by name, until their
	// end (file) records it.
	noisy map[string]bool
	// traces holds what each ended trace was read as, for a summary that
	// lists them (keepTraces): one line per trace, "1" if it had findings
	// shown ("0" if not) and then its jsonDetected as --format json
	// writes it. It is a spool, so that memory does not grow with the
	// number of traces.
	traces     spool.Spool
	keepTraces bool
	// catalogue is where SARIF finds the rules' documentation and the
	// catalogue rows: the run's protocols and registry.
	catalogue runCatalogue
}

// newPrinter returns a printer of a format of outputFormats or extra (text
// for a name they lack).
func newPrinter(format string, w io.Writer, extra ...outputFormat) *printer {
	bw := bufio.NewWriterSize(w, 64<<10)
	f, ok := lookupFormat(format, extra...)
	if !ok {
		f, _ = lookupFormat("text")
	}
	p := &printer{fp: f.new(), w: bw}
	p.enc = json.NewEncoder(&p.buf)
	p.enc.SetEscapeHTML(false)
	if l, ok := p.fp.(tracesLister); ok {
		p.keepTraces = l.listsTraces()
	}
	return p
}

// encodeJSON writes v as one line of JSON. encoding/json escapes C0
// controls, U+2028 and U+2029 and replaces invalid UTF-8; the characters it
// leaves raw that a terminal may act on (DEL, C1 controls, bidirectional
// overrides) are escaped too, which keeps the same JSON value.
func (p *printer) encodeJSON(v any) error {
	p.buf.Reset()
	if err := p.enc.Encode(v); err != nil {
		return err
	}
	_, err := p.w.Write(escapeJSONLine(p.buf.Bytes()))
	return err
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
	// Requirement is the catalogue row the finding shows broken and Side
	// the peer at fault, when known.
	Requirement string `json:"requirement,omitempty"`
	Side        string `json:"side,omitempty"`
}

// jsonSummary is the last line of --format json.
type jsonSummary struct {
	Summary struct {
		Files    int            `json:"files"`
		Lines    int            `json:"lines"`
		Messages int            `json:"messages"`
		Errors   int            `json:"errors"`
		Warnings int            `json:"warnings"`
		Known    int            `json:"known,omitempty"`
		ByRule   map[string]int `json:"by_rule"`
		ByType   map[string]int `json:"by_type"`
		Detected []jsonDetected `json:"detected"`
	} `json:"summary"`
}

type jsonDetected struct {
	File     string        `json:"file"`
	Protocol string        `json:"protocol"`
	Dialect  string        `json:"dialect"`
	Note     string        `json:"note,omitempty"`
	Peers    []jsonPeer    `json:"peers,omitempty"`
	Coverage *jsonCoverage `json:"coverage,omitempty"`
}

// jsonPeer is an implementation a trace names.
type jsonPeer struct {
	Side    string `json:"side"`
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// jsonCoverage is what a trace showed of its version's requirement
// catalogue: the ids of the rows it exercised and that held, that it
// violated, that are checked but it never exercised, and that no rule
// checks.
type jsonCoverage struct {
	Exercised   []string `json:"exercised"`
	Violated    []string `json:"violated"`
	Unexercised []string `json:"unexercised"`
	Unchecked   []string `json:"unchecked"`
}

func jsonDetectedOf(d validate.Detected) jsonDetected {
	out := jsonDetected{File: d.File, Protocol: d.Protocol, Dialect: d.Dialect, Note: d.Note}
	for _, p := range d.Peers {
		out.Peers = append(out.Peers, jsonPeer{Side: p.Side, Name: p.Name, Version: p.Version})
	}
	if c := d.Coverage; c != nil {
		nonNil := func(l []string) []string {
			if l == nil {
				return []string{}
			}
			return l
		}
		out.Coverage = &jsonCoverage{Exercised: nonNil(c.Exercised), Violated: nonNil(c.Violated), Unexercised: nonNil(c.Unexercised), Unchecked: nonNil(c.Unchecked)}
	}
	return out
}

func (p *printer) finding(f validate.Finding) {
	if p.noisy == nil {
		p.noisy = map[string]bool{}
	}
	p.noisy[f.File] = true
	if p.werr != nil {
		return
	}
	p.fp.finding(p, f)
}

// records returns what is told each record of the trace name, for a
// format that draws them; nil for the others.
func (p *printer) records(name string) func(validate.MessageInfo) {
	if r, ok := p.fp.(recordTaker); ok {
		return r.records(name)
	}
	return nil
}

// textFinding renders FILE:LINE: SEVERITY: POINTER: MESSAGE [RULE
// REQUIREMENT, SIDE] (the requirement and side where known; FILE:
// SEVERITY: … for a finding about the whole file), each part escaped by
// escapeText.
func textFinding(f validate.Finding) string {
	var sb strings.Builder
	sb.Grow(len(f.File) + len(f.Pointer) + len(f.Message) + len(f.Rule) + len(f.Requirement) + len(f.Side) + 32)
	writeEscaped(&sb, f.File, text)
	if f.Line > 0 { // none for a finding about the whole file (it could not be read)
		var num [20]byte
		sb.WriteByte(':')
		sb.Write(strconv.AppendInt(num[:0], int64(f.Line), 10))
	}
	sb.WriteString(": ")
	sb.WriteString(f.Severity.String())
	sb.WriteString(": ")
	if f.Pointer != "" {
		writeEscaped(&sb, f.Pointer, text)
		sb.WriteString(": ")
	}
	writeEscaped(&sb, f.Message, text)
	// f.Tag(), escaped.
	sb.WriteString(" [")
	writeEscaped(&sb, f.Rule, text)
	if f.Requirement != "" {
		sb.WriteByte(' ')
		writeEscaped(&sb, f.Requirement, text)
	}
	if f.Side != "" {
		sb.WriteString(", ")
		writeEscaped(&sb, f.Side, text)
	}
	sb.WriteByte(']')
	return sb.String()
}

// githubAnnotation renders a workflow command, escaped as GitHub Actions
// requires: % CR LF in the message; also : and , in properties.
func githubAnnotation(f validate.Finding) string {
	level := "error"
	if f.Severity == validate.Warning {
		level = "warning"
	}
	props := []string{"file=" + escapeProperty(filepath.ToSlash(f.File))}
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
	props = append(props, "title="+escapeProperty(title))
	msg := f.Message
	if f.Pointer != "" {
		msg = f.Pointer + ": " + msg
	}
	return fmt.Sprintf("::%s %s::%s", level, strings.Join(props, ","), escapeData(msg))
}

// escapeData escapes the message of a workflow command: % CR LF as Actions
// requires, and other control characters as escapeText shows them.
func escapeData(s string) string { return escape(s, githubData) }

// escapeProperty escapes a property value of a workflow command: as data,
// and also : and , (which end a property).
func escapeProperty(s string) string { return escape(s, githubProperty) }

// escapeText makes s inert on a terminal: control characters (C0, DEL, C1),
// Unicode line and paragraph separators and bidirectional controls become
// Go-style escapes (\n, \t, \x1b, \u0085, \u202e); bytes that are not
// UTF-8 become \xNN. Everything else, backslashes included, is unchanged.
func escapeText(s string) string { return escape(s, text) }

type escapeMode int

const (
	text escapeMode = iota
	githubData
	githubProperty
)

// escape implements escapeText, escapeData and escapeProperty. It returns s
// itself when nothing needs escaping.
func escape(s string, mode escapeMode) string {
	i := plainPrefix(s, mode)
	if i == len(s) {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s) + 16)
	sb.WriteString(s[:i])
	writeEscapedFrom(&sb, s, i, mode)
	return sb.String()
}

// writeEscaped writes s to sb as escape returns it.
func writeEscaped(sb *strings.Builder, s string, mode escapeMode) {
	i := plainPrefix(s, mode)
	sb.WriteString(s[:i])
	if i < len(s) {
		writeEscapedFrom(sb, s, i, mode)
	}
}

// plainPrefix is the length of the start of s that needs no escape.
func plainPrefix(s string, mode escapeMode) int {
	i := 0
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if asciiNeedsEscape(c, mode) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, size, mode) {
			return i
		}
		i += size
	}
	return i
}

// writeEscapedFrom writes s[i:] to sb, escaped.
func writeEscapedFrom(sb *strings.Builder, s string, i int, mode escapeMode) {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(sb, `\x%02x`, s[i])
		case mode != text && r == '%':
			sb.WriteString("%25")
		case mode != text && r == '\r':
			sb.WriteString("%0D")
		case mode != text && r == '\n':
			sb.WriteString("%0A")
		case mode == githubProperty && r == ':':
			sb.WriteString("%3A")
		case mode == githubProperty && r == ',':
			sb.WriteString("%2C")
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(sb, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(sb, `\u%04x`, r)
		default:
			sb.WriteString(s[i : i+size])
		}
		i += size
	}
}

func needsEscape(r rune, size int, mode escapeMode) bool {
	if r < utf8.RuneSelf {
		return asciiNeedsEscape(byte(r), mode)
	}
	return r == utf8.RuneError && size <= 1 || unsafeRune(r)
}

// asciiNeedsEscape is needsEscape for an ASCII character.
func asciiNeedsEscape(c byte, mode escapeMode) bool {
	return c < 0x20 || c == 0x7f || mode != text && c == '%' || mode == githubProperty && (c == ':' || c == ',')
}

// unsafeRune reports the non-ASCII characters a terminal or an editor may
// act on rather than show: C1 controls, line and paragraph separators, and
// the bidirectional controls that reorder what is displayed.
func unsafeRune(r rune) bool { return r >= 0x80 && textsafe.Unsafe(r) }

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

// file ends the output of one trace, whose summary is sum. What sum.Detected
// says of the trace is kept, if the summary lists the traces, in a spool,
// not in memory: a run's summary then lists the traces ended here, then
// those of its own Detected.
func (p *printer) file(name string, sum validate.Summary) {
	if p.werr == nil {
		p.fp.endFile(p, name, sum)
	}
	if p.keepTraces && p.werr == nil {
		for _, d := range sum.Detected {
			if p.werr = p.keepTrace(d); p.werr != nil {
				break
			}
		}
	}
	delete(p.noisy, name)
	p.flush()
}

// keepTrace adds d to the spool of traces.
func (p *printer) keepTrace(d validate.Detected) error {
	flag := "0"
	if p.noisy[d.File] {
		flag = "1"
	}
	p.buf.Reset()
	if err := p.enc.Encode(jsonDetectedOf(d)); err != nil {
		return err
	}
	if _, err := p.traces.WriteString(flag); err != nil {
		return err
	}
	_, err := p.traces.Write(escapeJSONLine(p.buf.Bytes()))
	return err
}

// eachTrace calls fn with every trace the summary lists: those kept by
// file, then those of s.Detected, each as a jsonDetected (decoded only if
// decode is set), its JSON as --format json writes it (escaped, without a
// newline), and whether it had findings shown.
func (p *printer) eachTrace(s validate.Summary, decode bool, fn func(d jsonDetected, raw []byte, noisy bool) error) error {
	if p.traces.Size() > 0 {
		r, err := p.traces.Reader()
		if err != nil {
			return err
		}
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 1 {
				raw := bytes.TrimSuffix(line[1:], []byte("\n"))
				var d jsonDetected
				if decode {
					if jerr := json.Unmarshal(raw, &d); jerr != nil {
						return fmt.Errorf("reading back the traces held for the summary: %w", jerr)
					}
				}
				if ferr := fn(d, raw, line[0] == '1'); ferr != nil {
					return ferr
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return fmt.Errorf("reading back the traces held for the summary: %w", err)
			}
		}
	}
	for _, d := range s.Detected {
		p.buf.Reset()
		jd := jsonDetectedOf(d)
		if err := p.enc.Encode(jd); err != nil {
			return err
		}
		raw := bytes.TrimSuffix(escapeJSONLine(p.buf.Bytes()), []byte("\n"))
		if err := fn(jd, append([]byte(nil), raw...), p.noisy[d.File]); err != nil {
			return err
		}
	}
	return nil
}

// summary ends the run's output.
func (p *printer) summary(s validate.Summary) {
	if p.werr != nil {
		return
	}
	p.fp.end(p, s)
}

// jsonSummary writes the summary object of --format json.
func (p *printer) jsonSummary(s validate.Summary) {
	var js jsonSummary
	js.Summary.Files, js.Summary.Lines, js.Summary.Messages = s.Files, s.Lines, s.Messages
	js.Summary.Errors, js.Summary.Warnings = s.Errors, s.Warnings
	js.Summary.Known = p.known
	js.Summary.ByRule, js.Summary.ByType = s.ByRule, s.ByType
	if js.Summary.ByRule == nil {
		js.Summary.ByRule = map[string]int{}
	}
	if js.Summary.ByType == nil {
		js.Summary.ByType = map[string]int{}
	}
	// The summary is written around its list of traces, which is read
	// back one trace at a time: "detected" is its last member.
	js.Summary.Detected = []jsonDetected{}
	p.buf.Reset()
	if p.werr = p.enc.Encode(js); p.werr != nil {
		return
	}
	head := string(escapeJSONLine(p.buf.Bytes()))
	const empty = "[]}}\n"
	if !strings.HasSuffix(head, empty) {
		p.werr = fmt.Errorf("the JSON summary does not end with its list of traces")
		return
	}
	if _, p.werr = p.w.WriteString(head[:len(head)-len(empty)+1]); p.werr != nil {
		return
	}
	n := 0
	p.werr = p.eachTrace(s, false, func(_ jsonDetected, raw []byte, _ bool) error {
		if n++; n > 1 {
			if err := p.w.WriteByte(','); err != nil {
				return err
			}
		}
		_, err := p.w.Write(raw)
		return err
	})
	if p.werr == nil {
		_, p.werr = p.w.WriteString(empty[1:])
	}
}

// textSummary writes the summary of --format text (whole: with what each
// trace was read as, its types and rules) or github (its first line).
func (p *printer) textSummary(s validate.Summary, whole bool) {
	w := p.w
	known := ""
	if p.known > 0 {
		known = fmt.Sprintf(" (and %d known from the baseline, not shown)", p.known)
	}
	fmt.Fprintf(w, "\nsummary: %s, %s, %s: %s, %s%s\n", plural(s.Files, "file"), plural(s.Lines, "line"), plural(s.Messages, "message"), plural(s.Errors, "error"), plural(s.Warnings, "warning"), known)
	if !whole {
		return
	}
	if err := p.eachTrace(s, true, func(d jsonDetected, _ []byte, noisy bool) error {
		proto := d.Protocol
		if proto == "" {
			proto = "no protocol recognised"
		}
		if !p.verbose && !noisy && d.Protocol != "" {
			_, err := fmt.Fprintf(w, "  %s: %s %s, no findings\n", escapeText(d.File), escapeText(proto), escapeText(d.Dialect))
			return err
		}
		fmt.Fprintf(w, "  %s: %s %s\n", escapeText(d.File), escapeText(proto), escapeText(d.Dialect))
		if d.Note != "" {
			fmt.Fprintf(w, "    %s\n", escapeText(d.Note))
		}
		if len(d.Peers) > 0 {
			var peers []string
			for _, p := range d.Peers {
				peers = append(peers, p.Side+" "+strings.TrimSpace(p.Name+" "+p.Version))
			}
			fmt.Fprintf(w, "    %s\n", escapeText(strings.Join(peers, "; ")))
		}
		if c := d.Coverage; c != nil {
			fmt.Fprintf(w, "    requirements: %d exercised and held, %d violated, %d checked but not exercised, %d not checked (--coverage lists them)\n", len(c.Exercised), len(c.Violated), len(c.Unexercised), len(c.Unchecked))
		}
		return nil
	}); err != nil {
		p.werr = err
		return
	}
	if len(s.ByType) > 0 {
		fmt.Fprintln(w, "messages by type:")
		for _, k := range validate.SortedKeys(s.ByType) {
			fmt.Fprintf(w, "  %8d  %s\n", s.ByType[k], escapeText(k))
		}
	}
	if len(s.ByRule) > 0 {
		fmt.Fprintln(w, "findings by rule:")
		for _, k := range validate.SortedKeys(s.ByRule) {
			fmt.Fprintf(w, "  %8d  %s\n", s.ByRule[k], escapeText(k))
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

// err flushes the output and reports the first write error. It is the
// last call: the traces held for the summary are dropped.
func (p *printer) err() error {
	p.traces.Reset()
	if err := p.w.Flush(); err != nil && p.werr == nil {
		p.werr = err
	}
	return p.werr
}
