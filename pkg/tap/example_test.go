package tap_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/pkg/tap"
	"github.com/agentproto/agentproto/pkg/validate"
)

// A relay in front of an Arcan daemon records each event stream and checks
// it as it flows: here the daemon sends a text delta after its run has
// finished.
func ExampleNewHTTPRelay() {
	daemon := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range []string{
			`{"part_type":"run_started","run_id":"r1","session_id":"s1","provider":"p","max_iterations":4}`,
			`{"part_type":"run_finished","run_id":"r1","session_id":"s1","reason":"completed","total_iterations":0,"final_answer":null}`,
			`{"part_type":"text_delta","run_id":"r1","session_id":"s1","iteration":1,"delta":"late"}`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", e)
			w.(http.Flusher).Flush()
		}
	}))
	defer daemon.Close()

	dir, err := os.MkdirTemp("", "streams")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	eng, err := validate.New(validate.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	done := make(chan struct{})
	up, _ := url.Parse(daemon.URL)
	h, err := tap.NewHTTPRelay(tap.HTTPConfig{
		Upstream:  up,
		RecordDir: dir,
		Check: &tap.RelayCheck{
			Engine: eng,
			Report: func(f validate.Finding) {
				fmt.Printf("%s:%d: %s [%s]\n", filepath.Base(f.File), f.Line, f.Severity, f.Rule)
			},
			Done: func(name string, sum validate.Summary, _ tap.LiveStats, _ error) {
				fmt.Printf("%s: %d messages, %d errors\n", filepath.Base(name), sum.Messages, sum.Errors)
				close(done)
			},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	relay := httptest.NewServer(h)
	defer relay.Close()

	resp, err := http.Get(relay.URL + "/sessions/s1/events/stream")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	<-done
	fmt.Println(strings.Count(string(body), "data: "), "events relayed")
	// Output:
	// 0001_sessions_s1_events_stream.sse:5: error [event-after-finish]
	// 0001_sessions_s1_events_stream.sse: 3 messages, 1 errors
	// 3 events relayed
}
