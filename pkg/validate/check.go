package validate

// The check stage (any goroutine): each message's schema checks go to the
// judge (package judge), and a message valid by its schema is round-tripped
// through the generated types when asked.

import (
	"fmt"

	"github.com/agentproto/agentproto/pkg/validate/judge"
)

// check runs a batch's schema checks and round trips (any goroutine).
func (r *fileRun) check(b *batch) {
	if b.skip {
		return
	}
	for _, it := range b.items {
		es := batchEntries(it)
		r.checkItem(it, &b.sc)
		for i := range es {
			r.checkItem(&es[i], &b.sc)
		}
	}
}

// batchEntries returns the entries of it that the rules read as a batch,
// nil when it is not one.
func batchEntries(it *item) []item {
	if it.array == nil || !it.array.batch {
		return nil
	}
	return it.array.items
}

// checkItem judges one message's schema checks and runs its round trip,
// with sc reused from message to message.
func (r *fileRun) checkItem(it *item, sc *judge.Scratch) {
	m := &it.m
	r.judge.Message(m, sc, &it.v)
	rt := r.e.opts.Roundtrip
	if rt == nil || it.bad != nil || m.RTSchema == "" || len(it.v.Out) != 0 {
		// Only for messages valid by their schema: an invalid one is
		// explained by its schema findings already.
		return
	}
	diffs, err := rt.Roundtrip(m.RTSchema, m.RTPointer, m.Data)
	if err != nil {
		it.v.Out = append(it.v.Out, Finding{Line: m.Line, Severity: Error, Rule: RuleRoundtrip, Pointer: m.RTPointer, Message: fmt.Sprintf("the typed round trip fails: %v", err)})
	}
	for _, d := range diffs {
		it.v.Out = append(it.v.Out, Finding{Line: m.Line, Severity: Error, Rule: RuleRoundtrip, Pointer: m.RTPointer, Message: d})
	}
}
