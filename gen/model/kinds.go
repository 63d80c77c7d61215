package model

import (
	"encoding/json"

	"github.com/agentproto/agentproto/gen/load"
)

// kindOf is the single JSON type of a variant, or "": its type keyword,
// else what its members, const or enum values say, else the one type all
// the alternatives of its oneOf or anyOf (or the schema its $ref names)
// share. A union whose alternatives differ in that type is decided from
// the value's first byte.
func kindOf(s *load.Schema) string {
	return kindDepth(s, 0)
}

func kindDepth(s *load.Schema, depth int) string {
	if s == nil || depth > 16 {
		return ""
	}
	switch {
	case len(s.Type) == 1:
		return s.Type[0]
	case len(s.Type) > 1:
		return ""
	case len(s.Properties) > 0 || len(s.Required) > 0:
		return "object"
	case len(s.PrefixItems) > 0:
		return "array"
	case s.HasConst:
		return valueKind(s.Const)
	case len(s.Enum) > 0:
		k := valueKind(s.Enum[0])
		for _, v := range s.Enum[1:] {
			if valueKind(v) != k {
				return ""
			}
		}
		return k
	}
	if s.Ref != "" {
		if k := kindDepth(s.Target, depth+1); k != "" {
			return k
		}
	}
	for _, alts := range [][]*load.Schema{s.OneOf, s.AnyOf} {
		if len(alts) == 0 {
			continue
		}
		k := kindDepth(alts[0], depth+1)
		for _, a := range alts[1:] {
			if kindDepth(a, depth+1) != k {
				return ""
			}
		}
		if k != "" {
			return k
		}
	}
	for _, a := range s.AllOf {
		if k := kindDepth(a, depth+1); k != "" {
			return k
		}
	}
	if len(s.AllOf) > 0 {
		return "object"
	}
	return ""
}

// valueKind is the JSON type of a schema literal (const or enum value).
func valueKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}
