package model

import (
	"encoding/json"
	"fmt"
	"go/token"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/gen/load"
)

// Mapping sends every schema whose $id starts with Prefix to the Go package
// at Path: protogen refers to its types instead of generating them.
type Mapping struct {
	Prefix string
	Path   string
}

// Options control Build.
type Options struct {
	// Package is the Go package name.
	Package string
	// Maps are the $id prefixes that belong to other Go packages.
	Maps []Mapping
	// DefsOnly generates the $defs of the inputs but not their root schemas.
	DefsOnly bool
	// SerdeFloats: see Package.SerdeFloats.
	SerdeFloats bool
	// SerdeIntegers: see Package.SerdeIntegers.
	SerdeIntegers bool
	// Strict makes a union that cannot be discriminated an error; by
	// default it is kept as raw JSON with an accessor per alternative, and
	// listed in Package.Warnings.
	Strict bool
}

type builder struct {
	opts   Options
	pkg    *Package
	names  *namer
	byNode map[*load.Schema]*Type
	ext    map[string]*namer // type names per external package
	// embeds are the structs whose schema is an allOf of a $ref to an
	// object plus members of their own, with that object's schema: the
	// candidates for an embedded struct, decided once every type is made.
	embeds []embedding
}

// Build makes the Go model of the graph's input documents and everything
// they refer to. The graph has every $ref resolved: Build reads no file.
func Build(g *load.Graph, opts Options) (*Package, error) {
	b := &builder{opts: opts, pkg: &Package{Name: opts.Package, SerdeFloats: opts.SerdeFloats, SerdeIntegers: opts.SerdeIntegers}, names: newNamer(), byNode: map[*load.Schema]*Type{}, ext: map[string]*namer{}}
	if err := b.claim(g); err != nil {
		return nil, err
	}
	for _, d := range g.Inputs() {
		if !opts.DefsOnly && describesValue(d.Root) {
			if _, err := b.named(d.Root); err != nil {
				return nil, err
			}
		}
		for _, def := range d.Root.Defs {
			if !describesValue(def.Schema) {
				// Only a container of further $defs: no type of its own.
				continue
			}
			if _, err := b.named(def.Schema); err != nil {
				return nil, err
			}
		}
	}
	if err := breakCycles(b.pkg); err != nil {
		return nil, err
	}
	b.embed()
	goDocs(b.pkg)
	decideCompleteness(b.pkg, guardRecursion(b.pkg))
	return b.pkg, nil
}

// claim reserves, before any type is made, the names of the input
// documents' roots and $defs entries for them, so that an inline type or
// a union variant with the same title never takes a name from the schema
// that obviously owns it. Two named schemas asking for the same name is a
// located error that names both and says how to resolve it.
func (b *builder) claim(g *load.Graph) error {
	for _, d := range g.Inputs() {
		var named []*load.Schema
		if !b.opts.DefsOnly && describesValue(d.Root) {
			named = append(named, d.Root)
		}
		for _, def := range d.Root.Defs {
			if describesValue(def.Schema) {
				named = append(named, def.Schema)
			}
		}
		for _, s := range named {
			name := b.nameOf(s)
			if prev, ok := b.names.claims[name].(*load.Schema); ok && prev != s {
				return s.Loc.Errorf("the Go name %s is asked for by this schema and by %s: give one of them another title, or an x-go-name", name, prev.Loc)
			}
			b.names.claims[name] = s
		}
	}
	return nil
}

// first is the first of names, or else fallback.
func first(names []string, fallback string) string {
	if len(names) > 0 {
		return names[0]
	}
	return fallback
}

// target is the schema s's $ref names, which load.Graph resolved.
func target(s *load.Schema) (*load.Schema, error) {
	if s.Target == nil {
		return nil, s.Loc.Child("$ref").Errorf("$ref %q was not resolved before modelling", s.Ref)
	}
	return s.Target, nil
}

// describesValue reports whether a document's root (or a $defs entry) is a
// schema of a value rather than only a container of $defs. A schema with
// neither structure nor $defs accepts any value: raw JSON.
func describesValue(s *load.Schema) bool {
	return s.Bool == nil && (s.Ref != "" || len(s.Type) > 0 || len(s.Properties) > 0 || len(s.OneOf) > 0 ||
		len(s.AnyOf) > 0 || len(s.AllOf) > 0 || s.HasConst || len(s.Enum) > 0 || s.Items != nil || len(s.Defs) == 0)
}

// nameOf is the Go name a document root or $defs entry asks for.
func (b *builder) nameOf(s *load.Schema) string {
	if s.GoName != "" {
		return s.GoName
	}
	if s.Title != "" {
		return GoName(s.Title)
	}
	p := s.Loc.Pointer
	if p == "" {
		base := s.Doc.File
		if i := strings.LastIndexAny(base, "/\\:"); i >= 0 {
			base = base[i+1:]
		}
		return GoName(strings.TrimSuffix(base, ".json"))
	}
	return GoName(p[strings.LastIndex(p, "/")+1:])
}

func (b *builder) mapping(s *load.Schema) *Mapping {
	if s.Doc.Input {
		return nil
	}
	uri := s.Doc.URI
	for i := range b.opts.Maps {
		if strings.HasPrefix(uri, b.opts.Maps[i].Prefix) {
			return &b.opts.Maps[i]
		}
	}
	return nil
}

// named returns the named type of a document root or $defs entry (or any
// schema a $ref points at), creating it on first use.
func (b *builder) named(s *load.Schema) (*Type, error) {
	if t, ok := b.byNode[s]; ok {
		return t, nil
	}
	t := &Type{Loc: s.Loc, Doc: s.Description, SchemaID: schemaID(s)}
	if m := b.mapping(s); m != nil {
		n := b.ext[m.Path]
		if n == nil {
			n = newNamer()
			b.ext[m.Path] = n
		}
		t.Name = n.take(b.nameOf(s))
		t.External = &External{Path: m.Path, Name: t.Name}
	} else {
		t.Name = b.names.takeClaimed(s, b.nameOf(s))
		b.pkg.Types = append(b.pkg.Types, t)
	}
	b.byNode[s] = t
	start := len(b.pkg.Types)
	if err := b.fill(t, s); err != nil {
		return nil, err
	}
	if t.External != nil {
		b.dropCopies(start)
	}
	return t, nil
}

// dropCopies removes the types made from the inside of a type of another
// package (the variants of a mapped union, the inline types of a mapped
// struct) since start: they exist in that package, and the model of the
// mapped type only needs its shape. Their names become free again.
func (b *builder) dropCopies(start int) {
	dropped := map[*Type]bool{}
	for _, t := range b.pkg.Types[start:] {
		dropped[t] = true
		delete(b.names.used, t.Name)
	}
	b.pkg.Types = b.pkg.Types[:start]
	for s, t := range b.byNode {
		if dropped[t] {
			delete(b.byNode, s)
		}
	}
}

// schemaID is the absolute $id and pointer of a named schema, or only the
// pointer ("#/$defs/Name") when its document has no $id: file paths are not
// identifiers and would make the output depend on where it was generated.
func schemaID(s *load.Schema) string {
	if s.Doc.Root.ID == "" && !strings.HasPrefix(s.Doc.URI, "http") {
		return "#" + s.Loc.Pointer
	}
	return s.Doc.URI + "#" + s.Loc.Pointer
}

// inline creates a named type for an inline schema (an object, union or
// enum inside another), named by hint.
func (b *builder) inline(s *load.Schema, hint string) (*Type, error) {
	if t, ok := b.byNode[s]; ok {
		return t, nil
	}
	name := hint
	if s.GoName != "" {
		name = s.GoName
	}
	t := &Type{Name: b.names.take(name), Loc: s.Loc, Doc: s.Description}
	b.pkg.Types = append(b.pkg.Types, t)
	b.byNode[s] = t
	return t, b.fill(t, s)
}

// fill decides the shape of a named type.
func (b *builder) fill(t *Type, s *load.Schema) error {
	t.Unchecked = unchecked(s)
	n, err := b.normalize(s)
	if err != nil {
		return err
	}
	s = n.s
	switch {
	case n.target != nil:
		target, err := b.named(n.target)
		if err != nil {
			return err
		}
		for u := target; u != nil; {
			if u == t {
				return s.Loc.Errorf("this schema only refers to itself through $ref and never says what a value is; give it a type, properties or variants")
			}
			if u.Kind != Alias || u.Under == nil {
				break
			}
			u = u.Under.Type
		}
		t.Kind, t.Under = Alias, &Ref{Kind: NamedRef, Type: target}
		if t.Doc == "" {
			t.Doc = target.Doc
		}
		return nil
	case isEnum(s):
		return b.fillEnum(t, s)
	case isUnion(s) && isObject(s) && requiredAlternatives(s) != nil:
		if err := b.fillStruct(t, s, nil); err != nil {
			return err
		}
		t.Struct.OneOfRequired = len(s.OneOf) > 0
		t.Struct.RequiredAlternatives = requiredAlternatives(s)
		return nil
	case isUnion(s):
		return b.fillUnion(t, s)
	case isObject(s) && hasStructure(s):
		return b.fillStruct(t, s, nil)
	}
	r, err := b.plainRef(s, t.Name)
	if err != nil {
		return err
	}
	t.Kind, t.Under = Named, r
	t.Check, r.Check = r.Check, Constraints{}
	return nil
}

// forbidden reports whether a property schema allows no value at all: the
// schema false, or {"not": {}} (not anything).
func forbidden(s *load.Schema) bool {
	if s.Bool != nil {
		return !*s.Bool
	}
	if s.Not == nil || structural(s) || s.Ref != "" || len(s.AllOf) > 0 {
		return false
	}
	n := s.Not
	return (n.Bool != nil && *n.Bool) || (n.Bool == nil && !structural(n) && n.Ref == "" && len(n.AllOf) == 0 && n.Not == nil && n.If == nil && len(n.Unknown) == 0)
}

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

// normalized is a schema with its wrappers taken off.
type normalized struct {
	s        *load.Schema
	target   *load.Schema // set when s only refers to another named schema
	nullable bool
}

// structural keywords decide a value's shape; a schema with none of them
// besides $ref or a one-element allOf is only a reference.
func structural(s *load.Schema) bool {
	return len(s.Type) > 0 || len(s.Properties) > 0 || len(s.OneOf) > 0 || len(s.AnyOf) > 0 ||
		s.HasConst || len(s.Enum) > 0 || s.Items != nil || s.AdditionalProperties != nil || len(s.PatternProperties) > 0 ||
		len(s.Required) > 0 || len(s.PrefixItems) > 0
}

func (b *builder) normalize(s *load.Schema) (normalized, error) {
	n := normalized{s: s}
	for i := 0; i < 64; i++ {
		cur := n.s
		switch {
		case cur.Ref != "" && !structural(cur) && len(cur.AllOf) == 0:
			t, err := target(cur)
			if err != nil {
				return n, err
			}
			n.target = t
			return n, nil
		case cur.Ref == "" && len(cur.AllOf) == 1 && !structural(cur):
			n.s = cur.AllOf[0]
			continue
		case cur.Ref == "" && len(cur.AllOf) == 0 && len(cur.OneOf)+len(cur.AnyOf) == 1 && len(cur.Type) == 0 && len(cur.Properties) == 0 && !cur.HasConst && len(cur.Enum) == 0:
			// A oneOf (or anyOf) of one alternative is that alternative.
			n.s = append(cur.OneOf, cur.AnyOf...)[0]
			continue
		case len(cur.Type) == 2 && cur.HasType("null"):
			n.nullable = true
			other := cur.Type[0]
			if other == "null" {
				other = cur.Type[1]
			}
			c := *cur
			c.Type = []string{other}
			n.s = &c
			return n, nil
		}
		alts := cur.AnyOf
		if len(alts) == 0 {
			alts = cur.OneOf
		}
		if len(alts) == 2 && !cur.HasType("object") && len(cur.Properties) == 0 {
			for i, a := range alts {
				if len(a.Type) == 1 && a.Type[0] == "null" && !structuralBesidesType(a) {
					n.nullable = true
					n.s = alts[1-i]
					goto next
				}
			}
		}
		return n, nil
	next:
	}
	return n, s.Loc.Errorf("too many nested wrappers")
}

func structuralBesidesType(s *load.Schema) bool {
	c := *s
	c.Type = nil
	return structural(&c)
}

func isEnum(s *load.Schema) bool {
	if len(s.Enum) > 1 {
		return true
	}
	alts := s.OneOf
	if len(alts) == 0 {
		alts = s.AnyOf
	}
	if len(alts) < 2 || len(s.Properties) > 0 {
		return false
	}
	consts := 0
	for i, a := range alts {
		switch {
		case a.HasConst && len(a.Properties) == 0:
			consts++
		case len(a.Enum) > 0 && len(a.Properties) == 0:
			consts += len(a.Enum)
		case i == len(alts)-1 && !a.HasConst && len(a.Properties) == 0 && len(a.Type) == 1 && (a.Type[0] == "string" || a.Type[0] == "integer"):
			// a catch-all
		default:
			return false
		}
	}
	return consts > 0
}

// requiredAlternatives returns the required-member sets of an anyOf or
// oneOf that only constrains which of an object's own members are present
// (each alternative lists required members and at most re-describes them),
// or nil when the alternatives describe different shapes.
func requiredAlternatives(s *load.Schema) [][]string {
	alts := s.AnyOf
	if len(alts) == 0 {
		alts = s.OneOf
	}
	var out [][]string
	for _, a := range alts {
		if a.Ref != "" || len(a.AllOf) > 0 || len(a.AnyOf) > 0 || len(a.OneOf) > 0 || len(a.Required) == 0 ||
			a.HasConst || len(a.Enum) > 0 || (len(a.Type) > 0 && !(len(a.Type) == 1 && a.Type[0] == "object")) {
			return nil
		}
		for _, p := range a.Properties {
			if s.PropertyNamed(p.Name) == nil || structural(p.Schema) || p.Schema.Ref != "" {
				return nil
			}
		}
		for _, r := range a.Required {
			if s.PropertyNamed(r) == nil {
				return nil
			}
		}
		out = append(out, append([]string(nil), a.Required...))
	}
	return out
}

func isUnion(s *load.Schema) bool {
	return len(s.OneOf) > 1 || len(s.AnyOf) > 1
}

func isObject(s *load.Schema) bool {
	return s.HasType("object") || len(s.Properties) > 0 || (len(s.Type) == 0 && len(s.AllOf) > 0)
}

func hasStructure(s *load.Schema) bool {
	if len(s.Properties) > 0 || len(s.AllOf) > 0 || len(s.Required) > 0 {
		return true
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Bool != nil && !*s.AdditionalProperties.Bool {
		return true
	}
	return false
}

// fillEnum makes a string or integer enum.
func (b *builder) fillEnum(t *Type, s *load.Schema) error {
	e := &EnumType{}
	type val struct {
		v    any
		doc  string
		name string
	}
	var vals []val
	if len(s.Enum) > 0 {
		for _, v := range s.Enum {
			vals = append(vals, val{v: v})
		}
	} else {
		alts := s.OneOf
		if len(alts) == 0 {
			alts = s.AnyOf
		}
		for _, a := range alts {
			switch {
			case a.HasConst:
				vals = append(vals, val{v: a.Const, doc: a.Description, name: a.Title})
			case len(a.Enum) > 0:
				for _, v := range a.Enum {
					vals = append(vals, val{v: v, doc: a.Description})
				}
			default:
				// A value the enum does not list must be valid against
				// this alternative: its constraints are checked then.
				if e.Open {
					// Several free alternatives: a value needs only one.
					t.Unchecked = append(t.Unchecked, "anyOf of several open alternatives")
					e.OpenCheck = Constraints{}
					break
				}
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
		}
	}
	kind := ""
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
			return s.Loc.Errorf("enum values must be all strings or all integers; write mixed values as a oneOf of separate schemas")
		}
	}
	if kind == "string" {
		e.Base = &Ref{Kind: Builtin, Builtin: "string"}
	} else {
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
		e.Base = &Ref{Kind: Builtin, Builtin: it}
	}
	consts := newNamer(t.Name)
	seenValues := map[string]bool{}
	for _, v := range vals {
		var lit, suffix string
		switch x := v.v.(type) {
		case string:
			lit, suffix = strconv.Quote(x), x
		case json.Number:
			lit, suffix = string(x), string(x)
			if strings.HasPrefix(suffix, "-") {
				suffix = "Minus" + suffix[1:]
			}
		}
		if v.name != "" {
			suffix = v.name
		}
		raw, _ := json.Marshal(v.v)
		if seenValues[string(raw)] {
			// A value listed twice is one constant.
			continue
		}
		seenValues[string(raw)] = true
		name := consts.take(t.Name + GoName(suffix))
		e.Values = append(e.Values, &EnumValue{Name: name, Go: lit, JSON: string(raw), Doc: v.doc})
	}
	t.Kind, t.Enum = Enum, e
	return nil
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

var formatInts = map[string]string{
	"int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
	"uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
}

// intType picks the Go integer type from a format, or else from the bounds.
func intType(s *load.Schema) string {
	if g, ok := formatInts[s.Format]; ok {
		return g
	}
	lo, hi := Bound(s.Minimum, s.ExclusiveMinimum, 1), Bound(s.Maximum, s.ExclusiveMaximum, -1)
	fits := func(min, max *big.Int) bool {
		return lo != nil && hi != nil && lo.Cmp(min) >= 0 && hi.Cmp(max) <= 0
	}
	switch {
	case lo != nil && lo.Sign() >= 0:
		if fits(big.NewInt(0), big.NewInt(math.MaxUint32)) {
			return "uint32"
		}
		return "uint64"
	case fits(big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)):
		return "int32"
	}
	return "int64"
}

// Bound converts an inclusive or exclusive bound to an inclusive integer
// bound (dir +1 for a minimum, -1 for a maximum).
func Bound(incl, excl *json.Number, dir int) *big.Int {
	var out *big.Int
	if incl != nil {
		if r, ok := new(big.Rat).SetString(string(*incl)); ok {
			out = ceilFloor(r, dir)
		}
	}
	if excl != nil {
		if r, ok := new(big.Rat).SetString(string(*excl)); ok {
			v := ceilFloor(r, dir)
			if r.IsInt() {
				v.Add(v, big.NewInt(int64(dir)))
			}
			if out == nil || (dir > 0 && v.Cmp(out) > 0) || (dir < 0 && v.Cmp(out) < 0) {
				out = v
			}
		}
	}
	return out
}

func ceilFloor(r *big.Rat, dir int) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() != 0 && ((dir > 0 && r.Sign() > 0) || (dir < 0 && r.Sign() < 0)) {
		q.Add(q, big.NewInt(int64(dir)))
	}
	return q
}

// notValues returns the values a scalar schema's not excludes, encoded as
// JSON, when its not is only an enum or a const (a catch-all variant's
// tag: any value but the listed ones); nil otherwise.
func notValues(s *load.Schema) []string {
	n := s.Not
	if n == nil || !(s.HasType("string") || s.HasType("integer")) || len(s.Type) != 1 {
		return nil
	}
	// Only enum and const, with annotations.
	if n.Bool != nil || (len(n.Enum) == 0 && !n.HasConst) {
		return nil
	}
	for _, k := range n.Keywords {
		switch k {
		case "enum", "const", "description", "title", "$comment", "examples", "deprecated":
		default:
			return nil
		}
	}
	var out []string
	for _, v := range n.Enum {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		out = append(out, string(raw))
	}
	if n.HasConst {
		raw, err := json.Marshal(n.Const)
		if err != nil {
			return nil
		}
		out = append(out, string(raw))
	}
	return out
}

func constraints(s *load.Schema) Constraints {
	c := Constraints{MinLength: s.MinLength, MaxLength: s.MaxLength, Pattern: s.Pattern, Minimum: s.Minimum,
		Maximum: s.Maximum, ExclusiveMinimum: s.ExclusiveMinimum, ExclusiveMaximum: s.ExclusiveMaximum,
		MultipleOf: s.MultipleOf, MinItems: s.MinItems, MaxItems: s.MaxItems, MinProps: s.MinProperties, MaxProps: s.MaxProperties}
	if s.HasType("string") {
		c.Format = s.Format
	}
	for _, v := range s.Enum {
		raw, _ := json.Marshal(v)
		c.Enum = append(c.Enum, string(raw))
	}
	if s.HasConst {
		raw, _ := json.Marshal(s.Const)
		c.Enum = []string{string(raw)}
	}
	c.NotEnum = notValues(s)
	return c
}

// ref returns the type of a value described by s (a property, an element),
// naming any inline type it needs after hint, and whether null is allowed.
func (b *builder) ref(s *load.Schema, hint string) (*Ref, bool, error) {
	n, err := b.normalize(s)
	if err != nil {
		return nil, false, err
	}
	if n.target != nil {
		t, err := b.named(n.target)
		if err != nil {
			return nil, false, err
		}
		return &Ref{Kind: NamedRef, Type: t}, n.nullable || acceptsNull(n.target), nil
	}
	s = n.s
	if isEnum(s) || isUnion(s) || (isObject(s) && hasStructure(s)) {
		t, err := b.inline(s, hint)
		if err != nil {
			return nil, false, err
		}
		return &Ref{Kind: NamedRef, Type: t}, n.nullable, nil
	}
	r, err := b.plainRef(s, hint)
	return r, n.nullable, err
}

// acceptsNull reports whether a named schema allows null itself.
func acceptsNull(s *load.Schema) bool {
	return s.HasType("null") && len(s.Type) == 2
}

// plainRef is the type of a schema that is not an object with structure,
// a union or an enum: a builtin, a slice, a map or raw JSON.
func (b *builder) plainRef(s *load.Schema, hint string) (*Ref, error) {
	if len(s.Type) > 1 {
		// Several JSON types: raw JSON whose kind Validate checks; any other
		// constraint is not checked.
		c := *s
		c.Type = nil
		return &Ref{Kind: Raw, Check: Constraints{RawKinds: s.Type}, Lossy: structural(&c) || s.Not != nil}, nil
	}
	if len(s.Type) == 0 {
		return &Ref{Kind: Raw, Lossy: structural(s) || s.Not != nil}, nil
	}
	switch s.Type[0] {
	case "string":
		return &Ref{Kind: Builtin, Builtin: "string", Check: constraints(s)}, nil
	case "boolean":
		return &Ref{Kind: Builtin, Builtin: "bool", Check: constraints(s)}, nil
	case "number":
		return &Ref{Kind: Builtin, Builtin: "float64", Check: constraints(s)}, nil
	case "integer":
		return &Ref{Kind: Builtin, Builtin: intType(s), Check: constraints(s)}, nil
	case "null":
		return &Ref{Kind: Raw, Check: Constraints{RawKinds: []string{"null"}}}, nil
	case "array":
		if len(s.PrefixItems) > 0 {
			return nil, s.Loc.Errorf("tuples (prefixItems, or items as an array) are not supported: describe the elements with one items schema, or use an object")
		}
		r := &Ref{Kind: Slice, Elem: &Ref{Kind: Raw}, Check: constraints(s)}
		r.Check.UniqueItems = s.UniqueItems && uniqueCheckable(s)
		r.Check.UniqueJSON = s.UniqueItems && !r.Check.UniqueItems
		if s.Items != nil {
			e, nullable, err := b.ref(s.Items, hint+"Item")
			if err != nil {
				return nil, err
			}
			r.Elem, r.ElemNullable = e, nullable && !e.Nilable()
		}
		return r, nil
	case "object":
		ap := s.AdditionalProperties
		if len(s.PatternProperties) == 0 && ap != nil && ap.Bool == nil && structural(ap) || (ap != nil && ap.Ref != "") {
			e, nullable, err := b.ref(ap, hint+"Value")
			if err != nil {
				return nil, err
			}
			return &Ref{Kind: Map, Elem: e, ElemNullable: nullable && !e.Nilable(), Check: constraints(s)}, nil
		}
		// An object with no structure: raw JSON that Validate checks is an
		// object; member counts and the like are not checked.
		return &Ref{Kind: Raw, Check: Constraints{RawKinds: []string{"object"}}, Lossy: s.MinProperties != nil || s.MaxProperties != nil || len(s.PatternProperties) > 0}, nil
	}
	return &Ref{Kind: Raw}, nil
}

// props collects the properties and required members of an object schema,
// merging allOf members (and the schemas they refer to) first.
func (b *builder) props(s *load.Schema, seen map[*load.Schema]bool) ([]load.Property, map[string]bool, bool, error) {
	if seen[s] {
		return nil, nil, false, s.Loc.Errorf("allOf refers back to itself")
	}
	seen[s] = true
	var out []load.Property
	req := map[string]bool{}
	closed := false
	add := func(ps []load.Property, r map[string]bool) {
		for _, p := range ps {
			replaced := false
			for i := range out {
				if out[i].Name == p.Name {
					out[i] = p
					replaced = true
				}
			}
			if !replaced {
				out = append(out, p)
			}
		}
		for k := range r {
			req[k] = true
		}
	}
	if s.Ref != "" {
		t, err := target(s)
		if err != nil {
			return nil, nil, false, err
		}
		ps, r, _, err := b.props(t, seen)
		if err != nil {
			return nil, nil, false, err
		}
		add(ps, r)
	}
	for _, a := range s.AllOf {
		ps, r, _, err := b.props(a, seen)
		if err != nil {
			return nil, nil, false, err
		}
		add(ps, r)
	}
	own := map[string]bool{}
	for _, r := range s.Required {
		own[r] = true
	}
	add(s.Properties, own)
	if ap := s.AdditionalProperties; ap != nil && ap.Bool != nil && !*ap.Bool {
		closed = true
	}
	return out, req, closed, nil
}

// fillStruct makes a struct from an object schema; base adds the
// properties of an enclosing union (which come first), and skip names the
// union's tag, which the union writes.
func (b *builder) fillStruct(t *Type, s *load.Schema, base *load.Schema) error {
	return b.fillStructSkip(t, s, base, "")
}

func (b *builder) fillStructSkip(t *Type, s *load.Schema, base *load.Schema, skip string) error {
	var ps []load.Property
	req := map[string]bool{}
	closed := false
	if base != nil {
		bs := *base
		bs.OneOf, bs.AnyOf = nil, nil
		p, r, c, err := b.props(&bs, map[*load.Schema]bool{})
		if err != nil {
			return err
		}
		ps, req, closed = p, r, c
	}
	p, r, c, err := b.props(s, map[*load.Schema]bool{})
	if err != nil {
		return err
	}
	for _, x := range p {
		dup := false
		for i := range ps {
			if ps[i].Name == x.Name {
				ps[i], dup = x, true
			}
		}
		if !dup {
			ps = append(ps, x)
		}
	}
	for k := range r {
		req[k] = true
	}
	closed = closed || c
	// Constraints of the merged allOf members (an if/then, a not) now
	// belong to this struct: Validate does not check them.
	for _, src := range []*load.Schema{base, s} {
		if src != nil {
			t.Unchecked = append(t.Unchecked, b.mergedUnchecked(src, map[*load.Schema]bool{})...)
		}
	}
	st := &StructType{Open: !closed}
	if closed {
		for _, src := range []*load.Schema{base, s} {
			if src == nil {
				continue
			}
			for _, pp := range src.PatternProperties {
				st.Patterns = append(st.Patterns, pp.Name)
				if structural(pp.Schema) || pp.Schema.Ref != "" || !PatternOK(pp.Name) {
					t.Unchecked = append(t.Unchecked, "patternProperties "+pp.Name)
				}
			}
		}
	}
	fields := newNamer()
	for name := range reservedMethods {
		fields.used[name] = true
	}
	for _, p := range ps {
		if skip != "" && p.Name == skip {
			continue
		}
		f, err := b.field(t, p, req[p.Name], fields)
		if err != nil {
			return err
		}
		st.Fields = append(st.Fields, f)
	}
	if base == nil && (s.MinProperties != nil || s.MaxProperties != nil) {
		st.MinProps, st.MaxProps = s.MinProperties, s.MaxProperties
		dropUnchecked(t, "minProperties/maxProperties")
	}
	b.walkMerged(s, map[*load.Schema]bool{}, func(x *load.Schema) {
		if x != s && (x.MinProperties != nil || x.MaxProperties != nil) && len(x.Properties) == 0 {
			// (With properties, unchecked already lists it.)
			t.Unchecked = append(t.Unchecked, "minProperties/maxProperties")
		}
	})
	if st.Open || len(st.Patterns) > 0 {
		st.ExtraName = fields.take("Unknown", "UnknownMembers")
		if base == nil {
			if err := b.extraRules(t, st, s); err != nil {
				return err
			}
		}
	}
	t.Kind, t.Struct = Struct, st
	// if/then and not at object level: Validate checks the simple forms;
	// if every one has such a form, they no longer make the type incomplete.
	var srcs []*load.Schema
	for _, src := range []*load.Schema{base, s} {
		if src != nil {
			srcs = append(srcs, src)
		}
	}
	// An anyOf/oneOf of the schemas merged through allOf and $ref now
	// applies to this struct: a presence check if it is one, else a
	// constraint Validate does not check.
	b.walkMerged(s, map[*load.Schema]bool{}, func(x *load.Schema) {
		if x == s || len(x.AnyOf)+len(x.OneOf) == 0 {
			return
		}
		if alts := requiredAlternatives(x); alts != nil && st.RequiredAlternatives == nil {
			st.RequiredAlternatives, st.OneOfRequired = alts, len(x.OneOf) > 0
			return
		}
		if named(x) && b.mapping(x) == nil {
			// A union of its own, merged by $ref: Validate decodes the
			// value as that union and checks it.
			if u, err := b.named(x); err == nil && u.Kind == Union {
				st.Merged = append(st.Merged, u)
				return
			}
		}
		t.Unchecked = append(t.Unchecked, "anyOf/oneOf of a merged schema")
	})
	if deps, ok := dependencies(st, srcs); ok && len(deps) > 0 {
		st.Dependent = deps
		var keep []string
		for _, u := range t.Unchecked {
			if u != "dependentRequired" {
				keep = append(keep, u)
			}
		}
		t.Unchecked = keep
	}
	if rules, notAll, ok := b.conditions(st, srcs); ok && (len(rules) > 0 || len(notAll) > 0) {
		st.Rules, st.NotAll = rules, notAll
		var keep []string
		for _, u := range t.Unchecked {
			if u != "if" && u != "not" {
				keep = append(keep, u)
			}
		}
		t.Unchecked = keep
	}
	if pn := s.PropertyNames; base == nil && pn != nil && pn.Bool == nil {
		c := *pn
		if len(c.Type) == 0 && c.Ref == "" {
			// Member names are strings.
			c.Type = []string{"string"}
		}
		r, _, err := b.ref(&c, t.Name+"Name")
		if err != nil {
			return err
		}
		if stringTyped(r) {
			st.Names = r
			dropUnchecked(t, "propertyNames")
		}
	} else if pn != nil && pn.Bool != nil && *pn.Bool {
		dropUnchecked(t, "propertyNames")
	}
	if base == nil && skip == "" && s.If != nil && st.Rules == nil && (s.Then != nil || s.Else != nil) {
		if err := b.condition(t, st, s, ps); err != nil {
			return err
		}
	}
	if base == nil && skip == "" {
		if ref := embeddedRef(s); ref != nil {
			b.embeds = append(b.embeds, embedding{t: t, of: ref})
		}
	}
	return nil
}

// condition makes an if/then/else of an object schema a Condition, when
// each of its subschemas becomes a struct or an untagged union, with no
// exported name among the types made for it: each is read as a schema of
// this object (type object, and the type of a member the object already
// types where the subschema gives none, since both apply). Whether the
// condition can be checked is decided with completeness: only a complete
// If tells exactly which branch applies.
func (b *builder) condition(t *Type, st *StructType, s *load.Schema, ps []load.Property) error {
	start := len(b.pkg.Types)
	cd := &Condition{}
	for _, part := range []struct {
		x    *load.Schema
		word string
		dst  **Type
	}{{s.If, "if", &cd.If}, {s.Then, "then", &cd.Then}, {s.Else, "else", &cd.Else}} {
		if part.x == nil {
			continue
		}
		if part.x.Bool != nil || part.x.Ref != "" {
			b.dropCopies(start)
			return nil
		}
		x := inContext(part.x, ps)
		name := b.names.take(part.word + t.Name)
		sub := &Type{Name: name, Loc: part.x.Loc,
			Doc: name + " is the " + part.word + " schema of " + t.Name + ", a type of its own so that Validate can check it."}
		b.pkg.Types = append(b.pkg.Types, sub)
		if err := b.fill(sub, x); err != nil {
			return err
		}
		if sub.Kind != Struct && (sub.Kind != Union || sub.Union.Tag != "") {
			b.dropCopies(start)
			return nil
		}
		*part.dst = sub
	}
	for _, x := range b.pkg.Types[start:] {
		if token.IsExported(x.Name) {
			// A titled alternative would add a name to the package's API.
			b.dropCopies(start)
			return nil
		}
	}
	cd.Types = append(cd.Types, b.pkg.Types[start:]...)
	st.Cond = cd
	dropUnchecked(t, "if")
	return nil
}

// named reports whether a schema is a document's root or one of its $defs
// entries, which have named types.
func named(s *load.Schema) bool {
	p := s.Loc.Pointer
	for _, prefix := range []string{"/$defs/", "/definitions/"} {
		if strings.HasPrefix(p, prefix) && !strings.Contains(p[len(prefix):], "/") {
			return true
		}
	}
	return p == ""
}

// stringTyped reports whether a type use is a Go string or a named type
// over one (an enum of strings, say), which a member name converts to.
func stringTyped(r *Ref) bool {
	for r != nil {
		switch {
		case r.Kind == Builtin:
			return r.Builtin == "string"
		case r.Kind == NamedRef && r.Type.External == nil && (r.Type.Kind == Alias || r.Type.Kind == Named):
			r = r.Type.Under
		case r.Kind == NamedRef && r.Type.External == nil && r.Type.Kind == Enum:
			b := r.Type.Enum
			return b != nil && b.Base != nil && b.Base.Kind == Builtin && b.Base.Builtin == "string"
		default:
			return false
		}
	}
	return false
}

// inContext is a subschema of an object's if/then/else read as a schema of
// that object: type object, and for a member the object types and the
// subschema does not, the object's type.
func inContext(x *load.Schema, ps []load.Property) *load.Schema {
	c := *x
	if len(c.Type) == 0 {
		c.Type = []string{"object"}
	}
	c.Properties = nil
	for _, p := range x.Properties {
		q := p
		if len(p.Schema.Type) == 0 && p.Schema.Bool == nil && p.Schema.Ref == "" {
			for _, o := range ps {
				if o.Name == p.Name && len(o.Schema.Type) == 1 {
					ps := *p.Schema
					ps.Type = o.Schema.Type
					q.Schema = &ps
				}
			}
		}
		c.Properties = append(c.Properties, q)
	}
	// A member the subschema requires without describing it is held as
	// any value: only its presence is the subschema's to check.
	for _, r := range x.Required {
		described := false
		for _, p := range c.Properties {
			described = described || p.Name == r
		}
		if !described {
			c.Properties = append(c.Properties, load.Property{Name: r, Schema: &load.Schema{Loc: x.Loc.Child("required"), Doc: x.Doc, Base: x.Base}})
		}
	}
	return &c
}

// extraRules makes the value schemas of an object's patternProperties and
// additionalProperties (beside properties) rules that Validate checks on
// the members kept aside, and takes them off the type's unchecked list.
// It does nothing when a pattern is not a Go regular expression (which
// members it covers is then unknown) or forbids its members.
func (b *builder) extraRules(t *Type, st *StructType, s *load.Schema) error {
	var rules []*ExtraRule
	checks := false
	for _, pp := range s.PatternProperties {
		if !PatternOK(pp.Name) || (pp.Schema.Bool != nil && !*pp.Schema.Bool) {
			return nil
		}
		re := regexp.MustCompile(pp.Name)
		for _, f := range st.Fields {
			if re.MatchString(f.JSON) && (structural(pp.Schema) || pp.Schema.Ref != "") {
				// The pattern's schema applies to a member the struct
				// holds as a field too; Validate does not check that.
				return nil
			}
		}
		r := &ExtraRule{Pattern: pp.Name}
		if structural(pp.Schema) || pp.Schema.Ref != "" {
			ref, nullable, err := b.ref(pp.Schema, t.Name+"Match")
			if err != nil {
				return err
			}
			r.Type, r.Nullable, checks = ref, nullable, true
		}
		rules = append(rules, r)
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Bool == nil && len(s.Properties) > 0 {
		if s.Ref != "" || len(s.AllOf) > 0 {
			// Members merged from elsewhere are additional to this
			// schema's properties, so its additionalProperties applies to
			// fields too; Validate does not check that.
			return nil
		}
		ref, nullable, err := b.ref(ap, t.Name+"Value")
		if err != nil {
			return err
		}
		rules = append(rules, &ExtraRule{Type: ref, Nullable: nullable})
		checks = true
	}
	if !checks {
		return nil
	}
	st.Extra = rules
	drop := map[string]int{"additionalProperties": 1, "patternProperties": 1}
	for _, pp := range s.PatternProperties {
		drop["patternProperties "+pp.Name]++
	}
	var keep []string
	for _, u := range t.Unchecked {
		if drop[u] > 0 {
			drop[u]--
			continue
		}
		keep = append(keep, u)
	}
	t.Unchecked = keep
	return nil
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

// dependencies collects the dependentRequired entries of the object's own
// schemas; ok is false when a member they name is not a field (Validate
// could not see it) or when a merged allOf member has its own.
func dependencies(st *StructType, srcs []*load.Schema) ([]load.Dependency, bool) {
	byJSON := map[string]bool{}
	for _, f := range st.Fields {
		if f.Repr() != NoField {
			byJSON[f.JSON] = true
		}
	}
	var out []load.Dependency
	for _, src := range srcs {
		for _, a := range src.AllOf {
			if len(a.DependentRequired) > 0 {
				return nil, false
			}
		}
		for _, d := range src.DependentRequired {
			if !byJSON[d.Member] {
				return nil, false
			}
			for _, r := range d.Requires {
				if !byJSON[r] {
					return nil, false
				}
			}
			out = append(out, d)
		}
	}
	return out, true
}

// conditions reads the if/then and not keywords of an object schema and of
// the allOf members it merges, in the forms Validate checks: if one member
// has one of some constant values, then members are required or have a
// constant value; not all of some members present. ok is false when one of
// them has another form.
func (b *builder) conditions(st *StructType, srcs []*load.Schema) ([]*Rule, [][]string, bool) {
	byJSON := map[string]*Field{}
	for _, f := range st.Fields {
		byJSON[f.JSON] = f
	}
	var rules []*Rule
	var notAll [][]string
	seen := map[*load.Schema]bool{}
	var walk func(x *load.Schema) bool
	walk = func(x *load.Schema) bool {
		if seen[x] {
			return true
		}
		seen[x] = true
		if x.If != nil {
			r, ok := parseRule(x, byJSON)
			if !ok {
				return false
			}
			rules = append(rules, r)
		}
		if x.Not != nil {
			n := x.Not
			if len(n.Required) == 0 || n.Ref != "" || len(n.Type) > 0 || len(n.AllOf)+len(n.AnyOf)+len(n.OneOf) > 0 || n.If != nil || n.Not != nil {
				return false
			}
			for _, p := range n.Properties {
				if structural(p.Schema) || p.Schema.Ref != "" {
					return false
				}
			}
			for _, r := range n.Required {
				if f := byJSON[r]; f == nil || f.Forbidden {
					return false
				}
			}
			notAll = append(notAll, n.Required)
		}
		if x.Ref != "" {
			t, err := target(x)
			if err != nil || !walk(t) {
				return false
			}
		}
		for _, a := range x.AllOf {
			if !walk(a) {
				return false
			}
		}
		return true
	}
	for _, s := range srcs {
		if !walk(s) {
			return nil, nil, false
		}
	}
	return rules, notAll, true
}

// parseRule reads if {properties: {K: {const|enum}}, required: [K]} then
// {properties: {M: {} | {const}}, required: [...]}, with no else.
func parseRule(x *load.Schema, byJSON map[string]*Field) (*Rule, bool) {
	i, t := x.If, x.Then
	if t == nil || x.Else != nil || len(i.Properties) != 1 || len(i.Required) != 1 || i.Required[0] != i.Properties[0].Name ||
		i.Ref != "" || len(i.AllOf)+len(i.AnyOf)+len(i.OneOf) > 0 || i.If != nil || i.Not != nil {
		return nil, false
	}
	key := i.Properties[0].Name
	cs := i.Properties[0].Schema
	var values []any
	switch {
	case cs.HasConst:
		values = []any{cs.Const}
	case len(cs.Enum) > 0:
		values = cs.Enum
	default:
		return nil, false
	}
	r := &Rule{IfKey: key}
	f := byJSON[key]
	if f == nil {
		return nil, false
	}
	for _, v := range values {
		lit, ok := literalFor(f, v)
		if !ok {
			return nil, false
		}
		r.IfValues = append(r.IfValues, lit)
	}
	if t.Ref != "" || len(t.AllOf)+len(t.AnyOf)+len(t.OneOf) > 0 || t.If != nil || t.Not != nil || len(t.Type) > 0 {
		return nil, false
	}
	for _, name := range t.Required {
		if f := byJSON[name]; f == nil || f.Forbidden {
			return nil, false
		}
		r.ThenRequired = append(r.ThenRequired, name)
	}
	for _, p := range t.Properties {
		switch {
		case p.Schema.HasConst && !structuralBesidesConst(p.Schema):
			f := byJSON[p.Name]
			if f == nil {
				return nil, false
			}
			lit, ok := literalFor(f, p.Schema.Const)
			if !ok {
				return nil, false
			}
			r.ThenConst = append(r.ThenConst, MemberValue{Member: p.Name, Value: lit})
		case acceptsAnything(p.Schema):
			// {} : only its presence matters, through required. (A
			// schema with a bound or a pattern is more than that.)
		default:
			return nil, false
		}
	}
	return r, true
}

func structuralBesidesConst(s *load.Schema) bool {
	c := *s
	c.HasConst, c.Const, c.Type = false, nil, nil
	return structural(&c)
}

// literalFor returns v as the JSON literal Validate compares a field with,
// when the field holds a string, boolean or integer value it can compare.
func literalFor(f *Field, v any) (string, bool) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	if f.Const != "" {
		return string(raw), true
	}
	switch f.Repr() {
	case Value, Pointer, Opt:
	default:
		return "", false
	}
	kind := scalarKind(f.Type)
	switch n := v.(type) {
	case string:
		return string(raw), kind == "string"
	case bool:
		return string(raw), kind == "bool"
	case json.Number:
		_, err := strconv.ParseInt(string(n), 10, 64)
		return string(raw), err == nil && kind == "int"
	}
	return "", false
}

// scalarKind is "string", "bool" or "int" for a value Validate can compare
// with a literal, "" otherwise.
func scalarKind(r *Ref) string {
	for r.Kind == NamedRef {
		switch r.Type.Kind {
		case Enum:
			r = r.Type.Enum.Base
		case Named, Alias:
			r = r.Type.Under
		default:
			return ""
		}
	}
	if r.Kind != Builtin {
		return ""
	}
	switch b := r.Builtin; {
	case b == "string", b == "bool":
		return b
	case b != "float64":
		return "int"
	}
	return ""
}

func (b *builder) field(t *Type, p load.Property, required bool, names *namer) (*Field, error) {
	s := p.Schema
	goName := GoName(p.Name)
	if s.GoName != "" {
		goName = s.GoName
	}
	if p.Name == "" && s.GoName == "" {
		// The empty member name is a member like any other.
		goName = "Empty"
	}
	f := &Field{JSON: p.Name, Doc: s.Description, Loc: s.Loc, Required: required}
	if forbidden(s) {
		// The schema false (or not: {}): the member must be absent.
		f.Forbidden, f.Type, f.Name = true, &Ref{Kind: Raw}, p.Name
		return f, nil
	}
	f.Name = names.take(goName, goName+"Field", goName+"Value")
	n, err := b.normalize(s)
	if err != nil {
		return nil, err
	}
	if n.target == nil && required && (n.s.HasConst || len(n.s.Enum) == 1) {
		v := n.s.Const
		if !n.s.HasConst {
			v = n.s.Enum[0]
		}
		raw, _ := json.Marshal(v)
		f.Const = string(raw)
		f.Type = &Ref{Kind: Raw}
		return f, nil
	}
	// An inline type is named after the schema that owns it, not after
	// the struct that merges it: a member of an envelope merged into every
	// message is EnvelopeX, whichever message comes first.
	owner := t.Name
	inside := s.Loc.File == t.Loc.File && strings.HasPrefix(s.Loc.Pointer, t.Loc.Pointer+"/")
	if o := s.Doc.Owner(s); !inside && o.Loc != t.Loc && b.mapping(o) == nil {
		if ot, ok := b.byNode[o]; ok {
			owner = ot.Name
		} else {
			owner = b.nameOf(o)
		}
	}
	r, nullable, err := b.ref(s, owner+f.Name)
	if err != nil {
		return nil, err
	}
	f.Type, f.Nullable = r, nullable
	if r.Kind != NamedRef || r.Type.Loc != s.Loc {
		for _, u := range unchecked(s) {
			t.Unchecked = append(t.Unchecked, p.Name+": "+u)
		}
	}
	if f.Doc == "" && r.Kind == NamedRef {
		f.Doc = r.Type.Doc
	}
	return f, nil
}

// variantInfo is what a union needs to know about one alternative.
type variantInfo struct {
	s        *load.Schema // the alternative as written
	res      *load.Schema // the alternative with a top-level $ref followed
	props    []load.Property
	req      map[string]bool
	closed   bool // additionalProperties false
	catchAll bool
}

func (b *builder) fillUnion(t *Type, s *load.Schema) error {
	alts := s.OneOf
	if len(alts) == 0 {
		alts = s.AnyOf
	}
	u := &UnionType{}
	t.Kind, t.Union = Union, u
	var infos []*variantInfo
	for _, a := range alts {
		vi := &variantInfo{s: a, res: a}
		if a.Ref != "" && !structural(a) {
			r, err := target(a)
			if err != nil {
				return err
			}
			vi.res = r
		}
		ps, req, closed, err := b.props(a, map[*load.Schema]bool{})
		if err != nil {
			return err
		}
		vi.props, vi.req, vi.closed = ps, req, closed
		infos = append(infos, vi)
	}
	tag := b.findTag(s, infos)
	if tag == "" {
		return b.fillUntagged(t, s, infos)
	}
	u.Tag = tag
	u.Unknown = b.names.take("Unknown"+t.Name, "Unlisted"+t.Name, "Other"+t.Name)
	titles := map[string]int{}
	for _, vi := range infos {
		if vi.s.Title != "" {
			titles[vi.s.Title]++
		}
	}
	// Count how many variants extend each shared schema, to decide whether
	// a variant can be that schema's own type.
	wraps := map[*load.Schema]int{}
	for _, vi := range infos {
		if w := b.wrapped(vi, tag, s); w != nil {
			wraps[w]++
		}
	}
	for _, vi := range infos {
		var tagProp *load.Schema
		for _, p := range vi.props {
			if p.Name == tag {
				tagProp = p.Schema
			}
		}
		v := &Variant{Union: t, Doc: vi.s.Description}
		if v.Doc == "" {
			v.Doc = vi.res.Description
		}
		switch {
		case tagProp == nil || !vi.req[tag]:
			// A variant that does not require the tag is the default, used
			// when the tag is absent.
			if u.Default != nil {
				return vi.s.Loc.Errorf("two variants of this union lack the tag %q; only one may be the default", tag)
			}
			u.Default = v
		default:
			c, ok := constString(tagProp)
			if !ok {
				vi.catchAll = true
				u.Open = true
				continue
			}
			v.Tag = c
		}
		hint := vi.s.Title
		if hint == "" && vi.s.GoName != "" {
			hint = vi.s.GoName
		}
		// Variants that share a title are named after their tags.
		var byTag []string
		if v.Tag != "" && vi.s.GoName == "" && titles[vi.s.Title] > 1 {
			// A tag of several words names the variant by itself
			// (user_message_chunk); a one-word tag (add) is qualified by
			// the union (DiffChangeAdd).
			if len(words(v.Tag)) > 1 {
				byTag = []string{GoName(v.Tag)}
			} else {
				byTag = []string{t.Name + GoName(v.Tag)}
			}
		}
		if w := b.wrapped(vi, tag, s); w != nil {
			wt, err := b.named(w)
			if err != nil {
				return err
			}
			name := hint
			if name == "" || GoName(name) == wt.Name {
				// The shared type itself can be the variant only if it is
				// generated here: a type of another package cannot gain the
				// union's method.
				if wraps[w] == 1 && wt.Kind == Struct && wt.External == nil {
					v.Type = wt
					v.TagInStruct = hasConstField(wt, tag)
					wt.Unions = append(wt.Unions, v)
					u.Variants = append(u.Variants, v)
					continue
				}
				name = v.Tag
				if name == "" {
					name = "default"
				}
			}
			if wt.Kind == Struct {
				dt := &Type{Name: b.names.take(first(byTag, GoName(name)), t.Name+GoName(name), t.Name+GoName(v.Tag)), Doc: v.Doc, Loc: vi.s.Loc, Kind: Defined, Under: &Ref{Kind: NamedRef, Type: wt}}
				b.pkg.Types = append(b.pkg.Types, dt)
				v.Type = dt
				if !hasConstField(wt, tag) && v.Tag != "" {
					// The type exists only as this variant: it writes and
					// checks the tag itself, so it cannot lose it.
					dt.OwnTag = v
				}
				v.TagInStruct = true
				dt.Unions = append(dt.Unions, v)
				u.Variants = append(u.Variants, v)
				continue
			}
		}
		if hint == "" {
			hint = v.Tag
			if hint == "" {
				hint = "default"
			}
		}
		vt := &Type{Name: b.names.take(first(byTag, GoName(hint)), t.Name+GoName(hint), t.Name+GoName(v.Tag)), Doc: v.Doc, Loc: vi.s.Loc}
		b.pkg.Types = append(b.pkg.Types, vt)
		b.byNode[vi.s] = vt
		if err := b.fillStructSkip(vt, vi.s, s, tag); err != nil {
			return err
		}
		vt.Unchecked = append(vt.Unchecked, unchecked(vi.s)...)
		if v.Tag != "" {
			// The struct exists only as this variant: the tag is its first
			// member, written and checked by the struct itself.
			tf := &Field{Name: "tag", JSON: tag, Doc: "The union tag.", Loc: vi.s.Loc, Required: true, Const: strconv.Quote(v.Tag), Type: &Ref{Kind: Raw}}
			vt.Struct.Fields = append([]*Field{tf}, vt.Struct.Fields...)
			v.TagInStruct = true
		}
		v.Type = vt
		vt.Unions = append(vt.Unions, v)
		u.Variants = append(u.Variants, v)
	}
	if len(u.Variants) == 0 {
		return s.Loc.Errorf("union has no variant with a constant tag")
	}
	return nil
}

func hasConstField(t *Type, tag string) bool {
	for _, f := range t.Struct.Fields {
		if f.JSON == tag && f.Const != "" {
			return true
		}
	}
	return false
}

// wrapped returns the shared schema a variant only extends: a variant that
// is a plain $ref, or {tag const} with allOf: [$ref] and nothing else. The
// union itself must add no properties of its own.
func (b *builder) wrapped(vi *variantInfo, tag string, union *load.Schema) *load.Schema {
	if len(union.Properties) > 0 || len(union.AllOf) > 0 {
		return nil
	}
	s := vi.s
	if s.Ref != "" && !structural(s) && len(s.AllOf) == 0 {
		if r := vi.res; r != nil && isObject(r) && !isUnion(r) {
			return r
		}
		return nil
	}
	if s.Ref != "" || len(s.AllOf) != 1 || s.AllOf[0].Ref == "" || structural(s.AllOf[0]) {
		return nil
	}
	for _, p := range s.Properties {
		if p.Name != tag {
			return nil
		}
	}
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
		return nil
	}
	r, err := target(s.AllOf[0])
	if err != nil || !isObject(r) || isUnion(r) {
		return nil
	}
	return r
}

func constString(s *load.Schema) (string, bool) {
	if s.HasConst {
		c, ok := s.Const.(string)
		return c, ok
	}
	if len(s.Enum) == 1 {
		c, ok := s.Enum[0].(string)
		return c, ok
	}
	return "", false
}

// findTag picks the discriminating property: the discriminator keyword if
// present; otherwise, among properties that every variant but at most one
// (the default) and any catch-alls requires with a distinct string const,
// the one whose name sorts first.
func (b *builder) findTag(s *load.Schema, infos []*variantInfo) string {
	if s.Discriminator != "" {
		return s.Discriminator
	}
	// consts counts the variants that require a property with a string
	// const; present counts those that have the property at all (consts
	// and catch-alls).
	consts, present := map[string]int{}, map[string]int{}
	for _, vi := range infos {
		for _, p := range vi.props {
			if _, ok := constString(p.Schema); ok && vi.req[p.Name] {
				consts[p.Name]++
			}
			if vi.req[p.Name] {
				present[p.Name]++
			}
		}
	}
	var cands []string
	for name, n := range consts {
		if n < 1 || present[name] < len(infos)-1 {
			continue
		}
		// distinct values, and variants without the const either lack the
		// property (at most one default) or have a non-const catch-all.
		seen := map[string]bool{}
		ok, defaults := true, 0
		for _, vi := range infos {
			var ps *load.Schema
			for _, p := range vi.props {
				if p.Name == name {
					ps = p.Schema
				}
			}
			if ps == nil || !vi.req[name] {
				defaults++
				continue
			}
			c, isConst := constString(ps)
			if !isConst {
				continue
			}
			if seen[c] {
				ok = false
			}
			seen[c] = true
		}
		if ok && defaults <= 1 {
			cands = append(cands, name)
		}
	}
	sort.Strings(cands)
	if len(cands) == 0 {
		return ""
	}
	return cands[0]
}

var jsonKinds = []string{"null", "boolean", "integer", "number", "string", "array", "object"}

// fillUntagged decides an untagged union by JSON kind, and objects among
// them by required members.
func (b *builder) fillUntagged(t *Type, s *load.Schema, infos []*variantInfo) error {
	u := t.Union
	byKind := map[string][]*variantInfo{}
	for i, vi := range infos {
		if i == len(infos)-1 && i > 0 && acceptsAnything(vi.res) {
			// The last alternative accepts any value: what the others do
			// not take decodes to it, kept as raw JSON.
			want := t.Name + "Other"
			if vi.s.Title != "" {
				want = t.Name + GoName(vi.s.Title)
			}
			name := b.names.take(want, t.Name+"Other", t.Name+"Any")
			ft := &Type{Name: name, Doc: vi.s.Description, Loc: vi.s.Loc, Kind: Scalar, Under: &Ref{Kind: Raw}}
			b.pkg.Types = append(b.pkg.Types, ft)
			u.Fallback = &Variant{Union: t, Type: ft, Doc: vi.s.Description}
			ft.Unions = append(ft.Unions, u.Fallback)
			continue
		}
		k := kindOf(vi.res)
		if k == "" {
			return b.undecidable(t, s, infos, fmt.Sprintf("variant %s has no single JSON type", vi.s.Loc.Pointer))
		}
		byKind[k] = append(byKind[k], vi)
	}
	// An integer variant and a number variant are told apart by the
	// literal: a plain integer (no fraction or exponent) that fits in an
	// int64 is the integer variant, any other number the number variant.
	objects := byKind["object"]
	if len(objects) > 1 {
		// Objects are tried most required members first, so only two
		// variants with the same required set cannot be told apart.
		for i, a := range objects {
			for j, c := range objects {
				if i < j && subset(a.req, c.req) && subset(c.req, a.req) {
					return b.undecidable(t, s, infos, fmt.Sprintf("variants %s and %s have no tag and require the same members; give every variant a property with a distinct const (a tag)", a.s.Loc.Pointer, c.s.Loc.Pointer))
				}
			}
		}
		u.By = ByKeys
	} else {
		u.By = ByKind
	}
	if len(s.OneOf) > 0 {
		if why := overlap(byKind); why != "" {
			t.Unchecked = append(t.Unchecked, "oneOf: "+why)
			if strings.HasPrefix(why, "an object may fit both") {
				u.Overlap = "oneOf: " + why
			}
		}
	}
	items := map[*variantInfo]*itemInfo{}
	if arrays := byKind["array"]; len(arrays) > 1 {
		var err error
		if items, err = b.arrayItems(arrays); err != nil {
			return b.undecidable(t, s, infos, err.Error())
		}
	}
	for _, k := range jsonKinds {
		for _, vi := range byKind[k] {
			if len(byKind[k]) > 1 && k != "object" && k != "array" {
				return b.undecidable(t, s, infos, fmt.Sprintf("two variants are of JSON type %s", k))
			}
			v := &Variant{Union: t, JSONKind: k, Doc: vi.s.Description}
			if it := items[vi]; it != nil {
				v.ItemKind, v.ItemKeys = it.kind, it.keys
			}
			for name := range vi.req {
				v.Keys = append(v.Keys, name)
			}
			sort.Strings(v.Keys)
			hint := vi.s.Title
			if hint == "" {
				hint = k
			}
			switch {
			case k == "object":
				var vt *Type
				if vi.res != vi.s && isObject(vi.res) {
					nt, err := b.named(vi.res)
					if err != nil {
						return err
					}
					if nt.Kind == Struct && len(nt.Unions) == 0 {
						vt = nt
					}
				}
				if vt == nil {
					name := t.Name + GoName(hint)
					if vi.s.Title != "" {
						name = b.names.take(GoName(vi.s.Title), name)
					} else {
						// An untitled alternative is named after what its
						// schema says before a number is ever used.
						var alts []string
						for _, a := range b.altNames(vi, byKind["object"]) {
							alts = append(alts, t.Name+a)
						}
						name = b.names.take(first(alts, name), append(alts, name)...)
					}
					vt = &Type{Name: name, Doc: v.Doc, Loc: vi.s.Loc}
					b.pkg.Types = append(b.pkg.Types, vt)
					b.byNode[vi.s] = vt
					if err := b.fillStruct(vt, vi.s, nil); err != nil {
						return err
					}
				}
				v.Type = vt
			default:
				want := t.Name + GoName(hint)
				var alts []string
				if it := items[vi]; it != nil && vi.s.Title == "" {
					// Array alternatives are told apart by their items.
					for _, a := range b.altNames(&variantInfo{s: vi.res.Items, res: itemSchema(vi.res.Items)}, nil) {
						alts = append(alts, t.Name+a+"List")
					}
					alts = append(alts, t.Name+GoName(it.kind)+"List")
					want = first(alts, want)
				}
				r, _, err := b.ref(vi.s, want)
				if err != nil {
					return err
				}
				vt := &Type{Name: b.names.take(want, append(alts, t.Name+GoName(hint))...), Doc: v.Doc, Loc: vi.s.Loc, Kind: Scalar, Under: r}
				if k == "null" {
					vt.Under = nil
				}
				b.pkg.Types = append(b.pkg.Types, vt)
				v.Type = vt
			}
			v.Type.Unions = append(v.Type.Unions, v)
			u.Variants = append(u.Variants, v)
		}
	}
	// Objects decided by keys: more required members first, then order.
	sort.SliceStable(u.Variants, func(i, j int) bool {
		return u.Variants[i].JSONKind == "object" && u.Variants[j].JSONKind == "object" && len(u.Variants[i].Keys) > len(u.Variants[j].Keys)
	})
	return nil
}

type itemInfo struct {
	kind string
	keys []string
}

// arrayItems decides array variants by their first element: each variant's
// items must be of a JSON type no other variant's items are, or objects
// told apart by required members.
func (b *builder) arrayItems(arrays []*variantInfo) (map[*variantInfo]*itemInfo, error) {
	out := map[*variantInfo]*itemInfo{}
	reqs := map[*variantInfo]map[string]bool{}
	for _, vi := range arrays {
		if vi.res.Items == nil {
			return nil, fmt.Errorf("two variants are arrays and %s does not describe its items", vi.s.Loc.Pointer)
		}
		n, err := b.normalize(vi.res.Items)
		if err != nil {
			return nil, err
		}
		is := n.s
		if n.target != nil {
			is = n.target
		}
		k := kindOf(is)
		if k == "" {
			return nil, fmt.Errorf("two variants are arrays and the items of %s have no single JSON type", vi.s.Loc.Pointer)
		}
		it := &itemInfo{kind: k}
		if k == "object" {
			_, req, _, err := b.props(is, map[*load.Schema]bool{})
			if err != nil {
				return nil, err
			}
			reqs[vi] = req
			for name := range req {
				it.keys = append(it.keys, name)
			}
			sort.Strings(it.keys)
		}
		out[vi] = it
	}
	for i, a := range arrays {
		for j, c := range arrays {
			if i == j || out[a].kind != out[c].kind {
				continue
			}
			if out[a].kind != "object" || (subset(reqs[a], reqs[c]) && subset(reqs[c], reqs[a])) {
				return nil, fmt.Errorf("two variants are arrays whose elements cannot be told apart (%s and %s)", a.s.Loc.Pointer, c.s.Loc.Pointer)
			}
		}
	}
	return out, nil
}

func (b *builder) undecidable(t *Type, s *load.Schema, infos []*variantInfo, why string) error {
	if b.opts.Strict {
		return s.Loc.Errorf("this union cannot be discriminated: %s (run protogen without -strict to keep it as raw JSON with an accessor per alternative)", why)
	}
	if t.Union != nil {
		// Variant types made before the union was found undecidable are
		// no variants of it.
		for _, v := range t.Union.Variants {
			keep := v.Type.Unions[:0]
			for _, x := range v.Type.Unions {
				if x.Union != t {
					keep = append(keep, x)
				}
			}
			v.Type.Unions = keep
		}
		if f := t.Union.Fallback; f != nil {
			f.Type.Unions = nil
		}
	}
	t.Kind, t.Union, t.Under = Named, nil, &Ref{Kind: Raw, Lossy: true}
	ru := &RawUnion{Why: why}
	taken := map[string]bool{}
	hintOf := func(vi *variantInfo) string {
		hint := vi.s.Title
		if hint == "" {
			hint = vi.s.GoName
		}
		if hint == "" {
			hint = kindOf(vi.res)
		}
		if hint == "" {
			hint = "Value"
		}
		return hint
	}
	shared := map[string]int{}
	for _, vi := range infos {
		shared[hintOf(vi)]++
	}
	for _, vi := range infos {
		if vi.res.HasType("null") && len(vi.res.Type) == 1 {
			continue
		}
		hint := hintOf(vi)
		if shared[hint] > 1 && vi.s.Title == "" && vi.s.GoName == "" {
			// Untitled alternatives of one JSON type: named after what
			// their schemas say (a const, the members they require or
			// define).
			for _, a := range b.altNames(vi, infos) {
				if !taken[a] {
					hint = a
					break
				}
			}
		}
		r, _, err := b.ref(vi.s, t.Name+GoName(hint))
		if err != nil {
			return err
		}
		name := GoName(hint)
		if r.Kind == NamedRef && (vi.s.Title == "" || taken[name]) {
			name = r.Type.Name
		}
		if taken[name] {
			name = t.Name + name
		}
		if taken[name] {
			b.pkg.Warnings = append(b.pkg.Warnings, vi.s.Loc.Errorf("no accessor for this alternative of %s: its name %s is taken by another", t.Name, name))
			continue
		}
		taken[name] = true
		doc := vi.s.Description
		if doc == "" {
			doc = vi.res.Description
		}
		ru.Candidates = append(ru.Candidates, &Candidate{Name: name, Type: r, Method: methodOf(vi.s), Doc: doc})
	}
	t.RawUnion = ru
	t.Doc = strings.TrimSpace(t.Doc + "\n\nIt is kept as raw JSON, with an accessor per alternative (As…, From…): the alternatives cannot be told apart from the JSON alone (" + why + ").")
	b.pkg.Warnings = append(b.pkg.Warnings, s.Loc.Errorf("%s is kept as raw JSON with an accessor per alternative: %s", t.Name, why))
	return nil
}

// altNames are names for an untitled alternative of a union, from what its
// schema says, most telling first: the name of the schema it refers to,
// the value of a member it fixes with const (a tag the union does not
// use as one), and the members it requires that the other alternatives
// (others) do not all require.
func (b *builder) altNames(vi *variantInfo, others []*variantInfo) []string {
	var out []string
	if vi.res != nil && vi.res != vi.s {
		out = append(out, b.nameOf(vi.res))
	}
	res := vi.res
	if res == nil {
		res = vi.s
	}
	props, req, _, err := b.props(res, map[*load.Schema]bool{})
	if err != nil {
		return out
	}
	for _, p := range props {
		if c, ok := constString(p.Schema); ok && req[p.Name] && c != "" {
			out = append(out, GoName(c))
			break
		}
	}
	var own []string
	for _, name := range sortedKeys(req) {
		shared := len(others) > 1
		for _, o := range others {
			if o != vi && !o.req[name] {
				shared = false
			}
		}
		if !shared {
			own = append(own, GoName(name))
		}
	}
	if len(own) > 0 && len(own) <= 2 {
		out = append(out, "With"+strings.Join(own, "And"))
	}
	// The members it defines that no other alternative defines.
	var defined []string
	for _, p := range props {
		unique := true
		for _, o := range others {
			if o == vi {
				continue
			}
			for _, q := range o.props {
				if q.Name == p.Name {
					unique = false
				}
			}
		}
		if unique {
			defined = append(defined, GoName(p.Name))
		}
	}
	if len(defined) > 0 && len(defined) <= 2 {
		out = append(out, "With"+strings.Join(defined, "And"))
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// itemSchema is an items schema with a plain $ref followed.
func itemSchema(s *load.Schema) *load.Schema {
	if s != nil && s.Ref != "" && !structural(s) && len(s.AllOf) == 0 && s.Target != nil {
		return s.Target
	}
	return s
}

// methodOf is the x-method of an alternative, of the schema it refers to,
// or of the one schema of its allOf.
func methodOf(s *load.Schema) string {
	for i := 0; s != nil && i < 8; i++ {
		if s.Method != "" {
			return s.Method
		}
		switch {
		case s.Target != nil:
			s = s.Target
		case len(s.AllOf) == 1:
			s = s.AllOf[0]
		default:
			return ""
		}
	}
	return ""
}

// overlap says how a value may fit two alternatives of an untagged oneOf
// that the decoder tells apart by JSON type and required members, which
// oneOf forbids and Validate does not check; "" when no value can. Objects
// are exclusive when one requires a member the other, closed, does not
// allow.
func overlap(byKind map[string][]*variantInfo) string {
	if len(byKind["integer"]) > 0 && len(byKind["number"]) > 0 {
		return "an integer fits both the integer and the number alternative"
	}
	if len(byKind["array"]) > 1 {
		return "an array may fit more than one array alternative"
	}
	objs := byKind["object"]
	excludes := func(a, b *variantInfo) bool {
		if !b.closed {
			return false
		}
		for k := range a.req {
			allowed := false
			for _, p := range b.props {
				if p.Name == k && !forbidden(p.Schema) {
					allowed = true
				}
			}
			if !allowed {
				return true
			}
		}
		return false
	}
	for i, a := range objs {
		for _, c := range objs[i+1:] {
			if !excludes(a, c) && !excludes(c, a) {
				return fmt.Sprintf("an object may fit both %s and %s", a.s.Loc.Pointer, c.s.Loc.Pointer)
			}
		}
	}
	return ""
}

// acceptsAnything reports whether a schema accepts every value: true, or
// only annotations.
func acceptsAnything(s *load.Schema) bool {
	if s.Bool != nil {
		return *s.Bool
	}
	return !structural(s) && s.Ref == "" && len(s.AllOf) == 0 && s.Not == nil && s.If == nil && len(s.Unknown) == 0 &&
		constraints(s).Empty() && s.Format == "" && !s.UniqueItems && s.PropertyNames == nil && len(s.DependentRequired) == 0
}

func subset(a, b map[string]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// kindOf is the single JSON type of a variant, or "".
func kindOf(s *load.Schema) string {
	switch {
	case len(s.Type) == 1:
		return s.Type[0]
	case len(s.Type) == 0 && (len(s.Properties) > 0 || len(s.AllOf) > 0 || len(s.Required) > 0):
		return "object"
	case len(s.Type) == 0 && s.HasConst:
		switch s.Const.(type) {
		case string:
			return "string"
		case json.Number:
			return "number"
		}
	}
	return ""
}
