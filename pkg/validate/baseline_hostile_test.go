package validate

import (
	"io"
	"runtime"
	"strings"
	"testing"
)

// TestReadBaselineRefusesTrailingData: a baseline is one JSON object;
// anything but white space after it is an error, not ignored.
func TestReadBaselineRefusesTrailingData(t *testing.T) {
	for _, tail := range []string{" garbage", `{"version":1}`, "]", "\x00"} {
		_, err := ReadBaseline(strings.NewReader(`{"version":1,"findings":[]}`+tail), "")
		if err == nil || !strings.Contains(err.Error(), "follows the JSON object") {
			t.Errorf("baseline followed by %q: %v, want an error", tail, err)
		}
	}
	if _, err := ReadBaseline(strings.NewReader("{\"version\":1,\"findings\":[]}\n\n  \t"), ""); err != nil {
		t.Errorf("trailing white space: %v", err)
	}
}

// endless is a baseline that never ends: an object whose findings array
// goes on without bound.
type endless struct{ off int }

func (e *endless) Read(p []byte) (int, error) {
	const head = `{"version":1,"findings":[`
	const entry = `{"file":"a.jsonl","rule":"schema","pointer":"/x","message":"m","count":1},`
	for i := range p {
		if e.off < len(head) {
			p[i] = head[e.off]
		} else {
			p[i] = entry[(e.off-len(head))%len(entry)]
		}
		e.off++
	}
	return len(p), nil
}

// TestReadBaselineIsBounded: a baseline larger than MaxBaselineSize is an
// error, and reading it stops there: what it allocates is bounded by the
// limit, not by the input (which here never ends).
func TestReadBaselineIsBounded(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadBaseline(io.Reader(&endless{}), "")
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "larger than 64 MiB") {
		t.Fatalf("an endless baseline: %v, want a size error", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*MaxBaselineSize {
		t.Errorf("reading an endless baseline allocated %d MiB, want at most %d", alloc>>20, 8*MaxBaselineSize>>20)
	}
}
