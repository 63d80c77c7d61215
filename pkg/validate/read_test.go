package validate

import (
	"fmt"
	"testing"

	"github.com/agentproto/agentproto/pkg/trace"
)

// TestBatchReuse fills a batch, reuses it for fewer records, and checks
// what each use sees: its own records, in order, in items that start
// empty; and after seal, nothing of the longer use left in the slabs (no
// record outlives its report).
func TestBatchReuse(t *testing.T) {
	free := make(chan *batch, 1)
	b := reuse(free)
	fill := func(b *batch, n int, tag string) {
		for i := range n {
			b.add(trace.Record{Line: i + 1, Data: []byte(fmt.Sprintf(`{"%s":%d}`, tag, i))}, i)
			it := b.items[i]
			it.v.Out = append(it.v.Out, Finding{Message: tag}) // what a check leaves
			it.m.Label = tag
		}
		b.seal()
	}
	fill(b, 300, "first")
	if len(b.items) != 300 {
		t.Fatalf("%d items, want 300", len(b.items))
	}
	recycle(free, b)
	b2 := reuse(free)
	if b2 != b {
		t.Fatal("the batch was not reused")
	}
	for i := range 3 {
		b2.add(trace.Record{Line: i + 1, Data: []byte("{}")}, i)
		it := b2.items[i]
		if it.v.Out != nil || it.m.Label != "" || it.m.Line != i+1 || string(it.m.Data) != "{}" || len(it.m.Checks) != 0 {
			t.Fatalf("item %d of the second use starts with %+v", i, it.m)
		}
	}
	b2.seal()
	n := 0
	for _, s := range b2.slabs {
		for j := range s[:cap(s)] {
			it := &s[:cap(s)][j]
			if it.m.Data == nil {
				if it.v.Out != nil || it.m.Label != "" {
					t.Fatalf("a cleared item still holds %q", it.m.Label)
				}
				continue
			}
			n++
			if it.m.Label == "first" || it.v.Out != nil {
				t.Fatalf("a record of the first use outlives its report: line %d", it.m.Line)
			}
		}
	}
	if n != 3 {
		t.Fatalf("%d items hold a record after the second use, want 3", n)
	}
}
