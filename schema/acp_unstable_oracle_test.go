// The ACP version suites' oracle: the official schema, the instances judged
// by both (our testdata, our examples, the corpus), and the comparison of
// verdicts with the listed and witnessed differences.

package schema_test

import (
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/internal/sharedref"
	"github.com/agentproto/agentproto/schema"
)

func (s *acpUnstableSuite) officialDefs(t testing.TB) map[string]any {
	t.Helper()
	p := sharedref.Dir(t, s.oracle...)
	doc, _ := acpReadSharedValue(t, p).(map[string]any)
	defs, _ := doc["$defs"].(map[string]any)
	if len(defs) == 0 {
		t.Fatal("official schema has no $defs")
	}
	return defs
}

func (s *acpUnstableSuite) officialSet(t testing.TB) *acpSchemaSet {
	t.Helper()
	p := sharedref.Dir(t, s.oracle...)
	s.compileOnce.Do(func() {
		doc, err := acpDecodeJSON(acpReadSharedFile(t, p))
		if err != nil {
			s.oracleErr = err
			return
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.UseLoader(acpRefuseLoader{})
		c.AssertFormat()
		for _, w := range acpWidths {
			c.RegisterFormat(acpWidthFormat(w.name, w.lo, w.hi))
		}
		c.RegisterFormat(&jsonschema.Format{Name: "uri", Validate: func(any) error { return nil }})
		if err := c.AddResource(s.oracleURL, doc); err != nil {
			s.oracleErr = fmt.Errorf("adding the official schema: %w", err)
			return
		}
		s.oracleSet = acpNewSchemaSet("official "+s.name, c)
	})
	if s.oracleErr != nil {
		t.Fatal(s.oracleErr)
	}
	if s.oracleSet == nil {
		t.Fatal("the official schema could not be loaded (see the first failing test)")
	}
	return s.oracleSet
}

// testdataInstances reads the suite's instances.json.
func (s *acpUnstableSuite) testdataInstances(t testing.TB) []acpInstance {
	t.Helper()
	data, err := os.ReadFile(s.testdata)
	if err != nil {
		t.Fatalf("reading test data: %v", err)
	}
	v, err := acpDecodeJSON(data)
	if err != nil {
		t.Fatalf("%s: %v", s.testdata, err)
	}
	arr, _ := v.([]any)
	var out []acpInstance
	for i, e := range arr {
		m, _ := e.(map[string]any)
		name, _ := m["name"].(string)
		typ, _ := m["type"].(string)
		if name == "" || typ == "" {
			t.Fatalf("%s[%d]: needs name and type", s.testdata, i)
		}
		out = append(out, acpInstance{name: "testdata/" + name, typ: typ, value: m["value"]})
	}
	return out
}

// ourExamples turns the examples of the suite's root schemas and shared
// definitions into instances of the official type with the same name.
func (s *acpUnstableSuite) ourExamples(t testing.TB, official map[string]any) []acpInstance {
	var out []acpInstance
	for _, p := range s.files(t) {
		doc, _ := s.doc(t, p).(map[string]any)
		add := func(name string, node any) {
			m, _ := node.(map[string]any)
			examples, _ := m["examples"].([]any)
			if _, ok := official[name]; !ok {
				return
			}
			for i, ex := range examples {
				out = append(out, acpInstance{name: fmt.Sprintf("ours/%s %s example %d", p, name, i), typ: name, value: ex})
			}
		}
		if title, ok := doc["title"].(string); ok {
			add(title, doc)
		}
		defs, _ := doc["$defs"].(map[string]any)
		for _, name := range acpSortedKeys(defs) {
			add(name, defs[name])
		}
	}
	return out
}

// testTestdataValid: the instances written for the suite are valid under our
// schemas, and each names a type we define.
func (s *acpUnstableSuite) testTestdataValid(t *testing.T) {
	set := acpOurs(t)
	types := s.ourTypes(t)
	ins := s.testdataInstances(t)
	for _, in := range ins {
		url, ok := types[in.typ]
		if in.typ == "envelope" {
			url, ok = s.url(s.rel(s.dispatch(t).Envelope)), true
		}
		if !ok {
			t.Errorf("%s: no schema named %s", in.name, in.typ)
			continue
		}
		if err := set.validate(t, url, in.value); err != nil {
			t.Errorf("%s: %s", in.name, acpFirstLine(err))
		}
	}
	t.Logf("%d instances valid", len(ins))
}

type acpUnstableJudge struct {
	s              *acpUnstableSuite
	official, ours *acpSchemaSet
	ourTypes       map[string]string
	envelope       string // URL of our envelope schema
	mu             sync.Mutex
	relaxed        map[string]*acpSchemaSet
	exercised      map[string]int
}

func (s *acpUnstableSuite) judge(t *testing.T) *acpUnstableJudge {
	t.Helper()
	return &acpUnstableJudge{s: s, official: s.officialSet(t), ours: acpOurs(t), ourTypes: s.ourTypes(t),
		envelope: s.url(s.rel(s.dispatch(t).Envelope)), relaxed: map[string]*acpSchemaSet{}, exercised: map[string]int{}}
}

func (j *acpUnstableJudge) urls(t testing.TB, typ string) (string, string) {
	t.Helper()
	if typ == "envelope" {
		return j.s.oracleURL, j.envelope
	}
	ourURL, ok := j.ourTypes[typ]
	if !ok {
		t.Fatalf("our schemas have no type named %s", typ)
	}
	return j.s.oracleURL + "#" + acpJSONPointer("$defs", typ), ourURL
}

// relaxedFor compiles every ACP schema with the patches of one difference
// applied (patch files are relative to the suite's folder).
func (j *acpUnstableJudge) relaxedFor(t testing.TB, d acpDifference) *acpSchemaSet {
	t.Helper()
	j.mu.Lock()
	defer j.mu.Unlock()
	if set, ok := j.relaxed[d.id]; ok {
		return set
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(acpRefuseLoader{})
	paths, err := schema.Paths("acp")
	if err != nil {
		t.Fatal(err)
	}
	applied := 0
	for _, p := range paths {
		data, err := fs.ReadFile(schema.Files, p)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := acpDecodeJSON(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, pt := range d.patches {
			if j.s.rel(pt.file) != p {
				continue
			}
			if doc, err = acpApplyPatch(doc, pt); err != nil {
				t.Fatalf("difference %s: %s: %v", d.id, p, err)
			}
			applied++
		}
		if err := c.AddResource(schema.IDPrefix+p, doc); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if applied != len(d.patches) {
		t.Fatalf("difference %s: %d of %d patches name no schema file", d.id, len(d.patches)-applied, len(d.patches))
	}
	set := acpNewSchemaSet("relaxed("+d.id+")", c)
	j.relaxed[d.id] = set
	return set
}

func (j *acpUnstableJudge) judge(t testing.TB, name, typ string, value any) acpVerdict {
	t.Helper()
	offURL, ourURL := j.urls(t, typ)
	v := acpVerdict{official: j.official.validate(t, offURL, value), ours: j.ours.validate(t, ourURL, value)}
	if v.agree() {
		return v
	}
	for _, d := range j.s.diffs {
		r := j.relaxedFor(t, d).validate(t, ourURL, value)
		if (r == nil) == (v.official == nil) && d.stricter == (v.ours != nil) {
			v.explainedBy = d.id
			j.mu.Lock()
			j.exercised[d.id]++
			j.mu.Unlock()
			return v
		}
	}
	t.Errorf("%s (%s): undocumented difference from the official schema:\n  official: %s\n  ours:     %s\n  value: %s",
		name, typ, acpFirstLine(v.official), acpFirstLine(v.ours), acpCanonicalJSON(value))
	return v
}

// corpus gathers the instances of the differential tests.
func (s *acpUnstableSuite) corpus(t *testing.T) []acpInstance {
	t.Helper()
	official := s.officialDefs(t)
	out := s.ourExamples(t, official)
	out = append(out, s.testdataInstances(t)...)
	if s.extraInstances != nil {
		out = append(out, s.extraInstances(t)...)
	}
	return out
}

func (s *acpUnstableSuite) testAgreesWithOfficial(t *testing.T) {
	j := s.judge(t)
	valid, invalid := 0, 0
	corpus := s.corpus(t)
	for _, in := range corpus {
		v := j.judge(t, in.name, in.typ, in.value)
		if v.official == nil {
			valid++
		} else {
			invalid++
		}
		if strings.HasPrefix(in.name, "testdata/") || strings.HasPrefix(in.name, "ours/") {
			if v.official != nil {
				t.Errorf("%s: written as valid but the official schema rejects it: %s", in.name, acpFirstLine(v.official))
			}
		}
	}
	t.Logf("%d typed values agree (%d valid, %d invalid under both)", len(corpus), valid, invalid)
}

func (s *acpUnstableSuite) testDifferencesListed(t *testing.T) {
	readme, err := fs.ReadFile(schema.Files, "acp/README.md")
	if err != nil {
		t.Fatalf("reading README: %v", err)
	}
	// The suite's differences are listed under a "### Deliberate differences"
	// heading inside the suite's own "## " section.
	heading := regexp.MustCompile(`^## .*` + "`" + regexp.QuoteMeta(s.dir[len("acp/"):]) + "`")
	listed := map[string]bool{}
	inSuite, inList := false, false
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "## ") {
			inSuite, inList = heading.MatchString(line), false
			continue
		}
		if strings.HasPrefix(line, "### ") {
			inList = inSuite && strings.Contains(strings.ToLower(line), "deliberate differences")
			continue
		}
		if m := regexp.MustCompile("^- `([a-z0-9-]+)`").FindStringSubmatch(line); inList && m != nil {
			listed[m[1]] = true
		}
	}
	for _, d := range s.diffs {
		if !listed[d.id] {
			t.Errorf("difference %s is not listed in schema/acp/README.md under the %s section's Deliberate differences",
				d.id, s.dir)
		}
		delete(listed, d.id)
	}
	for id := range listed {
		t.Errorf("README lists difference %s for %s, which the test does not know", id, s.dir)
	}
}

func (s *acpUnstableSuite) testDifferencesWitnessed(t *testing.T) {
	j := s.judge(t)
	for _, d := range s.diffs {
		if len(d.witness) == 0 {
			t.Errorf("%s: no witness", d.id)
		}
		for i, w := range d.witness {
			v, err := acpDecodeJSON([]byte(w.value))
			if err != nil {
				t.Fatalf("%s witness %d: %v", d.id, i, err)
			}
			got := j.judge(t, fmt.Sprintf("%s witness %d", d.id, i), w.typ, v)
			if got.agree() {
				t.Errorf("%s witness %d: both schemas give the same verdict (official: %s); the difference was: %s",
					d.id, i, acpFirstLine(got.official), d.reason)
			} else if got.explainedBy != d.id {
				t.Errorf("%s witness %d: explained by %q", d.id, i, got.explainedBy)
			}
		}
	}
}
