package docvalid

import (
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/explain"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/compile"
)

// Memo keeps the outcomes of ValidateDoc and their explanations, so that
// thousands of values that fail the same way are explained once. A value
// is known by its skeleton (its shape, member names, booleans and nulls:
// everything but the contents of its strings and numbers) and by the
// contents of the strings and numbers the validation and the explanation
// read (a const, an enum, a pattern, a format, a length, an integer or a
// bound checked, a condition's value). What ValidateDoc and the
// explainer do with a value depends on nothing else of it, so a value
// that agrees with a kept one on its skeleton and on what that one's
// validation read is validated and explained the same way: the
// validation reads the same strings and numbers in the same order and
// finds them alike. A message's free text (a streamed chunk, an id,
// a path) is in no key.
//
// A Memo holds at most a fixed number of outcomes, each of bounded size
// (see memoMax), and starts again empty when full, so its memory is
// bounded whatever the trace. It is safe for concurrent use.
type Memo struct {
	mu    sync.RWMutex // read-locked to look up, locked to keep
	kept  map[place]*shelf
	count int
	hits  atomic.Int64
}

// memoMax bounds the outcomes a Memo keeps, memoVariants those of one
// skeleton (values that differ in a string the validation read),
// memoSkeleton the size of a skeleton worth keeping, and memoContents and
// memoFindings what one outcome may hold of read strings (bytes) and of
// findings: at most about 12 MB in all.
const (
	memoMax      = 1024
	memoVariants = 16
	memoSkeleton = 4 << 10
	memoContents = 4 << 10
	memoFindings = 32
)

// shelf is what a Memo keeps of one place: outcomes by skeleton, and how
// the values it was seeded with (Seed) have paid off.
type shelf struct {
	byShape map[string][]*Outcome
	// seeded counts the values Seed validated here, hits the values
	// an outcome kept here answered for.
	seeded, hits atomic.Int64
}

// place is a schema applied at a place in messages: findings point
// there.
type place struct {
	sch *jsonschema.Schema
	ptr string
}

// Outcome is a value's validation and explanation, kept by a Memo. It is
// read-only once made.
type Outcome struct {
	// Err is ValidateDoc's error tree; nil when the value is valid.
	Err *jsonschema.ValidationError
	// Findings explain Err, with line 0: every cause, including those
	// a check's Skip drops (see AppendFindings).
	Findings []finding.Finding
	locs     [][]string // where each of Findings is, in the value
	reads    []read     // what was read, by node offset from the value's
	contents []string   // and the contents read (for reads of contents)
}

// NewMemo returns an empty Memo.
func NewMemo() *Memo { return &Memo{kept: map[place]*shelf{}} }

// Check validates node i of d (the value of ck) against sch with
// ValidateDoc and explains a failure, or returns the outcome of a value it
// kept that is validated and explained the same way. ok is false when
// ValidateDoc leaves the schema to jsonschema/v6; a nil Outcome means the
// value is valid.
//
// sh, if not nil, keeps the skeletons of d's values between calls about
// the same document (see Shapes).
func (m *Memo) Check(x *explain.Explainer, ck protocol.Check, sch *jsonschema.Schema, d *jsonscan.Doc, i int, sh *Shapes) (out *Outcome, ok bool) {
	at := place{sch, ck.Pointer()}
	skel, fits := sh.of(d, i)
	if fits {
		if o, found := m.find(at, skel, d, i); found {
			return o, true
		}
	}
	var reads []read
	v := docValidator{d: d, limit: -1, shallow: -1, reads: &reads}
	verr, ok := v.validateRoot(sch, i)
	if !ok {
		return nil, false
	}
	o := &Outcome{Err: verr}
	if verr != nil {
		resolve := func(loc []string) int {
			n := i
			for _, tok := range loc {
				n = d.Child(n, tok)
			}
			return n
		}
		// Every cause is kept, with its place in the value: ck.Skip,
		// which may differ from one message to the next, is applied
		// when the findings are given (AppendFindings).
		issues := x.Causes(verr,
			func(loc []string) any { return d.Value(resolve(loc)) },
			func(loc []string) {
				if n := resolve(loc); n >= 0 {
					readTree(d, n, &reads)
				}
			})
		o.Findings = make([]finding.Finding, len(issues))
		o.locs = make([][]string, len(issues))
		for k, is := range issues {
			o.Findings[k] = is.Finding(protocol.Check{Loc: ck.Loc, Ptr: ck.Ptr}, 0)
			o.locs[k] = is.Loc
		}
	}
	if !fits || len(o.Findings) > memoFindings {
		if verr == nil {
			return nil, true
		}
		return o, true
	}
	slices.SortStableFunc(reads, func(a, b read) int { return a.node - b.node })
	reads = slices.Compact(reads)
	o.reads = make([]read, len(reads))
	o.contents = make([]string, len(reads))
	size := 0
	for k, r := range reads {
		n := r.node
		r.node -= i
		o.reads[k] = r
		if r.pattern != nil || r.format != nil || r.as != 0 {
			continue
		}
		if d.Type(n) == jsonscan.Number {
			o.contents[k] = string(d.Raw(n))
		} else {
			o.contents[k], _ = d.String(n)
		}
		size += len(o.contents[k])
	}
	if size > memoContents {
		if verr == nil {
			return nil, true
		}
		return o, true
	}
	m.mu.Lock()
	if m.count >= memoMax {
		// Full: start again, so that the failures of a later part of
		// the trace are kept rather than those it began with.
		clear(m.kept)
		m.count = 0
	}
	sf := m.kept[at]
	if sf == nil {
		sf = &shelf{byShape: map[string][]*Outcome{}}
		m.kept[at] = sf
	}
	if len(sf.byShape[string(skel)]) < memoVariants {
		sf.byShape[string(skel)] = append(sf.byShape[string(skel)], o)
		m.count++
	}
	m.mu.Unlock()
	if verr == nil {
		return nil, true
	}
	return o, true
}

// Seed is Check for a value found valid another way (a faster
// validator), so that the memo answers for the values like it that
// follow: it validates and keeps node i of d only while the values it was
// seeded with at ck's place against sch pay off (each answers for others
// on average), or a few have been; otherwise it does nothing, so that a
// place whose values never repeat costs little.
func (m *Memo) Seed(x *explain.Explainer, ck protocol.Check, sch *jsonschema.Schema, d *jsonscan.Doc, i int, sh *Shapes) {
	at := place{sch, ck.Pointer()}
	m.mu.RLock()
	sf := m.kept[at]
	m.mu.RUnlock()
	if sf == nil {
		m.mu.Lock()
		if sf = m.kept[at]; sf == nil {
			sf = &shelf{byShape: map[string][]*Outcome{}}
			m.kept[at] = sf
		}
		m.mu.Unlock()
	}
	if n := sf.seeded.Load(); n >= seedFree && sf.hits.Load() < 2*n {
		return
	}
	sf.seeded.Add(1)
	m.Check(x, ck, sch, d, i, sh)
}

// seedFree is how many values Seed keeps at a place before they must pay
// off.
const seedFree = 16

// Lookup returns the outcome kept for a value that is validated and
// explained as node i of d (the value of ck) against sch would be, if
// there is one; a nil Outcome means the value is valid. It costs a walk
// of the value's shape when something is kept for the schema at ck's
// place, and nothing else: a caller may ask it before a costlier check.
func (m *Memo) Lookup(ck protocol.Check, sch *jsonschema.Schema, d *jsonscan.Doc, i int, sh *Shapes) (out *Outcome, found bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	sf := m.kept[place{sch, ck.Pointer()}]
	if sf == nil {
		// Nothing kept here: no walk.
		return nil, false
	}
	skel, fits := sh.of(d, i)
	if !fits {
		return nil, false
	}
	return m.match(sf, skel, d, i)
}

func (m *Memo) find(at place, skel []byte, d *jsonscan.Doc, i int) (*Outcome, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.match(m.kept[at], skel, d, i)
}

// match returns the first outcome sf keeps of skeleton skel that node i
// of d matches (read-locked).
func (m *Memo) match(sf *shelf, skel []byte, d *jsonscan.Doc, i int) (*Outcome, bool) {
	if sf == nil {
		return nil, false
	}
	for _, o := range sf.byShape[string(skel)] {
		if o.matches(d, i) {
			m.hits.Add(1)
			sf.hits.Add(1)
			if o.Err == nil {
				return nil, true
			}
			return o, true
		}
	}
	return nil, false
}

// matches reports whether node i of d holds, at the strings o's value
// had read, what they held there (its skeleton being the same).
func (o *Outcome) matches(d *jsonscan.Doc, i int) bool {
	for k, r := range o.reads {
		n := i + r.node
		switch {
		case r.as == readLength:
			str, ok := d.StringBytes(n)
			if !ok || lengthOK(r.sch, utf8.RuneCount(str)) != r.ok {
				return false
			}
			continue
		case r.as != 0:
			if d.Type(n) != jsonscan.Number {
				return false
			}
			raw := d.Raw(n)
			switch r.as {
			case readInteger:
				if isInteger(raw) != r.ok {
					return false
				}
			case readLiteral:
				if compile.IsIntegerLiteral(string(raw)) != r.ok {
					return false
				}
			case readBounds:
				if ok, decided := boundsOKRaw(r.sch, raw); decided {
					if ok != r.ok {
						return false
					}
				} else if num := ratOf(raw); num == nil || boundsOK(r.sch, num) != r.ok {
					return false
				}
			}
			continue
		case r.pattern != nil || r.format != nil:
			str, ok := d.String(n)
			if !ok {
				return false
			}
			if r.pattern != nil && r.pattern.MatchString(str) != r.ok || r.format != nil && (r.format.Validate(str) == nil) != r.ok {
				return false
			}
			continue
		}
		if d.Type(n) == jsonscan.Number {
			if string(d.Raw(n)) != o.contents[k] {
				return false
			}
		} else if !d.StringIs(n, o.contents[k]) {
			return false
		}
	}
	return true
}

// AppendFindings appends the outcome's findings for ck, the check it was
// given for (or one at the same place), each on line, but for those at
// locations ck.Skip drops.
func (o *Outcome) AppendFindings(out []finding.Finding, ck protocol.Check, line int) []finding.Finding {
	for k, f := range o.Findings {
		if ck.Skip != nil && ck.Skip(o.locs[k]) {
			continue
		}
		f.Line = line
		out = append(out, f)
	}
	return out
}

// Hits is how many values a kept outcome answered for.
func (m *Memo) Hits() int { return int(m.hits.Load()) }

// Valid reports whether the outcome is that of a valid value.
func (o *Outcome) Valid() bool { return o == nil || o.Err == nil }

// Shapes keeps the skeletons of one document's values as a Memo is asked
// about them, so that a value asked about against several schemas (a
// message's schema and its wider alternative, each divided into parts)
// is walked once, and its members (the parts) not again. The zero Shapes
// is ready; Reset empties it for another document. It is not safe for
// concurrent use.
type Shapes struct {
	d     *jsonscan.Doc
	spans []span // the values walked, and their members
	buf   []byte // their skeletons
}

// span is where the skeleton of a value is in a Shapes' buf.
type span struct {
	node, start, end int
	fits             bool
}

// Reset forgets the skeletons kept, keeping the storage.
func (sh *Shapes) Reset() {
	sh.d = nil
	sh.spans, sh.buf = sh.spans[:0], sh.buf[:0]
}

// of is the skeleton of node i of d (see skeleton), walked once while sh
// holds d's; a nil sh walks it every time. The bytes are sh's until Reset.
func (sh *Shapes) of(d *jsonscan.Doc, i int) ([]byte, bool) {
	if sh == nil {
		return skeleton(d, i, make([]byte, 0, 256))
	}
	if sh.d != d {
		sh.Reset()
		sh.d = d
	}
	for _, sp := range sh.spans {
		if sp.node == i {
			return sh.buf[sp.start:sp.end:sp.end], sp.fits
		}
	}
	w := skeletonWalk{d: d, b: sh.buf, base: len(sh.buf), fits: true, members: &sh.spans}
	start := len(sh.buf)
	w.walk(i, 0)
	fits := w.fits && len(w.b)-start <= memoSkeleton
	sh.buf = w.b
	sh.spans = append(sh.spans, span{node: i, start: start, end: len(w.b), fits: fits})
	return sh.buf[start:len(w.b):len(w.b)], fits
}

// skeleton appends to b the shape of node i of d: kinds, member names,
// booleans and nulls, but not the contents of strings and numbers; fits is
// false when it would outgrow memoSkeleton.
func skeleton(d *jsonscan.Doc, i int, b []byte) ([]byte, bool) {
	w := skeletonWalk{d: d, b: b, base: len(b), fits: true}
	w.walk(i, 0)
	return w.b, w.fits && len(w.b)-w.base <= memoSkeleton
}

// skeletonWalk appends skeletons to b, from base; members, if set, is
// told where the skeleton of each member of the top object is (the
// skeleton of a value is the same inside its parent's as alone).
type skeletonWalk struct {
	d       *jsonscan.Doc
	b       []byte
	base    int
	fits    bool
	members *[]span
}

func (w *skeletonWalk) walk(i, depth int) {
	if len(w.b)-w.base > memoSkeleton {
		w.fits = false
		return
	}
	d := w.d
	switch d.Type(i) {
	case jsonscan.Object:
		w.b = append(w.b, '{')
		d.MemberBytes(i, func(key []byte, m int) bool {
			w.b = strconv.AppendInt(w.b, int64(len(key)), 10)
			w.b = append(w.b, ':')
			w.b = append(w.b, key...)
			start := len(w.b)
			w.walk(m, depth+1)
			if w.fits && depth == 0 && w.members != nil {
				*w.members = append(*w.members, span{node: m, start: start, end: len(w.b), fits: len(w.b)-start <= memoSkeleton})
			}
			return w.fits
		})
		w.b = append(w.b, '}')
	case jsonscan.Array:
		w.b = append(w.b, '[')
		d.Elements(i, func(e int) bool { w.walk(e, depth+1); return w.fits })
		w.b = append(w.b, ']')
	case jsonscan.String:
		w.b = append(w.b, 's')
	case jsonscan.Number:
		w.b = append(w.b, 'n')
	case jsonscan.Bool:
		if t, _ := d.Bool(i); t {
			w.b = append(w.b, 't')
		} else {
			w.b = append(w.b, 'f')
		}
	case jsonscan.Null:
		w.b = append(w.b, 'z')
	}
}
