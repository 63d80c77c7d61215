package orderedjson

import (
	"strings"
	"testing"
)

func TestParseKeepsOrderAndNumbers(t *testing.T) {
	v, err := Parse([]byte(`{"b":1.50,"a":[true,null,{"z":"x","y":2}]}`))
	if err != nil {
		t.Fatal(err)
	}
	o := v.(*Object)
	if got := strings.Join(o.Keys(), ","); got != "b,a" {
		t.Errorf("keys %s, want b,a", got)
	}
	if n, _ := o.Get("b"); n.(interface{ String() string }).String() != "1.50" {
		t.Errorf("number text %v, want 1.50", n)
	}
	inner := Clone(o).(*Object)
	inner.Delete("b")
	if o.Len() != 2 || inner.Len() != 1 {
		t.Error("Clone shares members with its source")
	}
}

func TestParseRejects(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,"a":2}`:                 "appears twice",
		`{"a":1} x`:                     "after the JSON value",
		strings.Repeat("[", MaxDepth+2): "nesting deeper",
		`{"a":`:                         "invalid JSON",
	} {
		if _, err := Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%.20q): %v, want an error containing %q", in, err, want)
		}
	}
}
