// Package load reads JSON Schema files (draft 2020-12 and draft-07) into a
// tree of Schema values and resolves $ref and $id between them, from the
// given files, from local files they name, and from extra offline sources
// such as agentproto's embedded schemas. Nothing is fetched from the
// network.
package load

import (
	"encoding/json"
	"fmt"
	"go/token"
	"slices"
	"sort"
	"strconv"
	"strings"

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
	// Draft7 is set for drafts 04 to 07, where a $ref replaces its
	// siblings; Draft4 for draft-04, where the id keyword is "id" and
	// exclusiveMinimum and exclusiveMaximum are booleans.
	Draft7               bool
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
	case s.Draft7:
		return draft07
	}
	return draftModern
}

func (d *Doc) parse(v any, loc Loc, base string, dr draft) (*Schema, error) {
	s := &Schema{Loc: loc, Doc: d, Base: base, Draft7: dr >= draft07, Draft4: dr == draft04}
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
	loc := s.Loc
	s.Keywords = append([]string(nil), o.Keys()...)
	str := func(k string) (string, error) {
		v, _ := o.Get(k)
		x, ok := v.(string)
		if !ok {
			return "", loc.Child(k).Errorf("%s must be a string, not %s", k, describe(v))
		}
		return x, nil
	}
	if v, ok := o.Get("$schema"); ok {
		x, _ := v.(string)
		s.Draft7 = strings.Contains(x, "draft-07") || strings.Contains(x, "draft-06") || strings.Contains(x, "draft-04") || strings.Contains(x, "draft-03")
		s.Draft4 = strings.Contains(x, "draft-04") || strings.Contains(x, "draft-03")
	}
	idKey := "$id"
	if _, ok := o.Get("$id"); !ok && s.Draft4 {
		// Draft-04 names the keyword "id"; a non-string "id" is left
		// alone (a schema may well describe a member of that name).
		if v, ok := o.Get("id"); ok {
			if _, isStr := v.(string); isStr {
				idKey = "id"
			}
		}
	}
	if _, ok := o.Get(idKey); ok {
		id, err := str(idKey)
		if err != nil {
			return err
		}
		abs, err := resolveURI(s.Base, id)
		if err != nil {
			return loc.Child(idKey).Errorf("%v", err)
		}
		s.ID = abs
		s.Base = stripFragment(abs)
	}
	if v, ok := o.Get("$anchor"); ok {
		name, isStr := v.(string)
		if !isStr || name == "" {
			return loc.Child("$anchor").Errorf("$anchor must be a non-empty string")
		}
		d.loader.anchors[stripFragment(s.Base)+"#"+name] = s
	}
	d.index(s)
	sub := func(k string, tokens ...string) (*Schema, error) {
		v, _ := o.Get(k)
		for _, t := range tokens[1:] {
			v, _ = v.(*object).Get(t)
		}
		return d.parse(v, loc.Child(tokens...), s.Base, draftOf(s))
	}
	subList := func(k string) ([]*Schema, error) {
		val, _ := o.Get(k)
		arr, ok := val.([]any)
		if !ok {
			return nil, loc.Child(k).Errorf("%s must be an array of schemas", k)
		}
		out := make([]*Schema, len(arr))
		for i, e := range arr {
			c, err := d.parse(e, loc.Child(k, strconv.Itoa(i)), s.Base, draftOf(s))
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	subMap := func(k string) ([]Property, error) {
		val, _ := o.Get(k)
		m, ok := val.(*object)
		if !ok {
			return nil, loc.Child(k).Errorf("%s must be an object of schemas", k)
		}
		out := make([]Property, 0, m.Len())
		for _, name := range m.Keys() {
			mv, _ := m.Get(name)
			c, err := d.parse(mv, loc.Child(k, name), s.Base, draftOf(s))
			if err != nil {
				return nil, err
			}
			out = append(out, Property{Name: name, Schema: c})
		}
		return out, nil
	}
	num := func(k string) (*json.Number, error) {
		val, _ := o.Get(k)
		n, ok := val.(json.Number)
		if !ok {
			return nil, loc.Child(k).Errorf("%s must be a number", k)
		}
		return &n, nil
	}
	count := func(k string) (*uint64, error) {
		val, _ := o.Get(k)
		n, ok := val.(json.Number)
		u, err := strconv.ParseUint(string(n), 10, 64)
		if !ok || err != nil {
			return nil, loc.Child(k).Errorf("%s must be a non-negative integer", k)
		}
		return &u, nil
	}
	var err error
	itemsArray, additional := false, (*Schema)(nil)
	// Draft-04's boolean exclusive bounds make minimum or maximum
	// exclusive; they are read after the loop, once both are known.
	exclMin, exclMax := false, false
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		switch k {
		case "$ref":
			s.Ref, err = str(k)
		case "type":
			switch t := v.(type) {
			case string:
				s.Type = []string{t}
			case []any:
				for _, e := range t {
					x, ok := e.(string)
					if !ok {
						return loc.Child(k).Errorf("type must be a string or an array of strings")
					}
					s.Type = append(s.Type, x)
				}
			default:
				return loc.Child(k).Errorf("type must be a string or an array of strings")
			}
			for _, t := range s.Type {
				switch t {
				case "null", "boolean", "object", "array", "number", "integer", "string":
				default:
					return loc.Child(k).Errorf("unknown type %q: use null, boolean, object, array, number, integer or string", t)
				}
			}
		case "title":
			s.Title, err = str(k)
		case "description":
			s.Description, err = str(k)
		case "x-go-name":
			s.GoName, err = str(k)
			if err == nil && !(token.IsIdentifier(s.GoName) && token.IsExported(s.GoName)) {
				return loc.Child(k).Errorf("x-go-name %q is not an exported Go identifier: write a name that starts with a capital letter, made of letters, digits and underscores", s.GoName)
			}
		case "x-method":
			s.Method, err = str(k)
		case "format":
			s.Format, err = str(k)
		case "pattern":
			s.Pattern, err = str(k)
		case "properties":
			s.Properties, err = subMap(k)
		case "patternProperties":
			s.PatternProperties, err = subMap(k)
		case "$defs", "definitions":
			var defs []Property
			defs, err = subMap(k)
			s.Defs = append(s.Defs, defs...)
		case "required":
			arr, ok := v.([]any)
			if !ok {
				return loc.Child(k).Errorf("required must be an array of strings")
			}
			for _, e := range arr {
				x, ok := e.(string)
				if !ok {
					return loc.Child(k).Errorf("required must be an array of strings")
				}
				s.Required = append(s.Required, x)
			}
		case "additionalProperties":
			s.AdditionalProperties, err = sub(k, k)
		case "propertyNames":
			// Listed as unmodelled too: the model takes it off the list
			// where Validate checks it.
			s.Unknown = append(s.Unknown, k)
			s.PropertyNames, err = sub(k, k)
		case "items":
			if _, isArr := v.([]any); isArr {
				// draft-07 tuple form; additionalItems, if any, is the
				// schema of the elements after them.
				s.PrefixItems, err = subList(k)
				itemsArray = true
			} else {
				s.Items, err = sub(k, k)
			}
		case "additionalItems":
			additional, err = sub(k, k)
		case "prefixItems":
			s.PrefixItems, err = subList(k)
		case "enum":
			arr, ok := v.([]any)
			if !ok {
				return loc.Child(k).Errorf("enum must be an array")
			}
			for _, e := range arr {
				s.Enum = append(s.Enum, plain(e))
			}
		case "const":
			s.Const, s.HasConst = plain(v), true
		case "default":
			s.Default, s.HasDefault = plain(v), true
		case "oneOf":
			s.OneOf, err = subList(k)
		case "anyOf":
			s.AnyOf, err = subList(k)
		case "allOf":
			s.AllOf, err = subList(k)
		case "not":
			s.Not, err = sub(k, k)
		case "if":
			s.If, err = sub(k, k)
		case "then":
			s.Then, err = sub(k, k)
		case "else":
			s.Else, err = sub(k, k)
		case "discriminator":
			do, ok := v.(*object)
			if !ok {
				return loc.Child(k).Errorf("discriminator must be an object with propertyName")
			}
			pv, _ := do.Get("propertyName")
			pn, _ := pv.(string)
			if pn == "" {
				return loc.Child(k).Errorf("discriminator needs a propertyName string")
			}
			s.Discriminator = pn
		case "minimum":
			s.Minimum, err = num(k)
		case "maximum":
			s.Maximum, err = num(k)
		case "exclusiveMinimum":
			if b, isBool := v.(bool); isBool {
				exclMin = b
				break
			}
			s.ExclusiveMinimum, err = num(k)
		case "exclusiveMaximum":
			if b, isBool := v.(bool); isBool {
				exclMax = b
				break
			}
			s.ExclusiveMaximum, err = num(k)
		case "multipleOf":
			s.MultipleOf, err = num(k)
		case "minLength":
			s.MinLength, err = count(k)
		case "maxLength":
			s.MaxLength, err = count(k)
		case "minItems":
			s.MinItems, err = count(k)
		case "maxItems":
			s.MaxItems, err = count(k)
		case "minProperties":
			s.MinProperties, err = count(k)
		case "maxProperties":
			s.MaxProperties, err = count(k)
		case "uniqueItems":
			b, _ := v.(bool)
			s.UniqueItems = b
		case "dependencies":
			// Before 2019-09: an array is what dependentRequired says now;
			// a schema (dependentSchemas now) is not modelled.
			var schemas bool
			if schemas, err = s.readDependencies(v, loc.Child(k), "dependencies must be an object of arrays of strings or schemas", true); err != nil {
				return err
			}
			if schemas {
				s.Unknown = append(s.Unknown, k)
			}
			if len(s.DependentRequired) > 0 && !slices.Contains(s.Unknown, "dependentRequired") {
				s.Unknown = append(s.Unknown, "dependentRequired")
			}
		case "dependentRequired":
			s.Unknown = append(s.Unknown, k)
			_, err = s.readDependencies(v, loc.Child(k), "dependentRequired must be an object of arrays of strings", false)
		default:
			if unmodelled[k] {
				s.Unknown = append(s.Unknown, k)
			}
		}
		if err != nil {
			return err
		}
	}
	if exclMin && s.Minimum != nil {
		s.ExclusiveMinimum, s.Minimum = s.Minimum, nil
	}
	if exclMax && s.Maximum != nil {
		s.ExclusiveMaximum, s.Maximum = s.Maximum, nil
	}
	if itemsArray && additional != nil {
		s.Items = additional
	}
	if s.Draft7 && s.Ref != "" {
		// In draft-07 a $ref replaces every other keyword but annotations.
		s.Type, s.Properties, s.Required, s.AllOf, s.AnyOf, s.OneOf = nil, nil, nil, nil, nil, nil
		s.Enum, s.HasConst, s.Items, s.AdditionalProperties = nil, false, nil, nil
	}
	sort.Strings(s.Unknown)
	return nil
}
