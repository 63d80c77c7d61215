package testtypes_test

import (
	"encoding/json"
	"testing"

	"github.com/agentproto/agentproto/gen/internal/testtypes/kitchen"
	"github.com/agentproto/agentproto/pkg/wire"
)

// benchMsg is a typical message: a tagged-union event inside an envelope.
const benchMsg = `{"id":"msg-000123","sessionId":"sess_7f3a9c","event":{"type":"chunk","text":"Reading the configuration loader to see where the default timeout is set; it looks like the value comes from the environment first.","index":42},"answer":null,"kind":"envelope","tags":["stream","text"],"priority":"high","limits":{"port":8080,"count":12}}`

// The baseline: the same shape as plain structs, with encoding/json. It
// cannot tell variants apart, keep unknown members, or tell absent from
// null; it is the speed floor the generated union code is measured against.
type plainEvent struct {
	Type  string  `json:"type"`
	Text  string  `json:"text"`
	Index *uint64 `json:"index,omitempty"`
}

type plainLimits struct {
	Port  *uint16 `json:"port,omitempty"`
	Count *uint32 `json:"count,omitempty"`
}

type plainEnvelope struct {
	ID        string       `json:"id"`
	SessionID string       `json:"sessionId"`
	Event     plainEvent   `json:"event"`
	Answer    *string      `json:"answer"`
	Kind      string       `json:"kind"`
	Tags      []string     `json:"tags,omitempty"`
	Priority  *string      `json:"priority,omitempty"`
	Limits    *plainLimits `json:"limits,omitempty"`
}

func BenchmarkUnionDecode(b *testing.B) {
	data := []byte(benchMsg)
	b.Run("generated", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for range b.N {
			var e kitchen.Envelope
			if err := wire.Unmarshal(data, &e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json_plain_struct", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for range b.N {
			var e plainEnvelope
			if err := json.Unmarshal(data, &e); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkUnionEncode(b *testing.B) {
	data := []byte(benchMsg)
	var gen kitchen.Envelope
	if err := wire.Unmarshal(data, &gen); err != nil {
		b.Fatal(err)
	}
	var plain plainEnvelope
	if err := json.Unmarshal(data, &plain); err != nil {
		b.Fatal(err)
	}
	b.Run("generated", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		e := wire.NewEncoder(make([]byte, 0, 512))
		for range b.N {
			e.Reset()
			gen.EncodeWire(e)
		}
	})
	b.Run("generated_marshal", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for range b.N {
			if _, err := wire.Marshal(&gen); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json_plain_struct", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for range b.N {
			if _, err := json.Marshal(&plain); err != nil {
				b.Fatal(err)
			}
		}
	})
}
