package validate

// The read stage: the trace is read on a goroutine of its own and cut into
// batches, the runs of records that travel through a check's stages
// together; batches and the storage of their lines are reused from batch
// to batch.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync/atomic"
	"time"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/trace"
	"github.com/agentproto/agentproto/pkg/validate/judge"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// readBatches reads the trace on a goroutine of its own and sends its
// records in batches, closing the channel at the end of the trace (or of
// ctx). A batch that ends the trace early holds the error that ended it.
// lines follows the lines read, for the summary. A live trace (fo.Idle)
// is read ahead on one more goroutine, so that the batch being filled is
// sent on once no line has come for the idle time.
func readBatches(ctx context.Context, tr *trace.Reader, fo FileOptions, free chan *batch, lines *atomic.Int64) <-chan *batch {
	next := func() (trace.Record, error) {
		rec, err := tr.Next()
		lines.Store(int64(tr.Lines()))
		return rec, err
	}
	batches := make(chan *batch, 2)
	bt := &batcher{ctx: ctx, free: free, out: batches, progress: fo.Progress, lines: lines}
	if fo.Idle > 0 {
		go bt.runLive(readAhead(ctx, next), fo.Idle)
	} else {
		go bt.run(next)
	}
	return batches
}

// readAhead reads a live trace on a goroutine of its own, which blocks on
// the trace while the batcher waits for a line or for the idle time,
// whichever comes first.
func readAhead(ctx context.Context, next func() (trace.Record, error)) <-chan record {
	reads := make(chan record, 64)
	go func() {
		defer close(reads)
		for {
			rec, err := next()
			select {
			case reads <- record{rec, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return reads
}

// record is what the trace reader gives: a record, or why it stopped.
type record struct {
	rec trace.Record
	err error
}

// batcher cuts the records of a trace into batches. Batches hold at most
// maxBatchItems records: about ten are alive at once (in flight, queued,
// being filled), and their items, nodes and lines are most of the memory
// a run touches. 512 made a 4.6 MB trace fault in 28% more pages and cost
// 4% more CPU, for no gain in throughput. A batch also ends at
// maxBatchBytes of text, a line that holds an array counting for more
// (readCost), since each of its entries becomes a message.
type batcher struct {
	ctx      context.Context
	free     chan *batch
	out      chan<- *batch
	progress func(lines int)
	lines    *atomic.Int64
	b        *batch // the batch being filled
	size     int    // its cost so far
}

// maxBatchBytes is the text a batch holds at most (see batcher).
const maxBatchBytes = 1 << 20

// run cuts the records of next into batches until the trace ends.
func (bt *batcher) run(next func() (trace.Record, error)) {
	defer close(bt.out)
	bt.b = reuse(bt.free)
	for index := 0; ; index++ {
		if bt.ctx.Err() != nil {
			return
		}
		rec, err := next()
		if err != nil {
			bt.end(err)
			return
		}
		if !bt.add(rec, index) {
			return
		}
	}
}

// runLive cuts the records of a live trace, read ahead (readAhead), into
// batches until the trace ends, and sends the batch being filled on once
// no record has come for idle.
func (bt *batcher) runLive(reads <-chan record, idle time.Duration) {
	defer close(bt.out)
	bt.b = reuse(bt.free)
	timer := time.NewTimer(idle)
	defer timer.Stop()
	for index := 0; ; {
		if bt.ctx.Err() != nil {
			return
		}
		timer.Reset(idle)
		select {
		case r, ok := <-reads:
			if !ok {
				return
			}
			if r.err != nil {
				bt.end(r.err)
				return
			}
			if !bt.add(r.rec, index) {
				return
			}
			index++
		case <-timer.C:
			if len(bt.b.items) > 0 && !bt.flush() {
				return
			}
		case <-bt.ctx.Done():
			return
		}
	}
}

// add adds a record to the batch being filled, sending it on when full;
// false when ctx ended first.
func (bt *batcher) add(rec trace.Record, index int) bool {
	bt.b.add(rec, index)
	bt.size += readCost(rec.Data)
	if len(bt.b.items) < maxBatchItems && bt.size < maxBatchBytes {
		return true
	}
	if !bt.flush() {
		return false
	}
	if bt.progress != nil {
		bt.progress(int(bt.lines.Load()))
	}
	return true
}

// end sends the last batch, with the error that ended the trace unless
// it is the end of the trace itself.
func (bt *batcher) end(err error) {
	if !errors.Is(err, io.EOF) {
		bt.b.err = err
		bt.b.errLine = int(bt.lines.Load()) + 1
	}
	if len(bt.b.items) > 0 || bt.b.err != nil {
		bt.flush()
	}
}

// flush sends the batch being filled and starts another; false when ctx
// ended first.
func (bt *batcher) flush() bool {
	bt.b.seal()
	if !send(bt.ctx, bt.out, bt.b) {
		return false
	}
	bt.b, bt.size = reuse(bt.free), 0
	return true
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

// item is one record of a trace on its way through the pipeline: the
// message the rules see, and what the engine adds to it.
type item struct {
	m   protocol.Message
	err error         // the record could not be read whole (trace.Record.Err)
	bad *Finding      // the record could not be read or parsed
	v   judge.Verdict // what the judge stage found
	// array holds, for a record whose value is a JSON array, its
	// elements as items of their own (see split); nil otherwise.
	array *entries
	// checks holds the message's first checks (an envelope and its
	// params or result), so that most messages allocate none.
	checks [2]protocol.Check
}

// batch is a run of records on its way through the stages of a check.
// Once reported, a batch goes back to the reader to be filled again, so
// that its items and nodes are allocated once per run rather than once a
// line.
type batch struct {
	items   []*item
	slabs   [][]item // where the items live, filled in order
	used    int      // slabs in use, the last perhaps in part
	fill    int      // items in use in the last slab in use
	nodes   jsonscan.Arena
	text    lineStore     // the lines' bytes
	sc      judge.Scratch // what the judge stage reuses
	err     error         // reading stopped after these items
	errLine int           // the line reading stopped at
	// Set by the in-order stage (step).
	notes          []Finding // its findings, reported before the items'
	skip           bool      // the file matches no protocol: counted only
	stepErr        error     // a sidecar failed, or the rules did not start
	proto, dialect string    // what the batch's findings name
	// Closed when the stage is done, in the pipeline.
	parsed, checked chan struct{}
}

func newBatch() *batch {
	return &batch{parsed: make(chan struct{}), checked: make(chan struct{})}
}

// reuse returns a reported batch from free, emptied, or a new one. Its
// slabs keep their items until add writes over them or seal clears what
// add did not reach.
func reuse(free <-chan *batch) *batch {
	select {
	case b := <-free:
		*b = batch{items: b.items[:0], slabs: b.slabs, nodes: b.nodes, text: b.text, parsed: make(chan struct{}), checked: make(chan struct{})}
		b.nodes.Reset()
		b.text.reset()
		return b
	default:
		return newBatch()
	}
}

// recycle hands a reported batch back to the reader, if it has room.
func recycle(free chan<- *batch, b *batch) {
	select {
	case free <- b:
	default:
	}
}

// maxBatchItems is how many records a batch holds at most.
const maxBatchItems = 128

// add appends a record to the batch. Items are allocated in chunks, a few
// first (a live batch is often one message), then many, never more than a
// full batch needs. A slab's length is how far its items hold anything:
// filled now, or by the batch's last use (until seal).
func (b *batch) add(rec trace.Record, index int) {
	if b.used == 0 || b.fill == cap(b.slabs[b.used-1]) {
		if b.used == len(b.slabs) {
			b.slabs = append(b.slabs, make([]item, 0, max(1, min(8+8*len(b.items), maxBatchItems-len(b.items)))))
		}
		b.used++
		b.fill = 0
	}
	s := &b.slabs[b.used-1]
	if b.fill == len(*s) {
		*s = (*s)[:b.fill+1]
	}
	it := &(*s)[b.fill]
	b.fill++
	// One write over the whole item, whatever its last use left in it.
	*it = item{err: rec.Err, m: protocol.Message{Line: rec.Line, Index: index, Data: b.text.keep(rec.Data)}}
	it.m.Checks = it.checks[:0]
	b.items = append(b.items, it)
}

// seal clears the items a last use of the batch filled and this one did
// not reach, so that no record outlives its report, before the batch goes
// on its way.
func (b *batch) seal() {
	for i := range b.slabs {
		s := &b.slabs[i]
		keep := 0
		switch {
		case i < b.used-1:
			continue // full
		case i == b.used-1:
			keep = b.fill
		}
		clear((*s)[keep:])
		*s = (*s)[:keep]
	}
}

// lineStore holds a batch's lines: short ones are copied into chunks
// that the batch keeps when it is reused, a long one gets an array of its
// own.
type lineStore struct {
	chunks [][]byte
	used   int // chunks in use, the last perhaps in part
}

// lineChunk is the size of a lineStore's chunks, at most: the first is
// firstLineChunk, and each new one twice the one before, so that a short
// trace costs little.
const lineChunk, firstLineChunk = 64 << 10, 4 << 10

// keep returns a copy of line (nil for nil). The copy's capacity ends with
// it, so appending to one line never touches another.
func (s *lineStore) keep(line []byte) []byte {
	if line == nil {
		return nil
	}
	if len(line) > lineChunk/4 {
		return bytes.Clone(line)
	}
	if s.used == 0 || cap(s.chunks[s.used-1])-len(s.chunks[s.used-1]) < len(line) {
		size := max(len(line), min(firstLineChunk<<min(s.used, 8), lineChunk))
		switch {
		case s.used == len(s.chunks):
			s.chunks = append(s.chunks, make([]byte, 0, size))
		case cap(s.chunks[s.used]) < len(line):
			s.chunks[s.used] = make([]byte, 0, size) // the old one was too small
		}
		s.chunks[s.used] = s.chunks[s.used][:0]
		s.used++
	}
	c := &s.chunks[s.used-1]
	i := len(*c)
	*c = append(*c, line...)
	return (*c)[i:len(*c):len(*c)]
}

// reset makes the store reuse its chunks from the first: the lines it
// returned before must no longer be used.
func (s *lineStore) reset() { s.used = 0 }

// arrayWeight is how many bytes of a line that looks like an array count
// for, when the reader fills batches up to a size: an array's entries each
// become a message, which weighs far more than the byte or two an entry
// may take, so that batches of arrays hold fewer lines.
const arrayWeight = 32

// readCost is what a record counts for towards a batch's size.
func readCost(data []byte) int {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '[':
			return len(data) * arrayWeight
		}
		return len(data)
	}
	return len(data)
}
