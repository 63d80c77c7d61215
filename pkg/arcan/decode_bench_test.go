package arcan_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentproto/agentproto/pkg/arcan"
)

// plainEvent is what a Go consumer would write for encoding/json: every
// member of every variant in one struct. It keeps no unknown members and
// cannot tell a variant it does not know from one it does.
type plainEvent struct {
	PartType        string          `json:"part_type"`
	RunID           string          `json:"run_id"`
	SessionID       string          `json:"session_id"`
	Iteration       uint32          `json:"iteration"`
	Provider        string          `json:"provider"`
	MaxIterations   uint32          `json:"max_iterations"`
	Delta           string          `json:"delta"`
	StopReason      string          `json:"stop_reason"`
	DirectiveCount  uint32          `json:"directive_count"`
	Call            json.RawMessage `json:"call"`
	Result          json.RawMessage `json:"result"`
	Error           string          `json:"error"`
	Patch           json.RawMessage `json:"patch"`
	Reason          string          `json:"reason"`
	TotalIterations uint32          `json:"total_iterations"`
	FinalAnswer     *string         `json:"final_answer"`
	Usage           json.RawMessage `json:"usage"`
}

// transcript repeats the SSE fixtures into one long stream.
func transcript(b *testing.B) []byte {
	files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "arcan", "valid", "*.sse"))
	var one []byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		one = append(one, data...)
	}
	if len(one) == 0 {
		b.Fatal("no SSE fixtures")
	}
	return bytes.Repeat(one, 50)
}

func BenchmarkSSEReadDecode(b *testing.B) {
	stream := transcript(b)
	run := func(b *testing.B, decode func([]byte) error) {
		b.SetBytes(int64(len(stream)))
		b.ReportAllocs()
		events := 0
		for range b.N {
			r := arcan.NewSSEReader(bytes.NewReader(stream))
			for {
				ev, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				if err := decode(ev.Data); err != nil {
					b.Fatal(err)
				}
				events++
			}
		}
		b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	}
	b.Run("pkg_arcan", func(b *testing.B) {
		run(b, func(data []byte) error {
			_, err := arcan.UnmarshalAgentEvent(data)
			return err
		})
	})
	b.Run("encoding_json_plain_struct", func(b *testing.B) {
		run(b, func(data []byte) error {
			var ev plainEvent
			return json.Unmarshal(data, &ev)
		})
	})
}
