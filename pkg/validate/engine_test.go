package validate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentproto/agentproto/internal/expect"
	"github.com/agentproto/agentproto/pkg/validate/rules/acp"
	"github.com/agentproto/agentproto/pkg/wire"
)

const (
	acpInit     = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true}},"clientInfo":{"name":"ed","version":"1"}}}`
	acpInitResp = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"ag","version":"1"},"agentCapabilities":{},"authMethods":[]}}`
	acpNew      = `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`
	acpNewResp  = `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`
	acpBadChunk = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"txt","text":"hi"}}}}`
	acpChunk    = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`
)

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func run(t *testing.T, e *Engine, in string, fo FileOptions) ([]Finding, Summary, error) {
	t.Helper()
	var got []Finding
	sum, err := e.Check(context.Background(), "t", strings.NewReader(in), fo, func(f Finding) { got = append(got, f) })
	return got, sum, err
}

func keysOf(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, expect.Of(f).String())
	}
	return out
}

type fakeFast struct {
	mu    sync.Mutex
	calls []string
	ok    bool
}

// Codec returns a codec that records each value it is asked about (its
// schema's last name and its text) and answers f.ok.
func (f *fakeFast) Codec(schemaID string) (wire.Codec, bool) {
	name := schemaID[strings.LastIndexByte(schemaID, '/')+1:]
	verify := func(d *wire.Decoder) bool {
		raw, err := d.Raw()
		f.mu.Lock()
		defer f.mu.Unlock()
		f.calls = append(f.calls, fmt.Sprintf("%s %s", name, raw))
		return err == nil && f.ok
	}
	decode := func(*wire.Decoder) (any, error) { return nil, errors.New("not used: Verify decides") }
	return wire.Codec{Name: name, Complete: true, Decode: decode, Verify: verify}, true
}

// TestFastCheckerSeam checks that a fast checker saying "valid" skips the
// general validator (schema findings vanish, state findings stay), that one
// saying "not sure" leaves everything to it, and what it is asked.
func TestFastCheckerSeam(t *testing.T) {
	in := lines(acpInit, acpInitResp, acpNew, acpNewResp, strings.Replace(acpBadChunk, `"s1"`, `"s2"`, 1))
	for _, ok := range []bool{true, false} {
		ff := &fakeFast{ok: ok}
		e, err := New(Options{Fast: ff})
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := run(t, e, in, FileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"5 unknown-session /params/sessionId"}
		if !ok {
			want = []string{"5 schema /params/update/content/type", "5 unknown-session /params/sessionId"}
		}
		if d := cmp.Diff(want, keysOf(got)); d != "" {
			t.Errorf("fast=%v (-want +got):\n%s", ok, d)
		}
		sort.Strings(ff.calls)
		bad := strings.Replace(acpBadChunk, `"s1"`, `"s2"`, 1)
		params := bad[strings.Index(bad, `"params":`)+len(`"params":`) : len(bad)-1]
		update := params[strings.Index(params, `"update":`)+len(`"update":`) : len(params)-1]
		wantCall := "session.update.params.json " + params
		found := false
		for _, c := range ff.calls {
			found = found || c == wantCall
		}
		// 5 envelopes, 5 params or results. When the fast path is not
		// sure of a value, it is asked about the parts the schema
		// splits into (the update of session/update params apart), and
		// about the unstable schema's.
		if ok && (!found || len(ff.calls) != 10) {
			t.Errorf("fast=%v: calls %q; want 10 including %q", ok, ff.calls, wantCall)
		}
		wantPart := "SessionUpdate " + update
		if !ok && (!found || !slices.Contains(ff.calls, wantPart)) {
			t.Errorf("fast=%v: calls %q; want %q and %q among them", ok, ff.calls, wantCall, wantPart)
		}
	}
}

type fakeRoundtrip struct{}

func (fakeRoundtrip) Roundtrip(schemaID, pointer string, line []byte) ([]string, error) {
	if pointer != "/params" && pointer != "/result" {
		return nil, fmt.Errorf("ACP round trips start at params or result, not %q", pointer)
	}
	if bytes.Contains(line, []byte(`"txt"`)) {
		return []string{"/params/update/content/type: decoded as an unknown block, re-encoded without its text"}, nil
	}
	if bytes.Contains(line, []byte("session/new")) {
		return nil, errors.New("bad")
	}
	return nil, nil
}

func TestRoundtripSeam(t *testing.T) {
	e, err := New(Options{Roundtrip: fakeRoundtrip{}})
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(acpChunk, `"hi"`, `"txt"`, 1) // schema-valid, but the fake round trip changes it
	got, _, err := run(t, e, lines(acpInit, acpInitResp, acpNew, acpNewResp, acpBadChunk, changed), FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Line 5 breaks its schema: no round trip on top of that.
	want := []string{"3 roundtrip /params", "5 schema /params/update/content/type", "6 roundtrip /params"}
	if d := cmp.Diff(want, keysOf(got)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestOrderAcrossBatchesAndWorkers checks that findings come in line order
// whatever the number of workers, across many batches.
func TestOrderAcrossBatchesAndWorkers(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(lines(acpInit, acpInitResp, acpNew, acpNewResp))
	// 5,000 lines make 10 batches: with 64 workers, more workers than
	// batches and more than the batches held at once.
	for i := 0; i < 5000; i++ {
		switch {
		case i%7 == 0:
			sb.WriteString(acpBadChunk + "\n")
		case i%11 == 0:
			sb.WriteString("{broken\n")
		default:
			sb.WriteString(acpChunk + "\n")
		}
	}
	var ref []string
	for _, w := range []int{1, 2, 4, 64} {
		e, err := New(Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		got, sum, err := run(t, e, sb.String(), FileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !sort.SliceIsSorted(got, func(i, j int) bool { return got[i].Line < got[j].Line }) {
			t.Fatalf("workers=%d: findings out of line order", w)
		}
		if sum.Messages != 5004 || sum.Errors != len(got) || len(got) < 1000 {
			t.Fatalf("workers=%d: summary %+v with %d findings", w, sum, len(got))
		}
		if ref == nil {
			ref = keysOf(got)
		} else if d := cmp.Diff(ref, keysOf(got)); d != "" {
			t.Fatalf("%d workers differ from 1:\n%s", w, d)
		}
	}
}

// TestAmbiguousResponse: both sides number requests from 0, so the same id
// is outstanding both ways; the response's result picks the request.
func TestAmbiguousResponse(t *testing.T) {
	e := testEngine(t)
	prompt := `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`
	read := `{"jsonrpc":"2.0","id":2,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/w/a.go"}}`
	readResp := `{"jsonrpc":"2.0","id":2,"result":{"content":"package a"}}`
	promptResp := `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`
	badPromptResp := `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"done"}}`
	for name, tc := range map[string]struct {
		in   string
		want []string
	}{
		"read answered first":   {lines(acpInit, acpInitResp, acpNew, acpNewResp, prompt, read, readResp, promptResp), nil},
		"prompt answered first": {lines(acpInit, acpInitResp, acpNew, acpNewResp, prompt, read, promptResp, readResp), nil},
		// Neither result fits: the request whose result it resembles
		// (the prompt: stopReason) is blamed, and the read stays
		// outstanding.
		"no candidate fits": {lines(acpInit, acpInitResp, acpNew, acpNewResp, prompt, read, badPromptResp, readResp), []string{"7 schema /result/stopReason"}},
		"third answer":      {lines(acpInit, acpInitResp, acpNew, acpNewResp, prompt, read, readResp, promptResp, promptResp), []string{"9 duplicate-response /id"}},
	} {
		t.Run(name, func(t *testing.T) {
			got, _, err := run(t, e, tc.in, FileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, keysOf(got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestDirectionSidecar(t *testing.T) {
	e := testEngine(t)
	in := lines(acpInit, acpInitResp)
	got, _, err := run(t, e, in, FileOptions{Directions: strings.NewReader("c2a\na2c\n")})
	if err != nil || len(got) != 0 {
		t.Fatalf("matching sidecar: %v %v", err, got)
	}
	got, _, err = run(t, e, in, FileOptions{Directions: strings.NewReader("a2c\nc2a\n")})
	if err != nil || len(got) != 1 || got[0].Rule != acp.RuleDirection {
		t.Fatalf("contradicting sidecar: %v %v", err, keysOf(got))
	}
	_, _, err = run(t, e, in, FileOptions{Directions: strings.NewReader("c2a\nsideways\n")})
	if err == nil || !strings.Contains(err.Error(), "c2a or a2c") {
		t.Fatalf("bad sidecar: %v", err)
	}
	// A short or long sidecar is one warning; the lines past its end
	// are read without a direction.
	for _, sc := range []string{"c2a\n", "c2a\na2c\nc2a\n"} {
		got, _, err = run(t, e, in, FileOptions{Directions: strings.NewReader(sc)})
		if err != nil || len(got) != 1 || got[0].Rule != RuleSidecar || got[0].Severity != Warning {
			t.Fatalf("sidecar %q: %v %v", sc, err, keysOf(got))
		}
	}
	// One entry per line: a blank line and a line that is not JSON each
	// have theirs, so the directions after them stay in place.
	blank := acpInit + "\n\nnot json\n" + acpInitResp + "\n"
	got, _, err = run(t, e, blank, FileOptions{Directions: strings.NewReader("c2a\nc2a\na2c\na2c\n")})
	if err != nil || len(got) != 1 || got[0].Rule != RuleJSON || got[0].Line != 3 || got[0].Side != "agent" {
		t.Fatalf("a sidecar with an entry per line: %v %v", err, got)
	}
}

type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if errors.Is(err, io.EOF) {
		return n, f.err
	}
	return n, err
}

func TestReadErrorIsReported(t *testing.T) {
	e := testEngine(t)
	var got []Finding
	r := &failingReader{r: strings.NewReader(lines(acpInit, acpInitResp)), err: errors.New("disk on fire")}
	sum, err := e.Check(context.Background(), "t", r, FileOptions{}, func(f Finding) { got = append(got, f) })
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("err = %v", err)
	}
	if len(got) != 1 || got[0].Rule != RuleIO || sum.Messages != 2 {
		t.Fatalf("findings %v, summary %+v", keysOf(got), sum)
	}
}

func TestCancelled(t *testing.T) {
	e := testEngine(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Check(ctx, "t", strings.NewReader(lines(acpInit)), FileOptions{}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestLongLineThenRest(t *testing.T) {
	e, err := New(Options{MaxLine: 512})
	if err != nil {
		t.Fatal(err)
	}
	long := `{"jsonrpc":"2.0","method":"_pad","params":{"x":"` + strings.Repeat("x", 1000) + `"}}`
	got, _, err := run(t, e, lines(acpInit, long, acpInitResp, acpNew, acpNewResp, acpBadChunk), FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"2 line-too-long -", "6 schema /params/update/content/type"}
	if d := cmp.Diff(want, keysOf(got)); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}

func TestForcedProtocol(t *testing.T) {
	e, err := New(Options{Protocol: "arcan"})
	if err != nil {
		t.Fatal(err)
	}
	got, sum, err := run(t, e, lines(acpInit), FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Detected[0].Protocol != "arcan" || len(got) != 1 || got[0].Rule != RuleSchema || !strings.Contains(got[0].Message, "part_type") {
		t.Fatalf("detected %+v, findings %v", sum.Detected, got)
	}
}

func TestUnknownProtocolDiagnosis(t *testing.T) {
	e := testEngine(t)
	for in, want := range map[string]string{
		`{"session_id":"s","tool_call_id":"t","prompt":"x"}`:             `"sessionUpdate"`,
		`{"id":1,"method":"session/prompt","params":{}}`:                 `without "jsonrpc":"2.0"`,
		`{"id":"m","type":"job.submit","session_id":"s","payload":{}}`:   `"arcp":"1.1"`,
		`{"event_id":"e","kind":{"type":"RunStarted"},"session_id":"s"}`: "aiOS EventRecord",
		`{"type":"text-delta","id":"r-text","delta":"hi"}`:               "Vercel AI SDK",
		`{"hello":"world"}`: `the fields "hello"`,
		"{\"type\":\"start\",\"messageId\":\"r\"}\n{\"type\":\"finish\"}":                   "Vercel AI SDK",
		`{"part":"x"}` + "\n" + `{"part_type":"run_started","run_id":"r","session_id":"s"}`: "",
	} {
		got, _, err := run(t, e, in+"\n", FileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if want == "" {
			for _, f := range got {
				if f.Rule == RuleUnknownProtocol {
					t.Errorf("%s: a later line identifies the protocol, got %s", in, f)
				}
			}
			continue
		}
		if len(got) != 1 || got[0].Rule != RuleUnknownProtocol || !strings.Contains(got[0].Message, want) {
			t.Errorf("%s: got %v; want one unknown-protocol finding mentioning %s", in, got, want)
		}
	}
}

// TestEveryMisc runs the engine over each bad-input fixture with several
// workers and a small line limit, to shake out ordering and bound bugs.
func TestEveryMisc(t *testing.T) {
	e, err := New(Options{Workers: 3, MaxLine: 300})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(fixturesDir, "misc", "*"))
	for _, p := range files {
		if strings.HasSuffix(p, ".expect") || strings.HasSuffix(p, ".md") {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		prev := 0
		_, err = e.Check(context.Background(), p, f, FileOptions{}, func(fd Finding) {
			if fd.Line < prev {
				t.Errorf("%s: line %d after %d", p, fd.Line, prev)
			}
			prev = fd.Line
		})
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestARCPVendorTypeAndCutTrace(t *testing.T) {
	e := testEngine(t)
	welcome := `{"arcp":"1.1","id":"msg_2","type":"session.welcome","session_id":"sess_1","payload":{"runtime":{"name":"r","version":"1"},"resume_token":"rt_1","resume_window_sec":600,"capabilities":{}}}`
	event := func(seq int) string {
		return fmt.Sprintf(`{"arcp":"1.1","id":"msg_e%d","type":"job.event","session_id":"sess_1","job_id":"job_1","event_seq":%d,"payload":{"kind":"log","ts":"2026-05-13T19:31:00Z","body":{"level":"info","message":"m"}}}`, seq, seq)
	}
	result := func(seq int) string {
		return fmt.Sprintf(`{"arcp":"1.1","id":"msg_r%d","type":"job.result","session_id":"sess_1","job_id":"job_1","event_seq":%d,"payload":{"final_status":"success"}}`, seq, seq)
	}
	vendor := `{"arcp":"1.1","id":"msg_v","type":"x-vendor.acme.stats","session_id":"sess_1","payload":{}}`
	for name, tc := range map[string]struct {
		in   string
		want []string
	}{
		// The trace begins mid-session: no hello, so earlier jobs and
		// events are not held against it.
		// It says so once, on its first line.
		"cut trace": {lines(welcome, event(41), event(42), result(43)), []string{"1 partial-capture /type"}},
		"gap":       {lines(welcome, event(41), event(43)), []string{"1 partial-capture /type", "3 seq-gap /event_seq"}},
		"order":     {lines(welcome, event(41), event(41)), []string{"1 partial-capture /type", "3 seq-order /event_seq"}},
		"twice":     {lines(welcome, result(1), result(2)), []string{"1 partial-capture /type", "3 terminal-twice /job_id"}},
		"vendor":    {lines(welcome, vendor), []string{"1 partial-capture /type", "2 unknown-type /type"}},
		// An unreadable line may have carried event 42.
		"lossy": {lines(welcome, event(41), "{oops", event(43)), []string{"1 partial-capture /type", "3 json -"}},
	} {
		t.Run(name, func(t *testing.T) {
			got, _, err := run(t, e, tc.in, FileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, keysOf(got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			for _, f := range got {
				if f.Rule == RuleUnknownType && f.Severity != Warning {
					t.Errorf("x-vendor type: severity %s, want warning", f.Severity)
				}
			}
		})
	}
}

func TestArcanDaemonErrorAndLossy(t *testing.T) {
	e := testEngine(t)
	daemon := `{"part_type":"run_errored","run_id":"unknown","session_id":"s","error":"no provider"}`
	delta := `{"part_type":"text_delta","run_id":"r1","session_id":"s","iteration":1,"delta":"x"}`
	got, _, err := run(t, e, lines(daemon, "{broken", delta), FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"2 json -"}, keysOf(got)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	got, _, _ = run(t, e, lines(delta), FileOptions{})
	if d := cmp.Diff([]string{"1 run-not-started -"}, keysOf(got)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestIdleChecksLiveTraffic: with FileOptions.Idle, a finding comes while
// the trace is still open, as soon as its line has been followed by a
// pause; without it, lines wait for a full batch or the end.
func TestIdleChecksLiveTraffic(t *testing.T) {
	e := testEngine(t)
	pr, pw := io.Pipe()
	found := make(chan Finding, 16)
	done := make(chan error, 1)
	go func() {
		_, err := e.Check(context.Background(), "live", pr, FileOptions{Idle: 5 * time.Millisecond}, func(f Finding) { found <- f })
		done <- err
	}()
	for _, l := range []string{acpInit, acpInitResp, acpNew, acpNewResp, acpBadChunk} {
		if _, err := io.WriteString(pw, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// The trace is still open: the finding must come without its end.
	select {
	case f := <-found:
		if f.Line != 5 || f.Rule != RuleSchema {
			t.Errorf("first live finding %s, want the schema error of line 5", f)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no finding while the trace stayed open")
	}
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestDialectOfAnotherProtocol: a --dialect that names another
// protocol's version is one error on the trace it does not apply to,
// which is still read as its messages say; one that does apply is silent.
func TestDialectOfAnotherProtocol(t *testing.T) {
	acpInit := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"ed","version":"1"}}}`
	for dialect, want := range map[string]int{"go-sdk": 1, "v1": 0} {
		e, err := New(Options{Dialect: dialect})
		if err != nil {
			t.Fatal(err)
		}
		got, sum, err := run(t, e, acpInit+"\n", FileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range got {
			if f.Rule == RuleUnknownProtocol && strings.Contains(f.Message, "--dialect "+dialect+" does not apply") {
				n++
			}
		}
		if n != want || sum.Detected[0].Protocol != "acp" {
			t.Errorf("--dialect %s on an ACP trace: %v, detected %+v; want %d such findings", dialect, got, sum.Detected, want)
		}
	}
}

// TestTextLinesFold: a run of text lines (a peer's logs on its stdout) is
// one finding that names the run's lines and where logs belong, across
// batches; a message ends a run; a cut message is still its own finding.
func TestTextLinesFold(t *testing.T) {
	initReq := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"ed","version":"1"}}}`
	initResp := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"ag","version":"1"},"agentCapabilities":{}}}`
	var in []string
	in = append(in, initReq)
	for i := range 1000 {
		in = append(in, fmt.Sprintf("INFO starting worker %d", i))
	}
	in = append(in, initResp, "one more log line", `{"jsonrpc":"2.0","method":"session/upd`, `{"jsonrpc":"2.0","method":"session/upd`)
	e := testEngine(t)
	got, _, err := run(t, e, strings.Join(in, "\n")+"\n", FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	var first string
	for _, f := range got {
		if f.Rule == RuleJSON {
			lines = append(lines, f.Line)
			if first == "" {
				first = f.Message
			}
		}
	}
	if !slices.Equal(lines, []int{2, 1003, 1004, 1005}) {
		t.Fatalf("json findings on lines %v, want 2 (the run of 1000), 1003, 1004 and 1005:\n%v", lines, got)
	}
	if !strings.Contains(first, "lines 2 to 1001 are 1000 lines of text") || !strings.Contains(first, `"INFO starting worker 0"`) || !strings.Contains(first, "stderr") {
		t.Errorf("the run's finding: %s", first)
	}
}
