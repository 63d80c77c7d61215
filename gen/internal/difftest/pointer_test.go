package difftest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/agentproto/agentproto/pkg/wire"
)

// blame is a failure v6 reports: where (an instance location as a JSON
// pointer) and which keyword.
type blame struct {
	ptr, keyword string
}

// v6node is v6's error tree, reduced to what a generated error is compared
// with. A leaf is one failed keyword. A choice is a oneOf or anyOf none of
// whose alternatives holds; its kids are the alternatives' error trees,
// one each. Any other node (the schema, a $ref, allOf, a group of errors)
// only gathers its kids, all of which hold.
type v6node struct {
	blame
	leaf, choice bool
	kids         []*v6node
}

// reduce turns a v6 error into a v6node.
//
// The keywords of an object that v6 reports at the object are blamed
// there: required, additionalProperties (the error lists the members),
// propertyNames (the error names the member; what it finds wrong with
// the name has locations of the name's own, meaningless in the instance,
// so the propertyNames error is a leaf), dependentRequired and
// dependencies. A oneOf that fails because two alternatives hold is a
// leaf. The false schema is blamed as "false", not as "not", and
// Dependency as "dependencies".
func reduce(e *jsonschema.ValidationError) *v6node {
	ptr := ""
	for _, tok := range e.InstanceLocation {
		ptr += "/" + wire.EscapePointer(tok)
	}
	n := &v6node{blame: blame{ptr: ptr}}
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		for _, c := range e.Causes {
			n.kids = append(n.kids, reduce(c))
		}
		return n
	case *kind.AnyOf:
		n.choice, n.keyword = true, "anyOf"
	case *kind.OneOf:
		if len(k.Subschemas) > 0 {
			n.leaf, n.keyword = true, "oneOf"
			return n
		}
		n.choice, n.keyword = true, "oneOf"
	case *kind.PropertyNames:
		n.leaf, n.keyword = true, "propertyNames"
		return n
	case *kind.Not:
		n.leaf, n.keyword = true, "not"
		return n
	case *kind.FalseSchema:
		n.leaf, n.keyword = true, "false"
		return n
	case *kind.Dependency:
		n.leaf, n.keyword = true, "dependencies"
		return n
	default:
		n.leaf, n.keyword = true, e.ErrorKind.KeywordPath()[0]
		return n
	}
	for _, c := range e.Causes {
		n.kids = append(n.kids, reduce(c))
	}
	return n
}

// blames is every failure a generated error may stand for: each leaf of
// the tree, including those of every alternative of a failed choice, and
// each failed choice itself (a generated check that tries the
// alternatives reports the choice, at the value).
//
// A choice whose alternatives all fail on const (or enum) at the choice's
// own pointer is also blamed as enum there: the model reads a oneOf or
// anyOf of constants as an enum, which is what it means.
func (n *v6node) blames(out map[blame]bool) {
	if n.leaf || n.choice {
		out[n.blame] = true
	}
	if n.choice && n.ofValues() {
		out[blame{n.ptr, "enum"}] = true
	}
	for _, k := range n.kids {
		k.blames(out)
	}
}

// ofValues reports whether every alternative of a choice fails on const
// or enum at the choice's pointer, and on nothing else.
func (n *v6node) ofValues() bool {
	var leaves func(m *v6node) bool
	leaves = func(m *v6node) bool {
		if m.leaf {
			return m.ptr == n.ptr && (m.keyword == "const" || m.keyword == "enum")
		}
		return !m.choice && m.every(leaves)
	}
	return n.every(leaves)
}

// every reports whether n has kids and f holds for each.
func (n *v6node) every(f func(*v6node) bool) bool {
	for _, k := range n.kids {
		if !f(k) {
			return false
		}
	}
	return len(n.kids) > 0
}

// under reports whether ptr is at or below at.
func under(ptr, at string) bool {
	return ptr == at || strings.HasPrefix(ptr, at+"/")
}

// coveredBy reports whether the errors reported at pointers ptrs account
// for the failure n: a leaf is at or below one of them; a gathering node's
// kids all are; a failed choice is at or below one of them (the check
// reported the choice), or one of its alternatives is covered in full
// (the check said why the alternative the value took fails; that the
// others fail too is what makes it the one taken).
func (n *v6node) coveredBy(ptrs []string) bool {
	at := func(p string) bool {
		for _, q := range ptrs {
			if under(p, q) {
				return true
			}
		}
		return false
	}
	atNode := func(n *v6node) bool { return at(n.ptr) }
	return n.accounted(atNode, atNode)
}

// accounted reports whether the failure n is accounted for, given what
// accounts for a leaf and for a failed choice itself: a leaf as leaf
// says; a failed choice as choice says, or by one of its alternatives
// accounted for in full; a gathering node by all of its kids.
func (n *v6node) accounted(leaf, choice func(*v6node) bool) bool {
	switch {
	case n.leaf:
		return leaf(n)
	case n.choice:
		if choice(n) {
			return true
		}
		for _, k := range n.kids {
			if k.accounted(leaf, choice) {
				return true
			}
		}
		return false
	}
	for _, k := range n.kids {
		if !k.accounted(leaf, choice) {
			return false
		}
	}
	return true
}

// blamed reports whether a generated error at ptr naming keyword stands
// for one of the failures in all. Two readings the model cannot tell
// apart count as the same (and a third, below): an enum of one value is a const (the model
// keeps a const as an enum of one); and a value of another type than the
// values a schema lists fails type (v6 checks type first and stops) when
// the schema names a type, and enum or const when it does not (the model
// keeps no trace of which), so type, enum and const at one pointer stand
// for each other.
func blamed(ptr, keyword string, all map[blame]bool) bool {
	if all[blame{ptr, keyword}] {
		return true
	}
	switch keyword {
	case "const", "enum", "type":
		return all[blame{ptr, "enum"}] || all[blame{ptr, "const"}] || all[blame{ptr, "type"}]
	}
	return false
}

// explain lists the blames of a v6 tree, for a failure message.
func explain(all map[blame]bool) string {
	var s []string
	for b := range all {
		s = append(s, b.ptr+" "+b.keyword)
	}
	sort.Strings(s)
	return "{" + strings.Join(s, "; ") + "}"
}

// pointerAgreement compares, for one value of a complete codec, where
// the generated code and v6 say it fails. It returns what disagrees, ""
// when they agree, and which path was taken (for counting).
//
//   - The decode fails: its error's pointer, and its keyword, are those
//     of one of v6's blames (a leaf of the error tree, or a failed choice).
//   - The decode succeeds and Check fails: every error Check reports is at
//     the pointer, with the keyword, of one of v6's blames; and every
//     failure v6 reports is at or below the pointer of an error Check
//     reports (coveredBy), so that no defect goes unreported.
//
// A value v6 accepts and the decode rejects is a verdict disagreement,
// which TestGeneratedAgreesWithV6 counts; it is returned as path "falseError".
func pointerAgreement(cs corpusCase, raw []byte) (problem, path string) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return "", "notJSON"
	}
	var root *v6node
	all := map[blame]bool{}
	if err := cs.sch.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return fmt.Sprintf("v6: %v", err), "v6"
		}
		root = reduce(ve)
		root.blames(all)
	}
	got, err := cs.codec.DecodeBytes(raw)
	if err != nil {
		if root == nil {
			return "", "falseError"
		}
		var we *wire.Error
		if !errors.As(err, &we) {
			return fmt.Sprintf("the decode error %v is not a *wire.Error", err), "decode"
		}
		if !blamed(we.Pointer, we.Keyword, all) {
			return fmt.Sprintf("the decode error %q (keyword %q) is none of v6's %s", we.Error(), we.Keyword, explain(all)), "decode"
		}
		return "", "decode"
	}
	var ck wire.Checker
	cs.codec.Check(&ck, "", got)
	if ck.Err() == nil {
		return "", "valid"
	}
	if root == nil {
		return fmt.Sprintf("Check reports %v, v6 accepts the value", ck.Err()), "check"
	}
	var es wire.Errors
	errors.As(ck.Err(), &es)
	var ptrs, bad []string
	for _, e := range es {
		ptrs = append(ptrs, e.Pointer)
		if !blamed(e.Pointer, e.Keyword, all) {
			bad = append(bad, fmt.Sprintf("%q (keyword %q)", e.Error(), e.Keyword))
		}
	}
	if len(bad) > 0 {
		return fmt.Sprintf("Check reports %s, none of v6's %s", strings.Join(bad, ", "), explain(all)), "check"
	}
	if !root.coveredBy(ptrs) {
		return fmt.Sprintf("Check reports %v, which does not account for all of v6's %s", ck.Err(), explain(all)), "check"
	}
	return "", "check"
}

// TestChecksPointWhereV6Points: over every complete subject of the corpus,
// its examples and their one-member mutations, a failing decode points at
// a failure v6 reports and names its keyword, and a failing Check reports
// only failures v6 reports and leaves none of them unreported (see
// pointerAgreement for what counts).
func TestChecksPointWhereV6Points(t *testing.T) {
	counts := map[string]int{}
	var bad disagreements
	for _, cs := range corpus(t) {
		if !cs.codec.Complete {
			counts["incomplete subjects"]++
			continue
		}
		for _, raw := range distinctValues(t, cs.examples) {
			problem, path := pointerAgreement(cs, raw)
			counts[path]++
			bad.add(t, cs.id, raw, problem)
		}
	}
	bad.end(t)
	t.Logf("values by path: %v", counts)
	if counts["decode"] == 0 || counts["check"] == 0 {
		t.Errorf("no failing decode or no failing Check among the values (%v): the test proves nothing", counts)
	}
}

// bytesReader hands out the fuzzer's bytes one at a time, then zeros.
type bytesReader struct{ b []byte }

func (r *bytesReader) next() int {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return int(c)
}

// fuzzValue is a value made from the fuzzer's bytes: one of the probes,
// a string, an integer or a number with a fraction.
func fuzzValue(r *bytesReader) any {
	switch r.next() % 4 {
	case 0:
		return probes[r.next()%len(probes)]
	case 1:
		n := r.next() % 12
		s := make([]byte, 0, n)
		for range n {
			s = append(s, byte(r.next()))
		}
		return string(s)
	case 2:
		return json.Number(fmt.Sprint(int64(int8(r.next())) * int64(1+r.next())))
	}
	return json.Number(fmt.Sprintf("%d.%d", int8(r.next()), 1+r.next()%9))
}

// fuzzMutate changes v in one place the fuzzer's bytes choose: it walks
// into members and elements, then replaces the value there, removes a
// member or element, adds a member, or repeats an element.
func fuzzMutate(v any, r *bytesReader) any {
	op := r.next() % 8
	switch x := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		c := make(map[string]any, len(x)+1)
		for k, val := range x {
			c[k] = val
		}
		switch {
		case op < 4 && len(keys) > 0:
			k := keys[r.next()%len(keys)]
			c[k] = fuzzMutate(x[k], r)
			return c
		case op == 4 && len(keys) > 0:
			delete(c, keys[r.next()%len(keys)])
			return c
		case op == 5:
			names := []string{"zz", "x-new", "n-new", "kind", "type", "mode", "plan", "seats", "email", "phone", "r", "w", "h", "level", "severity"}
			c[names[r.next()%len(names)]] = fuzzValue(r)
			return c
		}
	case []any:
		c := append([]any(nil), x...)
		switch {
		case op < 4 && len(x) > 0:
			i := r.next() % len(x)
			c[i] = fuzzMutate(x[i], r)
			return c
		case op == 4 && len(x) > 0:
			i := r.next() % len(x)
			return append(c[:i], c[i+1:]...)
		case op == 5 && len(x) > 0:
			return append(c, x[r.next()%len(x)])
		case op == 5:
			return append(c, fuzzValue(r))
		}
	}
	return fuzzValue(r)
}

// FuzzChecksAgreeWithV6: an example of a complete subject of the corpus,
// changed in one place the fuzzer chooses, fails (or passes) the
// generated decode and Check where v6 says it does (pointerAgreement),
// and Codec.ExplainAt lists only v6's failures, all of them when it says
// its list is whole (explainAgreement).
func FuzzChecksAgreeWithV6(f *testing.F) {
	cases := corpus(f)
	var complete []corpusCase
	for _, cs := range cases {
		if cs.codec.Complete {
			complete = append(complete, cs)
		}
	}
	for i, cs := range complete {
		for j := range cs.examples {
			f.Add(uint16(i), uint8(j), []byte{})
			f.Add(uint16(i), uint8(j), []byte{0, 0, 0, 1, 3, 'x'})
			f.Add(uint16(i), uint8(j), []byte{5, 1, 2, 7})
		}
	}
	f.Fuzz(func(t *testing.T, subject uint16, example uint8, ops []byte) {
		cs := complete[int(subject)%len(complete)]
		ex := cs.examples[int(example)%len(cs.examples)]
		v := fuzzMutate(ex, &bytesReader{ops})
		raw, err := json.Marshal(v)
		if err != nil {
			t.Skip(err)
		}
		if problem, _ := pointerAgreement(cs, raw); problem != "" {
			t.Errorf("%s: %s: %s", cs.id, raw, problem)
		}
		if problem, _, _, _ := explainAgreement(cs, raw); problem != "" {
			t.Errorf("%s: %s: %s", cs.id, raw, problem)
		}
	})
}

// sameRule reports whether a generated error at ptr naming keyword is the
// failure b: the same pointer, and the same keyword or two of const, enum
// and type (which the model cannot tell apart; see blamed).
func sameRule(ptr, keyword string, b blame) bool {
	return blamed(ptr, keyword, map[blame]bool{b: true})
}

// foundIn reports whether errs name the failure n itself, not only a
// value above it: a leaf by its pointer and keyword (sameRule); a failed
// choice by an error naming the choice at its pointer (as enum too, when
// its alternatives are constants), or by one of its alternatives found
// in full; a gathering node by all of its kids.
func (n *v6node) foundIn(errs wire.Errors) bool {
	has := func(b blame) bool {
		for _, e := range errs {
			if sameRule(e.Pointer, e.Keyword, b) {
				return true
			}
		}
		return false
	}
	leaf := func(n *v6node) bool { return has(n.blame) }
	choice := func(n *v6node) bool {
		if has(n.blame) || n.ofValues() && has(blame{n.ptr, "enum"}) {
			return true
		}
		for _, e := range errs {
			if n.allRejectAt(e) {
				return true
			}
		}
		return false
	}
	return n.accounted(leaf, choice)
}

// allRejectAt reports whether e is a defect that every alternative of the
// failed choice n has, so that e alone explains why n fails: a union's
// tag. e is either a member of the choice's value that every alternative
// rejects (const, enum or type at it: a tag of the wrong type, or naming
// no alternative), or a required member missing from the value itself
// that every alternative requires (a missing tag). An alternative for
// another JSON type (type fails at the value itself) rejects anything.
// Such a tag is one defect, as Codec.ExplainAt documents: the
// alternatives' other failures are not what is wrong with the value.
func (n *v6node) allRejectAt(e *wire.Error) bool {
	var match func(m *v6node) bool
	switch {
	case e.Pointer == n.ptr && e.Keyword == "required":
		match = func(m *v6node) bool { return m.ptr == n.ptr && (m.keyword == "required" || m.keyword == "type") }
	case strings.HasPrefix(e.Pointer, n.ptr+"/") && !strings.Contains(e.Pointer[len(n.ptr)+1:], "/") &&
		(e.Keyword == "const" || e.Keyword == "enum" || e.Keyword == "type"):
		match = func(m *v6node) bool {
			return m.ptr == e.Pointer && (m.keyword == "const" || m.keyword == "enum" || m.keyword == "type") ||
				m.ptr == n.ptr && m.keyword == "type"
		}
	default:
		return false
	}
	var rejects func(m *v6node) bool
	rejects = func(m *v6node) bool {
		switch {
		case m.leaf:
			return match(m)
		case m.choice:
			return m.every(rejects)
		}
		for _, k := range m.kids {
			if rejects(k) {
				return true
			}
		}
		return false
	}
	return n.every(rejects)
}

// leafPointers is how many distinct pointers v6's leaves name outside any
// failed choice: the defects of a value that are surely separate.
func (n *v6node) leafPointers(out map[string]bool) {
	switch {
	case n.leaf:
		out[n.ptr] = true
	case n.choice:
		out[n.ptr] = true
	default:
		for _, k := range n.kids {
			k.leafPointers(out)
		}
	}
}

// explainAgreement compares, for one value of a complete codec, every
// defect Codec.ExplainAt lists with every failure v6 reports: each listed
// error is one of v6's blames (pointer and keyword; see blamed); and when
// ExplainAt says the list is whole, each failure v6 reports is listed
// itself (foundIn), under the rules of pointerAgreement for oneOf and
// anyOf and allRejectAt for a union's tag. A value v6 accepts has no
// defect. defects is how many separate failures v6 reports
// (leafPointers); whole is what ExplainAt said.
//
// The value is explained twice, as a document and inside another one
// (at /x/1 of {"x":[0,value]}): the second lists the same errors, their
// offsets moved by the bytes before the value.
func explainAgreement(cs corpusCase, raw []byte) (problem string, defects int, whole bool, wants int) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return "", 0, false, 0
	}
	errs, whole := cs.codec.ExplainAt(wire.NewDecoder(raw), "")
	if p := explainedInside(cs, raw, errs, whole); p != "" {
		return p, 0, whole, 0
	}
	verr := cs.sch.Validate(inst)
	if verr == nil {
		if len(errs) > 0 {
			return fmt.Sprintf("ExplainAt lists %v, v6 accepts the value", errs), 0, whole, 0
		}
		return "", 0, whole, 0
	}
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return fmt.Sprintf("v6: %v", verr), 0, whole, 0
	}
	root := reduce(ve)
	all := map[blame]bool{}
	root.blames(all)
	ptrs := map[string]bool{}
	root.leafPointers(ptrs)
	if len(errs) == 0 {
		return fmt.Sprintf("ExplainAt lists nothing, v6 reports %s", explain(all)), len(ptrs), whole, 0
	}
	var bad []string
	for _, e := range errs {
		if !blamed(e.Pointer, e.Keyword, all) {
			bad = append(bad, fmt.Sprintf("%q (keyword %q)", e.Error(), e.Keyword))
		}
	}
	if len(bad) > 0 {
		return fmt.Sprintf("ExplainAt lists %s, none of v6's %s", strings.Join(bad, ", "), explain(all)), len(ptrs), whole, 0
	}
	if whole && !root.foundIn(errs) {
		return fmt.Sprintf("ExplainAt lists %v as whole, which misses some of v6's %s", errs, explain(all)), len(ptrs), whole, 0
	}
	p, n := wantsAgree(errs, ve)
	return p, len(ptrs), whole, n
}

// wantsAgree reports how an error's Want differs from what v6 says the
// schema wants at its pointer, for the types and values v6 wants outside
// any oneOf or anyOf (inside one, an error of the generated code speaks
// for the alternative it explains by, or for the union at once, and its
// pointer and keyword are what the proof compares). For a "type" or an
// "enum" error the lists are the same; for a "required" one, every member
// named is one v6 finds missing there, in any alternative. The types and
// strings found (Got) are v6's. "" when they agree; n counts the errors
// compared.
func wantsAgree(errs wire.Errors, ve *jsonschema.ValidationError) (problem string, n int) {
	v6 := map[blame][]string{}  // what v6's leaves want, by place and keyword
	found := map[blame]string{} // what they found: a type, or a string
	var walk func(e *jsonschema.ValidationError, inChoice bool)
	walk = func(e *jsonschema.ValidationError, inChoice bool) {
		switch e.ErrorKind.(type) {
		case *kind.OneOf, *kind.AnyOf:
			inChoice = true
		}
		for _, c := range e.Causes {
			walk(c, inChoice)
		}
		if _, required := e.ErrorKind.(*kind.Required); inChoice && !required {
			return // a member missing is missing whatever the alternative
		}
		b := blame{ptr: ""}
		if len(e.InstanceLocation) > 0 {
			b.ptr = "/" + strings.Join(escapeAll(e.InstanceLocation), "/")
		}
		switch k := e.ErrorKind.(type) {
		case *kind.Type:
			b.keyword = "type"
			v6[b] = append(v6[b], k.Want...)
			found[b] = k.Got
			if k.Got == "integer" {
				found[b] = "number" // the JSON type; v6 names an integral one so
			}
		case *kind.Enum:
			if got, ok := k.Got.(string); ok {
				found[blame{b.ptr, "enum"}] = got
			}
			for _, w := range k.Want {
				s, ok := w.(string)
				if !ok {
					return // compared as strings only
				}
				b.keyword = "enum"
				v6[b] = append(v6[b], s)
			}
		case *kind.Required:
			b.keyword = "required"
			v6[b] = append(v6[b], k.Missing...)
		}
	}
	walk(ve, false)
	for _, e := range errs {
		want, ok := v6[blame{e.Pointer, e.Keyword}]
		if !ok || e.Want == nil {
			continue
		}
		n++
		agrees := subset(e.Want, want)
		if e.Keyword != "required" {
			agrees = agrees && subset(want, e.Want)
		}
		if !agrees {
			return fmt.Sprintf("ExplainAt's %q wants %q at %s, v6's %s wants %q", e.Error(), e.Want, e.Pointer, e.Keyword, want), n
		}
		if got, ok := found[blame{e.Pointer, e.Keyword}]; ok && e.Got != got {
			return fmt.Sprintf("ExplainAt's %q found %q at %s, v6's %s found %q", e.Error(), e.Got, e.Pointer, e.Keyword, got), n
		}
	}
	return "", n
}

func escapeAll(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = wire.EscapePointer(t)
	}
	return out
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// explainedInside explains raw at /x/1 of a document that holds it and
// reports how that differs from errs and whole, raw's own explanation.
func explainedInside(cs corpusCase, raw []byte, errs wire.Errors, whole bool) string {
	const before = `{"x":[0,`
	doc := append(append([]byte(before), raw...), "]}"...)
	in, inWhole := cs.codec.ExplainAt(wire.NewDecoder(doc), "/x/1")
	same := len(in) == len(errs) && inWhole == whole
	for i := 0; same && i < len(in); i++ {
		a, b := in[i], errs[i]
		off := b.Offset
		if off >= 0 {
			off += len(before)
		}
		same = a.Pointer == b.Pointer && a.Keyword == b.Keyword && a.Code == b.Code && a.Msg == b.Msg && a.Offset == off
	}
	if !same {
		return fmt.Sprintf("ExplainAt at /x/1 of a document lists %v (whole %v), alone %v (whole %v)", in, inWhole, errs, whole)
	}
	return ""
}

// twoAndThree returns v changed in two and in three members at once, each
// replaced by one of a few values that break most schemas (or removed),
// and, for each pair of members, each changed by one of its own first
// mutations: values with several defects at once.
func twoAndThree(v any) []any {
	x, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	keys := slices.Sorted(maps.Keys(x))
	with := func(vals map[string]any) map[string]any {
		c := make(map[string]any, len(x))
		for k, val := range x {
			c[k] = val
		}
		for k, val := range vals {
			if val == nil {
				delete(c, k)
			} else {
				c[k] = val
			}
		}
		return c
	}
	bads := []any{"x", json.Number("-1"), map[string]any{}, []any{json.Number("1.5")}, true, "toolong-string"}
	var out []any
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			for _, b := range bads {
				out = append(out, with(map[string]any{keys[i]: b, keys[j]: b}))
				for k := j + 1; k < len(keys) && k < j+3; k++ {
					out = append(out, with(map[string]any{keys[i]: b, keys[j]: b, keys[k]: b}))
				}
			}
			mi, mj := mutations(x[keys[i]]), mutations(x[keys[j]])
			for n := len(probes); n < len(mi) && n < len(probes)+6; n++ {
				for m := len(probes); m < len(mj) && m < len(probes)+6; m++ {
					out = append(out, with(map[string]any{keys[i]: mi[n], keys[j]: mj[m]}))
				}
			}
		}
	}
	return out
}

// disagreements counts a proof's disagreements, and reports the first 40
// of them and then how many there are in all.
type disagreements struct{ n int }

// add reports problem, of the value raw of subject id, if there is one.
func (d *disagreements) add(t *testing.T, id string, raw []byte, problem string) {
	t.Helper()
	if problem == "" {
		return
	}
	if d.n++; d.n <= 40 {
		t.Errorf("%s: %s: %s", id, raw, problem)
	}
}

// end reports how many disagreements there are, when not all were.
func (d *disagreements) end(t *testing.T) {
	t.Helper()
	if d.n > 40 {
		t.Errorf("… %d disagreements in all", d.n)
	}
}

// nestedTwoAndThree is twoAndThree of v and of every object inside it,
// each put back in its place in a copy of v: a union's tag changed with a
// member every variant has is two defects of a value nested in another.
func nestedTwoAndThree(v any) []any {
	out := twoAndThree(v)
	switch x := v.(type) {
	case map[string]any:
		for k, m := range x {
			for _, n := range nestedTwoAndThree(m) {
				c := make(map[string]any, len(x))
				for kk, vv := range x {
					c[kk] = vv
				}
				c[k] = n
				out = append(out, c)
			}
		}
	case []any:
		for i, m := range x {
			for _, n := range nestedTwoAndThree(m) {
				c := append([]any(nil), x...)
				c[i] = n
				out = append(out, c)
			}
		}
	}
	return out
}

// TestExplainListsWhatV6Reports: over every complete subject of the
// corpus, its examples, their one-member mutations, and changes of two
// and three members at once (of the value and of every object in it),
// Codec.ExplainAt lists only failures v6
// reports, and, where it says the list is whole, every one of them (see
// explainAgreement); values with two and three separate defects are among
// them, so that "every defect" is tested.
//
// ExplainAt says a list may not be whole only where something may hide a
// defect. In this corpus that is 42 values of 47,982: 3 with a number
// with a fraction where an if/then/else's branch, or an allOf member,
// wants an integer or a string too (the branch's own keywords on it, such
// as a maximum that v6 reports beside the type, are not checked), and 39
// of webhook.json's Stamp, whose fixed kind has a second pattern, which
// the generated code does not check beside the const. The test allows at
// most 60, so that a list left short is said, and rarely.
func TestExplainListsWhatV6Reports(t *testing.T) {
	const maxNotWhole = 60
	var values, invalid, notWhole, wants int
	var bad disagreements
	byDefects := map[int]int{}
	for _, cs := range corpus(t) {
		if !cs.codec.Complete {
			continue
		}
		vals := distinctValues(t, cs.examples)
		seen := map[string]bool{}
		for _, raw := range vals {
			seen[string(raw)] = true
		}
		for _, ex := range cs.examples {
			for _, v := range nestedTwoAndThree(ex) {
				raw, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				if !seen[string(raw)] {
					seen[string(raw)] = true
					vals = append(vals, raw)
				}
			}
		}
		for _, raw := range vals {
			values++
			problem, defects, whole, n := explainAgreement(cs, raw)
			wants += n
			if defects > 0 {
				invalid++
				byDefects[min(defects, 3)]++
			}
			if !whole {
				notWhole++
				t.Logf("%s: %s: ExplainAt says its list may not be whole", cs.id, raw)
			}
			bad.add(t, cs.id, raw, problem)
		}
	}
	bad.end(t)
	t.Logf("%d values, %d invalid; by separate defects (3 = three or more): %v; disagreements %d; lists that may not be whole: %d; errors whose Want was compared: %d", values, invalid, byDefects, bad.n, notWhole, wants)
	if wants < 1000 {
		t.Errorf("only %d errors had their Want compared with v6's", wants)
	}
	if byDefects[2] == 0 || byDefects[3] == 0 {
		t.Errorf("no value with two or with three separate defects (%v): the test proves nothing", byDefects)
	}
	if notWhole > maxNotWhole {
		t.Errorf("%d lists may not be whole, want at most %d", notWhole, maxNotWhole)
	}
}

// TestExplainAtSaysWhenNotWhole: where the input itself stops a
// collecting decode (a syntax error, trailing data, a member that appears
// twice: each where the strict decode stops on it), ExplainAt lists what it found before, with the error that
// stopped it last, and says its list may not be whole; a pointer that
// names no value lists nothing. Every complete subject's examples are
// broken each way.
func TestExplainAtSaysWhenNotWhole(t *testing.T) {
	checked := 0
	for _, cs := range corpus(t) {
		if !cs.codec.Complete {
			continue
		}
		for _, raw := range distinctValues(t, cs.examples) {
			if errs, whole := cs.codec.ExplainAt(wire.NewDecoder(raw), "/no/such/member"); errs != nil || whole {
				t.Errorf("%s: %s: at a pointer that names no value: %v (whole %v)", cs.id, raw, errs, whole)
			}
			broken := map[string][]byte{
				"cut short":     raw[:len(raw)-1],
				"trailing data": append(append([]byte(nil), raw...), " x"...),
			}
			if len(raw) > 2 && raw[0] == '{' && raw[1] == '"' {
				// The first member written twice.
				d := wire.NewDecoder(raw)
				if _, err := d.Seek("/"); err == nil {
					key := raw[1 : bytes.IndexByte(raw[2:], '"')+3]
					var v any
					dec := json.NewDecoder(bytes.NewReader(raw))
					if dec.Decode(&v) == nil {
						if m, ok := v.(map[string]any); ok && len(m) > 0 {
							first, _ := json.Marshal(m[strings.Trim(string(key), `"`)])
							dup := append(append(append(append([]byte("{"), key...), ':'), first...), ',')
							broken["a member twice"] = append(dup, raw[1:]...)
						}
					}
				}
			}
			for how, b := range broken {
				var we *wire.Error
				if _, err := cs.codec.DecodeBytes(b); json.Valid(b) && (!errors.As(err, &we) || we.Code != wire.CodeDuplicate) {
					// Still JSON (a number cut short), or a member twice
					// where the type keeps unknown members as they come.
					continue
				}
				errs, whole := cs.codec.ExplainAt(wire.NewDecoder(b), "")
				checked++
				if whole || len(errs) == 0 {
					t.Errorf("%s: %s (%s): ExplainAt lists %v, whole %v; want its stop last, not whole", cs.id, b, how, errs, whole)
					continue
				}
				last := errs[len(errs)-1]
				want := wire.CodeSyntax
				if how == "a member twice" {
					want = wire.CodeDuplicate
				}
				if last.Code != want && !(how == "cut short" && last.Code == wire.CodeUTF8) {
					t.Errorf("%s: %s (%s): the last error is %v (code %d), want code %d", cs.id, b, how, last, last.Code, want)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no value was broken: the test proves nothing")
	}
}

// FuzzExplainAtBytes: any bytes, explained as any complete subject of the
// corpus, at the document or at a member of it. ExplainAt does not
// panic; input that is not JSON gives a list that is not whole and ends
// with the error that stopped it (its syntax or encoding, or a member
// twice before those); and a JSON document gets
// only failures v6 reports, all of them when ExplainAt says whole (see
// explainAgreement).
func FuzzExplainAtBytes(f *testing.F) {
	var complete []corpusCase
	for _, cs := range corpus(f) {
		if cs.codec.Complete {
			complete = append(complete, cs)
		}
	}
	for i, cs := range complete {
		for _, ex := range cs.examples {
			raw, err := json.Marshal(ex)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint16(i), raw)
			f.Add(uint16(i), raw[:len(raw)/2])
		}
	}
	f.Fuzz(func(t *testing.T, subject uint16, raw []byte) {
		cs := complete[int(subject)%len(complete)]
		for _, p := range []string{"", "/a", "/0"} {
			errs, whole := cs.codec.ExplainAt(wire.NewDecoder(raw), p)
			if p == "" && !json.Valid(raw) {
				if whole || len(errs) == 0 || !stops(errs[len(errs)-1].Code) {
					t.Errorf("%s: %q is not JSON: ExplainAt lists %v, whole %v", cs.id, raw, errs, whole)
				}
			}
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		if dec.Decode(&v) != nil || dec.More() || !utf8.Valid(raw) {
			return // not JSON to v6 (encoding/json reads bad UTF-8 too)
		}
		if duplicateKeys(raw) {
			return // v6 reads one of the duplicates; a decode stops or keeps all
		}
		if signedClock(v) {
			return // v6 reads "+0" as an hour, which RFC 3339 (and ajv) does not
		}
		var we *wire.Error
		if _, err := cs.codec.DecodeBytes(raw); errors.As(err, &we) && we.Code == wire.CodeRange {
			return // a number beyond the Go type: a verdict TestGeneratedAgreesWithV6 judges
		}
		errs, _ := cs.codec.ExplainAt(wire.NewDecoder(raw), "")
		for _, e := range errs {
			if e.Code == wire.CodeUTF8 {
				return // a lone surrogate escape, which the decoder rejects and v6 reads as U+FFFD
			}
		}
		if problem, _, _, _ := explainAgreement(cs, raw); problem != "" {
			t.Errorf("%s: %s: %s", cs.id, raw, problem)
		}
	})
}

// signedClock reports whether a string in v holds a time (alone, or after
// a date and "T") whose hour, minute or second carries a sign, as
// "0000-01-01T+0:00:00Z" does. jsonschema/v6 reads each of them with
// strconv.Atoi, so it takes such a date-time or time; RFC 3339 asks for
// two digits, and so do the generated checks (wire.IsDateTime) and ajv.
func signedClock(v any) bool {
	switch x := v.(type) {
	case string:
		t := x
		if len(x) > 11 && (x[10] == 'T' || x[10] == 't') {
			t = x[11:]
		}
		return len(t) >= 8 && t[2] == ':' && t[5] == ':' && strings.ContainsAny(t[:8], "+-")
	case []any:
		return slices.ContainsFunc(x, signedClock)
	case map[string]any:
		for _, e := range x {
			if signedClock(e) {
				return true
			}
		}
	}
	return false
}

// stops reports whether an error of code c stops a collecting decode: the
// input's syntax or encoding, or a member twice (met before the syntax
// error further on).
func stops(c wire.Code) bool {
	return c == wire.CodeSyntax || c == wire.CodeUTF8 || c == wire.CodeDuplicate
}

// duplicateKeys reports whether an object in raw, one JSON value, has a
// member twice.
func duplicateKeys(raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	type frame struct {
		obj  bool
		keys map[string]bool
		key  bool // the next string token in an object is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.obj && top.key {
			if k, ok := tok.(string); ok {
				if top.keys[k] {
					return true
				}
				top.keys[k] = true
				top.key = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			if top != nil && top.obj {
				top.key = true
			}
			stack = append(stack, &frame{obj: true, keys: map[string]bool{}, key: true})
			continue
		case json.Delim('['):
			if top != nil && top.obj {
				top.key = true
			}
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return false
			}
			continue
		}
		if top != nil && top.obj {
			top.key = true // a member's value was read
		}
	}
}
