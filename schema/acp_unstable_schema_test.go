// The ACP version suites' checks of the schemas themselves (they compile,
// follow the conventions, their examples pass) and of the dispatch table
// (every method, its files and capability, as the official table has it).

package schema_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/sharedref"
	"github.com/agentproto/agentproto/schema"
)

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
