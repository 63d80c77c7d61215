package schema_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/internal/sharedref"
	"github.com/agentproto/agentproto/schema"
)

// This file checks ACP v1 unstable (schema/acp/v1-unstable) and holds the
// machinery that acp_v2_test.go shares: a suite is one ACP version folder,
// checked against one official schema. The v1 tests (acp_test.go and its
// companions) are bound to acp/v1; the helpers here take the folder as a
// parameter and reuse the v1 helpers that do not depend on it.

// acpUnstableSuite describes one ACP version folder and its oracle.
type acpUnstableSuite struct {
	name    string // for messages
	dir     string // folder below schema.Files, e.g. "acp/v1-unstable"
	base    string // folder whose unchanged types dir refers to ("" when none)
	version string // the dispatch table's "version"
	// methods are every method the dispatch table must list.
	methods []string
	// oracle is the official schema below ../shared/reference/acp, oracleURL
	// the made-up URL it is compiled under.
	oracle    []string
	oracleURL string
	// meta is the official method table; metaOnly lists the methods it names
	// that the official schema defines no types for, schemaOnly the methods
	// the schema defines that it omits. Both are documented in the README.
	meta       string
	metaOnly   []string
	schemaOnly []string
	// testdata holds instances written for this suite (below schema/testdata).
	testdata string
	// extraInstances adds instances of another version that are valid here
	// too, with their official type names.
	extraInstances func(t *testing.T) []acpInstance
	diffs          []acpDifference
	// minMutations is the least number of distinct mutations expected.
	minMutations int
	// capabilities is the member of the initialize params and result that
	// holds capabilities, when both sides use one name (v2's
	// "capabilities"); "" for v1's clientCapabilities and
	// agentCapabilities.
	capabilities string

	compileOnce sync.Once
	oracleSet   *acpSchemaSet
	oracleErr   error
	docMu       sync.Mutex
	docs        map[string]any
}

// url is the $id of an embedded file (a path below schema.Files).
func (s *acpUnstableSuite) url(p string) string { return schema.IDPrefix + p }

// doc returns the decoded content of an embedded file, cached.
func (s *acpUnstableSuite) doc(t testing.TB, p string) any {
	t.Helper()
	s.docMu.Lock()
	defer s.docMu.Unlock()
	if v, ok := s.docs[p]; ok {
		return v
	}
	data, err := fs.ReadFile(schema.Files, p)
	if err != nil {
		t.Fatalf("reading %s: %v", p, err)
	}
	v, err := acpDecodeJSON(data)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if s.docs == nil {
		s.docs = map[string]any{}
	}
	s.docs[p] = v
	return v
}

// files lists the schema files of the suite's folder (paths below schema.Files).
func (s *acpUnstableSuite) files(t testing.TB) []string {
	t.Helper()
	paths, err := schema.Paths(s.dir)
	if err != nil {
		t.Fatalf("listing schemas: %v", err)
	}
	if len(paths) == 0 {
		t.Fatal("no schema files below " + s.dir)
	}
	return paths
}

// rel resolves a path written relative to the suite's folder (dispatch
// entries, patches) to a path below schema.Files.
func (s *acpUnstableSuite) rel(p string) string { return path.Join(s.dir, p) }

// ---------------------------------------------------------------- schema locations

// acpUnstableRef locates a subschema: an embedded file and a pointer in it.
type acpUnstableRef struct{ file, ptr string }

func (s *acpUnstableSuite) node(t testing.TB, r acpUnstableRef) map[string]any {
	t.Helper()
	v, err := acpLookupAny(s.doc(t, r.file), acpSplitPointer(r.ptr))
	if err != nil {
		t.Fatalf("%s#%s: %v", r.file, r.ptr, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s#%s is not a schema object", r.file, r.ptr)
	}
	return m
}

func (r acpUnstableRef) child(tokens ...string) acpUnstableRef {
	return acpUnstableRef{file: r.file, ptr: r.ptr + acpJSONPointer(tokens...)}
}

// resolve follows the $ref of the schema at r, if any.
func (s *acpUnstableSuite) resolve(t testing.TB, r acpUnstableRef) (acpUnstableRef, bool) {
	t.Helper()
	ref, ok := s.node(t, r)["$ref"].(string)
	if !ok {
		return r, false
	}
	file, frag, _ := strings.Cut(ref, "#")
	if file == "" {
		file = r.file
	} else {
		file = path.Join(path.Dir(r.file), file)
	}
	return acpUnstableRef{file: file, ptr: frag}, true
}

// derefAll follows $ref chains and the non-null branch of nullable pairs.
func (s *acpUnstableSuite) derefAll(t testing.TB, r acpUnstableRef) acpUnstableRef {
	t.Helper()
	for {
		if next, ok := s.resolve(t, r); ok {
			r = next
			continue
		}
		if alt, ok := acpNullableBranch(s.node(t, r)); ok {
			r = r.child("anyOf", fmt.Sprint(alt))
			continue
		}
		return r
	}
}

// property finds the schema of a property of the object schema at r
// (following references, nullable pairs and allOf).
func (s *acpUnstableSuite) property(t testing.TB, r acpUnstableRef, name string) (acpUnstableRef, bool) {
	t.Helper()
	r = s.derefAll(t, r)
	m := s.node(t, r)
	if props, ok := m["properties"].(map[string]any); ok {
		if _, ok := props[name]; ok {
			return r.child("properties", name), true
		}
	}
	allOf, _ := m["allOf"].([]any)
	for i := range allOf {
		if p, ok := s.property(t, r.child("allOf", fmt.Sprint(i)), name); ok {
			return p, true
		}
	}
	return acpUnstableRef{}, false
}

// typeName names the type a schema location defines, or returns fallback.
func (s *acpUnstableSuite) typeName(t testing.TB, r acpUnstableRef, fallback string) string {
	if m := acpDefPtr.FindStringSubmatch(r.ptr); m != nil {
		return m[1]
	}
	if r.ptr == "" {
		doc, _ := s.doc(t, r.file).(map[string]any)
		if title, ok := doc["title"].(string); ok {
			return title
		}
	}
	return fallback
}

// ourTypes maps a type name to the URL of our schema of that name: the root
// of a file (by its title) or a shared definition (by its $defs key), in the
// suite's folder first and then in the base folder.
func (s *acpUnstableSuite) ourTypes(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	add := func(files []string) {
		for _, p := range files {
			doc, _ := s.doc(t, p).(map[string]any)
			if title, ok := doc["title"].(string); ok && out[title] == "" {
				out[title] = s.url(p)
			}
			defs, _ := doc["$defs"].(map[string]any)
			for name := range defs {
				if out[name] == "" {
					out[name] = s.url(p) + "#" + acpJSONPointer("$defs", name)
				}
			}
		}
	}
	add(s.files(t))
	if s.base != "" {
		paths, err := schema.Paths(s.base)
		if err != nil {
			t.Fatal(err)
		}
		add(paths)
	}
	return out
}

// ---------------------------------------------------------------- schema tests

func (s *acpUnstableSuite) testCompile(t *testing.T) {
	set := acpOurs(t)
	n := 0
	for _, p := range s.files(t) {
		if _, err := set.get(s.url(p)); err != nil {
			t.Error(err)
			continue
		}
		n++
		doc, _ := s.doc(t, p).(map[string]any)
		defs, _ := doc["$defs"].(map[string]any)
		for _, name := range acpSortedKeys(defs) {
			if _, err := set.get(s.url(p) + "#" + acpJSONPointer("$defs", name)); err != nil {
				t.Error(err)
			}
			n++
		}
	}
	t.Logf("compiled %d schemas and definitions", n)
}

func (s *acpUnstableSuite) testConventions(t *testing.T) {
	titles := map[string]string{}
	for _, p := range s.files(t) {
		file := path.Base(p)
		doc, ok := s.doc(t, p).(map[string]any)
		if !ok {
			t.Errorf("%s: root is not an object", file)
			continue
		}
		if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema is %v, want draft 2020-12", file, doc["$schema"])
		}
		if doc["$id"] != s.url(p) {
			t.Errorf("%s: $id is %v, want %s", file, doc["$id"], s.url(p))
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
			if ref, ok := m["$ref"].(string); ok {
				target, _, _ := strings.Cut(ref, "#")
				if target != "" && !strings.HasPrefix(path.Join(path.Dir(p), target), "acp/") {
					t.Errorf("%s#%s: $ref %q leaves the ACP schemas", file, ptr, ref)
				}
			}
		})
	}
	for _, p := range s.files(t) {
		doc, _ := s.doc(t, p).(map[string]any)
		defs, _ := doc["$defs"].(map[string]any)
		for name := range defs {
			if !acpPascalCase.MatchString(name) {
				t.Errorf("%s: $defs key %q is not PascalCase", p, name)
			}
			if other, dup := titles[name]; dup {
				t.Errorf("%s: $defs key %q is also the root title of %s", p, name, other)
			}
		}
	}
}

func (s *acpUnstableSuite) testExamples(t *testing.T) {
	set := acpOurs(t)
	n, files := 0, 0
	for _, p := range s.files(t) {
		before := n
		acpWalkSchema(s.doc(t, p), "", acpRoleRoot, func(ptr string, m map[string]any, _ acpSchemaRole) {
			examples, _ := m["examples"].([]any)
			for i, ex := range examples {
				n++
				if err := set.validate(t, s.url(p)+"#"+ptr, ex); err != nil {
					t.Errorf("%s#%s: example %d is invalid: %s", p, ptr, i, acpFirstLine(err))
				}
			}
		})
		if path.Base(p) != "common.json" && n == before {
			t.Errorf("%s: a method file needs an example", p)
		}
		files++
	}
	t.Logf("%d examples in %d files valid", n, files)
}

// ---------------------------------------------------------------- dispatch table

func (s *acpUnstableSuite) dispatch(t testing.TB) acpDispatch {
	t.Helper()
	data, err := fs.ReadFile(schema.Files, s.dir+"/"+schema.DispatchTable)
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

// acpUnstableFileStem is the file stem of a method entry: the method's stem,
// with ".notification" added for the notification of a method that is also a
// request.
func acpUnstableFileStem(e acpDispEntry, alsoRequest bool) string {
	stem := acpStem(e.Method)
	if e.Kind == "notification" && alsoRequest {
		stem += ".notification"
	}
	return stem
}

func (s *acpUnstableSuite) testDispatch(t *testing.T) {
	d := s.dispatch(t)
	if d.Protocol != "acp" || d.Version != s.version {
		t.Errorf("protocol/version = %q/%q, want acp/%s", d.Protocol, d.Version, s.version)
	}
	local := map[string]bool{}
	for _, p := range s.files(t) {
		local[p] = true
	}
	exists := func(p string) bool { _, err := fs.Stat(schema.Files, p); return err == nil }
	if !exists(s.rel(d.Envelope)) {
		t.Errorf("envelope schema %q does not exist", d.Envelope)
	}
	used := map[string]bool{s.rel("common.json"): true, s.rel(d.Envelope): true}
	requests := map[string]bool{}
	for _, e := range d.Methods {
		if e.Kind == "request" {
			requests[e.Method] = true
		}
	}
	seen := map[string]bool{}
	var methods []string
	for _, e := range d.Methods {
		key := e.Method + " " + e.Kind
		if seen[key] {
			t.Errorf("%s: listed twice as a %s", e.Method, e.Kind)
		}
		seen[key] = true
		if !slices.Contains(methods, e.Method) {
			methods = append(methods, e.Method)
		}
		if strings.HasPrefix(e.Method, "_") {
			t.Errorf("%s: extension methods are not listed", e.Method)
		}
		if e.Kind != "request" && e.Kind != "notification" {
			t.Errorf("%s: kind %q", e.Method, e.Kind)
		}
		if e.Handler != "agent" && e.Handler != "client" && e.Handler != "both" {
			t.Errorf("%s: handler %q", e.Method, e.Handler)
		}
		stem := acpUnstableFileStem(e, requests[e.Method])
		if got := path.Base(e.Params); got != stem+".params.json" {
			t.Errorf("%s: params file %q, want %s.params.json", e.Method, e.Params, stem)
		}
		switch {
		case e.Kind == "request" && path.Base(e.Result) != stem+".result.json":
			t.Errorf("%s: result file %q, want %s.result.json", e.Method, e.Result, stem)
		case e.Kind == "notification" && e.Result != "":
			t.Errorf("%s: a notification has no result, got %q", e.Method, e.Result)
		}
		for _, f := range []string{e.Params, e.Result} {
			if f == "" {
				continue
			}
			p := s.rel(f)
			if !exists(p) {
				t.Errorf("%s: schema file %q does not exist", e.Method, f)
			}
			// A file of this folder is used when it exists here; the base
			// folder's copy only when this folder has none.
			if dir := path.Dir(p); dir != s.dir && exists(path.Join(s.dir, path.Base(p))) {
				t.Errorf("%s: %s points to %s, but this folder has its own copy", e.Method, f, dir)
			}
			if used[p] {
				t.Errorf("%s: schema file %q is used twice", e.Method, f)
			}
			used[p] = true
		}
		if e.Capability != "" {
			s.checkCapability(t, e)
		}
	}
	for p := range local {
		if !used[p] {
			t.Errorf("schema file %s is not reachable from the dispatch table", p)
		}
	}
	got := slices.Sorted(slices.Values(methods))
	want := slices.Sorted(slices.Values(s.methods))
	if !slices.Equal(got, want) {
		t.Errorf("dispatch methods = %v\nwant %v", got, want)
	}
}

// checkCapability follows a capability pointer through the initialize schemas
// the table names, as acpCheckCapability does for v1.
func (s *acpUnstableSuite) checkCapability(t *testing.T, e acpDispEntry) {
	t.Helper()
	var init acpDispEntry
	for _, x := range s.dispatch(t).Methods {
		if x.Method == "initialize" {
			init = x
		}
	}
	file, first := s.rel(init.Params), "/clientCapabilities/"
	if e.Handler == "agent" {
		file, first = s.rel(init.Result), "/agentCapabilities/"
	}
	if s.capabilities != "" {
		first = "/" + s.capabilities + "/"
	}
	if !strings.HasPrefix(e.Capability, first) {
		t.Errorf("%s: capability %q must start with %s for a method the %s handles", e.Method, e.Capability,
			first, e.Handler)
		return
	}
	cur := acpUnstableRef{file: file}
	for _, tok := range strings.Split(e.Capability[1:], "/") {
		next, ok := s.property(t, cur, tok)
		if !ok {
			t.Errorf("%s: capability %q: no property %q in %s#%s", e.Method, e.Capability, tok, cur.file, cur.ptr)
			return
		}
		cur = next
	}
	leaf := s.derefAll(t, cur)
	types := acpTypeList(s.node(t, leaf))
	if !slices.Contains(types, "boolean") && !slices.Contains(types, "object") {
		t.Errorf("%s: capability %q leads to %s#%s, neither a boolean nor an object", e.Method, e.Capability,
			leaf.file, leaf.ptr)
	}
}

// acpUnstableOfficialSide maps the x-side of an official type to a handler.
var acpUnstableOfficialSide = map[string]string{"agent": "agent", "client": "client", "protocol": "both"}

// testDispatchMatchesOfficial compares the table with the official schema's
// x-method annotations (kind, handler, params and result type names) and with
// the official method list, whose gaps are documented.
func (s *acpUnstableSuite) testDispatchMatchesOfficial(t *testing.T) {
	defs := s.officialDefs(t)
	type official struct{ params, result, notification, side, notifSide string }
	off := map[string]*official{}
	for _, name := range acpSortedKeys(defs) {
		m, _ := defs[name].(map[string]any)
		method, ok := m["x-method"].(string)
		if !ok {
			continue
		}
		o := off[method]
		if o == nil {
			o = &official{}
			off[method] = o
		}
		side, _ := m["x-side"].(string)
		switch {
		case strings.HasSuffix(name, "Response"):
			o.result = name
		case strings.HasSuffix(name, "Notification"):
			o.notification, o.notifSide = name, side
		default:
			o.params, o.side = name, side
		}
	}
	d := s.dispatch(t)
	listed := map[string]bool{}
	for _, e := range d.Methods {
		listed[e.Method] = true
		o := off[e.Method]
		if o == nil {
			t.Errorf("%s: the official schema has no types for it", e.Method)
			continue
		}
		title := func(f string) string {
			doc, _ := s.doc(t, s.rel(f)).(map[string]any)
			title, _ := doc["title"].(string)
			return title
		}
		wantParams, wantSide := o.params, o.side
		if e.Kind == "notification" {
			wantParams, wantSide = o.notification, o.notifSide
		}
		if got := title(e.Params); got != wantParams {
			t.Errorf("%s %s: params schema is %s, the official type is %s", e.Method, e.Kind, got, wantParams)
		}
		if e.Kind == "request" {
			if got := title(e.Result); got != o.result {
				t.Errorf("%s: result schema is %s, the official type is %s", e.Method, got, o.result)
			}
		}
		if h, ok := acpUnstableOfficialSide[wantSide]; ok && h != e.Handler {
			t.Errorf("%s %s: handler %s, the official schema says %s", e.Method, e.Kind, e.Handler, wantSide)
		}
	}
	for m := range off {
		if !listed[m] {
			t.Errorf("%s: defined by the official schema but not in the dispatch table", m)
		}
	}
	// The official method list disagrees with the official types: each gap
	// is documented.
	var meta struct {
		AgentMethods    map[string]string `json:"agentMethods"`
		ClientMethods   map[string]string `json:"clientMethods"`
		ProtocolMethods map[string]string `json:"protocolMethods"`
	}
	acpReadSharedJSON(t, filepath.Join(sharedref.Dir(t, s.oracle[:len(s.oracle)-1]...), s.meta), &meta)
	inMeta := map[string]bool{}
	for _, tbl := range []map[string]string{meta.AgentMethods, meta.ClientMethods, meta.ProtocolMethods} {
		for _, m := range tbl {
			inMeta[m] = true
		}
	}
	var metaOnly, schemaOnly []string
	for m := range inMeta {
		if !listed[m] {
			metaOnly = append(metaOnly, m)
		}
	}
	for m := range listed {
		if !inMeta[m] {
			schemaOnly = append(schemaOnly, m)
		}
	}
	sort.Strings(metaOnly)
	sort.Strings(schemaOnly)
	if want := slices.Sorted(slices.Values(s.metaOnly)); !slices.Equal(metaOnly, want) {
		t.Errorf("methods in %s without official types = %v, documented %v", s.meta, metaOnly, want)
	}
	if want := slices.Sorted(slices.Values(s.schemaOnly)); !slices.Equal(schemaOnly, want) {
		t.Errorf("methods with official types missing from %s = %v, documented %v", s.meta, schemaOnly, want)
	}
}

// ---------------------------------------------------------------- the oracle

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

// ---------------------------------------------------------------- instances

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

// ---------------------------------------------------------------- the comparison

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

// ---------------------------------------------------------------- mutations

// acpUnstableTyper is acpTyper for a suite: it walks an instance alongside
// our schema and records the constraints that mutations should break.
type acpUnstableTyper struct {
	t    testing.TB
	s    *acpUnstableSuite
	set  *acpSchemaSet
	info map[string]*acpNodeInfo
}

func (ty *acpUnstableTyper) at(ptr string) *acpNodeInfo {
	if n, ok := ty.info[ptr]; ok {
		return n
	}
	n := &acpNodeInfo{required: map[string]bool{}}
	ty.info[ptr] = n
	return n
}

func (ty *acpUnstableTyper) visit(r acpUnstableRef, name string, inst any, ptr string, depth int) {
	if depth > 100 {
		ty.t.Fatalf("schema recursion too deep at %s", ptr)
	}
	for {
		next, ok := ty.s.resolve(ty.t, r)
		if !ok {
			break
		}
		r = next
		name = ty.s.typeName(ty.t, r, name)
	}
	m := ty.s.node(ty.t, r)
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
			c := r.child(kw, fmt.Sprint(i))
			if ty.set.validate(ty.t, ty.s.url(c.file)+"#"+c.ptr, inst) == nil {
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

// taggedUnions lists the tagged unions of the suite's folder by type name,
// and whether each is closed.
func (s *acpUnstableSuite) taggedUnions(t testing.TB) map[string]bool {
	out := map[string]bool{}
	for _, p := range s.files(t) {
		acpWalkSchema(s.doc(t, p), "", acpRoleRoot, func(ptr string, m map[string]any, _ acpSchemaRole) {
			alts, _ := m["oneOf"].([]any)
			u, ok := acpReadUnion(alts)
			if !ok {
				return
			}
			out[s.typeName(t, acpUnstableRef{file: p, ptr: ptr}, ptr)] = len(u.consts) == len(alts)
		})
	}
	return out
}

// closedEnums lists the closed string enums of the suite's common file.
func (s *acpUnstableSuite) closedEnums(t testing.TB) []string {
	var out []string
	doc, _ := s.doc(t, s.rel("common.json")).(map[string]any)
	defs, _ := doc["$defs"].(map[string]any)
	for _, name := range acpSortedKeys(defs) {
		m, _ := defs[name].(map[string]any)
		alts, _ := m["oneOf"].([]any)
		if _, open, ok := acpConstAlternatives(alts); ok && !open {
			out = append(out, name)
		}
	}
	return out
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
		ty := &acpUnstableTyper{t: t, s: s, set: j.ours, info: map[string]*acpNodeInfo{}}
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

// run registers every check of the suite as a subtest. Checks that need the
// official schema skip without ../shared.
func (s *acpUnstableSuite) run(t *testing.T) {
	t.Run("Compile", s.testCompile)
	t.Run("Conventions", s.testConventions)
	t.Run("ExamplesValid", s.testExamples)
	t.Run("DispatchTable", s.testDispatch)
	t.Run("TestdataValid", s.testTestdataValid)
	t.Run("DifferencesListedInREADME", s.testDifferencesListed)
	t.Run("DispatchMatchesOfficial", s.testDispatchMatchesOfficial)
	t.Run("AgreesWithOfficialSchema", s.testAgreesWithOfficial)
	t.Run("DifferencesWitnessed", s.testDifferencesWitnessed)
	t.Run("MutationsAgreeWithOfficialSchema", s.testMutations)
}

// ---------------------------------------------------------------- ACP v1 unstable

// acpUnstableV1Patches rewrites v1 patches to the v1 folder, seen from
// v1-unstable.
func acpUnstableV1Patches(ps []acpPatch) []acpPatch {
	out := make([]acpPatch, len(ps))
	for i, p := range ps {
		p.file = "../v1/" + p.file
		out[i] = p
	}
	return out
}

// acpUnstableV1Difference returns the v1 difference with this ID, its patches
// moved to the v1 folder and extra patches and witnesses added.
func acpUnstableV1Difference(id string, patches []acpPatch, witness []acpWitness) acpDifference {
	for _, d := range acpDifferences {
		if d.id == id {
			d.patches = append(acpUnstableV1Patches(d.patches), patches...)
			d.witness = append(slices.Clone(d.witness), witness...)
			return d
		}
	}
	// Unknown ID: no patches and no witness, which DifferencesWitnessed reports.
	return acpDifference{id: id}
}

var acpUnstableV1Suite = &acpUnstableSuite{
	name:    "ACP v1 unstable",
	dir:     "acp/v1-unstable",
	base:    "acp/v1",
	version: "v1-unstable",
	methods: append(slices.Clone(acpMethods),
		"auth/status", "auth/status_update", "mcp/message", "providers/list", "providers/set", "providers/disable",
		"proxy/initialize", "proxy/successor", "session/archive", "session/unarchive", "session/fork",
		"session/set_title", "session/status"),
	oracle:    []string{"reference", "acp", "v1", "schema.unstable.json"},
	oracleURL: "https://reference.invalid/acp/v1/schema.unstable.json",
	meta:      "meta.unstable.json",
	metaOnly: []string{"document/didChange", "document/didClose", "document/didFocus", "document/didOpen",
		"document/didSave", "mcp/connect", "mcp/disconnect", "nes/accept", "nes/close", "nes/reject", "nes/start",
		"nes/suggest"},
	schemaOnly: []string{"auth/status", "auth/status_update", "proxy/initialize", "proxy/successor",
		"session/archive", "session/set_title", "session/status", "session/unarchive"},
	testdata:       filepath.Join("testdata", "acp", "v1-unstable", "instances.json"),
	extraInstances: acpUnstableV1Instances,
	minMutations:   2000,
	diffs: []acpDifference{
		acpUnstableV1Difference("tagged-default-variant", []acpPatch{
			{file: "common.json", op: "remove", path: "/$defs/McpServer/oneOf/3/properties/type/not"},
			{file: "common.json", op: "move", from: "/$defs/McpServer/oneOf", path: "/$defs/McpServer/anyOf"},
		}, []acpWitness{
			{"NewSessionRequest", `{"cwd": "/w", "mcpServers": [{"type": "acp", "name": "n", "command": "/bin/s",
				"args": [], "env": []}]}`},
		}),
		acpUnstableV1Difference("elicitation-scope-fields", nil, nil),
		acpUnstableV1Difference("notification-has-no-id", nil, nil),
		acpUnstableV1Difference("response-result-xor-error", nil, nil),
		{
			id: "idle-error-field",
			reason: "`error` of an idle child-session state is checked whenever it is present. The official schema " +
				"checks it only when `stopReason` is `error`, so it accepts `\"stopReason\": \"end_turn\", " +
				"\"error\": 5`.",
			stricter: true,
			patches: []acpPatch{{file: "common.json", op: "replace", path: "/$defs/IdleStateUpdate", value: `{
				"type": "object",
				"properties": {
					"stopReason": {"anyOf": [{"$ref": "#/$defs/IdleStopReason"}, {"type": "null"}]},
					"usage": {"anyOf": [{"$ref": "#/$defs/Usage"}, {"type": "null"}]},
					"_meta": {"anyOf": [{"$ref": "../v1/common.json#/$defs/Meta"}, {"type": "null"}]}},
				"if": {"properties": {"stopReason": {"const": "error"}}, "required": ["stopReason"]},
				"then": {"properties": {"error": {"anyOf": [{"$ref": "../v1/jsonrpc.json#/$defs/Error"}, {"type": "null"}]}}}}`}},
			witness: []acpWitness{
				{"IdleStateUpdate", `{"stopReason": "end_turn", "error": 5}`},
				{"SubagentUpdate", `{"sessionId": "c", "state": {"state": "idle", "error": {"code": "x"}}}`},
			},
		},
	},
}

// acpUnstableV1Instances are the v1 values (schema examples and test data of
// acp/v1, and with ../shared the doc examples and Go SDK goldens): ACP v1
// unstable extends v1, so each gets the same verdict here too.
func acpUnstableV1Instances(t *testing.T) []acpInstance {
	var out []acpInstance
	for _, in := range acpLoadTestdataInstances(t) {
		in.name = "v1/" + in.name
		out = append(out, in)
	}
	c := acpLoadCorpus(t)
	for _, in := range c.typed {
		if !strings.HasPrefix(in.name, "testdata/") {
			in.name = "v1/" + in.name
			out = append(out, in)
		}
	}
	for _, e := range c.envelopes {
		out = append(out, acpInstance{name: "v1/" + e.name, typ: "envelope", value: e.value})
	}
	return out
}

// The v1 unstable schemas: compile, conventions, dispatch table, and the
// differential tests against the official unstable schema.
func TestACPUnstable(t *testing.T) {
	acpUnstableV1Suite.run(t)
}

// An unchanged v1 type is never re-declared: every definition in
// v1-unstable's common.json is new or differs from v1's of the same name, and
// every type re-declared from v1 is re-declared whole (all of v1's members).
func TestACPUnstableRedeclaresOnlyChanges(t *testing.T) {
	s := acpUnstableV1Suite
	v1, _ := s.doc(t, "acp/v1/common.json").(map[string]any)
	v1defs, _ := v1["$defs"].(map[string]any)
	doc, _ := s.doc(t, s.rel("common.json")).(map[string]any)
	defs, _ := doc["$defs"].(map[string]any)
	redeclared := 0
	for _, name := range acpSortedKeys(defs) {
		old, ok := v1defs[name].(map[string]any)
		if !ok {
			continue
		}
		redeclared++
		cur, _ := defs[name].(map[string]any)
		oldProps, _ := old["properties"].(map[string]any)
		curProps, _ := cur["properties"].(map[string]any)
		for p := range oldProps {
			if _, ok := curProps[p]; !ok {
				t.Errorf("%s: re-declared without v1's member %q", name, p)
			}
		}
		oldAlts, _ := old["oneOf"].([]any)
		curAlts, _ := cur["oneOf"].([]any)
		oldU, _ := acpReadUnion(oldAlts)
		curU, _ := acpReadUnion(curAlts)
		for _, c := range oldU.consts {
			if !slices.Contains(curU.consts, c) {
				t.Errorf("%s: re-declared without v1's variant %q", name, c)
			}
		}
		if len(curProps) == len(oldProps) && len(curU.consts) == len(oldU.consts) {
			t.Errorf("%s: re-declared but neither a member nor a variant was added", name)
		}
	}
	if redeclared == 0 {
		t.Error("no v1 type is re-declared; SessionUpdate at least has new variants")
	}
	// A method file of v1 is copied only when it reaches a re-declared type.
	for _, p := range s.files(t) {
		base := path.Base(p)
		if base == "common.json" {
			continue
		}
		if _, err := fs.Stat(schema.Files, "acp/v1/"+base); err != nil {
			continue // a new method
		}
		data, err := fs.ReadFile(schema.Files, p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(`"common.json#/$defs/`)) {
			t.Errorf("%s: copied from v1 but reaches no type of v1-unstable's common.json", base)
		}
	}
}

// The integers of the unstable additions have the widths of the official
// types (u64 token counts, i32 MCP error codes).
func TestACPUnstableIntegerWidths(t *testing.T) {
	s := acpUnstableV1Suite
	doc, _ := s.doc(t, s.rel("common.json")).(map[string]any)
	defs, _ := doc["$defs"].(map[string]any)
	check := func(def, prop string, lo, hi *big.Int) {
		m, _ := defs[def].(map[string]any)
		props, _ := m["properties"].(map[string]any)
		p, _ := props[prop].(map[string]any)
		if acpBigInt(p["minimum"]).Cmp(lo) != 0 || acpBigInt(p["maximum"]).Cmp(hi) != 0 {
			t.Errorf("%s.%s: range [%v, %v], want [%s, %s]", def, prop, p["minimum"], p["maximum"], lo, hi)
		}
	}
	for _, p := range []string{"totalTokens", "inputTokens", "outputTokens", "thoughtTokens", "cachedReadTokens", "cachedWriteTokens"} {
		check("Usage", p, big.NewInt(0), acpMinus1(acpPow2(64)))
	}
	check("McpError", "code", acpNeg(acpPow2(31)), acpMinus1(acpPow2(31)))
}
