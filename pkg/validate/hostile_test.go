package validate

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate/rules/acp"
	"github.com/agentproto/agentproto/pkg/validate/typed"
)

// A line of a hundred thousand invalid elements costs memory in proportion
// to the line, not to the failures: findings are capped, and a huge array's
// elements are checked one by one instead of in one error tree. The bound is
// stated as bytes allocated per byte of the line (the parsed tree and the
// typed decode account for most of it).
func TestHugeInvalidLineBounded(t *testing.T) {
	const n = 100_000
	var sb strings.Builder
	sb.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"ed","version":"1"}}}` + "\n")
	sb.WriteString(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"type":"txt"}`)
	}
	sb.WriteString("]}}\n")
	in := sb.String()
	for _, fast := range []bool{false, true} {
		opts := Options{Workers: 1}
		if fast {
			opts.Fast = typed.Checker{}
		}
		e, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var got []Finding
		if _, err := e.Check(context.Background(), "huge", strings.NewReader(in), FileOptions{}, func(f Finding) {
			// The line's own findings; what the end of the trace
			// reveals (its request never answered) is not the line's.
			if f.Line == 2 && f.Rule != acp.RuleUnansweredRequest {
				got = append(got, f)
			}
		}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if len(got) != maxPerLine+1 || got[maxPerLine].Rule != RuleTooMany {
			t.Errorf("fast=%v: %d findings on the line, want %d and a too-many finding", fast, len(got), maxPerLine)
		}
		const perByte = 100
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > perByte*uint64(len(in)) {
			t.Errorf("fast=%v: %d bytes allocated for a %d-byte trace: over %d per byte", fast, alloc, len(in), perByte)
		}
	}
}
