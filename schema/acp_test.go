package schema_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/big"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/internal/sharedref"
	"github.com/agentproto/agentproto/schema"
	"github.com/agentproto/agentproto/schema/compile"
)

// acpDir is the folder of the ACP v1 schemas inside schema.Files.
const acpDir = "acp/v1"

// acpURL returns the $id of a file in acpDir.
func acpURL(file string) string { return schema.IDPrefix + acpDir + "/" + file }

// acpMethods is every method of ACP v1 stable. The dispatch table must list
// exactly these (and, with ../shared, exactly the methods of meta.json).
var acpMethods = []string{
	"initialize", "authenticate", "logout",
	"session/new", "session/load", "session/list", "session/delete", "session/resume", "session/close",
	"session/set_mode", "session/set_config_option", "session/prompt", "session/cancel", "session/update",
	"session/request_permission", "fs/read_text_file", "fs/write_text_file",
	"terminal/create", "terminal/output", "terminal/release", "terminal/wait_for_exit", "terminal/kill",
	"elicitation/create", "elicitation/complete", "$/cancel_request",
}

// acpDecodeJSON decodes JSON the way the validator does (numbers kept exact).
func acpDecodeJSON(data []byte) (any, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decoding JSON: %w", err)
	}
	return v, nil
}

// acpDoc returns the decoded content of an embedded file below acpDir.
func acpDoc(t testing.TB, file string) any {
	t.Helper()
	data, err := fs.ReadFile(schema.Files, acpDir+"/"+file)
	if err != nil {
		t.Fatalf("reading %s: %v", file, err)
	}
	v, err := acpDecodeJSON(data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return v
}

// acpSchemaFiles lists the schema files below acpDir (base names).
func acpSchemaFiles(t testing.TB) []string {
	t.Helper()
	paths, err := schema.Paths(acpDir)
	if err != nil {
		t.Fatalf("listing schemas: %v", err)
	}
	var out []string
	for _, p := range paths {
		out = append(out, path.Base(p))
	}
	if len(out) == 0 {
		t.Fatal("no schema files below " + acpDir)
	}
	return out
}

// acpSchemaSet compiles schemas by URL once and caches them; safe for parallel use.
type acpSchemaSet struct {
	name string
	c    *jsonschema.Compiler
	mu   sync.Mutex
	m    map[string]*jsonschema.Schema
}

func acpNewSchemaSet(name string, c *jsonschema.Compiler) *acpSchemaSet {
	return &acpSchemaSet{name: name, c: c, m: map[string]*jsonschema.Schema{}}
}

func (s *acpSchemaSet) get(url string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.m[url]; ok {
		return sch, nil
	}
	sch, err := s.c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("%s: compiling %s: %w", s.name, url, err)
	}
	s.m[url] = sch
	return sch, nil
}

// validate returns nil when v is valid under the schema at url.
func (s *acpSchemaSet) validate(t testing.TB, url string, v any) error {
	t.Helper()
	sch, err := s.get(url)
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(v)
}

var (
	acpOursOnce sync.Once
	acpOursSet  *acpSchemaSet
	acpOursErr  error
)

// acpOurs returns the compiled embedded schemas (schema.NewCompiler).
func acpOurs(t testing.TB) *acpSchemaSet {
	t.Helper()
	acpOursOnce.Do(func() {
		c, err := compile.New()
		if err != nil {
			acpOursErr = err
			return
		}
		acpOursSet = acpNewSchemaSet("ours", c)
	})
	if acpOursErr != nil {
		t.Fatal(acpOursErr)
	}
	if acpOursSet == nil {
		t.Fatal("the embedded schemas could not be compiled (see the first failing test)")
	}
	return acpOursSet
}

var (
	acpPointerEscape   = strings.NewReplacer("~", "~0", "/", "~1")
	acpPointerUnescape = strings.NewReplacer("~1", "/", "~0", "~")
)

// acpJSONPointer joins escaped reference tokens into a JSON pointer.
func acpJSONPointer(tokens ...string) string {
	var b strings.Builder
	for _, tok := range tokens {
		b.WriteByte('/')
		b.WriteString(acpPointerEscape.Replace(tok))
	}
	return b.String()
}

// acpFirstLine shortens a validation error for a test message.
func acpFirstLine(err error) string {
	if err == nil {
		return "valid"
	}
	s := err.Error()
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}

// ---------------------------------------------------------------- schema walking

// acpSchemaKeywords are the draft 2020-12 keywords; with x-go-name they are the
// only keys a schema object may have.
var acpSchemaKeywords = map[string]bool{
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

// acpSchemaRole says where a subschema sits in its parent.
type acpSchemaRole int

const (
	acpRoleRoot acpSchemaRole = iota
	acpRoleDef
	acpRoleProperty
	acpRoleVariant // element of oneOf or anyOf
	acpRoleOther
)

// acpWalkSchema calls visit for every schema object below node (node included),
// with its JSON pointer inside the file and its role.
func acpWalkSchema(node any, ptr string, role acpSchemaRole, visit func(ptr string, m map[string]any, role acpSchemaRole)) {
	m, ok := node.(map[string]any)
	if !ok {
		return
	}
	visit(ptr, m, role)
	for _, k := range acpSortedKeys(m) {
		v := m[k]
		switch k {
		case "$defs", "properties", "patternProperties", "dependentSchemas":
			sub, _ := v.(map[string]any)
			r := acpRoleOther
			switch k {
			case "$defs":
				r = acpRoleDef
			case "properties":
				r = acpRoleProperty
			}
			for _, name := range acpSortedKeys(sub) {
				acpWalkSchema(sub[name], ptr+acpJSONPointer(k, name), r, visit)
			}
		case "additionalProperties", "propertyNames", "items", "contains", "not", "if", "then", "else",
			"unevaluatedItems", "unevaluatedProperties", "contentSchema":
			acpWalkSchema(v, ptr+acpJSONPointer(k), acpRoleOther, visit)
		case "allOf", "anyOf", "oneOf", "prefixItems":
			arr, _ := v.([]any)
			r := acpRoleOther
			if k == "anyOf" || k == "oneOf" {
				r = acpRoleVariant
			}
			for i, e := range arr {
				acpWalkSchema(e, ptr+acpJSONPointer(k, fmt.Sprint(i)), r, visit)
			}
		}
	}
}

func acpSortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// acpTypeList returns the "type" keyword as a list.
func acpTypeList(m map[string]any) []string {
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

var acpPascalCase = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)

// ---------------------------------------------------------------- tests

// Every schema file compiles with schema.NewCompiler, and so does every
// shared definition, which proves every $ref resolves offline.
func TestACPSchemasCompile(t *testing.T) {
	set := acpOurs(t)
	n := 0
	for _, file := range acpSchemaFiles(t) {
		if _, err := set.get(acpURL(file)); err != nil {
			t.Error(err)
			continue
		}
		n++
		doc, _ := acpDoc(t, file).(map[string]any)
		defs, _ := doc["$defs"].(map[string]any)
		for _, name := range acpSortedKeys(defs) {
			if _, err := set.get(acpURL(file) + "#" + acpJSONPointer("$defs", name)); err != nil {
				t.Error(err)
			}
			n++
		}
	}
	t.Logf("compiled %d schemas and definitions", n)
}

// The files follow schema/README.md: identifiers, names, descriptions,
// keywords, integer ranges and the shape of tagged unions.
func TestACPSchemaConventions(t *testing.T) {
	titles := map[string]string{}
	for _, file := range acpSchemaFiles(t) {
		doc, ok := acpDoc(t, file).(map[string]any)
		if !ok {
			t.Errorf("%s: root is not an object", file)
			continue
		}
		if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema is %v, want draft 2020-12", file, doc["$schema"])
		}
		if doc["$id"] != acpURL(file) {
			t.Errorf("%s: $id is %v, want %s", file, doc["$id"], acpURL(file))
		}
		title, _ := doc["title"].(string)
		if !acpPascalCase.MatchString(title) {
			t.Errorf("%s: root title %q is not PascalCase", file, title)
		}
		if prev, dup := titles[title]; dup {
			t.Errorf("%s: root title %q is also the title of %s", file, title, prev)
		}
		titles[title] = file
		acpWalkSchema(doc, "", acpRoleRoot, func(ptr string, m map[string]any, role acpSchemaRole) {
			acpCheckConventions(t, file, ptr, m, role)
		})
	}
	// $defs keys and root titles share one Go namespace.
	for _, file := range acpSchemaFiles(t) {
		doc, _ := acpDoc(t, file).(map[string]any)
		defs, _ := doc["$defs"].(map[string]any)
		for name := range defs {
			if !acpPascalCase.MatchString(name) {
				t.Errorf("%s: $defs key %q is not PascalCase", file, name)
			}
			if other, dup := titles[name]; dup {
				t.Errorf("%s: $defs key %q is also the root title of %s", file, name, other)
			}
		}
	}
}

func acpCheckConventions(t *testing.T, file, ptr string, m map[string]any, role acpSchemaRole) {
	t.Helper()
	at := file + "#" + ptr
	for k := range m {
		if !acpSchemaKeywords[k] {
			t.Errorf("%s: keyword %q is not draft 2020-12 (only x-go-name is allowed besides)", at, k)
		}
	}
	if ref, ok := m["$ref"].(string); ok && strings.Contains(ref, "://") {
		t.Errorf("%s: $ref %q must be relative", at, ref)
	}
	desc, _ := m["description"].(string)
	needsDesc := role == acpRoleRoot || role == acpRoleDef || role == acpRoleProperty
	if role == acpRoleVariant {
		// The null branch and the bare reference of a nullable pair need none.
		_, bareRef := m["$ref"]
		needsDesc = !(len(m) == 1 && (bareRef || m["type"] == "null"))
	}
	if needsDesc && strings.TrimSpace(desc) == "" {
		t.Errorf("%s: missing description", at)
	}
	types := acpTypeList(m)
	if slices.Contains(types, "integer") {
		if _, ok := m["minimum"]; !ok {
			t.Errorf("%s: integer without minimum", at)
		}
		if _, ok := m["maximum"]; !ok {
			t.Errorf("%s: integer without maximum", at)
		}
	}
	if _, ok := m["format"]; ok && (slices.Contains(types, "integer") || slices.Contains(types, "number")) {
		t.Errorf("%s: numbers carry their range in minimum/maximum, not in format", at)
	}
	if variants, ok := m["oneOf"].([]any); ok {
		acpCheckUnion(t, at, variants)
	}
}

// acpUnionShape describes a tagged union read from a oneOf.
type acpUnionShape struct {
	tag    string
	consts []string
}

// acpReadUnion returns the shape of a oneOf whose variants fix a tag with const,
// or ok=false when the oneOf is not a tagged union.
func acpReadUnion(variants []any) (u acpUnionShape, ok bool) {
	for _, v := range variants {
		m, _ := v.(map[string]any)
		props, _ := m["properties"].(map[string]any)
		for name, p := range props {
			pm, _ := p.(map[string]any)
			if c, isStr := pm["const"].(string); isStr {
				if u.tag != "" && u.tag != name {
					return u, false
				}
				u.tag = name
				u.consts = append(u.consts, c)
			}
		}
	}
	return u, u.tag != ""
}

func acpCheckUnion(t *testing.T, at string, variants []any) {
	t.Helper()
	u, ok := acpReadUnion(variants)
	if !ok {
		return
	}
	seen := map[string]bool{}
	for _, c := range u.consts {
		if seen[c] {
			t.Errorf("%s: tag %q used by two variants", at, c)
		}
		seen[c] = true
	}
	want := append([]string(nil), u.consts...)
	sort.Strings(want)
	var defaults, catchAlls int
	for i, v := range variants {
		m, _ := v.(map[string]any)
		vat := fmt.Sprintf("%s/oneOf/%d", at, i)
		title, _ := m["title"].(string)
		if !acpPascalCase.MatchString(title) {
			t.Errorf("%s: variant title %q is not a PascalCase Go name", vat, title)
		}
		required := acpStringList(m["required"])
		props, _ := m["properties"].(map[string]any)
		tagSchema, _ := props[u.tag].(map[string]any)
		if _, hasConst := tagSchema["const"]; hasConst {
			if !slices.Contains(required, u.tag) {
				t.Errorf("%s: variant with a %q const must require it", vat, u.tag)
			}
			continue
		}
		if slices.Contains(required, u.tag) {
			// The catch-all of an open union: any tag but the known ones.
			catchAlls++
			if !strings.HasPrefix(title, "Unknown") {
				t.Errorf("%s: catch-all variant must be titled Unknown…, got %q", vat, title)
			}
			if got := acpNotEnum(tagSchema); !slices.Equal(got, want) {
				t.Errorf("%s: catch-all must exclude exactly the known tags %v, excludes %v", vat, want, got)
			}
			continue
		}
		// The default variant, used when the tag is absent: its tag schema
		// excludes the known tags ({"not": {"enum": [...]}}) or, in a union
		// with a catch-all, any tag ({"not": {}}).
		defaults++
		not, _ := tagSchema["not"].(map[string]any)
		switch got := acpNotEnum(tagSchema); {
		case not != nil && len(not) == 0:
		case !slices.Equal(got, want):
			t.Errorf("%s: default variant must exclude exactly the known tags %v, excludes %v", vat, want, got)
		}
	}
	if defaults > 1 || catchAlls > 1 {
		t.Errorf("%s: at most one default and one catch-all variant, got %d and %d", at, defaults, catchAlls)
	}
}

func acpNotEnum(m map[string]any) []string {
	not, _ := m["not"].(map[string]any)
	if not == nil {
		return nil
	}
	out := acpStringList(not["enum"])
	sort.Strings(out)
	return out
}

func acpStringList(v any) []string {
	arr, _ := v.([]any)
	var out []string
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Every value under "examples" in our schemas is valid under the schema it
// illustrates.
func TestACPSchemaExamplesValid(t *testing.T) {
	set := acpOurs(t)
	n := 0
	for _, file := range acpSchemaFiles(t) {
		acpWalkSchema(acpDoc(t, file), "", acpRoleRoot, func(ptr string, m map[string]any, _ acpSchemaRole) {
			examples, _ := m["examples"].([]any)
			for i, ex := range examples {
				n++
				if err := set.validate(t, acpURL(file)+"#"+ptr, ex); err != nil {
					t.Errorf("%s#%s: example %d is invalid: %s", file, ptr, i, acpFirstLine(err))
				}
			}
		})
	}
	if n < 50 {
		t.Errorf("only %d examples in the ACP schemas; every method file should have one", n)
	}
	t.Logf("%d examples valid", n)
}

// ---------------------------------------------------------------- dispatch table

type acpDispatch struct {
	Protocol string         `json:"protocol"`
	Version  string         `json:"version"`
	Envelope string         `json:"envelope"`
	Methods  []acpDispEntry `json:"methods"`
}

type acpDispEntry struct {
	Method     string `json:"method"`
	Kind       string `json:"kind"`
	Handler    string `json:"handler"`
	Params     string `json:"params"`
	Result     string `json:"result,omitempty"`
	Capability string `json:"capability,omitempty"`
	// Effects are read by the validator through package registry, which
	// checks their vocabulary; here they only need to be present.
	Effects json.RawMessage `json:"effects,omitempty"`
}

func acpLoadDispatch(t testing.TB) acpDispatch {
	t.Helper()
	data, err := fs.ReadFile(schema.Files, acpDir+"/"+schema.DispatchTable)
	if err != nil {
		t.Fatalf("reading dispatch table: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d acpDispatch
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("dispatch table: %v", err)
	}
	return d
}

// acpStem is the file stem of a method: "/" becomes "." and "$/cancel_request"
// becomes "cancel_request".
func acpStem(method string) string {
	return strings.ReplaceAll(strings.TrimPrefix(method, "$/"), "/", ".")
}

// The dispatch table names only existing schema files, covers every v1
// method, and its capability pointers lead to capability fields.
func TestACPDispatchTable(t *testing.T) {
	d := acpLoadDispatch(t)
	if d.Protocol != "acp" || d.Version != "v1" {
		t.Errorf("protocol/version = %q/%q, want acp/v1", d.Protocol, d.Version)
	}
	files := map[string]bool{}
	for _, f := range acpSchemaFiles(t) {
		files[f] = true
	}
	if !files[d.Envelope] {
		t.Errorf("envelope schema %q does not exist", d.Envelope)
	}
	used := map[string]bool{"common.json": true, d.Envelope: true}
	var methods []string
	for _, e := range d.Methods {
		methods = append(methods, e.Method)
		if strings.HasPrefix(e.Method, "_") {
			t.Errorf("%s: extension methods are not listed", e.Method)
		}
		if e.Kind != "request" && e.Kind != "notification" {
			t.Errorf("%s: kind %q", e.Method, e.Kind)
		}
		if e.Handler != "agent" && e.Handler != "client" && e.Handler != "both" {
			t.Errorf("%s: handler %q", e.Method, e.Handler)
		}
		if want := acpStem(e.Method) + ".params.json"; e.Params != want {
			t.Errorf("%s: params file %q, want %q", e.Method, e.Params, want)
		}
		switch {
		case e.Kind == "request" && e.Result != acpStem(e.Method)+".result.json":
			t.Errorf("%s: result file %q, want %s.result.json", e.Method, e.Result, acpStem(e.Method))
		case e.Kind == "notification" && e.Result != "":
			t.Errorf("%s: a notification has no result, got %q", e.Method, e.Result)
		}
		for _, f := range []string{e.Params, e.Result} {
			if f == "" {
				continue
			}
			if !files[f] {
				t.Errorf("%s: schema file %q does not exist", e.Method, f)
			}
			if used[f] {
				t.Errorf("%s: schema file %q is used twice", e.Method, f)
			}
			used[f] = true
		}
		if e.Capability != "" {
			acpCheckCapability(t, e)
		}
	}
	for f := range files {
		if !used[f] {
			t.Errorf("schema file %s is not reachable from the dispatch table", f)
		}
	}
	got := slices.Sorted(slices.Values(methods))
	want := slices.Sorted(slices.Values(acpMethods))
	if !slices.Equal(got, want) {
		t.Errorf("dispatch methods = %v\nwant %v", got, want)
	}
}

// acpCheckCapability follows a capability pointer through the initialize
// schemas: the client's capabilities (initialize params) gate the methods the
// client handles, the agent's (initialize result) those the agent handles; the
// field must be a boolean or a marker object.
func acpCheckCapability(t *testing.T, e acpDispEntry) {
	t.Helper()
	file, first := "initialize.params.json", "/clientCapabilities/"
	if e.Handler == "agent" {
		file, first = "initialize.result.json", "/agentCapabilities/"
	}
	if !strings.HasPrefix(e.Capability, first) {
		t.Errorf("%s: capability %q must start with %s for a method the %s handles", e.Method, e.Capability,
			first, e.Handler)
		return
	}
	cur := acpSchemaRef{file: file, ptr: ""}
	for _, tok := range strings.Split(e.Capability[1:], "/") {
		next, ok := acpLookupProperty(t, cur, tok)
		if !ok {
			t.Errorf("%s: capability %q: no property %q in %s#%s", e.Method, e.Capability, tok, cur.file, cur.ptr)
			return
		}
		cur = next
	}
	leaf := acpDerefAll(t, cur)
	types := acpTypeList(leaf.node(t))
	if !slices.Contains(types, "boolean") && !slices.Contains(types, "object") {
		t.Errorf("%s: capability %q leads to %s#%s, neither a boolean nor an object", e.Method, e.Capability,
			leaf.file, leaf.ptr)
	}
}

// acpSchemaRef locates a subschema: a file below acpDir and a pointer in it.
type acpSchemaRef struct{ file, ptr string }

func (r acpSchemaRef) node(t testing.TB) map[string]any {
	t.Helper()
	v := acpDocCached(t, r.file)
	for _, tok := range acpSplitPointer(r.ptr) {
		switch c := v.(type) {
		case map[string]any:
			v = c[tok]
		case []any:
			var i int
			if _, err := fmt.Sscan(tok, &i); err != nil || i < 0 || i >= len(c) {
				t.Fatalf("bad pointer %s#%s", r.file, r.ptr)
			}
			v = c[i]
		default:
			t.Fatalf("bad pointer %s#%s", r.file, r.ptr)
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s#%s is not a schema object", r.file, r.ptr)
	}
	return m
}

func (r acpSchemaRef) child(tokens ...string) acpSchemaRef {
	return acpSchemaRef{file: r.file, ptr: r.ptr + acpJSONPointer(tokens...)}
}

func acpSplitPointer(p string) []string {
	if p == "" {
		return nil
	}
	toks := strings.Split(p[1:], "/")
	for i, tok := range toks {
		toks[i] = acpPointerUnescape.Replace(tok)
	}
	return toks
}

var (
	acpDocCacheMu sync.Mutex
	acpDocCache   = map[string]any{}
)

func acpDocCached(t testing.TB, file string) any {
	t.Helper()
	acpDocCacheMu.Lock()
	defer acpDocCacheMu.Unlock()
	if v, ok := acpDocCache[file]; ok {
		return v
	}
	v := acpDoc(t, file)
	acpDocCache[file] = v
	return v
}

// acpResolveRef follows the $ref of the schema at r, if any.
func acpResolveRef(t testing.TB, r acpSchemaRef) (acpSchemaRef, bool) {
	t.Helper()
	ref, ok := r.node(t)["$ref"].(string)
	if !ok {
		return r, false
	}
	file, frag, _ := strings.Cut(ref, "#")
	if file == "" {
		file = r.file
	}
	return acpSchemaRef{file: file, ptr: frag}, true
}

// acpDerefAll follows $ref chains and the non-null branch of nullable pairs.
func acpDerefAll(t testing.TB, r acpSchemaRef) acpSchemaRef {
	t.Helper()
	for {
		if next, ok := acpResolveRef(t, r); ok {
			r = next
			continue
		}
		if alt, ok := acpNullableBranch(r.node(t)); ok {
			r = r.child("anyOf", fmt.Sprint(alt))
			continue
		}
		return r
	}
}

// acpNullableBranch returns the index of the non-null branch of an anyOf that
// pairs one schema with {"type": "null"}.
func acpNullableBranch(m map[string]any) (int, bool) {
	alts, _ := m["anyOf"].([]any)
	if len(alts) != 2 {
		return 0, false
	}
	for i, a := range alts {
		if am, _ := a.(map[string]any); am["type"] == "null" && len(am) == 1 {
			return 1 - i, true
		}
	}
	return 0, false
}

// acpLookupProperty finds the schema of property name of the object schema at r
// (following references, nullable pairs and allOf).
func acpLookupProperty(t testing.TB, r acpSchemaRef, name string) (acpSchemaRef, bool) {
	t.Helper()
	r = acpDerefAll(t, r)
	m := r.node(t)
	if props, ok := m["properties"].(map[string]any); ok {
		if _, ok := props[name]; ok {
			return r.child("properties", name), true
		}
	}
	allOf, _ := m["allOf"].([]any)
	for i := range allOf {
		if p, ok := acpLookupProperty(t, r.child("allOf", fmt.Sprint(i)), name); ok {
			return p, true
		}
	}
	return acpSchemaRef{}, false
}

// The table agrees with the official method list (meta.json): the same
// methods, each handled by the side that meta.json assigns it to.
func TestACPDispatchMatchesMeta(t *testing.T) {
	dir := sharedref.Dir(t, "reference", "acp", "v1")
	var meta struct {
		AgentMethods    map[string]string `json:"agentMethods"`
		ClientMethods   map[string]string `json:"clientMethods"`
		ProtocolMethods map[string]string `json:"protocolMethods"`
	}
	acpReadSharedJSON(t, path.Join(dir, "meta.json"), &meta)
	want := map[string]string{}
	for _, m := range meta.AgentMethods {
		want[m] = "agent"
	}
	for _, m := range meta.ClientMethods {
		want[m] = "client"
	}
	for _, m := range meta.ProtocolMethods {
		want[m] = "both"
	}
	got := map[string]string{}
	for _, e := range acpLoadDispatch(t).Methods {
		got[e.Method] = e.Handler
	}
	for m, h := range want {
		if got[m] != h {
			t.Errorf("%s: handler %q, meta.json says %q", m, got[m], h)
		}
	}
	for m := range got {
		if _, ok := want[m]; !ok {
			t.Errorf("%s is in the dispatch table but not in meta.json", m)
		}
	}
}

// acpBigInt parses an exact JSON integer, or returns nil.
func acpBigInt(v any) *big.Int {
	n, ok := v.(json.Number)
	if !ok {
		return nil
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() {
		return nil
	}
	return r.Num()
}

// The hand-written instances in testdata are valid under our schemas (the
// differential test also checks them against the official schema).
func TestACPTestdataValid(t *testing.T) {
	set := acpOurs(t)
	types := acpOurTypes(t)
	ins := acpLoadTestdataInstances(t)
	for _, in := range ins {
		url, ok := types[in.typ]
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
