// Package load reads JSON Schema files (draft 2020-12 and draft-07) into a
// tree of Schema values and resolves $ref and $id between them, from the
// given files, from local files they name, and from extra offline sources
// such as agentproto's embedded schemas. Nothing is fetched from the
// network.
package load

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/agentproto/agentproto/pkg/wire"
)

// Loc is where a schema sits: a file (as the user named it) and a JSON
// pointer into it.
type Loc struct {
	File    string
	Pointer string
}

func (l Loc) String() string { return l.File + "#" + l.Pointer }

// Child returns the location of a sub-schema at the given pointer tokens.
func (l Loc) Child(tokens ...string) Loc {
	p := l.Pointer
	for _, t := range tokens {
		p += "/" + wire.EscapePointer(t)
	}
	return Loc{File: l.File, Pointer: p}
}

// Errorf returns an error that names the location first, the way every
// generator error does: file.json#/json/pointer: message.
func (l Loc) Errorf(format string, args ...any) error {
	return &Error{Loc: l, Msg: fmt.Sprintf(format, args...)}
}

// Error is a schema error at a location.
type Error struct {
	Loc Loc
	Msg string
}

func (e *Error) Error() string { return e.Loc.String() + ": " + e.Msg }

// Dependency is one dependentRequired entry: when Member is present, the
// Requires members must be too.
type Dependency struct {
	Member   string
	Requires []string
}

// Property is a named sub-schema, in document order.
type Property struct {
	Name   string
	Schema *Schema
}

// Schema is one JSON Schema (or sub-schema) with the keywords the generator
// understands. Keywords it does not understand are listed in Unknown.
type Schema struct {
	Loc  Loc
	Doc  *Doc // the document (resource) the schema belongs to
	Base string
	Bool *bool // for the schemas true and false

	ID  string
	Ref string
	// Target is the schema Ref names; Loader.Graph sets it on every schema
	// with a $ref.
	Target *Schema
	// Pre2019 is set for the drafts before 2019-09 (04 to 07), where a
	// $ref replaces its siblings and an items array is followed by
	// additionalItems; Draft4 for draft-04, where the id keyword is "id" and
	// exclusiveMinimum and exclusiveMaximum are booleans.
	Pre2019              bool
	Draft4               bool
	Type                 []string
	Title                string
	Description          string
	GoName               string // x-go-name
	Method               string // x-method: the JSON-RPC method a schema is the params or result of
	Format               string
	Properties           []Property
	Required             []string
	AdditionalProperties *Schema
	PatternProperties    []Property
	PropertyNames        *Schema
	Items                *Schema
	PrefixItems          []*Schema
	Enum                 []any
	Const                any
	HasConst             bool
	OneOf, AnyOf, AllOf  []*Schema
	Not                  *Schema
	If, Then, Else       *Schema
	Discriminator        string
	Defs                 []Property

	Minimum, Maximum, ExclusiveMinimum, ExclusiveMaximum                   *json.Number
	MultipleOf                                                             *json.Number
	MinLength, MaxLength, MinItems, MaxItems, MinProperties, MaxProperties *uint64
	Pattern                                                                string
	UniqueItems                                                            bool
	// DependentRequired lists, per member, the members required when it
	// is present (dependentRequired; it is also listed in Unknown, so a
	// caller that does not model it knows).
	DependentRequired []Dependency
	Default           any
	HasDefault        bool

	// Keywords holds every keyword present, so callers can ask for ones
	// this struct does not model.
	Keywords []string
	// Unknown lists keywords that change what is valid but that the
	// generator does not model (for example dependentRequired).
	Unknown []string
}

// Has reports whether the keyword is present.
func (s *Schema) Has(kw string) bool {
	for _, k := range s.Keywords {
		if k == kw {
			return true
		}
	}
	return false
}

// IsNullable reports whether the schema's own type list includes "null".
func (s *Schema) HasType(t string) bool {
	for _, x := range s.Type {
		if x == t {
			return true
		}
	}
	return false
}

// PropertyNamed returns the property with the given name, or nil.
func (s *Schema) PropertyNamed(name string) *Schema {
	for _, p := range s.Properties {
		if p.Name == name {
			return p.Schema
		}
	}
	return nil
}

// IsRequired reports whether name is in the schema's required list.
func (s *Schema) IsRequired(name string) bool {
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
}

// validity keywords the generator does not model; they are listed on the
// schema so that a caller can refuse or document them.
var unmodelled = map[string]bool{
	"dependentRequired": true, "dependentSchemas": true, "dependencies": true, "propertyNames": true,
	"contains": true, "minContains": true, "maxContains": true, "unevaluatedProperties": true,
	"unevaluatedItems": true, "$dynamicRef": true, "$recursiveRef": true,
	"contentSchema": true,
}

// draft is the JSON Schema draft a schema is read as, inherited by its
// sub-schemas unless one names its own $schema.
type draft uint8

const (
	draftModern draft = iota // 2019-09 and 2020-12 (and no $schema)
	draft07                  // drafts 06 and 07
	draft04
)

func draftOf(s *Schema) draft {
	switch {
	case s.Draft4:
		return draft04
	case s.Pre2019:
		return draft07
	}
	return draftModern
}

func (d *Doc) parse(v any, loc Loc, base string, dr draft) (*Schema, error) {
	s := &Schema{Loc: loc, Doc: d, Base: base, Pre2019: dr >= draft07, Draft4: dr == draft04}
	switch t := v.(type) {
	case bool:
		s.Bool = &t
		d.index(s)
		return s, nil
	case *object:
		return s, d.parseObject(s, t)
	default:
		return nil, loc.Errorf("a schema must be an object or a boolean, not %s", describe(v))
	}
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	case bool:
		return "a boolean"
	}
	return "an object"
}

// readDependencies appends to s.DependentRequired the members an object
// of arrays of member names (v, at loc) requires. With schemasToo, a
// member whose value is not an array (a schema) is passed over and
// reported; otherwise it is the error msg.
func (s *Schema) readDependencies(v any, loc Loc, msg string, schemasToo bool) (schemas bool, err error) {
	do, ok := v.(*object)
	if !ok {
		return false, loc.Errorf("%s", msg)
	}
	for _, m := range do.Keys() {
		mv, _ := do.Get(m)
		arr, ok := mv.([]any)
		if !ok {
			if !schemasToo {
				return false, loc.Child(m).Errorf("%s", msg)
			}
			schemas = true
			continue
		}
		dep := Dependency{Member: m}
		for _, e := range arr {
			x, ok := e.(string)
			if !ok {
				return false, loc.Child(m).Errorf("%s", msg)
			}
			dep.Requires = append(dep.Requires, x)
		}
		s.DependentRequired = append(s.DependentRequired, dep)
	}
	return schemas, nil
}

func (d *Doc) parseObject(s *Schema, o *object) error {
	r := &objectReader{d: d, s: s, o: o, loc: s.Loc}
	s.Keywords = append([]string(nil), o.Keys()...)
	r.readDraft()
	if err := r.readID(); err != nil {
		return err
	}
	if err := r.readAnchor(); err != nil {
		return err
	}
	d.index(s)
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		if err := r.keyword(k, v); err != nil {
			return err
		}
	}
	r.finish()
	sort.Strings(s.Unknown)
	return nil
}
