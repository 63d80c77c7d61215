package trace

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type rec struct {
	Line  int
	Data  string
	Event string
	ID    string
	Long  bool
}

func readAll(t testing.TB, r io.Reader, opts Options) ([]rec, Format) {
	t.Helper()
	tr, err := NewReader(r, opts)
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	return drain(t, tr), tr.Format()
}

// drain reads tr to its end, copying each record (so a lending reader's
// too).
func drain(t testing.TB, tr *Reader) []rec {
	t.Helper()
	var out []rec
	for {
		r, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, rec{Line: r.Line, Data: string(r.Data), Event: r.Event, ID: r.ID, Long: errors.Is(r.Err, ErrLineTooLong)})
	}
}

func TestJSONL(t *testing.T) {
	in := "\xef\xbb\xbf{\"a\":1}\r\n\n   \r\n{\"b\":2}\n\t\n{\"c\":3}" // BOM, CRLF, blank lines, no final newline
	got, f := readAll(t, strings.NewReader(in), Options{})
	if f != JSONL {
		t.Fatalf("format %v, want jsonl", f)
	}
	want := []rec{{Line: 1, Data: `{"a":1}`}, {Line: 4, Data: `{"b":2}`}, {Line: 6, Data: `{"c":3}`}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}

func TestEmpty(t *testing.T) {
	for _, in := range []string{"", "\n\n", " \r\n"} {
		got, _ := readAll(t, strings.NewReader(in), Options{})
		if len(got) != 0 {
			t.Errorf("%q: got records %v", in, got)
		}
	}
}

func TestGzip(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	io.WriteString(zw, "data: {\"x\":1}\n\n")
	zw.Close()
	tr, err := NewReader(&buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Gzipped() || tr.Format() != SSE {
		t.Fatalf("gzipped=%v format=%v, want true sse", tr.Gzipped(), tr.Format())
	}
	r, err := tr.Next()
	if err != nil || string(r.Data) != `{"x":1}` || r.Line != 1 {
		t.Fatalf("got %+v %v", r, err)
	}
}

func TestCorruptGzip(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	io.WriteString(zw, strings.Repeat("{\"x\":1}\n", 1000))
	zw.Close()
	b := buf.Bytes()[:buf.Len()/2] // cut the stream in the middle
	tr, err := NewReader(bytes.NewReader(b), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		_, err := tr.Next()
		if err == nil {
			continue
		}
		if errors.Is(err, io.EOF) {
			t.Fatal("a truncated gzip stream read as a clean end of file")
		}
		return
	}
}

func TestSSE(t *testing.T) {
	in := ": keep-alive\n\n" +
		"event: message\nid: 7\ndata: {\"a\":\ndata: 1}\n\n" +
		"data:{\"b\":2}\r\n\r\n" +
		"data: {\"c\":3}" + // last frame without its blank line
		""
	got, f := readAll(t, strings.NewReader(in), Options{})
	if f != SSE {
		t.Fatalf("format %v, want sse", f)
	}
	// Line is the frame's first field line; an id stays in effect for
	// later frames, as SSE defines it.
	want := []rec{
		{Line: 3, Data: "{\"a\":\n1}", Event: "message", ID: "7"},
		{Line: 8, Data: `{"b":2}`, ID: "7"},
		{Line: 10, Data: `{"c":3}`, ID: "7"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	// A [DONE] frame ends the stream, as the AI SDK adapters send it.
	got, _ = readAll(t, strings.NewReader("data: {}\n\ndata: [DONE]\n\ndata: {\"late\":1}\n\n"), Options{})
	want = []rec{{Line: 1, Data: "{}"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}

func TestForcedFormat(t *testing.T) {
	f := JSONL
	got, _ := readAll(t, strings.NewReader("data: {}\n"), Options{Format: &f})
	if len(got) != 1 || got[0].Data != "data: {}" {
		t.Fatalf("forced jsonl: got %v", got)
	}
}

func TestLongLines(t *testing.T) {
	in := `{"a":1}` + "\n" + strings.Repeat("x", 100) + "\n" + `{"b":2}` + "\n" + strings.Repeat("y", 64) + "\n" + strings.Repeat("z", 65)
	got, _ := readAll(t, strings.NewReader(in), Options{MaxLine: 64})
	want := []rec{{Line: 1, Data: `{"a":1}`}, {Line: 2, Long: true}, {Line: 3, Data: `{"b":2}`}, {Line: 4, Data: strings.Repeat("y", 64)}, {Line: 5, Long: true}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	// An SSE frame over the limit, then a normal one.
	sse := "data: " + strings.Repeat("x", 40) + "\ndata: " + strings.Repeat("x", 40) + "\n\ndata: {}\n\n"
	got, _ = readAll(t, strings.NewReader(sse), Options{MaxLine: 64})
	want = []rec{{Line: 1, Long: true}, {Line: 4, Data: "{}"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("sse (-want +got):\n%s", d)
	}
}

// repeatReader yields n copies of b without holding them.
type repeatReader struct {
	b byte
	n int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.n {
		p = p[:r.n]
	}
	for i := range p {
		p[i] = r.b
	}
	r.n -= int64(len(p))
	return len(p), nil
}

// TestHugeLineNotBuffered reads a 64 MiB line with a 1 MiB limit and checks
// that it is reported, that the next line is read, and that the reader did
// not allocate anything like the size of the line.
func TestHugeLineNotBuffered(t *testing.T) {
	const size = 64 << 20
	in := io.MultiReader(strings.NewReader(`{"a":1}`+"\n"), &repeatReader{b: 'x', n: size}, strings.NewReader("\n{\"b\":2}\n"))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, _ := readAll(t, in, Options{MaxLine: 1 << 20})
	runtime.ReadMemStats(&after)
	want := []rec{{Line: 1, Data: `{"a":1}`}, {Line: 2, Long: true}, {Line: 3, Data: `{"b":2}`}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Fatalf("reading a 64 MiB line allocated %d bytes; it must be skipped, not buffered", alloc)
	}
}

func TestLineTooLongMessage(t *testing.T) {
	e := &LineTooLongError{Limit: 16 << 20, Size: 64 << 20}
	if got := e.Error(); !strings.Contains(got, "64 MiB") || !strings.Contains(got, "16 MiB") || !strings.Contains(got, "--max-line") {
		t.Fatalf("message %q does not give the size, the limit and the flag", got)
	}
}

func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"{\"a\":1}\n\n{\"b\":2}", "data: {}\n\n", "\x1f\x8b\x08\x00", "event: x\r\ndata: a\r\ndata: b\r\n\r\n",
		strings.Repeat("x", 70) + "\n{}", ":\n\ndata: [DONE]\n\n", "\x00\x01\x02\n\xff\xfe",
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, limit uint8) {
		max := int(limit) + 1
		checkMaxBytes(t, in, max)
		tr, err := NewReader(bytes.NewReader(in), Options{MaxLine: max})
		if err != nil {
			return
		}
		// A reader that lends its lines gives the same records.
		lender, err := NewReader(bytes.NewReader(in), Options{MaxLine: max, Borrow: true})
		if err != nil {
			t.Fatalf("the lending reader fails where the other does not: %v", err)
		}
		prev := 0
		for i := 0; ; i++ {
			r, err := tr.Next()
			lent, lerr := lender.Next()
			if (err == nil) != (lerr == nil) || lent.Line != r.Line || !bytes.Equal(lent.Data, r.Data) || (lent.Err == nil) != (r.Err == nil) {
				t.Fatalf("record %d: lent %d %q %v, given %d %q %v", i, lent.Line, lent.Data, lerr, r.Line, r.Data, err)
			}
			if err != nil {
				return
			}
			if r.Line <= prev {
				t.Fatalf("record %d: line %d does not follow line %d", i, r.Line, prev)
			}
			prev = r.Line
			if len(r.Data) > max {
				t.Fatalf("record of %d bytes over the %d limit", len(r.Data), max)
			}
			if r.Err == nil && tr.Format() == JSONL && len(bytes.TrimSpace(r.Data)) == 0 {
				t.Fatalf("blank line returned as a record")
			}
			if !tr.Gzipped() && i > len(in)+1 {
				t.Fatalf("more records than input bytes")
			}
			if i > 1<<20 {
				t.Fatalf("a million records from %d bytes", len(in))
			}
		}
	})
}

// checkMaxBytes reads plain input with MaxBytes set to half its size: the
// records before the ErrTooLarge error are those of the first half read
// alone, but for the last one, which the limit may cut.
func checkMaxBytes(t *testing.T, in []byte, maxLine int) {
	if len(in) < 4 || in[0] == 0x1f {
		return
	}
	m := len(in) / 2
	records := func(r io.Reader, opts Options) ([]Record, error) {
		tr, err := NewReader(r, opts)
		if err != nil {
			return nil, err
		}
		var out []Record
		for {
			rec, err := tr.Next()
			if err != nil {
				return out, err
			}
			out = append(out, rec)
		}
	}
	got, err := records(bytes.NewReader(in), Options{MaxLine: maxLine, MaxBytes: int64(m)})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("%d bytes with MaxBytes %d: %v, want ErrTooLarge", len(in), m, err)
	}
	want, err := records(bytes.NewReader(in[:m]), Options{MaxLine: maxLine})
	if !errors.Is(err, io.EOF) {
		return
	}
	if len(got) > len(want) || len(got) < len(want)-1 {
		t.Fatalf("%d records with MaxBytes %d, %d from the first %d bytes", len(got), m, len(want), m)
	}
	for i := range got {
		if i == len(want)-1 && i == len(got)-1 {
			break // the cut may fall inside the last record
		}
		if got[i].Line != want[i].Line || !bytes.Equal(got[i].Data, want[i].Data) {
			t.Fatalf("record %d: %+v with MaxBytes, %+v from the first half", i, got[i], want[i])
		}
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// endlessGzip returns a gzip stream of line repeated without end (a gzip
// bomb: each MiB of it expands to about a GiB) and a function that stops it.
func endlessGzip(line string) (io.Reader, func()) {
	pr, pw := io.Pipe()
	go func() {
		zw, _ := gzip.NewWriterLevel(pw, gzip.BestCompression)
		chunk := []byte(strings.Repeat(line, 64<<10/len(line)))
		for {
			if _, err := zw.Write(chunk); err != nil {
				return
			}
		}
	}()
	return pr, func() { pr.Close() }
}

// TestMaxBytesGzipBomb: an endless gzip stream ends with one ErrTooLarge
// error once MaxBytes decompressed bytes are read; the records before it
// are all there, and no more than the limit was decompressed.
func TestMaxBytesGzipBomb(t *testing.T) {
	for _, tc := range []struct {
		name string
		line string
	}{{"jsonl", "{\"a\":1}\n"}, {"sse", "data: {}\n\n"}} {
		t.Run(tc.name, func(t *testing.T) {
			const limit = 1 << 20
			bomb, stop := endlessGzip(tc.line)
			defer stop()
			in := &countingReader{r: bomb}
			tr, err := NewReader(in, Options{MaxBytes: limit})
			if err != nil {
				t.Fatal(err)
			}
			records := 0
			for {
				_, err = tr.Next()
				if err != nil {
					break
				}
				records++
			}
			var tl *TooLargeError
			if !errors.Is(err, ErrTooLarge) || !errors.As(err, &tl) || tl.Limit != limit || !tl.Gzipped {
				t.Fatalf("after %d records: %v, want a *TooLargeError for 1 MiB decompressed", records, err)
			}
			if want := "longer, decompressed, than the 1 MiB limit; the rest is not read (raise it with --max-bytes)"; !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
			// Every whole message inside the limit is read.
			if want := limit / len(tc.line); records != want {
				t.Errorf("%d records before the limit, want %d", records, want)
			}
			// The compressed input read is what 1 MiB decompresses
			// from, plus read-ahead: kilobytes, not the whole stream.
			t.Logf("%d records, %d compressed bytes read", records, in.n)
			if in.n > 256<<10 {
				t.Errorf("read %d compressed bytes for a 1 MiB limit", in.n)
			}
			if _, err2 := tr.Next(); !errors.Is(err2, ErrTooLarge) {
				t.Errorf("Next after the limit: %v, want ErrTooLarge again", err2)
			}
		})
	}
}

// TestMaxBytesBoundary: a trace of exactly MaxBytes is read whole, plain or
// gzipped; one byte more is an error after the records that fit.
func TestMaxBytesBoundary(t *testing.T) {
	text := "{\"a\":1}\n{\"b\":2}\n" // 16 bytes
	gz := func(s string) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		io.WriteString(zw, s)
		zw.Close()
		return buf.Bytes()
	}
	for _, tc := range []struct {
		name    string
		in      []byte
		gzipped bool
	}{
		{"plain", []byte(text), false},
		{"gzip", gz(text), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := readAll(t, bytes.NewReader(tc.in), Options{MaxBytes: 16})
			if len(got) != 2 {
				t.Fatalf("%d records within the limit, want 2", len(got))
			}
			tr, err := NewReader(bytes.NewReader(tc.in), Options{MaxBytes: 15})
			if err != nil {
				t.Fatal(err)
			}
			r, err := tr.Next()
			if err != nil || string(r.Data) != `{"a":1}` {
				t.Fatalf("first record: %+v, %v", r, err)
			}
			_, err = tr.Next()
			var tl *TooLargeError
			if !errors.As(err, &tl) || tl.Limit != 15 || tl.Gzipped != tc.gzipped {
				t.Fatalf("second record: %v, want a *TooLargeError with limit 15", err)
			}
		})
	}
}

// A live trace is sniffed as soon as its first line arrives: NewReader and
// the first Next do not wait for more of a pipe that stays open.
func TestFirstLineOfALivePipe(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() { _, _ = io.WriteString(pw, "\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n") }()
	done := make(chan error, 1)
	go func() {
		r, err := NewReader(pr, Options{})
		if err == nil {
			_, err = r.Next()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reader waits for more than the first line of a pipe that stays open")
	}
}

// Lines longer than the read buffer come back whole and exact, and short
// lines that share an allocation stay apart: appending to one never
// changes the next.
func TestLinesComeBackExact(t *testing.T) {
	for _, borrow := range []bool{false, true} {
		t.Run(fmt.Sprintf("borrow=%v", borrow), func(t *testing.T) { linesComeBackExact(t, borrow) })
	}
}

// linesComeBackExact reads lines of many lengths; with borrow, each one is
// copied before the next read, as Options.Borrow asks.
func linesComeBackExact(t *testing.T, borrow bool) {
	var in bytes.Buffer
	var want []string
	for i, n := range []int{10, 70_000, 3, 1 << 20, 200_000, 5, 16_385, 16_384, 0, 1} {
		line := bytes.Repeat([]byte{byte('a' + i)}, n)
		for j := 0; j < n; j += 997 {
			line[j] = byte('0' + j%10) // not one repeated byte: a misplaced chunk shows
		}
		if n == 0 {
			line = []byte(`{}`)
		}
		in.Write(line)
		in.WriteString("\r\n")
		want = append(want, string(line))
	}
	r, err := NewReader(&in, Options{MaxLine: 2 << 20, Borrow: borrow})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if borrow {
			rec.Data = bytes.Clone(rec.Data)
		}
		got = append(got, rec.Data)
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range got {
		_ = append(got[i], "XXXXXXXX"...)
	}
	for i := range got {
		if string(got[i]) != want[i] {
			t.Errorf("record %d: %d bytes differ from the %d-byte line", i, len(got[i]), len(want[i]))
		}
	}
}

// TestSmallFileThatGrows reads a regular file whose read buffer was sized
// for what it held when the Reader was made: lines written later, longer
// than that buffer, come back whole.
func TestSmallFileThatGrows(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, []byte(`{"a":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := NewReader(f, Options{Borrow: true})
	if err != nil {
		t.Fatal(err)
	}
	long := `{"b":"` + strings.Repeat("x", 200_000) + `"}`
	w, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteString(long + "\n" + `{"c":3}` + "\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	got := drain(t, r)
	if want := []string{`{"a":1}`, long, `{"c":3}`}; len(got) != 3 || got[0].Data != want[0] || got[1].Data != want[1] || got[2].Data != want[2] {
		t.Errorf("got %d records, want the 3 lines", len(got))
	}
}
