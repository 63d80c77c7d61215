package arcan

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// readAll reads every event of input, recording size errors in place of the
// events they replace, until io.EOF or another error.
func readAll(t testing.TB, r *SSEReader) ([]SSEEvent, []int, error) {
	t.Helper()
	var evs []SSEEvent
	var tooLarge []int
	for i := 0; ; i++ {
		if i > 1_000_000 {
			t.Fatal("reader does not reach the end of the stream")
		}
		ev, err := r.Next()
		if err == io.EOF {
			return evs, tooLarge, nil
		}
		var se *SSEError
		if errors.As(err, &se) && errors.Is(err, ErrEventTooLarge) {
			tooLarge = append(tooLarge, se.Line)
			continue
		}
		if err != nil {
			return evs, tooLarge, err
		}
		evs = append(evs, ev)
	}
}

func ev(line int, data string) SSEEvent {
	return SSEEvent{Data: []byte(data), Line: line}
}

// TestSSEReaderFixtures reads every SSE fixture and checks that it carries the
// same events, in order, as the JSONL transcript beside it.
func TestSSEReaderFixtures(t *testing.T) {
	sses, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "arcan", "valid", "*.sse"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sses) == 0 {
		t.Fatal("no SSE fixtures found")
	}
	for _, p := range sses {
		t.Run(filepath.Base(p), func(t *testing.T) {
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			got, tooLarge, err := readAll(t, NewSSEReader(bytes.NewReader(raw)))
			if err != nil || len(tooLarge) > 0 {
				t.Fatalf("reading: %v, size errors at %v", err, tooLarge)
			}
			lines := jsonlLines(t, strings.TrimSuffix(p, ".sse")+".jsonl")
			if len(got) != len(lines) {
				t.Fatalf("%d events, want %d (one per JSONL line)", len(got), len(lines))
			}
			prev := 0
			for i, e := range got {
				if string(e.Data) != lines[i] {
					t.Errorf("event %d = %s\nwant %s", i+1, e.Data, lines[i])
				}
				if e.Line <= prev {
					t.Errorf("event %d starts at line %d, not after %d", i+1, e.Line, prev)
				}
				if !bytes.HasPrefix(raw[lineOffset(raw, e.Line):], []byte("data: ")) {
					t.Errorf("event %d: line %d is not its data line", i+1, e.Line)
				}
				prev = e.Line
			}
		})
	}
}

// lineOffset returns the byte offset of 1-based line n of LF-terminated text.
func lineOffset(b []byte, n int) int {
	off := 0
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(b[off:], '\n')
		if j < 0 {
			return len(b)
		}
		off += j + 1
	}
	return off
}

func jsonlLines(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSSEWriterFixtures writes every JSONL transcript with SSEWriter and
// compares the bytes with the SSE fixture, which uses Arcan's framing
// (keep-alive comments aside).
func TestSSEWriterFixtures(t *testing.T) {
	sses, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "arcan", "valid", "*.sse"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sses {
		t.Run(filepath.Base(p), func(t *testing.T) {
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			want := bytes.ReplaceAll(raw, []byte("\n\n:\n\n"), []byte("\n\n"))
			var buf bytes.Buffer
			w := NewSSEWriter(&buf)
			for _, l := range jsonlLines(t, strings.TrimSuffix(p, ".sse")+".jsonl") {
				if err := w.WriteEvent([]byte(l)); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("written stream differs from the fixture:\n%s", cmp.Diff(string(want), buf.String()))
			}
		})
	}
}

type countingWriter struct {
	bytes.Buffer
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes++
	return c.Buffer.Write(p)
}

func TestSSEWriter(t *testing.T) {
	tests := []struct {
		name  string
		write func(*SSEWriter) error
		want  string
	}{
		{"arcan frame", func(w *SSEWriter) error { return w.WriteEvent([]byte(`{"part_type":"run_started"}`)) }, "data: {\"part_type\":\"run_started\"}\n\n"},
		{"empty data", func(w *SSEWriter) error { return w.WriteEvent(nil) }, "data: \n\n"},
		{"multi-line data", func(w *SSEWriter) error { return w.WriteEvent([]byte("a\nb\r\nc\rd\n")) }, "data: a\ndata: b\ndata: c\ndata: d\ndata: \n\n"},
		{"event and id", func(w *SSEWriter) error {
			return w.WriteSSEEvent(SSEEvent{Data: []byte(`{"type":"start"}`), ID: "1", Event: "part", Line: 99})
		}, "event: part\ndata: {\"type\":\"start\"}\nid: 1\n\n"},
		{"keep-alive", func(w *SSEWriter) error { return w.WriteComment("") }, ":\n\n"},
		{"comment", func(w *SSEWriter) error { return w.WriteComment("ping\nagain\r\n") }, ": ping\n: again\n:\n\n"},
		{"done", func(w *SSEWriter) error { return w.WriteDone() }, "data: [DONE]\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out countingWriter
			if err := tt.write(NewSSEWriter(&out)); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("wrote %q, want %q", out.String(), tt.want)
			}
			if out.writes != 1 {
				t.Errorf("%d Write calls, want 1", out.writes)
			}
		})
	}
}

func TestSSEWriterRejectsUnframeable(t *testing.T) {
	for _, ev := range []SSEEvent{
		{Data: []byte("x"), ID: "1\n2"},
		{Data: []byte("x"), ID: "1\x00"},
		{Data: []byte("x"), Event: "a\rb"},
	} {
		var out bytes.Buffer
		if err := NewSSEWriter(&out).WriteSSEEvent(ev); err == nil {
			t.Errorf("WriteSSEEvent(%+v) succeeded", ev)
		}
		if out.Len() != 0 {
			t.Errorf("WriteSSEEvent(%+v) wrote %q after failing", ev, out.String())
		}
	}
}

func TestSSEWriterError(t *testing.T) {
	boom := errors.New("broken pipe")
	err := NewSSEWriter(errWriter{boom}).WriteEvent([]byte("{}"))
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want the writer's error wrapped", err)
	}
}

type errWriter struct{ err error }

func (e errWriter) Write([]byte) (int, error) { return 0, e.err }

func TestSSERoundTrip(t *testing.T) {
	events := []SSEEvent{
		{Data: []byte(`{"part_type":"text_delta","delta":"a\nb"}`)},
		{Data: []byte("line one\nline two\n\nline four"), Event: "note"},
		{Data: []byte(""), ID: "42"},
		{Data: []byte(" leading space"), ID: "42"},
		{Data: []byte(": not a comment"), ID: "42"}, // the last event ID stays in effect
	}
	var buf bytes.Buffer
	w := NewSSEWriter(&buf)
	for _, e := range events {
		if err := w.WriteSSEEvent(e); err != nil {
			t.Fatal(err)
		}
	}
	got, _, err := readAll(t, NewSSEReader(&buf))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(events) {
		t.Fatalf("read %d events, want %d", len(got), len(events))
	}
	for i := range events {
		got[i].Line = 0
	}
	if diff := cmp.Diff(events, got, cmp.Comparer(bytes.Equal)); diff != "" {
		t.Errorf("round trip differs (-wrote +read):\n%s", diff)
	}
}

// TestSSEReaderAPI reads an Arcan stream through the arcan names: keep-alive
// comments are skipped, an oversized event is an *SSEError that matches
// ErrEventTooLarge and names its line, reading goes on after it, and
// "[DONE]" ends the stream. (The parsing rules themselves are tested in
// package sse.)
func TestSSEReaderAPI(t *testing.T) {
	in := ":\n\nretry: 1500\ndata: {\"part_type\":\"run_started\"}\n\n" +
		"data: {\"part_type\":\"text_delta\",\"delta\":\"" + strings.Repeat("x", 100) + "\"}\n\n" +
		"data: {\"part_type\":\"run_finished\"}\n\ndata: [DONE]\n\ndata: after\n\n"
	r := NewSSEReader(strings.NewReader(in), WithMaxEventSize(64))
	got, tooLarge, err := readAll(t, r)
	if err != nil {
		t.Fatal(err)
	}
	want := []SSEEvent{ev(3, `{"part_type":"run_started"}`), ev(8, `{"part_type":"run_finished"}`)}
	if diff := cmp.Diff(want, got, cmp.Comparer(bytes.Equal)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{6}, tooLarge); diff != "" {
		t.Errorf("oversized events (-want +got):\n%s", diff)
	}
	if !r.Done() {
		t.Error("Done() = false after a [DONE] event")
	}
	if d, ok := r.Retry(); !ok || d != 1500*time.Millisecond {
		t.Errorf("Retry() = %v, %v; want 1.5s, true", d, ok)
	}
	if r.Line() != 11 {
		t.Errorf("Line() = %d, want 11 (nothing read after the end of [DONE])", r.Line())
	}
}
