package tap

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The relays' clients may go away mid-stream without a word: a crashed
// editor's connection is cut, not closed. The tests below cut one
// client's connection while the server streams to it and to a second
// client, and hold the relay to ending that connection's recording and
// live check at once while it goes on serving the other.

// endedWithin waits up to limit for a name on ch.
func endedWithin(t *testing.T, ch <-chan string, limit time.Duration, what string) string {
	t.Helper()
	select {
	case n := <-ch:
		return n
	case <-time.After(limit):
		t.Fatalf("%s did not end within %v of its client's going", what, limit)
	}
	return ""
}

// TestWSRelayEndsTheConnectionOfAClientThatWentAway: a client whose TCP
// connection is cut mid-stream has its recording and live check ended
// within a second; a second client goes on receiving frames.
func TestWSRelayEndsTheConnectionOfAClientThatWentAway(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The runtime sends events without end, until its client goes.
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for i := 0; ; i++ {
			msg := fmt.Sprintf(`{"arcp":"1.1","id":"e%d","type":"job.event","payload":{"kind":"log","body":{"message":"tick"}}}`, i)
			if c.Write(ctx, websocket.MessageText, []byte(msg)) != nil {
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}))
	defer upstream.Close()
	u, _ := url.Parse("ws" + strings.TrimPrefix(upstream.URL, "http"))
	check := newRelayCheck(t)
	recorded := make(chan string, 2)
	h, err := NewWSRelay(WSConfig{Upstream: u, RecordDir: t.TempDir(), Check: &check.RelayCheck, Recorded: func(p string, err error) { recorded <- p }})
	if err != nil {
		t.Fatal(err)
	}
	relay := httptest.NewServer(h)
	defer relay.Close()
	dial := func() *websocket.Conn {
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(relay.URL, "http"), nil)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, _, err := c.Read(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	gone, stays := dial(), dial()
	defer stays.CloseNow()
	gone.CloseNow() // the connection is cut: no close frame
	first := endedWithin(t, check.done, time.Second, "the live check")
	if p := endedWithin(t, recorded, time.Second, "the recording"); p != first {
		t.Errorf("recording %s ended, and the check of %s", p, first)
	}
	for range 20 {
		if _, _, err := stays.Read(ctx); err != nil {
			t.Fatalf("the other client is no longer served: %v", err)
		}
	}
	select {
	case n := <-check.done:
		t.Errorf("the check of %s ended too, though its client stays", n)
	default:
	}
}

// TestHTTPRelayEndsTheStreamOfAClientThatWentAway: the same for event
// streams: a client that drops its request mid-stream has that stream's
// recording and live check ended within a second, and a second stream
// goes on.
func TestHTTPRelayEndsTheStreamOfAClientThatWentAway(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(w, "id: %d\nevent: text_delta\ndata: {\"type\":\"text_delta\",\"delta\":\"tick\"}\n\n", i); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	check := newRelayCheck(t)
	recorded := make(chan string, 2)
	h, err := NewHTTPRelay(HTTPConfig{Upstream: u, RecordDir: t.TempDir(), Check: &check.RelayCheck, Recorded: func(p string, err error) { recorded <- p }})
	if err != nil {
		t.Fatal(err)
	}
	relay := httptest.NewServer(h)
	defer relay.Close()
	open := func() (*bufio.Reader, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, relay.URL+"/sessions/s/events/stream", nil)
		// A transport of its own: cancelling one request cuts its own
		// connection, not one the other stream shares.
		resp, err := (&http.Transport{}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(resp.Body)
		for range 3 {
			if _, err := br.ReadString('\n'); err != nil {
				t.Fatal(err)
			}
		}
		return br, cancel
	}
	_, cut := open()
	stays, done := open()
	defer done()
	cut()
	first := endedWithin(t, check.done, time.Second, "the live check")
	if p := endedWithin(t, recorded, time.Second, "the recording"); p != first {
		t.Errorf("recording %s ended, and the check of %s", p, first)
	}
	for range 20 {
		if _, err := stays.ReadString('\n'); err != nil && err != io.EOF {
			t.Fatalf("the other stream is no longer served: %v", err)
		}
	}
	select {
	case n := <-check.done:
		t.Errorf("the check of %s ended too, though its client stays", n)
	default:
	}
}
