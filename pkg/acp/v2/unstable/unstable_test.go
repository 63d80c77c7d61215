package unstable_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentproto/agentproto/pkg/acp/v2/unstable"
	"github.com/agentproto/agentproto/pkg/wire"
	"github.com/agentproto/agentproto/schema"
)

const folder = "acp/v2-unstable"

// roundTrip decodes data with the codec, validates it and encodes it again,
// and reports any difference from the input.
func roundTrip(t *testing.T, name string, codec wire.Codec, data []byte) {
	t.Helper()
	v, err := codec.DecodeBytes(data)
	if err == nil {
		err = codec.Validate(v)
	}
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	out, err := codec.EncodeBytes(v)
	if err != nil {
		t.Fatalf("%s: encoding: %v", name, err)
	}
	var a, b any
	if err := json.Unmarshal(data, &a); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := json.Unmarshal(out, &b); err != nil {
		t.Fatalf("%s: re-encoded JSON: %v", name, err)
	}
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("%s (-sent +re-encoded):\n%s", name, d)
	}
}

// Every example of the folder's method files decodes into its generated
// type, validates and encodes back to the same JSON.
func TestExamplesRoundTrip(t *testing.T) {
	files, err := fs.Glob(schema.Files, folder+"/*.json")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if base := path.Base(f); schema.IsData(base) || base == "common.json" {
			continue
		}
		data, err := schema.Files.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Examples []json.RawMessage `json:"examples"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		codec, ok := unstable.Lookup(schema.IDPrefix + f + "#")
		if !ok {
			t.Fatalf("no generated type for %s", f)
		}
		for _, ex := range doc.Examples {
			roundTrip(t, f, codec, ex)
			n++
		}
	}
	if n < 30 {
		t.Errorf("only %d examples", n)
	}
}

// The params and results of the official SDK's recorded unstable v2
// traffic whose schema is one of this folder's decode into the generated
// types, validate, and encode back to the same JSON.
func TestSDKTrafficRoundTrip(t *testing.T) {
	var table struct {
		Methods []struct {
			Method, Kind, Params, Result string
		}
	}
	data, err := schema.Files.ReadFile(folder + "/" + schema.DispatchTable)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	codecFor := func(file string) (wire.Codec, bool) {
		if file == "" || strings.Contains(file, "/") {
			return wire.Codec{}, false // v2's own file, tested with package v2
		}
		c, ok := unstable.Lookup(schema.IDPrefix + folder + "/" + file + "#")
		if !ok {
			t.Fatalf("no generated type for %s", file)
		}
		return c, true
	}
	traces, err := filepath.Glob("../../../../fixtures/acp/sdk/v2-unstable/*.jsonl")
	if err != nil || len(traces) == 0 {
		t.Fatalf("no recorded traces (%v)", err)
	}
	n := 0
	for _, trace := range traces {
		dirs, err := os.ReadFile(strings.TrimSuffix(trace, ".jsonl") + ".dir")
		if err != nil {
			t.Fatal(err)
		}
		dir := strings.Fields(string(dirs))
		f, err := os.Open(trace)
		if err != nil {
			t.Fatal(err)
		}
		pending := map[string]string{}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for i := 0; sc.Scan(); i++ {
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
				t.Fatalf("%s:%d: %v", trace, i+1, err)
			}
			name := fmt.Sprintf("%s:%d", filepath.Base(trace), i+1)
			var file string
			var body []byte
			switch {
			case msg.Method != "":
				kind := "notification"
				if msg.ID != nil {
					kind = "request"
					pending[dir[i]+" "+string(msg.ID)] = msg.Method
				}
				for _, e := range table.Methods {
					if e.Method == msg.Method && e.Kind == kind {
						file, body = e.Params, msg.Params
					}
				}
			case msg.Result != nil:
				other := map[string]string{"c2a": "a2c", "a2c": "c2a"}[dir[i]]
				method := pending[other+" "+string(msg.ID)]
				for _, e := range table.Methods {
					if e.Method == method && e.Kind == "request" {
						file, body = e.Result, msg.Result
					}
				}
			}
			if c, ok := codecFor(file); ok && body != nil {
				roundTrip(t, name, c, body)
				n++
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n < 100 {
		t.Errorf("only %d messages of this folder's types in the recorded traffic", n)
	}
	t.Logf("%d recorded messages round-trip", n)
}
