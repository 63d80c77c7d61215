package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/textsafe"
)

// TestWarningsAreInert: warnings quote schema text (names, pointers); an
// escape sequence, a bell, a bidirectional control or a line break in it
// is shown escaped, so no schema can drive the terminal or start a CI
// workflow command (::error) on a line of its own.
func TestWarningsAreInert(t *testing.T) {
	p := filepath.Join(t.TempDir(), "warn.json")
	schema := `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://example.com/warn.json",
"$defs":{"W\u001b]0;x\u0007":{"type":"object","properties":{
"e\u001b[31m\n::error file=a::forged \u202e":{"type":"array","contains":{"type":"string"},"minContains":2},
"o":{"oneOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"string"}}}]}}}}}`
	if err := os.WriteFile(p, []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-pkg", "w", "-defs-only", p}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "warning") {
		t.Fatalf("no warning: %q", stderr.String())
	}
	for _, line := range strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n") {
		if !strings.HasPrefix(line, "protogen: ") {
			t.Errorf("a line of stderr does not start with protogen: %q", line)
		}
		for _, r := range line {
			if r != '\t' && textsafe.Unsafe(r) {
				t.Errorf("stderr holds %U raw: %q", r, line)
			}
		}
	}
	if !strings.Contains(stderr.String(), `e\x1b[31m\n::error`) {
		t.Errorf("the member name is not shown escaped: %q", stderr.String())
	}
}
