package main

import (
	"path/filepath"
	"testing"

	"github.com/agentproto/agentproto/gen/load"
	"github.com/agentproto/agentproto/gen/model"
	"github.com/agentproto/agentproto/pkg/acp"
	"github.com/agentproto/agentproto/pkg/acp/unstable"
	v2 "github.com/agentproto/agentproto/pkg/acp/v2"
	v2unstable "github.com/agentproto/agentproto/pkg/acp/v2/unstable"
	"github.com/agentproto/agentproto/pkg/wire"
	"github.com/agentproto/agentproto/schema/registry"
)

// TestMappedCompletenessAgrees: the completeness a generation run decides
// for the types of agentproto's packages it refers to (the default maps
// are Generated) is the one each of those packages decided for itself and
// put in its Lookup. A difference would mean a type here is taken as
// complete on the strength of a model the other package's code was not
// made from.
func TestMappedCompletenessAgrees(t *testing.T) {
	lookups := map[string]func(string) (wire.Codec, bool){
		"github.com/agentproto/agentproto/pkg/acp":             acp.Lookup,
		"github.com/agentproto/agentproto/pkg/acp/unstable":    unstable.Lookup,
		"github.com/agentproto/agentproto/pkg/acp/v2":          v2.Lookup,
		"github.com/agentproto/agentproto/pkg/acp/v2/unstable": v2unstable.Lookup,
	}
	sources, maps, err := agentproto()
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	checked, incomplete := 0, 0
	for _, v := range reg.Versions("acp") {
		l := load.New(sources...)
		if err := l.AddPaths(filepath.Join("..", "..", "schema", filepath.FromSlash(v.Folder))); err != nil {
			t.Fatal(err)
		}
		g, err := l.Graph()
		if err != nil {
			t.Fatal(err)
		}
		p, err := model.Build(g, model.Options{Package: "p", Maps: maps})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range mappedTypes(p) {
			lookup := lookups[x.External.Path]
			if lookup == nil {
				t.Errorf("%s: %s of %s has no Lookup in this test", v, x.Name, x.External.Path)
				continue
			}
			codec, ok := lookup(x.SchemaID)
			if !ok {
				t.Errorf("%s: %s's Lookup has no %s", v, x.External.Path, x.SchemaID)
				continue
			}
			checked++
			if !codec.Complete {
				incomplete++
			}
			if codec.Complete != x.Complete {
				t.Errorf("%s: %s is complete here: %v; in %s: %v", v, x.SchemaID, x.Complete, x.External.Path, codec.Complete)
			}
		}
	}
	// Every mapped type of these packages is complete now (their open
	// unions' catch-alls are checked); the comparison still holds each
	// verdict to the one the package made.
	if checked < 50 {
		t.Errorf("only %d mapped types compared, %d of them incomplete", checked, incomplete)
	}
	t.Logf("%d mapped types compared, %d of them incomplete", checked, incomplete)
}

// mappedTypes lists the named types of other packages that a package's
// types hold, through members, elements, variants and everything the
// mapped types hold in turn.
func mappedTypes(p *model.Package) []*model.Type {
	seen := map[*model.Type]bool{}
	var out []*model.Type
	var typ func(t *model.Type)
	ref := func(r *model.Ref) {
		for r != nil {
			if r.Kind == model.NamedRef {
				typ(r.Type)
				return
			}
			r = r.Elem
		}
	}
	typ = func(t *model.Type) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		if t.External != nil && t.External.Generated && t.SchemaID != "" {
			out = append(out, t)
		}
		if st := t.Struct; st != nil {
			for _, f := range st.Fields {
				ref(f.Type)
			}
			for _, e := range st.Extra {
				ref(e.Type)
			}
			for _, m := range st.Merged {
				typ(m)
			}
			if cd := st.Cond; cd != nil {
				typ(cd.If)
				typ(cd.Then)
				typ(cd.Else)
			}
		}
		if u := t.Union; u != nil {
			for _, v := range u.Variants {
				typ(v.Type)
			}
		}
		ref(t.Under)
	}
	for _, t := range p.Types {
		typ(t)
	}
	return out
}
