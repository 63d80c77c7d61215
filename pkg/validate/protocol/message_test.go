package protocol

import (
	"testing"

	"github.com/agentproto/agentproto/internal/jsonscan"
)

// A message reads by pointer what Lookup reads from the built value,
// escaped tokens included, whatever it read before (it remembers the
// objects its last pointers led into).
func TestMessageReadsByPointer(t *testing.T) {
	line := []byte(`{"params":{"update":{"a/b":"slash","c~d":"tilde","id":"x"},"list":["p","q"]},"a/b":{"c":"top"}}`)
	var a jsonscan.Arena
	d, err := a.Parse(line, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := &Message{Data: line, Doc: d}
	whole, err := jsonscan.Parse(line, 0)
	if err != nil {
		t.Fatal(err)
	}
	ptrs := []string{"/params/update/id", "/params/update/a~1b", "/params/update/c~0d", "/a~1b/c", "/params/list/1", "/params/update/missing", "/params/list/2", "/params/update/id", "/a~1b/c", "/params/update/a~1b", "/nope/x", "/params", "/a~1b", "", "params/update", "/params/list/01", "/params/list/0/x", "/params/update/"}
	for round := range 2 {
		for _, p := range ptrs {
			want, wantOK := At(whole, p).(string)
			got, ok := m.String(p)
			if got != want || ok != wantOK {
				t.Errorf("round %d: String(%q) = %q, %v; want %q, %v", round, p, got, ok, want, wantOK)
			}
			if got, want := m.find(p), m.Doc.Find(p); got != want {
				t.Errorf("round %d: find(%q) = node %d, the Doc finds %d", round, p, got, want)
			}
			if m.Has(p) != (At(whole, p) != nil) {
				t.Errorf("round %d: Has(%q) = %v", round, p, m.Has(p))
			}
		}
	}
}
