package model

import (
	"sort"
	"strings"

	"github.com/agentproto/agentproto/gen/load"
)

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
	// Without a description, the sentence is the doc's first and names
	// the type, as a Go doc comment's first sentence does.
	subject := "It"
	if strings.TrimSpace(t.Doc) == "" {
		subject = t.Name
	}
	t.Doc = strings.TrimSpace(t.Doc + "\n\n" + subject + " is kept as raw JSON, with an accessor per alternative (As…, From…): the alternatives cannot be told apart from the JSON alone (" + why + ").")
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
