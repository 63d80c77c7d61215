package testtypes_test

import (
	"errors"
	"testing"

	"github.com/agentproto/agentproto/gen/internal/testtypes/kitchen"
	"github.com/agentproto/agentproto/pkg/acp"
	"github.com/agentproto/agentproto/pkg/wire"
)

// TestNilRequiredUnionIsAnError: a required union member left nil would be
// written as null, which no variant is and which decoding the same bytes
// rejects; Validate reports it at the member's pointer.
func TestNilRequiredUnionIsAnError(t *testing.T) {
	for _, c := range []struct {
		name string
		v    interface{ Validate() error }
		ptr  string
	}{
		{"acp.SessionNotification", &acp.SessionNotification{SessionID: "s1"}, "/update"},
		{"kitchen.Envelope", &kitchen.Envelope{ID: "m1", SessionID: "s1"}, "/event"},
	} {
		err := c.v.Validate()
		var es wire.Errors
		if !errors.As(err, &es) {
			t.Errorf("%s with a nil required union: Validate = %v, want an error at %s", c.name, err, c.ptr)
			continue
		}
		found := false
		for _, e := range es {
			found = found || e.Pointer == c.ptr
		}
		if !found {
			t.Errorf("%s: %v, want an error at %s", c.name, err, c.ptr)
		}
	}
	// The same value with the union set validates.
	n := acp.SessionNotification{SessionID: "s1", Update: &acp.AgentMessageChunk{Content: &acp.TextContent{Text: "hi"}}}
	if err := n.Validate(); err != nil {
		t.Errorf("a notification with its update: %v", err)
	}
}
