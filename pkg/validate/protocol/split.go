package protocol

import (
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/jsonpointer"
)

// Split is a schema divided at its members that are a bare $ref: Rest is
// the schema without them, and Members gives, by member name, the $id each
// refers to. Validating a value against Rest, and each of those members'
// values against its own schema, gives exactly the causes of validating the
// value against the whole schema, each at the same keyword, so the findings
// read the same. The engine uses it to validate only the parts of a message
// the fast path cannot vouch for.
type Split struct {
	Rest    *Schema
	Members map[string]string
	names   []string  // Members' keys, sorted
	schemas []*Schema // the schema of each of names
	// objects are the members split only when their value is an object:
	// a schema of the allOf asks for one, and its complaint about
	// another value must stay with the whole.
	objects []string
	// parts keeps the parts SplitCheckDoc made for a check without a
	// Skip, by the check's pointer and the members present (partsKey):
	// every message that fails at the same place with the same members
	// is split into the same checks, which are only read.
	parts sync.Map
	kept  atomic.Int32 // how many parts asked to be kept
}

// maxKeptParts bounds the splits a Split keeps: the places of a protocol's
// checks are few, but a batch's elements are each a place of their own.
const maxKeptParts = 64

// partsKey is a check's place and the members of the Split present in
// its value (bit k for names[k]).
type partsKey struct {
	ptr     string
	present uint64
}

// Split divides the schema with $id id (see Split); nil when it is not
// divided. Only a schema whose own keywords are simple is: type,
// properties, required and an allOf of references, with at least one
// member a bare $ref. Anything else (a condition, a union, closed members)
// keeps the schema whole. Rest keeps every other member by a reference to
// its place in the original document, so its keywords are the original
// ones; members that restate, by the same bare $ref, a member of a schema
// the allOf refers to are left to that schema, which checks them with the
// same words. Results are kept: a schema is split once.
func (s *Schemas) Split(id string) *Split {
	s.splitMu.Lock()
	defer s.splitMu.Unlock()
	if sp, done := s.splits[id]; done {
		return sp
	}
	sp := s.split(id)
	if s.splits == nil {
		s.splits = map[string]*Split{}
	}
	s.splits[id] = sp
	return sp
}

// SplitCheck returns the parts of ck by the Split of its schema: the rest,
// and a check of each member present; nil when the schema is not split,
// the value is not an object, or a member that must be an object to be
// split is not one. Each part's Skip is ck's, moved to the part's place.
func (s *Schemas) SplitCheck(ck Check) []Check {
	obj, ok := ck.Value.(map[string]any)
	if !ok || ck.Schema == nil {
		return nil
	}
	sch := ck.Schema
	sch.splitOnce.Do(func() { sch.split = s.Split(sch.ID) })
	sp := sch.split
	if sp == nil {
		return nil
	}
	for _, name := range sp.objects {
		if v, present := obj[name]; present {
			if _, isObj := v.(map[string]any); !isObj {
				return nil
			}
		}
	}
	base := ck.Pointer()
	parts := make([]Check, 1, 1+len(sp.names))
	parts[0] = Check{Schema: sp.Rest, Loc: ck.Loc, Ptr: base, Value: obj, Skip: ck.Skip}
	for i, name := range sp.names {
		v, present := obj[name]
		if !present {
			continue
		}
		p := Check{Schema: sp.schemas[i], Loc: append(append([]string(nil), ck.Loc...), name), Ptr: base + "/" + jsonpointer.Escape(name), Value: v}
		if skip := ck.Skip; skip != nil {
			p.Skip = func(l []string) bool { return skip(append([]string{name}, l...)) }
		}
		parts = append(parts, p)
	}
	return parts
}

// SplitCheckDoc is SplitCheck for a check whose value is node i of d
// rather than a built value: the parts' values are left for the caller
// to read from d at their locations (their Value is nil). The parts are
// only to be read: those of a check without a Skip are kept and given
// again for every check at the same place with the same members.
func (s *Schemas) SplitCheckDoc(ck Check, d *jsonscan.Doc, i int) []Check {
	if d.Type(i) != jsonscan.Object || ck.Schema == nil {
		return nil
	}
	sch := ck.Schema
	sch.splitOnce.Do(func() { sch.split = s.Split(sch.ID) })
	sp := sch.split
	if sp == nil {
		return nil
	}
	for _, name := range sp.objects {
		if m := d.Member(i, name); m >= 0 && d.Type(m) != jsonscan.Object {
			return nil
		}
	}
	base := ck.Pointer()
	var key partsKey
	cache := ck.Skip == nil && len(sp.names) <= 64
	if cache {
		key.ptr = base
		for k, name := range sp.names {
			if d.Member(i, name) >= 0 {
				key.present |= 1 << k
			}
		}
		if kept, ok := sp.parts.Load(key); ok {
			if parts := kept.([]Check); slices.Equal(parts[0].Loc, ck.Loc) {
				return parts
			}
		}
	}
	parts := make([]Check, 1, 1+len(sp.names))
	parts[0] = Check{Schema: sp.Rest, Loc: ck.Loc, Ptr: base, Skip: ck.Skip}
	for k, name := range sp.names {
		if d.Member(i, name) < 0 {
			continue
		}
		loc := append(append(make([]string, 0, len(ck.Loc)+1), ck.Loc...), name)
		p := Check{Schema: sp.schemas[k], Loc: loc[:len(loc):len(loc)], Ptr: base + "/" + jsonpointer.Escape(name)}
		if skip := ck.Skip; skip != nil {
			p.Skip = func(l []string) bool { return skip(append([]string{name}, l...)) }
		}
		parts = append(parts, p)
	}
	if cache && sp.kept.Add(1) <= maxKeptParts {
		// Kept with its own copy of the location: the caller's may
		// change after the call.
		parts[0].Loc = slices.Clip(slices.Clone(ck.Loc))
		sp.parts.Store(key, parts)
	}
	return parts
}

func (s *Schemas) split(id string) *Split {
	file, frag, _ := strings.Cut(id, "#")
	doc, err := s.doc(file)
	if err != nil {
		return nil
	}
	sub, ok := Lookup(doc, SplitPointer(frag)).(map[string]any)
	if !ok || !simpleKeywords(sub) {
		return nil
	}
	refs, inherited, constrained, ok := s.allOfMembers(file, sub)
	if !ok {
		return nil
	}
	props, _ := sub["properties"].(map[string]any)
	sp, keep, ok := divide(file, frag, props, inherited, constrained)
	if !ok || len(sp.names) == 0 {
		return nil
	}
	sort.Strings(sp.names)
	for _, name := range sp.names {
		ms, err := s.Get(sp.Members[name])
		if err != nil {
			return nil
		}
		sp.schemas = append(sp.schemas, ms)
	}
	if sp.Rest = s.rest(doc, file, frag, sub, keep, refs); sp.Rest == nil {
		return nil
	}
	return sp
}

// simpleKeywords reports whether a schema's own keywords are those a
// split keeps the meaning of: type, properties, required and allOf, and
// annotations.
func simpleKeywords(sub map[string]any) bool {
	for k := range sub {
		switch k {
		case "$schema", "$id", "$defs", "$comment", "title", "description", "examples", "type", "allOf", "properties", "required":
		default:
			return false
		}
	}
	return true
}

// allOfMembers reads a schema's allOf, which must be bare references: the
// references (as the Rest's allOf) and what their schemas check of each
// member, by a bare $ref (inherited) or any other way (constrained).
func (s *Schemas) allOfMembers(file string, sub map[string]any) (refs []any, inherited map[string]string, constrained map[string]any, ok bool) {
	inherited = map[string]string{}
	constrained = map[string]any{}
	allOf, _ := sub["allOf"].([]any)
	for _, a := range allOf {
		target, ok := bareRef(file, a)
		if !ok {
			return nil, nil, nil, false
		}
		refs = append(refs, map[string]any{"$ref": target})
		tfile, tfrag, _ := strings.Cut(target, "#")
		tdoc, err := s.doc(tfile)
		if err != nil {
			return nil, nil, nil, false
		}
		tsub, _ := Lookup(tdoc, SplitPointer(tfrag)).(map[string]any)
		tprops, _ := tsub["properties"].(map[string]any)
		for k, v := range tprops {
			if r, ok := bareRef(tfile, v); ok {
				inherited[k] = r
			} else {
				constrained[k] = v
			}
		}
	}
	return refs, inherited, constrained, true
}

// divide sorts a schema's members into those split off (a bare $ref the
// allOf's schemas do not check otherwise) and those the Rest keeps, each
// by a reference to its place in the original document. It fails on a
// name a URL fragment would have to escape.
func divide(file, frag string, props map[string]any, inherited map[string]string, constrained map[string]any) (*Split, map[string]any, bool) {
	sp := &Split{Members: map[string]string{}}
	keep := map[string]any{}
	for k, v := range props {
		if r, ok := bareRef(file, v); ok {
			switch {
			case inherited[k] == r:
				continue // the allOf's schema checks it, in the same words
			case inherited[k] != "":
				// Checked twice, by different schemas: whole.
			case constrained[k] == nil:
				sp.Members[k] = r
				sp.names = append(sp.names, k)
				continue
			case objectOnly(constrained[k]):
				// The allOf's schema asks only for an object (an
				// envelope's payload): split when it is one, and
				// then that schema has nothing to say of it.
				sp.Members[k] = r
				sp.names = append(sp.names, k)
				sp.objects = append(sp.objects, k)
				continue
			}
		}
		tok := jsonpointer.Escape(k)
		if url.PathEscape(tok) != tok {
			return nil, nil, false // a name that a URL fragment would have to escape
		}
		keep[k] = map[string]any{"$ref": file + "#" + frag + "/properties/" + tok}
	}
	return sp, keep, true
}

// rest compiles the schema without its split members: the kept members,
// the schema's type and required, and its allOf's references. It lives
// under $defs of a derived document, by the name the explainer gives the
// original (its nearest $defs entry, or the file's title), so that its own
// keywords (type, required) name the same type. It is nil when the schema
// has no such name, or another schema of the file took it.
func (s *Schemas) rest(doc map[string]any, file, frag string, sub, keep map[string]any, refs []any) *Schema {
	label := defsName(frag)
	if label == "" {
		label, _ = doc["title"].(string)
	}
	if label == "" {
		return nil
	}
	rest := map[string]any{"properties": keep}
	for _, k := range []string{"type", "required"} {
		if v, ok := sub[k]; ok {
			rest[k] = v
		}
	}
	if len(refs) > 0 {
		rest["allOf"] = refs
	}
	derived := strings.TrimSuffix(file, ".json") + "-" + url.PathEscape(label) + "-rest.json"
	wrapped := map[string]any{"$defs": map[string]any{label: rest}}
	s.mu.Lock()
	if s.derived == nil {
		s.derived = map[string]any{}
	}
	prev, dup := s.derived[derived]
	if dup && !reflect.DeepEqual(prev, wrapped) {
		// Two schemas of one file under one name: keep the first whole.
		s.mu.Unlock()
		return nil
	}
	s.derived[derived] = wrapped
	s.mu.Unlock()
	sch, err := s.Get(derived + "#/$defs/" + jsonpointer.Escape(label))
	if err != nil {
		return nil
	}
	return sch
}

// doc reads an embedded schema document by its $id, once (under splitMu).
func (s *Schemas) doc(id string) (map[string]any, error) {
	if d, ok := s.docs[id]; ok {
		return d, nil
	}
	d, err := s.readDoc(id)
	if err != nil {
		return nil, err
	}
	if s.docs == nil {
		s.docs = map[string]map[string]any{}
	}
	s.docs[id] = d
	return d, nil
}

func (s *Schemas) readDoc(id string) (map[string]any, error) {
	v, err := s.document(id)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", id)
	}
	return m, nil
}

// objectOnly reports whether a subschema only asks for an object (with
// annotations).
func objectOnly(v any) bool {
	m, ok := v.(map[string]any)
	if !ok || m["type"] != "object" {
		return false
	}
	for k := range m {
		switch k {
		case "type", "description", "title", "examples", "$comment":
		default:
			return false
		}
	}
	return true
}

// bareRef returns the absolute target of a subschema that is only a $ref
// (with annotations), resolved against the document file.
func bareRef(file string, v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	ref, ok := m["$ref"].(string)
	if !ok {
		return "", false
	}
	for k := range m {
		switch k {
		case "$ref", "description", "title", "examples", "$comment", "deprecated":
		default:
			return "", false
		}
	}
	base, err := url.Parse(file)
	if err != nil {
		return "", false
	}
	u, err := base.Parse(ref)
	if err != nil {
		return "", false
	}
	return u.String(), true
}

// defsName is the name of the nearest $defs entry of a fragment, as the
// explainer names types.
func defsName(frag string) string {
	toks := SplitPointer(frag)
	for i := len(toks) - 2; i >= 0; i-- {
		if toks[i] == "$defs" || toks[i] == "definitions" {
			return toks[i+1]
		}
	}
	return ""
}
