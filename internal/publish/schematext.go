package publish

// How the reference pages describe a schema: its shape (values, variants or
// fields), its type in a few words, its allowed values and its bounds, as
// Markdown that is safe in a paragraph or a table cell.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// shape renders the structure of a schema: a values table for an enum, a
// variants list for a union, a fields table for an object, or a type line.
func (r *renderer) shape(s *Object) {
	if vals, open := enumValues(s); len(vals) > 0 && !hasProps(s) {
		r.out.WriteString("| value | description |\n|---|---|\n")
		for _, v := range vals {
			fmt.Fprintf(&r.out, "| `%s` | %s |\n", cell(compactJSON(v.value)), cell(mdText(v.desc)))
		}
		if open {
			r.out.WriteString("| any other value | accepted and kept: the enum is open |\n")
		}
		r.out.WriteString("\n")
		return
	}
	if variants, tag := r.variants(s); len(variants) > 0 {
		if tag != "" {
			r.p("One of these variants, selected by `%s`:", tag)
		} else {
			r.p("One of:")
		}
		for _, v := range variants {
			title := v.s.Str("title")
			head := ""
			if title != "" {
				head = "**" + title + "**"
			}
			if v.tag != "" {
				head = strings.TrimSpace(head + fmt.Sprintf(" (`%s`: `%s`)", tag, cell(v.tag)))
			}
			if head == "" {
				head = "**" + r.typeText(v.s) + "**"
			}
			line := head
			if d := v.s.Str("description"); d != "" {
				line += ": " + mdText(d)
			}
			if v.s.Has("$ref") && !hasProps(v.s) {
				line += " See " + r.typeText(v.s) + "."
			} else if ext := r.extends(v.s); len(ext) > 0 {
				line += " Also has the members of " + strings.Join(ext, ", ") + "."
			}
			r.p("- %s", line)
			if hasProps(v.s) {
				r.fields(v.s)
			}
		}
		if hasProps(s) {
			r.p("Members common to every variant:")
			r.fields(s)
		}
		return
	}
	if hasProps(s) {
		r.fields(s)
		return
	}
	t := r.typeText(s)
	line := "Type: " + t
	if c := constraints(s); c != "" {
		line += "; " + c
	}
	r.p("%s.", line)
}

type variant struct {
	s   *Object
	tag string // the tag value, as JSON text
}

// variants lists the branches of a union (oneOf or anyOf that is not just a
// nullable value) or of a dispatch (allOf of if/then), and the tag member
// when the branches fix one.
func (r *renderer) variants(s *Object) ([]variant, string) {
	var list []any
	switch {
	case s.Has("oneOf"):
		list = s.Arr("oneOf")
	case s.Has("anyOf") && nullable(s) == nil:
		list = s.Arr("anyOf")
	default:
		for _, a := range s.Arr("allOf") {
			if o, ok := a.(*Object); ok && o.Has("then") {
				list = append(list, o.Obj("then"))
			}
		}
	}
	if len(list) == 0 {
		return nil, ""
	}
	var out []variant
	tags := map[string]int{}
	for _, x := range list {
		o, ok := x.(*Object)
		if !ok {
			continue
		}
		out = append(out, variant{s: o})
	}
	// The tag: a member that every variant (or the definition it points
	// to) fixes with const, or constrains, except at most one default.
	for _, v := range out {
		for _, k := range r.resolve(v.s).Obj("properties").Keys() {
			if r.resolve(v.s).Obj("properties").Obj(k).Has("const") {
				tags[k]++
			}
		}
	}
	tag := ""
	best := 0
	for _, k := range slices.Sorted(mapKeys(tags)) {
		if tags[k] > best && tags[k] >= len(out)-1 && tags[k] >= 2 {
			tag, best = k, tags[k]
		}
	}
	if tag != "" {
		for i := range out {
			if c, ok := r.resolve(out[i].s).Obj("properties").Obj(tag).Get("const"); ok {
				out[i].tag = compactJSON(c)
			}
		}
	}
	return out, tag
}

func mapKeys(m map[string]int) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// resolve follows a plain $ref to its definition.
func (r *renderer) resolve(s *Object) *Object {
	for i := 0; i < 8 && s != nil && s.Has("$ref") && !s.Has("properties"); i++ {
		name, ok := strings.CutPrefix(s.Str("$ref"), "#/$defs/")
		if !ok || strings.Contains(name, "/") {
			return s
		}
		next := r.b.Defs().Obj(name)
		if next == nil {
			return s
		}
		s = next
	}
	return s
}

func hasProps(s *Object) bool {
	if s.Obj("properties").Len() > 0 {
		return true
	}
	for _, a := range s.Arr("allOf") {
		if o, ok := a.(*Object); ok && !o.Has("$ref") && !o.Has("if") && o.Obj("properties").Len() > 0 {
			return true
		}
	}
	return false
}

// fields writes the fields table of an object schema.
func (r *renderer) fields(s *Object) {
	r.out.WriteString("| field | type | required | values | description |\n|---|---|---|---|---|\n")
	r.fieldRows(s, "", 0)
	r.out.WriteString("\n")
}

func (r *renderer) fieldRows(s *Object, prefix string, depth int) {
	props := newObject()
	var required []any
	parts := []*Object{s}
	for _, a := range s.Arr("allOf") {
		if o, ok := a.(*Object); ok && !o.Has("$ref") && !o.Has("if") {
			parts = append(parts, o)
		}
	}
	for _, p := range parts {
		for _, k := range p.Obj("properties").Keys() {
			if !props.Has(k) {
				props.Set(k, p.Obj("properties").Value(k))
			}
		}
		required = append(required, p.Arr("required")...)
	}
	for _, k := range props.Keys() {
		ps, ok := props.Value(k).(*Object)
		if !ok {
			// A boolean schema: false forbids the member.
			fmt.Fprintf(&r.out, "| `%s` | never present | | | |\n", cell(prefix+k))
			continue
		}
		req := ""
		if slices.Contains(required, any(k)) {
			req = "yes"
		}
		vals := valuesText(ps)
		if c := constraints(ps); c != "" {
			vals = strings.TrimPrefix(vals+"; "+c, "; ")
		}
		fmt.Fprintf(&r.out, "| `%s` | %s | %s | %s | %s |\n", cell(prefix+k), cell(r.typeText(ps)), req, cell(vals), cell(mdText(ps.Str("description"))))
		if depth >= 4 {
			continue
		}
		switch {
		case !ps.Has("$ref") && ps.Obj("properties").Len() > 0:
			r.fieldRows(ps, prefix+k+".", depth+1)
		case ps.Obj("items") != nil && !ps.Obj("items").Has("$ref") && ps.Obj("items").Obj("properties").Len() > 0:
			r.fieldRows(ps.Obj("items"), prefix+k+"[].", depth+1)
		}
	}
}

// typeText describes the type of a schema in a few words, with links to
// definitions.
func (r *renderer) typeText(s *Object) string {
	if s == nil {
		return "any"
	}
	if ref := s.Str("$ref"); ref != "" {
		name := strings.TrimPrefix(ref, "#/$defs/")
		return r.link(defKey(r.b, name), name)
	}
	if all := s.Arr("allOf"); len(all) == 1 && !s.Has("type") && !s.Has("properties") {
		if o, ok := all[0].(*Object); ok && o.Has("$ref") {
			return r.typeText(o)
		}
	}
	if n := nullable(s); n != nil {
		return r.typeText(n) + " | null"
	}
	if vals, _ := enumValues(s); len(vals) > 0 && !s.Has("type") {
		return jsonType(vals[0].value)
	}
	if c, ok := s.Get("const"); ok && !s.Has("type") {
		return jsonType(c)
	}
	for _, kw := range []string{"oneOf", "anyOf"} {
		if list := s.Arr(kw); len(list) > 0 && !s.Has("type") {
			var parts []string
			for _, x := range list {
				o, ok := x.(*Object)
				if !ok {
					continue
				}
				t := r.typeText(o)
				if o.Has("title") && !o.Has("$ref") {
					t = o.Str("title")
				}
				if !slices.Contains(parts, t) {
					parts = append(parts, t)
				}
			}
			return strings.Join(parts, " | ")
		}
	}
	var types []string
	switch t := s.Value("type").(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if xs, ok := x.(string); ok {
				types = append(types, xs)
			}
		}
	}
	if len(types) == 0 {
		if s.Has("properties") {
			return "object"
		}
		if s.Has("not") && s.Obj("not").Len() == 0 {
			return "never present"
		}
		return "any"
	}
	for i, t := range types {
		switch t {
		case "array":
			if it := s.Obj("items"); it != nil {
				types[i] = "array of " + r.typeText(it)
			}
		case "object":
			if ap := s.Obj("additionalProperties"); ap != nil && s.Obj("properties").Len() == 0 {
				types[i] = "map of " + r.typeText(ap)
			}
		case "string":
			if f := s.Str("format"); f != "" {
				types[i] = "string (" + f + ")"
			}
		}
	}
	return strings.Join(types, " | ")
}

// nullable returns X for a schema anyOf/oneOf [X, {"type": "null"}].
func nullable(s *Object) *Object {
	for _, kw := range []string{"anyOf", "oneOf"} {
		list := s.Arr(kw)
		if len(list) != 2 {
			continue
		}
		a, _ := list[0].(*Object)
		b, _ := list[1].(*Object)
		if a != nil && b != nil && b.Str("type") == "null" {
			return a
		}
	}
	return nil
}

type enumValue struct {
	value any
	desc  string
}

// enumValues lists the values of an enum: enum, const, or a oneOf/anyOf of
// consts (open when the last branch is a plain type).
func enumValues(s *Object) ([]enumValue, bool) {
	if e := s.Arr("enum"); len(e) > 0 {
		var out []enumValue
		for _, v := range e {
			out = append(out, enumValue{value: v})
		}
		return out, false
	}
	for _, kw := range []string{"oneOf", "anyOf"} {
		list := s.Arr(kw)
		if len(list) < 2 {
			continue
		}
		var out []enumValue
		open := false
		for i, x := range list {
			o, ok := x.(*Object)
			if !ok {
				return nil, false
			}
			if c, ok := o.Get("const"); ok {
				out = append(out, enumValue{value: c, desc: o.Str("description")})
				continue
			}
			if i == len(list)-1 && o.Has("type") && !o.Has("properties") && !o.Has("$ref") {
				open = true
				continue
			}
			return nil, false
		}
		return out, open
	}
	return nil, false
}

// valuesText lists the allowed values of a member.
func valuesText(s *Object) string {
	if c, ok := s.Get("const"); ok {
		return "`" + compactJSON(c) + "`"
	}
	vals, open := enumValues(s)
	if len(vals) == 0 {
		if n := nullable(s); n != nil {
			return valuesText(n)
		}
		return ""
	}
	var parts []string
	for _, v := range vals {
		parts = append(parts, "`"+compactJSON(v.value)+"`")
	}
	txt := strings.Join(parts, ", ")
	if open {
		txt += ", or any other value"
	}
	return txt
}

// constraints describes the bounds, pattern and lengths of a schema.
func constraints(s *Object) string {
	var parts []string
	num := func(k string) string {
		if n, ok := s.Value(k).(json.Number); ok {
			return n.String()
		}
		return ""
	}
	if lo, hi := num("minimum"), num("maximum"); lo != "" && hi != "" {
		parts = append(parts, lo+" to "+hi)
	} else if lo != "" {
		parts = append(parts, "at least "+lo)
	} else if hi != "" {
		parts = append(parts, "at most "+hi)
	}
	if v := num("exclusiveMinimum"); v != "" {
		parts = append(parts, "more than "+v)
	}
	if v := num("exclusiveMaximum"); v != "" {
		parts = append(parts, "less than "+v)
	}
	if v := num("minLength"); v != "" && v != "0" {
		parts = append(parts, "at least "+v+" characters")
	}
	if v := num("maxLength"); v != "" {
		parts = append(parts, "at most "+v+" characters")
	}
	if v := num("minItems"); v != "" && v != "0" {
		parts = append(parts, "at least "+v+" items")
	}
	if v := num("maxItems"); v != "" {
		parts = append(parts, "at most "+v+" items")
	}
	if p := s.Str("pattern"); p != "" {
		parts = append(parts, "pattern `"+p+"`")
	}
	return strings.Join(parts, "; ")
}

func jsonType(v any) string {
	switch v := v.(type) {
	case string:
		return "string"
	case json.Number:
		if strings.ContainsAny(v.String(), ".eE") {
			return "number"
		}
		return "integer"
	case bool:
		return "boolean"
	case nil:
		return "null"
	case []any:
		return "array"
	default:
		return "object"
	}
}

// mdText makes a description safe for Markdown: on one line, and with < and
// > outside code spans escaped so that GitHub does not take them for HTML.
func mdText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	var b strings.Builder
	inCode := false
	for _, c := range s {
		switch {
		case c == '`':
			inCode = !inCode
			b.WriteRune(c)
		case !inCode && c == '<':
			b.WriteString("&lt;")
		case !inCode && c == '>':
			b.WriteString("&gt;")
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// cell makes text safe for a table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}
