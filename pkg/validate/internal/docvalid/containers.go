// ValidateDoc's keywords for objects and arrays: properties,
// patternProperties, additionalProperties, required, dependentRequired,
// dependentSchemas, propertyNames, sizes, items, prefixItems and
// uniqueItems.

package docvalid

import (
	"encoding/json"
	"sort"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/agentproto/agentproto/internal/jsonscan"
)

func (v *docValidator) object(s *jsonschema.Schema, i int, loc []string, vid int, quiet bool, el *errList) {
	d := v.d
	n := 0
	if s.MinProperties != nil || s.MaxProperties != nil {
		d.MemberBytes(i, func([]byte, int) bool { n++; return true })
	}
	if s.MinProperties != nil && n < *s.MinProperties {
		if !el.mark() {
			el.addKind(&kind.MinProperties{Got: n, Want: *s.MinProperties})
		}
	}
	if s.MaxProperties != nil && n > *s.MaxProperties {
		if !el.mark() {
			el.addKind(&kind.MaxProperties{Got: n, Want: *s.MaxProperties})
		}
	}
	if len(s.Required) > 0 {
		if v.anyMissing(i, s.Required) && !el.mark() {
			el.addKind(&kind.Required{Missing: v.missing(i, s.Required)})
		}
	}
	if el.stop() {
		return
	}
	var additional []string
	d.MemberBytes(i, func(key []byte, m int) bool {
		if el.stop() {
			return false
		}
		sch, evaluated := s.Properties[string(key)]
		if s.AdditionalProperties == nil && len(s.PatternProperties) == 0 && (quiet || !evaluated) {
			// Neither a verdict nor a member the schema leaves alone
			// needs the member's name.
			if evaluated {
				el.add(v.validate(sch, m, loc, vid+1, true))
			}
			return true
		}
		name := string(key)
		if evaluated {
			el.add(v.val(sch, m, loc, name, vid, quiet))
		}
		if len(s.PatternProperties) > 0 {
			for _, re := range patterns(s) {
				if re.MatchString(name) {
					evaluated = true
					el.add(v.val(s.PatternProperties[re], m, loc, name, vid, quiet))
				}
			}
		}
		if !evaluated && s.AdditionalProperties != nil {
			switch a := s.AdditionalProperties.(type) {
			case bool:
				if !a {
					additional = append(additional, name)
				}
			case *jsonschema.Schema:
				el.add(v.val(a, m, loc, name, vid, quiet))
			}
		}
		return true
	})
	if el.stop() {
		return
	}
	if len(additional) > 0 {
		if !el.mark() {
			el.addKind(&kind.AdditionalProperties{Properties: additional})
		}
	}
	if s.PropertyNames != nil {
		d.Members(i, func(name string, _ int) bool {
			if el.stop() {
				return false
			}
			el.add(v.propertyName(s.PropertyNames, name, loc, quiet))
			return true
		})
	}
	if len(s.DependentSchemas) > 0 {
		for _, name := range sortedKeys(s.DependentSchemas) {
			if d.Member(i, name) >= 0 {
				el.add(v.self(s.DependentSchemas[name], i, loc, vid, quiet))
			}
		}
	}
	if len(s.DependentRequired) > 0 {
		for _, name := range sortedKeys(s.DependentRequired) {
			if d.Member(i, name) >= 0 {
				if missing := v.missing(i, s.DependentRequired[name]); missing != nil {
					if !el.mark() {
						el.addKind(&kind.DependentRequired{Prop: name, Missing: missing})
					}
				}
			}
		}
	}
}

// propertyName is v6's check of a member name against propertyNames: the
// name validated as a value of its own, its failure reported at the
// object.
func (v *docValidator) propertyName(s *jsonschema.Schema, name string, loc []string, quiet bool) *jsonschema.ValidationError {
	text, err := json.Marshal(name)
	if err != nil {
		v.unsupported = true
		return failed
	}
	var a jsonscan.Arena
	doc, err := a.Parse(text, 1)
	if err != nil {
		v.unsupported = true
		return failed
	}
	// The name's failures have locations of their own (v6 keeps them
	// relative to the name), read at their own depths.
	sub := docValidator{d: &doc, limit: -1, shallow: v.shallow}
	e := sub.validate(s, doc.Root(), nil, 0, quiet)
	if sub.unsupported {
		v.unsupported = true
		return failed
	}
	if e == nil {
		return nil
	}
	if quiet {
		return failed
	}
	causes := []*jsonschema.ValidationError{e}
	if _, group := e.ErrorKind.(*kind.Group); group {
		causes = e.Causes
	}
	return v.nodeAt(s.Location, loc, &kind.PropertyNames{Property: name}, causes)
}

// patterns lists a schema's patternProperties in the order of their
// source text, so that a member several match is reported the same way
// on every run.
func patterns(s *jsonschema.Schema) []jsonschema.Regexp {
	out := make([]jsonschema.Regexp, 0, len(s.PatternProperties))
	for re := range s.PatternProperties {
		out = append(out, re)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].String() < out[b].String() })
	return out
}

func sortedKeys[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// anyMissing reports whether any of names is not a member of object i.
func (v *docValidator) anyMissing(i int, names []string) bool {
	for _, n := range names {
		if v.d.Member(i, n) < 0 {
			return true
		}
	}
	return false
}

func (v *docValidator) missing(i int, names []string) []string {
	var out []string
	for _, n := range names {
		if v.d.Member(i, n) < 0 {
			out = append(out, n)
		}
	}
	return out
}

func (v *docValidator) array(s *jsonschema.Schema, i int, loc []string, vid int, quiet bool, el *errList) {
	d := v.d
	var elems []int
	d.Elements(i, func(e int) bool { elems = append(elems, e); return true })
	if s.MinItems != nil && len(elems) < *s.MinItems {
		if !el.mark() {
			el.addKind(&kind.MinItems{Got: len(elems), Want: *s.MinItems})
		}
	}
	if s.MaxItems != nil && len(elems) > *s.MaxItems {
		if !el.mark() {
			el.addKind(&kind.MaxItems{Got: len(elems), Want: *s.MaxItems})
		}
	}
	if s.UniqueItems && len(elems) > 1 {
		seen := make(map[string]int, len(elems))
		for k, e := range elems {
			v.readTree(e)
			key := canonical(d.Value(e))
			if j, dup := seen[key]; dup {
				if !el.mark() {
					el.addKind(&kind.UniqueItems{Duplicates: [2]int{j, k}})
				}
				break
			}
			seen[key] = k
		}
	}
	evaluated := min(len(s.PrefixItems), len(elems))
	for k := 0; k < evaluated && !el.stop(); k++ {
		el.add(v.val(s.PrefixItems[k], elems[k], loc, strconv.Itoa(k), vid, quiet))
	}
	if s.Items2020 != nil {
		for k := evaluated; k < len(elems) && !el.stop(); k++ {
			el.add(v.val(s.Items2020, elems[k], loc, strconv.Itoa(k), vid, quiet))
		}
	}
}
