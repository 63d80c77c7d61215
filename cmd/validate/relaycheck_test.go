package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// relayRun is validate --listen running in the background.
type relayRun struct {
	t      *testing.T
	addr   string
	lines  chan string // its standard error, line by line
	stop   context.CancelFunc
	exited chan int
}

// startRelay runs validate with args (which hold --listen 127.0.0.1:0)
// until stopped.
func startRelay(t *testing.T, args ...string) *relayRun {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	errR, errW := io.Pipe()
	r := &relayRun{t: t, lines: make(chan string, 256), stop: stop, exited: make(chan int, 1)}
	go func() {
		r.exited <- run(ctx, args, strings.NewReader(""), io.Discard, errW, plugins{})
		errW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
	}()
	_, addr, ok := strings.Cut(r.next(), "relaying http://")
	if !ok {
		stop()
		t.Fatal("the relay did not say where it listens")
	}
	r.addr, _, _ = strings.Cut(addr, " ")
	return r
}

func (r *relayRun) next() string {
	r.t.Helper()
	select {
	case l, ok := <-r.lines:
		if !ok {
			r.t.Fatal("the relay's standard error ended")
		}
		return l
	case <-time.After(20 * time.Second):
		r.t.Fatal("the relay said nothing more")
		return ""
	}
}

// recorded waits until the relay says it has recorded (and checked) a
// trace, and returns its path and what it said before.
func (r *relayRun) recorded() (path string, before []string) {
	r.t.Helper()
	for {
		l := r.next()
		if _, p, ok := strings.Cut(l, "validate: recorded "); ok {
			return p, before
		}
		before = append(before, l)
	}
}

// end interrupts the relay, checks it exits 0 and returns what it said
// on standard error after the last recording.
func (r *relayRun) end() []string {
	r.t.Helper()
	r.stop()
	select {
	case code := <-r.exited:
		if code != exitOK {
			r.t.Errorf("exit %d after an interrupt, want 0", code)
		}
	case <-time.After(20 * time.Second):
		r.t.Fatal("the relay did not stop when interrupted")
	}
	var rest []string
	for l := range r.lines {
		rest = append(rest, l)
	}
	return rest
}

// sameFindings fails unless the live findings file (--format json) holds
// the findings of validate --format json run on the recordings, line for
// line, and a summary that counts the same; it returns the findings.
func sameFindings(t *testing.T, findingsFile string, recordings ...string) []jsonFindingLine {
	t.Helper()
	live, err := os.ReadFile(findingsFile)
	if err != nil {
		t.Fatal(err)
	}
	_, later, _ := runCLI(t, "", append([]string{"--format", "json"}, recordings...)...)
	lf, ls := splitJSONOutput(t, string(live))
	of, osum := splitJSONOutput(t, later)
	if strings.Join(lf, "\n") != strings.Join(of, "\n") {
		t.Errorf("live findings differ from validate of the recordings:\nlive:\n%s\nlater:\n%s", strings.Join(lf, "\n"), strings.Join(of, "\n"))
	}
	for _, k := range []string{"files", "lines", "messages", "errors", "warnings", "by_rule", "by_type"} {
		if a, b := string(ls[k]), string(osum[k]); a != b {
			t.Errorf("summary %s: live %s, later %s", k, a, b)
		}
	}
	var out []jsonFindingLine
	for _, l := range lf {
		var f jsonFindingLine
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

type jsonFindingLine struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Pointer  string `json:"pointer"`
}

// splitJSONOutput parts --format json output into its finding lines and
// its summary's fields.
func splitJSONOutput(t *testing.T, out string) (findings []string, summary map[string]json.RawMessage) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var s struct {
			Summary map[string]json.RawMessage `json:"summary"`
		}
		if json.Unmarshal([]byte(l), &s) == nil && s.Summary != nil {
			summary = s.Summary
			continue
		}
		findings = append(findings, l)
	}
	if summary == nil {
		t.Fatalf("no summary in:\n%s", out)
	}
	return findings, summary
}

func TestListenChecksEachWebSocketConnectionLiveAsValidateOfItsRecording(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Two recorded ARCP sessions: a Go SDK session (the SDK's dialect
	// deviations as warnings) and a runtime that skips an event_seq.
	type line struct {
		fromClient bool
		text       string
	}
	sessions := map[string][]line{}
	for name, path := range map[string]string{
		"clean": filepath.Join("..", "..", "fixtures", "arcp", "recordings", "go-sdk", "02_job_all_event_kinds"),
		"gap":   filepath.Join("..", "..", "fixtures", "arcp", "v1.1", "invalid", "seq-gap"),
	} {
		tr, err := os.ReadFile(path + ".jsonl")
		if err != nil {
			t.Fatal(err)
		}
		dirs, _ := os.ReadFile(path + ".dir") // seq-gap has none
		ds := strings.Fields(string(dirs))
		for i, l := range strings.Split(strings.TrimSuffix(string(tr), "\n"), "\n") {
			client := strings.Contains(l, `"type":"session.hello"`) || strings.Contains(l, `"type":"job.submit"`)
			if len(ds) > 0 {
				client = ds[i] == "c2r"
			}
			sessions[name] = append(sessions[name], line{client, l})
		}
	}
	play := func(c *websocket.Conn, s []line, client bool) error {
		for _, l := range s {
			if l.fromClient == client {
				if err := c.Write(ctx, websocket.MessageText, []byte(l.text)); err != nil {
					return err
				}
			} else if _, _, err := c.Read(ctx); err != nil {
				return err
			}
		}
		return nil
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		if err := play(c, sessions[r.URL.Query().Get("s")], false); err != nil {
			t.Errorf("runtime: %v", err)
		}
		_, _, _ = c.Read(ctx) // until the client closes
	}))
	defer upstream.Close()
	dir := filepath.Join(t.TempDir(), "conns")
	findings := filepath.Join(t.TempDir(), "findings.jsonl")
	r := startRelay(t, "--listen", "127.0.0.1:0", "--upstream", "ws"+strings.TrimPrefix(upstream.URL, "http")+"/arcp", "--record", dir, "--findings", findings, "--format", "json")
	var recs []string
	for _, s := range []string{"clean", "gap"} {
		c, _, err := websocket.Dial(ctx, "ws://"+r.addr+"/arcp?s="+s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := play(c, sessions[s], true); err != nil {
			t.Fatalf("client: %v", err)
		}
		c.Close(websocket.StatusNormalClosure, "")
		p, _ := r.recorded()
		recs = append(recs, p)
	}
	r.end()
	got := sameFindings(t, findings, recs...)
	var warnings, gap int
	for _, f := range got {
		switch {
		case f.File == recs[0] && f.Severity == "warning":
			warnings++
		case f.File == recs[0]:
			t.Errorf("the Go SDK session has a %s: %+v", f.Severity, f)
		case f.File == recs[1] && f.Line == 7 && f.Rule == "seq-gap" && f.Pointer == "/event_seq":
			gap++
		}
	}
	if warnings == 0 || gap != 1 {
		t.Errorf("live: %d dialect warnings (want some) and %d event_seq gaps (want 1): %+v", warnings, gap, got)
	}
}

func TestListenChecksEachEventStreamLiveAsValidateOfItsRecording(t *testing.T) {
	clean, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "arcan", "valid", "tool-run.sse"))
	if err != nil {
		t.Fatal(err)
	}
	bad, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "arcan", "invalid", "event-after-finish.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(string(bad), "\n"), "\n") {
		sb.WriteString("event: agent_event\ndata: " + l + "\n\n")
	}
	streams := map[string]string{"/sessions/clean/events/stream": string(clean), "/sessions/bad/events/stream": sb.String()}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, ok := streams[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i, f := range strings.SplitAfter(s, "\n\n") {
			io.WriteString(w, f)
			w.(http.Flusher).Flush()
			if i%4 == 0 {
				time.Sleep(10 * time.Millisecond)
			}
		}
	}))
	defer upstream.Close()
	dir := filepath.Join(t.TempDir(), "streams")
	findings := filepath.Join(t.TempDir(), "findings.jsonl")
	r := startRelay(t, "--listen", "127.0.0.1:0", "--upstream", upstream.URL, "--record", dir, "--findings", findings, "--format", "json")
	var recs []string
	for _, p := range []string{"/sessions/clean/events/stream", "/sessions/bad/events/stream"} {
		resp, err := http.Get("http://" + r.addr + p)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(body) != streams[p] {
			t.Fatalf("the stream through the relay differs (%d bytes, want %d): %v", len(body), len(streams[p]), err)
		}
		p, _ := r.recorded()
		recs = append(recs, p)
	}
	r.end()
	got := sameFindings(t, findings, recs...)
	var lines []int
	for _, f := range got {
		if f.File == recs[0] {
			t.Errorf("a finding in a valid stream: %+v", f)
		}
		if f.File == recs[1] && f.Severity == "error" {
			lines = append(lines, f.Line)
		}
	}
	// The fixture's lines 6, 11, 13 and 14 are the frames that start
	// (with their event: field) at lines 16, 31, 37 and 40.
	if want := []int{16, 31, 37, 40}; jsonInts(lines) != jsonInts(want) {
		t.Errorf("errors live at lines %v, want %v", lines, want)
	}
}

func jsonInts(v []int) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// arcanStream is the event-after-finish fixture as an SSE stream.
func arcanStream(t *testing.T) string {
	t.Helper()
	bad, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "arcan", "invalid", "event-after-finish.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(string(bad), "\n"), "\n") {
		sb.WriteString("data: " + l + "\n\n")
	}
	return sb.String()
}

func TestListenFindingsGoToStderrAndCheckFalseOnlyRecords(t *testing.T) {
	stream := arcanStream(t)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, stream)
	}))
	defer upstream.Close()
	get := func(r *relayRun) (string, []string) {
		resp, err := http.Get("http://" + r.addr + "/sessions/s/events/stream")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(body) != stream {
			t.Fatalf("the stream through the relay differs: %v", err)
		}
		return r.recorded()
	}

	// Checking (the default), findings to stderr in text, and the
	// summary when the relay stops.
	r := startRelay(t, "--listen", "127.0.0.1:0", "--upstream", upstream.URL, "--record", filepath.Join(t.TempDir(), "a"))
	path, before := get(r)
	after := r.end()
	var errs int
	for _, l := range append(before, after...) {
		if strings.HasPrefix(l, path+":") && strings.Contains(l, ": error: ") {
			errs++
		}
	}
	if errs != 4 {
		t.Errorf("%d errors of %s on stderr, want 4:\n%s", errs, path, strings.Join(append(before, after...), "\n"))
	}
	if !strings.Contains(strings.Join(after, "\n"), "summary: 1 file, 28 lines, 14 messages: 4 errors") {
		t.Errorf("no summary when the relay stopped:\n%s", strings.Join(after, "\n"))
	}

	// --check=false: the stream is recorded, nothing is checked, no
	// findings file is made.
	findings := filepath.Join(t.TempDir(), "findings.txt")
	r = startRelay(t, "--listen", "127.0.0.1:0", "--upstream", upstream.URL, "--record", filepath.Join(t.TempDir(), "b"), "--check=false", "--findings", findings)
	path, before = get(r)
	after = r.end()
	if said := append(before, after...); len(said) != 0 {
		t.Errorf("with --check=false the relay said:\n%s", strings.Join(said, "\n"))
	}
	if _, err := os.Stat(findings); !os.IsNotExist(err) {
		t.Errorf("with --check=false a findings file was made (%v)", err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != stream {
		t.Errorf("with --check=false the recording differs from the stream: %v", err)
	}
}
