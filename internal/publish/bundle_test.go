package publish

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/internal/expect"
	"github.com/agentproto/agentproto/schema"
	"github.com/agentproto/agentproto/schema/compile"
	"github.com/agentproto/agentproto/schema/registry"
)

// generated builds everything once from the embedded schemas.
var generated = sync.OnceValues(func() (map[string]*Bundle, error) {
	versions, err := FindVersions(schema.Files)
	if err != nil {
		return nil, err
	}
	out := map[string]*Bundle{}
	for _, v := range versions {
		b, err := Build(schema.Files, v)
		if err != nil {
			return nil, err
		}
		out[v.Dir()] = b
	}
	return out, nil
})

func bundles(t *testing.T) map[string]*Bundle {
	t.Helper()
	bs, err := generated()
	if err != nil {
		t.Fatal(err)
	}
	return bs
}

func bundle(t *testing.T, dir string) *Bundle {
	t.Helper()
	b := bundles(t)[dir]
	if b == nil {
		t.Fatalf("no bundle for %s", dir)
	}
	return b
}

// compiled is a bundle compiled on its own: a fresh compiler that knows
// nothing but the bundle and cannot load anything.
type compiled struct {
	root *jsonschema.Schema
	defs map[string]*jsonschema.Schema
}

func compileBundle(t *testing.T, b *Bundle) *compiled {
	t.Helper()
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", b.BundleFile(), err)
	}
	c, err := compile.Empty()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource(b.ID(), doc); err != nil {
		t.Fatalf("%s: %v", b.BundleFile(), err)
	}
	out := &compiled{defs: map[string]*jsonschema.Schema{}}
	if out.root, err = c.Compile(b.ID()); err != nil {
		t.Fatalf("%s: root: %v", b.BundleFile(), err)
	}
	for _, name := range b.Defs().Keys() {
		s, err := c.Compile(b.ID() + "#/$defs/" + name)
		if err != nil {
			t.Fatalf("%s: #/$defs/%s: %v", b.BundleFile(), name, err)
		}
		out.defs[name] = s
	}
	return out
}

func TestBundlesAreSelfContained(t *testing.T) {
	bs := bundles(t)
	for _, dir := range []string{"acp/v1", "arcp/v1.1", "arcp/rfc0001", "arcan/v1"} {
		if bs[dir] == nil {
			t.Errorf("no bundle for %s", dir)
		}
	}
	for dir, b := range bs {
		t.Run(dir, func(t *testing.T) {
			compileBundle(t, b)
			doc := b.Doc
			if got := doc.Str("$schema"); got != draft202012 {
				t.Errorf("$schema = %q", got)
			}
			wantID := "https://agentproto.dev/schema/" + b.BundleFile()
			if got := doc.Str("$id"); got != wantID {
				t.Errorf("$id = %q, want %q", got, wantID)
			}
			refs := 0
			err := walkSchema(doc, "", func(s *Object, ptr string) error {
				if ptr != "" && (s.Has("$id") || s.Has("$schema")) {
					return fmt.Errorf("%s: nested $id or $schema", ptr)
				}
				if r, ok := s.Get("$ref"); ok {
					refs++
					rs, _ := r.(string)
					name, ok := strings.CutPrefix(rs, "#/$defs/")
					if !ok {
						return fmt.Errorf("%s: $ref %q is not internal", ptr, rs)
					}
					name, _, _ = strings.Cut(name, "/")
					if !b.Defs().Has(name) {
						return fmt.Errorf("%s: $ref %q names no definition", ptr, rs)
					}
				}
				return nil
			})
			if err != nil {
				t.Error(err)
			}
			if refs == 0 {
				t.Error("no $ref at all: the walk saw nothing")
			}
			// The root dispatches with if/then, not a bare union.
			if doc.Has("oneOf") || doc.Has("anyOf") {
				t.Error("the root is a union")
			}
			ifs := 0
			for _, a := range doc.Arr("allOf") {
				if a.(*Object).Has("if") {
					ifs++
				}
			}
			if ifs == 0 {
				t.Error("the root has no if/then dispatch")
			}
			// Every dispatched message has its definition.
			for _, m := range append(slices.Clone(b.Messages), b.Events...) {
				for _, p := range m.Parts {
					if p.Def == "" || !b.Defs().Has(p.Def) {
						t.Errorf("%s %s: definition %q missing", m.Tag, p.Role, p.Def)
					}
				}
			}
		})
	}
}

func TestBundleFormatting(t *testing.T) {
	for dir, b := range bundles(t) {
		data, err := b.Encode()
		if err != nil {
			t.Fatal(err)
		}
		var compact, indented bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if err := json.Indent(&indented, compact.Bytes(), "", "  "); err != nil {
			t.Fatal(err)
		}
		indented.WriteByte('\n')
		if !bytes.Equal(indented.Bytes(), data) {
			t.Errorf("%s: not in two-space indented form with a final newline", dir)
		}
		again, err := Build(schema.Files, b.Version)
		if err != nil {
			t.Fatal(err)
		}
		data2, err := again.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, data2) {
			t.Errorf("%s: two builds differ", dir)
		}
	}
}

func TestBundleNames(t *testing.T) {
	b := bundle(t, "acp/v1")
	for _, want := range []struct{ method, role, def, title string }{
		{"session/prompt", "params", "SessionPromptParams", "PromptRequest"},
		{"session/prompt", "result", "SessionPromptResult", "PromptResponse"},
		{"fs/read_text_file", "params", "FsReadTextFileParams", "ReadTextFileRequest"},
		{"$/cancel_request", "params", "CancelRequestParams", "CancelRequestNotification"},
	} {
		if got := MethodDef(want.method, want.role); got != want.def {
			t.Errorf("MethodDef(%s, %s) = %s, want %s", want.method, want.role, got, want.def)
		}
		if got := b.Defs().Obj(want.def).Str("title"); got != want.title {
			t.Errorf("#/$defs/%s has title %q, want the file's %q", want.def, got, want.title)
		}
	}
	for _, def := range []string{"Envelope", "ContentBlock", "SessionUpdate", "RequestId"} {
		if !b.Defs().Has(def) {
			t.Errorf("acp bundle: no #/$defs/%s", def)
		}
	}
	files := map[Version]string{
		{"arcp", "v1.1"}:    "arcp/v1.1/arcp.bundle.json",
		{"arcp", "rfc0001"}: "arcp/rfc0001/arcp-rfc0001.bundle.json",
		{"acp", "v1"}:       "acp/v1/acp.bundle.json",
		{"arcan", "v1"}:     "arcan/v1/arcan.bundle.json",
	}
	for v, want := range files {
		if got := v.BundleFile(); got != want {
			t.Errorf("%v: bundle file %s, want %s", v, got, want)
		}
	}
}

// The versions come in the registry's order within a protocol, whatever
// their folder names, and only what the registry lists.
func TestFindVersionsOrder(t *testing.T) {
	vs, err := FindVersions(schema.Files)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, v := range vs {
		got = append(got, v.Dir())
	}
	for _, p := range []string{"acp", "arcan", "arcp"} {
		for _, v := range reg.Versions(p) {
			want = append(want, v.Folder)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// A small protocol folder: a dispatch table and schema files.
func tinyFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for p, s := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(s)}
	}
	return fsys
}

func tinySchema(p, body string) string {
	return `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://agentproto.dev/schema/` + p + `", ` + body + `}`
}

func TestBuildRejects(t *testing.T) {
	table := `{"protocol": "arcan", "version": "v1", "events": [{"part_type": "a", "schema": "a.json"}]}`
	for name, tc := range map[string]struct {
		file, body, want string
	}{
		"network ref":  {"arcan/v1/a.json", `"title": "A", "type": "object", "properties": {"part_type": {"const": "a"}, "x": {"$ref": "https://example.com/x.json"}}`, "outside"},
		"nested $id":   {"arcan/v1/a.json", `"title": "A", "type": "object", "properties": {"part_type": {"const": "a", "$id": "https://agentproto.dev/schema/arcan/v1/b.json"}}`, "nested $id"},
		"wrong tag":    {"arcan/v1/a.json", `"title": "A", "type": "object", "properties": {"part_type": {"const": "b"}}`, "dispatched as part_type"},
		"wrong $id":    {"arcan/v1/a.json", `"title": "A"`, ""},
		"missing file": {"arcan/v1/z.json", `"title": "Z"`, "a.json"},
	} {
		t.Run(name, func(t *testing.T) {
			doc := tinySchema(tc.file, tc.body)
			if name == "wrong $id" {
				doc = tinySchema("arcan/v1/other.json", tc.body)
				tc.want = "$id"
			}
			fsys := tinyFS(map[string]string{"arcan/v1/dispatch.json": table, tc.file: doc})
			_, err := Build(fsys, Version{"arcan", "v1"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestBuildRenamesCollisions(t *testing.T) {
	table := `{"protocol": "arcan", "version": "v1", "events": [{"part_type": "a", "schema": "a.json"}]}`
	fsys := tinyFS(map[string]string{
		"arcan/v1/dispatch.json": table,
		"arcan/v1/a.json": tinySchema("arcan/v1/a.json", `"title": "A", "type": "object", "required": ["part_type"],
			"properties": {"part_type": {"const": "a"}, "x": {"$ref": "common.json#/$defs/A"}, "y": {"$ref": "#/$defs/Local"}},
			"$defs": {"Local": {"type": "string"}}`),
		"arcan/v1/common.json": tinySchema("arcan/v1/common.json", `"$defs": {"A": {"type": "integer"}, "Local": {"type": "boolean"}}`),
	})
	b, err := Build(fsys, Version{"arcan", "v1"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.Defs().Keys(), []string{"A", "Local", "CommonA", "CommonLocal"}; !slices.Equal(got, want) {
		t.Errorf("definitions %v, want %v", got, want)
	}
	props := b.Defs().Obj("A").Obj("properties")
	if got := props.Obj("x").Str("$ref"); got != "#/$defs/CommonA" {
		t.Errorf("x: $ref %s", got)
	}
	if got := props.Obj("y").Str("$ref"); got != "#/$defs/Local" {
		t.Errorf("y: $ref %s", got)
	}
	c := compileBundle(t, b)
	for doc, want := range map[string]bool{
		`{"part_type": "a", "x": 1, "y": "s"}`:   true,
		`{"part_type": "a", "x": "1", "y": "s"}`: false, // x is common's A, an integer
		`{"part_type": "b"}`:                     false,
		`{"x": 1}`:                               false,
	} {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		if got := c.root.Validate(v) == nil; got != want {
			t.Errorf("%s: valid = %v, want %v", doc, got, want)
		}
	}
}

func TestRewriteTaggedRefusesOverlap(t *testing.T) {
	defs := obj("U", obj("oneOf", []any{
		obj("type", "object", "properties", obj("k", obj("const", "x-a")), "required", []any{"k"}),
		obj("type", "object", "properties", obj("k", obj("type", "string", "pattern", "^x-")), "required", []any{"k"}),
	}))
	err := rewriteTagged(defs, "U", "k", "tag")
	if err == nil || !strings.Contains(err.Error(), "also accepts") {
		t.Errorf("error %v, want the overlap reported", err)
	}
	// Without the overlap it becomes a dispatch.
	defs.Obj("U").Arr("oneOf")[0].(*Object).Obj("properties").Obj("k").Set("const", "a")
	if err := rewriteTagged(defs, "U", "k", "tag"); err != nil {
		t.Fatal(err)
	}
	if defs.Obj("U").Has("oneOf") || len(defs.Obj("U").Arr("allOf")) != 2 {
		t.Errorf("not rewritten: %s", compactJSON(defs.Obj("U")))
	}
}

// sourceSet validates with the source schemas, as the dispatch tables say.
type sourceSet struct {
	c     *jsonschema.Compiler
	cache map[string]*jsonschema.Schema
}

func newSourceSet(t *testing.T) *sourceSet {
	c, err := compile.New()
	if err != nil {
		t.Fatal(err)
	}
	return &sourceSet{c: c, cache: map[string]*jsonschema.Schema{}}
}

func (s *sourceSet) valid(t *testing.T, file string, v any) bool {
	t.Helper()
	sch := s.cache[file]
	if sch == nil {
		var err error
		if sch, err = s.c.Compile(IDPrefix + file); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		s.cache[file] = sch
	}
	return sch.Validate(v) == nil
}

// traceLine is one parsed line of a fixture.
type traceLine struct {
	n     int
	value any
}

func readTrace(t *testing.T, p string) []traceLine {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []traceLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			continue // not JSON: no schema verdict to compare
		}
		out = append(out, traceLine{n, v})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// schemaLines reads the lines an .expect file reports with rule "schema".
func schemaLines(t *testing.T, p string) map[int]bool {
	t.Helper()
	keys, err := expect.Read(p)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]bool{}
	for _, k := range keys {
		if k.Rule == "schema" {
			out[k.Line] = true
		}
	}
	return out
}

func fixtures(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join("..", "..", "fixtures", pattern))
	if err != nil {
		t.Fatal(err)
	}
	if len(m) == 0 {
		t.Fatalf("no fixtures match %s", pattern)
	}
	return m
}

// verdicts compares the bundle's verdict with the source's on every line of
// a trace, and checks the lines the expect file calls schema errors and,
// under valid/, that every line passes.
type verdicts struct {
	t         *testing.T
	file      string
	schemaBad map[int]bool
	mustPass  bool
	seen      map[int]bool
}

func (v *verdicts) check(n int, source, bundle bool) {
	v.t.Helper()
	v.seen[n] = true
	if source != bundle {
		v.t.Errorf("%s:%d: the source schemas say valid=%v, the bundle valid=%v", v.file, n, source, bundle)
	}
	if v.schemaBad[n] && bundle {
		v.t.Errorf("%s:%d: a schema error of the .expect file, but the bundle accepts the line", v.file, n)
	}
	if v.mustPass && !bundle {
		v.t.Errorf("%s:%d: a valid fixture line, but the bundle rejects it", v.file, n)
	}
}

func newVerdicts(t *testing.T, p string) *verdicts {
	expect := strings.TrimSuffix(p, ".jsonl") + ".expect"
	return &verdicts{t: t, file: p, schemaBad: schemaLines(t, expect), mustPass: filepath.Base(filepath.Dir(p)) == "valid", seen: map[int]bool{}}
}

func (v *verdicts) done() {
	v.t.Helper()
	for n := range v.schemaBad {
		if !v.seen[n] {
			v.t.Errorf("%s:%d: a schema error of the .expect file that was not compared", v.file, n)
		}
	}
	if len(v.seen) == 0 {
		v.t.Errorf("%s: no line compared", v.file)
	}
}

func str(v any, k string) (string, bool) {
	m, _ := v.(map[string]any)
	s, ok := m[k].(string)
	return s, ok
}

func TestARCPFixtureVerdicts(t *testing.T) {
	src := newSourceSet(t)
	for _, ver := range []string{"v1.1", "rfc0001"} {
		b := bundle(t, "arcp/"+ver)
		c := compileBundle(t, b)
		byType := map[string]string{}
		for _, m := range b.Messages {
			byType[m.Tag] = m.Parts[0].Source
		}
		for _, p := range fixtures(t, "arcp/"+ver+"/*/*.jsonl") {
			vd := newVerdicts(t, p)
			for _, line := range readTrace(t, p) {
				typ, _ := str(line.value, "type")
				file := byType[typ]
				source := file != "" && src.valid(t, file, line.value)
				vd.check(line.n, source, c.root.Validate(line.value) == nil)
			}
			vd.done()
		}
	}
}

func TestArcanFixtureVerdicts(t *testing.T) {
	src := newSourceSet(t)
	b := bundle(t, "arcan/v1")
	c := compileBundle(t, b)
	byTag := map[string]string{}
	var record Part
	for _, m := range b.Messages {
		if m.Kind == "record" {
			record = m.Parts[0]
			continue
		}
		byTag[m.Tag] = m.Parts[0].Source
	}
	if record.Def == "" {
		t.Fatal("no store record in the arcan bundle")
	}
	records, literals := 0, 0
	for _, p := range fixtures(t, "arcan/*/*.jsonl") {
		vd := newVerdicts(t, p)
		store := strings.HasSuffix(p, ".store.jsonl")
		for _, line := range readTrace(t, p) {
			// The bundle states x-integer-literal in prose only: it judges
			// a line as the sources judge it with its integral numbers
			// written as integer literals.
			lit, changed := integerLiterals(line.value)
			var source, bundle bool
			if store {
				records++
				source, bundle = src.valid(t, record.Source, lit), c.defs[record.Def].Validate(line.value) == nil
			} else {
				tag, _ := str(line.value, "part_type")
				file := byTag[tag]
				source, bundle = file != "" && src.valid(t, file, lit), c.root.Validate(line.value) == nil
			}
			if changed && source {
				literals++
				delete(vd.schemaBad, line.n)
			}
			vd.check(line.n, source, bundle)
		}
		vd.done()
	}
	if records == 0 {
		t.Error("no store record compared")
	}
	if literals == 0 {
		t.Error("no line that fails only x-integer-literal compared")
	}
}

// integerLiterals returns v with every integral number that is not written
// as an integer literal (1.0, 1e2, -0) rewritten as one, and whether any
// was.
func integerLiterals(v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") && s != "-0" {
			return v, false
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok || !r.IsInt() {
			return v, false
		}
		return json.Number(r.Num().String()), true
	case map[string]any:
		out, changed := make(map[string]any, len(x)), false
		for k, e := range x {
			var c bool
			out[k], c = integerLiterals(e)
			changed = changed || c
		}
		return out, changed
	case []any:
		out, changed := make([]any, len(x)), false
		for i, e := range x {
			var c bool
			out[i], c = integerLiterals(e)
			changed = changed || c
		}
		return out, changed
	}
	return v, false
}

// idKey identifies a JSON-RPC id by its JSON type and value.
func idKey(dir string, id any) string { return fmt.Sprintf("%s %T %v", dir, id, id) }

func TestACPFixtureVerdicts(t *testing.T) {
	src := newSourceSet(t)
	b := bundle(t, "acp/v1")
	c := compileBundle(t, b)
	type entry struct {
		kind           string
		params, result Part
	}
	table := map[string]entry{}
	for _, m := range b.Messages {
		e := entry{kind: m.Kind}
		for _, p := range m.Parts {
			if p.Role == "params" {
				e.params = p
			} else {
				e.result = p
			}
		}
		table[m.Tag] = e
	}
	results := 0
	for _, p := range fixtures(t, "acp/*/*.jsonl") {
		dirData, err := os.ReadFile(strings.TrimSuffix(p, ".jsonl") + ".dir")
		if err != nil {
			t.Fatal(err)
		}
		dirs := strings.Fields(string(dirData))
		vd := newVerdicts(t, p)
		pending := map[string]string{} // direction and id → method
		for _, line := range readTrace(t, p) {
			if line.n > len(dirs) {
				t.Fatalf("%s:%d: no direction in the .dir sidecar", p, line.n)
			}
			dir := dirs[line.n-1]
			other := map[string]string{"c2a": "a2c", "a2c": "c2a"}[dir]
			msg, _ := line.value.(map[string]any)
			source := src.valid(t, "acp/v1/jsonrpc.json", line.value)
			bundleOK := c.root.Validate(line.value) == nil
			id, hasID := msg["id"]
			method, hasMethod := str(line.value, "method")
			switch {
			case hasMethod:
				if hasID {
					pending[idKey(dir, id)] = method
				}
				e, known := table[method]
				if !known {
					break
				}
				params, hasParams := msg["params"]
				switch {
				case e.kind == "request" && !hasID, e.kind == "notification" && hasID, !hasParams:
					source = false
				case !src.valid(t, e.params.Source, params):
					source = false
				}
			case hasID:
				result, ok := msg["result"]
				e := table[pending[idKey(other, id)]]
				if !ok || e.result.Def == "" {
					break
				}
				results++
				if !src.valid(t, e.result.Source, result) {
					source = false
				}
				if c.defs[e.result.Def].Validate(result) != nil {
					bundleOK = false
				}
			}
			vd.check(line.n, source, bundleOK)
		}
		vd.done()
	}
	if results == 0 {
		t.Error("no response result compared")
	}
}

func TestRootDispatch(t *testing.T) {
	cache := map[string]*compiled{}
	for _, tc := range []struct {
		dir, line string
		want      bool
	}{
		{"acp/v1", `{"jsonrpc":"2.0","id":1,"method":"session/cancel","params":{"sessionId":"s"}}`, false},      // a notification with an id
		{"acp/v1", `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`, true},              // the notification
		{"acp/v1", `{"jsonrpc":"2.0","id":1,"method":"session/prompt"}`, false},                                 // params missing
		{"acp/v1", `{"jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`, false}, // a request without id
		{"acp/v1", `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`, true},
		{"acp/v1", `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"nope"}]}}`, false},
		{"acp/v1", `{"jsonrpc":"2.0","id":1,"method":"_acme/anything","params":[1,2]}`, true}, // extension: envelope only
		{"acp/v1", `{"jsonrpc":"2.0","id":1,"result":{"anything":true}}`, true},               // a response: result checked separately
		{"acp/v1", `{"jsonrpc":"1.0","id":1,"result":{}}`, false},
		{"arcp/v1.1", `{"arcp":"1.1","id":"m1","type":"session.nope","session_id":"s","payload":{}}`, false},
		{"arcp/v1.1", `{"arcp":"1.1","id":"m1","type":"job.event","session_id":"s","job_id":"j","event_seq":1,"payload":{"kind":"x-vendor.acme.x","ts":"2026-01-01T00:00:00Z","body":{}}}`, true},
		{"arcp/v1.1", `{"arcp":"1.1","id":"m1","type":"job.event","session_id":"s","job_id":"j","event_seq":1,"payload":{"kind":"acme.x","ts":"2026-01-01T00:00:00Z","body":{}}}`, false},
		{"arcp/v1.1", `{"arcp":"1.1","id":"m1","type":"job.event","session_id":"s","job_id":"j","event_seq":1,"payload":{"kind":"log","ts":"2026-01-01T00:00:00Z","body":{"level":"loud","message":"m"}}}`, false},
		{"arcp/v1.1", `{"arcp":"1.1","id":"m1","type":"job.event","session_id":"s","job_id":"j","event_seq":1,"payload":{"kind":"log","ts":"2026-01-01T00:00:00Z","body":{"level":"info","message":"m"}}}`, true},
		{"arcan/v1", `{"part_type":"text_delta","run_id":"r","session_id":"s","iteration":1,"delta":"hi"}`, true},
		{"arcan/v1", `{"part_type":"text_delta","run_id":"r","session_id":"s","iteration":-1,"delta":"hi"}`, false},
		{"arcan/v1", `"text_delta"`, false},
	} {
		c := cache[tc.dir]
		if c == nil {
			c = compileBundle(t, bundle(t, tc.dir))
			cache[tc.dir] = c
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.line))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.root.Validate(v) == nil; got != tc.want {
			t.Errorf("%s: %s: valid = %v, want %v", tc.dir, tc.line, got, tc.want)
		}
	}
}
