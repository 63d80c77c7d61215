package tap

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestWSRelayPassesFramesAndClosesAndRecordsEachConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	closed := make(chan websocket.StatusCode, 1)
	// The runtime answers each frame with an ack and an event, and reports
	// the status the client closed with.
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"arcp.v1"}})
		if err != nil {
			return
		}
		for i := 1; ; i++ {
			_, data, err := c.Read(ctx)
			if err != nil {
				closed <- websocket.CloseStatus(err)
				return
			}
			_ = c.Write(ctx, websocket.MessageText, []byte(`{"arcp":"1.1","id":"r`+string(rune('0'+i))+`","type":"ack","payload":{"of":`+string(data)+`}}`))
			_ = c.Write(ctx, websocket.MessageText, []byte("{\n  \"arcp\": \"1.1\",\n  \"type\": \"event\"\n}"))
		}
	}))
	defer upstream.Close()
	u, _ := url.Parse("ws" + strings.TrimPrefix(upstream.URL, "http") + "/arcp")
	dir := t.TempDir()
	recorded := make(chan string, 1)
	h, err := NewWSRelay(WSConfig{Upstream: u, RecordDir: dir, Recorded: func(p string, err error) {
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

	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(relay.URL, "http")+"/arcp", &websocket.DialOptions{Subprotocols: []string{"arcp.v1"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Subprotocol() != "arcp.v1" {
		t.Errorf("subprotocol %q, want the server's arcp.v1", c.Subprotocol())
	}
	var want []string
	for i := 1; i <= 3; i++ {
		msg := `{"n":` + string(rune('0'+i)) + `}`
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		want = append(want, "c2r "+msg)
		for k := 0; k < 2; k++ {
			typ, data, err := c.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if typ != websocket.MessageText {
				t.Errorf("frame type %v", typ)
			}
			if k == 1 && string(data) != "{\n  \"arcp\": \"1.1\",\n  \"type\": \"event\"\n}" {
				t.Errorf("the event frame changed on the way: %q", data)
			}
			line := string(data)
			if k == 1 {
				line = `{"arcp":"1.1","type":"event"}`
			}
			want = append(want, "r2c "+line)
		}
	}
	if err := c.Close(websocket.StatusNormalClosure, "done"); err != nil {
		t.Fatalf("closing: %v", err)
	}
	select {
	case code := <-closed:
		if code != websocket.StatusNormalClosure {
			t.Errorf("the server saw close status %v, want the client's 1000", code)
		}
	case <-ctx.Done():
		t.Fatal("the server never saw the close")
	}
	var path string
	select {
	case path = <-recorded:
	case <-ctx.Done():
		t.Fatal("the connection's recording was never finished")
	}
	if path != filepath.Join(dir, "0001.jsonl") {
		t.Errorf("trace %s", path)
	}
	trace, err1 := os.ReadFile(path)
	dirs, err2 := os.ReadFile(path + ".dir")
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	tl, dl := strings.Split(strings.TrimSuffix(string(trace), "\n"), "\n"), strings.Fields(string(dirs))
	if len(tl) != len(want) || len(dl) != len(want) {
		t.Fatalf("recorded %d lines and %d directions, want %d:\n%s", len(tl), len(dl), len(want), trace)
	}
	for i := range want {
		if got := dl[i] + " " + tl[i]; got != want[i] {
			t.Errorf("line %d: %s, want %s", i+1, got, want[i])
		}
	}
}
