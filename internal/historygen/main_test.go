package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/sharedref"
)

// TestTablesAreFresh: the committed history tables are what the release
// history in the reference material gives (make check proves the same
// through go generate).
func TestTablesAreFresh(t *testing.T) {
	releases := sharedref.Dir(t, "reference", "acp", "history", "releases.json")
	dir := filepath.Join("..", "..", "schema")
	out, _, err := generate(releases, dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range out {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("schema/%s is stale: run go generate ./schema", name)
		}
	}
}

// TestRetiredItemsFindTheirPlaces: the items the history is for are keyed
// where the validator looks them up: a renamed type's member under
// today's type, a retired variant's member under its union with its tag,
// a retired method with what replaced it.
func TestRetiredItemsFindTheirPlaces(t *testing.T) {
	releases := sharedref.Dir(t, "reference", "acp", "history", "releases.json")
	out, _, err := generate(releases, filepath.Join("..", "..", "schema"))
	if err != nil {
		t.Fatal(err)
	}
	v1 := string(out[filepath.Join("acp", "v1", "history.json")])
	for _, want := range []string{
		`{"type":"session.new.result.json","member":"models","first":"v0.4.1","firstDate":"2025-09-22","last":"v0.13.4","lastDate":"2026-05-27","successor":"session config options of category`,
		`{"type":"common.json#/$defs/AuthMethod","member":"vars","when":["type","env_var"],"first":"v0.11.0"`,
		`{"method":"session/set_model","side":"agent","first":"v0.4.1"`,
		`{"type":"session.prompt.result.json","member":"userMessageId","first":"v0.11.0"`,
	} {
		if !strings.Contains(v1, want) {
			t.Errorf("acp/v1/history.json lacks %s", want)
		}
	}
	// Only retired items: today's models of session/new is no entry of
	// the v2 table (v2 never had it), and no current member is listed.
	if strings.Contains(v1, `"member":"configOptions"`) {
		t.Error("a current member is listed as retired")
	}
}

func TestCamelAndCanonical(t *testing.T) {
	for in, want := range map[string]string{"env_var": "EnvVar", "terminal": "Terminal", "a-b_c": "ABC"} {
		if got := camel(in); got != want {
			t.Errorf("camel(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"NewSessionOutput": "NewSessionResponse", "LoadSessionArguments": "LoadSessionRequest", "PromptRequest": "PromptRequest"} {
		if got := canonical(in); got != want {
			t.Errorf("canonical(%q) = %q, want %q", in, got, want)
		}
	}
}
