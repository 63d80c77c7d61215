// Package trace reads recorded wire traces: JSON Lines (one message per line)
// or Server-Sent Events text (one message per data frame), optionally gzip
// compressed, and yields one record per message with the line it starts on.
//
// Reading is bounded: a line longer than the configured limit is reported as a
// record with ErrLineTooLong and its remainder is skipped without being held in
// memory, so a reader never needs more than about MaxLine bytes whatever the
// size of the file or of its lines. The decompressed size of a file is
// bounded too (Options.MaxBytes), so a small gzip file that expands without
// end is not read to its end.
package trace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/agentproto/agentproto/pkg/sse"
)

// DefaultMaxLine is the longest line (or SSE frame) read when Options.MaxLine
// is 0: 16 MiB, far above any real protocol message.
const DefaultMaxLine = 16 << 20

// DefaultMaxBytes is the most a Reader reads of one trace, decompressed, when
// Options.MaxBytes is 0: 64 GiB, far beyond any recorded session, yet a
// bound on what a gzip bomb (a small file that expands without end) costs.
const DefaultMaxBytes = 64 << 30

// Format is the framing of a trace.
type Format int

const (
	// JSONL is one JSON value per line. Blank lines are skipped, CRLF line
	// ends are accepted, and the last line may lack its newline.
	JSONL Format = iota
	// SSE is Server-Sent Events text: the data: lines of a frame, joined by
	// newlines, form one message. Frames are read with sse.Reader:
	// comments are skipped, event: and id: are kept, and a data: [DONE]
	// frame ends the stream.
	SSE
)

func (f Format) String() string {
	if f == SSE {
		return "sse"
	}
	return "jsonl"
}

// Options configure a Reader.
type Options struct {
	// MaxLine is the longest line, or SSE frame, kept in bytes (0 means
	// DefaultMaxLine). Longer ones become a record with ErrLineTooLong.
	MaxLine int
	// MaxBytes is the most read of the trace, in bytes after
	// decompression (0 or less means DefaultMaxBytes). Beyond it, Next
	// returns an error wrapping ErrTooLarge: the records before it stand,
	// the rest of the file is not read.
	MaxBytes int64
	// Format forces the framing; nil sniffs it from the first non-blank line.
	Format *Format
	// Borrow lends each record's Data rather than giving it: it is valid
	// only until the next call to Next, which may reuse its memory. A
	// caller that copies the lines it keeps into storage of its own
	// saves the Reader's copy.
	Borrow bool
}

// Record is one message of a trace.
type Record struct {
	// Line is the 1-based line number in the (decompressed) file where the
	// message starts: for SSE, the line of the frame's first field.
	Line int
	// Data is the message text without line terminator. It belongs to the
	// caller: the Reader does not reuse it (unless Options.Borrow).
	Data []byte
	// Event and ID are the SSE event: and id: fields of the frame, if any.
	Event, ID string
	// Err is set when the message could not be read whole: ErrLineTooLong
	// (wrapped in a *LineTooLongError). Data is then empty.
	Err error
}

// ErrLineTooLong is matched (errors.Is) by the Err of a record whose line was
// over the limit.
var ErrLineTooLong = errors.New("line too long")

// ErrTooLarge is matched (errors.Is) by the error Next returns when the
// trace is longer than Options.MaxBytes.
var ErrTooLarge = errors.New("trace too large")

// TooLargeError reports a trace longer, decompressed, than Options.MaxBytes.
type TooLargeError struct {
	Limit   int64 // the limit in bytes
	Gzipped bool  // the limit applied to the decompressed stream
}

func (e *TooLargeError) Error() string {
	what := "the trace is longer"
	if e.Gzipped {
		what = "the trace is longer, decompressed,"
	}
	return fmt.Sprintf("%s than the %s limit; the rest is not read (raise it with --max-bytes)", what, byteSize(e.Limit))
}

// Unwrap makes errors.Is(err, ErrTooLarge) hold.
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// limitReader reads r up to left bytes and then fails with over if r holds
// more: a file of exactly the limit is read whole.
type limitReader struct {
	r      io.Reader
	left   int64
	over   error
	failed bool
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.failed {
		return 0, l.over
	}
	if int64(len(p)) > l.left {
		p = p[:l.left+1] // one byte beyond the limit tells whether more follows
	}
	n, err := l.r.Read(p)
	if int64(n) > l.left {
		n, l.left, l.failed = int(l.left), 0, true
		return n, l.over
	}
	l.left -= int64(n)
	return n, err
}

// LineTooLongError reports a line or frame over Options.MaxLine.
type LineTooLongError struct {
	Limit int   // the limit in bytes
	Size  int64 // the size of the line, or of the frame, in bytes
}

func (e *LineTooLongError) Error() string {
	if e.Size <= 0 {
		return fmt.Sprintf("event longer than the %s limit; skipped (raise it with --max-line)", byteSize(int64(e.Limit)))
	}
	return fmt.Sprintf("line of %s is longer than the %s limit; skipped (raise it with --max-line)", byteSize(e.Size), byteSize(int64(e.Limit)))
}

// Unwrap makes errors.Is(err, ErrLineTooLong) hold.
func (e *LineTooLongError) Unwrap() error { return ErrLineTooLong }

func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Reader yields the records of one trace.
type Reader struct {
	br      *bufio.Reader
	sse     *sse.Reader
	max     int
	format  Format
	gzipped bool
	line    int // lines consumed so far
	first   bool
	done    bool
	scratch []byte // a line read in several chunks, being joined
	slab    []byte // where short lines are copied, many to an allocation
	borrow  bool   // Options.Borrow: lines are not copied
}

// slabSize is how much a Reader allocates at once for short lines; a line
// longer than a quarter of it gets an array of its own.
const slabSize = 64 << 10

// keep copies a line out of the read buffer: into the slab when short, so
// that lines cost an allocation per slab rather than one each. The copy's
// capacity ends with it, so appending to one line never touches another.
func (t *Reader) keep(b []byte) []byte {
	if len(b) > slabSize/4 {
		return append([]byte(nil), b...)
	}
	if cap(t.slab)-len(t.slab) < len(b) {
		t.slab = make([]byte, 0, slabSize)
	}
	i := len(t.slab)
	t.slab = append(t.slab, b...)
	return t.slab[i:len(t.slab):len(t.slab)]
}

type physLine struct {
	n    int
	data []byte
	size int64 // full size, when over the limit
	long bool
}

// bufferFor is the read buffer for a plain trace read from r: 64 KB, or
// just over the size of a regular file that is smaller (a CI that checks
// hundreds of short traces does not clear 64 KB for each).
func bufferFor(r io.Reader) int {
	const size = 64 << 10
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() < size {
			return max(int(fi.Size())+1, 512)
		}
	}
	return size
}

// NewReader returns a Reader over r. It reads ahead to recognise gzip (by its
// magic bytes) and, unless opts.Format is set, the framing. It fails only when
// r fails before the first bytes or a gzip header is corrupt; later read errors
// come from Next.
func NewReader(r io.Reader, opts Options) (*Reader, error) {
	max := opts.MaxLine
	if max <= 0 {
		max = DefaultMaxLine
	}
	limit := opts.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	// A small buffer holds the bytes looked at to recognise gzip; reads
	// larger than it go straight through, so a plain trace is buffered
	// once, by br below.
	peek := bufio.NewReaderSize(r, 16)
	t := &Reader{max: max, first: true, borrow: opts.Borrow}
	magic, err := peek.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("trace: reading: %w", err)
	}
	var br *bufio.Reader
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		// The decompressor reads byte by byte: give it a buffer of size.
		zr, err := gzip.NewReader(bufio.NewReaderSize(peek, 64<<10))
		if err != nil {
			return nil, fmt.Errorf("trace: gzip header: %w", err)
		}
		t.gzipped = true
		br = bufio.NewReaderSize(&limitReader{r: zr, left: limit, over: &TooLargeError{Limit: limit, Gzipped: true}}, 64<<10)
	} else {
		br = bufio.NewReaderSize(&limitReader{r: peek, left: limit, over: &TooLargeError{Limit: limit}}, bufferFor(r))
	}
	t.br = br
	if opts.Format != nil {
		t.format = *opts.Format
	} else {
		// Sniff the framing from the first non-blank line, without
		// consuming it.
		head, err := peekFirstLine(br)
		if isSSEField(firstLine(head)) {
			t.format = SSE
		}
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
			// Peek consumed the error; report it, in order, once the
			// bytes before it have been read.
			br = bufio.NewReaderSize(&errAtEOF{r: br, err: err}, 64<<10)
			t.br = br
		}
	}
	if t.format == SSE {
		t.sse = sse.NewReader(br, sse.WithMaxEventSize(max))
	}
	return t, nil
}

// peekFirstLine peeks at the start of br until it holds a complete line
// with more than whitespace, the end of the input, or a full buffer,
// whichever comes first. It never waits for more than that line: a live
// trace (a pipe from a running peer) is sniffed as soon as its first line
// has arrived.
func peekFirstLine(br *bufio.Reader) ([]byte, error) {
	for size := 1; ; {
		b, err := br.Peek(size)
		if err != nil {
			return b, err
		}
		if avail := br.Buffered(); avail > size {
			b, _ = br.Peek(avail)
		}
		if firstLineDone(b) {
			return b, nil
		}
		if len(b) >= br.Size() {
			return b, bufio.ErrBufferFull
		}
		size = len(b) + 1
	}
}

// firstLineDone reports whether b holds a complete line (ended by CR or LF)
// with more than whitespace.
func firstLineDone(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			return false
		}
		if len(bytes.TrimSpace(b[:i])) > 0 {
			return true
		}
		b = b[i+1:]
	}
	return false
}

// errAtEOF reads r and returns err where r ends.
type errAtEOF struct {
	r   io.Reader
	err error
}

func (e *errAtEOF) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if errors.Is(err, io.EOF) {
		return n, e.err
	}
	return n, err
}

// firstLine returns the first line of b that holds more than whitespace,
// after a byte order mark.
func firstLine(b []byte) []byte {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	for len(b) > 0 {
		line := b
		if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line
		}
	}
	return nil
}

// Format reports the framing in use.
func (t *Reader) Format() Format { return t.format }

// Gzipped reports whether the input was gzip compressed.
func (t *Reader) Gzipped() bool { return t.gzipped }

// Lines reports how many lines have been consumed so far.
func (t *Reader) Lines() int {
	if t.sse != nil {
		return t.sse.Line()
	}
	return t.line
}

// isSSEField reports whether a line looks like the start of an SSE stream.
func isSSEField(b []byte) bool {
	for _, p := range [][]byte{[]byte("data:"), []byte("event:"), []byte("id:"), []byte("retry:"), []byte(":")} {
		if bytes.HasPrefix(b, p) {
			return true
		}
	}
	return false
}

// readLine reads one physical line, without its terminator. Over the limit,
// it returns long=true and discards the rest of the line as it reads it.
func (t *Reader) readLine() (physLine, error) {
	if t.done {
		return physLine{}, io.EOF
	}
	var buf []byte // the line: a chunk of the read buffer, or scratch
	var size int64
	long := false
	for chunks := 0; ; chunks++ {
		chunk, err := t.br.ReadSlice('\n')
		size += int64(len(chunk))
		if !long {
			switch {
			case len(buf)+len(chunk) > t.max+2: // +2 leaves room for CRLF
				long = true
				buf = nil
			case chunks == 0 && !errors.Is(err, bufio.ErrBufferFull):
				// Most lines come whole, and are copied once below,
				// before the read buffer is read into again.
				buf = chunk
			case chunks == 0:
				t.scratch = append(t.scratch[:0], chunk...)
				buf = t.scratch
			default:
				t.scratch = append(t.scratch, chunk...)
				buf = t.scratch
			}
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			t.done = true
			if size == 0 {
				return physLine{}, io.EOF
			}
			break
		}
		return physLine{}, fmt.Errorf("trace: line %d: %w", t.line+1, err)
	}
	t.line++
	pl := physLine{n: t.line, size: size, long: long}
	if !long {
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		buf = bytes.TrimSuffix(buf, []byte("\r"))
		if len(buf) > t.max {
			pl.long = true
			buf = nil
		}
	}
	if t.first {
		t.first = false
		buf = bytes.TrimPrefix(buf, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	}
	if buf != nil && !t.borrow {
		buf = t.keep(buf)
	}
	pl.data = buf
	return pl, nil
}

// Next returns the next record, or io.EOF after the last one. Any other error
// is a read failure (including corrupt gzip data); the records returned before
// it stand.
func (t *Reader) Next() (Record, error) {
	if t.format == SSE {
		return t.nextSSE()
	}
	for {
		pl, err := t.readLine()
		if err != nil {
			return Record{}, err
		}
		if pl.long {
			return Record{Line: pl.n, Err: &LineTooLongError{Limit: t.max, Size: pl.size}}, nil
		}
		if len(bytes.TrimSpace(pl.data)) == 0 {
			continue
		}
		return Record{Line: pl.n, Data: pl.data}, nil
	}
}

func (t *Reader) nextSSE() (Record, error) {
	ev, err := t.sse.Next()
	if err != nil {
		var se *sse.Error
		if errors.As(err, &se) && errors.Is(err, sse.ErrEventTooLarge) {
			return Record{Line: se.Line, Err: &LineTooLongError{Limit: t.max}}, nil
		}
		if errors.Is(err, io.EOF) {
			return Record{}, io.EOF
		}
		return Record{}, fmt.Errorf("trace: %w", err)
	}
	return Record{Line: ev.Line, Data: ev.Data, Event: ev.Event, ID: ev.ID}, nil
}
