package registry_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentproto/agentproto/schema"
	"github.com/agentproto/agentproto/schema/registry"
)

func TestEmbedded(t *testing.T) {
	// Load checks every table at once; Embedded reads the same tables
	// protocol by protocol, when first asked for.
	if _, err := registry.Load(schema.Files, schema.IDPrefix); err != nil {
		t.Fatal(err)
	}
	r, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	for _, p := range registry.Protocols() {
		d := r.Default(p)
		if d == nil {
			t.Fatalf("%s: no default version", p)
		}
		if !d.Stable {
			t.Errorf("%s: the default version %s is not stable", p, d.Name)
		}
	}
	v1 := r.Lookup("acp", "v1")
	if v1 == nil || v1.ACP() == nil || v1.ACP().Initialize() == nil {
		t.Fatal("acp v1 has no initialize method in its table")
	}
	if got := r.ByWireVersion("acp", 1); got != v1 {
		t.Errorf("ByWireVersion(acp, 1) = %v, want the stable v1", got)
	}
	if got := r.ByWireVersion("acp", 2); got == nil || got.Name != "v2" {
		t.Errorf("ByWireVersion(acp, 2) = %v, want v2", got)
	}
	if got := r.ForID(schema.IDPrefix + "acp/v1-unstable/common.json#/$defs/X"); got == nil || got.Name != "v1-unstable" {
		t.Errorf("ForID picks %v for a v1-unstable $id", got)
	}
	if got := r.Extensions(v1); len(got) != 1 || got[0].Name != "v1-unstable" {
		t.Errorf("Extensions(v1) = %v", got)
	}
	arcp := r.DialectNames("arcp")
	for _, want := range []string{"v1.1", "rust-sdk", "canonical", "go-sdk"} {
		if !contains(arcp, want) {
			t.Errorf("DialectNames(arcp) = %v lacks %s", arcp, want)
		}
	}
	// Every package is distinct, and so is every folder.
	pkgs, folders := map[string]bool{}, map[string]bool{}
	for _, v := range r.Versions("") {
		if pkgs[v.Package] || folders[v.Folder] {
			t.Errorf("%s: package or folder used twice", v)
		}
		pkgs[v.Package], folders[v.Folder] = true, true
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A table with a misspelt effect, an unknown kind or a missing file is an
// error that names the place, not a rule that silently never applies.
func TestLoadRejects(t *testing.T) {
	base := `{"versions":[{"protocol":"acp","name":"v1","folder":"acp/v1","package":"p","title":"T","stable":true,"default":true}]}`
	good := `{"protocol":"acp","version":"v1","envelope":"e.json","methods":[{"method":"a","kind":"request","handler":"agent","params":"a.json","effects":{"session":"/params/sessionId"}}]}`
	cases := map[string]struct{ versions, dispatch, want string }{
		"ok":                             {base, good, ""},
		"misspelt effect":                {base, strings.Replace(good, `"session"`, `"sesion"`, 1), `unknown field "sesion"`},
		"bad kind":                       {base, strings.Replace(good, `"request"`, `"call"`, 1), `kind "call"`},
		"missing file":                   {base, strings.Replace(good, `"a.json"`, `"b.json"`, 1), "b.json, which is not in the folder"},
		"result pointer on notification": {base, strings.Replace(strings.Replace(good, `"request"`, `"notification"`, 1), `/params/sessionId`, `/result/sessionId`, 1), "a notification has no result"},
		"two defaults":                   {strings.Replace(base, `]}`, `,{"protocol":"acp","name":"v2","folder":"acp/v1","package":"q","title":"U","default":true}]}`, 1), good, "2 default versions"},
		"wrong version":                  {base, strings.Replace(good, `"version":"v1"`, `"version":"v9"`, 1), `version "v9"`},
		"head last":                      {base, `{"envelope":"e.json","methods":[{"method":"a","kind":"request","handler":"agent","params":"a.json"}],"protocol":"acp","version":"v1"}`, ""},
		"wrong version last":             {base, `{"envelope":"e.json","methods":[],"protocol":"acp","version":"v9"}`, `version "v9"`},
		"not an object":                  {base, `["acp"]`, "not a JSON object"},
		"broken after the head":          {base, strings.Replace(good, `"methods":[`, `"methods":[,`, 1), "dispatch.json: invalid character"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			fsys := fstest.MapFS{
				"versions.json":        {Data: []byte(c.versions)},
				"acp/v1/dispatch.json": {Data: []byte(c.dispatch)},
				"acp/v1/e.json":        {Data: []byte(`{}`)},
				"acp/v1/a.json":        {Data: []byte(`{}`)},
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
