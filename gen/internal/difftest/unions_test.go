package difftest_test

import (
	"testing"

	"github.com/agentproto/agentproto/gen/internal/difftest/recursive"
	"github.com/agentproto/agentproto/pkg/wire"
)

// TestRecursiveVariantWritesItsTagOnce: a variant that holds its own
// union, listed before the union in its schema, encodes its tag once,
// byte for byte as it came, at every level.
func TestRecursiveVariantWritesItsTagOnce(t *testing.T) {
	for _, in := range []string{`{"kind":"and","el":{"kind":"name"}}`, `{"kind":"and","el":{"kind":"and","el":{"kind":"name"}}}`} {
		v, err := recursive.UnmarshalExpr([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if _, ok := v.(*recursive.And); !ok {
			t.Errorf("%s decoded as %T", in, v)
		}
		out, err := recursive.MarshalExpr(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != in {
			t.Errorf("%s encoded as %s", in, out)
		}
	}
	var a recursive.And
	if err := wire.Unmarshal([]byte(`{"kind":"name","el":{"kind":"name"}}`), &a); err == nil {
		t.Error("And decoded a value tagged name")
	}
}
