package rpc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/gen/model"
)

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{
		"session/request_permission": "SessionRequestPermission",
		"$/cancel_request":           "CancelRequest",
		"initialize":                 "Initialize",
		"fs/read_text_file":          "FsReadTextFile",
		"2fa/check":                  "M2faCheck",
		"$/":                         "",
	} {
		if got := goName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReadTableRejects(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ table, want string }{
		{`{"methods":[]}`, "no methods"},
		{`{"methods":[{"method":"a","kind":"call","handler":"x","params":"p.json"}]}`, `kind is "call"`},
		{`{"methods":[{"method":"a","kind":"request","handler":"x","params":"p.json"}]}`, "needs a result schema"},
		{`{"methods":[{"method":"a","kind":"notification","handler":"x"}]}`, "no params schema"},
		{`{"methods":[{"method":"a","kind":"notification","handler":"","params":"p.json"}]}`, "no handler"},
		{`{"methods":[{"method":"a","kind":"notification","handler":"x","params":"p.json","effects":{"starts_turn":"/result/x"}}]}`, "not a member of the params"},
		{`{"methods":`, "unexpected end"},
	} {
		path := filepath.Join(dir, "t.json")
		if err := os.WriteFile(path, []byte(tc.table), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadTable(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.table, err, tc.want)
		}
	}
}

func TestRenderNeedsTwoSides(t *testing.T) {
	st := &model.Type{Name: "P", Kind: model.Struct, Struct: &model.StructType{}}
	tbl := &Table{Methods: []*Method{
		{Method: "a", Kind: KindNotification, Handler: "server", Params: "p.json"},
		{Method: "b", Kind: KindNotification, Handler: "both", Params: "p.json"},
	}}
	_, err := Render(tbl, Config{Package: "x", TypesPath: "example.com/t", Type: func(string) (*model.Type, error) { return st, nil }})
	if err == nil || !strings.Contains(err.Error(), "1 sides") {
		t.Errorf("Render = %v, want a complaint about sides", err)
	}
	tbl.Methods = append(tbl.Methods, &Method{Method: "A", Kind: KindNotification, Handler: "client", Params: "p.json"})
	_, err = Render(tbl, Config{Package: "x", TypesPath: "example.com/t", Type: func(string) (*model.Type, error) { return st, nil }})
	if err == nil || !strings.Contains(err.Error(), "would both be A") {
		t.Errorf("Render = %v, want a name clash", err)
	}
}
