package arcan

import (
	"io"

	"github.com/agentproto/agentproto/pkg/sse"
)

// Arcan streams AgentEvents as Server-Sent Events, one "data: {json}\n\n"
// frame per event, with ":" comments as keep-alives. The framing itself is
// protocol-neutral and lives in package sse; the names below keep Arcan's
// API to it.

// DefaultMaxEventSize is the size limit an [SSEReader] applies unless
// [WithMaxEventSize] sets another: 64 MiB, far above any event Arcan sends
// (tool outputs included). See [sse.DefaultMaxEventSize].
const DefaultMaxEventSize = sse.DefaultMaxEventSize

// ErrEventTooLarge is the cause of the [SSEError] that [SSEReader.Next]
// returns for an event over the size limit; it is [sse.ErrEventTooLarge].
var ErrEventTooLarge = sse.ErrEventTooLarge

// SSEError reports a problem with one event of a stream, at the line where
// the event started. See [sse.Error].
type SSEError = sse.Error

// SSEEvent is one event read from or written to a Server-Sent Events stream;
// for an Arcan stream its Data is one AgentEvent as JSON. See [sse.Event].
type SSEEvent = sse.Event

// SSEReaderOption configures an [SSEReader].
type SSEReaderOption = sse.ReaderOption

// WithMaxEventSize sets the size limit in bytes for one event. See
// [sse.WithMaxEventSize].
func WithMaxEventSize(n int) SSEReaderOption { return sse.WithMaxEventSize(n) }

// SSEReader reads events from a Server-Sent Events stream, such as Arcan's
// event stream, skipping its keep-alive comments. See [sse.Reader] for the
// parsing rules and limits.
type SSEReader = sse.Reader

// NewSSEReader returns a reader of the SSE stream r.
func NewSSEReader(r io.Reader, opts ...SSEReaderOption) *SSEReader {
	return sse.NewReader(r, opts...)
}

// SSEWriter writes events in Server-Sent Events framing, each in a single
// Write call. See [sse.Writer].
type SSEWriter struct {
	w *sse.Writer
}

// NewSSEWriter returns a writer of SSE frames to w.
func NewSSEWriter(w io.Writer) *SSEWriter {
	return &SSEWriter{w: sse.NewWriter(w)}
}

// WriteEvent writes data as one event: "data: " and the data, then a blank
// line, which is byte for byte how Arcan frames an AgentEvent. See
// [sse.Writer.WriteData].
func (w *SSEWriter) WriteEvent(data []byte) error { return w.w.WriteData(data) }

// WriteSSEEvent writes ev with its "event:" and "id:" lines when set. See
// [sse.Writer.WriteEvent].
func (w *SSEWriter) WriteSSEEvent(ev SSEEvent) error { return w.w.WriteEvent(ev) }

// WriteComment writes a comment line; an empty text gives ":\n\n", the
// keep-alive Arcan's daemon sends. See [sse.Writer.WriteComment].
func (w *SSEWriter) WriteComment(text string) error { return w.w.WriteComment(text) }

// WriteDone writes the "data: [DONE]" event that ends a stream in the AI SDK
// framing. Arcan's native stream does not send it: the stream just closes.
func (w *SSEWriter) WriteDone() error { return w.w.WriteDone() }
