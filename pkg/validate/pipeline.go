package validate

// The orchestration of a check: each batch the reader cuts (read.go) goes
// through the stages in turn, parse (parse.go), step (step.go, in order),
// check (check.go) and publish (report.go, in order), on one goroutine or
// as a pipeline over the workers.

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/agentproto/agentproto/pkg/trace"
)

// stages reads tr in batches and takes each through the stages of a
// check, then hands it back to the reader; it returns the first I/O
// error, of the trace or of the in-order stage. lines follows the lines
// read, for the summary.
func (r *fileRun) stages(ctx context.Context, tr *trace.Reader, fo FileOptions, lines *atomic.Int64) error {
	free := make(chan *batch, maxInFlight)
	batches := readBatches(ctx, tr, fo, free, lines)
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

// maxInFlight bounds the batches a check holds at once (each at most 1 MB
// of text, and its parsed values), on machines with many cores.
const maxInFlight = 16

// flow is how batches travel between the goroutines of a pipeline.
type flow struct {
	toParse, toStep, toCheck, toReport chan *batch
	// slots holds one token for every batch between dispatch and
	// report: whatever the number of workers, at most maxInFlight
	// batches are held.
	slots chan struct{}
}

// pipeline runs the stages of a check on their own goroutines, so that
// the in-order stages (the protocol state of one batch, the report of
// another) overlap with the parsing and schema checks of others on every
// worker, with no barrier between batches: batches are parsed and checked
// by whichever worker is free (work), stepped in order by one goroutine
// (inOrder) and reported in order by the calling one. At most a few
// batches are in flight, so memory stays bounded.
func (r *fileRun) pipeline(ctx context.Context, batches <-chan *batch, publish func(*batch)) {
	workers := r.e.workers
	f := &flow{
		toParse:  make(chan *batch, workers+1),
		toStep:   make(chan *batch, workers+1),
		toCheck:  make(chan *batch, workers+1),
		toReport: make(chan *batch, workers+1),
		slots:    make(chan struct{}, min(2*workers+2, maxInFlight)),
	}
	var wg sync.WaitGroup
	wg.Add(workers + 2)
	go func() {
		defer wg.Done()
		f.dispatch(ctx, batches)
	}()
	for range workers {
		go func() {
			defer wg.Done()
			r.work(ctx, f)
		}()
	}
	go func() {
		defer wg.Done()
		r.inOrder(ctx, f)
	}()
	for b := range f.toReport {
		if !wait(ctx, b.checked) {
			break
		}
		publish(b)
		<-f.slots
	}
	wg.Wait()
}

// dispatch hands every batch to some worker to parse and to the in-order
// stage to step, once it has a slot.
func (f *flow) dispatch(ctx context.Context, batches <-chan *batch) {
	defer close(f.toParse)
	defer close(f.toStep)
	for b := range batches {
		if !send(ctx, f.slots, struct{}{}) || !send(ctx, f.toStep, b) || !send(ctx, f.toParse, b) {
			return
		}
	}
}

// work is one worker: it checks the batches stepped (they free memory)
// before it parses new ones.
func (r *fileRun) work(ctx context.Context, f *flow) {
	parse, check := f.toParse, f.toCheck
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
}

// inOrder steps the batches in order, each once it is parsed, and hands
// it on to be checked and reported.
func (r *fileRun) inOrder(ctx context.Context, f *flow) {
	defer close(f.toCheck)
	defer close(f.toReport)
	for b := range f.toStep {
		if !wait(ctx, b.parsed) {
			return
		}
		r.step(b)
		if !send(ctx, f.toCheck, b) || !send(ctx, f.toReport, b) {
			return
		}
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
