package v2_test

import (
	"testing"

	v2 "github.com/agentproto/agentproto/pkg/acp/v2"
)

// An error answers a message whose id could not be read (a line that is not
// JSON, an empty batch, an entry of a batch that is no request) with id
// null: the typed envelope reads it, keeps it null, and writes it back.
func TestResponseWithNullID(t *testing.T) {
	const line = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`
	env, err := v2.UnmarshalEnvelope([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	r, ok := env.(*v2.EnvelopeResponse)
	if !ok {
		t.Fatalf("decoded as %T, want a response", env)
	}
	if _, null := r.ID.(v2.ResponseIDNull); !null {
		t.Errorf("id decoded as %#v, want ResponseIDNull", r.ID)
	}
	if err := v2.ValidateEnvelope(env); err != nil {
		t.Errorf("Validate: %v", err)
	}
	out, err := r.MarshalJSON()
	if err != nil || string(out) != line {
		t.Errorf("encoded as %s (%v), want %s", out, err, line)
	}
	// A request's id is never null.
	req := `{"jsonrpc":"2.0","id":null,"method":"session/list","params":{}}`
	if env, err := v2.UnmarshalEnvelope([]byte(req)); err == nil && v2.ValidateEnvelope(env) == nil {
		t.Errorf("a request with id null passes: %s", req)
	}
}
