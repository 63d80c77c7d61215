package arcp_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/agentproto/agentproto/pkg/arcp"
	"github.com/agentproto/agentproto/pkg/wire"
)

// plainJobEvent is the job.event envelope as plain structs for
// encoding/json; the body stays raw because its shape depends on the kind.
type plainJobEvent struct {
	ARCP      string `json:"arcp"`
	ID        string `json:"id"`
	Type      string `json:"type"`
	SessionID string `json:"session_id"`
	TraceID   string `json:"trace_id,omitempty"`
	JobID     string `json:"job_id"`
	EventSeq  uint64 `json:"event_seq"`
	Payload   struct {
		Kind string          `json:"kind"`
		Ts   string          `json:"ts"`
		Body json.RawMessage `json:"body"`
	} `json:"payload"`
}

// jobEvents returns the job.event lines of every valid v1.1 fixture.
func jobEvents(b *testing.B) [][]byte {
	files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "arcp", "v1.1", "valid", "*.jsonl"))
	var out [][]byte
	for _, f := range files {
		for _, l := range traceLines(b, f) {
			if bytes.Contains(l, []byte(`"type":"job.event"`)) {
				out = append(out, l)
			}
		}
	}
	if len(out) < 20 {
		b.Fatalf("only %d job.event lines", len(out))
	}
	return out
}

func BenchmarkJobEventStream(b *testing.B) {
	lines := jobEvents(b)
	var total int64
	for _, l := range lines {
		total += int64(len(l))
	}
	b.Run("pkg_arcp", func(b *testing.B) {
		b.SetBytes(total)
		b.ReportAllocs()
		e := wire.NewEncoder(make([]byte, 0, 4096))
		for range b.N {
			for _, l := range lines {
				var ev arcp.JobEvent
				if err := wire.Unmarshal(l, &ev); err != nil {
					b.Fatal(err)
				}
				e.Reset()
				ev.EncodeWire(e)
			}
		}
		b.ReportMetric(float64(len(lines)), "lines/op")
	})
	b.Run("encoding_json_plain_structs", func(b *testing.B) {
		b.SetBytes(total)
		b.ReportAllocs()
		for range b.N {
			for _, l := range lines {
				var ev plainJobEvent
				if err := json.Unmarshal(l, &ev); err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(&ev); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(len(lines)), "lines/op")
	})
}
