package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate"
)

// Merge: the reports of the shards of a run (--shard K/N) joined into the
// report one run over all the traces would have given. Each report is read
// as a stream, the traces of the shards taken in turn by name (as a run
// walks a folder), so memory does not grow with the size of the reports. A
// trace's findings are given again to the Writer of the format asked for,
// so that the output is what that format writes; a format whose reports
// hold each trace whole (test suites) copies them instead.

// mergeable is a format whose reports Merge reads: its name, what a
// sentence calls it, whether a report's first bytes are of it, and for a
// format copied rather than read, how.
type mergeable struct {
	name, label string
	sniff       func(head []byte) bool
	copy        func(reports []string, w io.Writer) (Totals, error)
}

func mergeables() []mergeable {
	return []mergeable{
		{name: "json", label: "JSON", sniff: func(head []byte) bool {
			return bytes.HasPrefix(head, []byte(`{"file":`)) || bytes.HasPrefix(head, []byte(`{"summary":`))
		}},
		{name: "sarif", label: "SARIF", sniff: func(head []byte) bool { return bytes.HasPrefix(head, []byte(`{"version":"2.1.0"`)) }},
		testSuitesMergeable(),
	}
}

// mergeSource is one shard's report, read a trace at a time.
type mergeSource interface {
	// head returns the name of the next trace, ok false at the end.
	head() (name string, ok bool, err error)
	// emit gives w the next trace's findings and ends it.
	emit(w Writer, name string) error
	close()
}

// ReportFormat tells the format of the report at path (a Format's name)
// from its first bytes.
func ReportFormat(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head, _ := bufio.NewReader(f).Peek(256)
	head = bytes.TrimLeft(head, " \t\r\n")
	var names, labels []string
	for _, m := range mergeables() {
		if m.sniff(head) {
			return m.name, nil
		}
		names, labels = append(names, m.name), append(labels, m.label)
	}
	return "", fmt.Errorf("not a report of validate in %s (--format %s)", OrList(labels), OrList(names))
}

// Merge writes to w, in the format named format (of Formats or extra), the
// report one run would have written whose shards wrote the reports at
// paths, and returns its totals. The reports must be of one format, as
// ReportFormat tells; format must be theirs, except that JSON reports
// merge into any format but html. The errors name the report at fault.
func Merge(paths []string, format string, w io.Writer, o Options, extra ...Format) (Totals, error) {
	var t Totals
	if len(paths) == 0 {
		return t, errors.New("name the reports of the shards to merge")
	}
	kind := ""
	for _, r := range paths {
		if r == "-" {
			return t, errors.New("a report is read twice, so it must be a file, not standard input")
		}
		k, err := ReportFormat(r)
		if err != nil {
			return t, fmt.Errorf("%s: %s", EscapeText(r), EscapeText(err.Error()))
		}
		if kind != "" && k != kind {
			return t, fmt.Errorf("%s is %s, the reports before it %s: merge reports of one format", EscapeText(r), k, kind)
		}
		kind = k
	}
	if format == "" {
		format = kind
	}
	switch {
	case kind == "json" && format != "html":
		if _, ok := Lookup(format, extra...); !ok {
			return t, fmt.Errorf("unknown --format %q", format)
		}
	case format != kind:
		return t, fmt.Errorf("reports in %s merge into %s only (JSON reports merge into any format but html)", kind, kind)
	}
	for _, m := range mergeables() {
		if m.name == kind && m.copy != nil {
			return m.copy(paths, w)
		}
	}
	out, _ := New(format, w, o, extra...)
	t, err := mergeInto(out, kind, paths)
	if err != nil {
		out.Close()
		return t, err
	}
	out.End(t)
	if err := out.Close(); err != nil {
		return t, &WriteError{err}
	}
	return t, nil
}

// WriteError is an error of Merge in writing its output, not in reading
// the reports.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return "writing output: " + e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// mergeInto gives out the findings and traces of the reports at paths,
// of format kind, and returns the run's totals.
func mergeInto(out Writer, kind string, paths []string) (Totals, error) {
	var srcs []mergeSource
	defer func() {
		for _, s := range srcs {
			s.close()
		}
	}()
	var t Totals
	for _, r := range paths {
		var s mergeSource
		var err error
		switch kind {
		case "json":
			var js *jsonReport
			js, err = openJSONReport(r)
			if err == nil {
				s = js
				t.Merge(js.sum)
				t.Known += js.known
				t.MergeSides(js.sides)
			}
		default:
			var ss *sarifReport
			ss, err = openSARIFReport(r)
			s = ss
		}
		if err != nil {
			return t, fmt.Errorf("%s: %s", EscapeText(r), EscapeText(err.Error()))
		}
		srcs = append(srcs, s)
	}
	// The traces of all shards, by name: each shard's report lists its
	// own in the order its run took them, by path for a folder.
	for {
		best, bestName := -1, ""
		for i, s := range srcs {
			n, ok, err := s.head()
			if err != nil {
				return t, fmt.Errorf("%s: %s", EscapeText(paths[i]), EscapeText(err.Error()))
			}
			if ok && (best < 0 || n < bestName) {
				best, bestName = i, n
			}
		}
		if best < 0 {
			break
		}
		if err := srcs[best].emit(out, bestName); err != nil {
			return t, fmt.Errorf("%s: %s", EscapeText(paths[best]), EscapeText(err.Error()))
		}
	}
	if kind == "sarif" {
		var counted validate.Summary
		for _, s := range srcs {
			ss := s.(*sarifReport)
			t.Incomplete = t.Incomplete || !ss.successful
			t.MergeSides(ss.sides)
			counted.Errors += ss.errors
			counted.Warnings += ss.warnings
		}
		t.Errors, t.Warnings = counted.Errors, counted.Warnings
	} else {
		t.Incomplete = t.ByRule[validate.RuleIO] > 0
	}
	return t, nil
}

// emitFindings gives w the findings of the trace name a report holds
// next: head reads the next one into *next, which is then taken.
func emitFindings(w Writer, name string, head func() (string, bool, error), next **validate.Finding) error {
	for {
		if _, _, err := head(); err != nil {
			return err
		}
		if *next == nil || (*next).File != name {
			return nil
		}
		w.Finding(**next)
		*next = nil
	}
}

// jsonReport reads a --format json report: its finding lines with one
// reader, the list of traces at the end of its summary with another.
type jsonReport struct {
	f, g   *os.File
	lines  *bufio.Reader // the finding lines
	next   *validate.Finding
	ended  bool // the finding lines are read
	traces *json.Decoder
	trace  *JSONDetected
	listed bool // the list of traces is read
	sum    validate.Summary
	known  int
	sides  Totals // the per-side counts
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
		case "by_side":
			dst = &r.sides.BySide
		case "sides":
			dst = &r.sides.Sides
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
			var jf JSONFinding
			if err := json.Unmarshal(line, &jf); err != nil {
				return "", false, fmt.Errorf("a finding line: %w", err)
			}
			f := jf.Finding()
			r.next = &f
		}
	}
	if r.trace == nil && !r.listed {
		if r.traces.More() {
			var d JSONDetected
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

func (r *jsonReport) emit(w Writer, name string) error {
	if err := emitFindings(w, name, r.head, &r.next); err != nil {
		return err
	}
	var sum validate.Summary
	if r.trace != nil && r.trace.File == name {
		sum.Detected = []validate.Detected{r.trace.Detected()}
		r.trace = nil
	}
	w.EndTrace(name, sum)
	return nil
}

func (r *jsonReport) close() {
	for _, f := range []*os.File{r.f, r.g} {
		if f != nil {
			f.Close()
		}
	}
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
	sides            Totals // the per-side counts
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
		if tok == "properties" {
			var p sarifRunProps
			if err := d.Decode(&p); err != nil {
				return err
			}
			r.sides = Totals{BySide: p.BySide, Sides: p.Sides}
			continue
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

func (r *sarifReport) emit(w Writer, name string) error {
	if err := emitFindings(w, name, r.head, &r.next); err != nil {
		return err
	}
	w.EndTrace(name, validate.Summary{})
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

// Mergeable names the formats whose reports Merge reads, as a sentence
// ("JSON, SARIF or …") and by their --format names.
func Mergeable() (labels, names string) {
	var l, n []string
	for _, m := range mergeables() {
		l, n = append(l, m.label), append(n, m.name)
	}
	return OrList(l), OrList(n)
}
