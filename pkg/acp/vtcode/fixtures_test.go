package vtcode_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentproto/agentproto/pkg/acp/vtcode"
	"github.com/agentproto/agentproto/pkg/wire"
)

// TestFixturesRoundTrip: every stream update and tool result of the valid
// VT Code traces decodes into its generated type, validates and encodes
// back to the same JSON; every JSON-RPC line decodes as an envelope.
func TestFixturesRoundTrip(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "fixtures", "acp-vtcode", "valid", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	updates := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for n := 1; sc.Scan(); n++ {
			line := sc.Bytes()
			var keys map[string]json.RawMessage
			if err := json.Unmarshal(line, &keys); err != nil {
				t.Fatal(err)
			}
			var out []byte
			switch {
			case keys["jsonrpc"] != nil:
				v, err := vtcode.UnmarshalEnvelope(line)
				if err != nil {
					t.Fatalf("%s:%d: %v", filepath.Base(f), n, err)
				}
				out, err = vtcode.MarshalEnvelope(v)
				if err != nil {
					t.Fatal(err)
				}
			case keys["update_type"] != nil:
				v, err := vtcode.UnmarshalSessionUpdateNotification(line)
				if err == nil {
					err = vtcode.ValidateSessionUpdateNotification(v)
				}
				if err != nil {
					t.Fatalf("%s:%d: %v", filepath.Base(f), n, err)
				}
				if _, unknown := v.(*vtcode.UnknownSessionUpdateNotification); unknown {
					t.Errorf("%s:%d: a known update decoded as unknown", filepath.Base(f), n)
				}
				updates++
				out, _ = vtcode.MarshalSessionUpdateNotification(v)
			default:
				var r vtcode.ToolExecutionResult
				if err := wire.Unmarshal(line, &r); err != nil {
					t.Fatalf("%s:%d: %v", filepath.Base(f), n, err)
				}
				out, _ = wire.Marshal(&r)
			}
			var a, b any
			json.Unmarshal(line, &a)
			if err := json.Unmarshal(out, &b); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(a, b); d != "" {
				t.Errorf("%s:%d (-sent +re-encoded):\n%s", filepath.Base(f), n, d)
			}
		}
	}
	if updates < 6 {
		t.Errorf("only %d stream updates", updates)
	}
}
