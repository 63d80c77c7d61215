package registry_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentproto/agentproto/schema/registry"
)

// Every built-in protocol is described in versions.json, not left to the
// defaults: the tap, the engine and the report take its sides, sidecar
// tokens and lanes from there.
func TestEmbeddedProtocolFacts(t *testing.T) {
	reg, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		sides, lanes [2]string
		dirs         []string
		marks        string
		oneWay       bool
	}{
		"acp":   {[2]string{"client", "agent"}, [2]string{"client", "agent"}, []string{"c2a", "a2c"}, `"jsonrpc"`, false},
		"arcp":  {[2]string{"client", "runtime"}, [2]string{"client", "runtime"}, []string{"c2r", "r2c"}, `"arcp" and "type"`, false},
		"arcan": {[2]string{"client", "agent"}, [2]string{"consumer", "agent loop"}, nil, `"part_type"`, true},
	}
	for _, name := range reg.Protocols() {
		p, w := reg.Protocol(name), want[name]
		if p.Sides != w.sides || p.Lanes != w.lanes || strings.Join(p.Directions, ",") != strings.Join(w.dirs, ",") || p.MarksText() != w.marks || p.OneWay != w.oneWay {
			t.Errorf("%s: %+v, want %+v", name, p, w)
		}
	}
	if len(want) != len(reg.Protocols()) {
		t.Errorf("protocols %v, want those of %v", reg.Protocols(), want)
	}
}

func TestProtocolSide(t *testing.T) {
	reg, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	arcp := reg.Protocol("arcp")
	for s, want := range map[string]int{"client": 0, "c2r": 0, "runtime": 1, "r2c": 1, "agent": -1, "c2a": -1, "": -1} {
		if got := arcp.Side(s); got != want {
			t.Errorf("arcp.Side(%q) = %d, want %d", s, got, want)
		}
	}
	if got := reg.Protocol("arcan").Side("a2c"); got != -1 {
		t.Errorf("arcan has no sidecar tokens, but Side(a2c) = %d", got)
	}
}

// A sidecar's tokens: the protocol's own; for an undecided trace, those of
// the protocol whose marks its first message carries (the one with more
// marks when several match); else ACP's, the first protocol with sidecars.
func TestSidecar(t *testing.T) {
	reg, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	members := func(ms ...string) func(string) bool {
		return func(m string) bool { return strings.Contains(" "+strings.Join(ms, " ")+" ", " "+m+" ") }
	}
	cases := []struct {
		name  string
		proto string
		has   func(string) bool
		want  [2]string
	}{
		{"acp", "acp", nil, [2]string{"c2a", "a2c"}},
		{"arcp", "arcp", nil, [2]string{"c2r", "r2c"}},
		{"arcan has none", "arcan", nil, [2]string{"c2a", "a2c"}},
		{"unknown", "toy", nil, [2]string{"c2a", "a2c"}},
		{"envelope", "", members("arcp", "type", "id"), [2]string{"c2r", "r2c"}},
		{"arcp without type", "", members("arcp", "id"), [2]string{"c2a", "a2c"}},
		{"json-rpc", "", members("jsonrpc", "id"), [2]string{"c2a", "a2c"}},
		{"both", "", members("jsonrpc", "arcp", "type"), [2]string{"c2r", "r2c"}},
		{"not an object", "", nil, [2]string{"c2a", "a2c"}},
	}
	for _, c := range cases {
		if got := reg.Sidecar(c.proto, c.has); got != c.want {
			t.Errorf("%s: Sidecar = %v, want %v", c.name, got, c.want)
		}
	}
}

// A protocol description that could not be used is an error naming it.
func TestLoadRejectsProtocols(t *testing.T) {
	versions := `{"protocols":[%s],"versions":[{"protocol":"acp","name":"v1","folder":"acp/v1","package":"p","title":"T","stable":true,"default":true}]}`
	good := `{"name":"acp","messages":"ACP messages","marks":["jsonrpc"],"sides":["client","agent"],"lanes":["client","agent"],"directions":["c2a","a2c"]}`
	cases := map[string]struct{ entry, want string }{
		"ok":              {good, ""},
		"unknown":         {strings.Replace(good, `"acp"`, `"acq"`, 1), `protocol "acq" is none of`},
		"twice":           {good + "," + good, "acp is described twice"},
		"no marks":        {strings.Replace(good, `["jsonrpc"]`, `[]`, 1), "needs messages and marks"},
		"one side":        {strings.Replace(good, `["client","agent"]`, `["client",""]`, 1), "two sides"},
		"same sides":      {strings.Replace(good, `"sides":["client","agent"]`, `"sides":["client","client"]`, 1), "two sides"},
		"one direction":   {strings.Replace(good, `["c2a","a2c"]`, `["c2a"]`, 1), "two different tokens"},
		"misspelt member": {strings.Replace(good, `"lanes"`, `"lane"`, 1), `unknown field "lane"`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			fsys := fstest.MapFS{
				"versions.json":        {Data: []byte(strings.Replace(versions, "%s", c.entry, 1))},
				"acp/v1/dispatch.json": {Data: []byte(`{"protocol":"acp","version":"v1","envelope":"e.json","methods":[]}`)},
				"acp/v1/e.json":        {Data: []byte(`{}`)},
			}
			_, err := registry.Load(fsys, "https://x/")
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}
