package acp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentproto/agentproto/pkg/acp"
	"github.com/agentproto/agentproto/pkg/wire"
)

// updates returns the session/update notifications of the valid fixtures.
func updates(b *testing.B) [][]byte {
	files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "acp", "valid", "*.jsonl"))
	var out [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			if bytes.Contains(sc.Bytes(), []byte(`"method":"session/update"`)) {
				out = append(out, append([]byte(nil), sc.Bytes()...))
			}
		}
	}
	if len(out) < 50 {
		b.Fatalf("only %d session/update lines in the fixtures", len(out))
	}
	return out
}

// Hand-written plain structs of the same shape, as a Go program using
// encoding/json would write them: one struct with every member of every
// update kind. It cannot keep unknown members, tell absent from null, or
// keep a newer peer's update kind intact.
type plainUpdate struct {
	SessionUpdate     string            `json:"sessionUpdate"`
	Content           json.RawMessage   `json:"content,omitempty"`
	ToolCallID        string            `json:"toolCallId,omitempty"`
	Title             *string           `json:"title,omitempty"`
	Kind              *string           `json:"kind,omitempty"`
	Status            *string           `json:"status,omitempty"`
	Locations         []json.RawMessage `json:"locations,omitempty"`
	RawInput          json.RawMessage   `json:"rawInput,omitempty"`
	RawOutput         json.RawMessage   `json:"rawOutput,omitempty"`
	Entries           []json.RawMessage `json:"entries,omitempty"`
	AvailableCommands []json.RawMessage `json:"availableCommands,omitempty"`
	CurrentModeID     string            `json:"currentModeId,omitempty"`
	ConfigOptions     []json.RawMessage `json:"configOptions,omitempty"`
	Meta              json.RawMessage   `json:"_meta,omitempty"`
}

type plainParams struct {
	SessionID string          `json:"sessionId"`
	Update    plainUpdate     `json:"update"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

type plainNotification struct {
	JSONRPC string      `json:"jsonrpc"`
	Method  string      `json:"method"`
	Params  plainParams `json:"params"`
}

func totalBytes(lines [][]byte) int64 {
	var n int64
	for _, l := range lines {
		n += int64(len(l))
	}
	return n
}

// BenchmarkSessionUpdate: decode plus encode of a whole session/update line.
// Per op: all the fixture lines once; allocations are per op, so divide by
// the line count (reported as lines/op) for a per-notification figure.
func BenchmarkSessionUpdate(b *testing.B) {
	lines := updates(b)
	b.Run("pkg_acp", func(b *testing.B) {
		b.SetBytes(totalBytes(lines))
		b.ReportAllocs()
		e := wire.NewEncoder(make([]byte, 0, 4096))
		for range b.N {
			for _, l := range lines {
				var p acp.SessionNotification
				method, err := acp.DecodeNotification(l, &p)
				if err != nil {
					b.Fatal(err)
				}
				e.Reset()
				acp.EncodeNotification(e, method, &p)
			}
		}
		b.ReportMetric(float64(len(lines)), "lines/op")
	})
	b.Run("encoding_json_plain_structs", func(b *testing.B) {
		b.SetBytes(totalBytes(lines))
		b.ReportAllocs()
		for range b.N {
			for _, l := range lines {
				var n plainNotification
				if err := json.Unmarshal(l, &n); err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(&n); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(len(lines)), "lines/op")
	})
	b.Run("encoding_json_any", func(b *testing.B) {
		b.SetBytes(totalBytes(lines))
		b.ReportAllocs()
		for range b.N {
			for _, l := range lines {
				var v any
				if err := json.Unmarshal(l, &v); err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(v); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(len(lines)), "lines/op")
	})
}
