package tap

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/typed"
)

// relayCheck collects what a relay's live check reports.
type relayCheck struct {
	RelayCheck
	mu       sync.Mutex
	findings map[string][]validate.Finding // by trace name
	done     chan string
	stats    map[string]LiveStats
	errs     map[string]error
}

func newRelayCheck(t *testing.T) *relayCheck {
	t.Helper()
	eng, err := validate.New(validate.Options{Fast: typed.Checker{}})
	if err != nil {
		t.Fatal(err)
	}
	c := &relayCheck{findings: map[string][]validate.Finding{}, done: make(chan string, 8), stats: map[string]LiveStats{}, errs: map[string]error{}}
	c.Engine = eng
	c.Report = func(f validate.Finding) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.findings[f.File] = append(c.findings[f.File], f)
	}
	c.Done = func(name string, _ validate.Summary, st LiveStats, err error) {
		c.mu.Lock()
		c.stats[name], c.errs[name] = st, err
		c.mu.Unlock()
		c.done <- name
	}
	return c
}

// wait returns the name of the next trace whose check has ended.
func (c *relayCheck) wait(t *testing.T) string {
	t.Helper()
	select {
	case n := <-c.done:
		c.mu.Lock()
		defer c.mu.Unlock()
		if err := c.errs[n]; err != nil {
			t.Errorf("live check of %s: %v", n, err)
		}
		return n
	case <-time.After(20 * time.Second):
		t.Fatal("no trace's live check ended")
		return ""
	}
}

// sameAsLater fails unless the live findings of the trace at path equal a
// check of the recording (with its sidecar, if it has one), and returns
// them.
func (c *relayCheck) sameAsLater(t *testing.T, path string) []validate.Finding {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fo := validate.FileOptions{}
	if d, err := os.Open(path + ".dir"); err == nil {
		defer d.Close()
		fo.Directions = d
	}
	var later []validate.Finding
	if _, err := c.Engine.Check(context.Background(), path, f, fo, func(f validate.Finding) { later = append(later, f) }); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	live := c.findings[path]
	c.mu.Unlock()
	got, want := strings.Join(findingStrings(live), "\n"), strings.Join(findingStrings(later), "\n")
	if got != want {
		t.Errorf("live findings of %s differ from a later check of the recording:\nlive:\n%s\nlater:\n%s", path, got, want)
	}
	return live
}

// arcpSession is a recorded ARCP session: its lines and their directions.
type arcpSession struct {
	lines []string
	dirs  []Direction
}

func readARCPSession(t *testing.T, path string) arcpSession {
	t.Helper()
	tr, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s arcpSession
	s.lines = strings.Split(strings.TrimSuffix(string(tr), "\n"), "\n")
	if d, err := os.ReadFile(strings.TrimSuffix(path, ".jsonl") + ".dir"); err == nil {
		for _, w := range strings.Fields(string(d)) {
			s.dirs = append(s.dirs, map[string]Direction{"c2r": ClientToAgent, "r2c": AgentToClient}[w])
		}
		return s
	}
	// A fixture without a sidecar: the client sends the hello and the
	// submissions, the runtime everything else.
	for _, l := range s.lines {
		d := AgentToClient
		if strings.Contains(l, `"type":"session.hello"`) || strings.Contains(l, `"type":"job.submit"`) {
			d = ClientToAgent
		}
		s.dirs = append(s.dirs, d)
	}
	return s
}

// playWS plays s through a WebSocket relay with live checking, between
// a runtime and a client that each send their side's frames in the
// session's order and read the other's, and returns the recording's path.
func playWS(t *testing.T, c *relayCheck, s arcpSession) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if len(s.dirs) != len(s.lines) {
		t.Fatalf("%d lines, %d directions", len(s.lines), len(s.dirs))
	}
	// play sends the lines of direction mine and reads the others.
	play := func(conn *websocket.Conn, mine Direction) error {
		for i, l := range s.lines {
			if s.dirs[i] == mine {
				if err := conn.Write(ctx, websocket.MessageText, []byte(l)); err != nil {
					return err
				}
				continue
			}
			if _, data, err := conn.Read(ctx); err != nil {
				return err
			} else if string(data) != l {
				t.Errorf("line %d arrived as %q", i+1, data)
			}
		}
		return nil
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		if err := play(conn, AgentToClient); err != nil {
			t.Errorf("runtime: %v", err)
		}
		_, _, _ = conn.Read(ctx) // until the client closes
	}))
	defer upstream.Close()
	u, _ := url.Parse("ws" + strings.TrimPrefix(upstream.URL, "http") + "/arcp")
	dir := t.TempDir()
	recorded := make(chan string, 1)
	h, err := NewWSRelay(WSConfig{Upstream: u, RecordDir: dir, Check: &c.RelayCheck, Recorded: func(p string, err error) {
		if err != nil {
			t.Errorf("recording: %v", err)
		}
		recorded <- p
	}})
	if err != nil {
		t.Fatal(err)
	}
	relay := httptest.NewServer(h)
	defer relay.Close()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(relay.URL, "http")+"/arcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := play(conn, ClientToAgent); err != nil {
		t.Fatalf("client: %v", err)
	}
	conn.Close(websocket.StatusNormalClosure, "")
	name := c.wait(t)
	select {
	case p := <-recorded:
		if p != name {
			t.Errorf("findings name %s, the recording is %s", name, p)
		}
	case <-ctx.Done():
		t.Fatal("the recording was never finished")
	}
	if st := c.stats[name]; st.Lines != len(s.lines) || st.StoppedAt != 0 {
		t.Errorf("live stats %+v, want all %d lines checked", st, len(s.lines))
	}
	return name
}

func TestWSRelayChecksEachConnectionLiveAsALaterCheckOfItsRecording(t *testing.T) {
	c := newRelayCheck(t)
	// A real session of the Go SDK: no error, the SDK's dialect
	// deviations as warnings.
	path := playWS(t, c, readARCPSession(t, filepath.Join("..", "..", "fixtures", "arcp", "recordings", "go-sdk", "02_job_all_event_kinds.jsonl")))
	live := c.sameAsLater(t, path)
	if len(live) == 0 {
		t.Error("the Go SDK session's dialect warnings were not reported live")
	}
	for _, f := range live {
		if f.Severity == validate.Error {
			t.Errorf("an error in a valid session: %s", findingStrings([]validate.Finding{f}))
		}
	}

	// A runtime that skips an event_seq.
	path = playWS(t, c, readARCPSession(t, filepath.Join("..", "..", "fixtures", "arcp", "v1.1", "invalid", "seq-gap.jsonl")))
	live = c.sameAsLater(t, path)
	found := false
	for _, f := range live {
		found = found || (f.Line == 7 && f.Rule == "seq-gap" && f.Pointer == "/event_seq")
	}
	if !found {
		t.Errorf("the event_seq gap (line 7) was not reported live: %s", findingStrings(live))
	}
}

// sseOf frames each line of a JSON Lines trace as an SSE event.
func sseOf(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		sb.WriteString("data: " + l + "\n\n")
	}
	return sb.String()
}

// playSSE streams stream through an HTTP relay with live checking, a frame
// at a time with pauses between, and returns the recording's path.
func playSSE(t *testing.T, c *relayCheck, stream string) string {
	t.Helper()
	frames := strings.SplitAfter(stream, "\n\n")
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i, f := range frames {
			io.WriteString(w, f)
			w.(http.Flusher).Flush()
			if i%3 == 0 {
				time.Sleep(10 * time.Millisecond)
			}
		}
	}))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	dir := t.TempDir()
	recorded := make(chan string, 1)
	h, err := NewHTTPRelay(HTTPConfig{Upstream: u, RecordDir: dir, Check: &c.RelayCheck, Recorded: func(p string, err error) {
		if err != nil {
			t.Errorf("recording: %v", err)
		}
		recorded <- p
	}})
	if err != nil {
		t.Fatal(err)
	}
	relay := httptest.NewServer(h)
	defer relay.Close()
	resp, err := http.Get(relay.URL + "/sessions/s1/events/stream")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(bufio.NewReader(resp.Body))
	resp.Body.Close()
	if err != nil || string(got) != stream {
		t.Fatalf("the stream through the relay differs (%d bytes, want %d): %v", len(got), len(stream), err)
	}
	name := c.wait(t)
	select {
	case p := <-recorded:
		if p != name {
			t.Errorf("findings name %s, the recording is %s", name, p)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the recording was never finished")
	}
	return name
}

func TestHTTPRelayChecksEachEventStreamLiveAsALaterCheckOfItsRecording(t *testing.T) {
	c := newRelayCheck(t)
	stream, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "arcan", "valid", "tool-run.sse"))
	if err != nil {
		t.Fatal(err)
	}
	path := playSSE(t, c, string(stream))
	if live := c.sameAsLater(t, path); len(live) != 0 {
		t.Errorf("findings in a valid stream: %s", findingStrings(live))
	}
	c.mu.Lock()
	st := c.stats[path]
	c.mu.Unlock()
	if st.Lines != strings.Count(string(stream), "\n") || st.StoppedAt != 0 {
		t.Errorf("live stats %+v, want all %d lines checked", st, strings.Count(string(stream), "\n"))
	}

	// Events after a run finished or errored.
	path = playSSE(t, c, sseOf(t, filepath.Join("..", "..", "fixtures", "arcan", "invalid", "event-after-finish.jsonl")))
	live := c.sameAsLater(t, path)
	var lines []int
	for _, f := range live {
		if f.Severity == validate.Error {
			lines = append(lines, f.Line)
		}
	}
	// The fixture's lines 6, 11, 13 and 14 are the frames' first lines
	// 11, 21, 25 and 27.
	if want := []int{11, 21, 25, 27}; !equalInts(lines, want) {
		t.Errorf("errors live at lines %v, want %v: %s", lines, want, findingStrings(live))
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestWSRelayNeverWaitsForItsCheck(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := newRelayCheck(t)
	// A findings output that takes nothing until the session is over,
	// and a backlog smaller than the session.
	release := make(chan struct{})
	report := c.Report
	c.Report = func(f validate.Finding) {
		<-release
		report(f)
	}
	c.Backlog = 4 << 10
	s := readARCPSession(t, filepath.Join("..", "..", "fixtures", "arcp", "v1.1", "invalid", "seq-gap.jsonl"))
	// The runtime sends the session's events again and again, with no
	// pause, well past the backlog.
	const rounds = 200
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		for i := 0; i < rounds; i++ {
			for k, l := range s.lines {
				if s.dirs[k] == AgentToClient {
					if err := conn.Write(ctx, websocket.MessageText, []byte(l)); err != nil {
						return
					}
				}
			}
		}
		_, _, _ = conn.Read(ctx)
	}))
	defer upstream.Close()
	u, _ := url.Parse("ws" + strings.TrimPrefix(upstream.URL, "http") + "/arcp")
	h, err := NewWSRelay(WSConfig{Upstream: u, RecordDir: t.TempDir(), Check: &c.RelayCheck})
	if err != nil {
		t.Fatal(err)
	}
	relay := httptest.NewServer(h)
	defer relay.Close()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(relay.URL, "http")+"/arcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, d := range s.dirs {
		if d == AgentToClient {
			want += rounds
		}
	}
	for n := 0; n < want; n++ {
		if _, _, err := conn.Read(ctx); err != nil {
			t.Fatalf("frame %d of %d did not come through while the check was held up: %v", n+1, want, err)
		}
	}
	conn.Close(websocket.StatusNormalClosure, "")
	close(release)
	name := <-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	if err, st := c.errs[name], c.stats[name]; err == nil || !strings.Contains(err.Error(), "backlog") || st.StoppedAt == 0 || st.Lines != want {
		t.Errorf("the check that fell behind: %+v, %v; want it stopped for its backlog after seeing all %d lines", st, err, want)
	}
}

func TestWSRelayStopsTheCheckOfAConnectionThatLostAFrame(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := newRelayCheck(t)
	big := `{"arcp":"1.1","id":"x","type":"session.hello","payload":{"pad":"` + strings.Repeat("a", 8<<10) + `"}}`
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		for {
			typ, data, err := conn.Read(ctx)
			if err != nil {
				return
			}
			_ = conn.Write(ctx, typ, data)
		}
	}))
	defer upstream.Close()
	u, _ := url.Parse("ws" + strings.TrimPrefix(upstream.URL, "http") + "/arcp")
	var recErr error
	recorded := make(chan struct{})
	// The frames held for recordings and checks, all connections
	// together, are bounded below the big frame's size.
	h, err := NewWSRelay(WSConfig{Upstream: u, RecordDir: t.TempDir(), MaxHeld: 16 << 10, Check: &c.RelayCheck, Recorded: func(_ string, err error) { recErr = err; close(recorded) }})
	if err != nil {
		t.Fatal(err)
	}
	relay := httptest.NewServer(h)
	defer relay.Close()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(relay.URL, "http")+"/arcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{`{"arcp":"1.1"}`, big, `{"arcp":"1.1"}`} {
		if err := conn.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
		if _, data, err := conn.Read(ctx); err != nil || string(data) != m {
			t.Fatalf("the frame did not come back whole: %v", err)
		}
	}
	conn.Close(websocket.StatusNormalClosure, "")
	name := <-c.done
	<-recorded
	c.mu.Lock()
	defer c.mu.Unlock()
	if err, st := c.errs[name], c.stats[name]; err == nil || !strings.Contains(err.Error(), "did not fit") || st.StoppedAt != 3 {
		t.Errorf("the check of a connection that lost line 3: %+v, %v; want it stopped there", st, err)
	}
	if recErr == nil || !strings.Contains(recErr.Error(), "did not fit") {
		t.Errorf("the recording's error: %v", recErr)
	}
}

func TestHTTPRelayJudgesAStreamCutMidFrameAsALaterCheck(t *testing.T) {
	c := newRelayCheck(t)
	stream, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "arcan", "valid", "tool-run.sse"))
	if err != nil {
		t.Fatal(err)
	}
	// The server ends the response inside the last frame's JSON, with no
	// newline after it: the check is given the bytes as they came, as the
	// recording holds them.
	path := playSSE(t, c, string(stream[:len(stream)-40]))
	live := c.sameAsLater(t, path)
	if len(live) != 1 || live[0].Rule != "json" {
		t.Errorf("want one json finding for the cut frame: %s", findingStrings(live))
	}
}
