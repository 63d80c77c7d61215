package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// readAll reads every event of input, recording size errors in place of the
// events they replace, until io.EOF or another error.
func readAll(t testing.TB, r *Reader) ([]Event, []int, error) {
	t.Helper()
	var evs []Event
	var tooLarge []int
	for i := 0; ; i++ {
		if i > 1_000_000 {
			t.Fatal("reader does not reach the end of the stream")
		}
		ev, err := r.Next()
		if err == io.EOF {
			return evs, tooLarge, nil
		}
		var se *Error
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

func ev(line int, data string) Event {
	return Event{Data: []byte(data), Line: line}
}

func TestReaderParsing(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []Event
	}{
		{
			name:  "arcan frames",
			input: "data: {\"part_type\":\"run_started\"}\n\ndata: {\"part_type\":\"run_finished\"}\n\n",
			want:  []Event{ev(1, `{"part_type":"run_started"}`), ev(3, `{"part_type":"run_finished"}`)},
		},
		{
			name:  "CRLF line ends",
			input: "data: a\r\n\r\ndata: b\r\n\r\n",
			want:  []Event{ev(1, "a"), ev(3, "b")},
		},
		{
			name:  "lone CR line ends",
			input: "data: a\r\rdata: b\r\r",
			want:  []Event{ev(1, "a"), ev(3, "b")},
		},
		{
			name:  "mixed line ends",
			input: "data: a\r\n\ndata: b\r\rdata: c\n\r\n",
			want:  []Event{ev(1, "a"), ev(3, "b"), ev(5, "c")},
		},
		{
			name:  "CR then LF across an empty line is two line ends",
			input: "data: a\r\r\ndata: b\n\n",
			want:  []Event{ev(1, "a"), ev(3, "b")},
		},
		{
			name:  "comments and keep-alives are ignored",
			input: ": hello\n\ndata: a\n:\n\n:\n\n: ping\ndata: b\n\n",
			want:  []Event{ev(3, "a"), ev(9, "b")},
		},
		{
			name:  "multi-line data is joined with LF",
			input: "data: {\"a\":\ndata: 1}\ndata:\n\n",
			want:  []Event{ev(1, "{\"a\":\n1}\n")},
		},
		{
			name:  "only one space after the colon is dropped",
			input: "data:x\n\ndata:  y\n\ndata\n\ndata:\n\ndata: \n\n",
			want:  []Event{ev(1, "x"), ev(3, " y"), ev(5, ""), ev(7, ""), ev(9, "")},
		},
		{
			name:  "colon inside the value is kept",
			input: "data: a: b\n\n",
			want:  []Event{ev(1, "a: b")},
		},
		{
			name:  "unknown fields are ignored but mark the event start",
			input: "foo: bar\ndata: a\n\nDATA: b\n\n",
			want:  []Event{ev(1, "a")},
		},
		{
			name:  "missing final blank line",
			input: "data: a\n\ndata: b",
			want:  []Event{ev(1, "a"), ev(3, "b")},
		},
		{
			name:  "missing final blank line after a complete line",
			input: "data: a\n\ndata: b\n",
			want:  []Event{ev(1, "a"), ev(3, "b")},
		},
		{
			name:  "byte-order mark at the start",
			input: "\ufeffdata: a\n\n",
			want:  []Event{ev(1, "a")},
		},
		{
			name:  "byte-order mark later is data",
			input: "data: a\n\ndata: \ufeffb\n\n",
			want:  []Event{ev(1, "a"), ev(3, "\ufeffb")},
		},
		{
			name:  "events without data are not reported",
			input: "event: ping\n\nid: 7\n\nretry: 10\n\n\n\n\ndata: a\n\n",
			want:  []Event{{Data: []byte("a"), ID: "7", Line: 10}},
		},
		{
			name:  "id persists across events; event type does not",
			input: "event: part\nid: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n",
			want: []Event{
				{Data: []byte("a"), ID: "1", Event: "part", Line: 1},
				{Data: []byte("b"), ID: "1", Line: 5},
				{Data: []byte("c"), ID: "", Line: 7},
			},
		},
		{
			name:  "id after data applies to the same event",
			input: "data: {\"type\":\"start\"}\nid: 1\n\ndata: {\"type\":\"finish\"}\nid: 2\n\n",
			want: []Event{
				{Data: []byte(`{"type":"start"}`), ID: "1", Line: 1},
				{Data: []byte(`{"type":"finish"}`), ID: "2", Line: 4},
			},
		},
		{
			name:  "id containing NUL is ignored",
			input: "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n",
			want:  []Event{{Data: []byte("a"), ID: "1", Line: 1}, {Data: []byte("b"), ID: "1", Line: 4}},
		},
		{
			name:  "DONE ends the stream",
			input: "data: a\n\ndata: [DONE]\n\ndata: b\n\n",
			want:  []Event{ev(1, "a")},
		},
		{
			name:  "DONE with more data is an ordinary event",
			input: "data: [DONE]\ndata: x\n\ndata:[DONE]",
			want:  []Event{ev(1, "[DONE]\nx")},
		},
		{
			name:  "invalid UTF-8 passes through",
			input: "data: \xff\xfe\n\n",
			want:  []Event{ev(1, "\xff\xfe")},
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
				got, tooLarge, err := readAll(t, NewReader(wrap(strings.NewReader(tt.input))))
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

func TestReaderDone(t *testing.T) {
	r := NewReader(strings.NewReader("data: a\n\ndata: [DONE]\n\ndata: b\n\n"))
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

func TestReaderRetry(t *testing.T) {
	r := NewReader(strings.NewReader("retry: 1500\ndata: a\n\nretry: soon\ndata: b\n\nretry: 99999999999999999999\ndata: c\n\n"))
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

func TestReaderSizeLimit(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name      string
		input     string
		want      []Event
		tooLarge  []int
		afterLine int
	}{
		{
			name:     "one long data line",
			input:    "data: ok\n\nid: 5\ndata: " + long + "\ndata: more\n\ndata: next\n\n",
			want:     []Event{ev(1, "ok"), {Data: []byte("next"), ID: "5", Line: 7}},
			tooLarge: []int{3},
		},
		{
			name:     "data over the limit once joined",
			input:    "data: " + long[:40] + "\ndata: " + long[:40] + "\n\ndata: next\n\n",
			want:     []Event{ev(4, "next")},
			tooLarge: []int{1},
		},
		{
			name:     "exactly at the limit",
			input:    "data: " + long[:30] + "\ndata: " + long[:33] + "\n\n",
			want:     []Event{ev(1, long[:30]+"\n"+long[:33])},
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
			want:     []Event{ev(4, "b")},
			tooLarge: []int{1},
		},
		{
			name:  "long comment is ignored",
			input: ":" + long + "\ndata: a\n\n",
			want:  []Event{ev(2, "a")},
		},
		{
			name:     "CR line ends",
			input:    "data: " + long + "\r\rdata: b\r\r",
			want:     []Event{ev(3, "b")},
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
				got, tooLarge, err := readAll(t, NewReader(in, WithMaxEventSize(64)))
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

func TestReaderSizeErrorNamesTheLine(t *testing.T) {
	r := NewReader(strings.NewReader("data: a\n\n\ndata: "+strings.Repeat("y", 20)+"\n\n"), WithMaxEventSize(10))
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := r.Next()
	if !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("err = %v, want ErrEventTooLarge", err)
	}
	if want := "sse: event at line 4: event exceeds the size limit of 10 bytes"; err.Error() != want {
		t.Errorf("message = %q, want %q", err.Error(), want)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the skipped event: %v, want io.EOF", err)
	}
}

func TestReaderDefaultLimit(t *testing.T) {
	r := NewReader(strings.NewReader(""), WithMaxEventSize(0))
	if r.max != DefaultMaxEventSize {
		t.Errorf("limit = %d, want the default %d", r.max, DefaultMaxEventSize)
	}
}

func TestReaderIOError(t *testing.T) {
	boom := errors.New("connection reset")
	in := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	r := NewReader(in)
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

type countingWriter struct {
	bytes.Buffer
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes++
	return c.Buffer.Write(p)
}

func TestWriter(t *testing.T) {
	tests := []struct {
		name  string
		write func(*Writer) error
		want  string
	}{
		{"arcan frame", func(w *Writer) error { return w.WriteData([]byte(`{"part_type":"run_started"}`)) }, "data: {\"part_type\":\"run_started\"}\n\n"},
		{"empty data", func(w *Writer) error { return w.WriteData(nil) }, "data: \n\n"},
		{"multi-line data", func(w *Writer) error { return w.WriteData([]byte("a\nb\r\nc\rd\n")) }, "data: a\ndata: b\ndata: c\ndata: d\ndata: \n\n"},
		{"event and id", func(w *Writer) error {
			return w.WriteEvent(Event{Data: []byte(`{"type":"start"}`), ID: "1", Event: "part", Line: 99})
		}, "event: part\ndata: {\"type\":\"start\"}\nid: 1\n\n"},
		{"keep-alive", func(w *Writer) error { return w.WriteComment("") }, ":\n\n"},
		{"comment", func(w *Writer) error { return w.WriteComment("ping\nagain\r\n") }, ": ping\n: again\n:\n\n"},
		{"done", func(w *Writer) error { return w.WriteDone() }, "data: [DONE]\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out countingWriter
			if err := tt.write(NewWriter(&out)); err != nil {
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

func TestWriterRejectsUnframeable(t *testing.T) {
	for _, ev := range []Event{
		{Data: []byte("x"), ID: "1\n2"},
		{Data: []byte("x"), ID: "1\x00"},
		{Data: []byte("x"), Event: "a\rb"},
	} {
		var out bytes.Buffer
		if err := NewWriter(&out).WriteEvent(ev); err == nil {
			t.Errorf("WriteEvent(%+v) succeeded", ev)
		}
		if out.Len() != 0 {
			t.Errorf("WriteEvent(%+v) wrote %q after failing", ev, out.String())
		}
	}
}

func TestWriterError(t *testing.T) {
	boom := errors.New("broken pipe")
	err := NewWriter(errWriter{boom}).WriteData([]byte("{}"))
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want the writer's error wrapped", err)
	}
}

type errWriter struct{ err error }

func (e errWriter) Write([]byte) (int, error) { return 0, e.err }

func TestRoundTrip(t *testing.T) {
	events := []Event{
		{Data: []byte(`{"part_type":"text_delta","delta":"a\nb"}`)},
		{Data: []byte("line one\nline two\n\nline four"), Event: "note"},
		{Data: []byte(""), ID: "42"},
		{Data: []byte(" leading space"), ID: "42"},
		{Data: []byte(": not a comment"), ID: "42"}, // the last event ID stays in effect
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, e := range events {
		if err := w.WriteEvent(e); err != nil {
			t.Fatal(err)
		}
	}
	got, _, err := readAll(t, NewReader(&buf))
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

// FuzzReader feeds arbitrary bytes to the reader. It must not panic, must
// finish, must respect the size limit and report increasing line numbers, and
// must read the same events however the input is split into reads. It also
// checks that any data written by Writer reads back unchanged (line breaks
// normalised to "\n").
func FuzzReader(f *testing.F) {
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
		read := func(r io.Reader) ([]Event, []int) {
			sr := NewReader(r, WithMaxEventSize(limit))
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
		if err := NewWriter(&buf).WriteData(in); err != nil {
			t.Fatal(err)
		}
		want := bytes.ReplaceAll(in, []byte("\r\n"), []byte("\n"))
		want = bytes.ReplaceAll(want, []byte("\r"), []byte("\n"))
		sr := NewReader(&buf)
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

// BenchmarkRead reads a long Arcan transcript: 20 000 events of typical
// sizes, mostly text deltas and tool results.
func BenchmarkRead(b *testing.B) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
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
		if err := w.WriteData([]byte(data)); err != nil {
			b.Fatal(err)
		}
	}
	stream := buf.Bytes()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := NewReader(bytes.NewReader(stream))
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
