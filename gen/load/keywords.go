package load

import (
	"encoding/json"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// objectReader reads the keywords of one schema object into its Schema.
// It keeps what a keyword cannot settle alone until every keyword is
// read: draft-07's items array with additionalItems, and draft-04's
// boolean exclusive bounds.
type objectReader struct {
	d   *Doc
	s   *Schema
	o   *object
	loc Loc

	itemsArray       bool
	additional       *Schema
	exclMin, exclMax bool
}

// Keywords whose value is stored as is in one Schema field, by the kind
// of value they hold. Other keywords are read by objectReader.keyword.
var (
	stringKeywords = map[string]func(*Schema) *string{
		"$ref":        func(s *Schema) *string { return &s.Ref },
		"title":       func(s *Schema) *string { return &s.Title },
		"description": func(s *Schema) *string { return &s.Description },
		"x-method":    func(s *Schema) *string { return &s.Method },
		"format":      func(s *Schema) *string { return &s.Format },
		"pattern":     func(s *Schema) *string { return &s.Pattern },
	}
	schemaKeywords = map[string]func(*Schema) **Schema{
		"additionalProperties": func(s *Schema) **Schema { return &s.AdditionalProperties },
		"not":                  func(s *Schema) **Schema { return &s.Not },
		"if":                   func(s *Schema) **Schema { return &s.If },
		"then":                 func(s *Schema) **Schema { return &s.Then },
		"else":                 func(s *Schema) **Schema { return &s.Else },
	}
	schemaListKeywords = map[string]func(*Schema) *[]*Schema{
		"prefixItems": func(s *Schema) *[]*Schema { return &s.PrefixItems },
		"oneOf":       func(s *Schema) *[]*Schema { return &s.OneOf },
		"anyOf":       func(s *Schema) *[]*Schema { return &s.AnyOf },
		"allOf":       func(s *Schema) *[]*Schema { return &s.AllOf },
	}
	schemaMapKeywords = map[string]func(*Schema) *[]Property{
		"properties":        func(s *Schema) *[]Property { return &s.Properties },
		"patternProperties": func(s *Schema) *[]Property { return &s.PatternProperties },
	}
	numberKeywords = map[string]func(*Schema) **json.Number{
		"minimum":    func(s *Schema) **json.Number { return &s.Minimum },
		"maximum":    func(s *Schema) **json.Number { return &s.Maximum },
		"multipleOf": func(s *Schema) **json.Number { return &s.MultipleOf },
	}
	countKeywords = map[string]func(*Schema) **uint64{
		"minLength":     func(s *Schema) **uint64 { return &s.MinLength },
		"maxLength":     func(s *Schema) **uint64 { return &s.MaxLength },
		"minItems":      func(s *Schema) **uint64 { return &s.MinItems },
		"maxItems":      func(s *Schema) **uint64 { return &s.MaxItems },
		"minProperties": func(s *Schema) **uint64 { return &s.MinProperties },
		"maxProperties": func(s *Schema) **uint64 { return &s.MaxProperties },
	}
)

// keyword reads one keyword k, whose value is v.
func (r *objectReader) keyword(k string, v any) (err error) {
	s := r.s
	if f, ok := stringKeywords[k]; ok {
		*f(s), err = r.str(k)
		return err
	}
	if f, ok := schemaKeywords[k]; ok {
		*f(s), err = r.sub(k)
		return err
	}
	if f, ok := schemaListKeywords[k]; ok {
		*f(s), err = r.subList(k)
		return err
	}
	if f, ok := schemaMapKeywords[k]; ok {
		*f(s), err = r.subMap(k)
		return err
	}
	if f, ok := numberKeywords[k]; ok {
		*f(s), err = r.num(k)
		return err
	}
	if f, ok := countKeywords[k]; ok {
		*f(s), err = r.count(k)
		return err
	}
	switch k {
	case "type":
		return r.readType(v)
	case "x-go-name":
		return r.readGoName()
	case "$defs", "definitions":
		var defs []Property
		defs, err = r.subMap(k)
		s.Defs = append(s.Defs, defs...)
		return err
	case "required":
		return r.readRequired(v)
	case "propertyNames":
		// Listed as unmodelled too: the model takes it off the list
		// where Validate checks it.
		s.Unknown = append(s.Unknown, k)
		s.PropertyNames, err = r.sub(k)
		return err
	case "items":
		return r.readItems(v)
	case "additionalItems":
		r.additional, err = r.sub(k)
		return err
	case "enum":
		return r.readEnum(v)
	case "const":
		s.Const, s.HasConst = plain(v), true
	case "default":
		s.Default, s.HasDefault = plain(v), true
	case "discriminator":
		return r.readDiscriminator(v)
	case "exclusiveMinimum":
		return r.readExclusive(k, v, &r.exclMin, &s.ExclusiveMinimum)
	case "exclusiveMaximum":
		return r.readExclusive(k, v, &r.exclMax, &s.ExclusiveMaximum)
	case "uniqueItems":
		b, _ := v.(bool)
		s.UniqueItems = b
	case "dependencies":
		return r.readDependencies(v)
	case "dependentRequired":
		s.Unknown = append(s.Unknown, k)
		_, err = s.readDependencies(v, r.loc.Child(k), "dependentRequired must be an object of arrays of strings", false)
		return err
	default:
		if unmodelled[k] {
			s.Unknown = append(s.Unknown, k)
		}
	}
	return nil
}

// readDraft reads $schema: drafts 03 to 07 let a $ref replace its
// siblings, and drafts 03 and 04 spell id and the exclusive bounds their
// own way.
func (r *objectReader) readDraft() {
	v, ok := r.o.Get("$schema")
	if !ok {
		return
	}
	x, _ := v.(string)
	r.s.Pre2019 = strings.Contains(x, "draft-07") || strings.Contains(x, "draft-06") || strings.Contains(x, "draft-04") || strings.Contains(x, "draft-03")
	r.s.Draft4 = strings.Contains(x, "draft-04") || strings.Contains(x, "draft-03")
}

// readID reads $id (or draft-04's id) and makes it the base URI of the
// schema and its sub-schemas.
func (r *objectReader) readID() error {
	idKey := "$id"
	if _, ok := r.o.Get("$id"); !ok && r.s.Draft4 {
		// Draft-04 names the keyword "id"; a non-string "id" is left
		// alone (a schema may well describe a member of that name).
		if v, ok := r.o.Get("id"); ok {
			if _, isStr := v.(string); isStr {
				idKey = "id"
			}
		}
	}
	if _, ok := r.o.Get(idKey); !ok {
		return nil
	}
	id, err := r.str(idKey)
	if err != nil {
		return err
	}
	abs, err := resolveURI(r.s.Base, id)
	if err != nil {
		return r.loc.Child(idKey).Errorf("%v", err)
	}
	r.s.ID = abs
	r.s.Base = stripFragment(abs)
	return nil
}

// readAnchor registers the schema under its $anchor name.
func (r *objectReader) readAnchor() error {
	v, ok := r.o.Get("$anchor")
	if !ok {
		return nil
	}
	name, isStr := v.(string)
	if !isStr || name == "" {
		return r.loc.Child("$anchor").Errorf("$anchor must be a non-empty string")
	}
	r.d.loader.anchors[stripFragment(r.s.Base)+"#"+name] = r.s
	return nil
}

// finish applies what needs every keyword read first.
func (r *objectReader) finish() {
	s := r.s
	if r.exclMin && s.Minimum != nil {
		s.ExclusiveMinimum, s.Minimum = s.Minimum, nil
	}
	if r.exclMax && s.Maximum != nil {
		s.ExclusiveMaximum, s.Maximum = s.Maximum, nil
	}
	if r.itemsArray && r.additional != nil {
		s.Items = r.additional
	}
	if s.Pre2019 && s.Ref != "" {
		// In draft-07 a $ref replaces every other keyword but annotations.
		s.Type, s.Properties, s.Required, s.AllOf, s.AnyOf, s.OneOf = nil, nil, nil, nil, nil, nil
		s.Enum, s.HasConst, s.Items, s.AdditionalProperties = nil, false, nil, nil
	}
}

func (r *objectReader) readType(v any) error {
	const msg = "type must be a string or an array of strings"
	loc := r.loc.Child("type")
	switch t := v.(type) {
	case string:
		r.s.Type = []string{t}
	case []any:
		for _, e := range t {
			x, ok := e.(string)
			if !ok {
				return loc.Errorf(msg)
			}
			r.s.Type = append(r.s.Type, x)
		}
	default:
		return loc.Errorf(msg)
	}
	for _, t := range r.s.Type {
		switch t {
		case "null", "boolean", "object", "array", "number", "integer", "string":
		default:
			return loc.Errorf("unknown type %q: use null, boolean, object, array, number, integer or string", t)
		}
	}
	return nil
}

func (r *objectReader) readGoName() error {
	const k = "x-go-name"
	name, err := r.str(k)
	r.s.GoName = name
	if err == nil && !(token.IsIdentifier(name) && token.IsExported(name)) {
		return r.loc.Child(k).Errorf("x-go-name %q is not an exported Go identifier: write a name that starts with a capital letter, made of letters, digits and underscores", name)
	}
	return err
}

func (r *objectReader) readRequired(v any) error {
	loc := r.loc.Child("required")
	arr, ok := v.([]any)
	if !ok {
		return loc.Errorf("required must be an array of strings")
	}
	for _, e := range arr {
		x, ok := e.(string)
		if !ok {
			return loc.Errorf("required must be an array of strings")
		}
		r.s.Required = append(r.s.Required, x)
	}
	return nil
}

func (r *objectReader) readItems(v any) (err error) {
	if _, isArr := v.([]any); isArr {
		// draft-07 tuple form; additionalItems, if any, is the
		// schema of the elements after them.
		r.s.PrefixItems, err = r.subList("items")
		r.itemsArray = true
		return err
	}
	r.s.Items, err = r.sub("items")
	return err
}

func (r *objectReader) readEnum(v any) error {
	arr, ok := v.([]any)
	if !ok {
		return r.loc.Child("enum").Errorf("enum must be an array")
	}
	for _, e := range arr {
		r.s.Enum = append(r.s.Enum, plain(e))
	}
	return nil
}

func (r *objectReader) readDiscriminator(v any) error {
	loc := r.loc.Child("discriminator")
	do, ok := v.(*object)
	if !ok {
		return loc.Errorf("discriminator must be an object with propertyName")
	}
	pv, _ := do.Get("propertyName")
	pn, _ := pv.(string)
	if pn == "" {
		return loc.Errorf("discriminator needs a propertyName string")
	}
	r.s.Discriminator = pn
	return nil
}

// readExclusive reads exclusiveMinimum or exclusiveMaximum: a number, or
// in draft-04 a boolean that makes minimum or maximum exclusive.
func (r *objectReader) readExclusive(k string, v any, flag *bool, bound **json.Number) (err error) {
	if b, isBool := v.(bool); isBool {
		*flag = b
		return nil
	}
	*bound, err = r.num(k)
	return err
}

// readDependencies reads the dependencies keyword of drafts before
// 2019-09: an array is what dependentRequired says now; a schema
// (dependentSchemas now) is not modelled.
func (r *objectReader) readDependencies(v any) error {
	const k = "dependencies"
	s := r.s
	schemas, err := s.readDependencies(v, r.loc.Child(k), "dependencies must be an object of arrays of strings or schemas", true)
	if err != nil {
		return err
	}
	if schemas {
		s.Unknown = append(s.Unknown, k)
	}
	if len(s.DependentRequired) > 0 && !slices.Contains(s.Unknown, "dependentRequired") {
		s.Unknown = append(s.Unknown, "dependentRequired")
	}
	return nil
}

func (r *objectReader) str(k string) (string, error) {
	v, _ := r.o.Get(k)
	x, ok := v.(string)
	if !ok {
		return "", r.loc.Child(k).Errorf("%s must be a string, not %s", k, describe(v))
	}
	return x, nil
}

func (r *objectReader) sub(k string) (*Schema, error) {
	v, _ := r.o.Get(k)
	return r.d.parse(v, r.loc.Child(k), r.s.Base, draftOf(r.s))
}

func (r *objectReader) subList(k string) ([]*Schema, error) {
	val, _ := r.o.Get(k)
	arr, ok := val.([]any)
	if !ok {
		return nil, r.loc.Child(k).Errorf("%s must be an array of schemas", k)
	}
	out := make([]*Schema, len(arr))
	for i, e := range arr {
		c, err := r.d.parse(e, r.loc.Child(k, strconv.Itoa(i)), r.s.Base, draftOf(r.s))
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

func (r *objectReader) subMap(k string) ([]Property, error) {
	val, _ := r.o.Get(k)
	m, ok := val.(*object)
	if !ok {
		return nil, r.loc.Child(k).Errorf("%s must be an object of schemas", k)
	}
	out := make([]Property, 0, m.Len())
	for _, name := range m.Keys() {
		mv, _ := m.Get(name)
		c, err := r.d.parse(mv, r.loc.Child(k, name), r.s.Base, draftOf(r.s))
		if err != nil {
			return nil, err
		}
		out = append(out, Property{Name: name, Schema: c})
	}
	return out, nil
}

func (r *objectReader) num(k string) (*json.Number, error) {
	val, _ := r.o.Get(k)
	n, ok := val.(json.Number)
	if !ok {
		return nil, r.loc.Child(k).Errorf("%s must be a number", k)
	}
	return &n, nil
}

func (r *objectReader) count(k string) (*uint64, error) {
	val, _ := r.o.Get(k)
	n, ok := val.(json.Number)
	u, err := strconv.ParseUint(string(n), 10, 64)
	if !ok || err != nil {
		return nil, r.loc.Child(k).Errorf("%s must be a non-negative integer", k)
	}
	return &u, nil
}
