package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		glob, path string
		want       bool
	}{
		{"traces/legacy/**", "traces/legacy/a.jsonl", true},
		{"traces/legacy/**", "traces/legacy/x/y/a.jsonl", true},
		{"traces/legacy/**", "traces/new/a.jsonl", false},
		{"traces/*.jsonl", "traces/a.jsonl", true},
		{"traces/*.jsonl", "traces/sub/a.jsonl", false},
		{"**/old-*.jsonl", "old-1.jsonl", true},
		{"**/old-*.jsonl", "a/b/old-1.jsonl", true},
		{"*.old.jsonl", "deep/er/x.old.jsonl", true},
		{"*.old.jsonl", "x.new.jsonl", false},
		{"./traces/a.jsonl", "traces/a.jsonl", true},
	} {
		if got := Match(tc.glob, tc.path); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.glob, tc.path, got, tc.want)
		}
	}
}

// TestFindWalksUp: the nearest .agentproto.json above a folder is found,
// and For applies the overrides matching a file relative to it.
func TestFindWalksUp(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, FileName)
	if err := os.WriteFile(p, []byte(`{"warn":["unstable"],"overrides":[{"files":["a/**"],"disable":["schema"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Find(deep)
	if err != nil || got != p {
		t.Fatalf("Find = %q, %v; want %q", got, err, p)
	}
	c, err := Load(got)
	if err != nil {
		t.Fatal(err)
	}
	rc := c.For(filepath.Join(deep, "t.jsonl"))
	if strings.Join(rc.Disable, ",") != "schema" || strings.Join(rc.Warn, ",") != "unstable" {
		t.Fatalf("For = %+v", rc)
	}
	if rc := c.For(filepath.Join(root, "t.jsonl")); len(rc.Disable) != 0 {
		t.Fatalf("override applied outside its glob: %+v", rc)
	}
}

// TestParseRejects: the schema and the rule names are enforced, with the
// place named.
func TestParseRejects(t *testing.T) {
	for doc, want := range map[string]string{
		`[]`:                               "does not fit its schema: /",
		`{"disable":[1]}`:                  "/disable/0",
		`{"warn":["a","a"]}`:               "/warn",
		`{"overrides":[{"files":[]}]}`:     "/overrides/0/files",
		`{"overrides":[{"files":["[x"]}]}`: "bad glob",
		`{"overrides":[{"files":["x"],"warn":["seq-gapp"]}]}`: `did you mean "seq-gap"`,
		`{"disable":["io"]}`: "cannot be disabled",
	} {
		if _, err := Parse([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want an error with %q", doc, err, want)
		}
	}
}
