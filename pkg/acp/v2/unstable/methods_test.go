package unstable

import "testing"

// Every row of the method table resolves to this package's generated
// types, and a method that is both a request and a notification is found
// as each.
func TestMethodTable(t *testing.T) {
	ms := Methods()
	if len(ms) == 0 {
		t.Fatal("empty method table")
	}
	for _, m := range ms {
		if _, ok := m.Params(); !ok {
			t.Errorf("%s %s: params schema %s has no generated type", m.Kind, m.Name, m.ParamsSchema)
		}
		if _, ok := m.Result(); !ok && m.Kind == KindRequest {
			t.Errorf("%s %s: result schema %s has no generated type", m.Kind, m.Name, m.ResultSchema)
		}
		got, ok := LookupMethod(m.Name, m.Kind)
		if !ok || got != m {
			t.Errorf("LookupMethod(%q, %s) = %+v, %v; want the table's row", m.Name, m.Kind, got, ok)
		}
	}
	if _, ok := LookupMethod("_vendor/x", KindRequest); ok {
		t.Error("an extension method has a table entry")
	}
}
