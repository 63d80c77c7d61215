package model

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/agentproto/agentproto/gen/load"
)

// fillEnum makes a string or integer enum.
func (b *builder) fillEnum(t *Type, s *load.Schema) error {
	e := &EnumType{}
	vals, openAlt := enumValues(t, e, s)
	kind, mixed := enumKind(vals)
	if mixed {
		var values []any
		for _, v := range vals {
			values = append(values, v.v)
		}
		alts := mixedEnum(s, values, e.Open)
		if e.Open {
			alts = withOpen(alts, openAlt)
		}
		if alts != nil {
			return b.fillUnion(t, &load.Schema{Loc: s.Loc, Doc: s.Doc, Base: s.Base, Title: s.Title, Description: s.Description, OneOf: alts})
		}
		return s.Loc.Errorf("enum values must be strings, integers, booleans or null (values of several of these types become a union); write objects, arrays and numbers with a fraction as a oneOf of separate schemas")
	}
	e.Base = enumBase(e, s, kind, vals)
	e.Values = enumConsts(t, vals)
	t.Kind, t.Enum = Enum, e
	return nil
}

// enumVal is a value an enum lists, with the doc and name its schema
// gives it.
type enumVal struct {
	v    any
	doc  string
	name string
}

// enumValues returns the values the enum s lists: its enum, or the
// consts and enums of its alternatives. An alternative that is no value
// list makes the enum open (it is returned as openAlt).
func enumValues(t *Type, e *EnumType, s *load.Schema) (vals []enumVal, openAlt *load.Schema) {
	if len(s.Enum) > 0 {
		for _, v := range s.Enum {
			vals = append(vals, enumVal{v: v})
		}
		return vals, nil
	}
	alts := s.OneOf
	if len(alts) == 0 {
		alts = s.AnyOf
	}
	for _, a := range alts {
		switch {
		case a.HasConst:
			vals = append(vals, enumVal{v: a.Const, doc: a.Description, name: a.Title})
		case len(a.Enum) > 0:
			for _, v := range a.Enum {
				vals = append(vals, enumVal{v: v, doc: a.Description})
			}
		case e.Open:
			// Several free alternatives: a value needs only one.
			t.Unchecked = append(t.Unchecked, "anyOf of several open alternatives")
			e.OpenCheck = Constraints{}
		default:
			openAlt = a
			openAlternative(t, e, a)
		}
	}
	return vals, openAlt
}

// openAlternative makes the enum e open to the values its alternative a
// takes: a value the enum does not list must be valid against a, whose
// constraints are checked then.
func openAlternative(t *Type, e *EnumType, a *load.Schema) {
	e.Open = true
	e.OpenDoc = a.Description
	e.OpenCheck = constraints(a)
	t.Unchecked = append(t.Unchecked, unchecked(a)...)
	if a.Ref != "" || len(a.AllOf)+len(a.AnyOf)+len(a.OneOf) > 0 {
		t.Unchecked = append(t.Unchecked, "an open alternative made of other schemas")
	}
	if a.Pattern != "" && !PatternOK(a.Pattern) {
		t.Unchecked = append(t.Unchecked, "pattern")
	}
	if f := e.OpenCheck.Format; f != "" && CheckedFormats[f] == "" {
		t.Unchecked = append(t.Unchecked, "format "+f)
	}
}

// enumKind returns the kind of the enum's values, string or integer;
// mixed is set when they are of several kinds, or of another.
func enumKind(vals []enumVal) (kind string, mixed bool) {
	for _, v := range vals {
		k := "other"
		switch x := v.v.(type) {
		case string:
			k = "string"
		case json.Number:
			if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
				k = "integer"
			}
		}
		if kind == "" {
			kind = k
		}
		if k != kind || k == "other" {
			return kind, true
		}
	}
	return kind, false
}

// enumBase is the Go type of the enum's values: string, or the integer
// type its formats name or its values fit.
func enumBase(e *EnumType, s *load.Schema, kind string, vals []enumVal) *Ref {
	if kind == "string" {
		return &Ref{Kind: Builtin, Builtin: "string"}
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, v := range vals {
		n, _ := strconv.ParseInt(string(v.v.(json.Number)), 10, 64)
		lo, hi = min(lo, n), max(hi, n)
	}
	it := "int64"
	if e.Open && len(s.AnyOf) > 0 {
		if f := s.AnyOf[len(s.AnyOf)-1].Format; f != "" {
			if g, ok := formatInts[f]; ok {
				it = g
			}
		}
	} else if lo >= math.MinInt32 && hi <= math.MaxInt32 {
		it = "int32"
	}
	for _, a := range append(s.AnyOf, s.OneOf...) {
		if g, ok := formatInts[a.Format]; ok {
			it = g
		}
	}
	return &Ref{Kind: Builtin, Builtin: it}
}

// enumConsts names a constant for each value of the enum t; a value
// listed twice is one constant.
func enumConsts(t *Type, vals []enumVal) []*EnumValue {
	var out []*EnumValue
	consts := newNamer(t.Name)
	seenValues := map[string]bool{}
	for _, v := range vals {
		var lit, suffix string
		switch x := v.v.(type) {
		case string:
			lit, suffix = strconv.Quote(x), x
		case json.Number:
			lit, suffix = string(x), codeName(string(x))
		}
		if v.name != "" {
			suffix = v.name
		}
		raw, _ := json.Marshal(v.v)
		if seenValues[string(raw)] {
			continue
		}
		seenValues[string(raw)] = true
		name := consts.take(t.Name + GoName(suffix))
		out = append(out, &EnumValue{Name: name, Go: lit, JSON: string(raw), Doc: v.doc})
	}
	return out
}

// EnumType is a string or integer enum.
type EnumType struct {
	Base   *Ref // string or an integer builtin
	Values []*EnumValue
	// Open enums accept values they do not list, if those are valid
	// against OpenCheck (the free alternative's constraints).
	Open      bool
	OpenDoc   string
	OpenCheck Constraints
}

// EnumValue is one constant.
type EnumValue struct {
	Name string // Go constant name
	Go   string // Go literal
	JSON string // JSON literal
	Doc  string
}

// mixedEnum splits the values of an enum that mixes JSON types
// ([true, false, "auto"], ["success", null]) into one alternative per
// type, each an enum (or const) of its own values: the enum is then a
// union decided by the value's type, each variant checking its values. It
// returns nil when a value is an object or an array, or when the values
// are all of one type, or some are numbers that are not integers (which
// no enum type holds).
//
// With open set (the enum has an alternative that lists no values, which
// withOpen joins), values of one type are split too: [false] beside a
// string schema is a boolean variant.
func mixedEnum(s *load.Schema, values []any, open bool) []*load.Schema {
	byKind := map[string][]any{}
	for _, v := range values {
		k := valueKind(v)
		if k == "number" {
			if _, err := strconv.ParseInt(string(v.(json.Number)), 10, 64); err == nil {
				k = "integer"
			}
		}
		if k == "" || k == "object" || k == "array" {
			return nil
		}
		byKind[k] = append(byKind[k], v)
	}
	if byKind["number"] != nil {
		// An enum of numbers that are not all integers is not a type of
		// its own (yet).
		return nil
	}
	if len(byKind) < 2 && !open {
		return nil
	}
	var alts []*load.Schema
	for _, k := range jsonKinds {
		vs := byKind[k]
		if vs == nil {
			continue
		}
		a := &load.Schema{Loc: s.Loc.Child("enum"), Doc: s.Doc, Base: s.Base, Type: []string{k}}
		switch {
		case k == "null":
		case k == "boolean" && len(vs) == 2 && vs[0] != vs[1]:
		case len(vs) == 1:
			a.Const, a.HasConst = vs[0], true
		default:
			a.Enum = vs
		}
		alts = append(alts, a)
	}
	return alts
}

// withOpen joins to the alternatives of a mixed enum (one per JSON type)
// the one alternative of its anyOf that lists no values, such as
// webpack's devtool, anyOf [{"enum": [false, "eval"]}, {"type": "string",
// "pattern": ...}]: the values of its type and it become an enum open to
// what it allows; of another type, it is an alternative of its own. It
// returns nil when alts is nil or open has not exactly one type.
func withOpen(alts []*load.Schema, open *load.Schema) []*load.Schema {
	if alts == nil || open == nil || len(open.Type) != 1 {
		return nil
	}
	kind := open.Type[0]
	out := make([]*load.Schema, 0, len(alts)+1)
	joined := false
	for _, a := range alts {
		if a.Type[0] == kind {
			vals := &load.Schema{Loc: a.Loc, Doc: a.Doc, Base: a.Base, Enum: a.Enum}
			if a.HasConst {
				vals.Enum = []any{a.Const}
			}
			a = &load.Schema{Loc: a.Loc, Doc: a.Doc, Base: a.Base, Type: a.Type, AnyOf: []*load.Schema{vals, open}}
			joined = true
		}
		out = append(out, a)
	}
	if !joined {
		out = append(out, open)
	}
	return out
}
