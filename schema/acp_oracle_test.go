// The official ACP v1 schema as the oracle of ours: loading it, and judging
// every instance by both. Its instances and the known differences are in
// acp_oracle_instances_test.go and acp_oracle_differences_test.go.

package schema_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/internal/sharedref"
	"github.com/agentproto/agentproto/schema"
)

// The official ACP v1 schema has no $id; the oracle knows it under this
// made-up URL, which is never fetched.
const acpOracleURL = "https://reference.invalid/acp/v1/schema.json"

func acpOfficialDef(name string) string { return acpOracleURL + "#" + acpJSONPointer("$defs", name) }

func acpReadSharedFile(t testing.TB, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("reading reference material: %v", err)
	}
	return data
}

func acpReadSharedJSON(t testing.TB, p string, v any) {
	t.Helper()
	if err := json.Unmarshal(acpReadSharedFile(t, p), v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
}

func acpReadSharedValue(t testing.TB, p string) any {
	t.Helper()
	v, err := acpDecodeJSON(acpReadSharedFile(t, p))
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return v
}

// acpRefuseLoader fails every load: all schemas are added as resources.
type acpRefuseLoader struct{}

func (acpRefuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: nothing is fetched in tests", url)
}

// acpWidthFormat asserts the integer width the official schema states with
// "format" (uint32, int64, …). The official types are Rust integers of that
// width, so a value outside the range is rejected by every official SDK even
// though draft 2020-12 treats format as an annotation.
func acpWidthFormat(name string, lo, hi *big.Int) *jsonschema.Format {
	return &jsonschema.Format{Name: name, Validate: func(v any) error {
		r := acpNumberRat(v)
		if r == nil || !r.IsInt() {
			return nil // not an integer: the "type" keyword decides
		}
		if r.Num().Cmp(lo) < 0 || r.Num().Cmp(hi) > 0 {
			return fmt.Errorf("%s is outside the %s range [%s, %s]", r.Num(), name, lo, hi)
		}
		return nil
	}}
}

func acpNumberRat(v any) *big.Rat {
	switch n := v.(type) {
	case json.Number:
		r, ok := new(big.Rat).SetString(string(n))
		if !ok {
			return nil
		}
		return r
	case float64:
		return new(big.Rat).SetFloat64(n)
	case int:
		return new(big.Rat).SetInt64(int64(n))
	case int64:
		return new(big.Rat).SetInt64(n)
	}
	return nil
}

func acpPow2(n uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), n) }

func acpMinus1(x *big.Int) *big.Int { return new(big.Int).Sub(x, big.NewInt(1)) }

func acpNeg(x *big.Int) *big.Int { return new(big.Int).Neg(x) }

var (
	acpOracleOnce sync.Once
	acpOracleSet  *acpSchemaSet
	acpOracleErr  error
)

// acpOracle returns the official ACP v1 schema, compiled with the integer widths
// asserted and every other format left as an annotation (as our compiler does).
func acpOracle(t testing.TB) *acpSchemaSet {
	t.Helper()
	dir := sharedref.Dir(t, "reference", "acp", "v1")
	acpOracleOnce.Do(func() {
		doc, err := acpDecodeJSON(acpReadSharedFile(t, filepath.Join(dir, "schema.json")))
		if err != nil {
			acpOracleErr = err
			return
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.UseLoader(acpRefuseLoader{})
		c.AssertFormat()
		c.RegisterFormat(acpWidthFormat("uint16", big.NewInt(0), acpMinus1(acpPow2(16))))
		c.RegisterFormat(acpWidthFormat("uint32", big.NewInt(0), acpMinus1(acpPow2(32))))
		c.RegisterFormat(acpWidthFormat("uint64", big.NewInt(0), acpMinus1(acpPow2(64))))
		c.RegisterFormat(acpWidthFormat("int32", acpNeg(acpPow2(31)), acpMinus1(acpPow2(31))))
		c.RegisterFormat(acpWidthFormat("int64", acpNeg(acpPow2(63)), acpMinus1(acpPow2(63))))
		c.RegisterFormat(&jsonschema.Format{Name: "uri", Validate: func(any) error { return nil }})
		if err := c.AddResource(acpOracleURL, doc); err != nil {
			acpOracleErr = fmt.Errorf("adding the official schema: %w", err)
			return
		}
		acpOracleSet = acpNewSchemaSet("official", c)
	})
	if acpOracleErr != nil {
		t.Fatal(acpOracleErr)
	}
	if acpOracleSet == nil {
		t.Fatal("the official schema could not be loaded (see the first failing test)")
	}
	return acpOracleSet
}

// acpOfficialDefs returns the $defs of the official schema.
func acpOfficialDefs(t testing.TB) map[string]any {
	t.Helper()
	dir := sharedref.Dir(t, "reference", "acp", "v1")
	doc, _ := acpReadSharedValue(t, filepath.Join(dir, "schema.json")).(map[string]any)
	defs, _ := doc["$defs"].(map[string]any)
	if len(defs) == 0 {
		t.Fatal("official schema has no $defs")
	}
	return defs
}

// acpOfficialMethodTypes maps a method to the official names of its params and
// result types, read from the x-method annotations of the official schema.
func acpOfficialMethodTypes(t testing.TB) map[string][2]string {
	t.Helper()
	out := map[string][2]string{}
	for name, d := range acpOfficialDefs(t) {
		m, _ := d.(map[string]any)
		method, ok := m["x-method"].(string)
		if !ok {
			continue
		}
		e := out[method]
		if strings.HasSuffix(name, "Response") {
			e[1] = name
		} else {
			e[0] = name
		}
		out[method] = e
	}
	return out
}

// acpOurTypes maps a type name to the URL of our schema of that name: the root
// of a file (by its title) or a shared definition (by its $defs key).
func acpOurTypes(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, file := range acpSchemaFiles(t) {
		doc, _ := acpDocCached(t, file).(map[string]any)
		if title, ok := doc["title"].(string); ok {
			out[title] = acpURL(file)
		}
		defs, _ := doc["$defs"].(map[string]any)
		for name := range defs {
			out[name] = acpURL(file) + "#" + acpJSONPointer("$defs", name)
		}
	}
	return out
}

// ---------------------------------------------------------------- the comparison
// acpJudge validates values under the official schema and ours and explains
// every disagreement by a documented difference, or reports it.
type acpJudge struct {
	official, ours *acpSchemaSet
	ourTypes       map[string]string
	mu             sync.Mutex
	relaxed        map[string]*acpSchemaSet // by difference ID
	exercised      map[string]int           // difference ID → disagreements it explained
}

func acpNewJudge(t *testing.T) *acpJudge {
	t.Helper()
	return &acpJudge{official: acpOracle(t), ours: acpOurs(t), ourTypes: acpOurTypes(t),
		relaxed: map[string]*acpSchemaSet{}, exercised: map[string]int{}}
}

// urls returns the official and our schema URL of a type ("envelope" for a
// whole message).
func (j *acpJudge) urls(t testing.TB, typ string) (string, string) {
	t.Helper()
	if typ == "envelope" {
		return acpOracleURL, acpURL("jsonrpc.json")
	}
	ourURL, ok := j.ourTypes[typ]
	if !ok {
		t.Fatalf("our schemas have no type named %s", typ)
	}
	return acpOfficialDef(typ), ourURL
}

func (j *acpJudge) relaxedFor(t testing.TB, d acpDifference) *acpSchemaSet {
	t.Helper()
	j.mu.Lock()
	defer j.mu.Unlock()
	if s, ok := j.relaxed[d.id]; ok {
		return s
	}
	s := acpRelaxedSet(t, d)
	j.relaxed[d.id] = s
	return s
}

// acpVerdict is the outcome of one comparison.
type acpVerdict struct {
	official, ours error
	explainedBy    string // difference ID when the two disagree for a documented reason
}

func (v acpVerdict) agree() bool { return (v.official == nil) == (v.ours == nil) }

// judge validates value as typ under both schemas; a disagreement is
// explained by the first documented difference whose patches make ours
// agree with the official schema, and fails the test otherwise.
func (j *acpJudge) judge(t testing.TB, name, typ string, value any) acpVerdict {
	t.Helper()
	offURL, ourURL := j.urls(t, typ)
	v := acpVerdict{official: j.official.validate(t, offURL, value), ours: j.ours.validate(t, ourURL, value)}
	if v.agree() {
		return v
	}
	for _, d := range acpDifferences {
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

// Every reference example, Go SDK golden, schema example and test instance
// gets the same verdict from our schemas as from the official one, for the
// method-directed part and for the whole envelope.
func TestACPAgreesWithOfficialSchema(t *testing.T) {
	c := acpLoadCorpus(t)
	j := acpNewJudge(t)
	valid, invalid := 0, 0
	for _, in := range c.typed {
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
	for _, e := range c.envelopes {
		if v := j.judge(t, e.name, "envelope", e.value); v.official != nil {
			t.Errorf("%s: the official schema rejects the envelope: %s", e.name, acpFirstLine(v.official))
		}
	}
	t.Logf("%d typed values (%d valid, %d invalid under both) and %d envelopes agree", len(c.typed), valid,
		invalid, len(c.envelopes))
	if len(c.typed) < 150 || invalid < 4 {
		t.Errorf("corpus too small: %d typed values, %d invalid", len(c.typed), invalid)
	}
}

var acpValidationLine = regexp.MustCompile(`^(OK|INVALID|NO-TYPE)\s+root:(\S+)\s+(\S+)\s+(\S+)\s+(\S+)`)

// The method and type derived for each doc example, and the oracle's verdict,
// match the record that ships with the examples (VALIDATION.txt).
func TestACPDocExamplesMatchRecord(t *testing.T) {
	c := acpLoadCorpus(t)
	off := acpOracle(t)
	dir := sharedref.Dir(t, "reference", "acp", "examples", "docs-v1")
	sc := bufio.NewScanner(bytes.NewReader(acpReadSharedFile(t, filepath.Join(dir, "VALIDATION.txt"))))
	seen := map[string]bool{}
	for sc.Scan() {
		f := acpValidationLine.FindStringSubmatch(sc.Text())
		if f == nil {
			continue
		}
		status, root, file, method, typ := f[1], f[2], f[3], f[4], f[5]
		seen[file] = true
		d, ok := c.docs[file]
		if !ok {
			t.Errorf("%s: recorded as a message but not read as one", file)
			continue
		}
		if root != "ok" {
			t.Errorf("%s: the record says the envelope fails (%s)", file, root)
		}
		switch status {
		case "NO-TYPE":
			_, orphan := acpDocOrphans[file]
			if !(orphan && method == "-") && !(strings.HasPrefix(method, "_") && d.method == method) {
				t.Errorf("%s: recorded without a type (method %s) but read as %s %s", file, method, d.method, d.typ)
			}
		default:
			if d.method != method || d.typ != typ {
				t.Errorf("%s: read as %s %s, recorded as %s %s", file, d.method, d.typ, method, typ)
				continue
			}
			msg, _ := acpReadSharedValue(t, filepath.Join(dir, file)).(map[string]any)
			err := off.validate(t, acpOfficialDef(typ), msg[d.part])
			if (err == nil) != (status == "OK") {
				t.Errorf("%s: oracle says %s, record says %s", file, acpFirstLine(err), status)
			}
		}
	}
	for file := range c.docs {
		if !seen[file] {
			t.Errorf("%s: read as a message but missing from the record", file)
		}
	}
}

// The README lists exactly the differences the differential test knows.
func TestACPDifferencesListedInREADME(t *testing.T) {
	readme, err := fs.ReadFile(schema.Files, "acp/README.md")
	if err != nil {
		t.Fatalf("reading README: %v", err)
	}
	listed := map[string]bool{}
	inSection := false
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "## ") {
			inSection = strings.Contains(strings.ToLower(line), "deliberate differences")
			continue
		}
		if m := regexp.MustCompile("^- `([a-z0-9-]+)`").FindStringSubmatch(line); inSection && m != nil {
			listed[m[1]] = true
		}
	}
	for _, d := range acpDifferences {
		if !listed[d.id] {
			t.Errorf("difference %s is not listed in schema/acp/README.md under Deliberate differences", d.id)
		}
		delete(listed, d.id)
	}
	for id := range listed {
		t.Errorf("README lists difference %s, which the test does not know", id)
	}
}

// Each documented difference is real (its witnesses get different verdicts)
// and precise (its patches alone make ours agree with the official schema).
func TestACPDifferencesWitnessed(t *testing.T) {
	j := acpNewJudge(t)
	for _, d := range acpDifferences {
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
				t.Errorf("%s witness %d: both schemas give the same verdict (official: %s); the difference "+
					"was: %s", d.id, i, acpFirstLine(got.official), d.reason)
			} else if got.explainedBy != d.id {
				t.Errorf("%s witness %d: explained by %q", d.id, i, got.explainedBy)
			}
		}
	}
}
