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

// TestSSEWriterAPI writes through the arcan names: every method forwards to
// package sse's writer (whose framing rules are tested there), and a
// refused event or a broken writer is an error.
func TestSSEWriterAPI(t *testing.T) {
	var buf bytes.Buffer
	w := NewSSEWriter(&buf)
	steps := []error{
		w.WriteEvent([]byte(`{"part_type":"run_started"}`)),
		w.WriteSSEEvent(SSEEvent{Data: []byte(`{"part_type":"run_finished"}`), ID: "2", Event: "part"}),
		w.WriteComment("ping"),
		w.WriteDone(),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	want := "data: {\"part_type\":\"run_started\"}\n\n" +
		"event: part\ndata: {\"part_type\":\"run_finished\"}\nid: 2\n\n" +
		": ping\n\n" +
		"data: [DONE]\n\n"
	if buf.String() != want {
		t.Errorf("wrote %q, want %q", buf.String(), want)
	}
	got, _, err := readAll(t, NewSSEReader(strings.NewReader(buf.String())))
	if err != nil || len(got) != 2 {
		t.Errorf("read back %d events, %v; want the 2 written", len(got), err)
	}
	if err := w.WriteSSEEvent(SSEEvent{Data: []byte("x"), ID: "1\n2"}); err == nil {
		t.Error("an id with a line break was written")
	}
	boom := errors.New("broken pipe")
	if err := NewSSEWriter(errWriter{boom}).WriteEvent([]byte("{}")); !errors.Is(err, boom) {
		t.Errorf("err = %v, want the writer's error wrapped", err)
	}
}

type errWriter struct{ err error }

func (e errWriter) Write([]byte) (int, error) { return 0, e.err }

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
