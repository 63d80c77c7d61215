//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestGenerationMemoryIsLinear: the peak memory of protogen grows with
// the schema by a small amount per type. A schema of many small $defs
// cost about 150 KB of peak memory per type (100,000 types: 12.5 GB),
// most of it every type's syntax trees alive at once and go/format
// parsing the whole output at once; each type is now rendered as it is
// built and formatted, and Lookup a run of cases at a time: about 15 KB.
// The bound is on what 6,000 more types add to the peak of a child
// process, so the fixed cost of the process does not count.
func TestGenerationMemoryIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("builds protogen and runs it on large schemas; skipped with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "protogen")
	if out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building protogen: %v\n%s", err, out)
	}
	peak := func(n int) int64 {
		defs := map[string]any{}
		for i := 0; i < n; i++ {
			defs[fmt.Sprintf("T%d", i)] = map[string]any{"type": "object", "description": "t", "properties": map[string]any{"a": map[string]any{"type": "string"}}}
		}
		b, _ := json.Marshal(map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://example.com/big.json", "$defs": defs})
		in := filepath.Join(dir, fmt.Sprintf("s%d.json", n))
		if err := os.WriteFile(in, b, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "-pkg", "big", "-defs-only", "-o", filepath.Join(dir, "out.go"), in)
		cmd.Env = append(os.Environ(), "GOGC=100", "GOMEMLIMIT=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("protogen on %d defs: %v\n%s", n, err, out)
		}
		return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	}
	small, large := peak(2000), peak(8000)
	perType := (large - small) / 6000
	t.Logf("peak %d MiB for 2,000 types, %d MiB for 8,000: %d KiB per type", small>>20, large>>20, perType>>10)
	if perType > 40<<10 {
		t.Errorf("each type adds %d KiB to the peak memory, want at most 40 KiB", perType>>10)
	}
}
