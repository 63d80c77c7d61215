package validate

// The report stage (the calling goroutine, batches in order): the findings
// a check publishes in line order with the requirement and side they name,
// the rule control and baseline applied as each is emitted, and the
// end-of-trace findings and summary.

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentproto/agentproto/pkg/validate/judge"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// publish reports a batch's findings in order (the calling goroutine) and
// returns the in-order stage's error.
func (r *fileRun) publish(b *batch) error {
	e := r.e
	r.view(b.proto, b.dialect)
	r.sum.Messages += len(b.items)
	for _, f := range b.notes {
		r.emit(f)
	}
	if b.skip {
		r.flushText()
		for _, it := range b.items {
			r.tell(it)
		}
		return b.stepErr
	}
	for _, it := range b.items {
		if it.bad == nil && it.m.Label != "" {
			r.sum.ByType[r.typeName(b.proto, it.m.Label)]++
		}
		for _, e := range batchEntries(it) {
			if e.m.Label != "" {
				r.sum.ByType[r.typeName(b.proto, e.m.Label)]++
			}
		}
	}
	items := b.items
	for _, it := range items {
		for _, o := range it.v.Seen {
			e.opts.Observe(o)
		}
		es := batchEntries(it)
		for i := range es {
			for _, o := range es[i].v.Seen {
				o.Pointer = entryPointer(i) + o.Pointer
				e.opts.Observe(o)
			}
		}
		r.tell(it)
		if it.bad != nil {
			f := *it.bad
			r.blame(&f, &it.m)
			if f.Rule == RuleJSON && isText(it.m.Data) {
				r.addText(f, it.m.Data)
				continue
			}
			r.flushText()
			r.emit(f)
			continue
		}
		r.flushText()
		n := 0
		more := func(f Finding, m *protocol.Message, under string) {
			if n++; n <= maxPerLine {
				r.blame(&f, m)
				f.Pointer = under + f.Pointer
				r.emit(f)
			}
		}
		r.itemFindings(it, "", more)
		for i := range es {
			r.itemFindings(&es[i], entryPointer(i), more)
		}
		if n > maxPerLine {
			r.emit(Finding{Line: it.m.Line, Severity: Error, Rule: RuleTooMany, Message: fmt.Sprintf("and %d more findings on this line, not listed one by one (the first %d are above)", n-maxPerLine, maxPerLine), Side: it.m.From})
		}
	}
	return b.stepErr
}

// view sets the protocol and dialect that findings reported from now on
// name, as the in-order stage knew them after the batch being reported.
func (r *fileRun) view(proto, dialect string) { r.outProto, r.outDialect = proto, dialect }

// maxPerLine is the most findings reported one by one for a line; the rest
// are counted in one too-many finding, so that output and memory stay
// proportional to what a person can read.
const maxPerLine = judge.MaxPerLine

// typeName is the summary's name of a message type: "acp session/update".
func (r *fileRun) typeName(proto, label string) string {
	k := [2]string{proto, label}
	n, ok := r.typeNames[k]
	if !ok {
		if r.typeNames == nil {
			r.typeNames = map[[2]string]string{}
		}
		n = proto + " " + label
		r.typeNames[k] = n
	}
	return n
}

// itemFindings hands the findings of one message to more, in the order
// they are reported: the once-per-trace warnings not given yet, the schema
// findings, then the state findings. under is the pointer of the message
// in its line ("" unless it is an entry of a batch).
func (r *fileRun) itemFindings(it *item, under string, more func(f Finding, m *protocol.Message, under string)) {
	for _, f := range it.v.Once {
		if !r.onceSeen[f.Message] {
			r.onceSeen[f.Message] = true
			more(f, &it.m, under)
		}
	}
	for _, f := range it.v.Out {
		more(f, &it.m, under)
	}
	for _, f := range it.m.State {
		if f.Severity == Error && f.Rule != RuleSchema && schemaAt(it.v.Out, f.Pointer) {
			// The value is already wrong by its schema: one
			// problem, one finding.
			continue
		}
		more(f, &it.m, under)
	}
}

// blame completes a finding on m with the requirement it shows broken and
// the side at fault, as the protocol's rules name them.
func (r *fileRun) blame(f *Finding, m *protocol.Message) {
	if f.Side == "" {
		f.Side = m.From
	}
	if c, ok := r.rules.(protocol.Catalogued); ok && f.Requirement == "" {
		c.Blame(f, m)
	}
}

// entryPointer is the pointer of entry i of a batch line, which its
// findings' pointers go under.
func entryPointer(i int) string { return "/" + strconv.Itoa(i) }

// schemaAt reports whether a schema finding points at ptr.
func schemaAt(out []Finding, ptr string) bool {
	for _, f := range out {
		if f.Rule == RuleSchema && f.Pointer == ptr && ptr != "" {
			return true
		}
	}
	return false
}

// textRun is a run of consecutive lines that are plain text rather than
// JSON, such as a peer's log lines written to the protocol's stream: one
// finding for the run, not one a line.
type textRun struct {
	first  Finding // the first line's finding, completed
	last   int     // the last line of the run
	n      int     // lines in the run
	sample string  // the first line's text, quoted and cut
}

// isText reports whether a line that is not valid JSON is text: it does
// not even begin like a JSON object or array (a cut or broken message does).
func isText(data []byte) bool {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return false // a byte order mark has a finding of its own
	}
	for _, c := range data {
		switch c {
		case ' ', '\t', '\r':
			continue
		case '{', '[':
			return false
		}
		return true
	}
	return false
}

// addText adds a line of text, whose finding is f, to the run.
func (r *fileRun) addText(f Finding, data []byte) {
	if r.text.n == 0 {
		if len(data) > 4*protocol.MaxEcho {
			data = data[:4*protocol.MaxEcho]
		}
		r.text = textRun{first: f, sample: protocol.Quote(string(data))}
	}
	r.text.n++
	r.text.last = f.Line
}

// flushText reports the run of text lines, if there is one: a single
// line as its own JSON finding, a longer run as one finding that names
// its lines and says where logs belong.
func (r *fileRun) flushText() {
	t := r.text
	r.text = textRun{}
	switch t.n {
	case 0:
		return
	case 1:
		r.emit(t.first)
		return
	}
	f := t.first
	f.Pointer = ""
	f.Message = fmt.Sprintf("lines %d to %d are %d lines of text, not JSON (the first is %s)", f.Line, t.last, t.n, t.sample)
	if r.outProto != "" {
		f.Message += ": log output written to the protocol's stream? It carries only the protocol's JSON messages, one a line; write logs to stderr"
	} else {
		f.Message += ": a trace is JSON Lines or SSE text, one message a line"
	}
	r.emit(f)
}

func (r *fileRun) emit(f Finding) {
	f.File = r.name
	f.Pointer = cutPointer(f.Pointer)
	if f.Protocol == "" {
		f.Protocol = r.outProto
	}
	if f.Dialect == "" {
		f.Dialect = r.outDialect
	}
	f, keep := r.control.apply(f)
	if !keep || r.baseline.match(f) {
		return
	}
	if f.Requirement != "" {
		if r.violated == nil {
			r.violated = map[string]bool{}
		}
		r.violated[f.Requirement] = true
	}
	r.sum.Add(f)
	if r.report != nil {
		r.report(f)
	}
}

// maxToken is the longest pointer token a finding repeats: input keys can
// be megabytes long.
const maxToken = protocol.MaxEcho

// cutPointer shortens the over-long tokens of a pointer to maxToken bytes
// with "...": the place stays readable, the output stays small.
func cutPointer(p string) string {
	if len(p) <= 4*maxToken {
		return p
	}
	toks := strings.Split(p, "/")
	for i, t := range toks {
		if len(t) > maxToken {
			n := maxToken - 3
			for n > 0 && !utf8.RuneStart(t[n]) {
				n--
			}
			toks[i] = t[:n] + "..."
		}
	}
	return strings.Join(toks, "/")
}

// apply returns f as c has it reported, and false when c drops it. Findings
// of the io rule are never changed.
func (c *RuleControl) apply(f Finding) (Finding, bool) {
	if c == nil || f.Rule == RuleIO {
		return f, true
	}
	if ruleMatches(c.Disable, f.Rule) {
		return f, false
	}
	if f.Severity == Error && ruleMatches(c.Warn, f.Rule) {
		f.Severity = Warning
	}
	return f, true
}

func ruleMatches(patterns []string, rule string) bool {
	for _, p := range patterns {
		if pre, ok := strings.CutSuffix(p, "*"); ok {
			if strings.HasPrefix(rule, pre) {
				return true
			}
		} else if p == rule {
			return true
		}
	}
	return false
}

// match reports whether f is a known finding, and uses up one count of it.
// io findings are never known: they say a trace was not checked.
func (b *Baseline) match(f Finding) bool {
	if b == nil || f.Rule == RuleIO {
		return false
	}
	k := baselineKey{baselineFileName(b.dir, f.File), f.Rule, f.Pointer, f.Message}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.left[k] == 0 {
		return false
	}
	b.left[k]--
	b.matched++
	return true
}

// finish reports end-of-trace findings and completes the summary.
func (r *fileRun) finish(lines int) {
	// Findings from now on name the protocol and dialect as the trace
	// ended.
	r.view(r.protocol(), r.dialect())
	r.sum.Lines = lines
	r.flushText()
	defer func() {
		d := Detected{File: r.name, Protocol: r.protocol()}
		if r.h != nil {
			d.Dialect = r.h.Dialect()
			d.Note = r.h.Note()
		}
		if rep, ok := r.h.(protocol.Reporter); ok {
			d.Peers = rep.Peers()
			d.Coverage = r.coverage(rep)
		}
		r.sum.Detected = []Detected{d}
	}()
	if !r.decided {
		// Nothing was read at all.
		r.decided = true
		if r.ioFailed {
			return // the io finding says why
		}
		r.emit(Finding{Line: 1, Severity: Error, Rule: RuleEmpty, Message: "the file holds no message (it is empty or blank): nothing to validate"})
		return
	}
	if r.h != nil && !r.skipAll {
		for _, f := range r.h.Finish(lines) {
			r.emit(f)
		}
	}
	r.sidecarCount(lines)
}

// coverage sorts the rows of the trace's catalogue by what the trace showed
// of them.
func (r *fileRun) coverage(rep protocol.Reporter) *Coverage {
	rows := rep.Catalogue()
	if len(rows) == 0 {
		return nil
	}
	checked := map[string]bool{}
	if c, ok := r.rules.(protocol.Catalogued); ok {
		version := r.dialect()
		for _, d := range c.RuleDocs() {
			for _, id := range d.Requirements {
				checked[id] = checked[id] || d.Checks(id, version)
			}
		}
	}
	exercised := map[string]bool{}
	for _, id := range rep.Exercised() {
		exercised[id] = true
	}
	cov := &Coverage{}
	for _, id := range rows {
		switch {
		case r.violated[id]:
			cov.Violated = append(cov.Violated, id)
		case !checked[id]:
			cov.Unchecked = append(cov.Unchecked, id)
		case exercised[id]:
			cov.Exercised = append(cov.Exercised, id)
		default:
			cov.Unexercised = append(cov.Unexercised, id)
		}
	}
	for _, l := range [][]string{cov.Exercised, cov.Violated, cov.Unexercised, cov.Unchecked} {
		sort.Strings(l)
	}
	return cov
}
