package docvalid

import (
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/explain"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// TestSeedStopsWhenItDoesNotPay: Seed validates the first seedFree values
// of a place for nothing; after that, only while what it kept answers for
// other values (twice as many as were seeded). A place whose values never
// repeat costs seedFree validations however long the trace, and one
// whose values the memo keeps answering for is seeded on.
func TestSeedStopsWhenItDoesNotPay(t *testing.T) {
	sch := compileSchema(t, `{"type":"object","properties":{"n":{"type":"integer","maximum":9}},"additionalProperties":{"type":"string"}}`)
	ck := protocol.Check{Loc: []string{"params"}}
	x := explain.New("test", nil)
	var a jsonscan.Arena
	doc := func(s string) *jsonscan.Doc {
		d, err := a.Parse([]byte(s), 64)
		if err != nil {
			t.Fatal(err)
		}
		return &d
	}
	shelfOf := func(m *Memo) *shelf { return m.kept[place{sch, ck.Pointer()}] }

	// Values that never repeat (a member name of their own each): the
	// kept outcomes answer for nothing.
	m := NewMemo()
	for i := range 200 {
		d := doc(fmt.Sprintf(`{"n":%d,"k%d":"v"}`, i%10, i))
		m.Seed(x, ck, sch, d, d.Root(), nil)
	}
	if got := shelfOf(m).seeded.Load(); got != seedFree {
		t.Errorf("200 values that never repeat: %d seeded, want %d", got, seedFree)
	}

	// One value that keeps coming back, which the failing path asks
	// about (Lookup) three times for each seeded copy: the memo answers,
	// so seeding goes on.
	m = NewMemo()
	d := doc(`{"n":3,"k":"v"}`)
	for range 100 {
		m.Seed(x, ck, sch, d, d.Root(), nil)
		for range 3 {
			if _, found := m.Lookup(ck, sch, d, d.Root(), nil); !found {
				t.Fatal("a seeded value is not found")
			}
		}
	}
	if got := shelfOf(m).seeded.Load(); got != 100 {
		t.Errorf("a value the memo answers for: %d of 100 seeded", got)
	}
}

func compileSchema(t *testing.T, s string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("https://example.test/s.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("https://example.test/s.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}
