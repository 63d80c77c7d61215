// How ValidateDoc builds its failures: leaves, nodes, the stand-ins for
// failures no reader looks at, and the list one schema's failures collect in.

package docvalid

import (
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/message"
)

// prunedLeaf stands for failures no reader of the tree looks at (see
// docValidator.shallow and limit). It is shared and never changed.
var prunedLeaf = &jsonschema.ValidationError{ErrorKind: &pruned{}}

// pruned stands for the failures of a value deeper than a union's
// explanation reads in an alternative it does not explain (see union).
type pruned struct{}

func (*pruned) KeywordPath() []string { return nil }

func (*pruned) LocalizedString(*message.Printer) string { return "pruned" }

// failed is what a validation that only needs the verdict (boolResult in
// v6) returns for a failure: the tree is never read.
var failed = &jsonschema.ValidationError{}

// errorAt is a leaf failure of kind k (v6's error).
func (v *docValidator) errorAt(s *jsonschema.Schema, loc []string, k jsonschema.ErrorKind, quiet bool) *jsonschema.ValidationError {
	if quiet {
		return failed
	}
	if v.shallow >= 0 {
		keep := false
		switch k.(type) {
		case *kind.Type:
			keep = len(loc) == v.shallow
		case *kind.Const, *kind.Enum:
			keep = len(loc) == v.shallow || len(loc) == v.shallow+1
		case *kind.Not:
			keep = len(loc) == v.shallow+1
		}
		if !keep {
			return prunedLeaf
		}
	}
	return &jsonschema.ValidationError{SchemaURL: s.Location, InstanceLocation: clone(loc), ErrorKind: k}
}

// mark adds, for a failure of a kind other than a wrong type, const or
// enum, what stands for it when it is not built (quiet, or while a
// union's alternatives are sorted out), and reports whether it did.
func (l *errList) mark() bool {
	if l.quiet || l.v.shallow >= 0 {
		l.errs = append(l.errs, l.v.standIn(l.quiet))
		return true
	}
	return false
}

// standIn is what stands for a failure that is not built.
func (v *docValidator) standIn(quiet bool) *jsonschema.ValidationError {
	if quiet {
		return failed
	}
	return prunedLeaf
}

// keepsConst reports whether a failed const or enum at loc is built.
func (v *docValidator) keepsConst(loc []string) bool {
	return v.shallow < 0 || len(loc) == v.shallow || len(loc) == v.shallow+1
}

// allPruned reports whether causes are all stand-ins while a union's
// alternatives are sorted out: what they make is one too.
func (v *docValidator) allPruned(causes []*jsonschema.ValidationError) bool {
	if v.shallow < 0 {
		return false
	}
	for _, c := range causes {
		if c != prunedLeaf {
			return false
		}
	}
	return true
}

// nodeAt is a failure of kind k made of causes; while a union's
// alternatives are sorted out (shallow), one whose causes are all pruned
// is pruned too.
func (v *docValidator) nodeAt(url string, loc []string, k jsonschema.ErrorKind, causes []*jsonschema.ValidationError) *jsonschema.ValidationError {
	if v.shallow >= 0 {
		all := true
		for _, c := range causes {
			all = all && c == prunedLeaf
		}
		if all {
			return prunedLeaf
		}
	}
	return &jsonschema.ValidationError{SchemaURL: url, InstanceLocation: clone(loc), ErrorKind: k, Causes: causes}
}

// list returns an empty failure list for s applied at loc, reusing one
// released before.
func (v *docValidator) list(s *jsonschema.Schema, loc []string, quiet bool) *errList {
	var el *errList
	if n := len(v.free); n > 0 {
		el, v.free = v.free[n-1], v.free[:n-1]
	} else {
		el = new(errList)
	}
	el.v, el.s, el.loc, el.quiet = v, s, loc, quiet
	el.errs = el.buf[:0]
	return el
}

// release takes back a list whose failures are no longer referred to by
// it: a Group copies them.
func (v *docValidator) release(el *errList) {
	clear(el.buf[:])
	el.errs, el.loc, el.s = nil, nil, nil
	v.free = append(v.free, el)
}

// errList collects the failures of one schema applied to one value.
type errList struct {
	v     *docValidator
	s     *jsonschema.Schema
	loc   []string
	quiet bool
	errs  []*jsonschema.ValidationError
	buf   [4]*jsonschema.ValidationError // errs' first array
}

func (l *errList) add(e *jsonschema.ValidationError) {
	if e != nil {
		l.errs = append(l.errs, e)
	}
}

func (l *errList) addKind(k jsonschema.ErrorKind) {
	l.errs = append(l.errs, l.v.errorAt(l.s, l.loc, k, l.quiet))
}

// stop reports that nothing more need be evaluated: a verdict is all
// that is asked and it is known.
func (l *errList) stop() bool { return l.quiet && len(l.errs) > 0 || l.v.unsupported }
