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
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/internal/expect"
	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/schema"
	"github.com/agentproto/agentproto/schema/compile"
)

// arcpVersions are the ARCP schema sets: canonical v1.1 and the Rust SDK's
// RFC-0001-v2 dialect.
func arcpVersions() []string { return []string{"v1.1", "rfc0001"} }

// arcpFixtures is the fixture folder, relative to this package.
const arcpFixtures = "../fixtures/arcp"

const draft2020 = "https://json-schema.org/draft/2020-12/schema"

var pascalCase = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)

// dispatchMessage is one message entry of a dispatch table.
type dispatchMessage struct {
	Type         string `json:"type"`
	Schema       string `json:"schema"`
	Direction    string `json:"direction"`
	Since        string `json:"since"`
	Feature      string `json:"feature"`
	Sequenced    bool   `json:"sequenced"`
	Terminal     bool   `json:"terminal"`
	Handshake    bool   `json:"handshake"`
	SupersededBy string `json:"superseded_by"`
}

// arcpDispatch is the machine-readable table of schema/arcp/<version>/dispatch.json.
type arcpDispatch struct {
	Protocol string            `json:"protocol"`
	Version  string            `json:"version"`
	Messages []dispatchMessage `json:"messages"`
	Events   []struct {
		Kind    string `json:"kind"`
		Schema  string `json:"schema"`
		Since   string `json:"since"`
		Feature string `json:"feature"`
	} `json:"events"`
	VendorEventKind string `json:"vendor_event_kind"`
	FieldFeatures   []struct {
		Type    string `json:"type"`
		Pointer string `json:"pointer"`
		Matches string `json:"matches"`
		Feature string `json:"feature"`
	} `json:"field_features"`
}

func (d *arcpDispatch) messageSchema(typ string) (string, bool) {
	for _, m := range d.Messages {
		if m.Type == typ {
			return m.Schema, true
		}
	}
	return "", false
}

func (d *arcpDispatch) eventSchema(kind string) (string, bool) {
	for _, e := range d.Events {
		if e.Kind == kind {
			return e.Schema, true
		}
	}
	return "", false
}

func readEmbedded(t *testing.T, p string) []byte {
	t.Helper()
	b, err := fs.ReadFile(schema.Files, p)
	if err != nil {
		t.Fatalf("reading embedded %s: %v", p, err)
	}
	return b
}

func loadDispatch(t *testing.T, version string) *arcpDispatch {
	t.Helper()
	var d arcpDispatch
	if err := json.Unmarshal(readEmbedded(t, path.Join("arcp", version, schema.DispatchTable)), &d); err != nil {
		t.Fatalf("arcp/%s/dispatch.json: %v", version, err)
	}
	return &d
}

// schemaDoc decodes an embedded schema file as generic JSON.
func schemaDoc(t *testing.T, p string) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(readEmbedded(t, p), &doc); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return doc
}

func arcpSchemaPaths(t *testing.T, version string) []string {
	t.Helper()
	paths, err := schema.Paths(path.Join("arcp", version))
	if err != nil {
		t.Fatalf("listing arcp/%s: %v", version, err)
	}
	if len(paths) == 0 {
		t.Fatalf("no schema files under arcp/%s", version)
	}
	return paths
}

// schemaCache compiles each schema URL once per test.
type schemaCache struct {
	c    *jsonschema.Compiler
	seen map[string]*jsonschema.Schema
}

func newSchemaCache(t *testing.T) *schemaCache {
	t.Helper()
	c, err := compile.New()
	if err != nil {
		t.Fatalf("NewCompiler: %v", err)
	}
	return &schemaCache{c: c, seen: map[string]*jsonschema.Schema{}}
}

func (s *schemaCache) get(url string) (*jsonschema.Schema, error) {
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

func fileURL(version, file string) string {
	return schema.IDPrefix + path.Join("arcp", version, file)
}

// escapeToken escapes one JSON pointer reference token.
func escapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func pointerOf(tokens []string) string {
	var b strings.Builder
	for _, tok := range tokens {
		b.WriteString("/")
		b.WriteString(escapeToken(tok))
	}
	return b.String()
}

// TestARCPSchemasCompile checks every ARCP schema file compiles with the
// offline compiler and follows the naming rules of schema/README.md.
func TestARCPSchemasCompile(t *testing.T) {
	cache := newSchemaCache(t)
	for _, version := range arcpVersions() {
		for _, p := range arcpSchemaPaths(t, version) {
			if _, err := cache.get(schema.IDPrefix + p); err != nil {
				t.Errorf("%v", err)
				continue
			}
			doc := schemaDoc(t, p)
			if doc["$schema"] != draft2020 {
				t.Errorf("%s: $schema is %v, want %s", p, doc["$schema"], draft2020)
			}
			if doc["$id"] != schema.IDPrefix+p {
				t.Errorf("%s: $id is %v, want %s", p, doc["$id"], schema.IDPrefix+p)
			}
			title, hasTitle := doc["title"].(string)
			switch {
			case path.Base(p) == "common.json":
				if hasTitle {
					t.Errorf("%s: a definitions-only file has no root title (it would become an empty Go type)", p)
				}
			case !pascalCase.MatchString(title):
				t.Errorf("%s: root title %q is not PascalCase", p, title)
			}
			defs, _ := doc["$defs"].(map[string]any)
			for name := range defs {
				if !pascalCase.MatchString(name) {
					t.Errorf("%s: $defs key %q is not PascalCase", p, name)
				}
			}
		}
	}
}

// isConditional reports whether a keyword holds constraints rather than types:
// its subschemas need no descriptions.
func isConditional(keyword string) bool {
	switch keyword {
	case "if", "then", "else", "not":
		return true
	}
	return false
}

// TestARCPSchemaDescriptions checks that every type (file root, $defs entry,
// titled union variant) and every property has a description.
func TestARCPSchemaDescriptions(t *testing.T) {
	for _, version := range arcpVersions() {
		for _, p := range arcpSchemaPaths(t, version) {
			doc := schemaDoc(t, p)
			for _, ptr := range undescribed(doc, "", true) {
				t.Errorf("%s#%s has no description", p, ptr)
			}
		}
	}
}

// undescribed returns the pointers of schema nodes below node that define a
// type or a property but lack a description.
func undescribed(node any, ptr string, mustDescribe bool) []string {
	var out []string
	switch n := node.(type) {
	case map[string]any:
		if _, ok := n["title"]; ok {
			mustDescribe = true
		}
		if d, _ := n["description"].(string); mustDescribe && strings.TrimSpace(d) == "" {
			out = append(out, ptr)
		}
		for k, v := range n {
			if isConditional(k) || k == "examples" || k == "const" || k == "enum" {
				continue
			}
			child := ptr + "/" + escapeToken(k)
			switch k {
			case "properties", "$defs", "patternProperties":
				if m, ok := v.(map[string]any); ok {
					for name, sub := range m {
						out = append(out, undescribed(sub, child+"/"+escapeToken(name), true)...)
					}
				}
			default:
				out = append(out, undescribed(v, child, false)...)
			}
		}
	case []any:
		for i, v := range n {
			out = append(out, undescribed(v, ptr+"/"+strconv.Itoa(i), mustDescribe)...)
		}
	}
	return out
}

// TestARCPTypeNamesUnique checks that no two types of one schema set would get
// the same Go name: root titles, $defs keys and titled inline variants.
func TestARCPTypeNamesUnique(t *testing.T) {
	for _, version := range arcpVersions() {
		seen := map[string]string{}
		for _, p := range arcpSchemaPaths(t, version) {
			doc := schemaDoc(t, p)
			add := func(name, where string) {
				if prev, ok := seen[name]; ok {
					t.Errorf("type name %s is defined twice: %s and %s", name, prev, where)
				}
				seen[name] = where
			}
			if title, ok := doc["title"].(string); ok {
				add(title, p)
			}
			walkSchema(doc, "", func(node map[string]any, ptr string) {
				if ptr == "" {
					return
				}
				if strings.HasPrefix(ptr, "/$defs/") && strings.Count(ptr, "/") == 2 {
					add(strings.TrimPrefix(ptr, "/$defs/"), p+"#"+ptr)
					return
				}
				// A titled variant that is only a $ref names the referenced type.
				if title, ok := node["title"].(string); ok && node["$ref"] == nil {
					add(title, p+"#"+ptr)
				}
			})
		}
	}
}

// walkSchema calls fn for every JSON object in node with its pointer.
func walkSchema(node any, ptr string, fn func(map[string]any, string)) {
	switch n := node.(type) {
	case map[string]any:
		fn(n, ptr)
		for k, v := range n {
			if k == "examples" || k == "const" || k == "enum" {
				continue
			}
			walkSchema(v, ptr+"/"+escapeToken(k), fn)
		}
	case []any:
		for i, v := range n {
			walkSchema(v, ptr+"/"+strconv.Itoa(i), fn)
		}
	}
}

// TestARCPSchemaExamples validates every `examples` value against the schema
// it sits in.
func TestARCPSchemaExamples(t *testing.T) {
	cache := newSchemaCache(t)
	count := 0
	for _, version := range arcpVersions() {
		for _, p := range arcpSchemaPaths(t, version) {
			doc := schemaDoc(t, p)
			walkSchema(doc, "", func(node map[string]any, ptr string) {
				examples, ok := node["examples"].([]any)
				if !ok {
					return
				}
				url := schema.IDPrefix + p + "#" + ptr
				sch, err := cache.get(url)
				if err != nil {
					t.Errorf("%v", err)
					return
				}
				for i, ex := range examples {
					count++
					if err := sch.Validate(toInstance(t, ex)); err != nil {
						t.Errorf("%s example %d does not validate: %v", url, i, err)
					}
				}
			})
		}
	}
	if count < 50 {
		t.Errorf("only %d examples found in the ARCP schemas; the walk is broken", count)
	}
}

// toInstance re-decodes a value with the validator's own decoder, so numbers
// are json.Number as jsonschema expects.
func toInstance(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("re-encoding example: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("re-decoding example: %v", err)
	}
	return inst
}

// constOf returns properties.<name>.const of a schema document.
func constOf(doc map[string]any, name string) (string, bool) {
	props, _ := doc["properties"].(map[string]any)
	prop, _ := props[name].(map[string]any)
	c, ok := prop["const"].(string)
	return c, ok
}

// TestARCPDispatchTables checks that each dispatch table maps every message
// type to the schema file fixing that type, lists every message file, and
// agrees with message.json and, for v1.1, with the job.event union.
func TestARCPDispatchTables(t *testing.T) {
	for _, version := range arcpVersions() {
		d := loadDispatch(t, version)
		if d.Protocol != "arcp" || d.Version != version {
			t.Errorf("%s/dispatch.json: protocol %q version %q", version, d.Protocol, d.Version)
		}
		listed := map[string]bool{}
		var unionRefs []string
		for _, m := range d.Messages {
			p := path.Join("arcp", version, m.Schema)
			doc := schemaDoc(t, p)
			if c, _ := constOf(doc, "type"); c != m.Type {
				t.Errorf("%s: dispatch maps %s to a schema whose type const is %q", version, m.Type, c)
			}
			if !slices.Contains([]string{"client", "runtime", "either"}, m.Direction) {
				t.Errorf("%s: %s has direction %q", version, m.Type, m.Direction)
			}
			if listed[m.Schema] {
				t.Errorf("%s: %s listed twice", version, m.Schema)
			}
			listed[m.Schema] = true
			unionRefs = append(unionRefs, m.Schema)
		}
		for _, e := range d.Events {
			doc := schemaDoc(t, path.Join("arcp", version, e.Schema))
			if _, ok := doc["title"].(string); !ok {
				t.Errorf("%s: event schema %s has no title", version, e.Schema)
			}
			listed[e.Schema] = true
		}
		for _, p := range arcpSchemaPaths(t, version) {
			base := path.Base(p)
			switch base {
			case "envelope.json", "common.json", "message.json":
				continue
			}
			if !listed[base] {
				t.Errorf("%s: %s is not in dispatch.json", version, base)
			}
		}
		union := schemaDoc(t, path.Join("arcp", version, "message.json"))
		var got []string
		for _, v := range union["oneOf"].([]any) {
			vm := v.(map[string]any)
			ref, _ := vm["$ref"].(string)
			got = append(got, ref)
			target := schemaDoc(t, path.Join("arcp", version, ref))
			if vm["title"] != target["title"] {
				t.Errorf("%s/message.json: variant %s titled %v, file titled %v", version, ref, vm["title"], target["title"])
			}
		}
		if !reflect.DeepEqual(got, unionRefs) {
			t.Errorf("%s/message.json variants %v differ from dispatch messages %v", version, got, unionRefs)
		}
	}

	// v1.1: the job.event union has one variant per dispatched kind, then the
	// vendor catch-all.
	d := loadDispatch(t, "v1.1")
	ev := schemaDoc(t, "arcp/v1.1/job.event.json")
	evDefs := ev["$defs"].(map[string]any)
	var variants []map[string]any
	for _, v := range evDefs["JobEventPayload"].(map[string]any)["oneOf"].([]any) {
		vm := v.(map[string]any)
		if ref, ok := vm["$ref"].(string); ok {
			// A variant named in $defs (the narrowed per-kind message
			// schemas refer to it too).
			vm, _ = evDefs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
		if vm == nil {
			t.Fatalf("job.event.json: a JobEventPayload variant %v is not a definition of the file", v)
		}
		variants = append(variants, vm)
	}
	var kinds []string
	for _, v := range variants {
		if k, ok := constOf(v, "kind"); ok {
			kinds = append(kinds, k)
		}
	}
	var want []string
	for _, e := range d.Events {
		want = append(want, e.Kind)
	}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("job.event kinds %v, dispatch events %v", kinds, want)
	}
	last := variants[len(variants)-1]
	kind := last["properties"].(map[string]any)["kind"].(map[string]any)
	if kind["pattern"] != d.VendorEventKind || d.VendorEventKind == "" {
		t.Errorf("vendor variant pattern %v, dispatch vendor_event_kind %q", kind["pattern"], d.VendorEventKind)
	}

	// Every feature named by the table is one of the v1.1 flags.
	flags := map[string]bool{}
	common := schemaDoc(t, "arcp/v1.1/common.json")
	for _, v := range common["$defs"].(map[string]any)["Feature"].(map[string]any)["anyOf"].([]any) {
		if c, ok := v.(map[string]any)["const"].(string); ok {
			flags[c] = true
		}
	}
	if len(flags) != 11 {
		t.Errorf("common.json lists %d feature flags, want 11", len(flags))
	}
	check := func(where, f string) {
		if f != "" && !flags[f] {
			t.Errorf("dispatch.json: %s gated by unknown feature %q", where, f)
		}
	}
	for _, m := range d.Messages {
		check(m.Type, m.Feature)
	}
	for _, e := range d.Events {
		check(e.Kind, e.Feature)
	}
	for _, f := range d.FieldFeatures {
		check(f.Type+f.Pointer, f.Feature)
		if _, ok := d.messageSchema(f.Type); !ok {
			t.Errorf("field feature for unknown type %s", f.Type)
		}
	}
}

// TestARCPErrorCodes pins the size of the two error-code sets.
func TestARCPErrorCodes(t *testing.T) {
	for version, want := range map[string]int{"v1.1": 15, "rfc0001": 32} {
		common := schemaDoc(t, path.Join("arcp", version, "common.json"))
		codes := common["$defs"].(map[string]any)["ErrorCode"].(map[string]any)["oneOf"].([]any)
		if len(codes) != want {
			t.Errorf("%s: %d error codes (aliases included), want %d", version, len(codes), want)
		}
	}
}

// fixtureLine is one line of a JSONL trace.
type fixtureLine struct {
	no  int
	raw []byte
}

func readTrace(t *testing.T, file string) []fixtureLine {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("%v", err)
	}
	defer f.Close()
	var out []fixtureLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for no := 1; sc.Scan(); no++ {
		out = append(out, fixtureLine{no: no, raw: append([]byte(nil), sc.Bytes()...)})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if len(out) == 0 {
		t.Fatalf("%s is empty", file)
	}
	return out
}

func fixtureFiles(t *testing.T, version, kind string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(arcpFixtures, version, kind, "*.jsonl"))
	if err != nil {
		t.Fatalf("%v", err)
	}
	if len(files) == 0 {
		t.Fatalf("no fixtures in %s", filepath.Join(arcpFixtures, version, kind))
	}
	return files
}

// validateLine validates one wire line against the schema the dispatch table
// names for its type and, for a v1.1 job.event of a reserved kind, its body
// against the kind's schema. The error is nil when the line is valid.
func validateLine(cache *schemaCache, version string, d *arcpDispatch, raw []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	obj, ok := inst.(map[string]any)
	if !ok {
		return errors.New("not a JSON object")
	}
	typ, _ := obj["type"].(string)
	file, ok := d.messageSchema(typ)
	if !ok {
		return fmt.Errorf("type %q is not in %s/dispatch.json", typ, version)
	}
	sch, err := cache.get(fileURL(version, file))
	if err != nil {
		return err
	}
	if err := sch.Validate(inst); err != nil {
		return err
	}
	if typ != "job.event" || version != "v1.1" {
		return nil
	}
	payload := obj["payload"].(map[string]any)
	kind, _ := payload["kind"].(string)
	bodyFile, ok := d.eventSchema(kind)
	if !ok {
		return nil // a vendor kind: the union already checked its shape
	}
	bodySch, err := cache.get(fileURL(version, bodyFile))
	if err != nil {
		return err
	}
	if err := bodySch.Validate(payload["body"]); err != nil {
		return fmt.Errorf("body of kind %s: %w", kind, err)
	}
	return nil
}

// TestARCPValidFixtures checks every line of the valid traces against its
// message schema (and event body schema).
func TestARCPValidFixtures(t *testing.T) {
	cache := newSchemaCache(t)
	for _, version := range arcpVersions() {
		d := loadDispatch(t, version)
		seen := map[string]bool{}
		for _, file := range fixtureFiles(t, version, "valid") {
			for _, l := range readTrace(t, file) {
				if err := validateLine(cache, version, d, l.raw); err != nil {
					t.Errorf("%s:%d: %v", file, l.no, err)
				}
				var env struct {
					Type    string `json:"type"`
					Payload struct {
						Kind string `json:"kind"`
					} `json:"payload"`
				}
				if err := json.Unmarshal(l.raw, &env); err == nil {
					seen[env.Type] = true
					if env.Type == "job.event" {
						seen["event:"+env.Payload.Kind] = true
					}
				}
			}
		}
		// The valid traces exercise every message type and event kind, except
		// v1.1's session.bye, which only appears as a dialect deviation.
		for _, m := range d.Messages {
			if !seen[m.Type] && m.SupersededBy == "" {
				t.Errorf("%s: no valid fixture contains a %s message", version, m.Type)
			}
		}
		for _, e := range d.Events {
			if !seen["event:"+e.Kind] {
				t.Errorf("%s: no valid fixture contains a %s event", version, e.Kind)
			}
		}
	}
}

// expectation is one line of a NAME.expect file: LINE RULE POINTER.
type expectation struct {
	line    int
	rule    string
	pointer string
}

// isStateRule reports whether rule is one of the protocol-state rules the
// validator checks beyond schemas.
func isStateRule(rule string) bool {
	return rule != "json" && rule != "schema" && validate.KnownRule(rule)
}

func readExpect(t *testing.T, file string, lines int) []expectation {
	t.Helper()
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("every invalid or dialect trace needs its .expect file: %v", err)
	}
	keys, err := expect.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []expectation
	for _, k := range keys {
		if k.Requirement != "" {
			t.Errorf("%s: %q: want LINE RULE POINTER", file, k)
			continue
		}
		if k.Line > lines {
			t.Errorf("%s: %q: line %d is not a line of the trace", file, k, k.Line)
			continue
		}
		out = append(out, expectation{line: k.Line, rule: k.Rule, pointer: k.PointerText()})
	}
	if len(out) == 0 {
		t.Errorf("%s lists no findings", file)
	}
	return out
}

// leafPointers lists the instance locations of the innermost causes of a
// validation error.
func leafPointers(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var out []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, pointerOf(e.InstanceLocation))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

func atOrUnder(loc, want string) bool {
	return loc == want || strings.HasPrefix(loc, want+"/")
}

// TestARCPInvalidFixtures checks the invalid traces against their .expect
// files: every `schema` line fails its schema with an error leaf at or under
// the expected pointer, every other line is schema-valid (state-rule lines
// must be), and every rule is a known one.
func TestARCPInvalidFixtures(t *testing.T) {
	cache := newSchemaCache(t)
	for _, version := range arcpVersions() {
		d := loadDispatch(t, version)
		for _, file := range fixtureFiles(t, version, "invalid") {
			lines := readTrace(t, file)
			exp := readExpect(t, strings.TrimSuffix(file, ".jsonl")+".expect", len(lines))
			schemaAt := map[int][]string{}
			for _, e := range exp {
				switch {
				case e.rule == "schema":
					schemaAt[e.line] = append(schemaAt[e.line], e.pointer)
				case isStateRule(e.rule):
					if e.pointer != "-" {
						if _, ok := resolvePointer(decodeLine(t, lines[e.line-1].raw), e.pointer); !ok {
							t.Errorf("%s:%d: %s pointer %s does not exist in the line", file, e.line, e.rule, e.pointer)
						}
					}
				default:
					t.Errorf("%s:%d: unknown rule %q", file, e.line, e.rule)
				}
			}
			for _, l := range lines {
				err := validateLine(cache, version, d, l.raw)
				want, bad := schemaAt[l.no]
				if !bad {
					if err != nil {
						t.Errorf("%s:%d: expected no schema finding, got: %v", file, l.no, err)
					}
					continue
				}
				if err == nil {
					t.Errorf("%s:%d: expected a schema finding at %v, but the line is valid", file, l.no, want)
					continue
				}
				leaves := leafPointers(err)
				for _, w := range want {
					if !slices.ContainsFunc(leaves, func(loc string) bool { return atOrUnder(loc, w) }) {
						t.Errorf("%s:%d: no error at or under %s; errors are at %v:\n%v", file, l.no, w, leaves, err)
					}
				}
			}
		}
	}
}

func decodeLine(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("fixture line is not JSON: %v", err)
	}
	return v
}

// resolvePointer resolves an RFC 6901 pointer without wildcards.
func resolvePointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	cur := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}
