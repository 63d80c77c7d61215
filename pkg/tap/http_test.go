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

	"github.com/agentproto/agentproto/pkg/validate"
)

func TestHTTPRelayStreamsSSEUnchangedAndRecordsIt(t *testing.T) {
	stream, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "arcan", "valid", "tool-run.sse"))
	if err != nil {
		t.Fatal(err)
	}
	frames := strings.SplitAfter(string(stream), "\n\n")
	firstRead := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/sessions/billing-api/events/stream":
			w.Header().Set("Content-Type", "text/event-stream")
			for i, f := range frames {
				io.WriteString(w, f)
				w.(http.Flusher).Flush()
				if i == 0 {
					// The rest waits until the client has the first
					// frame: the relay must not hold it back.
					select {
					case <-firstRead:
					case <-time.After(10 * time.Second):
						return
					}
				}
			}
		case "/sessions":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `[{"id":"billing-api"}]`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	dir := t.TempDir()
	var mu sync.Mutex
	var recorded []string
	h, err := NewHTTPRelay(HTTPConfig{Upstream: u, RecordDir: dir, Recorded: func(p string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			t.Errorf("recording %s: %v", p, err)
		}
		recorded = append(recorded, p)
	}})
	if err != nil {
		t.Fatal(err)
	}
	relay := httptest.NewServer(h)
	defer relay.Close()

	resp, err := http.Get(relay.URL + "/sessions/billing-api/events/stream")
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(resp.Body)
	var got strings.Builder
	for got.Len() < len(frames[0]) {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the first frame: %v", err)
		}
		got.WriteString(line)
	}
	close(firstRead)
	rest, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got.Write(rest)
	if got.String() != string(stream) {
		t.Errorf("the stream through the relay differs from the server's (%d bytes, want %d)", got.Len(), len(stream))
	}

	resp, err = http.Get(relay.URL + "/sessions")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != `[{"id":"billing-api"}]` {
		t.Errorf("JSON through the relay: %q", body)
	}

	mu.Lock()
	defer mu.Unlock()
	want := filepath.Join(dir, "0001_sessions_billing-api_events_stream.sse")
	if len(recorded) != 1 || recorded[0] != want {
		t.Fatalf("recorded %v, want only %s", recorded, want)
	}
	trace, err := os.ReadFile(want)
	if err != nil || string(trace) != string(stream) {
		t.Fatalf("the recording differs from the stream (%v)", err)
	}
	eng, err := validate.New(validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(want)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, err := eng.Check(context.Background(), want, f, validate.FileOptions{}, nil)
	orig, oerr := eng.Check(context.Background(), "orig", strings.NewReader(string(stream)), validate.FileOptions{}, nil)
	if err != nil || oerr != nil || sum.Errors != 0 || sum.Messages == 0 || sum.Messages != orig.Messages {
		t.Errorf("validating the recording: %d errors, %d messages (want 0, %d), %v %v", sum.Errors, sum.Messages, orig.Messages, err, oerr)
	}
}

func TestHTTPRelayWantsAnHTTPUpstream(t *testing.T) {
	for _, s := range []string{"ws://localhost/arcp", "localhost:8080", "http://"} {
		u, _ := url.Parse(s)
		if _, err := NewHTTPRelay(HTTPConfig{Upstream: u}); err == nil {
			t.Errorf("upstream %q accepted", s)
		}
	}
}
