package compile_test

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/schema"
	"github.com/agentproto/agentproto/schema/compile"
)

// TestIntegerLiteral: a schema member with x-integer-literal takes a number
// only when it is written as an integer literal, as a serde_json receiver
// reads it; elsewhere 1.0 is an integer as JSON Schema says.
func TestIntegerLiteral(t *testing.T) {
	c, err := compile.New()
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(schema.IDPrefix + "arcan/v1/iteration_started.json")
	if err != nil {
		t.Fatal(err)
	}
	line := func(it string) string {
		return `{"part_type":"iteration_started","run_id":"r","session_id":"s","iteration":` + it + `}`
	}
	for it, valid := range map[string]bool{
		"1": true, "0": true, "4294967295": true,
		"1.0": false, "1e0": false, "1E+0": false, "10e-1": false, "-0": false, "0.0": false,
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(line(it)))
		if err != nil {
			t.Fatal(err)
		}
		err = s.Validate(inst)
		if (err == nil) != valid {
			t.Errorf("iteration %s: %v, want valid=%v", it, err, valid)
		}
		if err != nil && !strings.Contains(err.Error(), it) {
			t.Errorf("iteration %s: the error does not quote the number: %v", it, err)
		}
	}
	// A free-form value holds any number, and the keyword asks nothing of
	// a value that is not a number.
	call, err := c.Compile(schema.IDPrefix + "arcan/v1/tool_call_requested.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"part_type":"tool_call_requested","run_id":"r","session_id":"s","iteration":2,"call":{"call_id":"c","tool_name":"sleep","input":{"seconds":1.0}}}`))
	if err := call.Validate(inst); err != nil {
		t.Errorf("a float inside a tool's input: %v", err)
	}
	for lit, want := range map[string]bool{"12": true, "-3": true, "-0": false, "1.5": false, "2e3": false} {
		if got := compile.IsIntegerLiteral(lit); got != want {
			t.Errorf("IsIntegerLiteral(%s) = %v", lit, got)
		}
	}
}
