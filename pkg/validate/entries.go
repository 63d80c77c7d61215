package validate

// Lines that hold a JSON array: the entries of a JSON-RPC batch, each a
// message of its own on its line for the protocols whose rules read such
// a line as a batch (protocol.Batcher), with pointers rooted at the line's
// array ("/0/params/…").

import (
	"strconv"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// entries are the elements of a record whose value is an array.
type entries struct {
	items []item // the first protocol.MaxEntries elements, in order
	total int    // the array's length
	// batch is set by the in-order stage when the rules read the line as
	// a batch: the entries are then checked and reported.
	batch bool
}

// split makes an item of each element of the parsed record it, if its value
// is an array (any goroutine): each element is parsed again on its own, so
// that the rules, the schema checks and the fast path read it as a message
// of its own, with pointers and offsets relative to it.
func split(it *item, a *jsonscan.Arena, maxDepth int) {
	d := &it.m.Doc
	root := d.Root()
	if d.Type(root) != jsonscan.Array {
		return
	}
	es := &entries{}
	d.Elements(root, func(int) bool { es.total++; return true })
	es.items = make([]item, min(es.total, protocol.MaxEntries))
	n := 0
	d.Elements(root, func(el int) bool {
		if n == len(es.items) {
			return false
		}
		raw := d.Raw(el)
		doc, err := a.Parse(raw, maxDepth)
		if err != nil {
			// The whole line parsed, so each of its values does; keep
			// the entries before one that does not, should it happen.
			return false
		}
		e := &es.items[n]
		e.m = protocol.Message{Line: it.m.Line, Index: it.m.Index, Data: raw, Doc: doc}
		e.m.Checks = e.checks[:0]
		n++
		return true
	})
	es.items = es.items[:n]
	it.array = es
}

// stepLine hands a record to rules that read batches: an array's entries
// as messages of their own, which take the line's direction.
func stepLine(bt protocol.Batcher, it *item) {
	es := it.array
	if es == nil {
		bt.StepLine(&it.m, nil, 0)
		return
	}
	msgs := make([]*protocol.Message, len(es.items))
	for i := range es.items {
		e := &es.items[i]
		e.m.Dir = it.m.Dir
		msgs[i] = &e.m
	}
	es.batch = bt.StepLine(&it.m, msgs, es.total)
}

// batchEntries returns the entries of it that the rules read as a batch,
// nil when it is not one.
func batchEntries(it *item) []item {
	if it.array == nil || !it.array.batch {
		return nil
	}
	return it.array.items
}

// entryPointer is the pointer of entry i of a batch line, which its
// findings' pointers go under.
func entryPointer(i int) string { return "/" + strconv.Itoa(i) }

// firstMessages returns the messages of the records, for detection: a
// record whose value is an array stands for its entries. Unless parsed is
// set, the records that could not be parsed are there too (with no value).
func firstMessages(items []*item, parsed bool) []*protocol.Message {
	out := make([]*protocol.Message, 0, len(items))
	for _, it := range items {
		switch {
		case it.bad != nil:
			if !parsed {
				out = append(out, &it.m)
			}
		case it.array != nil:
			for i := range it.array.items {
				out = append(out, &it.array.items[i].m)
			}
		default:
			out = append(out, &it.m)
		}
	}
	return out
}

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
