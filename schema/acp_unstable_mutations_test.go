// The ACP version suites' mutations: each valid instance broken one way at
// a time (a wrong type, a dropped member, an unknown tag, a wrong enum
// value, an integer out of range, a broken envelope), with the same
// verdict required from our schemas and the official one.

package schema_test

import (
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

// typeValid walks a valid instance of the corpus beside our schema (see
// acpTyper); ok is false when the official schema rejects it, and it is
// not mutated.
func (s *acpUnstableSuite) typeValid(t testing.TB, j *acpUnstableJudge, in acpInstance) (*acpTyper[acpUnstableRef], bool) {
	offURL, ourURL := j.urls(t, in.typ)
	if j.official.validate(t, offURL, in.value) != nil {
		return nil, false
	}
	file, frag, _ := strings.Cut(strings.TrimPrefix(ourURL, schema.IDPrefix), "#")
	root := acpUnstableRef{file: file, ptr: frag}
	ty := s.typer(t, j.ours)
	ty.visit(root, s.typeName(t, root, in.typ), in.value, "", 0)
	return ty, true
}

// testMutations mutates every valid instance as the v1 mutation test does and
// requires the same verdict from both schemas; every mutation kind, every
// tagged union and closed enum of the suite's folder and the integer widths
// it uses are covered by a mutation both reject.
func (s *acpUnstableSuite) testMutations(t *testing.T) {
	j := s.judge(t)
	run := newACPMutationRun(j.judge)
	var envelopes []acpInstance
	for _, in := range s.corpus(t) {
		if in.typ == "envelope" {
			envelopes = append(envelopes, in)
			continue
		}
		if ty, ok := s.typeValid(t, j, in); ok {
			run.instance(t, in, ty.info)
		}
	}
	for _, e := range envelopes {
		run.envelope(t, e.name, e.value, false)
	}

	kinds := slices.Clone(acpCoreKinds)
	if len(envelopes) > 0 {
		kinds = append(kinds, "envelope-drop", "envelope-wrong-type", "envelope-version", "envelope-out-of-range")
	}
	for _, k := range kinds {
		run.need(t, "kind "+k, "every mutation kind must be exercised")
	}
	for name, closed := range s.taggedUnions(t) {
		if closed {
			run.need(t, "union "+name, "a closed union rejects an unknown tag")
		} else if run.tallies["union "+name] == nil {
			t.Errorf("no unknown-tag mutation of the open union %s", name)
		}
	}
	for _, name := range s.closedEnums(t) {
		run.need(t, "enum "+name, "a closed enum rejects an unknown value")
	}
	for _, w := range []string{"uint16", "uint32", "uint64", "int64"} {
		run.need(t, "width "+w, "values outside the integer's range are rejected")
	}
	t.Logf("%d mutations agree:%s", run.total, run.report())
	if run.total < s.minMutations {
		t.Errorf("only %d mutations, want at least %d", run.total, s.minMutations)
	}
}
