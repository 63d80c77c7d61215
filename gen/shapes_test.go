package gen_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentproto/agentproto/gen"
)

// lintConfig is a linter's config schema of n rules in the way biome's is
// written: each rule a severity string or an object with the severity and
// options of its own, none described.
func lintConfig(n int) []byte {
	defs := map[string]any{
		"Level": map[string]any{"type": "string", "enum": []string{"off", "warn", "error"}},
	}
	rules := map[string]any{}
	for i := range n {
		opts := fmt.Sprintf("Rule%dOptions", i)
		defs[opts] = map[string]any{"type": "object", "properties": map[string]any{"strict": map[string]any{"type": "boolean"}}, "additionalProperties": false}
		conf := fmt.Sprintf("Rule%dConfiguration", i)
		defs[conf] = map[string]any{"anyOf": []any{
			map[string]any{"$ref": "#/$defs/Level"},
			map[string]any{"type": "object", "properties": map[string]any{
				"level":   map[string]any{"$ref": "#/$defs/Level"},
				"options": map[string]any{"$ref": "#/$defs/" + opts},
			}, "required": []string{"level"}, "additionalProperties": false},
		}}
		rules[fmt.Sprintf("rule%d", i)] = map[string]any{"$ref": "#/$defs/" + conf}
	}
	b, _ := json.Marshal(map[string]any{"$id": "https://example.test/lint.json", "type": "object", "properties": rules, "$defs": defs})
	return b
}

// TestRepeatedShapesCostAName: a shape repeated for every rule of a config
// schema is emitted once; each further rule costs its names and its member
// of the config, not a copy of the code. Without sharing, a rule cost
// about 10 KB of generated code (a union, two structs and their codecs,
// checks and Lookup cases), and biome's config of 3,549 such names took
// 4.45 GB to compile.
func TestRepeatedShapesCostAName(t *testing.T) {
	dir := t.TempDir()
	size := func(n int) int {
		p := filepath.Join(dir, fmt.Sprintf("lint%d.json", n))
		if err := os.WriteFile(p, lintConfig(n), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := gen.Generate(gen.Config{Inputs: []string{p}, Package: "lint"})
		if err != nil {
			t.Fatal(err)
		}
		return len(out)
	}
	small, large := size(50), size(250)
	per := (large - small) / 200
	t.Logf("%d bytes for 50 rules, %d for 250: %d bytes per rule", small, large, per)
	if per > 2500 {
		t.Errorf("each rule adds %d bytes of generated code, want at most 2,500: its shape is copied", per)
	}
}
