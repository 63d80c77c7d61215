// Package sse reads and writes Server-Sent Events streams (the
// text/event-stream format of the HTML standard), the framing that streaming
// agent protocols such as Arcan's AgentEvent stream and the AI SDK adapters
// use over HTTP. It knows nothing of what the events carry: each event's data
// is passed on as bytes.
//
// Reading is bounded: an event or line over the size limit is reported and
// skipped without being held in memory.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// DefaultMaxEventSize is the size limit a [Reader] applies unless
// [WithMaxEventSize] sets another: 64 MiB, far above any event an agent
// protocol sends (tool outputs included), yet small enough that a stream that
// never ends a line cannot exhaust memory.
const DefaultMaxEventSize = 64 << 20

// ErrEventTooLarge is the cause of the [Error] that [Reader.Next]
// returns for an event over the size limit. The reader has skipped that event
// and can go on reading.
var ErrEventTooLarge = errors.New("event exceeds the size limit")

// Error reports a problem with one event of a stream, at the line where the
// event started. It does not end the stream: the next call to
// [Reader.Next] reads the following event.
type Error struct {
	// Line is the 1-based line number where the event started.
	Line int
	// Err is the cause, such as ErrEventTooLarge.
	Err error
}

func (e *Error) Error() string {
	return fmt.Sprintf("sse: event at line %d: %v", e.Line, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Event is one event read from or written to a Server-Sent Events stream.
type Event struct {
	// Data is the event's data: the values of its "data:" lines joined with
	// "\n". For an agent protocol it is one JSON message. Each event owns
	// its Data; the reader does not reuse it.
	Data []byte
	// ID is the last event ID in effect when the event was dispatched: the
	// value of the most recent "id:" line of the stream, in this event or an
	// earlier one, as the SSE standard defines it. Empty when the stream sent
	// none.
	ID string
	// Event is the event type from an "event:" line of this event, or "" when
	// it has none (which SSE clients treat as "message").
	Event string
	// Line is the 1-based line number of the event's first field line. It is
	// set by Reader and ignored by Writer.
	Line int
}

// ReaderOption configures a [Reader].
type ReaderOption func(*Reader)

// WithMaxEventSize sets the size limit in bytes for one event: an event is too
// large when one of its lines (terminator excluded) or its joined data is
// longer than n. Values below 1 keep the default, [DefaultMaxEventSize].
func WithMaxEventSize(n int) ReaderOption {
	return func(r *Reader) {
		if n > 0 {
			r.max = n
		}
	}
}

// Reader reads events from a Server-Sent Events stream, such as the
// "data: {json}\n\n" frames of an agent's event stream, following the parsing
// rules of the HTML standard's event-stream format:
//
//   - lines end with "\n", "\r\n" or a lone "\r", in any mix; a byte-order
//     mark at the start of the stream is skipped;
//   - a blank line ends an event; an event without any "data:" line is not
//     reported;
//   - lines starting with ":" are comments (keep-alives) and are
//     ignored;
//   - a field line is "name:value" or "name: value" (one space after the
//     colon is dropped), or a bare "name" with an empty value; the fields are
//     data (repeated lines are joined with "\n"), id, event and retry; other
//     names are ignored;
//   - an event whose data is exactly "[DONE]" ends the stream, as in the AI
//     SDK adapters: Next returns io.EOF and reads nothing further;
//   - an event cut off by the end of the stream, without its final blank line,
//     is still reported.
//
// Data bytes are passed on as they are, not decoded: invalid UTF-8 is left for
// the JSON decoder to report. Memory stays bounded by the size limit (see
// [WithMaxEventSize]) whatever the input.
//
// An Reader is not safe for concurrent use.
type Reader struct {
	br  *bufio.Reader
	max int

	line    int  // lines started so far
	skipLF  bool // the previous line ended with "\r": a following "\n" belongs to it
	done    bool // "[DONE]" was read
	err     error
	lineBuf []byte

	lastID   string
	retry    time.Duration
	hasRetry bool

	// the event being assembled
	data      []byte
	hasData   bool
	eventType string
	evLine    int
	tooLarge  bool
}

// NewReader returns a reader of the SSE stream r.
func NewReader(r io.Reader, opts ...ReaderOption) *Reader {
	sr := &Reader{max: DefaultMaxEventSize}
	for _, o := range opts {
		o(sr)
	}
	sr.br = bufio.NewReaderSize(r, 64<<10)
	return sr
}

// Next returns the next event of the stream. At the end of the stream, or after
// a "[DONE]" event, it returns io.EOF. For an event over the size limit it
// returns an [*Error] wrapping [ErrEventTooLarge] that names the line
// where the event started; the event is skipped and the following call goes
// on with the next one. Any other error comes from the underlying reader and
// is returned again by every later call.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	if r.done {
		return Event{}, io.EOF
	}
	for {
		line, truncated, err := r.readLine()
		if err == io.EOF {
			// The stream ended: report an event that lacks its final blank line.
			if ev, ok, evErr := r.dispatch(); ok || evErr != nil {
				return ev, evErr
			}
			r.err = io.EOF
			return Event{}, io.EOF
		}
		if err != nil {
			r.err = fmt.Errorf("sse: reading the stream at line %d: %w", r.line+1, err)
			return Event{}, r.err
		}
		if len(line) == 0 && !truncated {
			if ev, ok, evErr := r.dispatch(); ok || evErr != nil {
				return ev, evErr
			}
			continue
		}
		if line[0] == ':' {
			continue // a comment, however long
		}
		if r.evLine == 0 {
			r.evLine = r.line
		}
		if truncated {
			r.tooLarge = true
			continue
		}
		r.field(line)
	}
}

// Done reports whether the stream ended with a "[DONE]" event.
func (r *Reader) Done() bool { return r.done }

// Retry returns the reconnection time set by the stream's most recent valid
// "retry:" line, and whether there was one.
func (r *Reader) Retry() (time.Duration, bool) { return r.retry, r.hasRetry }

// Line returns the number of lines read so far.
func (r *Reader) Line() int { return r.line }

// field applies one field line of the current event.
func (r *Reader) field(line []byte) {
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if r.tooLarge {
			return
		}
		n := len(r.data) + len(value)
		if r.hasData {
			n++
		}
		if n > r.max {
			r.tooLarge = true
			r.data = nil
			return
		}
		if r.hasData {
			r.data = append(r.data, '\n')
		}
		r.data = append(r.data, value...)
		r.hasData = true
	case "event":
		r.eventType = string(value)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			r.lastID = string(value)
		}
	case "retry":
		if ms, ok := parseRetry(value); ok {
			r.retry, r.hasRetry = time.Duration(ms)*time.Millisecond, true
		}
	}
}

// parseRetry parses the value of a retry field: ASCII digits only, in
// milliseconds, small enough to fit a time.Duration.
func parseRetry(v []byte) (int64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	const limit = math.MaxInt64 / int64(time.Millisecond)
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
		if n > limit {
			return 0, false
		}
	}
	return n, true
}

// dispatch ends the current event. It reports the event (ok), the error for an
// oversized one, or neither when the event had no data.
func (r *Reader) dispatch() (ev Event, ok bool, err error) {
	defer r.resetEvent()
	if r.tooLarge {
		return Event{}, false, &Error{Line: r.evLine, Err: fmt.Errorf("%w of %d bytes", ErrEventTooLarge, r.max)}
	}
	if !r.hasData {
		return Event{}, false, nil
	}
	if string(r.data) == "[DONE]" {
		r.done = true
		return Event{}, false, io.EOF
	}
	data := r.data
	if data == nil {
		data = []byte{}
	}
	ev = Event{Data: data[:len(data):len(data)], ID: r.lastID, Event: r.eventType, Line: r.evLine}
	r.data = nil // the event owns the bytes now
	return ev, true, nil
}

func (r *Reader) resetEvent() {
	r.data = r.data[:0]
	r.hasData = false
	r.eventType = ""
	r.evLine = 0
	r.tooLarge = false
}

// readLine reads one line without its terminator. It keeps at most r.max
// bytes of it and reports whether the line was longer (truncated). A last line
// without a terminator is returned as a line; io.EOF comes only when no byte
// is left. The returned slice is valid until the next call.
func (r *Reader) readLine() (line []byte, truncated bool, err error) {
	if r.skipLF {
		r.skipLF = false
		b, err := r.br.Peek(1)
		if err == nil && b[0] == '\n' {
			if _, err := r.br.Discard(1); err != nil {
				return nil, false, err
			}
		} else if err != nil && err != io.EOF {
			return nil, false, err
		}
	}
	if cap(r.lineBuf) > 1<<20 {
		r.lineBuf = nil // do not hold on to the memory of one huge line
	}
	r.lineBuf = r.lineBuf[:0]
	started := false
	for {
		if r.br.Buffered() == 0 {
			if _, err := r.br.Peek(1); err != nil {
				if err == io.EOF && started {
					r.finishLine()
					return r.lineBuf, truncated, nil
				}
				if started {
					r.line-- // the line was not read; Next names it as line r.line+1
				}
				return nil, false, err
			}
		}
		if !started {
			started = true
			r.line++
		}
		buf, _ := r.br.Peek(r.br.Buffered())
		end := bytes.IndexByte(buf, '\n')
		before := buf // a CR ends the line only if it comes before the first LF
		if end >= 0 {
			before = buf[:end]
		}
		if cr := bytes.IndexByte(before, '\r'); cr >= 0 {
			end = cr
		}
		seg := buf
		if end >= 0 {
			seg = buf[:end]
		}
		if !truncated {
			room := r.max - len(r.lineBuf)
			if len(seg) > room {
				r.lineBuf = append(r.lineBuf, seg[:room]...)
				truncated = true
			} else {
				r.lineBuf = append(r.lineBuf, seg...)
			}
		}
		if end < 0 {
			if _, err := r.br.Discard(len(buf)); err != nil {
				return nil, false, err
			}
			continue
		}
		r.skipLF = buf[end] == '\r'
		if _, err := r.br.Discard(end + 1); err != nil {
			return nil, false, err
		}
		r.finishLine()
		return r.lineBuf, truncated, nil
	}
}

// finishLine drops a byte-order mark from the first line of the stream.
func (r *Reader) finishLine() {
	if r.line == 1 {
		r.lineBuf = bytes.TrimPrefix(r.lineBuf, []byte("\ufeff"))
	}
}

// Writer writes events in Server-Sent Events framing. Each event goes to the
// underlying writer in a single Write call, so an http.ResponseWriter can be
// flushed after every event. An Writer is not safe for concurrent use.
type Writer struct {
	w   io.Writer
	buf []byte
}

// NewWriter returns a writer of SSE frames to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w}
}

// WriteData writes data as one event: "data: " and the data, then a blank
// line, which is byte for byte how Arcan frames an AgentEvent. Data spanning
// several lines ("\n", "\r\n" or "\r") becomes one "data: " line per line;
// a reader joins them back with "\n".
func (w *Writer) WriteData(data []byte) error {
	return w.WriteEvent(Event{Data: data})
}

// WriteEvent writes ev with its "event:" line when ev.Event is set, its
// data lines, and its "id:" line when ev.ID is set, then a blank line.
// ev.Line is ignored. An Event or ID that cannot be framed (one containing a
// line break, or an ID containing NUL) is an error and nothing is written.
func (w *Writer) WriteEvent(ev Event) error {
	if strings.ContainsAny(ev.Event, "\r\n") {
		return fmt.Errorf("sse: event type %q contains a line break", ev.Event)
	}
	if strings.ContainsAny(ev.ID, "\r\n\x00") {
		return fmt.Errorf("sse: event id %q contains a line break or NUL", ev.ID)
	}
	b := w.buf[:0]
	if ev.Event != "" {
		b = append(b, "event: "...)
		b = append(b, ev.Event...)
		b = append(b, '\n')
	}
	data := ev.Data
	for {
		i := bytes.IndexAny(data, "\r\n")
		b = append(b, "data: "...)
		if i < 0 {
			b = append(b, data...)
			b = append(b, '\n')
			break
		}
		b = append(b, data[:i]...)
		b = append(b, '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	if ev.ID != "" {
		b = append(b, "id: "...)
		b = append(b, ev.ID...)
		b = append(b, '\n')
	}
	b = append(b, '\n')
	return w.flush(b, "event")
}

// WriteComment writes a comment line, which readers ignore; servers send one
// to keep an idle connection open. An empty text gives ":\n\n", the keep-alive
// Arcan's daemon sends. Text spanning several lines becomes several comment
// lines.
func (w *Writer) WriteComment(text string) error {
	b := w.buf[:0]
	data := []byte(text)
	for {
		i := bytes.IndexAny(data, "\r\n")
		b = append(b, ':')
		if i < 0 {
			if len(data) > 0 {
				b = append(b, ' ')
				b = append(b, data...)
			}
			b = append(b, '\n')
			break
		}
		if i > 0 {
			b = append(b, ' ')
			b = append(b, data[:i]...)
		}
		b = append(b, '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	b = append(b, '\n')
	return w.flush(b, "comment")
}

// WriteDone writes the "data: [DONE]" event that ends a stream in the AI SDK
// framing. Arcan's native stream does not send it: the stream just closes.
func (w *Writer) WriteDone() error {
	return w.flush(append(w.buf[:0], "data: [DONE]\n\n"...), "terminator")
}

func (w *Writer) flush(b []byte, what string) error {
	if cap(b) <= 1<<20 {
		w.buf = b // reuse the buffer, unless one huge event grew it
	}
	if _, err := w.w.Write(b); err != nil {
		return fmt.Errorf("sse: writing the %s: %w", what, err)
	}
	return nil
}
