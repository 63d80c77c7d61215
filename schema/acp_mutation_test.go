package schema_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// ---------------------------------------------------------------- typing an instance

// acpNodeInfo is what our schema says about one location of an instance.
type acpNodeInfo struct {
	required   map[string]bool // required members (objects)
	union      *acpUnionInfo   // tagged union the object belongs to
	enum       []string        // allowed values (strings of an enum)
	enumName   string
	closedEnum bool
	intLo      *big.Int // range (integers)
	intHi      *big.Int
}

type acpUnionInfo struct {
	name, tag string
	closed    bool // every variant has a fixed tag: no default, no catch-all
}

// acpTyper walks an instance alongside our schema and records, for every
// location, the constraints that mutations should break. R is how a suite
// names a location of its schemas; the suite says how one resolves.
type acpTyper[R acpRef[R]] struct {
	t    testing.TB
	info map[string]*acpNodeInfo
	// resolve follows the $ref at a location, if it has one; name is the
	// type a location defines, or the fallback; node is the schema at a
	// location; valid reports whether v fits it.
	resolve func(R) (R, bool)
	name    func(R, string) string
	node    func(R) map[string]any
	valid   func(R, any) bool
}

// acpRef is a location in a suite's schemas.
type acpRef[R any] interface {
	child(tokens ...string) R
}

// newACPTyper is the typer of the v1 suite's schemas in set.
func newACPTyper(t testing.TB, set *acpSchemaSet) *acpTyper[acpSchemaRef] {
	return &acpTyper[acpSchemaRef]{
		t: t, info: map[string]*acpNodeInfo{},
		resolve: func(r acpSchemaRef) (acpSchemaRef, bool) { return acpResolveRef(t, r) },
		name:    func(r acpSchemaRef, fallback string) string { return acpTypeName(t, r, fallback) },
		node:    func(r acpSchemaRef) map[string]any { return r.node(t) },
		valid: func(r acpSchemaRef, v any) bool {
			return set.validate(t, acpURL(r.file)+"#"+r.ptr, v) == nil
		},
	}
}

func (ty *acpTyper[R]) at(ptr string) *acpNodeInfo {
	if n, ok := ty.info[ptr]; ok {
		return n
	}
	n := &acpNodeInfo{required: map[string]bool{}}
	ty.info[ptr] = n
	return n
}

var acpDefPtr = regexp.MustCompile(`^/\$defs/([^/]+)$`)

// acpTypeName names the type a schema location defines, if it defines one.
func acpTypeName(t testing.TB, r acpSchemaRef, fallback string) string {
	if m := acpDefPtr.FindStringSubmatch(r.ptr); m != nil {
		return m[1]
	}
	if r.ptr == "" {
		doc, _ := acpDocCached(t, r.file).(map[string]any)
		if title, ok := doc["title"].(string); ok {
			return title
		}
	}
	return fallback
}

func (ty *acpTyper[R]) visit(r R, name string, inst any, ptr string, depth int) {
	if depth > 100 {
		ty.t.Fatalf("schema recursion too deep at %s", ptr)
	}
	for {
		next, ok := ty.resolve(r)
		if !ok {
			break
		}
		r = next
		name = ty.name(r, name)
	}
	m := ty.node(r)
	info := ty.at(ptr)
	if slices.Contains(acpTypeList(m), "integer") && acpBigInt(inst) != nil {
		if lo, hi := acpBigInt(m["minimum"]), acpBigInt(m["maximum"]); lo != nil && hi != nil {
			info.intLo, info.intHi = lo, hi
		}
	}
	for _, k := range acpStringList(m["required"]) {
		info.required[k] = true
	}
	allOf, _ := m["allOf"].([]any)
	for i := range allOf {
		ty.visit(r.child("allOf", fmt.Sprint(i)), name, inst, ptr, depth+1)
	}
	for _, kw := range []string{"oneOf", "anyOf"} {
		alts, _ := m[kw].([]any)
		if len(alts) == 0 {
			continue
		}
		if alt, ok := acpNullableBranch(m); ok && kw == "anyOf" {
			if inst != nil {
				ty.visit(r.child(kw, fmt.Sprint(alt)), name, inst, ptr, depth+1)
			}
			continue
		}
		if consts, open, ok := acpConstAlternatives(alts); ok {
			if _, isStr := inst.(string); isStr {
				info.enum, info.enumName, info.closedEnum = consts, name, !open
			}
			continue
		}
		if u, ok := acpReadUnion(alts); ok {
			if _, isObj := inst.(map[string]any); isObj {
				info.union = &acpUnionInfo{name: name, tag: u.tag, closed: len(u.consts) == len(alts)}
			}
		}
		for i := range alts {
			if c := r.child(kw, fmt.Sprint(i)); ty.valid(c, inst) {
				ty.visit(c, name, inst, ptr, depth+1)
				break
			}
		}
	}
	switch v := inst.(type) {
	case map[string]any:
		props, _ := m["properties"].(map[string]any)
		ap, _ := m["additionalProperties"].(map[string]any)
		for _, k := range acpSortedKeys(v) {
			switch {
			case props[k] != nil:
				ty.visit(r.child("properties", k), name, v[k], ptr+acpJSONPointer(k), depth+1)
			case ap != nil:
				ty.visit(r.child("additionalProperties"), name, v[k], ptr+acpJSONPointer(k), depth+1)
			}
		}
	case []any:
		if _, ok := m["items"].(map[string]any); ok {
			for i, e := range v {
				ty.visit(r.child("items"), name, e, ptr+acpJSONPointer(fmt.Sprint(i)), depth+1)
			}
		}
	}
}

// acpConstAlternatives reads an enum written as a oneOf/anyOf of consts
// (open when it ends with a {"type": "string"} catch-all).
func acpConstAlternatives(alts []any) (consts []string, open, ok bool) {
	for _, a := range alts {
		m, _ := a.(map[string]any)
		if c, isStr := m["const"].(string); isStr {
			consts = append(consts, c)
			continue
		}
		if m["type"] == "string" && m["properties"] == nil {
			open = true
			continue
		}
		return nil, false, false
	}
	return consts, open, len(consts) > 0
}

// ---------------------------------------------------------------- mutations

type acpMutation struct {
	kind   string // see acpMutations
	ptr    string
	detail string // union, enum or integer width concerned
	value  any
}

// acpCoreKinds must each produce mutations that both schemas reject.
var acpCoreKinds = []string{"drop-required", "wrong-type", "unknown-tag", "wrong-enum", "out-of-range"}

func acpDeepCopy(v any) any {
	switch c := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(c))
		for k, e := range c {
			out[k] = acpDeepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(c))
		for i, e := range c {
			out[i] = acpDeepCopy(e)
		}
		return out
	}
	return v
}

// acpEdit returns a copy of root with the value at ptr replaced by v, or
// removed when del is set. ptr comes from walking root, so it exists.
func acpEdit(t testing.TB, root any, ptr string, v any, del bool) any {
	t.Helper()
	toks := acpSplitPointer(ptr)
	if len(toks) == 0 {
		return v
	}
	out := acpDeepCopy(root)
	parent, err := acpLookupAny(out, toks[:len(toks)-1])
	if err != nil {
		t.Fatalf("editing %s: %v", ptr, err)
	}
	last := toks[len(toks)-1]
	switch p := parent.(type) {
	case map[string]any:
		if del {
			delete(p, last)
		} else {
			p[last] = v
		}
	case []any:
		var i int
		if _, err := fmt.Sscan(last, &i); err != nil || i < 0 || i >= len(p) {
			t.Fatalf("editing %s: bad index", ptr)
		}
		p[i] = v
	}
	return out
}

// acpWrongType returns a value of another JSON type than v.
func acpWrongType(v any) any {
	switch v.(type) {
	case string:
		return json.Number("7")
	case json.Number:
		return "7"
	case bool:
		return "true"
	case nil:
		return json.Number("7")
	case map[string]any:
		return []any{}
	}
	return map[string]any{}
}

// acpWidths are the integer widths of ACP.
var acpWidths = []struct {
	name   string
	lo, hi *big.Int
}{
	{"uint16", big.NewInt(0), acpMinus1(acpPow2(16))},
	{"uint32", big.NewInt(0), acpMinus1(acpPow2(32))},
	{"uint64", big.NewInt(0), acpMinus1(acpPow2(64))},
	{"int32", acpNeg(acpPow2(31)), acpMinus1(acpPow2(31))},
	{"int64", acpNeg(acpPow2(63)), acpMinus1(acpPow2(63))},
}

// acpWidth names the integer range of a location.
func acpWidth(lo, hi *big.Int) string {
	for _, w := range acpWidths {
		if lo.Cmp(w.lo) == 0 && hi.Cmp(w.hi) == 0 {
			return w.name
		}
	}
	return fmt.Sprintf("[%s,%s]", lo, hi)
}

// acpMutations derives mutations of inst. Generic ones at every location:
// drop a member (drop-required when our schema requires it, else
// drop-optional), give a value another JSON type (wrong-type), add an unknown
// member to an object (extra-member), give an object a malformed _meta, which
// must fail exactly where _meta is declared (meta-probe), replace a string by an unknown value
// (string-probe), push an integer just past every integer width (int-probe).
// Where our schema knows more, the mutation is named for what it breaks: an
// unknown union tag (unknown-tag), a value outside an enum (wrong-enum), an
// integer just outside its own declared range (out-of-range). Only the
// generic ones can reveal that our schema is looser than the official one.
func acpMutations(t testing.TB, inst any, info map[string]*acpNodeInfo) []acpMutation {
	t.Helper()
	var out []acpMutation
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		out = append(out, acpMutation{kind: "wrong-type", ptr: ptr, value: acpEdit(t, inst, ptr, acpWrongType(v), false)})
		n := info[ptr]
		switch c := v.(type) {
		case map[string]any:
			for _, k := range acpSortedKeys(c) {
				kind := "drop-optional"
				if n != nil && n.required[k] {
					kind = "drop-required"
				}
				out = append(out, acpMutation{kind: kind, ptr: ptr + acpJSONPointer(k),
					value: acpEdit(t, inst, ptr+acpJSONPointer(k), nil, true)})
				walk(c[k], ptr+acpJSONPointer(k))
			}
			out = append(out,
				acpMutation{kind: "extra-member", ptr: ptr,
					value: acpEdit(t, inst, ptr+acpJSONPointer("x_unknown_member"), json.Number("1"), false)},
				acpMutation{kind: "meta-probe", ptr: ptr,
					value: acpEdit(t, inst, ptr+acpJSONPointer("_meta"), "not-an-object", false)})
			if n != nil && n.union != nil {
				out = append(out, acpMutation{kind: "unknown-tag", ptr: ptr, detail: n.union.name,
					value: acpEdit(t, inst, ptr+acpJSONPointer(n.union.tag), "no_such_variant", false)})
			}
		case []any:
			for i, e := range c {
				walk(e, ptr+acpJSONPointer(fmt.Sprint(i)))
			}
		case string:
			kind, detail := "string-probe", ""
			if n != nil && len(n.enum) > 0 {
				kind, detail = "wrong-enum", n.enumName
			}
			out = append(out, acpMutation{kind: kind, ptr: ptr, detail: detail,
				value: acpEdit(t, inst, ptr, "no_such_value", false)})
		case json.Number:
			if acpBigInt(c) == nil {
				break
			}
			// Every integer is pushed just past every integer width; the
			// width our schema declares for it is the "out-of-range" kind.
			own := ""
			if n != nil && n.intLo != nil {
				own = acpWidth(n.intLo, n.intHi)
			}
			for _, w := range acpWidths {
				for _, side := range []struct {
					name string
					v    *big.Int
				}{{"below", new(big.Int).Sub(w.lo, big.NewInt(1))}, {"above", new(big.Int).Add(w.hi, big.NewInt(1))}} {
					kind := "int-probe"
					if w.name == own {
						kind = "out-of-range"
					}
					out = append(out, acpMutation{kind: kind, ptr: ptr, detail: w.name + " " + side.name,
						value: acpEdit(t, inst, ptr, json.Number(side.v.String()), false)})
				}
			}
		}
	}
	walk(inst, "")
	return out
}

var acpIndexToken = regexp.MustCompile(`/[0-9]+(/|$)`)

// acpGeneralize replaces array indices of a pointer with "*", so that one
// mutation per schema location and kind is kept.
func acpGeneralize(ptr string) string {
	for {
		next := acpIndexToken.ReplaceAllString(ptr, "/*$1")
		if next == ptr {
			return ptr
		}
		ptr = next
	}
}

// acpTaggedUnions lists the tagged unions our schemas define, by type
// name, and whether each is closed.
func acpTaggedUnions(t testing.TB) map[string]bool {
	return acpTaggedUnionsIn(acpSchemaFiles(t), func(file string) any { return acpDocCached(t, file) },
		func(file, ptr string) string { return acpTypeName(t, acpSchemaRef{file: file, ptr: ptr}, ptr) })
}

// acpTaggedUnionsIn lists the tagged unions of the schema files, read by
// doc and named by name, and whether each is closed.
func acpTaggedUnionsIn(files []string, doc func(file string) any, name func(file, ptr string) string) map[string]bool {
	out := map[string]bool{}
	for _, file := range files {
		acpWalkSchema(doc(file), "", acpRoleRoot, func(ptr string, m map[string]any, _ acpSchemaRole) {
			alts, _ := m["oneOf"].([]any)
			u, ok := acpReadUnion(alts)
			if !ok {
				return
			}
			out[name(file, ptr)] = len(u.consts) == len(alts)
		})
	}
	return out
}

// acpClosedEnums lists the closed string enums our schemas define as shared
// definitions.
func acpClosedEnums(t testing.TB) []string {
	return acpClosedEnumsIn(acpDocCached(t, "common.json"))
}

// acpClosedEnumsIn lists the closed string enums among the $defs of a
// schema document.
func acpClosedEnumsIn(doc any) []string {
	var out []string
	m, _ := doc.(map[string]any)
	defs, _ := m["$defs"].(map[string]any)
	for _, name := range acpSortedKeys(defs) {
		d, _ := defs[name].(map[string]any)
		alts, _ := d["oneOf"].([]any)
		if _, open, ok := acpConstAlternatives(alts); ok && !open {
			out = append(out, name)
		}
	}
	return out
}

type acpTally struct{ bothReject, bothAccept, explained int }

// acpMutationRun tallies how both schemas judge the mutations of valid
// instances: each distinct mutation (by type, generalized pointer, kind
// and detail) once, under its kind and the union, enum or integer width it
// breaks.
type acpMutationRun struct {
	tallies map[string]*acpTally
	seen    map[string]bool
	total   int
	judge   func(t testing.TB, name, typ string, value any) acpVerdict
}

func newACPMutationRun(judge func(t testing.TB, name, typ string, value any) acpVerdict) *acpMutationRun {
	return &acpMutationRun{tallies: map[string]*acpTally{}, seen: map[string]bool{}, judge: judge}
}

func (r *acpMutationRun) record(v acpVerdict, keys ...string) {
	for _, k := range keys {
		tl := r.tallies[k]
		if tl == nil {
			tl = &acpTally{}
			r.tallies[k] = tl
		}
		switch {
		case v.explainedBy != "":
			tl.explained++
		case v.official == nil && v.ours == nil:
			tl.bothAccept++
		case v.official != nil && v.ours != nil:
			tl.bothReject++
		}
	}
}

// instance judges the mutations of a valid instance that info, its walk
// beside our schema (acpTyper), calls for.
func (r *acpMutationRun) instance(t testing.TB, in acpInstance, info map[string]*acpNodeInfo) {
	for _, mu := range acpMutations(t, in.value, info) {
		key := strings.Join([]string{in.typ, acpGeneralize(mu.ptr), mu.kind, mu.detail}, "|")
		if r.seen[key] {
			continue
		}
		r.seen[key] = true
		r.total++
		v := r.judge(t, fmt.Sprintf("%s: %s at %s (%s)", in.name, mu.kind, mu.ptr, mu.detail), in.typ, mu.value)
		keys := []string{"kind " + mu.kind}
		switch mu.kind {
		case "unknown-tag":
			keys = append(keys, "union "+mu.detail)
		case "wrong-enum":
			keys = append(keys, "enum "+mu.detail)
		case "out-of-range":
			keys = append(keys, "width "+strings.Fields(mu.detail)[0])
		}
		r.record(v, keys...)
	}
}

// envelope judges the mutations of the JSON-RPC layer of an example
// message: each member dropped or of the wrong type, the version, an id
// beyond int64, and with errorCode an error code beyond int32.
func (r *acpMutationRun) envelope(t testing.TB, name string, value any, errorCode bool) {
	msg, _ := value.(map[string]any)
	var muts []acpMutation
	for _, k := range acpSortedKeys(msg) {
		muts = append(muts,
			acpMutation{kind: "envelope-drop", detail: k, value: acpEdit(t, msg, acpJSONPointer(k), nil, true)},
			acpMutation{kind: "envelope-wrong-type", detail: k,
				value: acpEdit(t, msg, acpJSONPointer(k), acpWrongType(msg[k]), false)})
	}
	muts = append(muts,
		acpMutation{kind: "envelope-version", value: acpEdit(t, msg, "/jsonrpc", "1.0", false)},
		acpMutation{kind: "envelope-out-of-range", detail: "id",
			value: acpEdit(t, msg, "/id", json.Number("9223372036854775808"), false)})
	if _, ok := msg["error"]; ok && errorCode {
		muts = append(muts, acpMutation{kind: "envelope-out-of-range", detail: "error code",
			value: acpEdit(t, msg, "/error/code", json.Number("2147483648"), false)})
	}
	for _, mu := range muts {
		r.total++
		r.record(r.judge(t, fmt.Sprintf("%s: %s %s", name, mu.kind, mu.detail), "envelope", mu.value), "kind "+mu.kind)
	}
}

// need reports a key no mutation both schemas reject stands under.
func (r *acpMutationRun) need(t testing.TB, key, why string) {
	t.Helper()
	if tl := r.tallies[key]; tl == nil || tl.bothReject == 0 {
		t.Errorf("no mutation rejected by both schemas for %s (%s)", key, why)
	}
}

// report is the tallies, a line per key.
func (r *acpMutationRun) report() string {
	var b strings.Builder
	for _, k := range acpSortedKeys(r.tallies) {
		tl := r.tallies[k]
		fmt.Fprintf(&b, "\n  %-45s rejected by both %4d, accepted by both %4d, documented difference %d",
			k, tl.bothReject, tl.bothAccept, tl.explained)
	}
	return b.String()
}

// Mutations of every valid instance — a required member dropped, a value of
// the wrong type, an unknown union tag, a wrong enum value, an integer out of
// its range — get the same verdict from both schemas (or one explained by a
// documented difference). Every kind, every tagged union, every closed enum
// and every integer width is covered by a mutation both schemas reject.
func TestACPMutationsAgreeWithOfficialSchema(t *testing.T) {
	c := acpLoadCorpus(t)
	j := acpNewJudge(t)
	run := newACPMutationRun(j.judge)
	for _, in := range c.typed {
		if j.official.validate(t, acpOfficialDef(in.typ), in.value) != nil {
			continue // only valid values are mutated
		}
		url := j.ourTypes[in.typ]
		file, frag, _ := strings.Cut(strings.TrimPrefix(url, acpURL("")), "#")
		root := acpSchemaRef{file: file, ptr: frag}
		ty := newACPTyper(t, j.ours)
		ty.visit(root, acpTypeName(t, root, in.typ), in.value, "", 0)
		run.instance(t, in, ty.info)
	}
	// Envelope mutations: the JSON-RPC layer of every example message.
	for _, e := range c.envelopes {
		run.envelope(t, e.name, e.value, true)
	}

	// Coverage.
	for _, k := range append(acpCoreKinds, "envelope-drop", "envelope-wrong-type", "envelope-version",
		"envelope-out-of-range") {
		run.need(t, "kind "+k, "every mutation kind must be exercised")
	}
	for name, closed := range acpTaggedUnions(t) {
		if closed {
			run.need(t, "union "+name, "a closed union rejects an unknown tag")
		} else if run.tallies["union "+name] == nil {
			t.Errorf("no unknown-tag mutation of the open union %s", name)
		}
	}
	for _, name := range acpClosedEnums(t) {
		run.need(t, "enum "+name, "a closed enum rejects an unknown value")
	}
	for _, w := range []string{"uint16", "uint32", "uint64", "int64"} {
		run.need(t, "width "+w, "values outside the integer's range are rejected")
	}

	t.Logf("%d mutations agree:%s", run.total, run.report())
	if run.total < 1000 {
		t.Errorf("only %d mutations", run.total)
	}
}
