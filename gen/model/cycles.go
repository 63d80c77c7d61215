package model

// breakCycles finds the struct types that contain themselves by value,
// through required members (a required self-reference, required mutual
// recursion), which Go rejects as an invalid recursive type, and makes the
// member that closes each cycle a pointer. A cycle through wire.Opt (an
// optional, nullable member) cannot be broken that way: it is an error.
func breakCycles(p *Package) error {
	const (
		unvisited = iota
		active
		done
	)
	state := map[*Type]int{}
	var visit func(t *Type) error
	visit = func(t *Type) error {
		state[t] = active
		if t.Struct != nil {
			for _, f := range t.Struct.Fields {
				r := f.Repr()
				if r != Value && r != Opt {
					continue
				}
				next := heldStruct(f.Type)
				if next == nil {
					continue
				}
				switch state[next] {
				case active:
					if r == Opt {
						return f.Loc.Errorf("this optional, nullable member contains its own type again through members that are always present: make one of them not required, or not nullable")
					}
					f.Indirect = true
				case unvisited:
					if err := visit(next); err != nil {
						return err
					}
				}
			}
		}
		if t.Kind == Defined {
			if next := heldStruct(t.Under); next != nil && state[next] == unvisited {
				if err := visit(next); err != nil {
					return err
				}
			}
		}
		state[t] = done
		return nil
	}
	for _, t := range p.Types {
		if state[t] == unvisited {
			if err := visit(t); err != nil {
				return err
			}
		}
	}
	return nil
}

// heldStruct is the generated type a value of r holds by value and whose
// own members may lead back (a struct, or a defined type over one); nil
// for anything Go holds by reference (slices, maps, unions, raw JSON) or
// that has no members.
func heldStruct(r *Ref) *Type {
	for r != nil && r.Kind == NamedRef {
		t := r.Type
		if t.External != nil {
			return nil
		}
		switch t.Kind {
		case Struct, Defined:
			return t
		case Alias, Named, Scalar:
			r = t.Under
		default:
			return nil
		}
	}
	return nil
}
