package schema_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

	"github.com/agentproto/agentproto/internal/expect"
	"github.com/agentproto/agentproto/internal/sharedref"
	"github.com/agentproto/agentproto/pkg/arcan"
	"github.com/agentproto/agentproto/schema"
	"github.com/agentproto/agentproto/schema/compile"
)

const arcanDir = "arcan/v1"

var arcanPascalCase = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)

// arcanDispatch is the dispatch table of schema/arcan/v1.
type arcanDispatch struct {
	Protocol string `json:"protocol"`
	Version  string `json:"version"`
	Events   []struct {
		PartType string          `json:"part_type"`
		Schema   string          `json:"schema"`
		Effects  json.RawMessage `json:"effects"`
	} `json:"events"`
	StoreRecord  string            `json:"store_record"`
	Store        json.RawMessage   `json:"store"`
	RunReasons   map[string]string `json:"run_reasons"`
	ErrorReasons []string          `json:"error_reasons"`
}

func loadArcanDispatch(t testing.TB) arcanDispatch {
	t.Helper()
	raw, err := schema.Files.ReadFile(path.Join(arcanDir, schema.DispatchTable))
	if err != nil {
		t.Fatal(err)
	}
	var d arcanDispatch
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("dispatch.json: %v", err)
	}
	return d
}

// arcanValidator holds the compiled schemas a validator picks from.
type arcanValidator struct {
	byPartType map[string]*jsonschema.Schema
	union      *jsonschema.Schema
	store      *jsonschema.Schema
}

func newArcanValidator(t testing.TB) *arcanValidator {
	t.Helper()
	c, err := compile.New()
	if err != nil {
		t.Fatal(err)
	}
	d := loadArcanDispatch(t)
	v := &arcanValidator{byPartType: map[string]*jsonschema.Schema{}}
	compile := func(file string) *jsonschema.Schema {
		s, err := c.Compile(schema.IDPrefix + path.Join(arcanDir, file))
		if err != nil {
			t.Fatalf("compiling %s: %v", file, err)
		}
		return s
	}
	for _, e := range d.Events {
		v.byPartType[e.PartType] = compile(e.Schema)
	}
	v.union = compile("agent-event.json")
	v.store = compile(d.StoreRecord)
	return v
}

// pick returns the schema for an event the way a validator does: by
// part_type, falling back to the union only when the tag is missing or
// unknown (to get an error that points at the tag).
func (v *arcanValidator) pick(inst any) (s *jsonschema.Schema, isUnion bool) {
	if m, ok := inst.(map[string]any); ok {
		if pt, ok := m["part_type"].(string); ok {
			if s := v.byPartType[pt]; s != nil {
				return s, false
			}
		}
	}
	return v.union, true
}

// arcanLine is one message of a trace: a JSONL line or the data of an SSE event.
type arcanLine struct {
	no   int
	data []byte
}

type arcanTraceKind int

const (
	arcanEventTrace arcanTraceKind = iota
	arcanStoreTrace
)

// arcanReadTrace reads a .jsonl, .store.jsonl or .sse file.
func arcanReadTrace(t testing.TB, p string) ([]arcanLine, arcanTraceKind) {
	t.Helper()
	kind := arcanEventTrace
	if strings.HasSuffix(p, ".store.jsonl") {
		kind = arcanStoreTrace
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []arcanLine
	if strings.HasSuffix(p, ".sse") || strings.HasSuffix(p, ".txt") {
		r := arcan.NewSSEReader(f)
		for {
			ev, err := r.Next()
			if err == io.EOF {
				return out, kind
			}
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			out = append(out, arcanLine{ev.Line, ev.Data})
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		out = append(out, arcanLine{n, bytes.Clone(sc.Bytes())})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return out, kind
}

// validate validates one line and returns the error and whether the union
// schema was used.
func (v *arcanValidator) validate(data []byte, kind arcanTraceKind) (error, bool) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err), false
	}
	if kind == arcanStoreTrace {
		return v.store.Validate(inst), false
	}
	s, isUnion := v.pick(inst)
	return s.Validate(inst), isUnion
}

// TestArcanSchemasCompile compiles every schema file of schema/arcan with the
// offline compiler and checks the file conventions of schema/README.md.
func TestArcanSchemasCompile(t *testing.T) {
	paths, err := schema.Paths("arcan")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 16 {
		t.Fatalf("found %d schema files under arcan, want at least 16: %v", len(paths), paths)
	}
	c, err := compile.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			if _, err := c.Compile(schema.IDPrefix + p); err != nil {
				t.Fatalf("compile: %v", err)
			}
			root := arcanLoadSchema(t, p)
			if got := root.get("$schema").str(); got != "https://json-schema.org/draft/2020-12/schema" {
				t.Errorf("$schema = %q", got)
			}
			if got, want := root.get("$id").str(), schema.IDPrefix+p; got != want {
				t.Errorf("$id = %q, want %q", got, want)
			}
			title := root.get("title")
			if root.get("$defs") == nil || root.get("type") != nil || root.get("oneOf") != nil {
				if title == nil || !arcanPascalCase.MatchString(title.str()) {
					t.Errorf("root title %v is not PascalCase", title)
				}
			}
			if defs := root.get("$defs"); defs != nil {
				for _, k := range defs.keys {
					if !arcanPascalCase.MatchString(k) {
						t.Errorf("$defs key %q is not PascalCase", k)
					}
				}
			}
		})
	}
}

// arcanKeywords are the draft 2020-12 keywords the Arcan schemas may use,
// plus the one extension the generator knows.
var arcanKeywords = map[string]bool{
	"$schema": true, "$id": true, "$ref": true, "$defs": true, "$comment": true, "$anchor": true,
	"title": true, "description": true, "examples": true, "default": true, "deprecated": true,
	"type": true, "enum": true, "const": true, "format": true, "pattern": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true, "uniqueItems": true,
	"minProperties": true, "maxProperties": true, "required": true,
	"properties": true, "additionalProperties": true, "patternProperties": true, "propertyNames": true,
	"items": true, "prefixItems": true, "contains": true,
	"oneOf": true, "anyOf": true, "allOf": true, "not": true, "if": true, "then": true, "else": true,
	"x-go-name": true,
	// serde fidelity: integers written as literals, and what Arcan always
	// writes (the emit shape) next to what its reader accepts.
	"x-integer-literal": true, "x-always-emitted": true, "x-omitted-when-none": true,
}

// arcanWalkSchemas calls fn for every schema object below n, with its location.
func arcanWalkSchemas(n *arcanNode, loc string, fn func(n *arcanNode, loc string)) {
	if n == nil || n.kind != 'o' {
		return
	}
	fn(n, loc)
	for _, k := range []string{"$defs", "properties", "patternProperties"} {
		if m := n.get(k); m != nil && m.kind == 'o' {
			for i, name := range m.keys {
				arcanWalkSchemas(m.vals[i], loc+"/"+k+"/"+name, fn)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties", "propertyNames", "contains", "not", "if", "then", "else"} {
		arcanWalkSchemas(n.get(k), loc+"/"+k, fn)
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf", "prefixItems"} {
		if a := n.get(k); a != nil && a.kind == 'a' {
			for i, e := range a.elems {
				arcanWalkSchemas(e, fmt.Sprintf("%s/%s/%d", loc, k, i), fn)
			}
		}
	}
}

// TestArcanSchemaDescriptions checks that every type (file root, $defs entry,
// titled union variant) and every property has a description, and that only
// known keywords are used.
func TestArcanSchemaDescriptions(t *testing.T) {
	paths, err := schema.Paths("arcan")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		root := arcanLoadSchema(t, p)
		arcanWalkSchemas(root, "", func(n *arcanNode, loc string) {
			for _, k := range n.keys {
				if !arcanKeywords[k] {
					t.Errorf("%s#%s: keyword %q is not allowed", p, loc, k)
				}
			}
			parts := strings.Split(loc, "/")
			isType := loc == "" || n.get("title") != nil ||
				(len(parts) >= 2 && (parts[len(parts)-2] == "$defs" || parts[len(parts)-2] == "properties"))
			if d := n.get("description"); isType && (d == nil || strings.TrimSpace(d.str()) == "") {
				t.Errorf("%s#%s: no description", p, loc)
			}
		})
	}
}

// TestArcanSchemaExamples validates the examples of every file root and
// $defs entry against the schema they illustrate.
func TestArcanSchemaExamples(t *testing.T) {
	c, err := compile.New()
	if err != nil {
		t.Fatal(err)
	}
	paths, err := schema.Paths("arcan")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	check := func(p, frag string, ex *arcanNode) {
		if ex == nil {
			return
		}
		s, err := c.Compile(schema.IDPrefix + p + frag)
		if err != nil {
			t.Fatalf("%s%s: %v", p, frag, err)
		}
		for i, e := range ex.elems {
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(e.raw()))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(inst); err != nil {
				t.Errorf("%s%s: example %d is invalid: %v", p, frag, i, err)
			}
			n++
		}
	}
	for _, p := range paths {
		root := arcanLoadSchema(t, p)
		check(p, "", root.get("examples"))
		if defs := root.get("$defs"); defs != nil {
			for i, k := range defs.keys {
				check(p, "#/$defs/"+k, defs.vals[i].get("examples"))
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d examples checked", n)
	}
}

// TestArcanDispatchTable checks that the table, the variant files and the
// AgentEvent union agree on every part_type.
func TestArcanDispatchTable(t *testing.T) {
	d := loadArcanDispatch(t)
	if d.Protocol != "arcan" || d.Version != "v1" {
		t.Errorf("protocol, version = %q, %q", d.Protocol, d.Version)
	}
	want := []string{
		"run_started", "iteration_started", "model_output", "text_delta",
		"tool_call_requested", "tool_call_completed", "tool_call_failed", "state_patched",
		"context_compacted", "approval_requested", "approval_resolved", "run_errored", "run_finished",
	}
	var got []string
	titles := map[string]string{}
	for _, e := range d.Events {
		got = append(got, e.PartType)
		if e.Schema != e.PartType+".json" {
			t.Errorf("%s: schema %q, want %s.json", e.PartType, e.Schema, e.PartType)
		}
		root := arcanLoadSchema(t, path.Join(arcanDir, e.Schema))
		tag := root.get("properties").get("part_type")
		if tag == nil || tag.get("const").str() != e.PartType {
			t.Errorf("%s: part_type const is %v", e.Schema, tag)
		}
		props := root.get("properties")
		if len(props.keys) < 3 || !slices.Equal(props.keys[:3], []string{"part_type", "run_id", "session_id"}) {
			t.Errorf("%s: properties start %v, want part_type, run_id, session_id", e.Schema, props.keys)
		}
		titles[e.Schema] = root.get("title").str()
	}
	if !slices.Equal(got, want) {
		t.Errorf("part_types %v,\nwant (declaration order) %v", got, want)
	}
	union := arcanLoadSchema(t, path.Join(arcanDir, "agent-event.json")).get("oneOf")
	if union == nil || len(union.elems) != len(d.Events) {
		t.Fatalf("agent-event.json oneOf has %v variants, want %d", union, len(d.Events))
	}
	for i, v := range union.elems {
		ref := v.get("$ref").str()
		if ref != d.Events[i].Schema {
			t.Errorf("union variant %d refs %q, want %q", i, ref, d.Events[i].Schema)
		}
		if v.get("title").str() != titles[ref] {
			t.Errorf("union variant %d title %q, want the file's title %q", i, v.get("title").str(), titles[ref])
		}
	}
	if d.StoreRecord != "store-record.json" {
		t.Errorf("store_record = %q", d.StoreRecord)
	}
}

// TestArcanReferenceExamples validates every line of the reference examples
// (JSONL files, and the SSE capture through the SSE reader) against the schema
// the dispatch table gives, and checks that the schema's property order is the
// order in which Arcan wrote the fields.
func TestArcanReferenceExamples(t *testing.T) {
	dir := sharedref.Dir(t, "reference", "arcan", "examples")
	v := newArcanValidator(t)
	o := newArcanOrderChecker(t)
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range files {
		if !strings.HasSuffix(p, ".jsonl") && !strings.HasSuffix(p, ".txt") {
			continue
		}
		t.Run(filepath.Base(p), func(t *testing.T) {
			lines, kind := arcanReadTrace(t, p)
			if len(lines) == 0 {
				t.Fatal("no lines")
			}
			if kind == arcanEventTrace && arcanIsStoreLine(lines[0].data) {
				kind = arcanStoreTrace
			}
			for _, l := range lines {
				if err, _ := v.validate(l.data, kind); err != nil {
					t.Errorf("line %d: %v", l.no, err)
				}
				for _, e := range o.check(l.data, kind) {
					t.Errorf("line %d: %s", l.no, e)
				}
				n++
			}
		})
	}
	if n == 0 {
		t.Fatal("no reference lines checked")
	}
}

func arcanIsStoreLine(data []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	_, hasEvent := m["event"]
	_, hasTag := m["part_type"]
	return hasEvent && !hasTag
}

func arcanFixtureFiles(t testing.TB, sub string) []string {
	t.Helper()
	var out []string
	for _, pat := range []string{"*.jsonl", "*.sse"} {
		m, err := filepath.Glob(filepath.Join("..", "fixtures", "arcan", sub, pat))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) == 0 {
		t.Fatalf("no fixtures in fixtures/arcan/%s", sub)
	}
	return out
}

// TestArcanValidFixtures validates every line of every valid fixture, checks
// that it is formatted as serde_json writes it, and that the trace breaks no
// protocol-state rule.
func TestArcanValidFixtures(t *testing.T) {
	v := newArcanValidator(t)
	o := newArcanOrderChecker(t)
	for _, p := range arcanFixtureFiles(t, "valid") {
		t.Run(filepath.Base(p), func(t *testing.T) {
			lines, kind := arcanReadTrace(t, p)
			if len(lines) == 0 {
				t.Fatal("no lines")
			}
			for _, l := range lines {
				if err, _ := v.validate(l.data, kind); err != nil {
					t.Errorf("line %d: %v", l.no, err)
				}
				for _, e := range o.check(l.data, kind) {
					t.Errorf("line %d: %s", l.no, e)
				}
			}
			if got := arcanCheckState(t, lines, kind, nil); len(got) > 0 {
				t.Errorf("state findings in a valid trace: %v", got)
			}
		})
	}
}

// arcanExpectation is one line of an .expect file.
type arcanExpectation struct {
	line    int
	rule    string
	pointer string // "-" when the finding has no pointer
}

func (e arcanExpectation) String() string { return fmt.Sprintf("%d %s %s", e.line, e.rule, e.pointer) }

var arcanExpectRules = map[string]bool{
	"schema": true, "run-not-started": true, "event-after-finish": true, "iteration-order": true, "unknown-call-id": true,
	"iteration-sequence": true, "turn-order": true, "tool-call-id": true, "state-patch": true, "run-outcome": true,
	"run-session": true, "approval-id": true, "store-sequence": true,
	// json: a line Arcan's reader cannot parse (nested past serde_json's
	// recursion limit); no schema says so, and the validator's golden
	// tests check it.
	"json": true,
}

func arcanReadExpect(t testing.TB, p string) []arcanExpectation {
	t.Helper()
	keys, err := expect.Read(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []arcanExpectation
	for _, k := range keys {
		if k.Requirement != "" {
			t.Fatalf("%s: %q: want LINE RULE POINTER", p, k)
		}
		if !arcanExpectRules[k.Rule] {
			t.Fatalf("%s: %q: unknown rule %q", p, k, k.Rule)
		}
		if len(out) > 0 && out[len(out)-1].line >= k.Line {
			t.Fatalf("%s: %q: line numbers must increase", p, k)
		}
		out = append(out, arcanExpectation{k.Line, k.Rule, k.PointerText()})
	}
	return out
}

// TestArcanInvalidFixtures checks every invalid fixture against its .expect
// file: each schema line fails validation with an error at or under the
// expected pointer, every other line (state-rule lines included) is
// schema-valid, and the state rules fire exactly on the expected lines.
func TestArcanInvalidFixtures(t *testing.T) {
	v := newArcanValidator(t)
	for _, p := range arcanFixtureFiles(t, "invalid") {
		t.Run(filepath.Base(p), func(t *testing.T) {
			lines, kind := arcanReadTrace(t, p)
			exp := arcanReadExpect(t, strings.TrimSuffix(p, filepath.Ext(p))+".expect")
			schemaAt := map[int]string{}
			var wantState []arcanExpectation
			for _, e := range exp {
				if !slices.ContainsFunc(lines, func(l arcanLine) bool { return l.no == e.line }) {
					t.Errorf("expectation %q names no line of the trace", e)
				}
				if e.rule == "json" {
					continue
				}
				if e.rule == "schema" {
					schemaAt[e.line] = e.pointer
				} else {
					wantState = append(wantState, e)
				}
			}
			invalid := map[int]bool{}
			for _, l := range lines {
				err, isUnion := v.validate(l.data, kind)
				ptr, want := schemaAt[l.no]
				if ptr == "-" {
					ptr = "" // the line as a whole
				}
				switch {
				case !want && err != nil:
					t.Errorf("line %d: unexpected schema error: %v", l.no, err)
				case want && err == nil:
					t.Errorf("line %d: schema-valid, want an error at %s", l.no, ptr)
				case want:
					invalid[l.no] = true
					var ve *jsonschema.ValidationError
					if !errors.As(err, &ve) {
						t.Errorf("line %d: %v is not a validation error", l.no, err)
						continue
					}
					locs := arcanLeafLocations(ve)
					under := func(loc string) bool { return loc == ptr || strings.HasPrefix(loc, ptr+"/") }
					// Through a union (a missing or unknown tag, a store
					// record's event) the other variants add errors elsewhere;
					// one at the pointer is enough. Otherwise all must be.
					anyMode := isUnion || (kind == arcanStoreTrace && strings.HasPrefix(ptr, "/event"))
					ok := slices.ContainsFunc(locs, under)
					if !anyMode {
						ok = ok && !slices.ContainsFunc(locs, func(l string) bool { return !under(l) })
					}
					if !ok {
						t.Errorf("line %d: errors at %v, want at or under %s:\n%v", l.no, locs, ptr, err)
					}
				}
			}
			// The same findings whether or not schema-invalid lines reach
			// the state checks.
			for _, skip := range []map[int]bool{invalid, nil} {
				if got := arcanCheckState(t, lines, kind, skip); !slices.Equal(got, wantState) {
					t.Errorf("state findings %v (skipping %d schema-invalid lines), want %v", got, len(skip), wantState)
				}
			}
		})
	}
}

// arcanLeafLocations returns the instance locations of the innermost errors, as
// JSON pointers. A missing required property is located at the object that
// lacks it, as the validator reports it. The null alternative of an Option
// (anyOf [T, null]) is left out: an object that breaks T also fails it.
func arcanLeafLocations(e *jsonschema.ValidationError) []string {
	if k, ok := e.ErrorKind.(*kind.Type); ok && len(k.Want) == 1 && k.Want[0] == "null" {
		return nil
	}
	if len(e.Causes) > 0 {
		var out []string
		for _, c := range e.Causes {
			out = append(out, arcanLeafLocations(c)...)
		}
		return out
	}
	return []string{arcanPointer(e.InstanceLocation)}
}

func arcanPointer(tokens []string) string {
	var b strings.Builder
	for _, tok := range tokens {
		b.WriteByte('/')
		b.WriteString(arcanEscapeToken(tok))
	}
	return b.String()
}

func arcanEscapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// arcanCheckState applies the Arcan protocol-state rules that
// fixtures/arcan/README.md defines to a trace, skipping the lines in skip, and
// returns the findings in line order. It is the executable form of those
// definitions, so that the .expect files and the README cannot drift apart.
// Fields of the wrong type or out of their Rust type's range are treated as
// absent, as a state checker that is fed schema-invalid lines would.
func arcanCheckState(t testing.TB, lines []arcanLine, kind arcanTraceKind, skip map[int]bool) []arcanExpectation {
	t.Helper()
	type run struct {
		started, errored, finished bool
		session                    string
		iter                       uint64 // current iteration; 0 before the first
		maxIter                    uint64
		modelOut, toolTurn         bool
		count, directives          uint64
		stop                       string
		revision                   uint64
		hasRevision                bool
		calls                      map[string]int // 1 requested, 2 ended
		approvals, texts           map[string]bool
	}
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	obj := func(m map[string]any, k string) map[string]any { o, _ := m[k].(map[string]any); return o }
	num := func(m map[string]any, k string, max uint64) (uint64, bool) {
		n, ok := m[k].(json.Number)
		if !ok {
			return 0, false
		}
		v, err := strconv.ParseUint(n.String(), 10, 64)
		return v, err == nil && v <= max
	}
	const u32 = 1<<32 - 1
	runReasons := map[string]string{"end_turn": "completed", "needs_user": "needs_user", "safety": "blocked_by_policy", "tool_use": "error", "max_tokens": "error", "unknown": "error"}
	errorReasons := []string{"error", "blocked_by_policy", "budget_exceeded", "cancelled"}
	directives := map[string]bool{"text_delta": true, "tool_call_requested": true}
	afterModel := map[string]bool{"text_delta": true, "tool_call_requested": true, "tool_call_completed": true, "tool_call_failed": true, "state_patched": true, "approval_requested": true, "approval_resolved": true}
	runs := map[string]*run{}
	seqs := map[string]uint64{}
	var out []arcanExpectation
	for _, l := range lines {
		if skip[l.no] {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(l.data))
		dec.UseNumber()
		var ev map[string]any
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("line %d: %v", l.no, err)
		}
		find := func(rule, ptr string) { out = append(out, arcanExpectation{l.no, rule, ptr}) }
		prefix := ""
		if kind == arcanStoreTrace {
			// store-sequence: one more than the branch's previous record.
			if seq, ok := num(ev, "sequence", 1<<64-1); ok {
				key := str(ev, "session_id") + "\x00" + str(ev, "branch_id")
				if prev, ok := seqs[key]; ok && seq != prev+1 {
					find("store-sequence", "/sequence")
				}
				seqs[key] = seq
			}
			ev = obj(ev, "event")
			prefix = "/event"
		}
		partType, runID := str(ev, "part_type"), str(ev, "run_id")
		r := runs[runID]
		if r == nil {
			r = &run{calls: map[string]int{}, approvals: map[string]bool{}, texts: map[string]bool{}}
			runs[runID] = r
		}
		find1 := func(rule, ptr string) {
			if ptr != "-" {
				ptr = prefix + ptr
			}
			find(rule, ptr)
		}
		switch {
		case r.finished, r.errored && partType != "run_finished":
			find1("event-after-finish", "-")
			continue
		case partType == "run_started":
			r.started = true
			r.maxIter, _ = num(ev, "max_iterations", u32)
			r.session = str(ev, "session_id")
			continue
		case !r.started:
			if !(partType == "run_errored" && runID == "unknown") {
				find1("run-not-started", "-")
			}
			continue
		}
		if sid, ok := ev["session_id"].(string); ok && sid != r.session {
			find1("run-session", "/session_id")
		}
		current := true
		if it, ok := num(ev, "iteration", u32); ok {
			switch {
			case it < r.iter:
				find1("iteration-order", "/iteration")
				current = false
			case partType == "iteration_started":
				if it > r.maxIter || it != r.iter+1 {
					find1("iteration-sequence", "/iteration")
				}
				r.iter, r.modelOut, r.count, r.directives = it, false, 0, 0
			case it > r.iter:
				find1("iteration-sequence", "/iteration")
				current = false
			}
		} else if _, has := ev["iteration"]; has {
			current = false
		}
		if current && r.iter > 0 {
			switch {
			case partType == "context_compacted" && r.modelOut:
				find1("turn-order", "-")
			case partType == "model_output":
				r.modelOut, r.toolTurn, r.directives = true, false, 0
				r.count, _ = num(ev, "directive_count", 1<<64-1)
				r.stop = str(ev, "stop_reason")
			case afterModel[partType] && !r.modelOut:
				find1("turn-order", "-")
			case directives[partType]:
				if r.directives++; r.directives > r.count {
					find1("turn-order", "-")
				}
			}
		}
		switch partType {
		case "tool_call_requested":
			if id, ok := obj(ev, "call")["call_id"].(string); ok {
				if r.calls[id] != 0 {
					find1("tool-call-id", "/call/call_id")
				} else {
					r.calls[id] = 1
				}
				r.toolTurn = true
			}
		case "tool_call_completed", "tool_call_failed":
			m, ptr := obj(ev, "result"), "/result/call_id"
			if partType == "tool_call_failed" {
				m, ptr = ev, "/call_id"
			}
			if id, ok := m["call_id"].(string); ok {
				switch r.calls[id] {
				case 0:
					find1("unknown-call-id", ptr)
				case 2:
					find1("tool-call-id", ptr)
				default:
					r.calls[id] = 2
				}
			}
		case "state_patched":
			if rev, ok := num(ev, "revision", 1<<64-1); ok {
				if r.hasRevision && rev != r.revision+1 {
					find1("state-patch", "/revision")
				}
				r.revision, r.hasRevision = rev, true
			}
			if p := obj(ev, "patch"); str(p, "format") == "json_patch" {
				ops, ok := p["patch"].([]any)
				for _, op := range ops {
					o, _ := op.(map[string]any)
					if _, isOp := o["op"].(string); !isOp {
						ok = false
					}
					if _, isPath := o["path"].(string); !isPath {
						ok = false
					}
				}
				if !ok {
					find1("state-patch", "/patch/patch")
				}
			}
		case "text_delta":
			if d, ok := ev["delta"].(string); ok {
				r.texts[d] = true
			}
		case "approval_requested":
			r.approvals[str(ev, "approval_id")] = true
		case "approval_resolved":
			if id, ok := ev["approval_id"].(string); ok {
				if !r.approvals[id] {
					find1("approval-id", "/approval_id")
				}
				delete(r.approvals, id)
			}
		case "run_errored":
			r.errored = true
		case "run_finished":
			r.finished = true
			if n, ok := num(ev, "total_iterations", u32); ok && n != r.iter {
				find1("run-outcome", "/total_iterations")
			}
			reason := str(ev, "reason")
			known := slices.Contains(errorReasons, reason)
			for _, v := range runReasons {
				known = known || v == reason
			}
			switch {
			case !known:
			case r.errored:
				if !slices.Contains(errorReasons, reason) {
					find1("run-outcome", "/reason")
				}
			case r.stop != "" && !r.toolTurn:
				if want, ok := runReasons[r.stop]; ok && reason != want {
					find1("run-outcome", "/reason")
				}
			}
			if fa, ok := ev["final_answer"].(string); ok && !r.texts[fa] {
				find1("run-outcome", "/final_answer")
			}
		}
	}
	return out
}
