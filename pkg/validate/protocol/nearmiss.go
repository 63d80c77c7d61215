package protocol

import (
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/internal/suggest"
)

// Miss is a member of an object that its schema does not define but whose
// name is a near miss of one it does (locatons for locations): a receiver
// ignores it, so its value is silently lost.
type Miss struct {
	Loc  []string // where the member sits, relative to the value
	Key  string   // the member as sent
	Want string   // the defined member it most likely stands for
	// Types are the $ids of the named types (a file's root or one of its
	// $defs) whose members the object was judged against, so that the
	// member can be looked up in another version's types of those names
	// (see Schemas.Defines).
	Types []string
}

// Bounds of the near-miss walk, so that its cost stays proportional to a
// small part of the value whatever its size.
const (
	missDepth    = 24   // nesting followed
	missNodes    = 4096 // objects and arrays visited per value
	missElements = 256  // elements visited per array
)

// NearMisses walks a value that the schema accepts and returns the members
// of its objects that the schema does not define but that are near misses
// of members it does. Objects whose schema lists no members, or takes any
// member by a schema (maps such as _meta), are not judged. Union
// alternatives are chosen by their const tags, else by their required
// members: no validation runs.
func (s *Schema) NearMisses(v any) []Miss { return s.misses(v, false) }

// misses walks v for NearMisses, or for Undefined when all is set.
func (s *Schema) misses(v any, all bool) []Miss {
	if s == nil || s.shapes == nil {
		return nil
	}
	c, err := s.compiled()
	if err != nil {
		return nil
	}
	w := &missWalk{budget: missNodes, shapes: s.shapes, all: all}
	w.walk([]*jsonschema.Schema{c}, v, nil, 0)
	return w.out
}

type missWalk struct {
	out    []Miss
	budget int
	shapes *shapes
	// all reports every member the schema does not define (Want set
	// when it is a near miss), not only near misses.
	all bool
}

// Undefined walks a value that the schema accepts and returns every member
// of its objects that the schema does not define, other than _meta: the
// protocol's types take no members of one's own (a near miss has Want set).
// Objects whose schema lists no members, takes any member by a schema
// (maps), or admits the member by a pattern are not judged.
func (s *Schema) Undefined(v any) []Miss { return s.misses(v, true) }

func (w *missWalk) walk(schemas []*jsonschema.Schema, v any, loc []string, depth int) {
	if depth > missDepth || w.budget <= 0 || len(schemas) == 0 {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		w.budget--
		var flats []*flat
		custom := false
		for _, sch := range schemas {
			var c bool
			flats, c = w.shapes.resolve(sch, v, 0, flats)
			custom = custom || c
		}
		judged := false
		for _, f := range flats {
			if f.anyMember {
				judged = false
				break
			}
			judged = judged || len(f.props) > 0
		}
		if custom {
			judged = false
		}
		// Members in key order: the findings, and what the budget
		// reaches, are the same on every run.
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			child := v[k]
			var subs []*jsonschema.Schema
			for _, f := range flats {
				if p, ok := f.props[k]; ok {
					subs = append(subs, p)
				}
			}
			if len(subs) > 0 {
				w.walk(subs, child, append(loc, k), depth+1)
				continue
			}
			if w.all {
				if !judged || k == "_meta" || w.admitted(flats, k) {
					continue
				}
				want := w.misspelt(flats, k)
				if _, both := v[want]; both {
					want = ""
				}
				w.out = append(w.out, Miss{Loc: append(append([]string(nil), loc...), k), Key: k, Want: want, Types: typesOf(flats)})
				continue
			}
			if !judged || len(k) == 0 || k[0] == '_' {
				continue
			}
			if want := w.misspelt(flats, k); want != "" {
				if _, both := v[want]; !both {
					w.out = append(w.out, Miss{Loc: append(append([]string(nil), loc...), k), Key: k, Want: want, Types: typesOf(flats)})
				}
			}
		}
	case []any:
		w.budget--
		var items []*jsonschema.Schema
		for _, sch := range schemas {
			items = append(items, w.shapes.items(sch)...)
		}
		for i, el := range v {
			if i >= missElements {
				break
			}
			w.walk(items, el, append(loc, itoa(i)), depth+1)
		}
	}
}

// admitted reports whether a pattern of the shapes admits member k.
func (w *missWalk) admitted(flats []*flat, k string) bool {
	for _, f := range flats {
		for _, re := range f.patterns {
			if re.MatchString(k) {
				return true
			}
		}
	}
	return false
}

// misspelt returns the member of the shapes that unknown key k most likely
// misspells, unless a pattern of theirs admits k.
func (w *missWalk) misspelt(flats []*flat, k string) string {
	var names []string
	for _, f := range flats {
		for _, re := range f.patterns {
			if re.MatchString(k) {
				return ""
			}
		}
		for n := range f.props {
			names = append(names, n)
		}
	}
	sort.Strings(names) // a tie goes the same way every time
	return suggest.Misspelt(k, names)
}

// shapes memoizes what each schema node says about objects and arrays,
// with $ref and allOf folded in. It is safe for concurrent use.
type shapes struct{ m sync.Map } // *jsonschema.Schema → *flat

// flat is one schema node with $ref and allOf folded in: its members, and
// the unions whose chosen alternatives add more.
type flat struct {
	props     map[string]*jsonschema.Schema
	patterns  []jsonschema.Regexp
	anyMember bool // additionalProperties is a schema: a map, not a record
	unions    [][]*alt
	items     []*jsonschema.Schema
	object    bool     // the node admits objects
	types     []string // the $ids of the named types folded in (see Miss.Types)
}

// alt is one alternative of a union with what chooses it.
type alt struct {
	s        *jsonschema.Schema
	consts   map[string]any // members the alternative fixes with const
	required []string
	object   bool
	catchAll bool // it defines only a tag that takes the values the others do not
}

func (sh *shapes) get(s *jsonschema.Schema) *flat {
	if f, ok := sh.m.Load(s); ok {
		return f.(*flat)
	}
	f := &flat{props: map[string]*jsonschema.Schema{}, object: true}
	sh.fold(f, s, 0, true)
	sh.m.Store(s, f)
	return f
}

// fold adds s (and what it refers to or includes) to f.
func (sh *shapes) fold(f *flat, s *jsonschema.Schema, depth int, top bool) {
	if s == nil || depth > 16 {
		return
	}
	if id, ok := namedType(s.Location); ok {
		f.types = append(f.types, id)
	}
	if top && s.Types != nil && !s.Types.IsEmpty() {
		f.object = false
		for _, t := range s.Types.ToStrings() {
			f.object = f.object || t == "object"
		}
	}
	for k, p := range s.Properties {
		f.props[k] = p
	}
	for re := range s.PatternProperties {
		f.patterns = append(f.patterns, re)
	}
	if _, isSchema := s.AdditionalProperties.(*jsonschema.Schema); isSchema {
		f.anyMember = true
	}
	if s.Items2020 != nil {
		f.items = append(f.items, s.Items2020)
	}
	if it, ok := s.Items.(*jsonschema.Schema); ok {
		f.items = append(f.items, it)
	}
	sh.fold(f, s.Ref, depth+1, top && s.Types == nil)
	for _, a := range s.AllOf {
		sh.fold(f, a, depth+1, false)
	}
	for _, alts := range [][]*jsonschema.Schema{s.OneOf, s.AnyOf} {
		if len(alts) == 0 {
			continue
		}
		u := make([]*alt, 0, len(alts))
		for _, a := range alts {
			af := sh.get(a)
			x := &alt{s: a, consts: map[string]any{}, object: af.object}
			for k, p := range af.props {
				if p.Const != nil {
					x.consts[k] = *p.Const
				}
			}
			// A catch-all: one member, the tag, that takes any value
			// but the other alternatives' (not: enum). What else an
			// object of such a variant holds is its own schema's
			// business (a custom "_" variant's, or a later revision's).
			if len(x.consts) == 0 && len(af.props) == 1 && len(af.unions) == 0 {
				for _, p := range af.props {
					x.catchAll = p.Not != nil && p.Not.Enum != nil
				}
			}
			x.required = requiredOf(a, 0)
			u = append(u, x)
		}
		f.unions = append(f.unions, u)
	}
}

// namedType reports whether a schema location is a named type, a file's
// root or an entry of its $defs, and returns its $id.
func namedType(loc string) (string, bool) {
	file, frag, _ := strings.Cut(loc, "#")
	if frag == "" {
		return file, file != ""
	}
	name, ok := strings.CutPrefix(frag, "/$defs/")
	return loc, ok && name != "" && !strings.Contains(name, "/")
}

// typesOf lists the named types of the shapes, each once.
func typesOf(flats []*flat) []string {
	var out []string
	for _, f := range flats {
		for _, t := range f.types {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// Defines reports whether the type with $id typeID (a file's root or an
// entry of its $defs) defines member key, as its own or through $ref and
// allOf. A typeID that no embedded file holds defines nothing. It reads
// and compiles what it is asked about, once: it is for a member already
// found undefined, and costs a clean run nothing.
func (s *Schemas) Defines(typeID, key string) bool {
	f := s.typeShape(typeID)
	if f == nil {
		return false
	}
	_, ok := f.props[key]
	return ok
}

// typeShape returns the shape of the type with $id typeID, nil when no
// embedded file holds it, finding it once: the types asked about are a
// few of the schemas' own, however many members a trace asks about.
func (s *Schemas) typeShape(typeID string) *flat {
	if f, ok := s.types.Load(typeID); ok {
		return f.(*flat)
	}
	var f *flat
	file, frag, _ := strings.Cut(typeID, "#")
	s.splitMu.Lock()
	doc, err := s.doc(file)
	s.splitMu.Unlock()
	if err == nil && Lookup(doc, SplitPointer(frag)) != nil {
		id := typeID
		if frag == "" {
			id = file
		}
		if sch, err := s.Get(id); err == nil && sch != nil {
			if c, err := sch.compiled(); err == nil {
				f = s.shapes.get(c)
			}
		}
	}
	s.types.Store(typeID, f)
	return f
}

func requiredOf(s *jsonschema.Schema, depth int) []string {
	if s == nil || depth > 16 {
		return nil
	}
	out := append([]string(nil), s.Required...)
	out = append(out, requiredOf(s.Ref, depth+1)...)
	for _, a := range s.AllOf {
		out = append(out, requiredOf(a, depth+1)...)
	}
	return out
}

// resolve appends to out the flat shapes that apply to object v under s:
// s's own, and those of the union alternatives v takes.
//
// custom reports that v takes only the catch-all alternative of one of the
// unions: a variant this schema does not define, whose members are not
// its to judge.
func (sh *shapes) resolve(s *jsonschema.Schema, v map[string]any, depth int, out []*flat) (_ []*flat, custom bool) {
	f := sh.get(s)
	out = append(out, f)
	if depth > 8 {
		return out, false
	}
	for _, u := range f.unions {
		taken, catchAll := 0, false
		for _, a := range u {
			if a.takes(v) {
				taken++
				catchAll = catchAll || a.catchAll
				var c bool
				out, c = sh.resolve(a.s, v, depth+1, out)
				custom = custom || c
			}
		}
		custom = custom || catchAll && taken == 1
	}
	return out, custom
}

// takes reports whether object v takes the alternative: its const members
// all match (a tagged alternative); else, for an untagged one that admits
// objects, v has its required members.
func (a *alt) takes(v map[string]any) bool {
	if len(a.consts) > 0 {
		for k, c := range a.consts {
			got, has := v[k]
			if !has {
				return false
			}
			if cs, ok := c.(string); ok {
				if gs, ok := got.(string); !ok || gs != cs {
					return false
				}
			} else if !JSONEqual(got, c) {
				return false
			}
		}
		return true
	}
	if !a.object {
		return false
	}
	for _, r := range a.required {
		if _, has := v[r]; !has {
			return false
		}
	}
	return true
}

// items returns the schemas of an array's elements under s.
func (sh *shapes) items(s *jsonschema.Schema) []*jsonschema.Schema {
	f := sh.get(s)
	out := f.items
	for _, u := range f.unions {
		for _, a := range u {
			out = append(out, sh.get(a.s).items...)
		}
	}
	return out
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// Overlap counts the members of object v that the schema defines (its own
// and those of the union alternatives v takes): a measure of how close a
// value that fails the schema comes to it, for choosing among schemas.
func (s *Schema) Overlap(v any) int {
	o, ok := v.(map[string]any)
	if !ok || s == nil || s.shapes == nil {
		return 0
	}
	c, err := s.compiled()
	if err != nil {
		return 0
	}
	n := 0
	flats, _ := s.shapes.resolve(c, o, 0, nil)
	for k := range o {
		for _, f := range flats {
			if _, ok := f.props[k]; ok {
				n++
				break
			}
		}
	}
	return n
}
