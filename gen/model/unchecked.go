package model

import (
	"github.com/agentproto/agentproto/gen/load"
)

// walkMerged calls visit on s and on every schema it merges through allOf
// and $ref.
func (b *builder) walkMerged(s *load.Schema, seen map[*load.Schema]bool, visit func(*load.Schema)) {
	if seen[s] {
		return
	}
	seen[s] = true
	visit(s)
	if s.Ref != "" {
		if t, err := target(s); err == nil {
			b.walkMerged(t, seen, visit)
		}
	}
	for _, a := range s.AllOf {
		b.walkMerged(a, seen, visit)
	}
}

// mergedUnchecked lists the unchecked constraints of the schemas an object
// merges through allOf and $ref.
func (b *builder) mergedUnchecked(s *load.Schema, seen map[*load.Schema]bool) []string {
	if seen[s] {
		return nil
	}
	seen[s] = true
	var out []string
	if s.Ref != "" {
		if t, err := target(s); err == nil {
			out = append(out, unchecked(t)...)
			out = append(out, b.mergedUnchecked(t, seen)...)
		}
	}
	for _, a := range s.AllOf {
		out = append(out, unchecked(a)...)
		out = append(out, b.mergedUnchecked(a, seen)...)
	}
	return out
}

func unchecked(s *load.Schema) []string {
	out := append([]string(nil), s.Unknown...)
	if len(s.PatternProperties) > 0 && !(s.AdditionalProperties != nil && s.AdditionalProperties.Bool != nil && !*s.AdditionalProperties.Bool) {
		// In an open object, members matching a pattern are kept raw and
		// their schemas are not checked. (A closed object checks the names;
		// see fillStructSkip.)
		for _, pp := range s.PatternProperties {
			if structural(pp.Schema) || pp.Schema.Ref != "" {
				out = append(out, "patternProperties")
				break
			}
		}
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Bool == nil && len(s.Properties) > 0 {
		out = append(out, "additionalProperties")
	}
	if (s.MinProperties != nil || s.MaxProperties != nil) && len(s.Properties) > 0 {
		out = append(out, "minProperties/maxProperties")
	}
	if (len(s.Enum) > 0 || s.HasConst) && !s.HasType("string") && !s.HasType("integer") && !s.HasType("boolean") && len(s.Type) > 0 {
		out = append(out, "enum/const on a structured value")
	}
	if s.If != nil {
		out = append(out, "if")
	}
	if s.Not != nil && notValues(s) == nil {
		out = append(out, "not")
	}
	if s.UniqueItems && !(s.HasType("array") && (len(s.Type) == 1 || len(s.Type) == 2 && s.HasType("null"))) {
		// An array becomes a slice, whose uniqueItems Validate checks.
		out = append(out, "uniqueItems")
	}
	return out
}

// uniqueCheckable reports whether Validate checks the schema's uniqueItems:
// its elements are strings, numbers, integers or booleans (never null),
// which Go compares as JSON does.
func uniqueCheckable(s *load.Schema) bool {
	it := s.Items
	if it == nil || it.Ref != "" || len(it.Type) != 1 || len(it.AllOf)+len(it.AnyOf)+len(it.OneOf) > 0 || len(s.Type) != 1 || s.Type[0] != "array" {
		return false
	}
	switch it.Type[0] {
	case "string", "number", "integer", "boolean":
		return true
	}
	return false
}

// dropUnchecked takes one occurrence of label off the type's unchecked
// list: Validate now checks it.
func dropUnchecked(t *Type, label string) {
	for i, u := range t.Unchecked {
		if u == label {
			t.Unchecked = append(t.Unchecked[:i:i], t.Unchecked[i+1:]...)
			return
		}
	}
}
