package gen_test

import (
	"bufio"
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
	"golang.org/x/text/message"

	"github.com/agentproto/agentproto/gen"
)

// realEntry is one schema of testdata/real/corpus.json: a schema as
// published in an npm package, in the folder Name with its licence,
// README and samples.jsonl.
type realEntry struct {
	Name    string `json:"name"`
	Package string `json:"package"`
	// Schema is the main schema file; Sides are the files it refers to,
	// given to protogen as further inputs (as a user would pass them).
	Schema string   `json:"schema"`
	Sides  []string `json:"sides"`
	// Stubs are addresses the schema refers to that no package ships: the
	// oracle reads an empty schema there. protogen is given nothing.
	Stubs []string `json:"stubs"`
	// Root is the Go type protogen makes of the main schema's root.
	Root string `json:"root"`
	// RawUnions is the most unions protogen may keep as raw JSON with an
	// accessor: the count measured today, so that it only goes down.
	RawUnions int `json:"rawUnions"`
	// Pending names what protogen cannot do yet with this schema: the
	// entry is skipped with that reason until it is fixed.
	Pending string `json:"pending"`
}

func readCorpus(t *testing.T) []realEntry {
	t.Helper()
	b, err := os.ReadFile("testdata/real/corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Schemas []realEntry `json:"schemas"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("testdata/real/corpus.json: %v", err)
	}
	return c.Schemas
}

// TestRealSchemas: schemas as published in npm packages (testdata/real,
// listed in corpus.json, each with its licence) generate with no flags,
// keep no more unions as raw JSON than corpus.json allows, and compile;
// their samples, valid by jsonschema/v6, decode, validate and re-encode to
// the same JSON value through the generated code. The generated packages
// are compiled and tested by one go test run, to keep the time down.
func TestRealSchemas(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles generated packages; skipped with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to compile the output with")
	}
	out, err := os.MkdirTemp("testdata", "real-out-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })

	entries := readCorpus(t)
	if len(entries) < 25 {
		t.Errorf("corpus.json lists %d schemas; the corpus is meant to hold at least 25", len(entries))
	}
	pkgs := map[string]string{} // package folder -> entry name
	for _, e := range entries {
		t.Run(e.Name, func(t *testing.T) {
			checkSamples(t, e)
			if e.Pending != "" {
				t.Skip("pending: " + e.Pending)
			}
			dir, ok := generateReal(t, e, out)
			if ok {
				pkgs[dir] = e.Name
			}
		})
	}
	if len(pkgs) == 0 {
		return
	}
	dirs := make([]string, 0, len(pkgs))
	for d := range pkgs {
		dirs = append(dirs, "./"+filepath.ToSlash(filepath.Join(out, d)))
	}
	slices.Sort(dirs)
	cmd := exec.Command(goBin, append([]string{"test", "-vet=all"}, dirs...)...)
	res, err := cmd.CombinedOutput()
	if err == nil {
		return
	}
	// Name the schemas whose package failed to build, vet or pass.
	failed := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(string(res)))
	for sc.Scan() {
		line := sc.Text()
		for d, name := range pkgs {
			if strings.Contains(line, "/"+filepath.Base(out)+"/"+d) && (strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "#")) {
				failed[name] = true
			}
		}
	}
	names := make([]string, 0, len(failed))
	for n := range failed {
		names = append(names, n)
	}
	slices.Sort(names)
	t.Errorf("the generated packages of %s do not build, vet or round-trip their samples: %v\n%s", strings.Join(names, ", "), err, res)
}

// checkSamples validates every sample of e with jsonschema/v6, the
// reference validator: a sample the oracle rejects proves nothing.
func checkSamples(t *testing.T, e realEntry) {
	t.Helper()
	dir := filepath.Join("testdata/real", e.Name)
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.RegisterVocabulary(jsKeywords())
	c.AssertVocabs()
	c.UseRegexpEngine(func(p string) (jsonschema.Regexp, error) {
		re, err := regexp.Compile(p)
		if err != nil {
			// ECMAScript syntax Go lacks (cspell's lookaheads): ajv
			// checked these patterns when the samples were written.
			t.Logf("the oracle does not check the pattern %q: %v", p, err)
			return anyString(p), nil
		}
		return re, nil
	})
	mainURL := fileURL(filepath.Join(abs, e.Schema))
	mainDoc := readJSON(t, filepath.Join(dir, e.Schema))
	base := mainURL
	if m, ok := mainDoc.(map[string]any); ok {
		if id, ok := m["$id"].(string); ok {
			base = id
		} else if id, ok := m["id"].(string); ok {
			base = id
		}
	}
	for _, s := range e.Sides {
		// A side file is found by path, as ajv finds it: relative to the
		// main schema's base, whatever $id it declares itself.
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := u.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		doc := readJSON(t, filepath.Join(dir, s))
		if err := c.AddResource(ref.String(), rebased(doc, ref.String())); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		// and by the $id it declares, where that is another address.
		if m, ok := doc.(map[string]any); ok {
			if id, ok := m["$id"].(string); ok && strings.TrimSuffix(id, "#") != ref.String() {
				if err := c.AddResource(id, doc); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
		}
	}
	for _, s := range e.Stubs {
		if err := c.AddResource(s, map[string]any{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.AddResource(mainURL, mainDoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(mainURL)
	if err != nil {
		t.Fatalf("jsonschema/v6 compiles %s: %v", e.Schema, err)
	}
	lines := sampleLines(t, e)
	if len(lines) < 2 {
		t.Errorf("%d samples: each schema needs at least 2", len(lines))
	}
	for i, line := range lines {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
		if err != nil {
			t.Fatalf("samples.jsonl:%d: %v", i+1, err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("samples.jsonl:%d: jsonschema/v6 rejects the sample: %v", i+1, err)
		}
	}
}

// generateReal runs protogen on e, checks its raw unions against the
// manifest and writes the package and its sample test under out. It
// reports the package's folder, and false where generation failed.
func generateReal(t *testing.T, e realEntry, out string) (string, bool) {
	t.Helper()
	dir := filepath.Join("testdata/real", e.Name)
	inputs := []string{filepath.Join(dir, e.Schema)}
	for _, s := range e.Sides {
		inputs = append(inputs, filepath.Join(dir, s))
	}
	raw := 0
	src, err := gen.Generate(gen.Config{Inputs: inputs, Package: "p", Warn: func(err error) {
		if strings.Contains(err.Error(), "raw JSON with an accessor") {
			raw++
			t.Log(err)
		}
	}})
	if err != nil {
		t.Errorf("protogen: %v", err)
		return "", false
	}
	t.Logf("%s: %d raw unions", e.Name, raw)
	if raw > e.RawUnions {
		t.Errorf("%d unions kept as raw JSON; corpus.json allows %d", raw, e.RawUnions)
	} else if raw < e.RawUnions {
		t.Logf("%d unions kept as raw JSON, fewer than the %d corpus.json allows: lower it", raw, e.RawUnions)
	}
	pkg := regexp.MustCompile(`[^a-z0-9]`).ReplaceAllString(strings.ToLower(e.Name), "")
	pdir := filepath.Join(out, pkg)
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(pdir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("p.go", src)
	write("samples.jsonl", []byte(strings.Join(sampleLines(t, e), "\n")))
	// A root that is a union is an interface, read and written by the
	// package's functions; any other root has methods.
	tmpl := realTest
	if strings.Contains(string(src), "\nfunc Unmarshal"+e.Root+"(data []byte)") {
		tmpl = realUnionTest
	}
	write("p_test.go", []byte(fmt.Sprintf(tmpl, e.Root)))
	return pkg, true
}

func sampleLines(t *testing.T, e realEntry) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/real", e.Name, "samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

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

// rebased is a copy of the schema doc whose $id is u, so that one
// document can be read at two addresses.
func rebased(doc any, u string) any {
	m, ok := doc.(map[string]any)
	if !ok {
		return doc
	}
	if _, ok := m["$id"]; !ok {
		return doc
	}
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	c["$id"] = u
	return c
}

// anyString is a pattern the oracle cannot compile: it matches anything.
type anyString string

func (a anyString) MatchString(string) bool { return true }
func (a anyString) String() string          { return string(a) }

func fileURL(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// jsKeywords is the vocabulary two packages' own validators add to their
// schemas: commitlint's `typeof` (the JavaScript typeof of the value) and
// webpack's `instanceof` (a class the value is an instance of). Without
// it a oneOf whose alternative is `{"typeof": "function"}` rejects every
// value, as it would in ajv without the keyword.
func jsKeywords() *jsonschema.Vocabulary {
	return &jsonschema.Vocabulary{
		URL: "urn:agentproto:test:js-keywords",
		Compile: func(_ *jsonschema.CompilerContext, obj map[string]any) (jsonschema.SchemaExt, error) {
			k := jsKeyword{}
			if v, ok := obj["typeof"].(string); ok {
				k.typeOf = &v
			}
			if v, ok := obj["instanceof"].(string); ok {
				k.instanceOf = &v
			}
			if k.typeOf == nil && k.instanceOf == nil {
				return nil, nil
			}
			return k, nil
		},
	}
}

type jsKeyword struct{ typeOf, instanceOf *string }

func (k jsKeyword) Validate(ctx *jsonschema.ValidatorContext, v any) {
	if k.typeOf != nil {
		got := "object"
		switch v.(type) {
		case string:
			got = "string"
		case bool:
			got = "boolean"
		case json.Number, float64, int, int64:
			got = "number"
		}
		if got != *k.typeOf {
			ctx.AddError(&jsKeywordError{"typeof", *k.typeOf})
		}
	}
	if k.instanceOf != nil {
		_, isArray := v.([]any)
		_, isObject := v.(map[string]any)
		ok := (*k.instanceOf == "Array" && isArray) || (*k.instanceOf == "Object" && (isArray || isObject))
		if !ok {
			ctx.AddError(&jsKeywordError{"instanceof", *k.instanceOf})
		}
	}
}

type jsKeywordError struct{ keyword, want string }

func (e *jsKeywordError) KeywordPath() []string { return []string{e.keyword} }

func (e *jsKeywordError) LocalizedString(*message.Printer) string {
	return fmt.Sprintf("%s is not %s", e.keyword, e.want)
}

// realTest decodes each sample line as the root type (%[1]s), validates it
// and re-encodes it; the value must not change.
const realTest = realPrelude + `
func TestSamples(t *testing.T) {
	for i, line := range samples(t) {
		var v %[1]s
		if err := wire.Unmarshal([]byte(line), &v); err != nil {
			t.Errorf("samples.jsonl:%%d: decode: %%v", i+1, err)
			continue
		}
		if err := v.Validate(); err != nil {
			t.Errorf("samples.jsonl:%%d: Validate: %%v", i+1, err)
		}
		out, err := wire.Marshal(&v)
		if err != nil || !reflect.DeepEqual(value(t, out), value(t, []byte(line))) {
			t.Errorf("samples.jsonl:%%d: %%s re-encoded as %%s, %%v", i+1, line, out, err)
		}
	}
}
`

// realUnionTest is realTest for a root that is a union (an interface).
const realUnionTest = realPrelude + `
func TestSamples(t *testing.T) {
	for i, line := range samples(t) {
		v, err := Unmarshal%[1]s([]byte(line))
		if err != nil {
			t.Errorf("samples.jsonl:%%d: decode: %%v", i+1, err)
			continue
		}
		if err := Validate%[1]s(v); err != nil {
			t.Errorf("samples.jsonl:%%d: Validate: %%v", i+1, err)
		}
		out, err := Marshal%[1]s(v)
		if err != nil || !reflect.DeepEqual(value(t, out), value(t, []byte(line))) {
			t.Errorf("samples.jsonl:%%d: %%s re-encoded as %%s, %%v", i+1, line, out, err)
		}
	}
}
`

const realPrelude = `package p

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/wire"
)

var _ = wire.Marshal

func samples(t *testing.T) []string {
	b, err := os.ReadFile("samples.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\n")
}

func value(t *testing.T, b []byte) any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}
`
