package acp_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"path"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentproto/agentproto/pkg/acp"
	"github.com/agentproto/agentproto/pkg/acp/unstable"
	acpv2 "github.com/agentproto/agentproto/pkg/acp/v2"
	"github.com/agentproto/agentproto/pkg/wire"
	"github.com/agentproto/agentproto/schema"
)

// TestSchemaExamplesRoundTrip: every example in the method files of each
// ACP schema version decodes into the type generated for it (packages acp,
// acp/unstable and acp/v2), validates, and encodes back to the same JSON.
func TestSchemaExamplesRoundTrip(t *testing.T) {
	for _, v := range []struct {
		dir    string
		lookup func(string) (wire.Codec, bool)
	}{{"acp/v1", acp.Lookup}, {"acp/v1-unstable", unstable.Lookup}, {"acp/v2", acpv2.Lookup}} {
		t.Run(v.dir, func(t *testing.T) { roundTripExamples(t, v.dir, v.lookup) })
	}
}

func roundTripExamples(t *testing.T, dir string, lookup func(string) (wire.Codec, bool)) {
	files, err := fs.Glob(schema.Files, dir+"/*.json")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if schema.IsData(path.Base(f)) || path.Base(f) == "common.json" {
			continue
		}
		data, _ := schema.Files.ReadFile(f)
		var doc struct {
			Examples []json.RawMessage `json:"examples"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		codec, ok := lookup(schema.IDPrefix + f + "#")
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
