package validate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOfficialACPSDKTraffic runs the traffic recorded from the official ACP
// SDK (fixtures/acp/sdk: the stable, unstable, v2 and v2 unstable
// entrypoints) with no options, as a user's CI would: not one error, with
// or without the direction sidecars, and each trace read as the version its
// initialize names.
func TestOfficialACPSDKTraffic(t *testing.T) {
	e := testEngine(t)
	want := map[string]string{"v1": "v1", "v1-unstable": "v1", "v2": "v2", "v2-unstable": "v2"}
	files, _ := filepath.Glob(filepath.Join(fixturesDir, "acp", "sdk", "*", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no recorded SDK traffic under fixtures/acp/sdk")
	}
	for _, p := range files {
		ep := filepath.Base(filepath.Dir(p))
		for _, withDir := range []bool{true, false} {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			var fo FileOptions
			if withDir {
				d, err := os.Open(sidecar(p, ".dir"))
				if err != nil {
					t.Fatal(err)
				}
				fo.Directions = d
				defer d.Close()
			}
			sum, err := e.Check(context.Background(), p, f, fo, func(fd Finding) {
				if fd.Severity == Error {
					t.Errorf("sidecar %v: %s", withDir, fd)
				}
			})
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			if d := sum.Detected[0]; d.Protocol != "acp" || d.Dialect != want[ep] || !strings.Contains(d.Note, "initialize response protocolVersion") {
				t.Errorf("%s: read as %s %s (%s), want acp %s from its initialize", p, d.Protocol, d.Dialect, d.Note, want[ep])
			}
		}
	}
}
