package unstable_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentproto/agentproto/pkg/acp/unstable"
	"github.com/agentproto/agentproto/schema"
)

// TestSchemaExamplesRoundTrip: every example in the v1-unstable schema
// files decodes into its generated type, validates, and encodes back to the
// same JSON.
func TestSchemaExamplesRoundTrip(t *testing.T) {
	files, err := fs.Glob(schema.Files, "acp/v1-unstable/*.json")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if path.Base(f) == "dispatch.json" || path.Base(f) == "common.json" || strings.HasSuffix(f, ".bundle.json") {
			continue
		}
		data, _ := schema.Files.ReadFile(f)
		var doc struct {
			Examples []json.RawMessage `json:"examples"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		codec, ok := unstable.Lookup(schema.IDPrefix + f + "#")
		if !ok {
			t.Fatalf("no generated type for %s", f)
		}
		for i, ex := range doc.Examples {
			v, err := codec.DecodeBytes(ex)
			if err == nil {
				err = codec.Validate(v)
			}
			if err != nil {
				t.Errorf("%s example %d: %v", f, i, err)
				continue
			}
			out, err := codec.EncodeBytes(v)
			if err != nil {
				t.Fatal(err)
			}
			var a, b any
			json.Unmarshal(ex, &a)
			if err := json.NewDecoder(bytes.NewReader(out)).Decode(&b); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(a, b); d != "" {
				t.Errorf("%s example %d (-sent +re-encoded):\n%s", f, i, d)
			}
			n++
		}
	}
	if n < 20 {
		t.Errorf("only %d examples", n)
	}
}
