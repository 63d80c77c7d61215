package protocol

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/schema"
)

// Split divides the schema with $id id at one of its members: rest is the
// schema without that member's subschema, and member is the $id of the
// subschema the member refers to. Validating a value against rest, and the
// member's value against member, gives exactly the causes of validating the
// value against the whole schema, each at the same keyword, so the findings
// read the same; the engine uses it to validate only the part of a message
// the fast path cannot vouch for.
//
// Only a schema whose own keywords are simple is split: type, properties,
// required and an allOf of references, with the member's subschema a bare
// $ref. Anything else (a condition, a union, a keyword whose wording reads
// its own document) keeps the schema whole, and ok is false. Members of
// rest that restate, by the same bare $ref, a member of a schema its allOf
// refers to are dropped: the referenced schema checks them already, with
// the same words.
func (s *Schemas) Split(id, name string) (rest *Schema, member string, ok bool) {
	key := id + "\x00" + name
	s.splitMu.Lock()
	defer s.splitMu.Unlock()
	if sp, done := s.splits[key]; done {
		return sp.rest, sp.member, sp.rest != nil
	}
	rest, member, ok = s.split(id, name)
	if s.splits == nil {
		s.splits = map[string]splitResult{}
	}
	s.splits[key] = splitResult{rest, member}
	return rest, member, ok
}

// splitResult is a Split, kept for the next call.
type splitResult struct {
	rest   *Schema
	member string
}

func (s *Schemas) split(id, name string) (rest *Schema, member string, ok bool) {
	file, frag, _ := strings.Cut(id, "#")
	doc, err := s.doc(file)
	if err != nil {
		return nil, "", false
	}
	sub, ok := Lookup(doc, SplitPointer(frag)).(map[string]any)
	if !ok {
		return nil, "", false
	}
	for k := range sub {
		switch k {
		case "$schema", "$id", "$defs", "$comment", "title", "description", "examples", "type", "allOf", "properties", "required":
		default:
			return nil, "", false
		}
	}
	props, _ := sub["properties"].(map[string]any)
	member, ok = bareRef(file, props[name])
	if !ok {
		return nil, "", false
	}
	// What the allOf's schemas check of each member, by the same bare $ref.
	inherited := map[string]string{}
	allOf, _ := sub["allOf"].([]any)
	var refs []any
	for _, a := range allOf {
		target, ok := bareRef(file, a)
		if !ok {
			return nil, "", false
		}
		refs = append(refs, map[string]any{"$ref": target})
		tfile, tfrag, _ := strings.Cut(target, "#")
		tdoc, err := s.doc(tfile)
		if err != nil {
			return nil, "", false
		}
		tsub, _ := Lookup(tdoc, SplitPointer(tfrag)).(map[string]any)
		tprops, _ := tsub["properties"].(map[string]any)
		for k, v := range tprops {
			if r, ok := bareRef(tfile, v); ok {
				inherited[k] = r
			}
		}
	}
	keep := map[string]any{}
	for k, v := range props {
		if k == name {
			continue
		}
		if r, ok := bareRef(file, v); ok {
			if inherited[k] == r {
				continue
			}
			keep[k] = map[string]any{"$ref": r}
			continue
		}
		p, ok := v.(map[string]any)
		if !ok {
			return nil, "", false
		}
		// Inline keywords are kept where their wording does not read
		// the document: a type, a constant, a list of values.
		q := map[string]any{}
		for pk, pv := range p {
			switch pk {
			case "type", "const", "enum":
				q[pk] = pv
			case "description", "title", "examples", "$comment", "deprecated":
			default:
				return nil, "", false
			}
		}
		keep[k] = q
	}
	// The copy lives under $defs of a derived document, by the name the
	// explainer would give the original (its nearest $defs entry, or the
	// file's title), so that a keyword of rest names the same type.
	label := defsName(frag)
	if label == "" {
		label, _ = doc["title"].(string)
	}
	if label == "" {
		return nil, "", false
	}
	copyOf := map[string]any{"properties": keep}
	for _, k := range []string{"type", "required"} {
		if v, ok := sub[k]; ok {
			copyOf[k] = v
		}
	}
	if len(refs) > 0 {
		copyOf["allOf"] = refs
	}
	derived := strings.TrimSuffix(file, ".json") + "-" + url.PathEscape(label) + "-without-" + url.PathEscape(name) + ".json"
	s.mu.Lock()
	if s.derived == nil {
		s.derived = map[string]any{}
	}
	wrapped := map[string]any{"$defs": map[string]any{label: copyOf}}
	if prev, dup := s.derived[derived]; dup && !reflect.DeepEqual(prev, wrapped) {
		s.mu.Unlock()
		return nil, "", false
	}
	s.derived[derived] = wrapped
	s.mu.Unlock()
	rest, err = s.Get(derived + "#/$defs/" + escapeToken(label))
	if err != nil {
		return nil, "", false
	}
	return rest, member, true
}

// doc reads an embedded schema document by its $id, once.
func (s *Schemas) doc(id string) (map[string]any, error) {
	if d, ok := s.docs[id]; ok {
		return d, nil
	}
	d, err := readDoc(id)
	if err != nil {
		return nil, err
	}
	if s.docs == nil {
		s.docs = map[string]map[string]any{}
	}
	s.docs[id] = d
	return d, nil
}

func readDoc(id string) (map[string]any, error) {
	p, ok := strings.CutPrefix(id, schema.IDPrefix)
	if !ok {
		return nil, fmt.Errorf("%s is not an embedded schema", id)
	}
	f, err := schema.Files.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not an object", p)
	}
	return m, nil
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

func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}
