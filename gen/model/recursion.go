package model

// recursiveTypes returns the types that can contain themselves: those on a
// cycle of the type graph (members, elements, variants, merged unions,
// condition and member-value types). The checks that decode or encode a
// value again to check it (a general if/then/else, a merged union, the
// one-variant check of a oneOf, trial decoding of overlapping variants,
// member value schemas, uniqueItems of structured elements) cost the size
// of the value each time; on a type that contains itself they would run
// at every level of nesting, so they are left out there and the keyword
// is reported as not checked instead.
//
// The graph takes in the types of generated packages (External.Generated)
// and what they hold, whose code was made by the same rules: they must be
// judged as their own package judged them. It returns the recursive types
// and every type reached, in the order reached.
func recursiveTypes(p *Package) (map[*Type]bool, []*Type) {
	edges := func(t *Type) []*Type {
		var out []*Type
		ref := func(r *Ref) {
			for r != nil {
				switch r.Kind {
				case NamedRef:
					if ext := r.Type.External; ext == nil || ext.Generated {
						out = append(out, r.Type)
					}
					return
				case Slice, Map:
					r = r.Elem
				default:
					return
				}
			}
		}
		if st := t.Struct; st != nil {
			for _, f := range st.Fields {
				ref(f.Type)
			}
			for _, e := range st.Extra {
				ref(e.Type)
			}
			out = append(out, st.Merged...)
			if st.Cond != nil {
				for _, c := range []*Type{st.Cond.If, st.Cond.Then, st.Cond.Else} {
					if c != nil {
						out = append(out, c)
					}
				}
			}
			if st.Embed != nil {
				out = append(out, st.Embed)
			}
		}
		if u := t.Union; u != nil {
			for _, v := range u.Variants {
				out = append(out, v.Type)
			}
			if u.Fallback != nil {
				out = append(out, u.Fallback.Type)
			}
			if u.Other != nil {
				out = append(out, u.Other)
			}
		}
		ref(t.Under)
		return out
	}
	// A type is recursive when its component has more than one type, or
	// it refers to itself.
	var roots []*Type
	for _, t := range p.Types {
		if t.External == nil {
			roots = append(roots, t)
		}
	}
	out := map[*Type]bool{}
	order := components(roots, edges, func(comp []*Type, cycle bool) {
		if cycle {
			for _, w := range comp {
				out[w] = true
			}
		}
	})
	return out, order
}

// components walks the type graph from roots (edges lists what a type
// refers to) by Tarjan's algorithm, and calls each for every strongly
// connected component as it completes, which is after every component it
// reaches, saying whether it is a cycle: more than one type, or one type
// that refers to itself. It returns the types reached, in the order
// reached.
func components(roots []*Type, edges func(*Type) []*Type, each func(comp []*Type, cycle bool)) []*Type {
	index, low := map[*Type]int{}, map[*Type]int{}
	on := map[*Type]bool{}
	var stack, order []*Type
	var visit func(t *Type)
	visit = func(t *Type) {
		index[t], low[t] = len(order), len(order)
		order = append(order, t)
		stack = append(stack, t)
		on[t] = true
		self := false
		for _, w := range edges(t) {
			if w == t {
				self = true
			}
			if _, seen := index[w]; !seen {
				visit(w)
				low[t] = min(low[t], low[w])
			} else if on[w] {
				low[t] = min(low[t], index[w])
			}
		}
		if low[t] != index[t] {
			return
		}
		var comp []*Type
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			on[w] = false
			comp = append(comp, w)
			if w == t {
				break
			}
		}
		each(comp, len(comp) > 1 || self)
	}
	for _, t := range roots {
		if _, seen := index[t]; !seen {
			visit(t)
		}
	}
	return order
}

// guardRecursion leaves out, on types that contain themselves, the checks
// that decode or encode a value again (see recursiveTypes), and reports
// their keywords as not checked. It returns the recursive types, which
// decideCompleteness also needs (a recursive oneOf gets no one-variant
// check). The types of generated packages are guarded here too, in their
// model only, since their own package left the same checks out.
func guardRecursion(p *Package) map[*Type]bool {
	rec, reached := recursiveTypes(p)
	var drop []*Type
	for _, t := range reached {
		if !rec[t] {
			continue
		}
		if st := t.Struct; st != nil {
			if st.Cond != nil {
				drop = append(drop, st.Cond.Types...)
				st.Cond = nil
				t.Unchecked = append(t.Unchecked, "if")
			}
			for range st.Merged {
				t.Unchecked = append(t.Unchecked, "anyOf/oneOf of a merged schema")
			}
			st.Merged = nil
			for _, e := range st.Extra {
				if e.Type != nil && elemRecursive(e.Type, rec) {
					// The rules go together: additionalProperties applies
					// to what the patterns do not match.
					t.Unchecked = append(t.Unchecked, "additionalProperties/patternProperties of a type that contains itself")
					st.Extra = nil
					break
				}
			}
			for _, f := range st.Fields {
				if f.Type != nil && uniqueRecursive(f.Type, rec) {
					t.Unchecked = append(t.Unchecked, f.JSON+": uniqueItems")
				}
			}
		}
		if u := t.Union; u != nil {
			u.NoTrial = true
			if u.Other != nil {
				// The Unknown variant's check would decode the value again
				// as the catch-all at every level: the catch-all goes
				// unchecked.
				drop = append(drop, u.OtherTypes...)
				u.Other, u.OtherTypes = nil, nil
				u.OpenAsks = append(u.OpenAsks, "the catch-all alternative of a type that contains itself")
			}
		}
		if t.Under != nil && uniqueRecursive(t.Under, rec) {
			t.Unchecked = append(t.Unchecked, "uniqueItems")
		}
	}
	if len(drop) > 0 {
		gone := map[*Type]bool{}
		for _, t := range drop {
			gone[t] = true
		}
		var keep []*Type
		for _, t := range p.Types {
			if !gone[t] {
				keep = append(keep, t)
			}
		}
		p.Types = keep
	}
	return rec
}

// elemRecursive reports whether a type use holds a recursive type through
// slices and maps.
func elemRecursive(r *Ref, rec map[*Type]bool) bool {
	for r != nil {
		switch r.Kind {
		case NamedRef:
			return rec[r.Type]
		case Slice, Map:
			r = r.Elem
		default:
			return false
		}
	}
	return false
}

// uniqueRecursive turns off the uniqueItems check of slices (in r) whose
// elements hold a recursive type, and reports whether it did.
func uniqueRecursive(r *Ref, rec map[*Type]bool) bool {
	found := false
	for r != nil && (r.Kind == Slice || r.Kind == Map) {
		if r.Kind == Slice && r.Check.UniqueJSON && elemRecursive(r.Elem, rec) {
			r.Check.UniqueJSON = false
			found = true
		}
		r = r.Elem
	}
	return found
}
