package acp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentproto/agentproto/internal/expect"
	"github.com/agentproto/agentproto/pkg/acp"
)

// line is one message of a fixture trace with its direction.
type line struct {
	n    int
	data []byte
	dir  string // c2a or a2c
}

func readTrace(t *testing.T, path string) []line {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := os.ReadFile(strings.TrimSuffix(path, ".jsonl") + ".dir")
	if err != nil {
		t.Fatal(err)
	}
	dl := strings.Fields(string(dirs))
	var out []line
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for i := 0; sc.Scan(); i++ {
		if i >= len(dl) {
			t.Fatalf("%s: more lines than directions", path)
		}
		out = append(out, line{n: i + 1, data: append([]byte(nil), sc.Bytes()...), dir: dl[i]})
	}
	return out
}

func sameJSON(t *testing.T, where string, want, got []byte) {
	t.Helper()
	var a, b any
	da := json.NewDecoder(bytes.NewReader(want))
	da.UseNumber()
	db := json.NewDecoder(bytes.NewReader(got))
	db.UseNumber()
	if err := da.Decode(&a); err != nil {
		t.Fatalf("%s: input: %v", where, err)
	}
	if err := db.Decode(&b); err != nil {
		t.Fatalf("%s: re-encoded %s: %v", where, got, err)
	}
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("%s: not the same JSON after decode and encode (-sent +re-encoded):\n%s", where, d)
	}
}

func opposite(dir string) string {
	if dir == "c2a" {
		return "a2c"
	}
	return "c2a"
}

// TestFixturesRoundTrip: every line of every valid and extension trace
// decodes into pkg/acp (the envelope, and params or result into the type of
// their method) and encodes back to the same JSON; the valid traces also
// pass Validate.
func TestFixturesRoundTrip(t *testing.T) {
	for _, dir := range []string{"valid", "extensions"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "acp", dir, "*.jsonl"))
		if len(files) == 0 {
			t.Fatalf("no fixtures in fixtures/acp/%s", dir)
		}
		for _, f := range files {
			t.Run(dir+"/"+filepath.Base(f), func(t *testing.T) {
				pending := map[string]string{} // direction + id → method
				rejected := schemaFindings(t, f)
				typed := 0
				for _, l := range readTrace(t, f) {
					where := filepath.Base(f) + ":" + itoa(l.n)
					m, err := acp.DecodeMessage(l.data)
					if err != nil {
						t.Fatalf("%s: %v", where, err)
					}
					out, err := json.Marshal(m)
					if err != nil {
						t.Fatal(err)
					}
					sameJSON(t, where, l.data, out)
					var method string
					var part []byte
					result := false
					switch {
					case m.Request != nil:
						id, _ := json.Marshal(idValue(m.Request.ID))
						pending[l.dir+string(id)] = m.Request.Method
						method, part = m.Request.Method, m.Request.Params
					case m.Notification != nil:
						method, part = m.Notification.Method, m.Notification.Params
					case m.Response != nil && m.Response.Result != nil:
						id, _ := json.Marshal(idValue(m.Response.ID))
						key := opposite(l.dir) + string(id)
						method, part, result = pending[key], m.Response.Result, true
						delete(pending, key)
					}
					if method == "" || acp.IsExtension(method) || part == nil {
						continue
					}
					entry, ok := acp.LookupMethod(method)
					if !ok {
						t.Fatalf("%s: %s is not in the method table", where, method)
					}
					codec, _ := entry.Params()
					if result {
						codec, _ = entry.Result()
					}
					v, err := codec.DecodeBytes(part)
					if err != nil {
						// The strict decoder rejects exactly what a strict
						// validator reports; the extension traces list those.
						if rejected[l.n] {
							continue
						}
						t.Fatalf("%s: %s: %v", where, method, err)
					}
					typed++
					if dir == "valid" {
						if err := validate(v); err != nil {
							t.Errorf("%s: %s: Validate: %v", where, method, err)
						}
					}
					enc, err := codec.EncodeBytes(v)
					if err != nil {
						t.Fatal(err)
					}
					sameJSON(t, where+" "+method, part, enc)
					checkUnknownsKeptExactly(t, where, l.data, v)
				}
				if typed == 0 {
					t.Error("no line was decoded into a method's type")
				}
			})
		}
	}
}

// schemaFindings returns the lines a trace's .expect file lists as schema
// findings (none when there is no .expect file).
func schemaFindings(t *testing.T, trace string) map[int]bool {
	out := map[int]bool{}
	keys, err := expect.Read(strings.TrimSuffix(trace, ".jsonl") + ".expect")
	if os.IsNotExist(err) {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.Rule == "schema" {
			out[k.Line] = true
		}
	}
	return out
}

func validate(v any) error {
	if x, ok := v.(interface{ Validate() error }); ok {
		return x.Validate()
	}
	return nil
}

// idValue turns a RequestID into a plain value for keying.
func idValue(id acp.RequestID) any {
	switch v := id.(type) {
	case acp.RequestIDInteger:
		return int64(v)
	case acp.RequestIDString:
		return string(v)
	}
	return nil
}

// checkUnknownsKeptExactly: an update or content block of a kind this
// version does not know keeps the bytes it arrived with.
func checkUnknownsKeptExactly(t *testing.T, where string, line []byte, v any) {
	n, ok := v.(*acp.SessionNotification)
	if !ok {
		return
	}
	if u, ok := n.Update.(*acp.UnknownSessionUpdate); ok && !bytes.Contains(line, u.Raw) {
		t.Errorf("%s: unknown sessionUpdate %q lost bytes: %s", where, u.Tag, u.Raw)
	}
	if c, ok := n.Update.(*acp.AgentMessageChunk); ok {
		if u, ok := c.Content.(*acp.UnknownContentBlock); ok && !bytes.Contains(line, u.Raw) {
			t.Errorf("%s: unknown content block %q lost bytes: %s", where, u.Tag, u.Raw)
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
