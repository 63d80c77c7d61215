// The ACP version suites' mutations: each valid instance broken one way at
// a time (a wrong type, a dropped member, an unknown tag, a wrong enum
// value, an integer out of range, a broken envelope), with the same
// verdict required from our schemas and the official one.

package schema_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/schema"
)

// typer is the typer of the suite's schemas in set (see acpTyper).
func (s *acpUnstableSuite) typer(t testing.TB, set *acpSchemaSet) *acpTyper[acpUnstableRef] {
	return &acpTyper[acpUnstableRef]{
		t: t, info: map[string]*acpNodeInfo{},
		resolve: func(r acpUnstableRef) (acpUnstableRef, bool) { return s.resolve(t, r) },
		name:    func(r acpUnstableRef, fallback string) string { return s.typeName(t, r, fallback) },
		node:    func(r acpUnstableRef) map[string]any { return s.node(t, r) },
		valid: func(r acpUnstableRef, v any) bool {
			return set.validate(t, s.url(r.file)+"#"+r.ptr, v) == nil
		},
	}
}

// taggedUnions lists the tagged unions of the suite's folder by type name,
// and whether each is closed.
func (s *acpUnstableSuite) taggedUnions(t testing.TB) map[string]bool {
	return acpTaggedUnionsIn(s.files(t), func(file string) any { return s.doc(t, file) },
		func(file, ptr string) string { return s.typeName(t, acpUnstableRef{file: file, ptr: ptr}, ptr) })
}

// closedEnums lists the closed string enums of the suite's common file.
func (s *acpUnstableSuite) closedEnums(t testing.TB) []string {
	return acpClosedEnumsIn(s.doc(t, s.rel("common.json")))
}

// testMutations mutates every valid instance as the v1 mutation test does and
// requires the same verdict from both schemas; every mutation kind, every
// tagged union and closed enum of the suite's folder and the integer widths
// it uses are covered by a mutation both reject.
func (s *acpUnstableSuite) testMutations(t *testing.T) {
	j := s.judge(t)
	tallies := map[string]*acpTally{}
	record := func(v acpVerdict, keys ...string) {
		for _, k := range keys {
			tl := tallies[k]
			if tl == nil {
				tl = &acpTally{}
				tallies[k] = tl
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
	seen := map[string]bool{}
	total := 0
	var envelopes []acpInstance
	for _, in := range s.corpus(t) {
		if in.typ == "envelope" {
			envelopes = append(envelopes, in)
			continue
		}
		offURL, ourURL := j.urls(t, in.typ)
		if j.official.validate(t, offURL, in.value) != nil {
			continue
		}
		file, frag, _ := strings.Cut(strings.TrimPrefix(ourURL, schema.IDPrefix), "#")
		root := acpUnstableRef{file: file, ptr: frag}
		ty := s.typer(t, j.ours)
		ty.visit(root, s.typeName(t, root, in.typ), in.value, "", 0)
		for _, mu := range acpMutations(t, in.value, ty.info) {
			key := strings.Join([]string{in.typ, acpGeneralize(mu.ptr), mu.kind, mu.detail}, "|")
			if seen[key] {
				continue
			}
			seen[key] = true
			total++
			v := j.judge(t, fmt.Sprintf("%s: %s at %s (%s)", in.name, mu.kind, mu.ptr, mu.detail), in.typ, mu.value)
			keys := []string{"kind " + mu.kind}
			switch mu.kind {
			case "unknown-tag":
				keys = append(keys, "union "+mu.detail)
			case "wrong-enum":
				keys = append(keys, "enum "+mu.detail)
			case "out-of-range":
				keys = append(keys, "width "+strings.Fields(mu.detail)[0])
			}
			record(v, keys...)
		}
	}
	for _, e := range envelopes {
		msg, _ := e.value.(map[string]any)
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
		for _, mu := range muts {
			total++
			record(j.judge(t, fmt.Sprintf("%s: %s %s", e.name, mu.kind, mu.detail), "envelope", mu.value), "kind "+mu.kind)
		}
	}

	need := func(key, why string) {
		if tl := tallies[key]; tl == nil || tl.bothReject == 0 {
			t.Errorf("no mutation rejected by both schemas for %s (%s)", key, why)
		}
	}
	kinds := slices.Clone(acpCoreKinds)
	if len(envelopes) > 0 {
		kinds = append(kinds, "envelope-drop", "envelope-wrong-type", "envelope-version", "envelope-out-of-range")
	}
	for _, k := range kinds {
		need("kind "+k, "every mutation kind must be exercised")
	}
	for name, closed := range s.taggedUnions(t) {
		if closed {
			need("union "+name, "a closed union rejects an unknown tag")
		} else if tallies["union "+name] == nil {
			t.Errorf("no unknown-tag mutation of the open union %s", name)
		}
	}
	for _, name := range s.closedEnums(t) {
		need("enum "+name, "a closed enum rejects an unknown value")
	}
	for _, w := range []string{"uint16", "uint32", "uint64", "int64"} {
		need("width "+w, "values outside the integer's range are rejected")
	}
	keys := acpSortedKeys(tallies)
	var report strings.Builder
	for _, k := range keys {
		tl := tallies[k]
		fmt.Fprintf(&report, "\n  %-45s rejected by both %4d, accepted by both %4d, documented difference %d",
			k, tl.bothReject, tl.bothAccept, tl.explained)
	}
	t.Logf("%d mutations agree:%s", total, report.String())
	if total < s.minMutations {
		t.Errorf("only %d mutations, want at least %d", total, s.minMutations)
	}
}
