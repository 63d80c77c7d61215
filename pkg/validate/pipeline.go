package validate

// The state of a check and its stages: parse, step (in order), check
// (any goroutine) and publish (in order), and how batches flow between
// them.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/judge"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// fileRun is the state of one Check.
type fileRun struct {
	e      *Engine
	name   string
	report func(Finding)
	// message is FileOptions.Message.
	message func(MessageInfo)
	sum     Summary
	dirs    *bufio.Scanner
	// dirLines counts the sidecar's entries read: one per line of the
	// trace, blank and unreadable lines included.
	dirLines int
	// dirEnded is set when the sidecar ran out or was refused, dirShort
	// when it ran out.
	dirEnded, dirShort bool

	control  *RuleControl
	baseline *Baseline

	// annotators read each record for message (annotate), made on first use.
	annotators []protocol.Annotator

	decided  bool // a batch has been seen
	detected bool // the protocol is known
	rules    protocol.Rules
	h        protocol.Handler
	judge    *judge.Trace // the judge of the trace's messages
	// skipAll is set when the file matches no protocol: its one finding
	// has been reported and the rest is only counted.
	skipAll bool
	notes   []Finding // found by the in-order stage, for the batch's report

	// Owned by the goroutine that reports.
	ioFailed   bool                 // reading stopped early
	onceSeen   map[string]bool      // the once-per-trace warnings reported
	typeNames  map[[2]string]string // "proto label" by proto and label, for ByType
	outProto   string               // the protocol and dialect findings name
	outDialect string
	violated   map[string]bool // the requirements the reported findings name
	text       textRun         // consecutive lines of text, not yet reported
}

// newRun returns the state of one Check of the trace named name.
func (e *Engine) newRun(name string, fo FileOptions, report func(Finding)) *fileRun {
	run := &fileRun{e: e, name: name, report: report, message: fo.Message, control: fo.Rules, baseline: fo.Baseline, onceSeen: map[string]bool{}, sum: Summary{Files: 1, ByType: map[string]int{}, ByRule: map[string]int{}}}
	if fo.Directions != nil {
		run.dirs = bufio.NewScanner(fo.Directions)
	}
	return run
}

// stages takes each batch through the stages of a check, parse, step
// (detection, the sidecar, the protocol's rules), judge and publish,
// and hands it back to free; it returns the first I/O error, of the
// trace or of the in-order stage.
func (r *fileRun) stages(ctx context.Context, batches <-chan *batch, free chan<- *batch) error {
	var ioErr error
	publish := func(b *batch) {
		if len(b.items) > 0 {
			if err := r.publish(b); err != nil && ioErr == nil {
				ioErr = err
			}
		}
		if b.err != nil && ioErr == nil {
			ioErr = b.err
			r.ioFailed = true
			r.emit(Finding{Line: b.errLine, Severity: Error, Rule: RuleIO, Message: fmt.Sprintf("reading stopped: %v", b.err)})
		}
		recycle(free, b)
	}
	if r.e.workers > 1 {
		r.pipeline(ctx, batches, publish)
		return ioErr
	}
	// One goroutine does every stage of a batch in turn.
	for b := range batches {
		r.parse(b)
		r.step(b)
		r.check(b)
		publish(b)
	}
	return ioErr
}

// pipeline runs the stages of a check on their own goroutines, so that
// the in-order stages (the protocol state of one batch, the report of
// another) overlap with the parsing and schema checks of others on every
// worker, with no barrier between batches: batches are parsed and checked
// by whichever worker is free, stepped in order by one goroutine and
// reported in order by the calling one. At most a few batches are in
// flight, so memory stays bounded.
func (r *fileRun) pipeline(ctx context.Context, batches <-chan *batch, publish func(*batch)) {
	workers := r.e.workers
	toParse := make(chan *batch, workers+1)
	toCheck := make(chan *batch, workers+1)
	toStep := make(chan *batch, workers+1)
	toReport := make(chan *batch, workers+1)
	// A slot for every batch between dispatch and report: whatever the
	// number of workers, at most maxInFlight batches are held.
	slots := make(chan struct{}, min(2*workers+2, maxInFlight))
	var wg sync.WaitGroup
	// Dispatch: every batch is parsed by some worker and stepped in order.
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(toParse)
		defer close(toStep)
		for b := range batches {
			if !send(ctx, slots, struct{}{}) || !send(ctx, toStep, b) || !send(ctx, toParse, b) {
				return
			}
		}
	}()
	// Workers: checks first (they free memory), then parses.
	wg.Add(workers)
	for range workers {
		go func() {
			defer wg.Done()
			parse, check := toParse, toCheck
			for parse != nil || check != nil {
				var b *batch
				ok, checking := false, true
				select {
				case b, ok = <-check:
				case <-ctx.Done():
					return
				default:
					select {
					case b, ok = <-check:
					case b, ok = <-parse:
						checking = false
					case <-ctx.Done():
						return
					}
				}
				switch {
				case !ok && checking:
					check = nil
				case !ok:
					parse = nil
				case checking:
					r.check(b)
					close(b.checked)
				default:
					r.parse(b)
					close(b.parsed)
				}
			}
		}()
	}
	// The in-order stage.
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(toCheck)
		defer close(toReport)
		for b := range toStep {
			if !wait(ctx, b.parsed) {
				return
			}
			r.step(b)
			if !send(ctx, toCheck, b) || !send(ctx, toReport, b) {
				return
			}
		}
	}()
	for b := range toReport {
		if !wait(ctx, b.checked) {
			break
		}
		publish(b)
		<-slots
	}
	wg.Wait()
}

// send sends v on ch unless ctx is done first, and reports whether it
// sent.
func send[T any](ctx context.Context, ch chan<- T, v T) bool {
	select {
	case ch <- v:
		return true
	case <-ctx.Done():
		return false
	}
}

// wait waits for done to be closed unless ctx is done first, and reports
// whether it was.
func wait(ctx context.Context, done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// parse parses a batch's records (any goroutine).
func (r *fileRun) parse(b *batch) {
	a := &b.nodes
	for _, it := range b.items {
		if it.err != nil {
			it.bad = &Finding{Line: it.m.Line, Severity: Error, Rule: RuleLineTooLong, Message: it.err.Error()}
			continue
		}
		d, err := a.Parse(it.m.Data, r.e.opts.MaxDepth)
		if err != nil {
			it.bad = parseFinding(it.m.Line, err)
			continue
		}
		it.m.Doc = d
		split(it, a, r.e.opts.MaxDepth)
	}
}

// step is the in-order stage (one goroutine, batches in order): detection,
// the direction sidecar, dispatch and the protocol state.
func (r *fileRun) step(b *batch) {
	defer func() {
		b.notes, r.notes = r.notes, nil
		b.proto, b.dialect = r.protocol(), r.dialect()
	}()
	if !r.detected && !r.skipAll {
		if err := r.decide(b.items); err != nil {
			r.skipAll = true
			b.skip, b.stepErr = true, err
			return
		}
	}
	b.stepErr = r.directions(b.items)
	if r.skipAll {
		b.skip = true
		return
	}
	if r.h != nil {
		bt, _ := r.h.(protocol.Batcher)
		for _, it := range b.items {
			switch {
			case it.bad != nil:
				r.h.Lost(&it.m)
			case bt != nil:
				stepLine(bt, it)
			default:
				r.h.Step(&it.m)
			}
		}
	}
}

// check runs a batch's schema checks and round trips (any goroutine).
func (r *fileRun) check(b *batch) {
	if b.skip {
		return
	}
	for _, it := range b.items {
		r.checkItem(it, &b.sc)
		es := batchEntries(it)
		for i := range es {
			r.checkItem(&es[i], &b.sc)
		}
	}
}

// directions reads one sidecar line per record, for protocols that take a
// direction sidecar.
func (r *fileRun) directions(items []*item) error {
	if r.dirs == nil || r.rules == nil {
		return nil
	}
	allowed := r.rules.Directions()
	if len(allowed) == 0 {
		return nil
	}
	for _, it := range items {
		// Entry k is line k's: skip those of the lines that hold no
		// record (blank lines).
		var d string
		for r.dirLines < it.m.Line {
			if !r.dirs.Scan() {
				err := r.dirs.Err()
				r.dirs, r.dirEnded = nil, true
				if err != nil {
					return fmt.Errorf("direction sidecar: %w", err)
				}
				// Short: the rest of the trace is read without
				// directions, and the end of the trace says so.
				r.dirShort = true
				return nil
			}
			r.dirLines++
			d = strings.TrimSpace(r.dirs.Text())
		}
		ok := false
		for _, a := range allowed {
			ok = ok || d == a
		}
		if !ok {
			r.dirs, r.dirEnded = nil, true
			return fmt.Errorf("direction sidecar: line %d holds %s; each line must be %s", r.dirLines, protocol.Quote(d), strings.Join(allowed, " or "))
		}
		it.m.Dir = d
	}
	return nil
}

// sidecarCount warns once when the direction sidecar holds another number
// of entries than the trace has lines: one of them was cut or is another
// trace's, and the directions read may be shifted.
func (r *fileRun) sidecarCount(lines int) {
	n := r.dirLines
	switch {
	case r.dirShort:
	case r.dirs == nil || lines == 0:
		return
	default:
		for n <= lines && r.dirs.Scan() {
			n++
		}
		if n == lines {
			return
		}
	}
	more := "fewer"
	if n > lines {
		more = "more"
	}
	r.emit(Finding{Line: 0, Severity: Warning, Rule: RuleSidecar, Message: fmt.Sprintf("the direction sidecar holds %s entries (%d) than the trace has lines (%d): it holds one direction per line of the trace, blank and unreadable lines included; the directions read may be shifted, and lines past its end were read without one", more, n, lines)})
}

// parseFinding is the finding of a line that did not parse.
func parseFinding(line int, err error) *Finding {
	var pe *jsonscan.Error
	msg := err.Error()
	ptr := ""
	if errors.As(err, &pe) {
		ptr = pe.Pointer
		msg = fmt.Sprintf("not valid JSON: %s (byte %d of the line)", pe.Msg, pe.Offset+1)
		if pe.Kind == jsonscan.NumberTooLong {
			msg = fmt.Sprintf("%s (byte %d of the line): valid JSON, but no protocol number needs more than %d digits or an exponent beyond ±%d, so the line is not checked further", pe.Msg, pe.Offset+1, jsonscan.MaxNumberDigits, jsonscan.MaxNumberExponent)
		}
	}
	return &Finding{Line: line, Severity: Error, Rule: RuleJSON, Pointer: ptr, Message: msg}
}
