// The ACP v1 dispatch table: every method with its files, side and
// capability, as the official method table (meta.json) has them.

package schema_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/sharedref"
	"github.com/agentproto/agentproto/schema"
)

type acpDispatch struct {
	Protocol string `json:"protocol"`
	Version  string `json:"version"`
	Envelope string `json:"envelope"`
	// Where messages keep W3C trace context and each side its
	// capabilities: read by the validator, not checked here.
	Trace        json.RawMessage `json:"trace"`
	Capabilities json.RawMessage `json:"capabilities"`
	Methods      []acpDispEntry  `json:"methods"`
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
