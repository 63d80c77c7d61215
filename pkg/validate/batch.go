package validate

// Batches: the runs of records that travel through a check's stages
// together, and the storage of their lines, reused from batch to batch.

import (
	"bytes"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/trace"
	"github.com/agentproto/agentproto/pkg/validate/judge"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

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
