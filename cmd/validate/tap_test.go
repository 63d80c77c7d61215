package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The tap tests run the official ACP SDK's client and agent apps (the
// recorder's, in conformance/acp-recorder) as two processes, first joined
// directly and then with `validate -- AGENT` between them, and compare what
// each side saw.

// recorderDir is conformance/acp-recorder, relative to this package.
var recorderDir = filepath.Join("..", "..", "conformance", "acp-recorder")

// needSDK skips the test unless node and the recorder's npm packages are
// installed.
func needSDK(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the tap tests run the official ACP SDK's apps with it")
	}
	if _, err := os.Stat(filepath.Join(recorderDir, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		t.Skip("the ACP SDK is not installed: run npm ci --prefix conformance/acp-recorder")
	}
	return node
}

// session is one run of the SDK client against the SDK agent.
type session struct {
	code int    // the client's exit status (the agent's, passed on)
	logs string // folder of client-in, client-out, agent-in, agent-out
}

// runSession runs the client script through scenario against the agent
// script (with agentArgs), with tap (the validate arguments up to and
// including "--") in between when it is not empty.
func runSession(t *testing.T, node, scenario string, tap []string, agentArgs ...string) session {
	t.Helper()
	logs := t.TempDir()
	abs, err := filepath.Abs(recorderDir)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{filepath.Join(abs, "stdio-client.mjs"), "--scenario", scenario, "--log", logs, "--"}
	env := os.Environ()
	if len(tap) > 0 {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		args = append(append(args, exe), tap...)
		env = append(env, asMain+"=1")
	}
	args = append(args, node, filepath.Join(abs, "stdio-agent.mjs"), "--log", logs)
	args = append(args, agentArgs...)
	cmd := exec.Command(node, args...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running the client: %v", err)
	}
	t.Logf("%s (tap %v): exit %d, stderr:\n%s", scenario, tap != nil, code, stderr.String())
	return session{code: code, logs: logs}
}

func (s session) read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.logs, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// splitRecording returns the bytes the recording holds for each direction.
func splitRecording(t *testing.T, trace string) (c2a, a2c []byte) {
	t.Helper()
	rec, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := os.ReadFile(trace + ".dir")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(rec), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	ds := strings.Fields(string(dirs))
	if len(ds) != len(lines) {
		t.Fatalf("the recording has %d lines and its sidecar %d", len(lines), len(ds))
	}
	for i, l := range lines {
		switch ds[i] {
		case "c2a":
			c2a = append(c2a, l...)
		case "a2c":
			a2c = append(a2c, l...)
		default:
			t.Fatalf("sidecar line %d is %q", i+1, ds[i])
		}
	}
	return c2a, a2c
}

func TestTapIsTransparentToTheSDKAndRecordsWhatFlows(t *testing.T) {
	node := needSDK(t)
	for _, scenario := range []string{"01-handshake", "02-prompt-all-updates", "06-errors"} {
		t.Run(scenario, func(t *testing.T) {
			direct := runSession(t, node, scenario, nil)
			if direct.code != 0 {
				t.Fatalf("without the tap the session fails (exit %d)", direct.code)
			}
			dir := t.TempDir()
			trace := filepath.Join(dir, "session.jsonl")
			findings := filepath.Join(dir, "findings.json")
			tapped := runSession(t, node, scenario, []string{"--record", trace, "--findings", findings, "--format", "json", "--"})
			if tapped.code != 0 {
				t.Fatalf("through the tap the session fails (exit %d)", tapped.code)
			}
			// Both sides see the same bytes with and without the tap.
			for _, f := range []string{"client-out", "client-in", "agent-in", "agent-out"} {
				if a, b := direct.read(t, f), tapped.read(t, f); !bytes.Equal(a, b) {
					t.Errorf("%s differs through the tap: %d bytes direct, %d tapped", f, len(a), len(b))
				}
			}
			// The recording is the traffic, direction by direction.
			c2a, a2c := splitRecording(t, trace)
			if !bytes.Equal(c2a, tapped.read(t, "agent-in")) || !bytes.Equal(c2a, tapped.read(t, "client-out")) {
				t.Errorf("the recording's c2a lines are not what the client sent and the agent read")
			}
			if !bytes.Equal(a2c, tapped.read(t, "agent-out")) || !bytes.Equal(a2c, tapped.read(t, "client-in")) {
				t.Errorf("the recording's a2c lines are not what the agent wrote and the client read")
			}
			// The live findings are those of a later validate of the
			// recording; and the SDK's traffic has no error.
			live, err := os.ReadFile(findings)
			if err != nil {
				t.Fatal(err)
			}
			code, later, _ := runCLI(t, "", "--format", "json", trace)
			if string(live) != later {
				t.Errorf("live findings differ from a later validate:\nlive:\n%s\nlater:\n%s", live, later)
			}
			if code != exitOK {
				t.Errorf("validate of the SDK's traffic exits %d:\n%s", code, later)
			}
		})
	}
}

// jsonFindings decodes the findings (not the summary) of --format json.
func jsonFindings(t *testing.T, out []byte) []jsonFinding {
	t.Helper()
	var fs []jsonFinding
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		if bytes.HasPrefix(line, []byte(`{"summary"`)) || len(line) == 0 {
			continue
		}
		var f jsonFinding
		if err := json.Unmarshal(line, &f); err != nil {
			t.Fatalf("findings line %q: %v", line, err)
		}
		fs = append(fs, f)
	}
	return fs
}

func TestTapReportsAWrongAgentMessage(t *testing.T) {
	node := needSDK(t)
	dir := t.TempDir()
	trace := filepath.Join(dir, "session.jsonl")
	findings := filepath.Join(dir, "findings.json")
	s := runSession(t, node, "01-handshake", []string{"--record", trace, "--findings", findings, "--format", "json", "--"}, "--bad")
	if s.code != 0 {
		t.Fatalf("the session fails (exit %d): the SDK client ignores the bad notification", s.code)
	}
	live, err := os.ReadFile(findings)
	if err != nil {
		t.Fatal(err)
	}
	// The agent wrote the bad update right after its first message; the
	// client's next request may be recorded before it.
	rec, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	badLine := 0
	for i, l := range strings.Split(string(rec), "\n") {
		if strings.Contains(l, `"sessionId":"sess-none"`) {
			badLine = i + 1
		}
	}
	if badLine == 0 {
		t.Fatalf("the recording lacks the bad update:\n%s", rec)
	}
	found := false
	for _, f := range jsonFindings(t, live) {
		if f.Line == badLine && f.Severity == "error" && f.Rule == "schema" && f.Pointer == "/params/update" {
			found = true
		}
	}
	if !found {
		t.Errorf("the session/update without content (line %d) was not reported:\n%s", badLine, live)
	}
	if _, later, _ := runCLI(t, "", "--format", "json", trace); string(live) != later {
		t.Errorf("live findings differ from a later validate:\nlive:\n%s\nlater:\n%s", live, later)
	}
}

func TestTapCrashingAgentLeavesItsRecordingAndStatus(t *testing.T) {
	node := needSDK(t)
	dir := t.TempDir()
	trace := filepath.Join(dir, "session.jsonl")
	s := runSession(t, node, "02-prompt-all-updates", []string{"--record", trace, "--findings", filepath.Join(dir, "f.txt"), "--"}, "--crash-after", "5")
	if s.code != 7 {
		t.Errorf("exit status %d, want the agent's 7 passed on by the tap", s.code)
	}
	_, a2c := splitRecording(t, trace)
	out := s.read(t, "agent-out")
	if !bytes.Equal(a2c, out) || bytes.Count(a2c, []byte("\n")) != 5 {
		t.Errorf("the recording holds %d agent lines, want the 5 the agent wrote before it crashed", bytes.Count(a2c, []byte("\n")))
	}
}

func TestTapUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "sarif", "--", "true"}, "want text, json or github"},
		{[]string{"trace.jsonl", "--", "true"}, "must follow --"},
		{[]string{"--no-such-flag", "--", "true"}, "no-such-flag"},
	} {
		code, stdout, stderr := runCLI(t, "", tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("validate %v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

func TestTapPassesTheAgentsStatusOnAndKeepsStdoutForTheProtocol(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on this system")
	}
	dir := t.TempDir()
	trace := filepath.Join(dir, "s.jsonl")
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"ed","version":"1"}}}` + "\n"
	reply := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"ag","version":"1"},"agentCapabilities":{},"authMethods":[]}}`
	code, stdout, stderr := runCLI(t, in, "--record", trace, "--", sh, "-c", "read line; echo '"+reply+"'; echo oops >&2; exit 5")
	if code != 5 {
		t.Errorf("exit %d, want the agent's 5", code)
	}
	if stdout != reply+"\n" {
		t.Errorf("stdout %q, want only the agent's output", stdout)
	}
	if !strings.Contains(stderr, "oops") || !strings.Contains(stderr, "summary: 1 file, 2 lines") {
		t.Errorf("stderr %q, want the agent's stderr and the findings summary", stderr)
	}
	rec, err := os.ReadFile(trace)
	if err != nil || string(rec) != in+reply+"\n" {
		t.Errorf("recording %q (%v)", rec, err)
	}
	if code, _, stderr := runCLI(t, "", "--", filepath.Join(dir, "no-such-agent")); code != 127 || !strings.Contains(stderr, "no-such-agent") {
		t.Errorf("missing agent: exit %d, stderr %q; want 127 and its name", code, stderr)
	}
}

func TestReplayTurnsARecordingIntoARegressionTest(t *testing.T) {
	node := needSDK(t)
	dir := t.TempDir()
	trace := filepath.Join(dir, "session.jsonl")
	if s := runSession(t, node, "04-terminals-fs", []string{"--record", trace, "--check=false", "--"}); s.code != 0 {
		t.Fatalf("recording the session failed (exit %d)", s.code)
	}
	abs, err := filepath.Abs(recorderDir)
	if err != nil {
		t.Fatal(err)
	}
	agent := []string{node, filepath.Join(abs, "stdio-agent.mjs")}

	// The same agent: the same shapes, no error.
	replayed := filepath.Join(dir, "replayed.jsonl")
	findings := filepath.Join(dir, "findings.json")
	args := append([]string{"--replay", trace, "--record", replayed, "--findings", findings, "--format", "json", "--timeout", "20s", "--"}, agent...)
	code, stdout, stderr := runCLI(t, "", args...)
	out, _ := os.ReadFile(findings)
	if code != exitOK || stdout != "" {
		t.Fatalf("replay against the recorded agent: exit %d, stdout %q, stderr %s, findings:\n%s", code, stdout, stderr, out)
	}
	// No error; a warning of a SHOULD the SDK's agent does not follow
	// is the recording's as well.
	for _, f := range jsonFindings(t, out) {
		if f.Severity == "error" {
			t.Errorf("replay against the recorded agent reports an error:\n%s", out)
			break
		}
	}
	rec, _ := os.ReadFile(trace)
	again, _ := os.ReadFile(replayed)
	if bytes.Count(rec, []byte("\n")) != bytes.Count(again, []byte("\n")) {
		t.Errorf("the replayed session has %d lines, the recording %d", bytes.Count(again, []byte("\n")), bytes.Count(rec, []byte("\n")))
	}

	// An agent that also sends a faulty update: the update is reported
	// by validation and the extra message by the comparison.
	args = append([]string{"--replay", trace, "--findings", findings, "--format", "json", "--timeout", "20s", "--"}, append(agent, "--bad")...)
	code, _, stderr = runCLI(t, "", args...)
	if code != exitFindings {
		t.Errorf("replay against a faulty agent: exit %d, want 1 (stderr %s)", code, stderr)
	}
	out, _ = os.ReadFile(findings)
	var schema, replay bool
	for _, f := range jsonFindings(t, out) {
		schema = schema || (f.Rule == "schema" && f.Pointer == "/params/update")
		replay = replay || (f.Rule == "replay" && strings.Contains(f.Message, "notification session/update agent_message_chunk"))
	}
	if !schema || !replay {
		t.Errorf("want the faulty update reported (%v) and the extra notification named (%v):\n%s", schema, replay, out)
	}
	// The summary counts every error printed, the differences included.
	errs := 0
	for _, f := range jsonFindings(t, out) {
		if f.Severity == "error" {
			errs++
		}
	}
	var last struct {
		Summary struct{ Errors int } `json:"summary"`
	}
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	if err := json.Unmarshal(lines[len(lines)-1], &last); err != nil || last.Summary.Errors != errs {
		t.Errorf("the summary counts %d errors, %d were printed (%v):\n%s", last.Summary.Errors, errs, err, out)
	}
}

func TestListenRelaysAnSSEServerAndRecordsEachStream(t *testing.T) {
	stream, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "arcan", "valid", "approval.sse"))
	if err != nil {
		t.Fatal(err)
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(stream)
	}))
	defer upstream.Close()
	dir := filepath.Join(t.TempDir(), "streams")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errR, errW := io.Pipe()
	exited := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"--listen", "127.0.0.1:0", "--upstream", upstream.URL, "--record", dir}, strings.NewReader(""), io.Discard, errW, plugins{})
		errW.Close()
		exited <- code
	}()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() string {
		select {
		case l := <-lines:
			return l
		case <-time.After(20 * time.Second):
			t.Fatal("the relay said nothing more")
			return ""
		}
	}
	first := next()
	_, addr, ok := strings.Cut(first, "relaying http://")
	if !ok {
		t.Fatalf("first line %q", first)
	}
	addr, _, _ = strings.Cut(addr, " ")
	resp, err := http.Get("http://" + addr + "/sessions/s1/events/stream")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Equal(body, stream) {
		t.Fatalf("the stream through the relay differs (%d bytes, want %d): %v", len(body), len(stream), err)
	}
	// The relay checks the traffic too: its findings may come first.
	for l := next(); !strings.Contains(l, "validate: recorded "); l = next() {
		if !strings.Contains(l, ": error: ") && !strings.Contains(l, ": warning: ") {
			t.Fatalf("want the recording named, got %q", l)
		}
	}
	cancel()
	select {
	case code := <-exited:
		if code != exitOK {
			t.Errorf("exit %d after an interrupt, want 0", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the relay did not stop when interrupted")
	}
	got, err := os.ReadFile(filepath.Join(dir, "0001_sessions_s1_events_stream.sse"))
	if err != nil || !bytes.Equal(got, stream) {
		t.Fatalf("the recording differs from the stream: %v", err)
	}
	if code, out, _ := runCLI(t, "", dir+"/0001_sessions_s1_events_stream.sse"); code != exitOK {
		t.Errorf("validate of the recorded stream exits %d:\n%s", code, out)
	}
}

func TestListenRelaysAnARCPWebSocketRuntime(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	hello := `{"arcp":"1.1","id":"01J0000000000000000000000A","type":"session.hello","payload":{"client":{"name":"t","version":"1"},"capabilities":{}}}`
	welcome := `{"arcp":"1.1","id":"01J0000000000000000000000B","type":"session.welcome","session_id":"s1","payload":{}}`
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		if _, _, err := c.Read(ctx); err != nil {
			return
		}
		_ = c.Write(ctx, websocket.MessageText, []byte(welcome))
		_, _, _ = c.Read(ctx) // until the client closes
	}))
	defer upstream.Close()
	dir := filepath.Join(t.TempDir(), "conns")
	rctx, stop := context.WithCancel(ctx)
	errR, errW := io.Pipe()
	exited := make(chan int, 1)
	go func() {
		exited <- run(rctx, []string{"--listen", "127.0.0.1:0", "--upstream", "ws" + strings.TrimPrefix(upstream.URL, "http") + "/arcp", "--record", dir}, strings.NewReader(""), io.Discard, errW, plugins{})
		errW.Close()
	}()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() string {
		select {
		case l := <-lines:
			return l
		case <-ctx.Done():
			t.Fatal("the relay said nothing more")
			return ""
		}
	}
	_, addr, ok := strings.Cut(next(), "relaying http://")
	if !ok {
		t.Fatal("the relay did not say where it listens")
	}
	addr, _, _ = strings.Cut(addr, " ")
	c, _, err := websocket.Dial(ctx, "ws://"+addr+"/arcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(ctx, websocket.MessageText, []byte(hello)); err != nil {
		t.Fatal(err)
	}
	if _, data, err := c.Read(ctx); err != nil || string(data) != welcome {
		t.Fatalf("through the relay: %q, %v", data, err)
	}
	c.Close(websocket.StatusNormalClosure, "")
	// The relay checks the traffic too: its findings may come first.
	for l := next(); !strings.Contains(l, "validate: recorded "); l = next() {
		if !strings.Contains(l, ": error: ") && !strings.Contains(l, ": warning: ") {
			t.Fatalf("want the recording named, got %q", l)
		}
	}
	stop()
	if code := <-exited; code != exitOK {
		t.Errorf("exit %d after an interrupt", code)
	}
	trace, _ := os.ReadFile(filepath.Join(dir, "0001.jsonl"))
	dirs, _ := os.ReadFile(filepath.Join(dir, "0001.jsonl.dir"))
	if string(trace) != hello+"\n"+welcome+"\n" || string(dirs) != "c2r\nr2c\n" {
		t.Errorf("recording %q with sidecar %q", trace, dirs)
	}
}

// TestTapFailOnError: with --fail-on-error the tap exits 1 when the live
// findings include an error, after the summary and a line saying what the
// agent's own status was; without errors, or without the flag, the
// agent's status is the command's. A relay, which only records, refuses
// the flag.
func TestTapFailOnError(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on this system")
	}
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"ed","version":"1"}}}` + "\n"
	good := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"ag","version":"1"},"agentCapabilities":{},"authMethods":[]}}`
	bad := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"one","agentCapabilities":{},"authMethods":[]}}`
	agent := func(reply string, status int) []string {
		return []string{sh, "-c", "read line; echo '" + reply + "'; exit " + strconv.Itoa(status)}
	}
	for _, tc := range []struct {
		name   string
		flags  []string
		reply  string
		status int
		want   int
		says   string
	}{
		{"errors, flag", []string{"--fail-on-error"}, bad, 0, exitFindings, "validate: the agent exited with status 0; exiting 1 because the findings include an error (--fail-on-error)\n"},
		{"errors, flag, failing agent", []string{"--fail-on-error"}, bad, 3, exitFindings, "the agent exited with status 3; exiting 1"},
		{"errors, no flag", nil, bad, 0, 0, ""},
		{"no errors, flag", []string{"--fail-on-error"}, good, 0, 0, ""},
		{"no errors, flag, failing agent", []string{"--fail-on-error"}, good, 4, 4, ""},
		{"errors, flag, json findings", []string{"--fail-on-error", "--format", "json"}, bad, 0, exitFindings, "exiting 1 because"},
	} {
		args := append(append(append([]string{}, tc.flags...), "--"), agent(tc.reply, tc.status)...)
		code, _, stderr := runCLI(t, in, args...)
		if code != tc.want {
			t.Errorf("%s: exit %d, want %d\n%s", tc.name, code, tc.want, stderr)
		}
		if tc.says == "" {
			if strings.Contains(stderr, "--fail-on-error") {
				t.Errorf("%s: stderr %q mentions --fail-on-error", tc.name, stderr)
			}
			continue
		}
		i, s := strings.Index(stderr, tc.says), strings.LastIndex(stderr, "summary")
		if i < 0 || s < 0 || i < s {
			t.Errorf("%s: stderr %q, want %q after the summary", tc.name, stderr, tc.says)
		}
	}
	for _, args := range [][]string{
		{"--fail-on-error", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1"},
		{"--fail-on-error", "--check=false", "--", sh, "-c", "true"},
	} {
		if code, _, stderr := runCLI(t, "", args...); code != exitUsage || !strings.Contains(stderr, "--fail-on-error needs the live checks") {
			t.Errorf("%q: exit %d, stderr %q; want a usage error", args, code, stderr)
		}
	}
}
