package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/report"
)

const (
	acpInit     = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true}},"clientInfo":{"name":"ed","version":"1"}}}`
	acpInitResp = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"ag","version":"1"},"agentCapabilities":{},"authMethods":[]}}`
	acpNew      = `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`
	acpNewResp  = `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`
	acpBadType  = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"txt","text":"hi"}}}}`
	acpExtra    = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a <b> & c"}}}}`
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb, plugins{})
	return code, out.String(), errb.String()
}

func TestTextOutputAndExitCodes(t *testing.T) {
	good := writeFile(t, "good.jsonl", strings.Join([]string{acpInit, acpInitResp, acpNew, acpNewResp, acpExtra}, "\n"))
	code, out, errs := runCLI(t, "", "-v", good) // -v: with the messages by type
	if code != exitOK {
		t.Fatalf("valid trace: exit %d, want 0\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "summary: 1 file, 5 lines, 5 messages: 0 errors, 0 warnings") || !strings.Contains(out, "acp session/update") {
		t.Fatalf("summary missing or wrong:\n%s", out)
	}

	bad := writeFile(t, "bad.jsonl", strings.Join([]string{acpInit, acpInitResp, acpNew, acpNewResp, acpBadType}, "\n"))
	code, out, _ = runCLI(t, "", bad)
	if code != exitFindings {
		t.Fatalf("invalid trace: exit %d, want 1", code)
	}
	want := bad + `:5: error: /params/update/content/type: "txt" is not one of text, image, audio, resource_link, resource; did you mean "text"? (acp: ContentBlock) [schema acp.schema.shape, agent]`
	if !strings.Contains(out, want+"\n") {
		t.Fatalf("output lacks\n%s\ngot:\n%s", want, out)
	}
	if !strings.Contains(out, "findings by rule:") {
		t.Fatalf("no findings table:\n%s", out)
	}
}

func TestStdin(t *testing.T) {
	code, out, _ := runCLI(t, acpInit+"\n"+acpInitResp+"\n"+acpBadType+"\n", "-")
	if code != exitFindings || !strings.Contains(out, "-:3: error:") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
}

func TestUsageErrors(t *testing.T) {
	f := writeFile(t, "t.jsonl", acpInit+"\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no files", nil, "no trace given"},
		{"bad format", []string{"--format", "xml", f}, "unknown --format"},
		{"bad protocol", []string{"--protocol", "mcp", f}, "unknown protocol"},
		{"bad dialect", []string{"--dialect", "python", f}, "unknown dialect"},
		{"bad max-line", []string{"--max-line", "lots", f}, "positive size"},
		{"max-depth above the ceiling", []string{"--max-depth", "100000000", f}, "--max-depth 100000000 is out of range: want 1 to 10000"},
		{"negative max-depth", []string{"--max-depth", "-1", f}, "--max-depth -1 is out of range"},
		// In text, the io finding on stdout says it; the other formats
		// also say it on stderr.
		{"missing file", []string{"--format", "json", filepath.Join(t.TempDir(), "nope.jsonl")}, "cannot open the trace: no such file or directory"},
		{"roundtrip unavailable", []string{"--roundtrip", f}, "--roundtrip is not available"},
		{"direction with two files", []string{"--direction", f, f, f}, "one trace"},
		{"stdin twice", []string{"-", "-"}, "only once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runCLI(t, "", tc.args...)
			if code != exitUsage || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, errs, tc.want)
			}
		})
	}
}

// TestStderrIsInert: a file name with a line break and a terminal escape,
// named in an error on stderr (which a format other than text gets), is
// shown escaped.
func TestStderrIsInert(t *testing.T) {
	name := filepath.Join(t.TempDir(), "x\n::error::y\x1b[2J.jsonl")
	code, _, errs := runCLI(t, "", "--format", "json", name)
	if code != exitUsage || strings.Count(errs, "\n") != 1 || strings.Contains(errs, "\x1b") || !strings.Contains(errs, `x\n::error::y\x1b[2J.jsonl`) {
		t.Fatalf("exit %d, stderr %q: want one escaped line", code, errs)
	}
}

// TestMaxDepthCeiling: the ceiling itself is accepted.
func TestMaxDepthCeiling(t *testing.T) {
	f := writeFile(t, "t.jsonl", acpInit+"\n"+acpInitResp+"\n")
	if code, out, errs := runCLI(t, "", "--max-depth", "10000", f); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
}

func TestHelp(t *testing.T) {
	for _, flag := range []string{"--help", "-h", "-help"} {
		code, out, errs := runCLI(t, "", flag)
		if code != exitOK || errs != "" {
			t.Fatalf("%s: exit %d, stderr %q; want exit 0 and the help on stdout (validate --help | less)", flag, code, errs)
		}
		for _, want := range []string{"validate session.jsonl", "--format json", "--format github", "--format sarif", "--format junit", "--disable", "--baseline", "--protocol arcp --dialect go-sdk", "--direction", "cat run.sse | validate -", "Exit status", "FOLDER"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks an example with %q", flag, want)
			}
		}
	}
}

// TestJSONContract pins the --format json shape: one object per finding
// with exactly these fields and types, and the summary object last.
func TestJSONContract(t *testing.T) {
	bad := writeFile(t, "bad.jsonl", strings.Join([]string{acpInit, acpInitResp, acpNew, acpNewResp, acpBadType, "{not json"}, "\n"))
	code, out, _ := runCLI(t, "", "--format", "json", bad)
	if code != exitFindings {
		t.Fatalf("exit %d, want 1", code)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	var lines []map[string]any
	for sc.Scan() {
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("line %q is not a JSON object: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 3 {
		t.Fatalf("want 2 findings and a summary, got %d lines:\n%s", len(lines), out)
	}
	wantFields := map[string]string{"file": "string", "line": "number", "severity": "string", "protocol": "string", "dialect": "string", "rule": "string", "pointer": "string", "message": "string"}
	for _, f := range lines[:2] {
		// requirement and side are there when known.
		optional := 0
		for _, k := range []string{"requirement", "side"} {
			if v, ok := f[k]; ok {
				optional++
				if _, isStr := v.(string); !isStr {
					t.Errorf("finding field %q is not a string", k)
				}
			}
		}
		if len(f)-optional != len(wantFields) {
			t.Errorf("finding has fields %v, want exactly %v", keys(f), wantFields)
		}
		for k, typ := range wantFields {
			if got := jsonKind(f[k]); got != typ {
				t.Errorf("finding field %q is %s, want %s", k, got, typ)
			}
		}
	}
	first := lines[0]
	if first["file"] != bad || first["line"] != json.Number("5") || first["severity"] != "error" || first["protocol"] != "acp" || first["dialect"] != "v1" || first["rule"] != "schema" || first["pointer"] != "/params/update/content/type" {
		t.Errorf("first finding: %v", first)
	}
	if lines[1]["rule"] != "json" || lines[1]["line"] != json.Number("6") {
		t.Errorf("second finding: %v", lines[1])
	}
	sum, ok := lines[2]["summary"].(map[string]any)
	if !ok || len(lines[2]) != 1 {
		t.Fatalf("last line is not {\"summary\":{…}}: %v", lines[2])
	}
	for k, want := range map[string]json.Number{"files": "1", "lines": "6", "messages": "6", "errors": "2", "warnings": "0"} {
		if sum[k] != want {
			t.Errorf("summary.%s = %v, want %s", k, sum[k], want)
		}
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case nil:
		return "null"
	}
	return reflect.TypeOf(v).String()
}

func TestGitHubFormat(t *testing.T) {
	bad := writeFile(t, "a,b:c.jsonl", strings.Join([]string{acpInit, acpInitResp, acpNew, acpNewResp, acpBadType}, "\n"))
	code, out, _ := runCLI(t, "", "--format", "github", bad)
	if code != exitFindings {
		t.Fatalf("exit %d", code)
	}
	escFile := strings.NewReplacer(":", "%3A", ",", "%2C").Replace(bad)
	want := "::error file=" + escFile + ",line=5,title=acp schema / acp.schema.shape (agent)::/params/update/content/type: \"txt\" is not one of"
	if !strings.Contains(out, want) {
		t.Fatalf("no annotation %q in:\n%s", want, out)
	}
}

func TestGitHubEscaping(t *testing.T) {
	got := report.Annotation(validate.Finding{File: "x,y:z.jsonl", Line: 3, Severity: validate.Warning, Rule: "deviation:go-output", Message: "100% off\nnext\rline"})
	want := "::warning file=x%2Cy%3Az.jsonl,line=3,title=deviation%3Ago-output::100%25 off%0Anext%0Dline"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

type fakeRoundtrip struct{}

func (fakeRoundtrip) Roundtrip(schemaID, pointer string, line []byte) ([]string, error) {
	return []string{pointer + "/cwd: re-encoded as null"}, nil
}

func TestRoundtripFlag(t *testing.T) {
	f := writeFile(t, "t.jsonl", acpInit+"\n"+acpInitResp+"\n"+acpNew+"\n")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"--roundtrip", f}, nil, &out, &errb, plugins{roundtrip: fakeRoundtrip{}})
	if code != exitFindings || strings.Count(out.String(), "[roundtrip, ") != 3 || !strings.Contains(out.String(), "/params/cwd: re-encoded as null") {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	// Without the flag, no round trip runs.
	out.Reset()
	if code := run(context.Background(), []string{f}, nil, &out, &errb, plugins{roundtrip: fakeRoundtrip{}}); code != exitOK {
		t.Fatalf("without --roundtrip: exit %d\n%s", code, out.String())
	}
}

func TestStrict(t *testing.T) {
	// A Go SDK deviation is a warning: exit 0, or 1 with --strict.
	arcp := strings.Join([]string{
		`{"arcp":"1.1","id":"m1","type":"session.hello","payload":{"client":{"name":"c","version":"1"},"auth":{"scheme":"bearer","token":"t"}}}`,
		`{"arcp":"1.1","id":"m2","type":"session.welcome","session_id":"s1","payload":{"runtime":{"name":"r","version":"1"},"resume_token":"rt_1","resume_window_sec":600,"capabilities":{}}}`,
		`{"arcp":"1.1","id":"m3","type":"session.bye","session_id":"s1","payload":{"reason":"done"}}`,
	}, "\n")
	f := writeFile(t, "arcp.jsonl", arcp)
	code, out, _ := runCLI(t, "", f)
	if code != exitOK || !strings.Contains(out, "warning") || !strings.Contains(out, "deviation:session-bye") {
		t.Fatalf("without --strict: exit %d\n%s", code, out)
	}
	code, _, _ = runCLI(t, "", "--strict", f)
	if code != exitFindings {
		t.Fatalf("with --strict: exit %d, want 1", code)
	}
}

func TestSidecarFound(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.jsonl")
	os.WriteFile(trace, []byte(acpInit+"\n"+acpInitResp+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "t.dir"), []byte("a2c\nc2a\n"), 0o644)
	code, out, _ := runCLI(t, "", trace)
	// initialize sent from agent to client contradicts the method table.
	if code != exitFindings || !strings.Contains(out, "[direction acp.jsonrpc.method-side, agent]") {
		t.Fatalf("the sidecar beside the trace was not used: exit %d\n%s", code, out)
	}
	if got := findSidecar(filepath.Join(dir, "t.jsonl")); got != filepath.Join(dir, "t.dir") {
		t.Fatalf("findSidecar = %q", got)
	}
}

func TestByteSizeFlag(t *testing.T) {
	for in, want := range map[string]int{"1024": 1024, "16MiB": 16 << 20, "2k": 2048, "1G": 1 << 30, "64 mb": 64 << 20} {
		var b byteSizeFlag
		if err := b.Set(in); err != nil || int(b) != want {
			t.Errorf("%q: got %d, %v; want %d", in, b, err, want)
		}
	}
	for _, in := range []string{"", "-1", "0", "x", "99999999999G"} {
		var b byteSizeFlag
		if err := b.Set(in); err == nil {
			t.Errorf("%q: accepted", in)
		}
	}
	for n, want := range map[byteSizeFlag]string{16 << 20: "16MiB", 64 << 30: "64GiB", 1536: "1536", 3 << 10: "3KiB"} {
		if got := n.String(); got != want {
			t.Errorf("%d shows as %q, want %q", int64(n), got, want)
		}
	}
}

// TestMaxBytesFlag: a gzip trace longer, decompressed, than --max-bytes ends
// with one io finding after the findings of the lines that fit, and exit 2.
func TestMaxBytesFlag(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(acpInit + "\n" + acpInitResp + "\n" + acpBadType + "\n"))
	for i := 0; i < 1000; i++ {
		zw.Write([]byte(acpExtra + "\n"))
	}
	zw.Close()
	f := writeFile(t, "big.jsonl.gz", buf.String())
	code, out, errs := runCLI(t, "", "--max-bytes", "4KiB", f)
	if code != exitUsage {
		t.Fatalf("exit %d, want 2\n%s%s", code, out, errs)
	}
	if strings.Count(out, "[io]") != 1 || !strings.Contains(out, "longer, decompressed, than the 4 KiB limit") || !strings.Contains(out, ":3: error:") {
		t.Fatalf("want the line 3 finding, then one io finding naming the limit:\n%s", out)
	}
	if code, out, errs := runCLI(t, "", f); code != exitFindings {
		t.Fatalf("default limit: exit %d, want 1\n%s%s", code, out, errs)
	}
}

func TestMaxLineFlag(t *testing.T) {
	long := `{"jsonrpc":"2.0","method":"_x","params":{"pad":"` + strings.Repeat("x", 3000) + `"}}`
	f := writeFile(t, "t.jsonl", acpInit+"\n"+long+"\n"+acpInitResp+"\n")
	code, out, _ := runCLI(t, "", "--max-line", "2KiB", f)
	if code != exitFindings || !strings.Contains(out, ":2: error: line of") || !strings.Contains(out, "[line-too-long]") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// TestVTCodeDialectIsNamedAndExplained: a VT Code trace is reported as that
// dialect, with one line on how it differs from ACP v1 (in text, with -v
// for a trace with no finding), and in JSON.
func TestVTCodeDialectIsNamedAndExplained(t *testing.T) {
	p := filepath.Join("..", "..", "fixtures", "acp-vtcode", "valid", "01-full-session.jsonl")
	code, out, _ := runCLI(t, "", "-v", p)
	if code != exitOK || !strings.Contains(out, "acp vtcode") || !strings.Contains(out, "update_type where ACP has sessionUpdate") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
	code, out, _ = runCLI(t, "", "--format", "json", p)
	var last struct {
		Summary struct {
			Detected []struct{ Dialect, Note string } `json:"detected"`
		} `json:"summary"`
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || code != exitOK {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	if d := last.Summary.Detected; len(d) != 1 || d[0].Dialect != "vtcode" || !strings.Contains(d[0].Note, "VT Code's HTTP dialect") {
		t.Errorf("detected = %+v", d)
	}
}

// TestProgressLine: the progress of a file of known size says how much is
// read and about how long the rest takes; of standard input, lines only.
func TestProgressLine(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var read int64 = 250
	p := &progress{name: "big.jsonl", start: start, size: 1000, read: func() int64 { return read }}
	if got, want := p.line(4000, start.Add(10*time.Second)), "big.jsonl: 4000 lines, 25%, about 30s left…"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	read = 0
	if got, want := p.line(0, start), "big.jsonl: 0 lines, 0%…"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	in := &progress{name: "-", start: start}
	if got, want := in.line(12, start.Add(time.Second)), "-: 12 lines…"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
