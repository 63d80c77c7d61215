package schema_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/agentproto/agentproto/pkg/wire"
	"github.com/agentproto/agentproto/schema"
	"github.com/agentproto/agentproto/schema/compile"
)

// The VT Code client's HTTP dialect of ACP: schema/acp/vtcode and its traces
// in fixtures/acp-vtcode. These tests read nothing outside the repository.

const (
	vtcodeDir      = "acp/vtcode"
	vtcodeFixtures = "../fixtures/acp-vtcode"
	vtcodeDraft    = "https://json-schema.org/draft/2020-12/schema"
)

var vtcodePascal = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)

// vtcodeKeywords are the draft 2020-12 keywords; with x-go-name they are the
// only keys a schema object may carry.
var vtcodeKeywords = map[string]bool{
	"$schema": true, "$id": true, "$ref": true, "$defs": true, "$anchor": true, "$dynamicRef": true,
	"$dynamicAnchor": true, "$vocabulary": true, "$comment": true,
	"title": true, "description": true, "default": true, "examples": true, "deprecated": true,
	"readOnly": true, "writeOnly": true,
	"type": true, "enum": true, "const": true, "multipleOf": true, "maximum": true, "exclusiveMaximum": true,
	"minimum": true, "exclusiveMinimum": true, "maxLength": true, "minLength": true, "pattern": true,
	"maxItems": true, "minItems": true, "uniqueItems": true, "maxContains": true, "minContains": true,
	"maxProperties": true, "minProperties": true, "required": true, "dependentRequired": true,
	"properties": true, "patternProperties": true, "additionalProperties": true, "propertyNames": true,
	"items": true, "prefixItems": true, "contains": true, "allOf": true, "anyOf": true, "oneOf": true,
	"not": true, "if": true, "then": true, "else": true, "dependentSchemas": true,
	"unevaluatedItems": true, "unevaluatedProperties": true,
	"format": true, "contentEncoding": true, "contentMediaType": true, "contentSchema": true,
	"x-go-name": true,
}

// ---------------------------------------------------------------- loading

// vtcodeDispatch is schema/acp/vtcode/dispatch.json.
type vtcodeDispatch struct {
	Protocol string              `json:"protocol"`
	Version  string              `json:"version"`
	Envelope string              `json:"envelope"`
	Methods  []vtcodeMethodEntry `json:"methods"`
	Records  []vtcodeRecordEntry `json:"records"`
}

type vtcodeMethodEntry struct {
	Method  string `json:"method"`
	Kind    string `json:"kind"`
	Handler string `json:"handler"`
	Params  string `json:"params"`
	Result  string `json:"result"`
}

type vtcodeRecordEntry struct {
	Record    string   `json:"record"`
	Handler   string   `json:"handler"`
	Transport string   `json:"transport"`
	Keys      []string `json:"keys"`
	Schema    string   `json:"schema"`
}

func (d *vtcodeDispatch) method(name string) (vtcodeMethodEntry, bool) {
	for _, m := range d.Methods {
		if m.Method == name {
			return m, true
		}
	}
	return vtcodeMethodEntry{}, false
}

// record returns the record whose keys are all members of obj.
func (d *vtcodeDispatch) record(obj map[string]any) (vtcodeRecordEntry, bool) {
	for _, r := range d.Records {
		all := len(r.Keys) > 0
		for _, k := range r.Keys {
			if _, ok := obj[k]; !ok {
				all = false
			}
		}
		if all {
			return r, true
		}
	}
	return vtcodeRecordEntry{}, false
}

func vtcodeLoadDispatch(t testing.TB, dir string) *vtcodeDispatch {
	t.Helper()
	b, err := fs.ReadFile(schema.Files, path.Join(dir, schema.DispatchTable))
	if err != nil {
		t.Fatalf("reading %s dispatch table: %v", dir, err)
	}
	var d vtcodeDispatch
	dec := json.NewDecoder(bytes.NewReader(b))
	if dir == vtcodeDir {
		// Other tables have members this test does not use; this one has
		// none the test does not know.
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("%s/dispatch.json: %v", dir, err)
	}
	return &d
}

func vtcodePaths(t testing.TB) []string {
	t.Helper()
	paths, err := schema.Paths(vtcodeDir)
	if err != nil {
		t.Fatalf("listing %s: %v", vtcodeDir, err)
	}
	if len(paths) == 0 {
		t.Fatalf("no schema files under %s", vtcodeDir)
	}
	return paths
}

func vtcodeDoc(t testing.TB, p string) map[string]any {
	t.Helper()
	b, err := fs.ReadFile(schema.Files, p)
	if err != nil {
		t.Fatalf("reading %s: %v", p, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return doc
}

// vtcodeSchemas compiles each schema URL once.
type vtcodeSchemas struct {
	c    *jsonschema.Compiler
	seen map[string]*jsonschema.Schema
}

func vtcodeNewSchemas(t testing.TB) *vtcodeSchemas {
	t.Helper()
	c, err := compile.New()
	if err != nil {
		t.Fatalf("NewCompiler: %v", err)
	}
	return &vtcodeSchemas{c: c, seen: map[string]*jsonschema.Schema{}}
}

func (s *vtcodeSchemas) get(url string) (*jsonschema.Schema, error) {
	if sch, ok := s.seen[url]; ok {
		return sch, nil
	}
	sch, err := s.c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", url, err)
	}
	s.seen[url] = sch
	return sch, nil
}

func vtcodeURL(dir, file string) string { return schema.IDPrefix + path.Join(dir, file) }

// vtcodeInstance decodes JSON the way the validator expects (json.Number).
func vtcodeInstance(b []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// ---------------------------------------------------------------- schema walking

func vtcodeTypes(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func vtcodeStrings(v any) []string {
	arr, _ := v.([]any)
	var out []string
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// ---------------------------------------------------------------- schema tests

// TestVTCodeSchemasCompile checks that every file of the dialect compiles with
// the offline compiler and follows the naming rules of schema/README.md.
func TestVTCodeSchemasCompile(t *testing.T) {
	set := vtcodeNewSchemas(t)
	for _, p := range vtcodePaths(t) {
		if _, err := set.get(schema.IDPrefix + p); err != nil {
			t.Errorf("%v", err)
		}
		doc := vtcodeDoc(t, p)
		if doc["$schema"] != vtcodeDraft {
			t.Errorf("%s: $schema is %v, want %s", p, doc["$schema"], vtcodeDraft)
		}
		if doc["$id"] != schema.IDPrefix+p {
			t.Errorf("%s: $id is %v, want %s", p, doc["$id"], schema.IDPrefix+p)
		}
		title, hasTitle := doc["title"].(string)
		switch {
		case path.Base(p) == "common.json":
			if hasTitle {
				t.Errorf("%s: a definitions-only file must not have a root title", p)
			}
		case !vtcodePascal.MatchString(title):
			t.Errorf("%s: root title %q is not PascalCase", p, title)
		}
		defs, _ := doc["$defs"].(map[string]any)
		for name := range defs {
			if !vtcodePascal.MatchString(name) {
				t.Errorf("%s: $defs key %q is not PascalCase", p, name)
			}
			// Every definition compiles on its own, as a $ref from outside
			// would compile it.
			if _, err := set.get(schema.IDPrefix + p + "#/$defs/" + name); err != nil {
				t.Errorf("%v", err)
			}
		}
	}
}

// TestVTCodeSchemaConventions checks the rules every file must follow: only
// standard keywords, relative references, a description on every type,
// property and variant, bounded integers, and tagged unions whose variants are
// titled and require distinct constant tags.
func TestVTCodeSchemaConventions(t *testing.T) {
	for _, p := range vtcodePaths(t) {
		acpWalkSchema(vtcodeDoc(t, p), "", acpRoleRoot, func(ptr string, m map[string]any, role acpSchemaRole) {
			at := p + "#" + ptr
			for k := range m {
				if !vtcodeKeywords[k] {
					t.Errorf("%s: keyword %q is not draft 2020-12 (only x-go-name may be added)", at, k)
				}
			}
			if ref, ok := m["$ref"].(string); ok && strings.Contains(ref, "://") {
				t.Errorf("%s: $ref %q must be relative", at, ref)
			}
			needs := role == acpRoleRoot || role == acpRoleDef || role == acpRoleProperty || role == acpRoleVariant
			if role == acpRoleVariant && len(m) == 1 && m["$ref"] != nil {
				needs = false // a bare reference takes the referenced description
			}
			if _, titled := m["title"]; titled {
				needs = true
			}
			if d, _ := m["description"].(string); needs && strings.TrimSpace(d) == "" {
				t.Errorf("%s: missing description", at)
			}
			if slices.Contains(vtcodeTypes(m), "integer") {
				if _, ok := m["minimum"]; !ok {
					t.Errorf("%s: integer without minimum", at)
				}
				if _, ok := m["maximum"]; !ok {
					t.Errorf("%s: integer without maximum", at)
				}
			}
			if variants, ok := m["oneOf"].([]any); ok {
				vtcodeCheckUnion(t, at, variants)
			}
		})
	}
}

// vtcodeCheckUnion checks a oneOf whose variants fix a tag with const: each
// variant is a titled object that requires its own distinct tag value.
func vtcodeCheckUnion(t *testing.T, at string, variants []any) {
	t.Helper()
	tag := ""
	for _, v := range variants {
		m, _ := v.(map[string]any)
		props, _ := m["properties"].(map[string]any)
		for name, p := range props {
			if pm, _ := p.(map[string]any); pm != nil {
				if _, ok := pm["const"].(string); ok {
					if tag != "" && tag != name {
						t.Errorf("%s: variants fix two different tags, %q and %q", at, tag, name)
					}
					tag = name
				}
			}
		}
	}
	if tag == "" {
		return // an enum written as a oneOf of consts, or an envelope choice
	}
	seen := map[string]bool{}
	for i, v := range variants {
		m, _ := v.(map[string]any)
		vat := fmt.Sprintf("%s/oneOf/%d", at, i)
		if title, _ := m["title"].(string); !vtcodePascal.MatchString(title) {
			t.Errorf("%s: variant title %q is not a PascalCase Go name", vat, title)
		}
		if m["type"] != "object" {
			t.Errorf("%s: variant must say type object", vat)
		}
		props, _ := m["properties"].(map[string]any)
		tm, _ := props[tag].(map[string]any)
		c, ok := tm["const"].(string)
		if !ok {
			t.Errorf("%s: variant has no string const for tag %q", vat, tag)
			continue
		}
		if !slices.Contains(vtcodeStrings(m["required"]), tag) {
			t.Errorf("%s: variant must require its tag %q", vat, tag)
		}
		if seen[c] {
			t.Errorf("%s: tag value %q used twice", vat, c)
		}
		seen[c] = true
	}
}

// TestVTCodeTypeNamesUnique checks that no two types of the dialect would get
// the same Go name: root titles, $defs keys and titled inline variants (a
// titled variant that only wraps a reference names the referenced type).
func TestVTCodeTypeNamesUnique(t *testing.T) {
	seen := map[string]string{}
	add := func(name, where string) {
		if prev, ok := seen[name]; ok {
			t.Errorf("Go type name %s is defined twice: %s and %s", name, prev, where)
		}
		seen[name] = where
	}
	for _, p := range vtcodePaths(t) {
		doc := vtcodeDoc(t, p)
		if title, ok := doc["title"].(string); ok {
			name := title
			if g, ok := doc["x-go-name"].(string); ok {
				name = g
			}
			add(name, p)
		}
		acpWalkSchema(doc, "", acpRoleRoot, func(ptr string, m map[string]any, role acpSchemaRole) {
			switch role {
			case acpRoleDef:
				if strings.Count(ptr, "/") == 2 {
					add(strings.TrimPrefix(ptr, "/$defs/"), p+"#"+ptr)
				}
			case acpRoleVariant:
				title, ok := m["title"].(string)
				if !ok {
					return
				}
				if all, _ := m["allOf"].([]any); len(all) == 1 && m["properties"] == nil {
					return
				}
				add(title, p+"#"+ptr)
			}
		})
	}
	for _, want := range []string{"SessionUpdateNotification", "ToolExecutionResult", "RequestPermissionResult", "PromptContent", "Session"} {
		if _, ok := seen[want]; !ok {
			t.Errorf("type %s is missing from the dialect's schemas", want)
		}
	}
}

// TestVTCodeSchemaExamples validates every `examples` value against the schema
// node that holds it.
func TestVTCodeSchemaExamples(t *testing.T) {
	set := vtcodeNewSchemas(t)
	count := 0
	for _, p := range vtcodePaths(t) {
		acpWalkSchema(vtcodeDoc(t, p), "", acpRoleRoot, func(ptr string, m map[string]any, _ acpSchemaRole) {
			examples, ok := m["examples"].([]any)
			if !ok {
				return
			}
			url := schema.IDPrefix + p + "#" + ptr
			sch, err := set.get(url)
			if err != nil {
				t.Errorf("%v", err)
				return
			}
			for i, ex := range examples {
				count++
				b, err := json.Marshal(ex)
				if err != nil {
					t.Fatalf("re-encoding %s example %d: %v", url, i, err)
				}
				inst, err := vtcodeInstance(b)
				if err != nil {
					t.Fatalf("re-decoding %s example %d: %v", url, i, err)
				}
				if err := sch.Validate(inst); err != nil {
					t.Errorf("%s example %d does not validate: %v", url, i, err)
				}
			}
		})
	}
	if count < 30 {
		t.Errorf("only %d examples found; every message file should carry some", count)
	}
}

// TestVTCodeDispatchTable checks the table against the schema files: names,
// kinds and handlers are known values, every message file is listed exactly
// once, file names follow the method names, and the keys that identify a
// record are required by every shape of that record's schema (so a line that
// has them cannot be another record or a JSON-RPC message).
func TestVTCodeDispatchTable(t *testing.T) {
	d := vtcodeLoadDispatch(t, vtcodeDir)
	if d.Protocol != "acp-vtcode" || d.Version != "vtcode" {
		t.Errorf("dispatch.json: protocol %q version %q, want acp-vtcode and vtcode", d.Protocol, d.Version)
	}
	if d.Envelope != "jsonrpc.json" {
		t.Errorf("dispatch.json: envelope %q, want jsonrpc.json", d.Envelope)
	}
	files := map[string]bool{}
	for _, p := range vtcodePaths(t) {
		files[path.Base(p)] = true
	}
	listed := map[string]int{d.Envelope: 1, "common.json": 1}
	methods := map[string]bool{}
	for _, m := range d.Methods {
		if methods[m.Method] {
			t.Errorf("method %s listed twice", m.Method)
		}
		methods[m.Method] = true
		stem := strings.ReplaceAll(m.Method, "/", ".")
		if m.Params != stem+".params.json" {
			t.Errorf("%s: params file %q, want %s.params.json", m.Method, m.Params, stem)
		}
		listed[m.Params]++
		switch m.Kind {
		case "request":
			if m.Result != stem+".result.json" {
				t.Errorf("%s: result file %q, want %s.result.json", m.Method, m.Result, stem)
			}
			listed[m.Result]++
		case "notification":
			if m.Result != "" {
				t.Errorf("%s: a notification has no result, got %q", m.Method, m.Result)
			}
		default:
			t.Errorf("%s: kind %q", m.Method, m.Kind)
		}
		if m.Handler != "agent" && m.Handler != "client" {
			t.Errorf("%s: handler %q", m.Method, m.Handler)
		}
	}
	for _, want := range []string{"session/new", "session/load", "session/prompt", "session/request_permission", "session/cancel"} {
		if !methods[want] {
			t.Errorf("method %s is missing from dispatch.json", want)
		}
	}
	records := map[string]bool{}
	for _, r := range d.Records {
		records[r.Record] = true
		listed[r.Schema]++
		if r.Handler != "agent" && r.Handler != "client" {
			t.Errorf("record %s: handler %q", r.Record, r.Handler)
		}
		if r.Transport != "sse" && r.Transport != "http" {
			t.Errorf("record %s: transport %q", r.Record, r.Transport)
		}
		if len(r.Keys) == 0 || slices.Contains(r.Keys, "jsonrpc") {
			t.Errorf("record %s: keys %v must be non-empty and exclude jsonrpc", r.Record, r.Keys)
		}
		if !files[r.Schema] {
			t.Errorf("record %s: schema %s does not exist", r.Record, r.Schema)
			continue
		}
		doc := vtcodeDoc(t, path.Join(vtcodeDir, r.Schema))
		for _, k := range r.Keys {
			if !vtcodeAlwaysRequired(doc, k) {
				t.Errorf("record %s: key %q is not required by every shape of %s", r.Record, k, r.Schema)
			}
		}
	}
	if !records["session/update"] {
		t.Errorf("record session/update is missing from dispatch.json")
	}
	for f := range files {
		if listed[f] != 1 {
			t.Errorf("%s is referenced %d times by dispatch.json, want once", f, listed[f])
		}
	}
	for f := range listed {
		if !files[f] {
			t.Errorf("dispatch.json names %s, which does not exist", f)
		}
	}
}

// vtcodeAlwaysRequired reports whether the object schema doc requires key at
// its root or in every variant of its root oneOf.
func vtcodeAlwaysRequired(doc map[string]any, key string) bool {
	if slices.Contains(vtcodeStrings(doc["required"]), key) {
		return true
	}
	variants, _ := doc["oneOf"].([]any)
	for _, v := range variants {
		m, _ := v.(map[string]any)
		if !slices.Contains(vtcodeStrings(m["required"]), key) {
			return false
		}
	}
	return len(variants) > 0
}

// ---------------------------------------------------------------- traces

// vtcodeLine is one line of a trace with its direction.
type vtcodeLine struct {
	n   int
	dir string // c2a or a2c
	raw []byte
	obj map[string]any // nil when the line is not a JSON object
	val any            // the line decoded for the validator
}

// vtcodeTrace is a trace file with its sidecars.
type vtcodeTrace struct {
	name   string
	lines  []vtcodeLine
	expect map[int]string // line → pointer of its schema finding
}

func vtcodeTraceFiles(t testing.TB, folder string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(vtcodeFixtures, folder, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no traces in %s/%s", vtcodeFixtures, folder)
	}
	return paths
}

func vtcodeReadLines(t testing.TB, p string) []string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 || b[len(b)-1] != '\n' {
		t.Errorf("%s: empty, or no final newline", p)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return out
}

func vtcodeLoadTrace(t testing.TB, p string) *vtcodeTrace {
	t.Helper()
	tr := &vtcodeTrace{name: filepath.Base(p), expect: map[int]string{}}
	stem := strings.TrimSuffix(p, ".jsonl")
	lines := vtcodeReadLines(t, p)
	dirs := vtcodeReadLines(t, stem+".dir")
	if len(dirs) != len(lines) {
		t.Fatalf("%s: %d lines but %d directions in the .dir sidecar", p, len(lines), len(dirs))
	}
	for i, text := range lines {
		l := vtcodeLine{n: i + 1, dir: dirs[i], raw: []byte(text)}
		if l.dir != "c2a" && l.dir != "a2c" {
			t.Errorf("%s.dir:%d: direction %q, want c2a or a2c", stem, l.n, l.dir)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, l.raw); err != nil || compact.String() != text {
			t.Errorf("%s:%d: not compact JSON (err %v)", p, l.n, err)
		}
		if err := json.Unmarshal(l.raw, &l.obj); err != nil {
			t.Errorf("%s:%d: not a JSON object: %v", p, l.n, err)
		}
		v, err := vtcodeInstance(l.raw)
		if err != nil {
			t.Fatalf("%s:%d: %v", p, l.n, err)
		}
		l.val = v
		tr.lines = append(tr.lines, l)
	}
	if b, err := os.ReadFile(stem + ".expect"); err == nil {
		for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.Fields(line)
			if len(f) != 3 {
				t.Fatalf("%s.expect:%d: want LINE RULE POINTER, got %q", stem, i+1, line)
			}
			n, err := strconv.Atoi(f[0])
			if err != nil || n < 1 || n > len(lines) {
				t.Fatalf("%s.expect:%d: bad line number %q", stem, i+1, f[0])
			}
			if f[1] != "schema" {
				t.Errorf("%s.expect:%d: rule %q; these traces only break schemas", stem, i+1, f[1])
			}
			if _, dup := tr.expect[n]; dup {
				t.Errorf("%s.expect:%d: line %d listed twice", stem, i+1, n)
			}
			tr.expect[n] = f[2]
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return tr
}

// vtcodeCheck is one validation a line needs: a value at a pointer of the
// line and the schema it must satisfy.
type vtcodeCheck struct {
	url    string
	prefix string // pointer of value within the line
	value  any
}

// vtcodeClassified says what a line is, as the dispatch table sees it.
type vtcodeClassified struct {
	kind   string // request, notification, response, record
	name   string // method, or record name
	checks []vtcodeCheck
}

// vtcodeDispatcher classifies the lines of one trace in order, pairing each
// response with the request sent the other way.
type vtcodeDispatcher struct {
	d       *vtcodeDispatch
	dir     string // schema folder the table belongs to
	pending map[string]string
}

func vtcodeNewDispatcher(d *vtcodeDispatch, dir string) *vtcodeDispatcher {
	return &vtcodeDispatcher{d: d, dir: dir, pending: map[string]string{}}
}

// vtcodeIDKey names a request id of one direction; ok is false for an id that
// is not a string or an integer.
func vtcodeIDKey(dir string, id any) (string, bool) {
	switch v := id.(type) {
	case string:
		return dir + " s:" + v, true
	case float64:
		if v == float64(int64(v)) {
			return dir + " n:" + strconv.FormatInt(int64(v), 10), true
		}
	}
	return "", false
}

func vtcodeOpposite(dir string) string {
	if dir == "c2a" {
		return "a2c"
	}
	return "c2a"
}

func vtcodeMember(val any, key string) any {
	m, _ := val.(map[string]any)
	return m[key]
}

func (v *vtcodeDispatcher) classify(l vtcodeLine) (vtcodeClassified, error) {
	obj := l.obj
	_, hasMethod := obj["method"]
	_, hasID := obj["id"]
	_, hasRPC := obj["jsonrpc"]
	env := vtcodeURL(v.dir, v.d.Envelope)
	switch {
	case hasMethod:
		name, _ := obj["method"].(string)
		kind, def := "notification", "#/$defs/Notification"
		if hasID {
			kind, def = "request", "#/$defs/Request"
		}
		c := vtcodeClassified{kind: kind, name: name, checks: []vtcodeCheck{{url: env + def, value: l.val}}}
		m, ok := v.d.method(name)
		if !ok {
			return c, fmt.Errorf("method %q is not in %s/dispatch.json", name, v.dir)
		}
		if m.Kind != kind {
			return c, fmt.Errorf("%s is a %s in the table but the line is a %s", name, m.Kind, kind)
		}
		c.checks = append(c.checks, vtcodeCheck{url: vtcodeURL(v.dir, m.Params), prefix: "/params", value: vtcodeMember(l.val, "params")})
		if hasID {
			if k, ok := vtcodeIDKey(l.dir, obj["id"]); ok {
				v.pending[k] = name
			}
		}
		return c, nil
	case hasID || hasRPC:
		c := vtcodeClassified{kind: "response", checks: []vtcodeCheck{{url: env + "#/$defs/Response", value: l.val}}}
		k, ok := vtcodeIDKey(vtcodeOpposite(l.dir), obj["id"])
		name, found := v.pending[k]
		if !ok || !found {
			return c, fmt.Errorf("response id %v answers no request sent the other way", obj["id"])
		}
		delete(v.pending, k)
		c.name = name
		if _, isResult := obj["result"]; isResult {
			m, _ := v.d.method(name)
			c.checks = append(c.checks, vtcodeCheck{url: vtcodeURL(v.dir, m.Result), prefix: "/result", value: vtcodeMember(l.val, "result")})
		}
		return c, nil
	default:
		r, ok := v.d.record(obj)
		if !ok {
			return vtcodeClassified{kind: "record"}, fmt.Errorf("no record of %s/dispatch.json matches the members %v", v.dir, acpSortedKeys(obj))
		}
		return vtcodeClassified{kind: "record", name: r.Record, checks: []vtcodeCheck{{url: vtcodeURL(v.dir, r.Schema), value: l.val}}}, nil
	}
}

// vtcodeRun validates every check of a line and returns the pointers (within
// the line) of the innermost errors that explain the failure, or nil when the
// line is valid.
func vtcodeRun(t testing.TB, set *vtcodeSchemas, c vtcodeClassified) ([]string, error) {
	t.Helper()
	var out []string
	var first error
	for _, ch := range c.checks {
		sch, err := set.get(ch.url)
		if err != nil {
			t.Fatalf("%v", err)
		}
		err = sch.Validate(ch.value)
		if err == nil {
			continue
		}
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("validating against %s: %v", ch.url, err)
		}
		if first == nil {
			first = err
		}
		for _, leaf := range vtcodeLeaves(ve) {
			out = append(out, ch.prefix+vtcodePointer(leaf.InstanceLocation))
		}
	}
	return out, first
}

func vtcodePointer(tokens []string) string {
	var b strings.Builder
	for _, tok := range tokens {
		b.WriteString("/")
		b.WriteString(wire.EscapePointer(tok))
	}
	return b.String()
}

// vtcodeLeaves returns the innermost errors that explain e. For a tagged
// union, the variants whose tag does not match the value's tag are left out;
// when no variant's tag matches, the tag errors alone explain the failure.
func vtcodeLeaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var causes []*jsonschema.ValidationError
	switch e.ErrorKind.(type) {
	case *kind.OneOf, *kind.AnyOf:
		var tags []*jsonschema.ValidationError
		for _, c := range e.Causes {
			if tc := vtcodeTagErrors(c, e.InstanceLocation); len(tc) > 0 {
				tags = append(tags, tc...)
			} else {
				causes = append(causes, c)
			}
		}
		if len(causes) == 0 {
			return tags
		}
	default:
		causes = e.Causes
	}
	var out []*jsonschema.ValidationError
	for _, c := range causes {
		out = append(out, vtcodeLeaves(c)...)
	}
	return out
}

// vtcodeTagErrors returns the const errors of a union variant on a member of
// the object at loc, raised by the variant's own properties/<member>/const.
func vtcodeTagErrors(e *jsonschema.ValidationError, loc []string) []*jsonschema.ValidationError {
	var out []*jsonschema.ValidationError
	if _, ok := e.ErrorKind.(*kind.Const); ok && len(e.InstanceLocation) == len(loc)+1 &&
		slices.Equal(e.InstanceLocation[:len(loc)], loc) &&
		strings.HasSuffix(e.SchemaURL, "/properties/"+wire.EscapePointer(e.InstanceLocation[len(loc)])) {
		out = append(out, e)
	}
	for _, c := range e.Causes {
		if len(c.InstanceLocation) <= len(loc)+1 {
			out = append(out, vtcodeTagErrors(c, loc)...)
		}
	}
	return out
}

func vtcodeUnder(p, root string) bool {
	return p == root || strings.HasPrefix(p, root+"/")
}

func vtcodeShort(err error) string {
	if err == nil {
		return "valid"
	}
	s := err.Error()
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}

// TestVTCodeTraceShape checks the conventions of every trace (documented in
// fixtures/acp-vtcode/README.md): each request and record travels towards the
// side that handles it, each response answers one request sent the other way,
// the client numbers its requests 1, 2, 3… and the agent uses string ids.
func TestVTCodeTraceShape(t *testing.T) {
	d := vtcodeLoadDispatch(t, vtcodeDir)
	handlerDir := map[string]string{"agent": "c2a", "client": "a2c"}
	for _, folder := range []string{"valid", "invalid"} {
		for _, p := range vtcodeTraceFiles(t, folder) {
			tr := vtcodeLoadTrace(t, p)
			disp := vtcodeNewDispatcher(d, vtcodeDir)
			nextClientID := 1
			for _, l := range tr.lines {
				at := fmt.Sprintf("%s/%s:%d", folder, tr.name, l.n)
				c, err := disp.classify(l)
				if err != nil {
					t.Errorf("%s: %v", at, err)
					continue
				}
				switch c.kind {
				case "request", "notification":
					m, _ := d.method(c.name)
					if l.dir != handlerDir[m.Handler] {
						t.Errorf("%s: %s is handled by the %s but travels %s", at, c.name, m.Handler, l.dir)
					}
					if c.kind != "request" {
						continue
					}
					id := l.obj["id"]
					if l.dir == "c2a" {
						if id != float64(nextClientID) {
							t.Errorf("%s: client request id %v, want %d", at, id, nextClientID)
						}
						nextClientID++
					} else if _, ok := id.(string); !ok {
						t.Errorf("%s: agent request id %v, want a string", at, id)
					}
				case "record":
					for _, r := range d.Records {
						if r.Record == c.name && l.dir != handlerDir[r.Handler] {
							t.Errorf("%s: record %s is handled by the %s but travels %s", at, c.name, r.Handler, l.dir)
						}
					}
				}
			}
			if len(disp.pending) > 0 && folder == "valid" {
				t.Errorf("%s/%s: requests left unanswered: %v", folder, tr.name, disp.pending)
			}
		}
	}
}

// TestVTCodeValidTraces checks that every line of a valid trace passes its
// envelope and the schema the dispatch table names for it.
func TestVTCodeValidTraces(t *testing.T) {
	d := vtcodeLoadDispatch(t, vtcodeDir)
	set := vtcodeNewSchemas(t)
	total := 0
	for _, p := range vtcodeTraceFiles(t, "valid") {
		tr := vtcodeLoadTrace(t, p)
		if len(tr.expect) > 0 {
			t.Errorf("valid/%s has an .expect file", tr.name)
		}
		disp := vtcodeNewDispatcher(d, vtcodeDir)
		for _, l := range tr.lines {
			total++
			c, err := disp.classify(l)
			if err != nil {
				t.Errorf("valid/%s:%d: %v", tr.name, l.n, err)
				continue
			}
			if _, err := vtcodeRun(t, set, c); err != nil {
				t.Errorf("valid/%s:%d (%s %s): %s", tr.name, l.n, c.kind, c.name, vtcodeShort(err))
			}
		}
	}
	if total < 40 {
		t.Errorf("only %d valid lines; the traces are incomplete", total)
	}
}

// TestVTCodeInvalidTraces checks that each line listed in an .expect file
// fails, with every explaining error at or under the listed pointer, and that
// every other line passes.
func TestVTCodeInvalidTraces(t *testing.T) {
	d := vtcodeLoadDispatch(t, vtcodeDir)
	set := vtcodeNewSchemas(t)
	findings := 0
	for _, p := range vtcodeTraceFiles(t, "invalid") {
		tr := vtcodeLoadTrace(t, p)
		if len(tr.expect) == 0 {
			t.Errorf("invalid/%s has no .expect entries", tr.name)
		}
		disp := vtcodeNewDispatcher(d, vtcodeDir)
		for _, l := range tr.lines {
			at := fmt.Sprintf("invalid/%s:%d", tr.name, l.n)
			c, err := disp.classify(l)
			if err != nil {
				t.Errorf("%s: %v (an invalid line must still be dispatchable)", at, err)
				continue
			}
			ptrs, verr := vtcodeRun(t, set, c)
			want, listed := tr.expect[l.n]
			switch {
			case !listed && verr != nil:
				t.Errorf("%s: unlisted line fails: %s", at, vtcodeShort(verr))
			case listed && verr == nil:
				t.Errorf("%s: expected a schema finding at %s, but the line is valid", at, want)
			case listed:
				findings++
				if len(ptrs) == 0 {
					t.Errorf("%s: no innermost error found in %s", at, vtcodeShort(verr))
				}
				for _, got := range ptrs {
					if !vtcodeUnder(got, want) {
						t.Errorf("%s: error at %s is not at or under the expected %s: %s", at, got, want, vtcodeShort(verr))
					}
				}
			}
		}
	}
	if findings < 20 {
		t.Errorf("only %d expected findings checked", findings)
	}
}

// TestVTCodeValidTracesCover checks that the valid traces exercise the whole
// dialect: every method and record of the table, every update kind, every
// prompt content kind, both permission outcomes, a failed and a successful
// tool execution, and a JSON-RPC error response.
func TestVTCodeValidTracesCover(t *testing.T) {
	d := vtcodeLoadDispatch(t, vtcodeDir)
	seen := map[string]bool{}
	for _, p := range vtcodeTraceFiles(t, "valid") {
		tr := vtcodeLoadTrace(t, p)
		disp := vtcodeNewDispatcher(d, vtcodeDir)
		for _, l := range tr.lines {
			c, err := disp.classify(l)
			if err != nil {
				continue // reported by TestVTCodeValidTraces
			}
			seen[c.kind+" "+c.name] = true
			switch {
			case c.kind == "record" && c.name == "session/update":
				seen["update_type "+fmt.Sprint(l.obj["update_type"])] = true
			case c.kind == "record":
				seen[fmt.Sprintf("success %v", l.obj["success"])] = true
			case c.kind == "request" && c.name == "session/prompt":
				params, _ := l.obj["params"].(map[string]any)
				for _, item := range params["content"].([]any) {
					seen["content "+fmt.Sprint(item.(map[string]any)["type"])] = true
				}
			case c.kind == "response" && l.obj["error"] != nil:
				seen["error response"] = true
			case c.kind == "response" && c.name == "session/request_permission":
				seen["outcome "+fmt.Sprint(vtcodeMember(l.obj["result"], "outcome"))] = true
			}
		}
	}
	var want []string
	for _, m := range d.Methods {
		want = append(want, m.Kind+" "+m.Method)
		if m.Kind == "request" {
			want = append(want, "response "+m.Method)
		}
	}
	for _, r := range d.Records {
		want = append(want, "record "+r.Record)
	}
	for _, u := range []string{"message_delta", "tool_call_start", "tool_call_end", "turn_complete", "error", "server_request"} {
		want = append(want, "update_type "+u)
	}
	want = append(want, "content text", "content image", "content context", "outcome selected", "outcome cancelled",
		"success true", "success false", "error response")
	for _, w := range want {
		if !seen[w] {
			t.Errorf("the valid traces never use %s", w)
		}
	}
}

// vtcodeACPv1Accepts lists what the valid traces send that ACP v1 accepts too,
// with the reason; TestVTCodeTracesAreNotACPv1 checks each entry still holds.
var vtcodeACPv1Accepts = map[string]string{
	"response session/load": "ACP v1's session/load result requires no member, so any object passes",
	"error response":        "both use the plain JSON-RPC 2.0 error object",
}

// TestVTCodeTracesAreNotACPv1 checks the point of a named dialect: its lines
// are not ACP v1. Each valid line is checked the way an ACP v1 validator
// would (JSON-RPC envelope, then the v1 schema of its method and direction);
// every line must fail, except the kinds listed in vtcodeACPv1Accepts, which
// must pass.
func TestVTCodeTracesAreNotACPv1(t *testing.T) {
	const v1 = "acp/v1"
	d := vtcodeLoadDispatch(t, vtcodeDir)
	acp := vtcodeLoadDispatch(t, v1)
	set := vtcodeNewSchemas(t)
	failed := 0
	for _, p := range vtcodeTraceFiles(t, "valid") {
		tr := vtcodeLoadTrace(t, p)
		ours := vtcodeNewDispatcher(d, vtcodeDir)
		theirs := vtcodeNewDispatcher(acp, v1)
		for _, l := range tr.lines {
			at := fmt.Sprintf("valid/%s:%d", tr.name, l.n)
			c, err := ours.classify(l)
			if err != nil {
				continue // reported by TestVTCodeValidTraces
			}
			label := c.kind + " " + c.name
			if c.kind == "response" && l.obj["error"] != nil {
				label = "error response"
			}
			var verr error
			if c.kind == "record" {
				// ACP v1 has no bare records: every message is JSON-RPC.
				_, verr = vtcodeRun(t, set, vtcodeClassified{checks: []vtcodeCheck{{url: vtcodeURL(v1, acp.Envelope), value: l.val}}})
			} else {
				ac, cerr := theirs.classify(l)
				if cerr != nil {
					t.Fatalf("%s: ACP v1 cannot dispatch this line: %v", at, cerr)
				}
				_, verr = vtcodeRun(t, set, ac)
			}
			reason, accepted := vtcodeACPv1Accepts[label]
			switch {
			case accepted && verr != nil:
				t.Errorf("%s: %s is listed as valid ACP v1 (%s) but fails: %s", at, label, reason, vtcodeShort(verr))
			case !accepted && verr == nil:
				t.Errorf("%s: %s is valid ACP v1 too; the dialect's schemas and traces must tell them apart", at, label)
			case !accepted:
				failed++
			}
		}
	}
	if failed < 30 {
		t.Errorf("only %d lines failed ACP v1", failed)
	}
}
