// ValidateDoc, jsonschema/v6's validation read off a parsed document: the
// validator's state and the walk over one schema's keywords (validate).
// Its failures, reads, applicators, object and array keywords and value
// comparisons are in the other files of this package.

package docvalid

import (
	"math/big"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/schema/compile"
)

// ValidateDoc validates node i of d against a compiled schema and returns
// the error tree jsonschema/v6's Validate gives for the value the node
// holds (nil when it is valid): the same leaves, with the same schema
// locations, instance locations, kinds and values, in the same order (the
// members of an object in the order the document has them, where v6 takes
// a map's). It reads the parsed document instead of a value built as
// map[string]any, and builds values only for what a leaf reports.
//
// ok is false when the schema uses a keyword ValidateDoc does not
// evaluate (unevaluated*, $dynamicRef, $recursiveRef, dependencies,
// contains, content*, drafts before 2020-12, vocabulary extensions other
// than compile.IntegerLiteral) or a $ref cycle on one value: then nothing is said, and the
// caller validates the built value with v6.
func ValidateDoc(sch *jsonschema.Schema, d *jsonscan.Doc, i int) (err *jsonschema.ValidationError, ok bool) {
	v := docValidator{d: d, limit: -1, shallow: -1}
	return v.validateRoot(sch, i)
}

// validateRoot is ValidateDoc with v.
func (v *docValidator) validateRoot(sch *jsonschema.Schema, i int) (err *jsonschema.ValidationError, ok bool) {
	e := v.validate(sch, i, nil, 0, false)
	if v.unsupported {
		return nil, false
	}
	if e == nil {
		return nil, true
	}
	causes := []*jsonschema.ValidationError{e}
	if _, group := e.ErrorKind.(*kind.Group); group {
		causes = e.Causes
	}
	return &jsonschema.ValidationError{
		SchemaURL: sch.Location,
		ErrorKind: &kind.Schema{Location: sch.Location},
		Causes:    causes,
	}, true
}

// frame is a schema applied to a value, for v6's $ref cycle check: a
// schema applied twice to one value (vid) without a step into it.
type frame struct {
	sch *jsonschema.Schema
	vid int
}

// cycle reports whether the top frame's schema is already applied to its
// value below it.
func (v *docValidator) cycle() bool {
	top := v.stack[len(v.stack)-1]
	for k := len(v.stack) - 2; k >= 0 && v.stack[k].vid == top.vid; k-- {
		if v.stack[k].sch == top.sch {
			return true
		}
	}
	return false
}

type docValidator struct {
	d           *jsonscan.Doc
	unsupported bool
	// limit, when not negative, is the deepest instance location whose
	// failures are built in full: a member or element deeper than that is
	// only judged, and a failure there is a placeholder (pruned). See
	// union.
	limit int
	// shallow, when not negative, is the depth of the union whose
	// alternatives are being sorted out (see union): the only leaves
	// built are what its choice reads (a wrong type, const or enum at that
	// depth, a wrong const or enum one below), and the rest of a failure
	// is prunedLeaf.
	shallow int
	stack   []frame    // the schemas applied, innermost last
	free    []*errList // failure lists to reuse (see list)
	// reads, when set, collects the string nodes whose contents the
	// validation read (see Memo): what it did depends on nothing else of
	// the value but its skeleton.
	reads *[]read
	path  []string // the instance location being validated, reused
}

// The JSON types as jsonschema/v6 numbers them in its Types bit set.
const (
	tNull    = 1 << 1
	tBoolean = 1 << 2
	tNumber  = 1 << 3
	tInteger = 1 << 4
	tString  = 1 << 5
	tArray   = 1 << 6
	tObject  = 1 << 7
)

func (v *docValidator) typeOf(i int) int {
	switch v.d.Type(i) {
	case jsonscan.Null:
		return tNull
	case jsonscan.Bool:
		return tBoolean
	case jsonscan.Number:
		return tNumber
	case jsonscan.String:
		return tString
	case jsonscan.Array:
		return tArray
	case jsonscan.Object:
		return tObject
	}
	return 0
}

func typeName(t int) string {
	switch t {
	case tNull:
		return "null"
	case tBoolean:
		return "boolean"
	case tNumber:
		return "number"
	case tInteger:
		return "integer"
	case tString:
		return "string"
	case tArray:
		return "array"
	case tObject:
		return "object"
	}
	return ""
}

// supported reports whether every keyword of s that applies is one
// validate evaluates as v6 does.
func supported(s *jsonschema.Schema) bool {
	return s.DraftVersion >= 2020 && s.RecursiveRef == nil && s.DynamicRef == nil &&
		s.UnevaluatedProperties == nil && s.UnevaluatedItems == nil &&
		s.Dependencies == nil && s.Contains == nil &&
		s.ContentEncoding == nil && s.ContentMediaType == nil && s.ContentSchema == nil
}

func clone(loc []string) []string { return append([]string(nil), loc...) }

// validate is v6's validator.validate for node i at instance location loc
// (vid numbers the values on the way, for the cycle check); quiet is
// its boolResult.
func (v *docValidator) validate(s *jsonschema.Schema, i int, loc []string, vid int, quiet bool) *jsonschema.ValidationError {
	if v.unsupported {
		return failed
	}
	if s.Bool != nil {
		if *s.Bool {
			return nil
		}
		if quiet || v.shallow >= 0 {
			return v.standIn(quiet)
		}
		return v.errorAt(s, loc, &kind.FalseSchema{}, quiet)
	}
	v.stack = append(v.stack, frame{s, vid})
	defer func() { v.stack = v.stack[:len(v.stack)-1] }()
	if !supported(s) || v.cycle() {
		v.unsupported = true
		return failed
	}
	t := v.typeOf(i)
	if t == 0 {
		v.unsupported = true
		return failed
	}
	if e, done := v.value(s, i, t, loc, quiet); done {
		return e
	}
	el := v.list(s, loc, quiet)
	defer v.release(el)
	if s.Ref != nil {
		el.add(v.ref(s.Ref, "$ref", i, loc, vid, quiet))
	}
	switch t {
	case tObject:
		v.object(s, i, loc, vid, quiet, el)
	case tArray:
		v.array(s, i, loc, vid, quiet, el)
	case tString:
		v.stringKeywords(s, i, el)
	case tNumber:
		if !v.numberKeywords(s, i, el) {
			return failed
		}
	}
	if len(el.errs) == 0 || !quiet {
		v.cond(s, i, loc, vid, quiet, el)
		if !v.extensions(s, i, t, el) {
			return failed
		}
	}
	if v.unsupported {
		return failed
	}
	switch len(el.errs) {
	case 0:
		return nil
	case 1:
		return el.errs[0]
	}
	if quiet {
		return failed
	}
	if v.allPruned(el.errs) {
		return prunedLeaf
	}
	return v.nodeAt(s.Location, loc, &kind.Group{}, append([]*jsonschema.ValidationError(nil), el.errs...))
}

// value applies the keywords on the value as a whole (type, const, enum,
// format) to node i, of type t; done is set when one failed, and e is the
// failure.
func (v *docValidator) value(s *jsonschema.Schema, i, t int, loc []string, quiet bool) (e *jsonschema.ValidationError, done bool) {
	d := v.d
	if s.Types != nil && !s.Types.IsEmpty() {
		tt := int(*s.Types)
		matched := tt&t != 0
		if !matched && tt&tInteger != 0 && t == tNumber {
			matched = isInteger(v.d.Raw(i))
			v.readAs(i, readInteger, matched)
		}
		if !matched {
			if quiet || v.shallow >= 0 && len(loc) != v.shallow {
				return v.standIn(quiet), true
			}
			v.read(i) // a sentence may quote a number that is not an integer
			return v.errorAt(s, loc, &kind.Type{Got: typeName(t), Want: s.Types.ToStrings()}, quiet), true
		}
	}
	if s.Const != nil {
		if !v.equals(i, *s.Const) {
			if quiet || !v.keepsConst(loc) {
				return v.standIn(quiet), true
			}
			v.readTree(i)
			return v.errorAt(s, loc, &kind.Const{Got: d.Value(i), Want: *s.Const}, quiet), true
		}
	}
	if s.Enum != nil && !v.inEnum(i, s.Enum.Values) {
		if quiet || !v.keepsConst(loc) {
			return v.standIn(quiet), true
		}
		v.readTree(i)
		return v.errorAt(s, loc, &kind.Enum{Got: d.Value(i), Want: s.Enum.Values}, quiet), true
	}
	if s.Format != nil {
		var val any
		if t == tString {
			val, _ = d.String(i)
		} else {
			val = d.Value(i)
			v.readTree(i)
		}
		err := s.Format.Validate(val)
		if t == tString {
			v.readFormat(i, s.Format, err == nil)
		}
		if err != nil {
			if quiet || v.shallow >= 0 {
				return v.standIn(quiet), true
			}
			v.read(i) // the sentence quotes it
			return v.errorAt(s, loc, &kind.Format{Got: val, Want: s.Format.Name, Err: err}, quiet), true
		}
	}
	return nil, false
}

// inEnum reports whether node i equals one of values.
func (v *docValidator) inEnum(i int, values []any) bool {
	for _, item := range values {
		if v.equals(i, item) {
			return true
		}
	}
	return false
}

// stringKeywords applies the string keywords (minLength, maxLength,
// pattern) to node i, a string, adding their failures to el.
func (v *docValidator) stringKeywords(s *jsonschema.Schema, i int, el *errList) {
	var str string
	if s.MinLength != nil || s.MaxLength != nil || s.Pattern != nil {
		str, _ = v.d.String(i)
	}
	strLen := -1
	if s.MinLength != nil || s.MaxLength != nil {
		strLen = utf8.RuneCountInString(str)
		if lengthOK(s, strLen) {
			// Only that the length is in bounds matters.
			v.readTest(i, readLength, s)
		} else {
			v.read(i) // the sentence quotes the length
		}
	}
	if s.MinLength != nil && strLen < *s.MinLength {
		if !el.mark() {
			el.addKind(&kind.MinLength{Got: strLen, Want: *s.MinLength})
		}
	}
	if s.MaxLength != nil && strLen > *s.MaxLength {
		if !el.mark() {
			el.addKind(&kind.MaxLength{Got: strLen, Want: *s.MaxLength})
		}
	}
	if s.Pattern != nil {
		matched := s.Pattern.MatchString(str)
		v.readPattern(i, s.Pattern, matched)
		if !matched && !el.mark() {
			v.read(i) // the sentence quotes it
			el.addKind(&kind.Pattern{Got: str, Want: s.Pattern.String()})
		}
	}
}

// numberKeywords applies the bounds and multipleOf to node i, a number,
// adding their failures to el; false when the number is one v6 cannot
// compare, which is left to it.
func (v *docValidator) numberKeywords(s *jsonschema.Schema, i int, el *errList) bool {
	if s.Minimum == nil && s.Maximum == nil && s.ExclusiveMinimum == nil && s.ExclusiveMaximum == nil && s.MultipleOf == nil {
		return true
	}
	num := ratOf(v.d.Raw(i))
	if num == nil {
		// v6 compares a nil Rat and panics; leave it to v6.
		v.unsupported = true
		return false
	}
	if boundsOK(s, num) {
		// Only that the number is in bounds matters.
		v.readTest(i, readBounds, s)
	} else {
		v.read(i) // the sentence quotes it
	}
	if s.Minimum != nil && num.Cmp(s.Minimum) < 0 {
		if !el.mark() {
			el.addKind(&kind.Minimum{Got: num, Want: s.Minimum})
		}
	}
	if s.Maximum != nil && num.Cmp(s.Maximum) > 0 {
		if !el.mark() {
			el.addKind(&kind.Maximum{Got: num, Want: s.Maximum})
		}
	}
	if s.ExclusiveMinimum != nil && num.Cmp(s.ExclusiveMinimum) <= 0 {
		if !el.mark() {
			el.addKind(&kind.ExclusiveMinimum{Got: num, Want: s.ExclusiveMinimum})
		}
	}
	if s.ExclusiveMaximum != nil && num.Cmp(s.ExclusiveMaximum) >= 0 {
		if !el.mark() {
			el.addKind(&kind.ExclusiveMaximum{Got: num, Want: s.ExclusiveMaximum})
		}
	}
	if s.MultipleOf != nil {
		if q := new(big.Rat).Quo(num, s.MultipleOf); !q.IsInt() {
			if !el.mark() {
				el.addKind(&kind.MultipleOf{Got: num, Want: s.MultipleOf})
			}
		}
	}
	return true
}

// extensions applies the vocabulary extensions to node i, of type t,
// adding their failures to el; false when one is not
// compile.IntegerLiteral, which the document validator does not
// evaluate.
func (v *docValidator) extensions(s *jsonschema.Schema, i, t int, el *errList) bool {
	for _, ext := range s.Extensions {
		if !compile.IsIntegerLiteralExt(ext) {
			v.unsupported = true
			return false
		}
		if t != tNumber {
			continue
		}
		raw := v.d.Raw(i)
		lit := compile.IsIntegerLiteral(string(raw))
		v.readAs(i, readLiteral, lit)
		if !lit && !el.mark() {
			v.read(i) // the sentence quotes it
			el.addKind(&compile.NotIntegerLiteral{Literal: string(raw)})
		}
	}
	return true
}
