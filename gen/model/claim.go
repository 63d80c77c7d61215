package model

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/gen/load"
	"github.com/agentproto/agentproto/pkg/jsonpointer"
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
	return append(append([]string{keyName(p)}, urlNames(p)...), joined.String(), base+joined.String())
}

// urlNames are further names for a $defs entry whose key is a URL or a
// path, after its last segment (keyName): the last segments that are not
// versions joined, two, three and more (HTTPServer for
// ".../bindings/http/0.1.0/server.json", beside Kafka's KafkaServer), then
// the last segment with the versions (Reference310 for
// ".../definitions/3.1.0/Reference.json", beside 3.0.0's). It is nil for
// any other key.
func urlNames(pointer string) []string {
	_, key := lastKey(pointer)
	if !strings.Contains(key, "/") {
		return nil
	}
	if _, rest, ok := strings.Cut(key, "://"); ok {
		key = rest[strings.Index(rest+"/", "/")+1:] // without the host
	}
	segs := strings.Split(key, "/")
	last := strings.TrimSuffix(strings.TrimSuffix(segs[len(segs)-1], ".json"), ".schema")
	segs = segs[:len(segs)-1]
	isVersion := func(s string) bool { return strings.Trim(s, "0123456789.v") == "" }
	var out []string
	name := GoName(last)
	var versions string
	for i := len(segs) - 1; i >= 0; i-- {
		if isVersion(segs[i]) {
			versions = strings.ReplaceAll(strings.TrimPrefix(segs[i], "v"), ".", "") + versions
			continue
		}
		name = GoName(segs[i]) + name
		out = append(out, name)
	}
	if versions != "" {
		out = append(out, GoName(last)+versions, name+versions)
	}
	return out
}

// keyName is the Go name the last token of a $defs entry's pointer gives:
// the key itself, or, for a key that is a URL or a path (AsyncAPI keys its
// definitions by their $id, "http://asyncapi.com/definitions/2.6.0/info.json"),
// its last segment without the file's extension (Info).
func keyName(pointer string) string {
	key, url := lastKey(pointer)
	if i := strings.LastIndex(url, "/"); i >= 0 {
		seg := strings.TrimSuffix(strings.TrimSuffix(url[i+1:], ".json"), ".schema")
		if n := GoName(seg); n != "" {
			return n
		}
	}
	return GoName(key)
}

// lastKey is the last token of a pointer, unescaped, and the same without
// a trailing slash or fragment mark (a URL's "…/schema#").
func lastKey(pointer string) (key, url string) {
	key = pointer[strings.LastIndex(pointer, "/")+1:]
	key = jsonpointer.Unescape(key)
	return key, strings.TrimRight(key, "/#")
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
	return keyName(p)
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
