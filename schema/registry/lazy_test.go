package registry

import (
	"testing"
	"testing/fstest"

	"github.com/agentproto/agentproto/schema"
)

// The embedded registry reads a protocol's tables only when a version of
// that protocol is asked for: an ACP trace costs no ARCP or Arcan tables.
func TestTablesLoadWhenAskedFor(t *testing.T) {
	r, err := load(schema.Files, schema.IDPrefix, true)
	if err != nil {
		t.Fatal(err)
	}
	loaded := func(p string) (some, all bool) {
		all = true
		for _, v := range r.versions {
			if v.Protocol != p {
				continue
			}
			has := v.Table != nil
			some, all = some || has, all && has
		}
		return some, all
	}
	if d := r.Default("acp"); d == nil || d.ACP() == nil {
		t.Fatal("no ACP default version with its table")
	}
	if _, all := loaded("acp"); !all {
		t.Error("asking for ACP did not load every ACP version's table")
	}
	for _, p := range []string{"arcp", "arcan"} {
		if some, _ := loaded(p); some {
			t.Errorf("asking for ACP loaded %s tables", p)
		}
	}
	if names := r.DialectNames("arcp"); len(names) == 0 {
		t.Fatal("no ARCP dialects")
	}
	if _, all := loaded("arcp"); !all {
		t.Error("asking for ARCP dialects did not load ARCP's tables")
	}
}

// A protocol whose tables do not load has no versions, and Err says why.
func TestLazyTablesThatFail(t *testing.T) {
	fsys := fstest.MapFS{}
	for _, name := range []string{schema.VersionsFile} {
		b, err := schema.Files.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		fsys[name] = &fstest.MapFile{Data: b}
	}
	r, err := load(fsys, schema.IDPrefix, true) // no dispatch tables at all
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Default("acp"); v != nil {
		t.Errorf("a version without its table: %v", v)
	}
	if err := r.Err(); err == nil {
		t.Error("Err is nil although no table loaded")
	}
}
