package official_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentproto/agentproto/gen/internal/official/acpv1"
	"github.com/agentproto/agentproto/gen/internal/official/acpv1unstable"
	"github.com/agentproto/agentproto/gen/internal/official/acpv2"
	"github.com/agentproto/agentproto/gen/internal/official/acpv2unstable"
	"github.com/agentproto/agentproto/internal/sharedref"
	"github.com/agentproto/agentproto/pkg/wire"
)

// example is one official example with the type its method gives it and
// the official schema's verdict.
type example struct {
	file  string
	typ   string
	valid bool
	part  string // "params", "result" or "" for a bare value
}

var docLine = regexp.MustCompile(`^(OK|INVALID)\s+root:\S+\s+(\S+)\s+(\S+)\s+(\S+)\s*$`)

func docExamples(t *testing.T, dir string) []example {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "VALIDATION.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []example
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := docLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		part := "params"
		if strings.HasSuffix(m[4], "Response") {
			part = "result"
		}
		out = append(out, example{file: filepath.Join(dir, m[2]), typ: m[4], valid: m[1] == "OK", part: part})
	}
	return out
}

var goldenLine = regexp.MustCompile(`^(OK|INVALID)\s+(\S+)\s+(\S+)\s*$`)

func goldenExamples(t *testing.T, dir string) []example {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "VALIDATION.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// The verdicts of the official v1 schema are the second section.
	_, section, ok := strings.Cut(string(data), "## official/schema/v1/schema.json")
	if !ok {
		t.Fatal("VALIDATION.txt has no section for the official v1 schema")
	}
	var out []example
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "##") {
			break
		}
		m := goldenLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		out = append(out, example{file: filepath.Join(dir, m[2]+".json"), typ: m[3], valid: m[1] == "OK"})
	}
	return out
}

// roundTrip decodes part of an example with the codec of its type and
// checks the verdict and, for valid values, that encoding gives the same
// JSON back.
func roundTrip(t *testing.T, lookup func(string) (wire.Codec, bool), ex example) {
	data, err := os.ReadFile(ex.file)
	if err != nil {
		t.Fatal(err)
	}
	if ex.part != "" {
		var msg map[string]json.RawMessage
		if err := json.Unmarshal(data, &msg); err != nil {
			t.Fatalf("%s: %v", ex.file, err)
		}
		data = msg[ex.part]
	}
	codec, ok := lookup("#/$defs/" + ex.typ)
	if !ok {
		t.Fatalf("no generated type for %s", ex.typ)
	}
	v, err := codec.DecodeBytes(data)
	if err == nil {
		err = codec.Validate(v)
	}
	if !ex.valid {
		if err == nil {
			t.Errorf("%s: the official schema rejects it as %s, but it decoded and validated", filepath.Base(ex.file), ex.typ)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s as %s: %v", filepath.Base(ex.file), ex.typ, err)
	}
	out, err := codec.EncodeBytes(v)
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("re-encoded %s is not JSON: %v\n%s", ex.typ, err, out)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s: %s does not survive decode and encode (-sent +re-encoded):\n%s", filepath.Base(ex.file), ex.typ, d)
	}
}

func TestOfficialExamplesRoundTrip(t *testing.T) {
	docs := sharedref.Dir(t, "reference", "acp", "examples", "docs-v1")
	golden := sharedref.Dir(t, "reference", "acp", "examples", "gosdk-golden")
	exs := append(docExamples(t, docs), goldenExamples(t, golden)...)
	if len(exs) < 80 {
		t.Fatalf("found %d examples with a verdict, want at least 80: has the layout of ../shared changed?", len(exs))
	}
	invalid := 0
	for _, ex := range exs {
		if !ex.valid {
			invalid++
		}
	}
	if invalid == 0 {
		t.Fatal("no example that the official schema rejects: the negative half of the test would not run")
	}
	for _, pkg := range []struct {
		name   string
		lookup func(string) (wire.Codec, bool)
	}{{"v1", acpv1.Lookup}, {"v1-unstable", acpv1unstable.Lookup}} {
		t.Run(pkg.name, func(t *testing.T) {
			for _, ex := range exs {
				t.Run(filepath.Base(ex.file), func(t *testing.T) { roundTrip(t, pkg.lookup, ex) })
			}
		})
	}
}

// TestUnknownVariantKeptByteForByte: a sessionUpdate this version does not
// know decodes to the Unknown variant and encodes back unchanged.
func TestUnknownVariantKeptByteForByte(t *testing.T) {
	in := []byte(`{"sessionId":"s1","update":{"sessionUpdate":"brand_new_thing","x":[1,2.50,{"y":null}],"_meta":{"k":"v"}}}`)
	var n acpv1.SessionNotification
	if err := wire.Unmarshal(in, &n); err != nil {
		t.Fatal(err)
	}
	u, ok := n.Update.(*acpv1.UnknownSessionUpdate)
	if !ok {
		t.Fatalf("update decoded as %T, want *UnknownSessionUpdate", n.Update)
	}
	if u.Tag != "brand_new_thing" {
		t.Errorf("tag %q", u.Tag)
	}
	out, err := wire.Marshal(&n)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(in) {
		t.Errorf("re-encoded\n%s\nwant\n%s", out, in)
	}
	if err := n.Validate(); err == nil || !strings.Contains(err.Error(), "/update/sessionUpdate") {
		t.Errorf("Validate = %v, want an error at /update/sessionUpdate (v1's SessionUpdate is closed)", err)
	}
}

// TestV2Compiles keeps the v2 package referenced so that it is compiled and
// vetted with the tests; its examples are v1-only.
func TestV2Compiles(t *testing.T) {
	if _, ok := acpv2.Lookup("#/$defs/SessionUpdate"); !ok {
		t.Fatal("v2 has no SessionUpdate")
	}
}

// TestRawUnionAccessors: the official schema's request params cannot be
// decided from the JSON alone (several methods take the same members), so
// with no flags they are raw JSON with an accessor per alternative, and the
// request's method picks the alternative.
func TestRawUnionAccessors(t *testing.T) {
	in := []byte(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}`)
	var req acpv1.ClientRequest
	if err := wire.Unmarshal(in, &req); err != nil {
		t.Fatal(err)
	}
	v, err := req.Params.DecodeMethod(req.Method)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := v.(acpv1.PromptRequest)
	if !ok {
		t.Fatalf("DecodeMethod(%q) gave %T, want PromptRequest", req.Method, v)
	}
	if p.SessionID != "s1" || len(p.Prompt) != 1 {
		t.Errorf("decoded %+v", p)
	}
	if _, err := req.Params.DecodeMethod("no/such/method"); err == nil || !strings.Contains(err.Error(), `"no/such/method"`) {
		t.Errorf("an unknown method: %v, want an error naming it", err)
	}
	if _, err := req.Params.AsInitializeRequest(); err == nil {
		t.Error("prompt params decoded as initialize params (protocolVersion is required)")
	}
	// From replaces the bytes with the alternative's encoding, and the
	// request re-encodes with them.
	if err := req.Params.FromSetSessionModeRequest(acpv1.SetSessionModeRequest{SessionID: "s2", ModeID: "ask"}); err != nil {
		t.Fatal(err)
	}
	req.Method = "session/set_mode"
	out, err := wire.Marshal(&req)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":1,"method":"session/set_mode","params":{"sessionId":"s2","modeId":"ask"},"jsonrpc":"2.0"}`; !jsonEqual(t, out, []byte(want)) {
		t.Errorf("re-encoded %s, want %s", out, want)
	}
}

// TestRootWithoutFlags: the protocol-wide root anyOf is a type of its own
// without -defs-only, and a message decodes through it.
func TestRootWithoutFlags(t *testing.T) {
	for _, lookup := range []func(string) (wire.Codec, bool){acpv1.Lookup, acpv1unstable.Lookup, acpv2.Lookup, acpv2unstable.Lookup} {
		c, ok := lookup("#")
		if !ok {
			t.Fatal("no type for the schema's root")
		}
		if _, err := c.DecodeBytes([]byte(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`)); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return cmp.Equal(x, y)
}
