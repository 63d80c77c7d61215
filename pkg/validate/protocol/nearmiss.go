package protocol

import (
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/pkg/validate/internal/suggest"
)

// Miss is a member of an object that its schema does not define but whose
// name is a near miss of one it does (locatons for locations): a receiver
// ignores it, so its value is silently lost.
type Miss struct {
	Loc  []string // where the member sits, relative to the value
	Key  string   // the member as sent
	Want string   // the defined member it most likely stands for
}

// Bounds of the near-miss walk, so that its cost stays proportional to a
// small part of the value whatever its size.
const (
	missDepth    = 24   // nesting followed
	missNodes    = 4096 // objects and arrays visited per value
	missElements = 256  // elements visited per array
	missBranches = 8    // untagged union alternatives tried by validation
)

// NearMisses walks a value that the schema accepts and returns the members
// of its objects that the schema does not define but that are near misses
// of members it does. Objects whose schema lists no members, or takes any
// member by a schema (maps such as _meta), are not judged.
func (s *Schema) NearMisses(v any) []Miss {
	if s == nil {
		return nil
	}
	w := &missWalk{budget: missNodes}
	w.walk([]*jsonschema.Schema{s.s}, v, nil, 0)
	return w.out
}

type missWalk struct {
	out    []Miss
	budget int
}

func (w *missWalk) walk(schemas []*jsonschema.Schema, v any, loc []string, depth int) {
	if depth > missDepth || w.budget <= 0 || len(schemas) == 0 {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		w.budget--
		sh := shape{props: map[string][]*jsonschema.Schema{}}
		for _, sch := range schemas {
			sh.add(sch, v, 0)
		}
		if len(sh.props) > 0 && !sh.anyMember {
			names := make([]string, 0, len(sh.props))
			for k := range sh.props {
				names = append(names, k)
			}
			for k := range v {
				if _, known := sh.props[k]; known || len(k) == 0 || k[0] == '_' || sh.patterned(k) {
					continue
				}
				if want := suggest.Misspelt(k, names); want != "" {
					if _, both := v[want]; !both {
						w.out = append(w.out, Miss{Loc: append(append([]string(nil), loc...), k), Key: k, Want: want})
					}
				}
			}
		}
		for k, child := range v {
			if subs := sh.props[k]; len(subs) > 0 {
				w.walk(subs, child, append(loc, k), depth+1)
			}
		}
	case []any:
		w.budget--
		var items []*jsonschema.Schema
		for _, sch := range schemas {
			items = append(items, itemSchemas(sch, 0)...)
		}
		for i, el := range v {
			if i >= missElements {
				break
			}
			w.walk(items, el, append(loc, itoa(i)), depth+1)
		}
	}
}

// shape is what the schemas that apply to one object say about its
// members.
type shape struct {
	props     map[string][]*jsonschema.Schema
	patterns  []jsonschema.Regexp
	anyMember bool // additionalProperties is a schema: a map, not a record
}

func (sh *shape) patterned(k string) bool {
	for _, re := range sh.patterns {
		if re.MatchString(k) {
			return true
		}
	}
	return false
}

// add folds in what sch says about the members of v, following $ref and
// allOf, and the alternatives of oneOf and anyOf that v matches (by their
// const tags, else by validating).
func (sh *shape) add(sch *jsonschema.Schema, v map[string]any, depth int) {
	if sch == nil || depth > missDepth {
		return
	}
	for k, p := range sch.Properties {
		sh.props[k] = append(sh.props[k], p)
	}
	for re := range sch.PatternProperties {
		sh.patterns = append(sh.patterns, re)
	}
	if _, isSchema := sch.AdditionalProperties.(*jsonschema.Schema); isSchema {
		sh.anyMember = true
	}
	sh.add(sch.Ref, v, depth+1)
	for _, a := range sch.AllOf {
		sh.add(a, v, depth+1)
	}
	for _, alts := range [][]*jsonschema.Schema{sch.OneOf, sch.AnyOf} {
		for _, a := range matching(alts, v) {
			sh.add(a, v, depth+1)
		}
	}
}

// matching returns the alternatives of a union that v takes: those whose
// const-valued members all match v's (a tagged union), else, for a small
// untagged union, those v validates against.
func matching(alts []*jsonschema.Schema, v map[string]any) []*jsonschema.Schema {
	if len(alts) == 0 {
		return nil
	}
	var tagged, out []*jsonschema.Schema
	anyTag := false
	for _, a := range alts {
		consts := constMembers(a, 0)
		if len(consts) == 0 {
			continue
		}
		anyTag = true
		ok := true
		for k, c := range consts {
			if got, has := v[k]; !has || !JSONEqual(got, c) {
				ok = false
				break
			}
		}
		if ok {
			tagged = append(tagged, a)
		}
	}
	if anyTag {
		return tagged
	}
	// Alternatives that cannot be objects (the null of a nullable
	// member) are out; one left is the one.
	var objs []*jsonschema.Schema
	for _, a := range alts {
		if mayBeObject(a, 0) {
			objs = append(objs, a)
		}
	}
	if len(objs) <= 1 {
		return objs
	}
	if len(objs) > missBranches {
		return nil
	}
	for _, a := range objs {
		if a.Validate(v) == nil {
			out = append(out, a)
		}
	}
	return out
}

// mayBeObject reports whether an alternative admits objects, by its type
// (following $ref).
func mayBeObject(sch *jsonschema.Schema, depth int) bool {
	if sch == nil || depth > 8 {
		return true
	}
	if sch.Types != nil && !sch.Types.IsEmpty() {
		for _, t := range sch.Types.ToStrings() {
			if t == "object" {
				return true
			}
		}
		return false
	}
	if sch.Const != nil {
		_, ok := (*sch.Const).(map[string]any)
		return ok
	}
	return mayBeObject(sch.Ref, depth+1)
}

// constMembers returns the members whose value an alternative fixes with
// const (following $ref and allOf).
func constMembers(sch *jsonschema.Schema, depth int) map[string]any {
	if sch == nil || depth > 8 {
		return nil
	}
	out := map[string]any{}
	for k, p := range sch.Properties {
		if p != nil && p.Const != nil {
			out[k] = *p.Const
		}
	}
	for k, c := range constMembers(sch.Ref, depth+1) {
		out[k] = c
	}
	for _, a := range sch.AllOf {
		for k, c := range constMembers(a, depth+1) {
			out[k] = c
		}
	}
	return out
}

// itemSchemas returns the schemas of an array's elements.
func itemSchemas(sch *jsonschema.Schema, depth int) []*jsonschema.Schema {
	if sch == nil || depth > missDepth {
		return nil
	}
	var out []*jsonschema.Schema
	if sch.Items2020 != nil {
		out = append(out, sch.Items2020)
	}
	if it, ok := sch.Items.(*jsonschema.Schema); ok {
		out = append(out, it)
	}
	out = append(out, itemSchemas(sch.Ref, depth+1)...)
	for _, a := range sch.AllOf {
		out = append(out, itemSchemas(a, depth+1)...)
	}
	for _, a := range sch.AnyOf {
		out = append(out, itemSchemas(a, depth+1)...)
	}
	for _, a := range sch.OneOf {
		out = append(out, itemSchemas(a, depth+1)...)
	}
	return out
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
