package typed_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/pkg/acp"
	"github.com/agentproto/agentproto/pkg/validate/typed"
	"github.com/agentproto/agentproto/pkg/wire"
	"github.com/agentproto/agentproto/schema"
	"github.com/agentproto/agentproto/schema/compile"
	"github.com/agentproto/agentproto/schema/registry"
)

// sample is one value of a fixture line with the schema that checks it.
type sample struct {
	where   string
	id      string // schema $id with fragment
	pointer string // where the value sits in line
	line    []byte
	valid   bool // from a valid/ fixture
}

func fixtureLines(t *testing.T, glob string) map[string][][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "fixtures", glob))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures match %s", glob)
	}
	out := map[string][][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			out[f] = append(out[f], append([]byte(nil), sc.Bytes()...))
		}
	}
	return out
}

type dispatch struct {
	Messages []struct{ Type, Schema string } `json:"messages"`
	Events   []struct {
		PartType string `json:"part_type"`
		Schema   string `json:"schema"`
	} `json:"events"`
	StoreRecord string `json:"store_record"`
}

func readDispatch(t *testing.T, dir string) dispatch {
	data, err := schema.Files.ReadFile(dir + "/dispatch.json")
	if err != nil {
		t.Fatal(err)
	}
	var d dispatch
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func samples(t *testing.T) []sample {
	var out []sample
	// ARCP, both schema sets: each line against its type's file.
	for _, set := range []struct{ dir, glob string }{
		{"arcp/v1.1", "arcp/v1.1/*/*.jsonl"}, {"arcp/rfc0001", "arcp/rfc0001/*/*.jsonl"},
	} {
		byType := map[string]string{}
		for _, m := range readDispatch(t, set.dir).Messages {
			byType[m.Type] = schema.IDPrefix + set.dir + "/" + m.Schema + "#"
		}
		for f, lines := range fixtureLines(t, set.glob) {
			for i, l := range lines {
				var m struct{ Type string }
				if json.Unmarshal(l, &m) != nil || byType[m.Type] == "" {
					continue
				}
				out = append(out, sample{f + ":" + strconv.Itoa(i+1), byType[m.Type], "", l, strings.Contains(f, "/valid/")})
			}
		}
	}
	// Arcan: each event against its part_type's file, store records whole.
	d := readDispatch(t, "arcan/v1")
	byPart := map[string]string{}
	for _, e := range d.Events {
		byPart[e.PartType] = schema.IDPrefix + "arcan/v1/" + e.Schema + "#"
	}
	for f, lines := range fixtureLines(t, "arcan/*/*.jsonl") {
		for i, l := range lines {
			if strings.HasSuffix(f, ".store.jsonl") {
				out = append(out, sample{f + ":" + strconv.Itoa(i+1), schema.IDPrefix + "arcan/v1/" + d.StoreRecord + "#", "", l, strings.Contains(f, "/valid/")})
				continue
			}
			var m struct {
				PartType string `json:"part_type"`
			}
			if json.Unmarshal(l, &m) != nil || byPart[m.PartType] == "" {
				continue
			}
			out = append(out, sample{f + ":" + strconv.Itoa(i+1), byPart[m.PartType], "", l, strings.Contains(f, "/valid/")})
		}
	}
	// ACP: params by method, results by the method of the request they
	// answer (matched by id and direction).
	for f, lines := range fixtureLines(t, "acp/*/*.jsonl") {
		dirs, err := os.ReadFile(strings.TrimSuffix(f, ".jsonl") + ".dir")
		if err != nil {
			t.Fatal(err)
		}
		dl := strings.Fields(string(dirs))
		pending := map[string]string{}
		for i, l := range lines {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(l, &m) != nil || i >= len(dl) {
				continue
			}
			where := f + ":" + strconv.Itoa(i+1)
			valid := strings.Contains(f, "/valid/")
			if m.Method != "" {
				if m.ID != nil {
					pending[dl[i]+string(m.ID)] = m.Method
				}
				if e, ok := acp.LookupMethod(m.Method); ok && m.Params != nil {
					out = append(out, sample{where, e.ParamsSchema, "/params", l, valid})
				}
				continue
			}
			other := map[string]string{"c2a": "a2c", "a2c": "c2a"}[dl[i]]
			method := pending[other+string(m.ID)]
			if e, ok := acp.LookupMethod(method); ok && m.Result != nil {
				out = append(out, sample{where, e.ResultSchema, "/result", l, valid})
			}
		}
	}
	return out
}

type oracle struct {
	c     *jsonschema.Compiler
	cache map[string]*jsonschema.Schema
}

func (o *oracle) valid(t *testing.T, s sample) bool {
	t.Helper()
	sch, ok := o.cache[s.id]
	if !ok {
		var err error
		if sch, err = o.c.Compile(s.id); err != nil {
			t.Fatalf("%s: %v", s.id, err)
		}
		o.cache[s.id] = sch
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s.line))
	if err != nil {
		return false
	}
	for _, tok := range strings.Split(strings.TrimPrefix(s.pointer, "/"), "/") {
		if tok == "" {
			continue
		}
		m, ok := doc.(map[string]any)
		if !ok {
			return false
		}
		doc = m[tok]
	}
	return sch.Validate(doc) == nil
}

// TestFastPathAgreesWithSchemas: over every fixture value, and mutations of
// each, the fast path never calls valid what the schema rejects; and on
// valid fixtures it vouches for every value whose type is complete, so it
// really is the path valid traffic takes.
func TestFastPathAgreesWithSchemas(t *testing.T) {
	c, err := compile.New()
	if err != nil {
		t.Fatal(err)
	}
	o := &oracle{c: c, cache: map[string]*jsonschema.Schema{}}
	var fast typed.Checker
	all := samples(t)
	if len(all) < 500 {
		t.Fatalf("only %d samples", len(all))
	}
	vouched, validN, checked, verified := 0, 0, 0, 0
	for _, s := range all {
		for _, m := range append([]sample{s}, mutations(s)...) {
			checked++
			f := fast.Check(m.id, m.pointer, m.line)
			if f && !o.valid(t, m) {
				t.Errorf("%s: the fast path accepts what %s rejects:\n%s", m.where, m.id, m.line)
			}
			// Verify (the value on the stack) answers as Decode plus
			// Validate does.
			if codec, ok := typed.Lookup(m.id); ok && codec.Verify != nil {
				verified++
				slow := codec
				slow.Verify = nil
				v1, k1 := codec.CheckAt(wire.NewDecoder(m.line), m.pointer)
				v2, k2 := slow.CheckAt(wire.NewDecoder(m.line), m.pointer)
				if v1 != v2 || k1 != k2 {
					t.Errorf("%s: %s: Verify gives %v, %v; Decode and Validate give %v, %v", m.where, codec.Name, v1, k1, v2, k2)
				}
			}
		}
		if s.valid {
			validN++
			if !o.valid(t, s) {
				t.Errorf("%s: a valid fixture fails its schema %s", s.where, s.id)
			}
			codec, ok := typed.Lookup(s.id)
			if !ok {
				t.Errorf("%s: no generated type for %s", s.where, s.id)
				continue
			}
			if fast.Check(s.id, s.pointer, s.line) {
				vouched++
			} else if codec.Complete {
				t.Errorf("%s: the fast path doubts a valid value of the complete type %s", s.where, codec.Name)
			}
		}
	}
	t.Logf("%d values (with mutations) checked, %d through Verify; the fast path vouched for %d of %d valid fixture values", checked, verified, vouched, validN)
	if verified*2 < checked {
		t.Errorf("only %d of %d values went through a codec's Verify", verified, checked)
	}
	if vouched*2 < validN {
		t.Errorf("the fast path vouched for only %d of %d valid values", vouched, validN)
	}
}

// mutations derives invalid-looking variants of a value: each member of
// the checked object dropped, and each string member turned into a number.
func mutations(s sample) []sample {
	var doc map[string]any
	if json.Unmarshal(s.line, &doc) != nil {
		return nil
	}
	target := doc
	if s.pointer != "" {
		m, ok := doc[strings.TrimPrefix(s.pointer, "/")].(map[string]any)
		if !ok {
			return nil
		}
		target = m
	}
	var out []sample
	for k, v := range target {
		delete(target, k)
		if b, err := json.Marshal(doc); err == nil {
			out = append(out, sample{s.where + " without " + k, s.id, s.pointer, b, false})
		}
		target[k] = v
		if _, isString := v.(string); isString {
			target[k] = 42
			if b, err := json.Marshal(doc); err == nil {
				out = append(out, sample{s.where + " with " + k + " a number", s.id, s.pointer, b, false})
			}
			target[k] = v
		}
	}
	return out
}

func TestRoundtripReportsLosses(t *testing.T) {
	id := schema.IDPrefix + "acp/v1/session.update.params.json"
	line := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"content":"a","priority":"high","status":"pending"}]},"extra":1.0}}`)
	diffs, err := typed.Roundtrip(id, "/params", line)
	if err != nil || len(diffs) != 0 {
		t.Errorf("a faithful round trip reported %v, %v", diffs, err)
	}
	if _, err := typed.Roundtrip(id, "/params", []byte(`{"params":{"sessionId":5}}`)); err == nil {
		t.Error("an undecodable value gave no error")
	}
}

// Lookup reaches the generated types of every version in the registry: the
// first schema each dispatch table names resolves.
func TestLookupCoversRegistry(t *testing.T) {
	reg, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range reg.Versions("") {
		var ref string
		switch {
		case v.ACP() != nil && len(v.ACP().Methods) > 0:
			ref = v.ACP().Methods[0].Params
		case v.ARCP() != nil && len(v.ARCP().Messages) > 0:
			ref = v.ARCP().Messages[0].Schema
		case v.Arcan() != nil && len(v.Arcan().Events) > 0:
			ref = v.Arcan().Events[0].Schema
		}
		id := v.SchemaID(ref)
		c, ok := typed.Lookup(id)
		if !ok {
			t.Errorf("%s: no generated type for %s", v, id)
		}
		// A file's root is found with its empty fragment too.
		if c2, ok := typed.Lookup(id + "#"); !ok || c2.Name != c.Name {
			t.Errorf("%s: %s# gives %q, %s gives %q", v, id, c2.Name, id, c.Name)
		}
	}
}

// TestCheckKnown: a value whose every member its type defines is known; an
// unknown member anywhere, kept aside by the decoder, is not, though the
// value stays valid (the protocol's objects are open).
func TestCheckKnown(t *testing.T) {
	const params = "https://agentproto.dev/schema/acp/v1/session.update.params.json"
	for _, c := range []struct {
		line         string
		valid, known bool
	}{
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`, true, true},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi","Annotations":{}}}}}`, true, false},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionID":"s1","sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`, true, false},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`, false, false},
	} {
		valid, known := typed.Checker{}.CheckKnown(params, "/params", []byte(c.line))
		if valid != c.valid || known != c.known {
			t.Errorf("%s: valid %v, known %v; want %v, %v", c.line, valid, known, c.valid, c.known)
		}
		if got := (typed.Checker{}).Check(params, "/params", []byte(c.line)); got != valid {
			t.Errorf("%s: Check %v, CheckKnown %v", c.line, got, valid)
		}
	}
}
