package jsonrpc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/agentproto/agentproto/pkg/wire"
)

// DefaultMaxLine is the longest message a Conn reads when Options.MaxLine
// is 0.
const DefaultMaxLine = 64 << 20

// ErrClosed is returned by calls that were waiting for an answer when the
// connection's input ended.
var ErrClosed = errors.New("jsonrpc: connection closed")

// Request is a request or notification received: ID is nil for a
// notification. Params is the raw JSON of the params member (nil when
// absent); it is owned by the request and never modified.
type Request struct {
	Method string
	ID     []byte
	Params []byte
}

// IsNotification reports whether the message has no id.
func (r *Request) IsNotification() bool { return r.ID == nil }

// Handler serves what a connection receives. Handle is called for each
// request on a goroutine of its own, so requests are served concurrently,
// and for each notification on the connection's single notification
// goroutine, in the order they arrived; a request is handled only once
// the notifications that arrived before it have been. For a request it returns the
// result to send (nil sends null) or an error: an *Error is sent as it is,
// the context's own cancellation as RequestCancelled, and any other error as
// InternalError with its text. A notification's error goes to
// Options.OnError.
type Handler interface {
	Handle(ctx context.Context, r *Request) (wire.Encodable, error)
}

// HandlerFunc is a function that is a Handler.
type HandlerFunc func(ctx context.Context, r *Request) (wire.Encodable, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, r *Request) (wire.Encodable, error) {
	return f(ctx, r)
}

// Options configure a Conn. The zero value is usable.
type Options struct {
	// CancelMethod is the notification that cancels a request by id (ACP's
	// "$/cancel_request", LSP's "$/cancelRequest"), and CancelMember the
	// member of its params that holds the id ("requestId", "id"). When
	// set, a Call whose context ends sends it (unless the Call is given a
	// cancel function of its own), and one received cancels the context of
	// the handler serving that request; it is not passed to the Handler.
	CancelMethod, CancelMember string
	// OnError, when set, is told of what goes wrong with no caller to
	// return it to: a line that is not JSON-RPC, a notification handler's
	// error, an answer to no pending request, a failed write of a
	// response.
	OnError func(error)
	// MaxLine bounds a message's length in bytes (0: DefaultMaxLine); a
	// longer one ends the connection with an error.
	MaxLine int
}

// Conn is one JSON-RPC 2.0 connection over newline-delimited JSON: one
// message per line, as ACP and other stdio protocols frame them. Writes are
// serialised, outbound request ids are integers counted from 1, answers
// are matched to their calls, and every method is safe for concurrent use.
// Serve reads the input; calls made before it runs wait for it.
type Conn struct {
	r    io.Reader
	w    io.Writer
	opts Options

	wmu  sync.Mutex
	enc  wire.Encoder
	werr error

	nextID atomic.Int64

	mu       sync.Mutex
	pending  map[int64]*call
	inflight map[string]*inflight // incoming requests by id text
	scopes   map[string]*scope
	closed   bool

	// Notifications are handled in order on one goroutine; an answer is
	// given to its caller only once the notifications read before it have
	// been handled (the caller waits for handled to reach its mark).
	nmu      sync.Mutex
	ncond    *sync.Cond
	nqueue   []*Request
	nqueued  int64
	nhandled int64
	nstop    bool // the input has ended: the queue is drained, then the worker exits
	nexited  bool // the notification worker has exited

	done chan struct{}
}

// inflight is an incoming request being served.
type inflight struct {
	cancel context.CancelFunc
	// byPeer is set when the peer cancelled the request: an error answer
	// is then RequestCancelled, as a cancelled request's must be.
	byPeer atomic.Bool
}

// scope is a cancellable piece of work registered under a key; its
// pointer tells a scope from a newer one of the same key.
type scope struct{ cancel context.CancelFunc }

type call struct {
	ch chan answer
}

type answer struct {
	result []byte
	err    *Error
	mark   int64 // notifications read before the answer
}

// NewConn returns a connection that reads messages from r and writes them to
// w. Nothing is read until Serve.
func NewConn(r io.Reader, w io.Writer, opts Options) *Conn {
	c := &Conn{r: r, w: w, opts: opts, pending: map[int64]*call{}, inflight: map[string]*inflight{}, scopes: map[string]*scope{}, done: make(chan struct{})}
	c.ncond = sync.NewCond(&c.nmu)
	return c
}

// Done is closed when Serve has returned.
func (c *Conn) Done() <-chan struct{} { return c.done }

func (c *Conn) report(err error) {
	if c.opts.OnError != nil {
		c.opts.OnError(err)
	}
}

type notifyKey struct{}

// write encodes one message under the write lock and writes it with its
// newline in one Write.
func (c *Conn) write(encode func(e *wire.Encoder)) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return c.werr
	}
	c.enc.Reset()
	encode(&c.enc)
	if err := c.enc.Err(); err != nil {
		return fmt.Errorf("jsonrpc: encoding a message: %w", err)
	}
	b := append(c.enc.Bytes(), '\n')
	_, err := c.w.Write(b)
	c.enc = *wire.NewEncoder(b[:0])
	if err != nil {
		c.werr = fmt.Errorf("jsonrpc: writing a message: %w", err)
		return c.werr
	}
	return nil
}

func encodeParams(e *wire.Encoder, params wire.Encodable) {
	if params != nil {
		e.RawKey(`"params":`)
		params.EncodeWire(e)
	}
}

// Notify sends a notification. A nil params sends none.
func (c *Conn) Notify(ctx context.Context, method string, params wire.Encodable) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.write(func(e *wire.Encoder) {
		e.BeginObject()
		e.RawKey(`"jsonrpc":"2.0","method":`)
		e.String(method)
		encodeParams(e, params)
		e.EndObject()
	})
}

// Call sends a request and waits for its answer, which it decodes into
// result (strictly: see package wire) unless result is nil. An error answer
// is returned as an *Error. When ctx ends first, Call tells the peer, with
// cancel when it is given, else with Options.CancelMethod when that is
// set, and returns the context's error; a later answer is dropped. Call
// returns only once the notifications that arrived before the answer have
// been handled, so that a caller sees them first; a notification handler
// that calls is not held back so.
func (c *Conn) Call(ctx context.Context, method string, params wire.Encodable, result wire.Decodable, cancel func()) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	id := c.nextID.Add(1)
	cl := &call{ch: make(chan answer, 1)}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	c.pending[id] = cl
	c.mu.Unlock()
	err := c.write(func(e *wire.Encoder) {
		e.BeginObject()
		e.RawKey(`"jsonrpc":"2.0","id":`)
		e.Int64(id)
		e.RawKey(`"method":`)
		e.String(method)
		encodeParams(e, params)
		e.EndObject()
	})
	if err != nil {
		c.forget(id)
		return err
	}
	var a answer
	select {
	case a = <-cl.ch:
	case <-ctx.Done():
		c.forget(id)
		switch {
		case cancel != nil:
			cancel()
		case c.opts.CancelMethod != "":
			member := c.opts.CancelMember
			_ = c.write(func(e *wire.Encoder) {
				e.BeginObject()
				e.RawKey(`"jsonrpc":"2.0","method":`)
				e.String(c.opts.CancelMethod)
				e.RawKey(`"params":`)
				e.BeginObject()
				e.Key(member)
				e.Int64(id)
				e.EndObject()
				e.EndObject()
			})
		}
		return context.Cause(ctx)
	}
	if ctx.Value(notifyKey{}) == nil {
		c.waitNotifications(a.mark)
	}
	if a.err != nil {
		return a.err
	}
	if result == nil {
		return nil
	}
	if err := wire.UnmarshalOwned(a.result, result); err != nil {
		return fmt.Errorf("jsonrpc: the result of %s: %w", method, err)
	}
	return nil
}

func (c *Conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func (c *Conn) waitNotifications(mark int64) {
	c.nmu.Lock()
	for c.nhandled < mark && !c.nexited {
		c.ncond.Wait()
	}
	c.nmu.Unlock()
}

// Scope returns a context derived from ctx that CancelScope(key) cancels,
// and the function that ends the scope (call it when the work is done).
// Protocols that cancel work by something other than a request id (ACP's
// session/cancel cancels a session's prompt turn) use it; a newer scope of
// the same key replaces an older one.
func (c *Conn) Scope(ctx context.Context, key string) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	s := &scope{cancel: cancel}
	c.mu.Lock()
	c.scopes[key] = s
	c.mu.Unlock()
	return ctx, func() {
		c.mu.Lock()
		if c.scopes[key] == s {
			delete(c.scopes, key)
		}
		c.mu.Unlock()
		cancel()
	}
}

// CancelScope cancels the context of the scope of key, and reports
// whether there was one.
func (c *Conn) CancelScope(key string) bool {
	c.mu.Lock()
	s, ok := c.scopes[key]
	delete(c.scopes, key)
	c.mu.Unlock()
	if ok {
		s.cancel()
	}
	return ok
}

// Serve reads and dispatches messages until the input ends, ctx ends or a
// message cannot be read (a nil h serves nothing: requests are answered
// MethodNotFound), then cancels the contexts of the handlers still
// running, waits for them and fails the calls still waiting with
// ErrClosed. It returns nil at the end of the input.
func (c *Conn) Serve(ctx context.Context, h Handler) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var handlers sync.WaitGroup
	nctx := context.WithValue(ctx, notifyKey{}, true)
	handlers.Add(1)
	go func() {
		defer handlers.Done()
		c.notifications(nctx, h)
	}()
	err := c.read(ctx, h, &handlers)
	stop()
	c.nmu.Lock()
	c.nstop = true
	c.ncond.Broadcast()
	c.nmu.Unlock()
	handlers.Wait()
	c.mu.Lock()
	c.closed = true
	for id, cl := range c.pending {
		delete(c.pending, id)
		cl.ch <- answer{err: closedError}
	}
	c.mu.Unlock()
	close(c.done)
	return err
}

var closedError = &Error{Code: InternalError, Message: ErrClosed.Error()}

func (c *Conn) read(ctx context.Context, h Handler, handlers *sync.WaitGroup) error {
	max := c.opts.MaxLine
	if max <= 0 {
		max = DefaultMaxLine
	}
	br := bufio.NewReaderSize(c.r, 64<<10)
	lineNo := 0
	for {
		if ctx.Err() != nil {
			return nil
		}
		line, err := readLine(br, max)
		if len(line) > 0 {
			lineNo++
			c.dispatch(ctx, h, handlers, line, lineNo)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("jsonrpc: reading line %d: %w", lineNo+1, err)
		}
	}
}

// readLine returns the next line without its newline, in memory of its own.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var long []byte
	for {
		frag, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, frag...)
			if len(long) > max {
				return nil, fmt.Errorf("a message is longer than %d bytes", max)
			}
			continue
		}
		var line []byte
		if long != nil {
			line = append(long, frag...)
		} else {
			line = append([]byte(nil), frag...)
		}
		if len(line) > max {
			return nil, fmt.Errorf("a message is longer than %d bytes", max)
		}
		if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
		}
		if isBlank(line) {
			line = line[:0]
		}
		return line, err
	}
}

func isBlank(b []byte) bool {
	for _, ch := range b {
		if ch != ' ' && ch != '\t' && ch != '\r' {
			return false
		}
	}
	return true
}

func (c *Conn) dispatch(ctx context.Context, h Handler, handlers *sync.WaitGroup, line []byte, lineNo int) {
	m, err := parseMessage(line)
	if err != nil {
		c.report(fmt.Errorf("jsonrpc: line %d: %w", lineNo, err))
		// A line that is not JSON or not an envelope is answered with
		// id null, as JSON-RPC asks, and a request with its id; a broken
		// notification or answer is only reported.
		switch m.kind {
		case kindUnparsed:
			err = c.respond(nil, nil, &Error{Code: ParseError, Message: err.Error()})
		case kindInvalid:
			err = c.respond(nil, nil, &Error{Code: InvalidRequest, Message: err.Error()})
		case kindRequest:
			err = c.respond(m.id, nil, &Error{Code: InvalidRequest, Message: err.Error()})
		default:
			err = nil
		}
		if err != nil {
			c.report(err)
		}
		return
	}
	switch m.kind {
	case kindResponse:
		c.answer(m, lineNo)
	case kindNotification:
		if c.opts.CancelMethod != "" && m.method == c.opts.CancelMethod {
			c.cancelIncoming(m.params, lineNo)
			return
		}
		c.nmu.Lock()
		c.nqueue = append(c.nqueue, &Request{Method: m.method, Params: m.params})
		c.nqueued++
		c.ncond.Broadcast()
		c.nmu.Unlock()
	case kindRequest:
		rctx, cancel := context.WithCancel(ctx)
		key := string(m.id)
		in := &inflight{cancel: cancel}
		c.mu.Lock()
		c.inflight[key] = in
		c.mu.Unlock()
		c.nmu.Lock()
		mark := c.nqueued
		c.nmu.Unlock()
		handlers.Add(1)
		go func() {
			defer handlers.Done()
			// The handler sees every notification that came before
			// the request: an agent's permission request after its
			// tool_call update finds the update handled.
			c.waitNotifications(mark)
			res, err := c.serveRequest(rctx, h, &Request{Method: m.method, ID: m.id, Params: m.params})
			c.mu.Lock()
			if c.inflight[key] == in {
				delete(c.inflight, key)
			}
			c.mu.Unlock()
			cancel()
			if err != nil && in.byPeer.Load() {
				err = &Error{Code: RequestCancelled, Message: "request cancelled"}
			}
			if werr := c.respond(m.id, res, err); werr != nil {
				c.report(werr)
			}
		}()
	}
}

// serveRequest runs the handler, turning a panic into an InternalError and
// the handler's own cancellation into RequestCancelled.
func (c *Conn) serveRequest(ctx context.Context, h Handler, r *Request) (res wire.Encodable, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, &Error{Code: InternalError, Message: fmt.Sprintf("the handler of %s failed: %v", r.Method, p)}
		}
	}()
	if h == nil {
		if r.IsNotification() {
			return nil, nil
		}
		return nil, &Error{Code: MethodNotFound, Message: "method not found: " + r.Method}
	}
	res, err = h.Handle(ctx, r)
	if err != nil {
		var rpcErr *Error
		switch {
		case errors.As(err, &rpcErr):
			err = rpcErr
		case errors.Is(err, context.Canceled) || ctx.Err() != nil && errors.Is(err, ctx.Err()):
			// Cancelled by the peer, or through a scope of the
			// handler's context (a turn's session/cancel).
			err = &Error{Code: RequestCancelled, Message: "request cancelled"}
		default:
			err = &Error{Code: InternalError, Message: err.Error()}
		}
	}
	return res, err
}

func (c *Conn) respond(id []byte, res wire.Encodable, err error) error {
	return c.write(func(e *wire.Encoder) {
		e.BeginObject()
		e.RawKey(`"jsonrpc":"2.0","id":`)
		if id == nil {
			e.Null()
		} else {
			e.Raw(id)
		}
		if err != nil {
			e.RawKey(`"error":`)
			err.(*Error).EncodeWire(e)
		} else {
			e.RawKey(`"result":`)
			if res == nil {
				e.Null()
			} else {
				res.EncodeWire(e)
			}
		}
		e.EndObject()
	})
}

func (c *Conn) answer(m message, lineNo int) {
	id, err := strconv.ParseInt(string(m.id), 10, 64)
	c.mu.Lock()
	cl, ok := c.pending[id]
	if ok && err == nil {
		delete(c.pending, id)
	}
	c.mu.Unlock()
	if err != nil || !ok {
		c.report(fmt.Errorf("jsonrpc: line %d: an answer to id %s, which no call is waiting for", lineNo, m.id))
		return
	}
	c.nmu.Lock()
	mark := c.nqueued
	c.nmu.Unlock()
	cl.ch <- answer{result: m.result, err: m.err, mark: mark}
}

func (c *Conn) cancelIncoming(params []byte, lineNo int) {
	id, err := memberRaw(params, c.opts.CancelMember)
	if err != nil {
		c.report(fmt.Errorf("jsonrpc: line %d: %s: %w", lineNo, c.opts.CancelMethod, err))
		return
	}
	c.mu.Lock()
	in := c.inflight[string(id)]
	c.mu.Unlock()
	if in != nil {
		in.byPeer.Store(true)
		in.cancel()
	}
}

func (c *Conn) notifications(ctx context.Context, h Handler) {
	for {
		c.nmu.Lock()
		for len(c.nqueue) == 0 && !c.nstop {
			c.ncond.Wait()
		}
		if len(c.nqueue) == 0 {
			c.nexited = true
			c.ncond.Broadcast()
			c.nmu.Unlock()
			return
		}
		r := c.nqueue[0]
		c.nqueue[0] = nil
		c.nqueue = c.nqueue[1:]
		c.nmu.Unlock()
		if _, err := c.serveRequest(ctx, h, r); err != nil {
			c.report(fmt.Errorf("jsonrpc: notification %s: %w", r.Method, err))
		}
		c.nmu.Lock()
		c.nhandled++
		c.ncond.Broadcast()
		c.nmu.Unlock()
	}
}
