package explain

import (
	"encoding/json"
	"math/big"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/message"

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

// read notes that the contents of string node i were read.
func (v *docValidator) read(i int) {
	if v.reads != nil {
		if k := v.d.Type(i); k == jsonscan.String || k == jsonscan.Number {
			*v.reads = append(*v.reads, read{node: i})
		}
	}
}

// read is what a validation learnt from a string or number: its contents,
// or only whether a pattern or a format accepts it, or whether a number
// is an integer (by value, or as a literal).
type read struct {
	node    int
	pattern jsonschema.Regexp
	format  *jsonschema.Format
	as      int  // readInteger or readLiteral, else 0
	ok      bool // what the pattern, format or test said
}

// The tests of a number a read may be.
const (
	readInteger = 1 + iota // an integer by value (JSON Schema's integer)
	readLiteral            // an integer literal (compile.IsIntegerLiteral)
)

// readAs notes that number node i was only tested, as one of the read
// tests, with the answer ok.
func (v *docValidator) readAs(i, as int, ok bool) {
	if v.reads != nil {
		*v.reads = append(*v.reads, read{node: i, as: as, ok: ok})
	}
}

// isInteger reports whether a JSON number's text has an integral value,
// as v6 decides it.
func isInteger(raw []byte) bool {
	r, ok := new(big.Rat).SetString(string(raw))
	return ok && r.IsInt()
}

// readPattern notes that string node i was only asked whether p matches.
func (v *docValidator) readPattern(i int, p jsonschema.Regexp, ok bool) {
	if v.reads != nil {
		*v.reads = append(*v.reads, read{node: i, pattern: p, ok: ok})
	}
}

// readFormat notes that string node i was only asked whether f accepts it.
func (v *docValidator) readFormat(i int, f *jsonschema.Format, ok bool) {
	if v.reads != nil {
		*v.reads = append(*v.reads, read{node: i, format: f, ok: ok})
	}
}

// readTree notes that the contents of every string and number in node i
// were read.
func (v *docValidator) readTree(i int) {
	if v.reads != nil {
		readTree(v.d, i, v.reads)
	}
}

func readTree(d *jsonscan.Doc, i int, reads *[]read) {
	switch d.Type(i) {
	case jsonscan.String, jsonscan.Number:
		*reads = append(*reads, read{node: i})
	case jsonscan.Object:
		d.MemberBytes(i, func(_ []byte, m int) bool { readTree(d, m, reads); return true })
	case jsonscan.Array:
		d.Elements(i, func(e int) bool { readTree(d, e, reads); return true })
	}
}

// number is the exact value of number node i, as v6 reads it.
func (v *docValidator) number(i int) *big.Rat {
	v.read(i)
	r, _ := new(big.Rat).SetString(string(v.d.Raw(i)))
	return r
}

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
	d := v.d
	t := v.typeOf(i)
	if t == 0 {
		v.unsupported = true
		return failed
	}
	if s.Types != nil && !s.Types.IsEmpty() {
		tt := int(*s.Types)
		matched := tt&t != 0
		if !matched && tt&tInteger != 0 && t == tNumber {
			matched = isInteger(v.d.Raw(i))
			v.readAs(i, readInteger, matched)
		}
		if !matched {
			if quiet || v.shallow >= 0 && len(loc) != v.shallow {
				return v.standIn(quiet)
			}
			v.read(i) // a sentence may quote a number that is not an integer
			return v.errorAt(s, loc, &kind.Type{Got: typeName(t), Want: s.Types.ToStrings()}, quiet)
		}
	}
	if s.Const != nil {
		if !v.equals(i, *s.Const) {
			if quiet || !v.keepsConst(loc) {
				return v.standIn(quiet)
			}
			v.readTree(i)
			return v.errorAt(s, loc, &kind.Const{Got: d.Value(i), Want: *s.Const}, quiet)
		}
	}
	if s.Enum != nil {
		matched := false
		for _, item := range s.Enum.Values {
			if v.equals(i, item) {
				matched = true
				break
			}
		}
		if !matched {
			if quiet || !v.keepsConst(loc) {
				return v.standIn(quiet)
			}
			v.readTree(i)
			return v.errorAt(s, loc, &kind.Enum{Got: d.Value(i), Want: s.Enum.Values}, quiet)
		}
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
				return v.standIn(quiet)
			}
			v.read(i) // the sentence quotes it
			return v.errorAt(s, loc, &kind.Format{Got: val, Want: s.Format.Name, Err: err}, quiet)
		}
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
		var str string
		if s.MinLength != nil || s.MaxLength != nil || s.Pattern != nil {
			str, _ = d.String(i)
		}
		if s.MinLength != nil || s.MaxLength != nil {
			v.read(i)
		}
		strLen := -1
		if s.MinLength != nil || s.MaxLength != nil {
			strLen = utf8.RuneCountInString(str)
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
	case tNumber:
		if s.Minimum != nil || s.Maximum != nil || s.ExclusiveMinimum != nil || s.ExclusiveMaximum != nil || s.MultipleOf != nil {
			num := v.number(i)
			if num == nil {
				// v6 compares a nil Rat and panics; leave it to v6.
				v.unsupported = true
				return failed
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
		}
	}
	if len(el.errs) == 0 || !quiet {
		v.cond(s, i, loc, vid, quiet, el)
		for _, ext := range s.Extensions {
			if !compile.IsIntegerLiteralExt(ext) {
				v.unsupported = true
				return failed
			}
			if t != tNumber {
				continue
			}
			raw := d.Raw(i)
			lit := compile.IsIntegerLiteral(string(raw))
			v.readAs(i, readLiteral, lit)
			if !lit && !el.mark() {
				v.read(i) // the sentence quotes it
				el.addKind(&compile.NotIntegerLiteral{Literal: string(raw)})
			}
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
// Explainer.union), then the alternatives the explainer would explain
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
	for _, k := range explained(errs, loc) {
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

func (v *docValidator) object(s *jsonschema.Schema, i int, loc []string, vid int, quiet bool, el *errList) {
	d := v.d
	n := 0
	if s.MinProperties != nil || s.MaxProperties != nil {
		d.MemberBytes(i, func([]byte, int) bool { n++; return true })
	}
	if s.MinProperties != nil && n < *s.MinProperties {
		if !el.mark() {
			el.addKind(&kind.MinProperties{Got: n, Want: *s.MinProperties})
		}
	}
	if s.MaxProperties != nil && n > *s.MaxProperties {
		if !el.mark() {
			el.addKind(&kind.MaxProperties{Got: n, Want: *s.MaxProperties})
		}
	}
	if len(s.Required) > 0 {
		if v.anyMissing(i, s.Required) && !el.mark() {
			el.addKind(&kind.Required{Missing: v.missing(i, s.Required)})
		}
	}
	if el.stop() {
		return
	}
	var additional []string
	d.MemberBytes(i, func(key []byte, m int) bool {
		if el.stop() {
			return false
		}
		sch, evaluated := s.Properties[string(key)]
		if s.AdditionalProperties == nil && len(s.PatternProperties) == 0 && (quiet || !evaluated) {
			// Neither a verdict nor a member the schema leaves alone
			// needs the member's name.
			if evaluated {
				el.add(v.validate(sch, m, loc, vid+1, true))
			}
			return true
		}
		name := string(key)
		if evaluated {
			el.add(v.val(sch, m, loc, name, vid, quiet))
		}
		if len(s.PatternProperties) > 0 {
			for _, re := range patterns(s) {
				if re.MatchString(name) {
					evaluated = true
					el.add(v.val(s.PatternProperties[re], m, loc, name, vid, quiet))
				}
			}
		}
		if !evaluated && s.AdditionalProperties != nil {
			switch a := s.AdditionalProperties.(type) {
			case bool:
				if !a {
					additional = append(additional, name)
				}
			case *jsonschema.Schema:
				el.add(v.val(a, m, loc, name, vid, quiet))
			}
		}
		return true
	})
	if el.stop() {
		return
	}
	if len(additional) > 0 {
		if !el.mark() {
			el.addKind(&kind.AdditionalProperties{Properties: additional})
		}
	}
	if s.PropertyNames != nil {
		d.Members(i, func(name string, _ int) bool {
			if el.stop() {
				return false
			}
			el.add(v.propertyName(s.PropertyNames, name, loc, quiet))
			return true
		})
	}
	if len(s.DependentSchemas) > 0 {
		for _, name := range sortedKeys(s.DependentSchemas) {
			if d.Member(i, name) >= 0 {
				el.add(v.self(s.DependentSchemas[name], i, loc, vid, quiet))
			}
		}
	}
	if len(s.DependentRequired) > 0 {
		for _, name := range sortedKeys(s.DependentRequired) {
			if d.Member(i, name) >= 0 {
				if missing := v.missing(i, s.DependentRequired[name]); missing != nil {
					if !el.mark() {
						el.addKind(&kind.DependentRequired{Prop: name, Missing: missing})
					}
				}
			}
		}
	}
}

// propertyName is v6's check of a member name against propertyNames: the
// name validated as a value of its own, its failure reported at the
// object.
func (v *docValidator) propertyName(s *jsonschema.Schema, name string, loc []string, quiet bool) *jsonschema.ValidationError {
	text, err := json.Marshal(name)
	if err != nil {
		v.unsupported = true
		return failed
	}
	var a jsonscan.Arena
	doc, err := a.Parse(text, 1)
	if err != nil {
		v.unsupported = true
		return failed
	}
	// The name's failures have locations of their own (v6 keeps them
	// relative to the name), read at their own depths.
	sub := docValidator{d: &doc, limit: -1, shallow: v.shallow}
	e := sub.validate(s, doc.Root(), nil, 0, quiet)
	if sub.unsupported {
		v.unsupported = true
		return failed
	}
	if e == nil {
		return nil
	}
	if quiet {
		return failed
	}
	causes := []*jsonschema.ValidationError{e}
	if _, group := e.ErrorKind.(*kind.Group); group {
		causes = e.Causes
	}
	return v.nodeAt(s.Location, loc, &kind.PropertyNames{Property: name}, causes)
}

// patterns lists a schema's patternProperties in the order of their
// source text, so that a member several match is reported the same way
// on every run.
func patterns(s *jsonschema.Schema) []jsonschema.Regexp {
	out := make([]jsonschema.Regexp, 0, len(s.PatternProperties))
	for re := range s.PatternProperties {
		out = append(out, re)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].String() < out[b].String() })
	return out
}

func sortedKeys[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// anyMissing reports whether any of names is not a member of object i.
func (v *docValidator) anyMissing(i int, names []string) bool {
	for _, n := range names {
		if v.d.Member(i, n) < 0 {
			return true
		}
	}
	return false
}

func (v *docValidator) missing(i int, names []string) []string {
	var out []string
	for _, n := range names {
		if v.d.Member(i, n) < 0 {
			out = append(out, n)
		}
	}
	return out
}

func (v *docValidator) array(s *jsonschema.Schema, i int, loc []string, vid int, quiet bool, el *errList) {
	d := v.d
	var elems []int
	d.Elements(i, func(e int) bool { elems = append(elems, e); return true })
	if s.MinItems != nil && len(elems) < *s.MinItems {
		if !el.mark() {
			el.addKind(&kind.MinItems{Got: len(elems), Want: *s.MinItems})
		}
	}
	if s.MaxItems != nil && len(elems) > *s.MaxItems {
		if !el.mark() {
			el.addKind(&kind.MaxItems{Got: len(elems), Want: *s.MaxItems})
		}
	}
	if s.UniqueItems && len(elems) > 1 {
		seen := make(map[string]int, len(elems))
		for k, e := range elems {
			v.readTree(e)
			key := canonical(d.Value(e))
			if j, dup := seen[key]; dup {
				if !el.mark() {
					el.addKind(&kind.UniqueItems{Duplicates: [2]int{j, k}})
				}
				break
			}
			seen[key] = k
		}
	}
	evaluated := min(len(s.PrefixItems), len(elems))
	for k := 0; k < evaluated && !el.stop(); k++ {
		el.add(v.val(s.PrefixItems[k], elems[k], loc, strconv.Itoa(k), vid, quiet))
	}
	if s.Items2020 != nil {
		for k := evaluated; k < len(elems) && !el.stop(); k++ {
			el.add(v.val(s.Items2020, elems[k], loc, strconv.Itoa(k), vid, quiet))
		}
	}
}

// cond is v6's condValidate: not, allOf, anyOf, oneOf and if/then/else.
func (v *docValidator) cond(s *jsonschema.Schema, i int, loc []string, vid int, quiet bool, el *errList) {
	if s.Not != nil {
		if v.self(s.Not, i, loc, vid, true) == nil {
			if !el.mark() {
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

// equals is v6's equality of JSON values, between node i and a value of
// a schema (numbers by their exact value).
func (v *docValidator) equals(i int, want any) bool {
	d := v.d
	switch w := want.(type) {
	case string:
		v.read(i)
		return d.StringIs(i, w)
	case bool:
		b, ok := d.Bool(i)
		return ok && b == w
	case nil:
		return d.Type(i) == jsonscan.Null
	case json.Number, float64, int, int64:
		if d.Type(i) != jsonscan.Number {
			return false
		}
		a := v.number(i)
		b, ok := new(big.Rat).SetString(numText(w))
		return a != nil && ok && a.Cmp(b) == 0
	}
	v.readTree(i)
	return canonical(d.Value(i)) == canonical(want)
}

func numText(v any) string {
	switch n := v.(type) {
	case json.Number:
		return string(n)
	case float64:
		return strconv.FormatFloat(n, 'g', -1, 64)
	case int:
		return strconv.Itoa(n)
	case int64:
		return strconv.FormatInt(n, 10)
	}
	return ""
}

// canonical encodes a JSON value so that two values v6 deems equal
// encode alike: members sorted, numbers by their exact value.
func canonical(v any) string {
	var b []byte
	var enc func(v any)
	enc = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			b = append(b, '{')
			for k, name := range sortedKeys(x) {
				if k > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendQuote(b, name)
				b = append(b, ':')
				enc(x[name])
			}
			b = append(b, '}')
		case []any:
			b = append(b, '[')
			for k, e := range x {
				if k > 0 {
					b = append(b, ',')
				}
				enc(e)
			}
			b = append(b, ']')
		case string:
			b = strconv.AppendQuote(b, x)
		case bool:
			b = strconv.AppendBool(b, x)
		case nil:
			b = append(b, "null"...)
		default:
			if r, ok := new(big.Rat).SetString(numText(x)); ok {
				b = append(b, 'n')
				b = append(b, r.RatString()...)
			} else {
				b = append(b, '?')
			}
		}
	}
	enc(v)
	return string(b)
}
