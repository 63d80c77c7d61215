package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate"
)

// --merge: the reports of the shards of a run (--shard K/N), in JSON, SARIF
// or JUnit, joined into the report one run over all the traces would have
// given, with its exit status. Each report is read as a stream, the traces
// of the shards taken in turn by name (as a run walks a folder), so memory
// does not grow with the size of the reports. A trace's findings are given
// again to the printer of the format asked for, so that the output is what
// that format writes; JUnit suites, which are whole per trace, are copied.

// mergeKind is the format of a shard's report.
type mergeKind string

const (
	mergeJSON  mergeKind = "json"
	mergeSARIF mergeKind = "sarif"
	mergeJUnit mergeKind = "junit"
)

// mergeSource is one shard's report, read a trace at a time.
type mergeSource interface {
	// head returns the name of the next trace, ok false at the end.
	head() (name string, ok bool, err error)
	// emit gives the printer the next trace's findings and ends it.
	emit(p *printer, name string) error
	close()
}

// reportKind tells the format of the report at path from its first line.
func reportKind(path string) (mergeKind, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head, _ := bufio.NewReader(f).Peek(256)
	head = bytes.TrimLeft(head, " \t\r\n")
	switch {
	case bytes.HasPrefix(head, []byte("<?xml")), bytes.HasPrefix(head, []byte("<testsuites")):
		return mergeJUnit, nil
	case bytes.HasPrefix(head, []byte(`{"version":"2.1.0"`)):
		return mergeSARIF, nil
	case bytes.HasPrefix(head, []byte(`{"file":`)), bytes.HasPrefix(head, []byte(`{"summary":`)):
		return mergeJSON, nil
	}
	return "", errors.New("not a report of validate in JSON, SARIF or JUnit (--format json, sarif or junit)")
}

// runMerge is validate --merge REPORT...
func runMerge(reports []string, o options, formatSet bool, stdout, stderr io.Writer, pl plugins) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "validate: --merge: "+format+"\n", a...)
		return exitUsage
	}
	if len(reports) == 0 {
		return fail("name the reports of the shards to merge")
	}
	var kind mergeKind
	for _, r := range reports {
		if r == "-" {
			return fail("a report is read twice, so it must be a file, not standard input")
		}
		k, err := reportKind(r)
		if err != nil {
			return fail("%s: %s", escapeText(r), escapeText(err.Error()))
		}
		if kind != "" && k != kind {
			return fail("%s is %s, the reports before it %s: merge reports of one format", escapeText(r), k, kind)
		}
		kind = k
	}
	format := string(kind)
	if formatSet {
		format = o.format
	}
	switch {
	case kind == mergeJSON && format != "html":
		if _, ok := lookupFormat(format, pl.formats...); !ok {
			return fail("unknown --format %q", format)
		}
	case format != string(kind):
		return fail("reports in %s merge into %s only (JSON reports merge into any format but html)", kind, kind)
	}
	if kind == mergeJUnit {
		return mergeJUnitReports(reports, o.strict, stdout, stderr)
	}

	out := newPrinter(format, stdout, pl.formats...)
	out.verbose, out.catalogue = o.verbose, pl.catalogue()
	var srcs []mergeSource
	defer func() {
		for _, s := range srcs {
			s.close()
		}
	}()
	var total validate.Summary
	known, ioFailed := 0, false
	for _, r := range reports {
		var s mergeSource
		var err error
		switch kind {
		case mergeJSON:
			var js *jsonReport
			js, err = openJSONReport(r)
			if err == nil {
				s = js
				total.Merge(js.sum)
				known += js.known
			}
		case mergeSARIF:
			var ss *sarifReport
			ss, err = openSARIFReport(r)
			s = ss
		}
		if err != nil {
			return fail("%s: %s", escapeText(r), escapeText(err.Error()))
		}
		srcs = append(srcs, s)
	}
	// The traces of all shards, by name: each shard's report lists its
	// own in the order its run took them, by path for a folder.
	var counted validate.Summary
	for {
		best, bestName := -1, ""
		for i, s := range srcs {
			n, ok, err := s.head()
			if err != nil {
				return fail("%s: %s", escapeText(reports[i]), escapeText(err.Error()))
			}
			if ok && (best < 0 || n < bestName) {
				best, bestName = i, n
			}
		}
		if best < 0 {
			break
		}
		if err := srcs[best].emit(out, bestName); err != nil {
			return fail("%s: %s", escapeText(reports[best]), escapeText(err.Error()))
		}
	}
	for _, s := range srcs {
		if ss, ok := s.(*sarifReport); ok {
			ioFailed = ioFailed || !ss.successful
			counted.Errors += ss.errors
			counted.Warnings += ss.warnings
		}
	}
	if kind == mergeSARIF {
		total.Errors, total.Warnings = counted.Errors, counted.Warnings
	} else {
		ioFailed = total.ByRule[validate.RuleIO] > 0
	}
	out.ioFailed, out.known = ioFailed, known
	if format != "text" || o.summary {
		out.summary(total)
	}
	if err := out.err(); err != nil {
		fmt.Fprintf(stderr, "validate: writing output: %s\n", escapeText(err.Error()))
		return exitUsage
	}
	switch {
	case ioFailed:
		return exitUsage
	case total.Errors > 0, o.strict && total.Warnings > 0:
		return exitFindings
	}
	return exitOK
}

// jsonReport reads a --format json report: its finding lines with one
// reader, the list of traces at the end of its summary with another.
type jsonReport struct {
	f, g   *os.File
	lines  *bufio.Reader // the finding lines
	next   *validate.Finding
	ended  bool // the finding lines are read
	traces *json.Decoder
	trace  *jsonDetected
	listed bool // the list of traces is read
	sum    validate.Summary
	known  int
}

func openJSONReport(path string) (*jsonReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r := &jsonReport{f: f, lines: bufio.NewReaderSize(f, 64<<10)}
	off, err := summaryOffset(path)
	if err == nil {
		r.g, err = os.Open(path)
	}
	if err == nil {
		_, err = r.g.Seek(off, io.SeekStart)
	}
	if err == nil {
		r.traces = json.NewDecoder(bufio.NewReaderSize(r.g, 64<<10))
		err = r.readCounts()
	}
	if err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// summaryOffset finds where the summary line of a JSON report begins.
func summaryOffset(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var off int64
	start := true
	for {
		line, err := br.ReadSlice('\n')
		if start && bytes.HasPrefix(line, []byte(`{"summary":`)) {
			return off, nil
		}
		off += int64(len(line))
		start = err == nil
		switch {
		case err == bufio.ErrBufferFull, err == nil:
		case err == io.EOF:
			return 0, errors.New("the report has no summary line: it was cut short, or its run was stopped")
		default:
			return 0, err
		}
	}
}

// readCounts reads the summary's counts, up to its list of traces.
func (r *jsonReport) readCounts() error {
	d := r.traces
	want := func(t json.Delim) error {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		if tok != t {
			return fmt.Errorf("the summary line is not as --format json writes it: %v where %v belongs", tok, t)
		}
		return nil
	}
	if err := want('{'); err != nil {
		return err
	}
	if tok, err := d.Token(); err != nil || tok != "summary" {
		return errors.New("the summary line is not as --format json writes it")
	}
	if err := want('{'); err != nil {
		return err
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var dst any
		switch key {
		case "files":
			dst = &r.sum.Files
		case "lines":
			dst = &r.sum.Lines
		case "messages":
			dst = &r.sum.Messages
		case "errors":
			dst = &r.sum.Errors
		case "warnings":
			dst = &r.sum.Warnings
		case "known":
			dst = &r.known
		case "by_rule":
			dst = &r.sum.ByRule
		case "by_type":
			dst = &r.sum.ByType
		case "detected":
			return want('[')
		default:
			dst = new(json.RawMessage)
		}
		if err := d.Decode(dst); err != nil {
			return fmt.Errorf("the summary's %s: %w", key, err)
		}
	}
	return errors.New("the summary lists no traces (detected)")
}

func (r *jsonReport) head() (string, bool, error) {
	if r.next == nil && !r.ended {
		line, err := r.lines.ReadBytes('\n')
		switch {
		case bytes.HasPrefix(line, []byte(`{"summary":`)), len(line) == 0 && err == io.EOF:
			r.ended = true
		case err != nil && err != io.EOF:
			return "", false, err
		default:
			var jf jsonFinding
			if err := json.Unmarshal(line, &jf); err != nil {
				return "", false, fmt.Errorf("a finding line: %w", err)
			}
			f := validate.Finding{File: jf.File, Line: jf.Line, Severity: validate.Error, Protocol: jf.Protocol, Dialect: jf.Dialect,
				Rule: jf.Rule, Pointer: jf.Pointer, Message: jf.Message, Requirement: jf.Requirement, Side: jf.Side}
			if jf.Severity == validate.Warning.String() {
				f.Severity = validate.Warning
			}
			r.next = &f
		}
	}
	if r.trace == nil && !r.listed {
		if r.traces.More() {
			var d jsonDetected
			if err := r.traces.Decode(&d); err != nil {
				return "", false, fmt.Errorf("the summary's list of traces: %w", err)
			}
			r.trace = &d
		} else {
			r.listed = true
		}
	}
	switch {
	case r.next != nil && (r.trace == nil || r.next.File <= r.trace.File):
		return r.next.File, true, nil
	case r.trace != nil:
		return r.trace.File, true, nil
	}
	return "", false, nil
}

func (r *jsonReport) emit(p *printer, name string) error {
	for {
		if _, _, err := r.head(); err != nil {
			return err
		}
		if r.next == nil || r.next.File != name {
			break
		}
		p.finding(*r.next)
		r.next = nil
	}
	var sum validate.Summary
	if r.trace != nil && r.trace.File == name {
		sum.Detected = []validate.Detected{r.trace.detected()}
		r.trace = nil
	}
	p.file(name, sum)
	return nil
}

func (r *jsonReport) close() {
	for _, f := range []*os.File{r.f, r.g} {
		if f != nil {
			f.Close()
		}
	}
}

// detected is d as the run had it.
func (d jsonDetected) detected() validate.Detected {
	out := validate.Detected{File: d.File, Protocol: d.Protocol, Dialect: d.Dialect, Note: d.Note}
	for _, p := range d.Peers {
		out.Peers = append(out.Peers, validate.Peer{Side: p.Side, Name: p.Name, Version: p.Version})
	}
	if c := d.Coverage; c != nil {
		out.Coverage = &validate.Coverage{Exercised: c.Exercised, Violated: c.Violated, Unexercised: c.Unexercised, Unchecked: c.Unchecked}
	}
	return out
}

// sarifReport reads a --format sarif report: its results one at a time,
// then whether its run succeeded.
type sarifReport struct {
	f                *os.File
	d                *json.Decoder
	next             *validate.Finding
	ended            bool
	successful       bool
	errors, warnings int
}

func openSARIFReport(path string) (*sarifReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r := &sarifReport{f: f, d: json.NewDecoder(bufio.NewReaderSize(f, 64<<10))}
	if err := r.toResults(); err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// toResults reads up to the first result of the log's one run.
func (r *sarifReport) toResults() error {
	d := r.d
	bad := errors.New("not a SARIF log as --format sarif writes it")
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return bad
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		if tok != "runs" {
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		for _, want := range []any{json.Delim('['), json.Delim('{'), "results", json.Delim('[')} {
			if tok, err := d.Token(); err != nil || tok != want {
				return bad
			}
		}
		return nil
	}
	return bad
}

// readTail reads what follows the results: whether the run succeeded.
func (r *sarifReport) readTail() error {
	d := r.d
	if _, err := d.Token(); err != nil { // the end of the results
		return err
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		if tok == "invocations" {
			var inv []sarifInvocation
			if err := d.Decode(&inv); err != nil {
				return err
			}
			r.successful = len(inv) > 0
			for _, i := range inv {
				r.successful = r.successful && i.ExecutionSuccessful
			}
			continue
		}
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

func (r *sarifReport) head() (string, bool, error) {
	if r.next == nil && !r.ended {
		if !r.d.More() {
			r.ended = true
			if err := r.readTail(); err != nil {
				return "", false, fmt.Errorf("the end of the SARIF log: %w", err)
			}
			return "", false, nil
		}
		var res sarifResult
		if err := r.d.Decode(&res); err != nil {
			return "", false, fmt.Errorf("a SARIF result: %w", err)
		}
		f, err := findingOfSARIF(res)
		if err != nil {
			return "", false, err
		}
		if f.Severity == validate.Warning {
			r.warnings++
		} else {
			r.errors++
		}
		r.next = &f
	}
	if r.next == nil {
		return "", false, nil
	}
	return r.next.File, true, nil
}

func (r *sarifReport) emit(p *printer, name string) error {
	for {
		if _, _, err := r.head(); err != nil {
			return err
		}
		if r.next == nil || r.next.File != name {
			break
		}
		p.finding(*r.next)
		r.next = nil
	}
	p.file(name, validate.Summary{})
	return nil
}

func (r *sarifReport) close() { r.f.Close() }

// findingOfSARIF is the finding a result of sarifResult stands for.
func findingOfSARIF(res sarifResult) (validate.Finding, error) {
	if len(res.Locations) == 0 {
		return validate.Finding{}, errors.New("a SARIF result without a location")
	}
	loc := res.Locations[0].PhysicalLocation
	file, err := fileOfURI(loc.ArtifactLocation.URI)
	if err != nil {
		return validate.Finding{}, err
	}
	pr := res.Properties
	f := validate.Finding{File: file, Severity: validate.Error, Rule: res.RuleID, Pointer: pr.Pointer, Message: res.Message.Text,
		Protocol: pr.Protocol, Dialect: pr.Dialect, Requirement: pr.Requirement, Side: pr.Side}
	if res.Level == "warning" {
		f.Severity = validate.Warning
	}
	if loc.Region != nil {
		f.Line = loc.Region.StartLine
	}
	if f.Pointer != "" {
		f.Message = strings.TrimPrefix(f.Message, f.Pointer+": ")
	}
	return f, nil
}

// fileOfURI is the file name artifactURI made uri of.
func fileOfURI(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("a SARIF artifact location: %w", err)
	}
	p := u.Path
	if u.Scheme == "" && strings.HasPrefix(p, "./") {
		// url.URL writes ./ before a first segment with a colon.
		if first, _, _ := strings.Cut(p[2:], "/"); strings.Contains(first, ":") {
			p = p[2:]
		}
	}
	return filepath.FromSlash(p), nil
}

// mergeJUnitReports copies the test suites of JUnit reports, by name, into
// one report: each suite is a trace, whole.
func mergeJUnitReports(reports []string, strict bool, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "validate: --merge: "+format+"\n", a...)
		return exitUsage
	}
	type shard struct {
		f    *os.File
		r    *bufio.Reader
		open string // the next suite's first line, "" at the end
		name string
	}
	var shards []*shard
	defer func() {
		for _, s := range shards {
			s.f.Close()
		}
	}()
	const suiteEnd = "  </testsuite>\n"
	advance := func(s *shard) error {
		s.open, s.name = "", ""
		for {
			line, err := s.r.ReadString('\n')
			if strings.HasPrefix(line, "  <testsuite name=\"") {
				s.open = line
				v := strings.TrimPrefix(line, "  <testsuite name=\"")
				v, _, _ = strings.Cut(v, "\"")
				s.name = html.UnescapeString(v)
				return nil
			}
			if strings.HasPrefix(line, "</testsuites>") || err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	for _, p := range reports {
		f, err := os.Open(p)
		if err != nil {
			return fail("%s", escapeText(err.Error()))
		}
		s := &shard{f: f, r: bufio.NewReaderSize(f, 64<<10)}
		shards = append(shards, s)
		if err := advance(s); err != nil {
			return fail("%s: %s", escapeText(p), escapeText(err.Error()))
		}
	}
	w := bufio.NewWriterSize(stdout, 64<<10)
	w.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<testsuites name="agentproto validate">` + "\n")
	failed, errored, warned := false, false, false
	for {
		best := -1
		for i, s := range shards {
			if s.open != "" && (best < 0 || s.name < shards[best].name) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		s := shards[best]
		failed = failed || attrCount(s.open, "failures") > 0
		errored = errored || attrCount(s.open, "errors") > 0
		w.WriteString(s.open)
		for {
			line, err := s.r.ReadString('\n')
			if strings.HasPrefix(line, "      <system-out>") {
				warned = true
			}
			w.WriteString(line)
			if line == suiteEnd {
				break
			}
			if err != nil {
				return fail("%s: a test suite is cut short", escapeText(reports[best]))
			}
		}
		if err := advance(s); err != nil {
			return fail("%s: %s", escapeText(reports[best]), escapeText(err.Error()))
		}
	}
	w.WriteString("</testsuites>\n")
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "validate: writing output: %s\n", escapeText(err.Error()))
		return exitUsage
	}
	switch {
	case errored:
		return exitUsage
	case failed, strict && warned:
		return exitFindings
	}
	return exitOK
}

// attrCount reads the number attr="N" of a test suite's first line.
func attrCount(line, attr string) int {
	_, v, ok := strings.Cut(line, " "+attr+"=\"")
	if !ok {
		return 0
	}
	v, _, _ = strings.Cut(v, "\"")
	n, _ := strconv.Atoi(v)
	return n
}
