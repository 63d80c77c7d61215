// The instances the ACP v1 oracle judges: the official documentation's
// examples and the SDK goldens (the corpus), our schemas' examples and our
// testdata.

package schema_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentproto/agentproto/internal/sharedref"
)

// acpInstance is a value of a named ACP type, taken from the reference
// examples, the Go SDK goldens, our schema examples or our test data.
type acpInstance struct {
	name  string // where it comes from
	typ   string // official type name
	value any
}

// acpEnvelope is a whole JSON-RPC message.
type acpEnvelope struct {
	name  string
	value any
}

// acpDocFragments types the doc examples that are not messages but a bare
// value of one type; ptr selects the part to check.
var acpDocFragments = map[string]struct{ typ, ptr string }{
	"authentication__01.json":         {"AuthMethod", ""},
	"authentication__02.json":         {"AuthMethod", ""},
	"content__00.json":                {"ContentBlock", ""},
	"content__01.json":                {"ContentBlock", ""},
	"content__02.json":                {"ContentBlock", ""},
	"content__03.json":                {"ContentBlock", ""},
	"content__04.json":                {"ContentBlock", ""},
	"elicitation__00.json":            {"ClientCapabilities", "/clientCapabilities"},
	"session-config-options__01.json": {"ClientCapabilities", "/clientCapabilities"},
	"session-config-options__02.json": {"SessionConfigOption", ""},
	"session-setup__14.json":          {"McpServer", ""},
	"session-setup__15.json":          {"McpServer", ""},
	"session-setup__16.json":          {"McpServer", ""},
	"tool-calls__05.json":             {"ToolCallContent", ""},
	"tool-calls__06.json":             {"ToolCallContent", ""},
	"tool-calls__07.json":             {"ToolCallContent", ""},
	"tool-calls__08.json":             {"ToolCallLocation", ""},
}

// acpDocUnparsed are doc examples that are not JSON (the docs elide parts).
var acpDocUnparsed = map[string]string{
	"session-config-options__05.json": "not JSON: the docs elide part of the message",
	"session-config-options__06.json": "not JSON: the docs elide part of the message",
}

// acpDocOrphans are responses whose request is not shown on the same page;
// the method follows from the shape of the result.
var acpDocOrphans = map[string]string{
	"authentication__00.json":         "initialize",
	"extensibility__05.json":          "initialize",
	"file-system__00.json":            "initialize",
	"session-delete__00.json":         "initialize",
	"session-list__00.json":           "initialize",
	"session-setup__02.json":          "initialize",
	"session-setup__07.json":          "initialize",
	"session-setup__10.json":          "initialize",
	"session-setup__17.json":          "initialize",
	"terminals__00.json":              "initialize",
	"session-config-options__00.json": "session/new",
	"session-modes__00.json":          "session/new",
}

// acpDocExample is what the test derived for one doc example.
type acpDocExample struct {
	method, typ string // method and official type of the checked part ("" when none)
	part        string // "params", "result" or ""
}

type acpCorpus struct {
	typed     []acpInstance
	envelopes []acpEnvelope
	docs      map[string]acpDocExample // by file name, messages only
}

var (
	acpCorpusOnce  sync.Once
	acpCorpusCache *acpCorpus
)

// acpLoadCorpus gathers every instance the differential tests use.
func acpLoadCorpus(t *testing.T) *acpCorpus {
	t.Helper()
	ref := sharedref.Dir(t, "reference", "acp")
	acpCorpusOnce.Do(func() { acpCorpusCache = acpBuildCorpus(t, ref) })
	if acpCorpusCache == nil {
		t.Fatal("building the example corpus failed")
	}
	return acpCorpusCache
}

func acpBuildCorpus(t *testing.T, ref string) *acpCorpus {
	c := &acpCorpus{docs: map[string]acpDocExample{}}
	methodTypes := acpOfficialMethodTypes(t)
	typeOf := func(method, part string) string {
		if part == "result" {
			return methodTypes[method][1]
		}
		return methodTypes[method][0]
	}

	// Doc examples, in page order, so a response finds its request.
	docDir := filepath.Join(ref, "examples", "docs-v1")
	var index []struct {
		File   string  `json:"file"`
		Source string  `json:"source"`
		Parsed bool    `json:"parsed"`
		Method *string `json:"method"`
	}
	acpReadSharedJSON(t, filepath.Join(docDir, "INDEX.json"), &index)
	requests := map[string]string{} // source + id → method
	for _, e := range index {
		base := path.Base(e.File)
		if !e.Parsed {
			if acpDocUnparsed[base] == "" {
				t.Errorf("%s: unparsed doc example with no recorded reason", base)
			}
			continue
		}
		v := acpReadSharedValue(t, filepath.Join(docDir, base))
		msg, _ := v.(map[string]any)
		if _, isMsg := msg["jsonrpc"]; !isMsg {
			f, ok := acpDocFragments[base]
			if !ok {
				t.Errorf("%s: not a message and not typed in acpDocFragments", base)
				continue
			}
			part, err := acpLookupPointer(v, f.ptr)
			if err != nil {
				t.Errorf("%s: %v", base, err)
				continue
			}
			c.typed = append(c.typed, acpInstance{name: "docs-v1/" + base, typ: f.typ, value: part})
			continue
		}
		c.envelopes = append(c.envelopes, acpEnvelope{name: "docs-v1/" + base, value: v})
		idKey := e.Source + " " + acpCanonicalJSON(msg["id"])
		var d acpDocExample
		if method, ok := msg["method"].(string); ok {
			d.method = method
			if _, hasID := msg["id"]; hasID {
				requests[idKey] = method
			}
			if _, ok := msg["params"]; ok {
				d.part = "params"
			}
		} else {
			method, ok := requests[idKey]
			if !ok {
				method, ok = acpDocOrphans[base]
			}
			if !ok {
				t.Errorf("%s: response to no request shown on its page; add it to acpDocOrphans", base)
				continue
			}
			d.method = method
			if _, ok := msg["result"]; ok {
				d.part = "result"
			}
		}
		if strings.HasPrefix(d.method, "_") || d.part == "" {
			d.part = "" // extension method or error response: the envelope is all there is to check
		} else {
			d.typ = typeOf(d.method, d.part)
			if d.typ == "" {
				t.Errorf("%s: the official schema has no %s type for %s", base, d.part, d.method)
				continue
			}
			c.typed = append(c.typed, acpInstance{name: "docs-v1/" + base + " " + d.part, typ: d.typ,
				value: msg[d.part]})
		}
		c.docs[base] = d
	}

	// Go SDK goldens: bare values, typed by the golden's own validation record.
	goDir := filepath.Join(ref, "examples", "gosdk-golden")
	goTypes := acpParseGoldenTypes(t, filepath.Join(goDir, "VALIDATION.txt"))
	entries, err := os.ReadDir(goDir)
	if err != nil {
		t.Fatalf("reading goldens: %v", err)
	}
	for _, ent := range entries {
		name := strings.TrimSuffix(ent.Name(), ".json")
		if name == ent.Name() {
			continue
		}
		typ, ok := goTypes[name]
		if !ok {
			t.Errorf("golden %s has no type in VALIDATION.txt", ent.Name())
			continue
		}
		c.typed = append(c.typed, acpInstance{name: "gosdk/" + ent.Name(), typ: typ,
			value: acpReadSharedValue(t, filepath.Join(goDir, ent.Name()))})
	}

	// Our own schema examples and test data, where the official schema has a
	// type of the same name.
	defs := acpOfficialDefs(t)
	c.typed = append(c.typed, acpOurExamples(t, defs)...)
	c.typed = append(c.typed, acpLoadTestdataInstances(t)...)
	return c
}

// acpParseGoldenTypes reads the types of the Go SDK goldens as recorded against
// the official schema.
func acpParseGoldenTypes(t *testing.T, p string) map[string]string {
	out := map[string]string{}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(acpReadSharedFile(t, p)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			section = strings.TrimPrefix(line, "## ")
			continue
		}
		f := strings.Fields(line)
		if section == "official/schema/v1/schema.json" && len(f) == 3 {
			if f[0] != "OK" {
				t.Errorf("golden %s is recorded as %s; every golden is expected valid", f[1], f[0])
			}
			out[f[1]] = f[2]
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no official types recorded", p)
	}
	return out
}

// acpOurExamples turns the examples of our root schemas and shared definitions
// into instances of the official type with the same name.
func acpOurExamples(t *testing.T, official map[string]any) []acpInstance {
	var out []acpInstance
	for _, file := range acpSchemaFiles(t) {
		doc, _ := acpDocCached(t, file).(map[string]any)
		add := func(name string, node any) {
			m, _ := node.(map[string]any)
			examples, _ := m["examples"].([]any)
			if _, ok := official[name]; !ok {
				return
			}
			for i, ex := range examples {
				out = append(out, acpInstance{name: fmt.Sprintf("ours/%s %s example %d", file, name, i),
					typ: name, value: ex})
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

// acpLoadTestdataInstances reads schema/testdata/acp/v1/instances.json: valid
// values, written for this test, of the types and variants the reference
// examples leave out.
func acpLoadTestdataInstances(t testing.TB) []acpInstance {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "acp", "v1", "instances.json"))
	if err != nil {
		t.Fatalf("reading test data: %v", err)
	}
	v, err := acpDecodeJSON(data)
	if err != nil {
		t.Fatalf("instances.json: %v", err)
	}
	arr, _ := v.([]any)
	var out []acpInstance
	for i, e := range arr {
		m, _ := e.(map[string]any)
		name, _ := m["name"].(string)
		typ, _ := m["type"].(string)
		if name == "" || typ == "" {
			t.Fatalf("instances.json[%d]: needs name and type", i)
		}
		out = append(out, acpInstance{name: "testdata/" + name, typ: typ, value: m["value"]})
	}
	return out
}

func acpCanonicalJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func acpLookupPointer(v any, ptr string) (any, error) {
	for _, tok := range acpSplitPointer(ptr) {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("pointer %s: not an object at %q", ptr, tok)
		}
		if v, ok = m[tok]; !ok {
			return nil, fmt.Errorf("pointer %s: no %q", ptr, tok)
		}
	}
	return v, nil
}
