package validate

// The parse stage (any goroutine): each record is parsed once, and a line
// that holds a JSON array is split into entries, the messages of a
// JSON-RPC batch for the protocols whose rules read such a line as a batch
// (protocol.Batcher), with pointers rooted at the line's array
// ("/0/params/…").

import (
	"errors"
	"fmt"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

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
