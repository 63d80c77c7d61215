package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A downstream protocol's own method table gets a typed connection too.
func TestRPCOfAToyTable(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"ping.params.json": `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://example.test/toy/ping.params.json","title":"PingRequest","type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`,
		"ping.result.json": `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://example.test/toy/ping.result.json","title":"PingResponse","type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`,
		"log.params.json":  `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://example.test/toy/log.params.json","title":"LogNotification","type":"object","properties":{"line":{"type":"string"}},"required":["line"]}`,
		"table/dispatch.json": `{"methods":[
			{"method":"ping","kind":"request","handler":"server","params":"../ping.params.json","result":"../ping.result.json"},
			{"method":"log/line","kind":"notification","handler":"client","params":"../log.params.json"}]}`,
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	schemas := []string{filepath.Join(dir, "ping.params.json"), filepath.Join(dir, "ping.result.json"), filepath.Join(dir, "log.params.json")}
	code, out, stderr := runCLI(append([]string{"-pkg", "toyrpc", "-rpc", filepath.Join(dir, "table", "dispatch.json"), "-rpc-types", "example.test/toy"}, schemas...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "toyrpc_gen.go", out, 0); err != nil {
		t.Fatalf("the output does not parse: %v\n%s", err, out)
	}
	for _, want := range []string{
		"type Server interface",
		"Ping(ctx context.Context, params *toy.PingRequest) (*toy.PingResponse, error)",
		"func (s *ClientSide) Ping(ctx context.Context, params *toy.PingRequest) (*toy.PingResponse, error)",
		"func (s *ServerSide) LogLine(ctx context.Context, params *toy.LogNotification) error",
		"type UnimplementedClient struct",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	if code, _, stderr := runCLI("-pkg", "toyrpc", "-rpc", filepath.Join(dir, "table", "dispatch.json"), schemas[0]); code != 2 || !strings.Contains(stderr, "-rpc-types") {
		t.Errorf("-rpc without -rpc-types: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI("-pkg", "toyrpc", "-rpc", filepath.Join(dir, "table", "dispatch.json"), "-rpc-types", "example.test/toy", schemas[0]); code != 2 || !strings.Contains(stderr, "not among the schemas given") {
		t.Errorf("a table row whose schema is not an input: exit %d, %s", code, stderr)
	}
}
