package report

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/internal/spool"
	"github.com/agentproto/agentproto/pkg/validate"
)

// JUnit is --format junit, JUnit XML: one test suite per trace holding
// one test case, which fails when the trace has an error finding: one failure
// element whose message is the first error and whose text lists them all,
// or one error element when the trace could not be read (an io finding),
// listing the io findings and then the errors. So a suite counts one test
// and at most one failure or error, as JUnit readers expect. The warnings
// are the test case's system-out, one per line. The suite's counts come
// before its children, so a trace's lines are written to spools as findings
// come (in memory up to spool.Memory each, in a temporary file past it) and
// copied out when the trace ends: memory does not grow with the number of
// findings.

type JUnit struct {
	out
	started bool
	// The error findings and the io findings of the trace: how many, the
	// first one's message and rule, and their lines.
	failures, errs     int
	failHead, failRule string
	errHead            string
	errBody, body      spool.Spool
	warnings           spool.Spool
}

// NewJUnit returns a JUnit writer on w.
func NewJUnit(w io.Writer, _ Options) *JUnit {
	j := &JUnit{out: newOut(w)}
	j.release = j.reset
	return j
}

// testSuitesFormat is JUnit's entry in Formats.
func testSuitesFormat() Format {
	return Format{Name: "junit", Help: "JUnit XML", New: func(w io.Writer, o Options) Writer { return NewJUnit(w, o) },
		Example: "validate --format junit traces/ > junit.xml", Use: "a test suite per trace, for CI test reports"}
}

func (j *JUnit) start() {
	if j.started {
		return
	}
	j.started = true
	_, j.err = j.w.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<testsuites name="agentproto validate">` + "\n")
}

// Finding writes f's line to the spool of its element.
func (j *JUnit) Finding(f validate.Finding) {
	if j.err != nil {
		return
	}
	// Each line is escaped as in the text format (a newline in it shows
	// as \n); the lines are separated by real newlines.
	line := xmlEscape(FindingText(f)) + "\n"
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
		j.err = err
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

// reset forgets the trace's findings.
func (j *JUnit) reset() {
	j.failures, j.errs = 0, 0
	j.failHead, j.failRule, j.errHead = "", "", ""
	j.errBody.Reset()
	j.body.Reset()
	j.warnings.Reset()
}

// EndTrace writes the test suite of the trace name.
func (j *JUnit) EndTrace(name string, _ validate.Summary) {
	j.suite(name)
	j.Flush()
}

// suite writes the test suite of the trace name.
func (j *JUnit) suite(name string) {
	defer j.reset()
	if j.err != nil {
		return
	}
	j.start()
	if j.err != nil {
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
	if _, j.err = fmt.Fprintf(j.w, "  <testsuite name=\"%s\" tests=\"1\" failures=\"%d\" errors=\"%d\" skipped=\"0\">\n    <testcase name=\"%s\" classname=\"agentproto.validate\">\n",
		n, failed, errored, n); j.err != nil {
		return
	}
	element := func(tag, message, typ string, bodies ...*spool.Spool) {
		if j.err != nil {
			return
		}
		open := fmt.Sprintf("      <%s message=\"%s\" type=\"%s\">", tag, xmlEscape(message), xmlEscape(typ))
		if tag == "system-out" {
			open = "      <system-out>"
		}
		if _, j.err = j.w.WriteString(open); j.err != nil {
			return
		}
		for _, b := range bodies {
			if j.err = b.CopyTo(j.w); j.err != nil {
				return
			}
		}
		_, j.err = fmt.Fprintf(j.w, "</%s>\n", tag)
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
	if j.err == nil {
		_, j.err = j.w.WriteString("    </testcase>\n  </testsuite>\n")
	}
}

// End ends the document.
func (j *JUnit) End(Totals) {
	if j.err != nil {
		return
	}
	j.start()
	if j.err == nil {
		_, j.err = j.w.WriteString("</testsuites>\n")
	}
}

// xmlEscape makes s inert as EscapeText does, then escapes it for XML
// text and attribute values.
func xmlEscape(s string) string {
	var sb strings.Builder
	_ = xml.EscapeText(&sb, []byte(EscapeText(s)))
	return sb.String()
}

// testSuitesMergeable is how Merge reads JUnit reports.
func testSuitesMergeable() mergeable {
	return mergeable{name: "junit", label: "JUnit", copy: mergeJUnit, sniff: func(head []byte) bool {
		return bytes.HasPrefix(head, []byte("<?xml")) || bytes.HasPrefix(head, []byte("<testsuites"))
	}}
}

// mergeJUnit copies the test suites of JUnit reports, by name, into one
// report: each suite is a trace, whole. The totals count the suites that
// failed as errors and those with warnings as warnings; Incomplete is set
// when a suite holds an error element (a trace that could not be read).
func mergeJUnit(reports []string, out io.Writer) (Totals, error) {
	var t Totals
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
			return t, errors.New(EscapeText(err.Error()))
		}
		s := &shard{f: f, r: bufio.NewReaderSize(f, 64<<10)}
		shards = append(shards, s)
		if err := advance(s); err != nil {
			return t, fmt.Errorf("%s: %s", EscapeText(p), EscapeText(err.Error()))
		}
	}
	w := bufio.NewWriterSize(out, 64<<10)
	w.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<testsuites name="agentproto validate">` + "\n")
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
		if attrCount(s.open, "failures") > 0 {
			t.Errors++
		}
		t.Incomplete = t.Incomplete || attrCount(s.open, "errors") > 0
		w.WriteString(s.open)
		for {
			line, err := s.r.ReadString('\n')
			if strings.HasPrefix(line, "      <system-out>") {
				t.Warnings++
			}
			w.WriteString(line)
			if line == suiteEnd {
				break
			}
			if err != nil {
				return t, fmt.Errorf("%s: a test suite is cut short", EscapeText(reports[best]))
			}
		}
		if err := advance(s); err != nil {
			return t, fmt.Errorf("%s: %s", EscapeText(reports[best]), EscapeText(err.Error()))
		}
	}
	w.WriteString("</testsuites>\n")
	if err := w.Flush(); err != nil {
		return t, &WriteError{err}
	}
	return t, nil
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
