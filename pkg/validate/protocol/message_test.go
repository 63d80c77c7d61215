package protocol

import (
	"fmt"
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

// Plain shows numbers as float64 without changing the message's own value,
// which the rules and the engine may read after it.
func TestPlainLeavesTheValue(t *testing.T) {
	line := []byte(`{"error":{"code":{"n":-32602,"list":[1]}}}`)
	var a jsonscan.Arena
	d, err := a.Parse(line, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := &Message{Data: line, Doc: d}
	m.Value() // built: At now reads parts of it
	got, _ := m.Plain("/error/code").(map[string]any)
	if _, ok := got["n"].(float64); !ok {
		t.Errorf("Plain: n is %T, want float64", got["n"])
	}
	if n := At(m.Value(), "/error/code/n"); fmt.Sprintf("%T", n) != "json.Number" {
		t.Errorf("after Plain, the message's value holds n as %T, want json.Number", n)
	}
	if x := At(m.Value(), "/error/code/list/0"); fmt.Sprintf("%T", x) != "json.Number" {
		t.Errorf("after Plain, the message's value holds list[0] as %T, want json.Number", x)
	}
}
