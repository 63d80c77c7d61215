// Collecting decodes: a decoder that records a value's errors and goes on,
// so that one decode lists every defect of a value, not only the first.

package wire

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentproto/agentproto/internal/suggest"
)

// Collect makes d a collecting decoder, for explaining a value rather than
// deciding it: from the next value on, a generated decoder that meets an
// error in a member or element records it in c (its pointer relative to
// that value), steps over the rest of the member or element, and goes on
// with the next one. A member a closed object does not allow, a member the
// schema forbids, a member of the wrong type, and a required member
// missing are recorded this way; a union whose tag is missing or names no
// variant is recorded where it stands, as one error. Errors of the input's
// syntax and encoding, a member that appears twice, and the defect after
// the first MaxExplained still stop the decode, and are returned as usual.
//
// The values stepped over are left zero or partly decoded, so c then
// drops the failures a check of them would report (see Codec.Explain,
// which uses it). In a decoder that does not collect, Recover and Note
// return the error they are given, and generated code behaves as if
// they were not there: the valid path costs nothing more.
func (d *Decoder) Collect(c *Checker) {
	d.ws()
	d.collect = c
	c.col = &collection{src: d.buf, root: d.pos}
}

// MaxExplained is how many defects a collecting decode and check list
// (see Codec.ExplainAt): past it the list stops, and is not whole. A
// defect the decode records costs a read of the input from the value's
// start, so a hostile value with a defect in each of its many elements
// would otherwise cost the square of its size, and its list as much
// memory as the value.
const MaxExplained = 100

// full reports, of a collecting checker, that it lists MaxExplained
// errors already, and notes then that its list is not whole.
func (c *Checker) full() bool {
	if len(c.errs) < MaxExplained {
		return false
	}
	c.col.partial = true
	return true
}

// Collecting reports whether d is a collecting decoder (see Collect).
func (d *Decoder) Collecting() bool { return d.collect != nil }

// Partial is where generated code says that a defect it recorded in a
// collecting decode may hide others a schema validator reports about the
// same value (its other keywords were not checked): the explanation is
// then not whole (see Codec.ExplainAt). It does nothing in a decoder that
// does not collect.
func (d *Decoder) Partial() {
	if d.collect != nil {
		d.collect.col.partial = true
	}
}

// Redo decodes v again, collecting, from the value that began at offset
// start and that d has read past: a union that tried its variants on a
// copy of the value (which stops at the first error) explains the one
// it chose this way. It reports false, and does nothing, in a decoder
// that does not collect; d is left after the value.
func (d *Decoder) Redo(start int, v Decodable) (bool, error) {
	if d.collect == nil {
		return false, nil
	}
	end, depth := d.pos, d.depth
	d.pos = start
	if err := v.DecodeWire(d); err != nil {
		return true, err
	}
	d.pos, d.depth = end, depth
	return true, nil
}

// RawItems is for the uniqueItems check of the array at pointer p (as
// Check joins pointers) in a collecting check (see Codec.ExplainAt):
// when an element of it, or a value inside one, did not decode (so the
// value checked holds a zero or part of it there), it returns the
// array's elements as raw JSON from the input, to be compared as JSON
// values, and true. Otherwise, and in any other checker, it returns nil,
// false, and the decoded elements are to be compared.
func (c *Checker) RawItems(p string) ([][]byte, bool) {
	if c.col == nil || len(c.col.skipped) == 0 || !c.below(p) {
		return nil, false
	}
	w := Decoder{buf: c.col.src, pos: c.col.root, maxDepth: DefaultMaxDepth}
	if found, err := w.Seek(p); !found || err != nil || w.Kind() != KindArray {
		return nil, false
	}
	if w.BeginArray() != nil {
		return nil, false
	}
	var out [][]byte
	for {
		more, err := w.NextElem()
		if err != nil {
			return nil, false
		}
		if !more {
			return out, true
		}
		raw, err := w.Raw()
		if err != nil {
			return nil, false
		}
		out = append(out, raw)
	}
}

// below reports whether a value a collecting decode stepped over lies
// strictly below pointer p.
func (c *Checker) below(p string) bool {
	for _, s := range c.col.skipped {
		if len(s) > len(p) && s[len(p)] == '/' && s[:len(p)] == p {
			return true
		}
	}
	return false
}

// Input is where a generated check that judges a value by its encoding
// (an if/then/else, an allOf of unions, a oneOf's other alternatives)
// asks whether the encoding is the input's. In a collecting check (see
// Codec.ExplainAt) in which a value below pointer p did not decode (so
// the value holds a zero or part of it there), it is not: Input returns
// the input's bytes of the value at p, which the check judges instead.
// In any other case, and in any other checker, it returns nil at once.
func (c *Checker) Input(p string) []byte {
	if c.col == nil || len(c.col.skipped) == 0 || !c.below(p) {
		return nil
	}
	w := Decoder{buf: c.col.src, pos: c.col.root, maxDepth: DefaultMaxDepth}
	if found, err := w.Seek(p); !found || err != nil {
		return nil
	}
	raw, err := w.Raw()
	if err != nil {
		return nil
	}
	return raw
}

// InputMembers is for the minProperties and maxProperties checks of the
// object at pointer p in a collecting check (see Codec.ExplainAt): when
// a member of it did not decode, or is missing, the count of the members
// decoded is not the input's, and InputMembers returns how many members
// the object has in the input, and true. Otherwise, and in any other
// checker, it returns 0, false at once.
func (c *Checker) InputMembers(p string) (int, bool) {
	if c.col == nil || len(c.col.skipped) == 0 || !c.below(p) {
		return 0, false
	}
	w := Decoder{buf: c.col.src, pos: c.col.root, maxDepth: DefaultMaxDepth}
	if found, err := w.Seek(p); !found || err != nil || w.Kind() != KindObject {
		return 0, false
	}
	n := 0
	if !w.eachMember(func([]byte) bool { n++; return true }) {
		return 0, false
	}
	return n, true
}

// eachMember reads the object at d's position to its end, calling f with
// each member's name (valid until the next read) before it steps over the
// value. It reports whether it read the whole object: false on an error,
// or when f returns false.
func (d *Decoder) eachMember(f func(name []byte) bool) bool {
	if d.BeginObject() != nil {
		return false
	}
	for {
		k, more, err := d.NextKey()
		if err != nil {
			return false
		}
		if !more {
			return true
		}
		if !f(k) || d.skipValue() != nil {
			return false
		}
	}
}

// Partial notes, in a collecting check, that the errors listed may not
// be every defect of the value (see Codec.ExplainAt): a generated check
// calls it where it cannot tell.
func (c *Checker) Partial() {
	if c.col != nil {
		c.col.partial = true
	}
}

// Checkable is a value that can be decoded and checked: every generated
// struct type is one.
type Checkable interface {
	Decodable
	CheckWire(c *Checker, p string)
}

// CheckRaw decodes raw, the JSON of a value found at pointer p, into v
// and checks it, recording what fails under p: the decode's error, or
// what v's CheckWire finds. Generated code uses it for a value kept as
// raw JSON that a type of its own checks (the catch-all of an open union)
// and for a value judged as another type too (an if/then/else). In a
// collecting check see CheckRawFunc.
func (c *Checker) CheckRaw(p string, raw []byte, v Checkable) {
	c.CheckRawFunc(p, raw, v.DecodeWire, v.CheckWire)
}

// CheckRawFunc is CheckRaw for a value that decode decodes and check
// checks (a union, whose functions are not methods).
//
// In a collecting check (see Codec.ExplainAt) the decode collects too,
// so every defect of raw is listed, with offsets in the input when raw is
// the value at p in it. An error already listed (the same pointer and
// keyword) is not listed again; a decoding error where the value's own
// decode failed too leaves the list not whole, as what raw's type would
// say there besides is unknown.
func (c *Checker) CheckRawFunc(p string, raw []byte, decode func(d *Decoder) error, check func(c *Checker, p string)) {
	if c.col == nil {
		d := NewDecoder(raw)
		err := decode(d)
		if err == nil {
			err = d.End()
		}
		if err != nil {
			c.FailWith(p, err)
			return
		}
		check(c, p)
		return
	}
	var sub Checker
	d := NewDecoder(raw)
	d.Collect(&sub)
	err := decode(d)
	if err == nil {
		err = d.End()
	}
	if err != nil {
		if e := (*Error)(nil); errors.As(err, &e) {
			sub.decodeError("", e)
		} else {
			sub.FailWith("", err)
		}
		if _, ok := recoverable(err); !ok {
			sub.col.partial = true
		}
	} else {
		check(&sub, "")
	}
	c.col.partial = c.col.partial || sub.col.partial
	if len(sub.errs) == 0 {
		return
	}
	// Where raw lies in the input, for the offsets of its decoding
	// errors: looked for only when it has errors, as it reads the input
	// from the start (a list of many values checked this way would
	// otherwise cost the square of its size).
	off := -1
	w := Decoder{buf: c.col.src, pos: c.col.root, maxDepth: DefaultMaxDepth}
	if found, err := w.Seek(p); found && err == nil {
		w.ws()
		if start := w.pos; w.skipValue() == nil && string(c.col.src[start:w.pos]) == string(raw) {
			off = start
		}
	}
	for _, e := range sub.errs {
		e.Pointer = p + e.Pointer
		if c.col != nil && len(c.col.skipped) > 0 && c.inSkipped(e.Pointer) {
			if e.Offset >= 0 && c.mayBound(e) {
				c.col.partial = true
			}
			if c.has(e.Pointer, e.Keyword) {
				continue
			}
		}
		if e.Offset >= 0 {
			if off < 0 {
				e.Offset = -1
			} else {
				e.Offset += off
			}
		}
		if c.col != nil && c.full() {
			return
		}
		c.errs = append(c.errs, e)
	}
}

// mayBound reports whether e, an error decoding a value as one type
// where the value also failed to decode as another, may hide more: the
// first type's keywords may apply to the value still (a number that is
// not an integer, or too big, against bounds), as they do not to a value
// of another JSON type (a plain integer failed as something else).
func (c *Checker) mayBound(e *Error) bool {
	if e.Code == CodeRange {
		return true
	}
	if e.Code != CodeType {
		return e.Code != CodeTag
	}
	w := Decoder{buf: c.col.src, pos: c.col.root, maxDepth: DefaultMaxDepth}
	found, err := w.Seek(e.Pointer)
	// A plain integer failed as a type other than a number's.
	return err != nil || !found || w.Kind() == KindNumber && !w.PeekInteger()
}

// has reports whether an error at pointer naming keyword is listed.
func (c *Checker) has(pointer, keyword string) bool {
	for _, e := range c.errs {
		if e.Pointer == pointer && e.Keyword == keyword {
			return true
		}
	}
	return false
}

// recoverable reports whether err is one a collecting decoder records and
// goes on after: an *Error that is not one of syntax, encoding or a
// duplicate member.
func recoverable(err error) (*Error, bool) {
	var e *Error
	if !errors.As(err, &e) || e.Code == CodeSyntax || e.Code == CodeUTF8 || e.Code == CodeDuplicate {
		return nil, false
	}
	return e, true
}

// Recover is where generated decoders hand the error of a member or
// element when they are collecting (see Collect). err is the error, its
// pointer relative to the object or array that began at offset start;
// levels is how many values down from that one lies the array or object
// whose member or element failed (0 for a member of the object itself,
// 1 for an element of an array in one of its members, and so on).
//
// In a collecting decoder Recover records err, moves d past the member or
// element that failed, and returns nil: the caller goes on with the next
// one. Otherwise, and for an error it cannot step over (a syntax error,
// or a value it cannot find the end of), it returns err.
func (d *Decoder) Recover(err error, start, levels int) error {
	if d.collect == nil || d.collect.full() {
		return err
	}
	e, ok := recoverable(err)
	if !ok {
		return err
	}
	at := d.pos
	steps, ok, serr := d.way(at)
	if !ok {
		d.collect.col.partial = true
		if serr != nil {
			return serr
		}
		return err
	}
	w := Decoder{buf: d.buf, pos: start}
	w.ws()
	top := -1
	for i, s := range steps {
		if s.start == w.pos && s.open {
			top = i
			break
		}
	}
	in := top + levels // the container whose member or element failed
	if top < 0 || in+1 >= len(steps) || !steps[in].open {
		d.collect.col.partial = true
		return err
	}
	open := 0
	for _, s := range steps {
		if s.open {
			open++
		}
	}
	base := tokens(steps[1 : top+1])
	d.collect.decodeError(base, e)
	if steps[in+1].end > len(d.buf) {
		// The value that failed does not end: the input's error stops
		// the decode, after the value's own.
		d.collect.col.partial = true
		return serr
	}
	d.pos = steps[in+1].end
	d.depth -= open - (in + 1)
	d.collect.col.skipped = append(d.collect.col.skipped, tokens(steps[1:in+2]))
	return nil
}

// Note is where generated decoders hand an error about a whole value that
// they have read to its end, such as the required members it lacks: start
// is the offset where the value began. A collecting decoder records err
// and returns nil, and the value counts as decoded; any other returns err.
func (d *Decoder) Note(err error, start int) error {
	_, _, err = d.noteAt(err, start)
	return err
}

// NoteMember is Note for the error of a member that the decoder has read
// whole and whose value can still be checked, such as a member whose
// value is not the constant its schema fixes but may break other
// keywords too: err's pointer is relative to the object that began at
// offset start. A collecting decoder records err and returns its Checker
// and the member's pointer, for the generated code to check the value's
// other keywords there; any other returns nil, "" and err.
func (d *Decoder) NoteMember(err error, start int) (*Checker, string, error) {
	base, e, err := d.noteAt(err, start)
	if err != nil {
		return nil, "", err
	}
	return d.collect, base + e.Pointer, nil
}

// NoteValue is Note for an error about the value at d's read position,
// which d has not read yet, such as a union's tag that is missing or not
// a string: err's pointer is relative to that value. A collecting
// decoder records err and returns its Checker and the value's pointer,
// for the generated code to check what it can of the value there before
// it steps over it; any other returns nil, "" and err.
func (d *Decoder) NoteValue(err error) (*Checker, string, error) {
	d.ws()
	base, _, err := d.noteAt(err, d.pos)
	if err != nil {
		return nil, "", err
	}
	return d.collect, base, nil
}

// noteAt records err, whose pointer is relative to the value that began
// at offset start, in a collecting decoder, and returns that value's
// pointer; it returns err when d does not collect or err is not one it
// records (see Note).
func (d *Decoder) noteAt(err error, start int) (string, *Error, error) {
	if d.collect == nil || d.collect.full() {
		return "", nil, err
	}
	e, ok := recoverable(err)
	if !ok {
		return "", nil, err
	}
	w := Decoder{buf: d.buf, pos: start}
	w.ws()
	steps, ok, _ := d.way(w.pos)
	if !ok || steps[len(steps)-1].start != w.pos {
		d.collect.col.partial = true
		return "", nil, err
	}
	base := tokens(steps[1:])
	d.collect.decodeError(base, e)
	return base, e, nil
}

// step is one value on the way from the root of a collecting decode to an
// offset in it.
type step struct {
	tok        string // its pointer token in its parent (escaped)
	start, end int    // where it begins and ends
	open       bool   // an array or object that the offset is inside
}

// tokens joins the tokens of steps into a JSON pointer.
func tokens(steps []step) string {
	p := ""
	for _, s := range steps {
		p += "/" + s.tok
	}
	return p
}

// way returns the values on the way from the root of the collecting
// decode to offset at: the root, then each time the member or element of
// the last one in whose span at lies (from just after the previous
// sibling to its own end), as long as the last one is an array or object
// that at is inside. It reads the input with a decoder of its own. A
// value it cannot read to its end (the input is cut short, or has a
// syntax error in it) is taken to hold every offset from its start on:
// its end is past the input, and the error is returned with the values,
// which are still the way to at. It reports false when not even that is
// known (a syntax error before at).
func (d *Decoder) way(at int) ([]step, bool, error) {
	unknown := len(d.buf) + 1
	w := Decoder{buf: d.buf, pos: d.collect.col.root, maxDepth: d.maxDepth, ends: d.ends}
	w.ws()
	// The root holds at (the decode is inside it): it is not read to its
	// end, which would cost a read of the whole value per defect.
	var serr error
	steps := []step{{start: w.pos, end: unknown}}
	for {
		cur := &steps[len(steps)-1]
		if cur.start >= at || at >= cur.end || (d.buf[cur.start] != '{' && d.buf[cur.start] != '[') {
			return steps, true, serr
		}
		cur.open = true
		obj := d.buf[cur.start] == '{'
		w.pos, w.depth = cur.start+1, 1
		var next *step
		for i := 0; next == nil; i++ {
			var tok string
			if obj {
				key, more, err := w.NextKey()
				if err != nil {
					return nil, false, err
				}
				if !more {
					break
				}
				tok = EscapePointer(string(key))
			} else {
				more, err := w.NextElem()
				if err != nil {
					return nil, false, err
				}
				if !more {
					break
				}
				tok = itoa(i)
			}
			w.ws()
			s := step{tok: tok, start: w.pos, end: unknown}
			if err := w.skipValue(); err != nil {
				serr = err
				next = &s
				break
			}
			if at <= w.pos {
				s.end = w.pos
				next = &s
			}
		}
		if next == nil {
			return steps, true, serr
		}
		steps = append(steps, *next)
	}
}

// decodeError records e, an error a collecting decode met in the value at
// pointer base, keeping its offset and code.
func (c *Checker) decodeError(base string, e *Error) {
	if c.quiet {
		c.failed = true
		return
	}
	c.errs = append(c.errs, &Error{Pointer: base + e.Pointer, Offset: e.Offset, Msg: e.Msg, Code: e.Code, Keyword: e.Keyword, Got: e.Got, Want: e.Want})
}

// Explain is ExplainAt over the whole of data, one JSON document, for a
// caller that needs no decoder of its own; it returns the errors only.
func (c Codec) Explain(data []byte) Errors {
	errs, _ := c.ExplainAt(NewDecoder(data), "")
	return errs
}

// errNoValue stands for a value that did not decode at all (ExplainAt).
var errNoValue = errors.New("the value did not decode")

// ExplainAt lists every defect of the value at pointer in d's input ("" for
// the whole document, which must then end), as the codec's type sees it:
// it decodes the value with a collecting decoder (see Decoder.Collect),
// then checks what decoded with Check, leaving out the failures of the
// members and elements that did not decode (they hold zero or partly
// decoded values). It is for explaining a value, not deciding it: CheckAt
// is faster, and a caller explains the values CheckAt does not prove.
//
// Each error is an *Error whose Pointer (relative to the value at
// pointer) and Keyword say where and which keyword of the schema fails,
// as jsonschema validators name it, and whose Code classifies it;
// decoding errors keep their Offset in d's input, Check's have Offset -1.
// A union is explained by the variant the value selects: its tag when it
// has one, else its JSON type and required members, else (an object that
// has the required members of several variants) the first variant it
// passes as, or the first it decodes as, or the first tried; an open
// union's catch-all type explains a tag no variant has. A value no
// variant takes is one defect, the union's: a tag of the wrong type is
// reported at the tag member (Keyword "type", Code CodeTag), a tag
// naming no variant of a closed union at the tag member too (Keyword
// "const"), a missing tag, or an object with the required members of no
// variant, at the object (Keyword "required", Code CodeTag), and a value
// of a JSON type no variant has at the value (Keyword "type"); the
// variants' own failures are not listed then.
//
// whole reports that errs are certainly every defect a schema validator
// reports about the value, read as above: the codec is Complete (or its
// CompleteValue says so of the value decoded), and nothing happened that
// may hide a defect (a syntax error, a member that appears twice, a value
// whose other keywords could not be checked once one failed, such as a
// number with a fraction where an if/then/else branch wants an integer
// with bounds, more than MaxExplained defects). With whole
// false, errs are still defects, but there may be more. A value the
// codec finds nothing wrong with gives no errors, and whole as above; a
// pointer that names no value gives none and false.
//
// A syntax error (or a member that appears twice) stops the explanation
// where it is found, and is the last error listed; ExplainAt does not
// panic on any input. d is left as CheckAt leaves it: the caller Resets
// it before its next use.
func (c Codec) ExplainAt(d *Decoder, pointer string) (errs Errors, whole bool) {
	if c.Decode == nil {
		return nil, false
	}
	found, err := d.Seek(pointer)
	if err != nil {
		if e, ok := err.(*Error); ok {
			return Errors{e}, false
		}
		return Errors{{Pointer: "", Offset: d.Offset(), Msg: err.Error(), Code: CodeSyntax}}, false
	}
	if !found {
		return nil, false
	}
	var ck Checker
	d.Collect(&ck)
	defer func() { d.collect = nil }()
	start, depth := d.pos, d.depth
	v, err := c.Decode(d)
	if e, ok := recoverable(err); ok {
		// The value itself did not decode (a type, a union's tag): one
		// defect, if the input holds a value there at all. An error from
		// deeper in it (other than a tag's) means the decode stopped
		// inside it, where more may be wrong.
		ck.decodeError("", e)
		if e.Pointer != "" && e.Code != CodeTag {
			ck.col.partial = true
		}
		d.pos, d.depth = start, depth
		v, err = nil, d.skipValue()
		if err == nil && pointer == "" {
			err = d.End()
		}
		if err == nil {
			err = errNoValue
		}
	}
	if err == nil && pointer == "" {
		err = d.End()
	}
	if err != nil && err != errNoValue {
		if e := (*Error)(nil); errors.As(err, &e) {
			ck.decodeError("", e)
		} else {
			ck.FailWith("", err)
		}
		ck.col.partial = true
	}
	if err != nil {
		return ck.errs, !ck.col.partial && c.Complete
	}
	c.Check(&ck, "", v)
	return ck.errs, !ck.col.partial && c.Proves(v)
}

// Missing is where generated decoders report the required members an
// object that began at offset start lacks, once they have read it to its
// end. It returns RequiredError(start, names...); a collecting decoder
// records that error instead, with the object's pointer, and returns nil,
// and the check of the value decoded leaves out the failures of the
// members' zero values (see Collect).
//
// In a collecting decoder the message also names, for each member
// missing, the member of the object that most likely stands for it (a
// misspelling, another case or form): `; found "txt": did you mean
// "text"?`.
func (d *Decoder) Missing(start int, names ...string) error {
	err := RequiredError(start, names...)
	if d.collect == nil || d.collect.quiet {
		return err
	}
	if !d.collect.full() {
		err.(*Error).Msg += d.missingHint(start, names)
	}
	base, _, err := d.noteAt(err, start)
	if err != nil {
		return err
	}
	for _, n := range names {
		d.collect.col.skipped = append(d.collect.col.skipped, base+"/"+EscapePointer(n))
	}
	return nil
}

// MissingTag is the error of a tagged union's value, about to be read,
// that lacks its tag member. In a collecting decoder the message also
// names the member that most likely stands for the tag (see Missing).
func (d *Decoder) MissingTag(tag string) *Error {
	e := &Error{Offset: d.Offset(), Msg: "missing the tag member \"" + tag + "\"", Code: CodeTag, Keyword: "required", Want: []string{tag}}
	if d.collect != nil && !d.collect.quiet && !d.collect.full() {
		e.Msg += d.missingHint(e.Offset, []string{tag})
	}
	return e
}

// Short is Note for an array that began at offset start and ended after
// have of the want elements its schema requires: a collecting decoder
// records err, and the check of the value decoded leaves out the failures
// of the zero values at the positions missing.
func (d *Decoder) Short(err error, start, have, want int) error {
	if d.collect == nil || d.collect.quiet {
		return err
	}
	base, _, err := d.noteAt(err, start)
	if err != nil {
		return err
	}
	for i := have; i < want; i++ {
		d.collect.col.skipped = append(d.collect.col.skipped, base+"/"+itoa(i))
	}
	return nil
}

// maxHintMembers bounds the member names of an object missingHint reads:
// an object with that many or more gets no hint.
const maxHintMembers = 256

// missingHint is what Missing adds to its message: for each name missing,
// the member of the object that begins at offset start most likely meant
// for it.
func (d *Decoder) missingHint(start int, names []string) string {
	w := Decoder{buf: d.buf, pos: start, maxDepth: DefaultMaxDepth}
	var keys []string
	whole := w.eachMember(func(k []byte) bool {
		if len(keys) == maxHintMembers {
			return false
		}
		keys = append(keys, string(k))
		return true
	})
	if !whole || len(keys) == maxHintMembers {
		return ""
	}
	var sb strings.Builder
	for _, n := range names {
		if near := suggest.NearMember(n, keys); near != "" {
			fmt.Fprintf(&sb, "; found %q: did you mean %q?", near, n)
		}
	}
	return sb.String()
}
