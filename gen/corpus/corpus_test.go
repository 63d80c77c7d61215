// Package corpus holds the test of protogen on the schemas of other agent
// protocols, in a package of its own so that its compile of the generated
// packages has a time budget of its own.
package corpus

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/gen"
)

// corpusEntry is one schema of testdata/corpus.json: an agent
// protocol's published schema with examples published beside it, each in
// examples/TYPE/, TYPE being the schema definition it is an instance of.
type corpusEntry struct {
	Name       string `json:"name"`
	Repository string `json:"repository"`
	Commit     string `json:"commit"`
	Schema     string `json:"schema"`
	Examples   int    `json:"examples"`
	// Invalid counts the examples the reference validator (jsonschema/v6)
	// rejects: published examples that break their own schema. protogen
	// must reject each of them too, in decoding or in Validate.
	Invalid int `json:"invalid"`
	// RawUnions is the most unions protogen may keep as raw JSON with an
	// accessor: the count measured today, so that it only goes down.
	RawUnions int `json:"rawUnions"`
}

// corpusOracle returns a function that reports whether the reference
// validator accepts the example file as an instance of the schema's
// definition name (or of the root, for the type the root became).
func corpusOracle(t *testing.T, schemaFile string) func(name, file string) bool {
	t.Helper()
	abs, err := filepath.Abs(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	doc := readJSON(t, schemaFile)
	u := fileURL(abs)
	c := jsonschema.NewCompiler()
	if err := c.AddResource(u, doc); err != nil {
		t.Fatal(err)
	}
	m, _ := doc.(map[string]any)
	return func(name, file string) bool {
		t.Helper()
		ptr := "#"
		for _, defs := range []string{"$defs", "definitions"} {
			if d, ok := m[defs].(map[string]any); ok && d[name] != nil {
				ptr = "#/" + defs + "/" + name
			}
		}
		sch, err := c.Compile(u + ptr)
		if err != nil {
			t.Fatalf("jsonschema/v6 compiles %s%s: %v", schemaFile, ptr, err)
		}
		err = sch.Validate(readJSON(t, file))
		if err != nil {
			t.Logf("%s: jsonschema/v6 rejects it: %v", file, err)
		}
		return err == nil
	}
}

// TestAgentProtocolCorpus: the schemas of other agent protocols (MCP at two
// dated versions, A2A 0.3.0, LSP's meta-model, the MCP registry's
// server.json), each with its licence and provenance, generate with no
// flags and compile; every example decodes strictly into the type it is
// filed under, passes Validate, re-encodes to the same JSON value, and
// decodes through each union that has that type as a variant into that
// variant (not another, not Unknown…). The packages are tested by one go
// test run, to keep the time down.
func TestAgentProtocolCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles generated packages; skipped with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to compile the output with")
	}
	b, err := os.ReadFile("testdata/corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Schemas []corpusEntry `json:"schemas"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("testdata/corpus.json: %v", err)
	}
	out, err := os.MkdirTemp("testdata", "out-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	var dirs []string
	for _, e := range c.Schemas {
		t.Run(e.Name, func(t *testing.T) {
			if d, ok := generateCorpus(t, e, out); ok {
				dirs = append(dirs, "./"+filepath.ToSlash(d))
			}
		})
	}
	if len(dirs) == 0 {
		return
	}
	res, err := exec.Command(goBin, append([]string{"test", "-vet=off"}, dirs...)...).CombinedOutput()
	if err != nil {
		t.Errorf("the generated packages do not build or their examples fail: %v\n%s", err, res)
	}
}

var (
	aliasOf   = regexp.MustCompile(`(?m)^type (\w+) = (\w+)$`)
	unionOf   = regexp.MustCompile(`(?m)^func \(\*(\w+)\) is(\w+)\(\) \{\}$`)
	unmarshal = regexp.MustCompile(`(?m)^func Unmarshal(\w+)\(data \[\]byte\)`)
)

// generateCorpus writes e's package and a test of its examples under out.
func generateCorpus(t *testing.T, e corpusEntry, out string) (string, bool) {
	t.Helper()
	dir := filepath.Join("testdata", e.Name)
	for _, f := range []string{"LICENSE", "PROVENANCE"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the entry has no %s: %v", f, err)
		}
	}
	raw := 0
	src, err := gen.Generate(gen.Config{Inputs: []string{filepath.Join(dir, e.Schema)}, Package: "p", Warn: func(err error) {
		if strings.Contains(err.Error(), "raw JSON with an accessor") {
			raw++
			t.Log(err)
		}
	}})
	if err != nil {
		t.Errorf("protogen: %v", err)
		return "", false
	}
	if raw > e.RawUnions {
		t.Errorf("%d unions kept as raw JSON; corpus.json allows %d", raw, e.RawUnions)
	}
	text := string(src)
	aliases := map[string]string{}
	for _, m := range aliasOf.FindAllStringSubmatch(text, -1) {
		aliases[m[1]] = m[2]
	}
	resolve := func(name string) string {
		for i := 0; i < 10 && aliases[name] != ""; i++ {
			name = aliases[name]
		}
		return name
	}
	unions := map[string][]string{} // variant → the unions it is a variant of
	for _, m := range unionOf.FindAllStringSubmatch(text, -1) {
		unions[m[1]] = append(unions[m[1]], m[2])
	}
	isUnion := map[string]bool{}
	for _, m := range unmarshal.FindAllStringSubmatch(text, -1) {
		isUnion[m[1]] = true
	}
	oracle := corpusOracle(t, filepath.Join(dir, e.Schema))
	types, err := os.ReadDir(filepath.Join(dir, "examples"))
	if err != nil {
		t.Fatal(err)
	}
	var cases strings.Builder
	n, invalid := 0, 0
	for _, ty := range types {
		name := ty.Name()
		if !strings.Contains(text, "\ntype "+name+" ") {
			t.Errorf("examples/%s: the generated package has no type %s", name, name)
			continue
		}
		files, err := os.ReadDir(filepath.Join(dir, "examples", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			abs, err := filepath.Abs(filepath.Join(dir, "examples", name, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			n++
			valid := oracle(name, abs)
			if !valid {
				invalid++
			}
			fmt.Fprintf(&cases, "\t{%q, %v, %s},\n", abs, valid, corpusCase(name, resolve(name), isUnion, unions))
		}
	}
	t.Logf("%s: %d types, %d raw unions, %d examples (%d invalid by the reference validator)", e.Name, strings.Count(text, "\ntype "), raw, n, invalid)
	if n != e.Examples || invalid != e.Invalid {
		t.Errorf("%d examples on disk, %d of them invalid by jsonschema/v6; corpus.json says %d and %d", n, invalid, e.Examples, e.Invalid)
	}
	pkg := regexp.MustCompile(`[^a-z0-9]`).ReplaceAllString(e.Name, "")
	pdir := filepath.Join(out, pkg)
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pdir, "p.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pdir, "p_test.go"), []byte(strings.Replace(corpusTest, "\t// CASES\n", cases.String(), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return pdir, true
}

// corpusCase is the check of an example of type name (target, once
// aliases are followed): decode, Validate, re-encode, and the variant each
// union of the type decodes it as.
func corpusCase(name, target string, isUnion map[string]bool, unions map[string][]string) string {
	var b strings.Builder
	b.WriteString("func(data []byte) error {\n")
	if isUnion[target] {
		fmt.Fprintf(&b, "v, err := Unmarshal%s(data)\nif err != nil { return fmt.Errorf(\"decode: %%w\", err) }\n", target)
		fmt.Fprintf(&b, "if k := fmt.Sprintf(\"%%T\", v); strings.Contains(k, \".Unknown\") { return fmt.Errorf(\"decoded as the unknown variant %%s\", k) }\n")
		fmt.Fprintf(&b, "if err := Validate%s(v); err != nil { return fmt.Errorf(\"validate: %%w\", err) }\n", target)
		fmt.Fprintf(&b, "out, err := Marshal%s(v)\nif err != nil { return err }\nif err := sameJSON(data, out); err != nil { return err }\n", target)
	} else {
		fmt.Fprintf(&b, "var v %s\nif err := wire.Unmarshal(data, &v); err != nil { return fmt.Errorf(\"decode: %%w\", err) }\n", name)
		b.WriteString("if err := v.Validate(); err != nil { return fmt.Errorf(\"validate: %w\", err) }\n")
		b.WriteString("out, err := wire.Marshal(&v)\nif err != nil { return err }\nif err := sameJSON(data, out); err != nil { return err }\n")
	}
	us := slices.Clone(unions[target])
	slices.Sort(us)
	for _, u := range us {
		if strings.HasPrefix(u, "Then") || !isUnion[u] {
			continue
		}
		fmt.Fprintf(&b, "if u, err := Unmarshal%s(data); err != nil { return fmt.Errorf(\"decode as %s: %%w\", err) } else if _, ok := u.(*%s); !ok { return fmt.Errorf(\"%s decodes it as %%T, not *%s\", u) }\n", u, u, target, u, target)
	}
	b.WriteString("return nil\n}")
	return b.String()
}

const corpusTest = `package p

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/wire"
)

var corpusCases = []struct {
	file  string
	valid bool // by the reference validator
	check func([]byte) error
}{
	// CASES
}

func TestExamples(t *testing.T) {
	for _, c := range corpusCases {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		err = c.check(data)
		switch {
		case c.valid && err != nil:
			t.Errorf("%s: %v", c.file, err)
		case !c.valid && err == nil:
			t.Errorf("%s: the reference validator rejects it, and it decodes and validates", c.file)
		case !c.valid && !strings.HasPrefix(err.Error(), "decode: ") && !strings.HasPrefix(err.Error(), "validate: "):
			t.Errorf("%s: rejected, but not by decoding or Validate: %v", c.file, err)
		}
	}
}

// sameJSON reports how a and b differ as JSON values (numbers by value).
func sameJSON(a, b []byte) error {
	va, err := decodeNumbers(a)
	if err != nil {
		return err
	}
	vb, err := decodeNumbers(b)
	if err != nil {
		return fmt.Errorf("the encoding is not JSON: %w", err)
	}
	if !reflect.DeepEqual(va, vb) {
		return fmt.Errorf("re-encoded to another value:\n%s", b)
	}
	return nil
}

func decodeNumbers(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return normal(v), nil
}

func normal(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = normal(x)
		}
	case []any:
		for i, x := range v {
			v[i] = normal(x)
		}
	case json.Number:
		f, _, err := big.ParseFloat(string(v), 10, 200, big.ToNearestEven)
		if err == nil {
			return f.Text('g', 60)
		}
	}
	return v
}
`

func readJSON(t *testing.T, path string) any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

func fileURL(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}
