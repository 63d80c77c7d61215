// Collecting decodes: a decoder that records a value's errors and goes on,
// so that one decode lists every defect of a value, not only the first.

package wire

import "errors"

// Collect makes d a collecting decoder, for explaining a value rather than
// deciding it: from the next value on, a generated decoder that meets an
// error in a member or element records it in c (its pointer relative to
// that value), steps over the rest of the member or element, and goes on
// with the next one. A member a closed object does not allow, a member the
// schema forbids, a duplicate member, a member of the wrong type, and a
// required member missing are recorded this way; a union whose tag is
// missing or names no variant is recorded where it stands, as one error.
// Errors of the input's syntax and encoding, and a member that appears
// twice, still stop the decode, and are returned as usual.
//
// The values stepped over are left zero or partly decoded, so c then
// drops the failures a check of them would report (see Codec.Explain,
// which uses it). In a decoder that does not collect, Recover and Note
// return the error they are given, and generated code behaves as if
// they were not there: the valid path costs nothing more.
func (d *Decoder) Collect(c *Checker) {
	d.ws()
	d.collect, d.root = c, d.pos
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
	if d.collect == nil {
		return err
	}
	e, ok := recoverable(err)
	if !ok {
		return err
	}
	at := d.pos
	steps, ok := d.way(at)
	if !ok {
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
		return err
	}
	open := 0
	for _, s := range steps {
		if s.open {
			open++
		}
	}
	d.pos = steps[in+1].end
	d.depth -= open - (in + 1)
	base := tokens(steps[1 : top+1])
	d.collect.decodeError(base, e)
	d.collect.skipped = append(d.collect.skipped, tokens(steps[1:in+2]))
	return nil
}

// Note is where generated decoders hand an error about a whole value that
// they have read to its end, such as the required members it lacks: start
// is the offset where the value began. A collecting decoder records err
// and returns nil, and the value counts as decoded; any other returns err.
func (d *Decoder) Note(err error, start int) error {
	if d.collect == nil {
		return err
	}
	e, ok := recoverable(err)
	if !ok {
		return err
	}
	w := Decoder{buf: d.buf, pos: start}
	w.ws()
	steps, ok := d.way(w.pos)
	if !ok || steps[len(steps)-1].start != w.pos {
		return err
	}
	d.collect.decodeError(tokens(steps[1:]), e)
	return nil
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
// that at is inside. It reads the input with a decoder of its own, and
// reports false when it cannot (a syntax error on the way).
func (d *Decoder) way(at int) ([]step, bool) {
	w := Decoder{buf: d.buf, pos: d.root, maxDepth: d.maxDepth, ends: d.ends}
	w.ws()
	root := step{start: w.pos}
	if w.skipValue() != nil {
		return nil, false
	}
	root.end = w.pos
	steps := []step{root}
	for {
		cur := &steps[len(steps)-1]
		if cur.start >= at || at >= cur.end || (d.buf[cur.start] != '{' && d.buf[cur.start] != '[') {
			return steps, true
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
					return nil, false
				}
				if !more {
					break
				}
				tok = EscapePointer(string(key))
			} else {
				more, err := w.NextElem()
				if err != nil {
					return nil, false
				}
				if !more {
					break
				}
				tok = itoa(i)
			}
			w.ws()
			s := step{tok: tok, start: w.pos}
			if w.skipValue() != nil {
				return nil, false
			}
			if at <= w.pos {
				s.end = w.pos
				next = &s
			}
		}
		if next == nil {
			return steps, true
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
	c.errs = append(c.errs, &Error{Pointer: base + e.Pointer, Offset: e.Offset, Msg: e.Msg, Code: e.Code, Keyword: e.Keyword})
}

// Explain lists every defect of one JSON document as the codec's type
// sees it: it decodes data with a collecting decoder (see
// Decoder.Collect), then checks what decoded with Check, leaving out the
// failures of the members and elements that did not decode (they are zero
// or partly decoded). It returns nil for a value the codec finds nothing
// wrong with. Each error is an *Error whose Pointer and Keyword say where
// and which rule of the schema fails; decoding errors keep their Offset
// and Code, Check's have Offset -1. A syntax error stops the explanation
// where it is found and is the last error listed.
//
// It is for explaining a value, not for deciding one (Verify and CheckAt
// are faster); for a codec that is not Complete it lists what the
// generated code checks, which may be less than the schema asks.
func (c Codec) Explain(data []byte) Errors {
	var ck Checker
	d := NewDecoder(data)
	d.Collect(&ck)
	v, err := c.Decode(d)
	if err == nil {
		err = d.End()
	}
	if err != nil {
		if e, ok := err.(*Error); ok {
			ck.decodeError("", e)
		} else {
			ck.FailWith("", err)
		}
		return ck.errs
	}
	c.Check(&ck, "", v)
	return ck.errs
}

// Missing is where generated decoders report the required members an
// object that began at offset start lacks, once they have read it to its
// end. It returns RequiredError(start, names...); a collecting decoder
// records that error instead, with the object's pointer, and returns nil,
// and the check of the value decoded leaves out the failures of the
// members' zero values (see Collect).
func (d *Decoder) Missing(start int, names ...string) error {
	err := RequiredError(start, names...)
	if d.collect == nil || d.collect.quiet {
		return err
	}
	w := Decoder{buf: d.buf, pos: start}
	w.ws()
	steps, ok := d.way(w.pos)
	if !ok || steps[len(steps)-1].start != w.pos {
		return err
	}
	base := tokens(steps[1:])
	d.collect.decodeError(base, err.(*Error))
	for _, n := range names {
		d.collect.skipped = append(d.collect.skipped, base+"/"+EscapePointer(n))
	}
	return nil
}

// Short is Note for an array that began at offset start and ended after
// have of the want elements its schema requires: a collecting decoder
// records err, and the check of the value decoded leaves out the failures
// of the zero values at the positions missing.
func (d *Decoder) Short(err error, start, have, want int) error {
	if d.collect == nil || d.collect.quiet {
		return err
	}
	w := Decoder{buf: d.buf, pos: start}
	w.ws()
	steps, ok := d.way(w.pos)
	if err = d.Note(err, start); err != nil || !ok {
		return err
	}
	base := tokens(steps[1:])
	for i := have; i < want; i++ {
		d.collect.skipped = append(d.collect.skipped, base+"/"+itoa(i))
	}
	return nil
}
