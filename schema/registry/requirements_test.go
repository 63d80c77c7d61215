package registry_test

import (
	"slices"
	"testing"

	"github.com/agentproto/agentproto/schema"
	"github.com/agentproto/agentproto/schema/registry"
)

// TestRequirementIDs: the generated table of ids matches the catalogues,
// version by version, with bases and extensions joined as Requirements
// joins them.
func TestRequirementIDs(t *testing.T) {
	reg, err := registry.Load(schema.Files, schema.IDPrefix)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range registry.Protocols() {
		for _, v := range reg.Versions(p) {
			var want []string
			for _, q := range reg.Requirements(v, reg.Extensions(v)...) {
				want = append(want, q.ID)
			}
			got := reg.RequirementIDs(v, reg.Extensions(v)...)
			if !slices.Equal(got, want) {
				t.Errorf("%s: the generated ids differ from the catalogue (run go generate ./schema/registry): %d ids, want %d", v, len(got), len(want))
			}
			n += len(want)
		}
	}
	if n < 500 {
		t.Errorf("only %d rows in every catalogue", n)
	}
}

// TestCatalogueRows: every row of every catalogue is well formed (the
// loader refuses bad ones), and the rows a trace can show have an example.
func TestCatalogueRows(t *testing.T) {
	reg, err := registry.Load(schema.Files, schema.IDPrefix)
	if err != nil {
		t.Fatal(err)
	}
	missing := 0
	for _, q := range reg.AllRequirements("") {
		if q.Observe != registry.ObserveNone && len(q.Example) == 0 {
			missing++
		}
		if q.Citation() == "" || q.Summary == "" {
			t.Errorf("%s (%s): no citation or summary", q.ID, q.Version)
		}
	}
	t.Logf("%d observable rows have no example", missing)
}
