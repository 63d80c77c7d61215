package acp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/acp"
	"github.com/agentproto/agentproto/pkg/wire"
)

// hostilePrompt is a session/prompt's params with n text blocks whose
// text is a number: a defect in each of n elements.
func hostilePrompt(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"sessionId":"s","prompt":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"text","text":5}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// TestExplainAtBoundsItsList: a value with a defect in each of thousands
// of elements gets the first wire.MaxExplained of them (and the one that
// stopped the list), and the list says it is not whole; a value with
// fewer gets every one.
func TestExplainAtBoundsItsList(t *testing.T) {
	c, ok := acp.Lookup("https://agentproto.dev/schema/acp/v1/session.prompt.params.json")
	if !ok {
		t.Fatal("no codec for session/prompt's params")
	}
	for _, n := range []int{3, wire.MaxExplained - 1, 5000} {
		errs, whole := c.ExplainAt(wire.NewDecoder(hostilePrompt(n)), "")
		want := min(n, wire.MaxExplained+1)
		if len(errs) != want || whole != (n < wire.MaxExplained) {
			t.Errorf("%d bad blocks: %d errors (want %d), whole %v", n, len(errs), want, whole)
			continue
		}
		for i, e := range errs[:min(n, wire.MaxExplained)] {
			if p := fmt.Sprintf("/prompt/%d/text", i); e.Pointer != p || e.Keyword != "type" {
				t.Errorf("%d bad blocks: error %d is %s (%s), want %s (type)", n, i, e.Pointer, e.Keyword, p)
				break
			}
		}
	}
}

// BenchmarkExplainAtHostile explains values with a defect in each of n
// elements: the cost per byte stays flat as n grows (the list stops at
// wire.MaxExplained).
func BenchmarkExplainAtHostile(b *testing.B) {
	c, _ := acp.Lookup("https://agentproto.dev/schema/acp/v1/session.prompt.params.json")
	for _, n := range []int{1000, 16000} {
		data := hostilePrompt(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			var d wire.Decoder
			for b.Loop() {
				d.Reset(data)
				c.ExplainAt(&d, "")
			}
		})
	}
}
