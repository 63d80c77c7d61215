package protocol

import "testing"

// The parts of a split check carry the pointer of their place, the same
// one their location spells.
func TestSplitCheckPointers(t *testing.T) {
	s := NewSchemas()
	sch, err := s.Get("https://agentproto.dev/schema/acp/v1/session.update.params.json")
	if err != nil {
		t.Fatal(err)
	}
	value := map[string]any{"sessionId": "s1", "update": map[string]any{"sessionUpdate": "plan", "entries": []any{}}}
	for _, ck := range []Check{
		{Schema: sch, Loc: []string{"params"}, Value: value},
		{Schema: sch, Loc: []string{"params"}, Ptr: "/params", Value: value},
	} {
		parts := s.SplitCheck(ck)
		if len(parts) < 3 {
			t.Fatalf("%d parts; the schema splits into its rest, sessionId and update", len(parts))
		}
		for _, p := range parts {
			if got, want := p.Pointer(), Pointer(p.Loc); got != want {
				t.Errorf("part %v: Pointer %q, its location spells %q", p.Loc, got, want)
			}
		}
	}
}
