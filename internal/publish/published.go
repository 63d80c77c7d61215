package publish

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentproto/agentproto/pkg/jsonpointer"
)

// Keywords of agentproto's own that the source schemas carry and the
// published bundles leave out, so that any validator in strict mode loads a
// bundle as it is. x-go-name steers the Go generator; x-always-emitted and
// x-omitted-when-none list what the Arcan reference implementation writes,
// for the Go validator's emit-shape warnings; all three are annotations and
// change no verdict. x-integer-literal is an assertion (a number written as
// an integer literal, as serde_json requires): standard JSON Schema cannot
// see how a number was written, so the bundle states it in the member's
// description instead (schema/README.md says what a consumer must do).
var (
	annotationKeywords = []string{"x-go-name", "x-always-emitted", "x-omitted-when-none"}
	integerLiteralKW   = "x-integer-literal"
	integerLiteralNote = "Written as an integer literal: serde_json receivers reject 1.0, 1e3 and -0 here."
)

// published returns the bundle document as it is written to disk: the
// document the reference pages are rendered from, made easy on validators
// that report every failing branch of a union.
//
//   - A tagged union nested anywhere (ACP's SessionUpdate, ContentBlock,
//     ToolCallContent, Arcan's ToolContent, …) becomes a dispatch on its
//     tag with if/then, like the root: a wrong tag gives one error at the
//     tag, and a defect inside a variant gives the errors of that variant
//     only.
//   - A closed enum written as a oneOf of consts becomes an enum, an open
//     enum (consts plus a string catch-all) becomes a string, and a
//     nullable anyOf becomes "not null, then the schema": each gives one
//     error where the union gave one per branch.
//   - agentproto's own keywords are left out (see annotationKeywords).
//
// Each rewrite accepts exactly what the original accepts; the fixture
// verdict tests compile the published form.
func (b *Bundle) published() (*Object, error) {
	doc := clone(b.Doc).(*Object)
	defs := doc.Obj("$defs")
	if defs == nil {
		return nil, fmt.Errorf("publish: %s: no $defs", b.BundleFile())
	}
	err := walkSchema(doc, "", func(s *Object, ptr string) error {
		if ptr != "" {
			if err := dispatchNested(defs, s); err != nil {
				return fmt.Errorf("publish: %s#%s: %w", b.BundleFile(), ptr, err)
			}
			closedEnum(s)
			openEnum(s)
			nullableUnion(s)
		}
		for _, k := range annotationKeywords {
			s.Delete(k)
		}
		if on, _ := s.Value(integerLiteralKW).(bool); on {
			d := s.Str("description")
			if d != "" && !strings.HasSuffix(d, " ") {
				d += " "
			}
			s.Set("description", d+integerLiteralNote)
		}
		s.Delete(integerLiteralKW)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// unionKeys are the keywords a union schema may carry besides oneOf for
// dispatchNested to rewrite it.
var unionKeys = []string{"oneOf", "title", "description", "$comment", "examples", "type", "x-go-name"}

// dispatchNested rewrites s in place when it is a tagged union: a oneOf of
// object variants that each fix one tag member with a distinct const,
// except at most one catch-all variant whose tag schema accepts none of
// those consts (ACP's stdio MCP server, which may omit the tag). Anything
// else is left alone.
func dispatchNested(defs, s *Object) error {
	variants := s.Arr("oneOf")
	if len(variants) < 2 {
		return nil
	}
	for _, k := range s.Keys() {
		if !slices.Contains(unionKeys, k) {
			return nil
		}
	}
	if t, ok := s.Get("type"); ok && t != "object" {
		return nil
	}
	tag := unionTag(defs, variants)
	if tag == "" {
		return nil
	}
	var consts []any
	var cases []dcase
	var catchAll *Object
	var catchTag *Object
	for _, v := range variants {
		variant := v.(*Object)
		ts, _ := variantTag(defs, variant, tag)
		if c, ok := ts.Get("const"); ok {
			if slices.Contains(consts, c) {
				return nil
			}
			consts = append(consts, c)
			cases = append(cases, dcase{cond: obj("const", c), then: variant})
			continue
		}
		if catchAll != nil {
			return nil
		}
		catchAll, catchTag = variant, ts
	}
	if catchAll != nil {
		tagOnly := clone(catchTag).(*Object)
		for _, k := range []string{"description", "examples", "title"} {
			tagOnly.Delete(k)
		}
		sch, err := compileStandalone(tagOnly)
		if err != nil {
			return nil // a tag schema with references: not rewritten
		}
		for _, c := range consts {
			if sch.Validate(c) == nil {
				return nil
			}
		}
	}
	s.Delete("oneOf")
	s.Set("type", "object")
	all := s.Arr("allOf")
	for _, c := range cases {
		all = append(all, obj("if", tagIf(tag, c.cond), "then", c.then))
	}
	if catchAll == nil {
		s.Set("properties", obj(tag, obj("description", "Selects the variant.", "enum", consts)))
		s.Set("required", []any{tag})
	} else {
		all = append(all, obj("if", obj("not", tagIf(tag, obj("enum", consts))), "then", catchAll))
	}
	s.Set("allOf", all)
	return nil
}

// unionTag returns the member that tags every variant of a union, or "".
// Every variant must be an object schema; all but at most one fix the tag
// with a const and require it.
func unionTag(defs *Object, variants []any) string {
	var candidates []string
	for _, v := range variants {
		variant, ok := v.(*Object)
		if !ok {
			return ""
		}
		body := variantBody(defs, variant)
		if body == nil {
			return ""
		}
		for _, name := range body.Obj("properties").Keys() {
			if body.Obj("properties").Obj(name).Has("const") && slices.Contains(body.Arr("required"), any(name)) && !slices.Contains(candidates, name) {
				candidates = append(candidates, name)
			}
		}
	}
	for _, tag := range candidates {
		withConst, ok := 0, true
		for _, v := range variants {
			variant := v.(*Object)
			ts, isObject := variantTag(defs, variant, tag)
			if !isObject || ts == nil {
				ok = false
				break
			}
			if ts.Has("const") {
				if !slices.Contains(variantBody(defs, variant).Arr("required"), any(tag)) {
					ok = false
					break
				}
				withConst++
			}
		}
		if ok && withConst >= len(variants)-1 && withConst >= 1 {
			return tag
		}
	}
	return ""
}

// variantBody is the schema that holds a variant's members: the variant, or
// the definition a bare $ref variant points at. nil if it is neither.
func variantBody(defs, variant *Object) *Object {
	if variant.Has("properties") {
		return variant
	}
	r := variant.Str("$ref")
	if r == "" {
		return nil
	}
	for _, k := range variant.Keys() {
		if k != "$ref" && k != "title" && k != "description" {
			return nil
		}
	}
	name, ok := strings.CutPrefix(r, "#/$defs/")
	if !ok || strings.Contains(name, "/") {
		return nil
	}
	body := defs.Obj(jsonpointer.Unescape(name))
	if body == nil || !body.Has("properties") {
		return nil
	}
	return body
}

// variantTag returns the tag member's schema of a variant, and whether the
// variant is an object schema.
func variantTag(defs, variant *Object, tag string) (*Object, bool) {
	body := variantBody(defs, variant)
	if body == nil || body.Str("type") != "object" {
		return nil, false
	}
	return body.Obj("properties").Obj(tag), true
}

// constKeys are the keywords a member of an enum written as a union may
// carry.
var constKeys = []string{"const", "description", "title"}

// constMembers returns the consts of a union's members when every member is
// a const (with at most a description and a title), and the descriptions.
func constMembers(members []any) ([]any, []string, bool) {
	var values []any
	var descs []string
	for _, m := range members {
		o, ok := m.(*Object)
		if !ok {
			return nil, nil, false
		}
		c, ok := o.Get("const")
		if !ok {
			return nil, nil, false
		}
		for _, k := range o.Keys() {
			if !slices.Contains(constKeys, k) {
				return nil, nil, false
			}
		}
		for _, prev := range values {
			if compactJSON(prev) == compactJSON(c) {
				return nil, nil, false
			}
		}
		values = append(values, c)
		d := o.Str("description")
		if d != "" {
			descs = append(descs, fmt.Sprintf("`%s`: %s", compactJSON(c), strings.TrimSuffix(d, ".")))
		}
	}
	return values, descs, len(values) > 0
}

// describeValues appends the meaning of each value to s's description.
func describeValues(s *Object, descs []string) {
	if len(descs) == 0 {
		return
	}
	d := s.Str("description")
	if d != "" {
		d += " "
	}
	s.Set("description", d+"Values: "+strings.Join(descs, "; ")+".")
}

// closedEnum turns a oneOf (or anyOf) of distinct consts into an enum.
func closedEnum(s *Object) {
	for _, kw := range []string{"oneOf", "anyOf"} {
		members := s.Arr(kw)
		if len(members) < 2 || s.Has("enum") || s.Has("const") {
			continue
		}
		values, descs, ok := constMembers(members)
		if !ok {
			continue
		}
		s.Delete(kw)
		s.Set("enum", values)
		describeValues(s, descs)
	}
}

// openEnum turns an anyOf of string consts plus a final {"type": "string"}
// catch-all into a string schema, which accepts the same values.
func openEnum(s *Object) {
	members := s.Arr("anyOf")
	if len(members) < 2 {
		return
	}
	last, ok := members[len(members)-1].(*Object)
	if !ok || last.Str("type") != "string" {
		return
	}
	for _, k := range last.Keys() {
		if k != "type" && k != "description" && k != "title" {
			return
		}
	}
	values, descs, ok := constMembers(members[:len(members)-1])
	if !ok {
		return
	}
	for _, v := range values {
		if _, isString := v.(string); !isString {
			return
		}
	}
	if t, has := s.Get("type"); has && t != "string" {
		return
	}
	s.Delete("anyOf")
	s.Set("type", "string")
	if ld := last.Str("description"); ld != "" {
		descs = append(descs, "any other string: "+strings.TrimSuffix(ld, "."))
	}
	describeValues(s, descs)
}

// nullableUnion turns anyOf [S, {"type": "null"}] into "when not null, S",
// which accepts the same values and reports S's errors alone.
func nullableUnion(s *Object) {
	members := s.Arr("anyOf")
	if len(members) != 2 {
		return
	}
	var other *Object
	nulls := 0
	for _, m := range members {
		o, ok := m.(*Object)
		if !ok {
			return
		}
		if o.Str("type") == "null" && onlyKeys(o, "type", "description", "title") {
			nulls++
		} else {
			other = o
		}
	}
	if nulls != 1 || other == nil {
		return
	}
	s.Delete("anyOf")
	s.Set("allOf", append(s.Arr("allOf"), obj("if", obj("not", obj("type", "null")), "then", other)))
}

// onlyKeys reports whether o has no keyword outside keys.
func onlyKeys(o *Object, keys ...string) bool {
	for _, k := range o.Keys() {
		if !slices.Contains(keys, k) {
			return false
		}
	}
	return true
}
