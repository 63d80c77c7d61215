// The applicators of ValidateDoc: a schema applied to the same value or to a
// member, $ref, the unions (oneOf, anyOf) and cond (not, allOf, if/then/else).

package docvalid

import (
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/agentproto/agentproto/pkg/validate/explain"
)

// self is v6's validateSelf: s applied to the same value.
func (v *docValidator) self(s *jsonschema.Schema, i int, loc []string, vid int, quiet bool) *jsonschema.ValidationError {
	return v.validate(s, i, loc, vid, quiet)
}

// val is v6's validateVal: s applied to a member or element.
func (v *docValidator) val(s *jsonschema.Schema, i int, loc []string, tok string, vid int, quiet bool) *jsonschema.ValidationError {
	if quiet {
		// No failure is built: the location is not needed.
		return v.validate(s, i, loc, vid+1, true)
	}
	// loc is a prefix of v.path (or the root's empty one): the child's
	// location extends it in place. Every failure copies its location.
	child := append(v.path[:len(loc)], tok)
	v.path = child
	if v.limit >= 0 && len(child) > v.limit {
		if v.validate(s, i, child, vid+1, true) == nil {
			return nil
		}
		return prunedLeaf
	}
	return v.validate(s, i, child, vid+1, false)
}

// union evaluates the alternatives of a oneOf or anyOf that are not
// known to pass, the way v6 does, and returns whether one matched (its
// index), a second matched too (oneOf only), and the failures of the
// others. Unless quiet, it does so in two steps, so that a union of many
// alternatives costs about what one alternative costs: first each
// alternative's failures are built only down to the union's members (the
// depth the explainer's choice among alternatives reads, see
// explain.Alternatives), then the alternatives the explainer would explain
// (explained) are evaluated again in full. The failures of the others
// below that depth are never read: they stand as placeholders.
func (v *docValidator) union(alts []*jsonschema.Schema, one bool, i int, loc []string, vid int, quiet bool) (matched, second int, errs []*jsonschema.ValidationError) {
	matched, second = -1, -1
	saved, savedShallow := v.limit, v.shallow
	if !quiet && (v.limit < 0 || v.limit > len(loc)+1) {
		v.limit = len(loc) + 1
	}
	if !quiet && v.shallow < 0 {
		v.shallow = len(loc)
	}
	for k, sch := range alts {
		e := v.self(sch, i, loc, vid, quiet || matched != -1)
		if e != nil {
			if matched == -1 {
				errs = append(errs, e)
			}
			continue
		}
		if matched == -1 {
			matched = k
			if !one {
				break
			}
		} else {
			second = k
			break
		}
	}
	v.limit, v.shallow = saved, savedShallow
	if quiet || matched != -1 || v.unsupported || v.limit >= 0 && v.limit <= len(loc)+1 {
		return matched, second, errs
	}
	for _, k := range explain.Alternatives(errs, loc) {
		errs[k] = v.self(alts[k], i, loc, vid, false)
	}
	return matched, second, errs
}

func (v *docValidator) ref(s *jsonschema.Schema, kw string, i int, loc []string, vid int, quiet bool) *jsonschema.ValidationError {
	err := v.self(s, i, loc, vid, quiet)
	if err == nil {
		return nil
	}
	if quiet {
		return failed
	}
	if err == prunedLeaf {
		return prunedLeaf
	}
	causes := []*jsonschema.ValidationError{err}
	if _, group := err.ErrorKind.(*kind.Group); group {
		causes = err.Causes
	}
	return v.nodeAt(v.stack[len(v.stack)-1].sch.Location, loc, &kind.Reference{Keyword: kw, URL: s.Location}, causes)
}

// cond is v6's condValidate: not, allOf, anyOf, oneOf and if/then/else.
func (v *docValidator) cond(s *jsonschema.Schema, i int, loc []string, vid int, quiet bool, el *errList) {
	if s.Not != nil {
		if v.self(s.Not, i, loc, vid, true) == nil {
			// A not on a union's member is read when the union's
			// alternatives are sorted out (a catch-all rejecting the
			// tags the others list): errorAt keeps it there.
			if quiet || v.shallow < 0 || len(loc) == v.shallow+1 || !el.mark() {
				el.addKind(&kind.Not{})
			}
		}
	}
	group := func(errs []*jsonschema.ValidationError, k jsonschema.ErrorKind) {
		if quiet {
			el.add(failed)
			return
		}
		if v.allPruned(errs) {
			el.add(prunedLeaf)
			return
		}
		el.add(v.nodeAt(s.Location, loc, k, errs))
	}
	if len(s.AllOf) > 0 {
		var errs []*jsonschema.ValidationError
		for _, sch := range s.AllOf {
			if e := v.self(sch, i, loc, vid, quiet); e != nil {
				errs = append(errs, e)
				if quiet {
					break
				}
			}
		}
		if len(errs) > 0 {
			group(errs, &kind.AllOf{})
		}
	}
	if len(s.AnyOf) > 0 {
		if matched, _, errs := v.union(s.AnyOf, false, i, loc, vid, quiet); matched == -1 {
			group(errs, &kind.AnyOf{})
		}
	}
	if len(s.OneOf) > 0 {
		matched, second, errs := v.union(s.OneOf, true, i, loc, vid, quiet)
		switch {
		case matched == -1:
			group(errs, &kind.OneOf{})
		case second != -1:
			if !el.mark() {
				el.addKind(&kind.OneOf{Subschemas: []int{matched, second}})
			}
		}
	}
	if s.If != nil {
		if v.self(s.If, i, loc, vid, true) == nil {
			if s.Then != nil {
				el.add(v.self(s.Then, i, loc, vid, quiet))
			}
		} else if s.Else != nil {
			el.add(v.self(s.Else, i, loc, vid, quiet))
		}
	}
}
