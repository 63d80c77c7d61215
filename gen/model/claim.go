package model

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/gen/load"
)

// claim reserves, before any type is made, the names of the input
// documents' roots and $defs entries for them, so that an inline type or
// a union variant with the same title never takes a name from the schema
// that obviously owns it. When two named schemas ask for one name, the one
// that asks most plainly keeps it (an x-go-name, then a name that is its
// $defs key as written, then one made from its key or its file's name,
// then a title), in document order among equals;
// the other gets a name from its path (see pathName), and a warning says
// so and how to choose.
func (b *builder) claim(g *load.Graph) error {
	type asking struct {
		s    *load.Schema
		name string
		rank int
	}
	var all []asking
	for _, d := range g.Inputs() {
		var named []*load.Schema
		if !b.opts.DefsOnly && describesValue(d.Root) {
			named = append(named, d.Root)
		}
		for _, def := range d.Root.Defs {
			if describesValue(def.Schema) {
				named = append(named, def.Schema)
			}
		}
		for _, s := range named {
			a := asking{s: s, name: b.nameOf(s), rank: 3}
			key := s.Loc.Pointer[strings.LastIndex(s.Loc.Pointer, "/")+1:]
			switch {
			case s.GoName != "":
				a.rank = 0
			case a.name == key || s.Title == "" && s.Loc.Pointer == "":
				a.rank = 1
			case s.Title == "" || a.name == b.pathNames(s)[0]:
				a.rank = 2
			}
			all = append(all, a)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].rank < all[j].rank })
	for _, a := range all {
		prev, ok := b.names.claims[a.name].(*load.Schema)
		if !ok || prev == a.s {
			b.names.claims[a.name] = a.s
			continue
		}
		alt := ""
		for _, c := range b.pathNames(a.s) {
			if _, taken := b.names.claims[c]; !taken && c != a.name {
				alt = c
				break
			}
		}
		for i := 2; alt == ""; i++ {
			if c := fmt.Sprintf("%s%d", a.name, i); b.names.claims[c] == nil {
				alt = c
			}
		}
		if b.renamed == nil {
			b.renamed = map[*load.Schema]string{}
		}
		b.renamed[a.s] = alt
		b.names.claims[alt] = a.s
		b.pkg.Warnings = append(b.pkg.Warnings, a.s.Loc.Errorf("the Go name %s is asked for by this schema and by %s: this one is named %s (give one of them another title, or an x-go-name, to choose)", a.name, prev.Loc, alt))
	}
	return nil
}

// pathNames are the names a root or $defs entry may take from where it
// is, plainest first: its $defs key (or its file's name, for a root), then
// every token of its pointer joined (DefsSchema for #/$defs/schema), then
// that prefixed with its file's name.
func (b *builder) pathNames(s *load.Schema) []string {
	base := s.Doc.File
	if i := strings.LastIndexAny(base, "/\\:"); i >= 0 {
		base = base[i+1:]
	}
	base = GoName(strings.TrimSuffix(strings.TrimSuffix(base, ".json"), ".schema"))
	p := s.Loc.Pointer
	if p == "" {
		return []string{base}
	}
	var joined strings.Builder
	for _, tok := range strings.Split(p[1:], "/") {
		if tok == "$defs" {
			tok = "defs"
		}
		joined.WriteString(GoName(tok))
	}
	return []string{GoName(p[strings.LastIndex(p, "/")+1:]), joined.String(), base + joined.String()}
}

// first is the first of names, or else fallback.
func first(names []string, fallback string) string {
	if len(names) > 0 {
		return names[0]
	}
	return fallback
}

// nameOf is the Go name a document root or $defs entry asks for.
func (b *builder) nameOf(s *load.Schema) string {
	if r, ok := b.renamed[s]; ok {
		return r
	}
	if s.GoName != "" {
		return s.GoName
	}
	if s.Title != "" {
		return GoName(s.Title)
	}
	p := s.Loc.Pointer
	if p == "" {
		base := s.Doc.File
		if i := strings.LastIndexAny(base, "/\\:"); i >= 0 {
			base = base[i+1:]
		}
		return GoName(strings.TrimSuffix(base, ".json"))
	}
	return GoName(p[strings.LastIndex(p, "/")+1:])
}

// named reports whether a schema is a document's root or one of its $defs
// entries, which have named types.
func named(s *load.Schema) bool {
	p := s.Loc.Pointer
	for _, prefix := range []string{"/$defs/", "/definitions/"} {
		if strings.HasPrefix(p, prefix) && !strings.Contains(p[len(prefix):], "/") {
			return true
		}
	}
	return p == ""
}
