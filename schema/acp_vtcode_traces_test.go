// The VT Code traces of fixtures/acp-vtcode: their shape; the valid ones
// pass, cover the dialect and do not pass as ACP v1; the invalid ones fail
// where their .expect files say.

package schema_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/expect"
)

// vtcodeLine is one line of a trace with its direction.
type vtcodeLine struct {
	n   int
	dir string // c2a or a2c
	raw []byte
	obj map[string]any // nil when the line is not a JSON object
	val any            // the line decoded for the validator
}

// vtcodeTrace is a trace file with its sidecars.
type vtcodeTrace struct {
	name   string
	lines  []vtcodeLine
	expect map[int]string // line → pointer of its schema finding
}

func vtcodeTraceFiles(t testing.TB, folder string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(vtcodeFixtures, folder, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no traces in %s/%s", vtcodeFixtures, folder)
	}
	return paths
}

func vtcodeReadLines(t testing.TB, p string) []string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 || b[len(b)-1] != '\n' {
		t.Errorf("%s: empty, or no final newline", p)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return out
}

func vtcodeLoadTrace(t testing.TB, p string) *vtcodeTrace {
	t.Helper()
	tr := &vtcodeTrace{name: filepath.Base(p), expect: map[int]string{}}
	stem := strings.TrimSuffix(p, ".jsonl")
	lines := vtcodeReadLines(t, p)
	dirs := vtcodeReadLines(t, stem+".dir")
	if len(dirs) != len(lines) {
		t.Fatalf("%s: %d lines but %d directions in the .dir sidecar", p, len(lines), len(dirs))
	}
	for i, text := range lines {
		l := vtcodeLine{n: i + 1, dir: dirs[i], raw: []byte(text)}
		if l.dir != "c2a" && l.dir != "a2c" {
			t.Errorf("%s.dir:%d: direction %q, want c2a or a2c", stem, l.n, l.dir)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, l.raw); err != nil || compact.String() != text {
			t.Errorf("%s:%d: not compact JSON (err %v)", p, l.n, err)
		}
		if err := json.Unmarshal(l.raw, &l.obj); err != nil {
			t.Errorf("%s:%d: not a JSON object: %v", p, l.n, err)
		}
		v, err := vtcodeInstance(l.raw)
		if err != nil {
			t.Fatalf("%s:%d: %v", p, l.n, err)
		}
		l.val = v
		tr.lines = append(tr.lines, l)
	}
	if keys, err := expect.Read(stem + ".expect"); err == nil {
		for _, k := range keys {
			if k.Requirement != "" {
				t.Fatalf("%s.expect: %q: want LINE RULE POINTER", stem, k)
			}
			if k.Line > len(lines) {
				t.Fatalf("%s.expect: %q: line %d is not a line of the trace", stem, k, k.Line)
			}
			if k.Rule != "schema" {
				t.Errorf("%s.expect: %q: rule %q; these traces only break schemas", stem, k, k.Rule)
			}
			if _, dup := tr.expect[k.Line]; dup {
				t.Errorf("%s.expect: line %d listed twice", stem, k.Line)
			}
			tr.expect[k.Line] = k.PointerText()
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return tr
}

// TestVTCodeTraceShape checks the conventions of every trace (documented in
// fixtures/acp-vtcode/README.md): each request and record travels towards the
// side that handles it, each response answers one request sent the other way,
// the client numbers its requests 1, 2, 3… and the agent uses string ids.
func TestVTCodeTraceShape(t *testing.T) {
	d := vtcodeLoadDispatch(t, vtcodeDir)
	handlerDir := map[string]string{"agent": "c2a", "client": "a2c"}
	for _, folder := range []string{"valid", "invalid"} {
		for _, p := range vtcodeTraceFiles(t, folder) {
			tr := vtcodeLoadTrace(t, p)
			disp := vtcodeNewDispatcher(d, vtcodeDir)
			nextClientID := 1
			for _, l := range tr.lines {
				at := fmt.Sprintf("%s/%s:%d", folder, tr.name, l.n)
				c, err := disp.classify(l)
				if err != nil {
					t.Errorf("%s: %v", at, err)
					continue
				}
				switch c.kind {
				case "request", "notification":
					m, _ := d.method(c.name)
					if l.dir != handlerDir[m.Handler] {
						t.Errorf("%s: %s is handled by the %s but travels %s", at, c.name, m.Handler, l.dir)
					}
					if c.kind != "request" {
						continue
					}
					id := l.obj["id"]
					if l.dir == "c2a" {
						if id != float64(nextClientID) {
							t.Errorf("%s: client request id %v, want %d", at, id, nextClientID)
						}
						nextClientID++
					} else if _, ok := id.(string); !ok {
						t.Errorf("%s: agent request id %v, want a string", at, id)
					}
				case "record":
					for _, r := range d.Records {
						if r.Record == c.name && l.dir != handlerDir[r.Handler] {
							t.Errorf("%s: record %s is handled by the %s but travels %s", at, c.name, r.Handler, l.dir)
						}
					}
				}
			}
			if len(disp.pending) > 0 && folder == "valid" {
				t.Errorf("%s/%s: requests left unanswered: %v", folder, tr.name, disp.pending)
			}
		}
	}
}

// TestVTCodeValidTraces checks that every line of a valid trace passes its
// envelope and the schema the dispatch table names for it.
func TestVTCodeValidTraces(t *testing.T) {
	d := vtcodeLoadDispatch(t, vtcodeDir)
	set := vtcodeNewSchemas(t)
	total := 0
	for _, p := range vtcodeTraceFiles(t, "valid") {
		tr := vtcodeLoadTrace(t, p)
		if len(tr.expect) > 0 {
			t.Errorf("valid/%s has an .expect file", tr.name)
		}
		disp := vtcodeNewDispatcher(d, vtcodeDir)
		for _, l := range tr.lines {
			total++
			c, err := disp.classify(l)
			if err != nil {
				t.Errorf("valid/%s:%d: %v", tr.name, l.n, err)
				continue
			}
			if _, err := vtcodeRun(t, set, c); err != nil {
				t.Errorf("valid/%s:%d (%s %s): %s", tr.name, l.n, c.kind, c.name, vtcodeShort(err))
			}
		}
	}
	if total < 40 {
		t.Errorf("only %d valid lines; the traces are incomplete", total)
	}
}

// TestVTCodeInvalidTraces checks that each line listed in an .expect file
// fails, with every explaining error at or under the listed pointer, and that
// every other line passes.
func TestVTCodeInvalidTraces(t *testing.T) {
	d := vtcodeLoadDispatch(t, vtcodeDir)
	set := vtcodeNewSchemas(t)
	findings := 0
	for _, p := range vtcodeTraceFiles(t, "invalid") {
		tr := vtcodeLoadTrace(t, p)
		if len(tr.expect) == 0 {
			t.Errorf("invalid/%s has no .expect entries", tr.name)
		}
		disp := vtcodeNewDispatcher(d, vtcodeDir)
		for _, l := range tr.lines {
			at := fmt.Sprintf("invalid/%s:%d", tr.name, l.n)
			c, err := disp.classify(l)
			if err != nil {
				t.Errorf("%s: %v (an invalid line must still be dispatchable)", at, err)
				continue
			}
			ptrs, verr := vtcodeRun(t, set, c)
			want, listed := tr.expect[l.n]
			switch {
			case !listed && verr != nil:
				t.Errorf("%s: unlisted line fails: %s", at, vtcodeShort(verr))
			case listed && verr == nil:
				t.Errorf("%s: expected a schema finding at %s, but the line is valid", at, want)
			case listed:
				findings++
				if len(ptrs) == 0 {
					t.Errorf("%s: no innermost error found in %s", at, vtcodeShort(verr))
				}
				for _, got := range ptrs {
					if !vtcodeUnder(got, want) {
						t.Errorf("%s: error at %s is not at or under the expected %s: %s", at, got, want, vtcodeShort(verr))
					}
				}
			}
		}
	}
	if findings < 20 {
		t.Errorf("only %d expected findings checked", findings)
	}
}

// TestVTCodeValidTracesCover checks that the valid traces exercise the whole
// dialect: every method and record of the table, every update kind, every
// prompt content kind, both permission outcomes, a failed and a successful
// tool execution, and a JSON-RPC error response.
func TestVTCodeValidTracesCover(t *testing.T) {
	d := vtcodeLoadDispatch(t, vtcodeDir)
	seen := map[string]bool{}
	for _, p := range vtcodeTraceFiles(t, "valid") {
		tr := vtcodeLoadTrace(t, p)
		disp := vtcodeNewDispatcher(d, vtcodeDir)
		for _, l := range tr.lines {
			c, err := disp.classify(l)
			if err != nil {
				continue // reported by TestVTCodeValidTraces
			}
			seen[c.kind+" "+c.name] = true
			switch {
			case c.kind == "record" && c.name == "session/update":
				seen["update_type "+fmt.Sprint(l.obj["update_type"])] = true
			case c.kind == "record":
				seen[fmt.Sprintf("success %v", l.obj["success"])] = true
			case c.kind == "request" && c.name == "session/prompt":
				params, _ := l.obj["params"].(map[string]any)
				for _, item := range params["content"].([]any) {
					seen["content "+fmt.Sprint(item.(map[string]any)["type"])] = true
				}
			case c.kind == "response" && l.obj["error"] != nil:
				seen["error response"] = true
			case c.kind == "response" && c.name == "session/request_permission":
				seen["outcome "+fmt.Sprint(vtcodeMember(l.obj["result"], "outcome"))] = true
			}
		}
	}
	var want []string
	for _, m := range d.Methods {
		want = append(want, m.Kind+" "+m.Method)
		if m.Kind == "request" {
			want = append(want, "response "+m.Method)
		}
	}
	for _, r := range d.Records {
		want = append(want, "record "+r.Record)
	}
	for _, u := range []string{"message_delta", "tool_call_start", "tool_call_end", "turn_complete", "error", "server_request"} {
		want = append(want, "update_type "+u)
	}
	want = append(want, "content text", "content image", "content context", "outcome selected", "outcome cancelled",
		"success true", "success false", "error response")
	for _, w := range want {
		if !seen[w] {
			t.Errorf("the valid traces never use %s", w)
		}
	}
}

// vtcodeACPv1Accepts lists what the valid traces send that ACP v1 accepts too,
// with the reason; TestVTCodeTracesAreNotACPv1 checks each entry still holds.
var vtcodeACPv1Accepts = map[string]string{
	"response session/load": "ACP v1's session/load result requires no member, so any object passes",
	"error response":        "both use the plain JSON-RPC 2.0 error object",
}

// TestVTCodeTracesAreNotACPv1 checks the point of a named dialect: its lines
// are not ACP v1. Each valid line is checked the way an ACP v1 validator
// would (JSON-RPC envelope, then the v1 schema of its method and direction);
// every line must fail, except the kinds listed in vtcodeACPv1Accepts, which
// must pass.
func TestVTCodeTracesAreNotACPv1(t *testing.T) {
	const v1 = "acp/v1"
	d := vtcodeLoadDispatch(t, vtcodeDir)
	acp := vtcodeLoadDispatch(t, v1)
	set := vtcodeNewSchemas(t)
	failed := 0
	for _, p := range vtcodeTraceFiles(t, "valid") {
		tr := vtcodeLoadTrace(t, p)
		ours := vtcodeNewDispatcher(d, vtcodeDir)
		theirs := vtcodeNewDispatcher(acp, v1)
		for _, l := range tr.lines {
			at := fmt.Sprintf("valid/%s:%d", tr.name, l.n)
			c, err := ours.classify(l)
			if err != nil {
				continue // reported by TestVTCodeValidTraces
			}
			label := c.kind + " " + c.name
			if c.kind == "response" && l.obj["error"] != nil {
				label = "error response"
			}
			var verr error
			if c.kind == "record" {
				// ACP v1 has no bare records: every message is JSON-RPC.
				_, verr = vtcodeRun(t, set, vtcodeClassified{checks: []vtcodeCheck{{url: vtcodeURL(v1, acp.Envelope), value: l.val}}})
			} else {
				ac, cerr := theirs.classify(l)
				if cerr != nil {
					t.Fatalf("%s: ACP v1 cannot dispatch this line: %v", at, cerr)
				}
				_, verr = vtcodeRun(t, set, ac)
			}
			reason, accepted := vtcodeACPv1Accepts[label]
			switch {
			case accepted && verr != nil:
				t.Errorf("%s: %s is listed as valid ACP v1 (%s) but fails: %s", at, label, reason, vtcodeShort(verr))
			case !accepted && verr == nil:
				t.Errorf("%s: %s is valid ACP v1 too; the dialect's schemas and traces must tell them apart", at, label)
			case !accepted:
				failed++
			}
		}
	}
	if failed < 30 {
		t.Errorf("only %d lines failed ACP v1", failed)
	}
}
