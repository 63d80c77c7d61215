package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCasesFile: the cases of a valid and an invalid ACP trace carry the
// schema $id, the value and the Go verdict, with invalid verdicts exactly
// where the invalid trace has schema findings.
func TestCasesFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cases.jsonl")
	n, err := run(out, []string{"../../fixtures/acp/valid/01-code-review.jsonl", "../../fixtures/acp/invalid/02-request-schema.jsonl"})
	if err != nil || n == 0 {
		t.Fatalf("%d cases, %v", n, err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	invalidIn := map[string]bool{}
	for sc.Scan() {
		var c jsonCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		// A v1 trace is checked against v1's schemas, and a value that
		// fails them against v1's unstable additions too.
		if !strings.HasPrefix(c.Schema, "https://agentproto.dev/schema/acp/v1/") && !strings.HasPrefix(c.Schema, "https://agentproto.dev/schema/acp/v1-unstable/") || c.Where == "" {
			t.Errorf("case %+v", c)
		}
		if !c.Valid && strings.HasPrefix(c.Schema, "https://agentproto.dev/schema/acp/v1/") {
			invalidIn[filepath.Base(strings.Split(c.Where, ":")[0])] = true
		}
	}
	if invalidIn["01-code-review.jsonl"] || !invalidIn["02-request-schema.jsonl"] {
		t.Errorf("invalid verdicts in %v, want only the invalid trace", invalidIn)
	}
}
