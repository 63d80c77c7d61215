package arcan

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
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

func TestSSEReaderParsing(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []SSEEvent
	}{
		{
			name:  "arcan frames",
			input: "data: {\"part_type\":\"run_started\"}\n\ndata: {\"part_type\":\"run_finished\"}\n\n",
			want:  []SSEEvent{ev(1, `{"part_type":"run_started"}`), ev(3, `{"part_type":"run_finished"}`)},
		},
		{
			name:  "CRLF line ends",
			input: "data: a\r\n\r\ndata: b\r\n\r\n",
			want:  []SSEEvent{ev(1, "a"), ev(3, "b")},
		},
		{
			name:  "lone CR line ends",
			input: "data: a\r\rdata: b\r\r",
			want:  []SSEEvent{ev(1, "a"), ev(3, "b")},
		},
		{
			name:  "mixed line ends",
			input: "data: a\r\n\ndata: b\r\rdata: c\n\r\n",
			want:  []SSEEvent{ev(1, "a"), ev(3, "b"), ev(5, "c")},
		},
		{
			name:  "CR then LF across an empty line is two line ends",
			input: "data: a\r\r\ndata: b\n\n",
			want:  []SSEEvent{ev(1, "a"), ev(3, "b")},
		},
		{
			name:  "comments and keep-alives are ignored",
			input: ": hello\n\ndata: a\n:\n\n:\n\n: ping\ndata: b\n\n",
			want:  []SSEEvent{ev(3, "a"), ev(9, "b")},
		},
		{
			name:  "multi-line data is joined with LF",
			input: "data: {\"a\":\ndata: 1}\ndata:\n\n",
			want:  []SSEEvent{ev(1, "{\"a\":\n1}\n")},
		},
		{
			name:  "only one space after the colon is dropped",
			input: "data:x\n\ndata:  y\n\ndata\n\ndata:\n\ndata: \n\n",
			want:  []SSEEvent{ev(1, "x"), ev(3, " y"), ev(5, ""), ev(7, ""), ev(9, "")},
		},
		{
			name:  "colon inside the value is kept",
			input: "data: a: b\n\n",
			want:  []SSEEvent{ev(1, "a: b")},
		},
		{
			name:  "unknown fields are ignored but mark the event start",
			input: "foo: bar\ndata: a\n\nDATA: b\n\n",
			want:  []SSEEvent{ev(1, "a")},
		},
		{
			name:  "missing final blank line",
			input: "data: a\n\ndata: b",
			want:  []SSEEvent{ev(1, "a"), ev(3, "b")},
		},
		{
			name:  "missing final blank line after a complete line",
			input: "data: a\n\ndata: b\n",
			want:  []SSEEvent{ev(1, "a"), ev(3, "b")},
		},
		{
			name:  "byte-order mark at the start",
			input: "\ufeffdata: a\n\n",
			want:  []SSEEvent{ev(1, "a")},
		},
		{
			name:  "byte-order mark later is data",
			input: "data: a\n\ndata: \ufeffb\n\n",
			want:  []SSEEvent{ev(1, "a"), ev(3, "\ufeffb")},
		},
		{
			name:  "events without data are not reported",
			input: "event: ping\n\nid: 7\n\nretry: 10\n\n\n\n\ndata: a\n\n",
			want:  []SSEEvent{{Data: []byte("a"), ID: "7", Line: 10}},
		},
		{
			name:  "id persists across events; event type does not",
			input: "event: part\nid: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n",
			want: []SSEEvent{
				{Data: []byte("a"), ID: "1", Event: "part", Line: 1},
				{Data: []byte("b"), ID: "1", Line: 5},
				{Data: []byte("c"), ID: "", Line: 7},
			},
		},
		{
			name:  "id after data applies to the same event",
			input: "data: {\"type\":\"start\"}\nid: 1\n\ndata: {\"type\":\"finish\"}\nid: 2\n\n",
			want: []SSEEvent{
				{Data: []byte(`{"type":"start"}`), ID: "1", Line: 1},
				{Data: []byte(`{"type":"finish"}`), ID: "2", Line: 4},
			},
		},
		{
			name:  "id containing NUL is ignored",
			input: "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n",
			want:  []SSEEvent{{Data: []byte("a"), ID: "1", Line: 1}, {Data: []byte("b"), ID: "1", Line: 4}},
		},
		{
			name:  "DONE ends the stream",
			input: "data: a\n\ndata: [DONE]\n\ndata: b\n\n",
			want:  []SSEEvent{ev(1, "a")},
		},
		{
			name:  "DONE with more data is an ordinary event",
			input: "data: [DONE]\ndata: x\n\ndata:[DONE]",
			want:  []SSEEvent{ev(1, "[DONE]\nx")},
		},
		{
			name:  "invalid UTF-8 passes through",
			input: "data: \xff\xfe\n\n",
			want:  []SSEEvent{ev(1, "\xff\xfe")},
		},
		{
			name:  "empty stream",
			input: "",
		},
		{
			name:  "blank lines only",
			input: "\n\r\n\r\n",
		},
	}
	readers := map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
		"data+EOF": iotest.DataErrReader,
	}
	for _, tt := range tests {
		for rname, wrap := range readers {
			t.Run(tt.name+"/"+rname, func(t *testing.T) {
				got, tooLarge, err := readAll(t, NewSSEReader(wrap(strings.NewReader(tt.input))))
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if len(tooLarge) > 0 {
					t.Fatalf("unexpected size errors at lines %v", tooLarge)
				}
				if diff := cmp.Diff(tt.want, got, cmp.Comparer(bytes.Equal)); diff != "" {
					t.Errorf("events differ (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestSSEReaderDone(t *testing.T) {
	r := NewSSEReader(strings.NewReader("data: a\n\ndata: [DONE]\n\ndata: b\n\n"))
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if r.Done() {
		t.Fatal("Done before the terminator")
	}
	for i := 0; i < 2; i++ {
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("Next after [DONE] = %v, want io.EOF", err)
		}
	}
	if !r.Done() {
		t.Fatal("Done = false after the terminator")
	}
	if r.Line() != 4 {
		t.Errorf("Line = %d, want 4 (nothing read after the terminator's blank line)", r.Line())
	}
}

func TestSSEReaderRetry(t *testing.T) {
	r := NewSSEReader(strings.NewReader("retry: 1500\ndata: a\n\nretry: soon\ndata: b\n\nretry: 99999999999999999999\ndata: c\n\n"))
	if _, ok := r.Retry(); ok {
		t.Fatal("Retry set before any retry field")
	}
	want := []time.Duration{1500 * time.Millisecond, 1500 * time.Millisecond, 1500 * time.Millisecond}
	for i, w := range want {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		got, ok := r.Retry()
		if !ok || got != w {
			t.Errorf("after event %d: Retry = %v, %v; want %v, true", i+1, got, ok, w)
		}
	}
}

func TestSSEReaderSizeLimit(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name      string
		input     string
		want      []SSEEvent
		tooLarge  []int
		afterLine int
	}{
		{
			name:     "one long data line",
			input:    "data: ok\n\nid: 5\ndata: " + long + "\ndata: more\n\ndata: next\n\n",
			want:     []SSEEvent{ev(1, "ok"), {Data: []byte("next"), ID: "5", Line: 7}},
			tooLarge: []int{3},
		},
		{
			name:     "data over the limit once joined",
			input:    "data: " + long[:40] + "\ndata: " + long[:40] + "\n\ndata: next\n\n",
			want:     []SSEEvent{ev(4, "next")},
			tooLarge: []int{1},
		},
		{
			name:     "exactly at the limit",
			input:    "data: " + long[:30] + "\ndata: " + long[:33] + "\n\n",
			want:     []SSEEvent{ev(1, long[:30]+"\n"+long[:33])},
			tooLarge: nil,
		},
		{
			name:     "long line without any terminator",
			input:    "data: " + strings.Repeat(long, 50),
			tooLarge: []int{1},
		},
		{
			name:     "long unknown field",
			input:    "x-extra: " + long + "\ndata: a\n\ndata: b\n\n",
			want:     []SSEEvent{ev(4, "b")},
			tooLarge: []int{1},
		},
		{
			name:  "long comment is ignored",
			input: ":" + long + "\ndata: a\n\n",
			want:  []SSEEvent{ev(2, "a")},
		},
		{
			name:     "CR line ends",
			input:    "data: " + long + "\r\rdata: b\r\r",
			want:     []SSEEvent{ev(3, "b")},
			tooLarge: []int{1},
		},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/onebyte=%v", tt.name, oneByte), func(t *testing.T) {
				var in io.Reader = strings.NewReader(tt.input)
				if oneByte {
					in = iotest.OneByteReader(in)
				}
				got, tooLarge, err := readAll(t, NewSSEReader(in, WithMaxEventSize(64)))
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if diff := cmp.Diff(tt.want, got, cmp.Comparer(bytes.Equal)); diff != "" {
					t.Errorf("events differ (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.tooLarge, tooLarge); diff != "" {
					t.Errorf("size errors at lines differ (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestSSEReaderSizeErrorNamesTheLine(t *testing.T) {
	r := NewSSEReader(strings.NewReader("data: a\n\n\ndata: "+strings.Repeat("y", 20)+"\n\n"), WithMaxEventSize(10))
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := r.Next()
	if !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("err = %v, want ErrEventTooLarge", err)
	}
	if want := "arcan: SSE event at line 4: event exceeds the size limit of 10 bytes"; err.Error() != want {
		t.Errorf("message = %q, want %q", err.Error(), want)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the skipped event: %v, want io.EOF", err)
	}
}

func TestSSEReaderDefaultLimit(t *testing.T) {
	r := NewSSEReader(strings.NewReader(""), WithMaxEventSize(0))
	if r.max != DefaultMaxEventSize {
		t.Errorf("limit = %d, want the default %d", r.max, DefaultMaxEventSize)
	}
}

func TestSSEReaderIOError(t *testing.T) {
	boom := errors.New("connection reset")
	in := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	r := NewSSEReader(in)
	if got, err := r.Next(); err != nil || string(got.Data) != "a" {
		t.Fatalf("first event = %q, %v", got.Data, err)
	}
	for i := 0; i < 2; i++ {
		_, err := r.Next()
		if !errors.Is(err, boom) {
			t.Fatalf("call %d: err = %v, want the underlying error", i, err)
		}
		if !strings.Contains(err.Error(), "line 3") {
			t.Errorf("error %q does not name line 3", err)
		}
	}
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

// FuzzSSEReader feeds arbitrary bytes to the reader. It must not panic, must
// finish, must respect the size limit and report increasing line numbers, and
// must read the same events however the input is split into reads. It also
// checks that any data written by SSEWriter reads back unchanged (line breaks
// normalised to "\n").
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"data: {\"part_type\":\"run_started\"}\n\n",
		"data: a\r\n\r\ndata: b\r\rdata: c\n\n",
		": keep-alive\n\nid: 1\nevent: x\nretry: 100\ndata: a\ndata: b\n\n",
		"\ufeffdata: a",
		"data: [DONE]\n\ndata: after\n\n",
		"data:" + strings.Repeat("z", 80) + "\n\ndata: ok\n\n",
		"\r\r\n\n\r",
		"id: \x00\ndata\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 64
		read := func(r io.Reader) ([]SSEEvent, []int) {
			sr := NewSSEReader(r, WithMaxEventSize(limit))
			evs, tooLarge, err := readAll(t, sr)
			if err != nil {
				t.Fatalf("error on an in-memory stream: %v", err)
			}
			if sr.Line() > bytes.Count(in, []byte("\n"))+bytes.Count(in, []byte("\r"))+1 {
				t.Fatalf("Line() = %d, more lines than the input has", sr.Line())
			}
			return evs, tooLarge
		}
		evs, tooLarge := read(bytes.NewReader(in))
		prev := 0
		for _, e := range evs {
			if len(e.Data) > limit {
				t.Fatalf("event of %d bytes passed the %d-byte limit", len(e.Data), limit)
			}
			if e.Line <= prev {
				t.Fatalf("event line %d not after %d", e.Line, prev)
			}
			prev = e.Line
		}
		evs2, tooLarge2 := read(iotest.OneByteReader(bytes.NewReader(in)))
		if diff := cmp.Diff(evs, evs2, cmp.Comparer(bytes.Equal)); diff != "" {
			t.Fatalf("reading byte by byte gives other events:\n%s", diff)
		}
		if diff := cmp.Diff(tooLarge, tooLarge2); diff != "" {
			t.Fatalf("reading byte by byte gives other size errors:\n%s", diff)
		}

		// Writer round trip with the input as data.
		var buf bytes.Buffer
		if err := NewSSEWriter(&buf).WriteEvent(in); err != nil {
			t.Fatal(err)
		}
		want := bytes.ReplaceAll(in, []byte("\r\n"), []byte("\n"))
		want = bytes.ReplaceAll(want, []byte("\r"), []byte("\n"))
		sr := NewSSEReader(&buf)
		got, err := sr.Next()
		if string(want) == "[DONE]" {
			if err != io.EOF || !sr.Done() {
				t.Fatalf("[DONE] data: %v, Done=%v", err, sr.Done())
			}
			return
		}
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		if !bytes.Equal(got.Data, want) {
			t.Fatalf("read back %q, want %q", got.Data, want)
		}
		if _, err := sr.Next(); err != io.EOF {
			t.Fatalf("more than one event read back: %v", err)
		}
	})
}

// BenchmarkSSERead reads a long Arcan transcript: 20 000 events of typical
// sizes, mostly text deltas and tool results.
func BenchmarkSSERead(b *testing.B) {
	var buf bytes.Buffer
	w := NewSSEWriter(&buf)
	output := strings.Repeat(`line of tool output\n`, 40)
	for i := 0; i < 20000; i++ {
		var data string
		switch i % 4 {
		case 0, 1:
			data = fmt.Sprintf(`{"part_type":"text_delta","run_id":"3d9f6b2e-7c41-4a8e-b5d2-91e07f3c6a58","session_id":"billing-api","iteration":%d,"delta":"some streamed text, token %d"}`, i/100+1, i)
		case 2:
			data = fmt.Sprintf(`{"part_type":"tool_call_requested","run_id":"3d9f6b2e-7c41-4a8e-b5d2-91e07f3c6a58","session_id":"billing-api","iteration":%d,"call":{"call_id":"toolu_%d","tool_name":"bash","input":{"command":"cargo test"}}}`, i/100+1, i)
		default:
			data = fmt.Sprintf(`{"part_type":"tool_call_completed","run_id":"3d9f6b2e-7c41-4a8e-b5d2-91e07f3c6a58","session_id":"billing-api","iteration":%d,"result":{"call_id":"toolu_%d","tool_name":"bash","output":{"stdout":"%s"}}}`, i/100+1, i-1, output)
		}
		if err := w.WriteEvent([]byte(data)); err != nil {
			b.Fatal(err)
		}
	}
	stream := buf.Bytes()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := NewSSEReader(bytes.NewReader(stream))
		n := 0
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 20000 {
			b.Fatalf("read %d events, want 20000", n)
		}
	}
}
