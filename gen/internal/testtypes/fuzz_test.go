package testtypes_test

import (
	"testing"

	"github.com/agentproto/agentproto/gen/internal/testtypes/kitchen"
	"github.com/agentproto/agentproto/pkg/wire"
)

// FuzzEnvelope: generated decoders never panic on any input, and what they
// accept encodes to bytes that decode to the same encoding again.
func FuzzEnvelope(f *testing.F) {
	f.Add([]byte(full))
	f.Add([]byte(benchMsg))
	f.Add([]byte(`{"id":"m","sessionId":"s","event":{"extra":[1],"type":"exploded"},"answer":null,"kind":"envelope","server":{"type":"ws"}}`))
	f.Add([]byte(`{"id":"m","sessionId":"s","event":{"type":"moved","to":{"x":1,"y":2}},"answer":"a","kind":"envelope","requestId":null,"note":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var e kitchen.Envelope
		if err := wire.Unmarshal(data, &e); err != nil {
			return
		}
		_ = e.Validate()
		once, err := wire.Marshal(&e)
		if err != nil {
			return // a NaN cannot come from JSON; nothing else fails
		}
		var again kitchen.Envelope
		if err := wire.Unmarshal(once, &again); err != nil {
			t.Fatalf("re-encoded %s does not decode: %v\ninput %q", once, err, data)
		}
		twice, _ := wire.Marshal(&again)
		if string(once) != string(twice) {
			t.Fatalf("encoding is not stable:\n%s\n%s", once, twice)
		}
	})
}
