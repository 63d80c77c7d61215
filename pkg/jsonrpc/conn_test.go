package jsonrpc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentproto/agentproto/pkg/wire"
)

// raw is a JSON value kept as it is: the params and results of these tests.
type raw []byte

func (r raw) EncodeWire(e *wire.Encoder) { e.Raw(r) }

func (r *raw) DecodeWire(d *wire.Decoder) error {
	v, err := wire.DecodeRaw(d)
	*r = raw(v)
	return err
}

// pair connects two Conns through pipes and serves both; the returned
// function closes the pipes and waits for both to stop.
func pair(t *testing.T, opts Options, a, b Handler) (*Conn, *Conn) {
	t.Helper()
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	ca, cb := NewConn(ar, aw, opts), NewConn(br, bw, opts)
	var wg sync.WaitGroup
	for _, s := range []struct {
		c *Conn
		h Handler
	}{{ca, a}, {cb, b}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.c.Serve(context.Background(), s.h); err != nil {
				t.Errorf("Serve: %v", err)
			}
		}()
	}
	t.Cleanup(func() {
		aw.Close()
		bw.Close()
		wg.Wait()
	})
	return ca, cb
}

func none() Handler {
	return HandlerFunc(func(ctx context.Context, r *Request) (wire.Encodable, error) {
		return nil, Errorf(MethodNotFound, "no method %s", r.Method)
	})
}

func TestCallAnswersConcurrently(t *testing.T) {
	release := make(chan struct{})
	srv := HandlerFunc(func(ctx context.Context, r *Request) (wire.Encodable, error) {
		switch r.Method {
		case "slow":
			<-release // answered only once "fast" has been
			return raw(`"slow"`), nil
		case "fast":
			close(release)
			return raw(r.Params), nil
		}
		return nil, Errorf(MethodNotFound, "no method %s", r.Method)
	})
	client, _ := pair(t, Options{}, none(), srv)
	ctx := context.Background()
	var slow raw
	done := make(chan error)
	go func() { done <- client.Call(ctx, "slow", nil, &slow, nil) }()
	var fast raw
	if err := client.Call(ctx, "fast", raw(`{"x":[1,2]}`), &fast, nil); err != nil {
		t.Fatal(err)
	}
	if string(fast) != `{"x":[1,2]}` {
		t.Errorf("fast = %s", fast)
	}
	if err := <-done; err != nil || string(slow) != `"slow"` {
		t.Errorf("slow = %s, %v", slow, err)
	}
	err := client.Call(ctx, "nope", nil, nil, nil)
	if !errors.Is(err, &Error{Code: MethodNotFound}) {
		t.Errorf("unknown method: %v, want MethodNotFound", err)
	}
}

func TestCancelBothWays(t *testing.T) {
	started := make(chan struct{})
	cancelled := make(chan error, 1)
	srv := HandlerFunc(func(ctx context.Context, r *Request) (wire.Encodable, error) {
		close(started)
		<-ctx.Done()
		cancelled <- ctx.Err()
		return nil, ctx.Err()
	})
	opts := Options{CancelMethod: "$/cancel_request", CancelMember: "requestId"}
	client, _ := pair(t, opts, none(), srv)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	err := client.Call(ctx, "work", nil, nil, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Call = %v, want context.Canceled", err)
	}
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Errorf("the handler's context: %v, want cancelled by the peer", err)
	}
}

func TestCancelSendsTheProtocolsNotification(t *testing.T) {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	c := NewConn(cr, cw, Options{CancelMethod: "$/cancel_request", CancelMember: "requestId"})
	go func() { _ = c.Serve(context.Background(), none()) }()
	defer sw.Close()
	lines := bufio.NewScanner(sr)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- c.Call(ctx, "session/prompt", raw(`{}`), nil, nil) }()
	lines.Scan()
	if got := lines.Text(); got != `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{}}` {
		t.Errorf("request = %s", got)
	}
	cancel()
	lines.Scan()
	if got := lines.Text(); got != `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}` {
		t.Errorf("cancel = %s", got)
	}
	<-errc
	// With a cancel function of its own, the call sends that instead.
	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		errc <- c.Call(ctx, "session/prompt", raw(`{}`), nil, func() {
			_ = c.Notify(context.Background(), "session/cancel", raw(`{"sessionId":"s"}`))
		})
	}()
	lines.Scan()
	cancel()
	lines.Scan()
	if got := lines.Text(); got != `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}` {
		t.Errorf("cancel = %s", got)
	}
	<-errc
	cr.Close()
}

func TestNotificationsInOrderBeforeTheAnswer(t *testing.T) {
	var seen atomic.Int64
	var order []string
	client := HandlerFunc(func(ctx context.Context, r *Request) (wire.Encodable, error) {
		order = append(order, string(r.Params))
		seen.Add(1)
		return nil, nil
	})
	var agent *Conn
	srv := HandlerFunc(func(ctx context.Context, r *Request) (wire.Encodable, error) {
		for i := range 100 {
			if err := agent.Notify(ctx, "update", raw(strings.Repeat("1", i+1))); err != nil {
				return nil, err
			}
		}
		return raw(`{"stopReason":"end_turn"}`), nil
	})
	c, a := pair(t, Options{}, client, srv)
	agent = a
	var res raw
	if err := c.Call(context.Background(), "prompt", nil, &res, nil); err != nil {
		t.Fatal(err)
	}
	if n := seen.Load(); n != 100 {
		t.Fatalf("the call returned after %d of 100 notifications were handled", n)
	}
	for i, p := range order {
		if len(p) != i+1 {
			t.Fatalf("notification %d handled at %d", len(p), i)
		}
	}
}

// exchange writes lines to a served Conn and returns what it answers.
func exchange(t *testing.T, h Handler, in string, answers int) []string {
	t.Helper()
	r, w := io.Pipe()
	c := NewConn(strings.NewReader(in), w, Options{OnError: func(error) {}})
	go func() {
		_ = c.Serve(context.Background(), h)
		w.Close()
	}()
	var got []string
	s := bufio.NewScanner(r)
	for s.Scan() {
		got = append(got, s.Text())
	}
	if len(got) != answers {
		t.Errorf("%d answers, want %d: %q", len(got), answers, got)
	}
	return got
}

func TestBadInputIsAnswered(t *testing.T) {
	panics := HandlerFunc(func(ctx context.Context, r *Request) (wire.Encodable, error) {
		switch r.Method {
		case "cancelled": // by a context of its own, as a scope's
			sub, cancel := context.WithCancel(ctx)
			cancel()
			return nil, fmt.Errorf("waiting: %w", sub.Err())
		case "fails":
			return nil, errors.New("disk full")
		}
		panic("boom")
	})
	for _, tc := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"method"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`},
		{`[{"jsonrpc":"2.0","id":1,"method":"a"}]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`},
		{`{"jsonrpc":"1.0","id":7,"method":"a"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`{"jsonrpc":"2.0","method":5}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`{"jsonrpc":"2.0","id":"x","method":"a","result":1}`, `{"jsonrpc":"2.0","id":"x","error":{"code":-32600,`},
		{`{"jsonrpc":"2.0","id":{},"method":"a"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`{"jsonrpc":"2.0","id":3,"method":"a"}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"the handler of a failed: boom"}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"cancelled"}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32800,"message":"request cancelled"}}`},
		{`{"jsonrpc":"2.0","id":5,"method":"fails"}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"disk full"}}`},
	} {
		got := exchange(t, panics, tc.in+"\n", 1)
		if len(got) == 1 && !strings.HasPrefix(got[0], tc.want) {
			t.Errorf("%s\n got %s\nwant %s…", tc.in, got[0], tc.want)
		}
	}
	// A broken answer or notification is not answered.
	exchange(t, panics, `{"jsonrpc":"2.0","id":9}`+"\n"+`{"jsonrpc":"2.0","method":"n","result":5}`+"\n", 0)
}

func TestScope(t *testing.T) {
	c := NewConn(strings.NewReader(""), io.Discard, Options{})
	ctx, end := c.Scope(context.Background(), "s1")
	if !c.CancelScope("s1") || ctx.Err() == nil {
		t.Error("CancelScope did not cancel the scope")
	}
	end()
	if c.CancelScope("s1") {
		t.Error("a cancelled scope is cancelled again")
	}
	_, end1 := c.Scope(context.Background(), "s2")
	ctx2, end2 := c.Scope(context.Background(), "s2")
	end1() // the older scope's end leaves the newer one registered
	if !c.CancelScope("s2") || ctx2.Err() == nil {
		t.Error("the newer scope was lost")
	}
	end2()
}

func TestClosedInputFailsWaitingCalls(t *testing.T) {
	r, w := io.Pipe()
	c := NewConn(r, io.Discard, Options{})
	errc := make(chan error, 1)
	go func() { errc <- c.Call(context.Background(), "a", nil, nil, nil) }()
	go func() { _ = c.Serve(context.Background(), none()) }()
	w.Close()
	<-c.Done()
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Call = %v, want the connection closed", err)
	}
	if err := c.Call(context.Background(), "a", nil, nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Call after close = %v", err)
	}
}

// A request the peer cancelled is answered with RequestCancelled when its
// handler fails, whatever the handler's error.
func TestCancelledRequestsErrorIsRequestCancelled(t *testing.T) {
	srv := HandlerFunc(func(ctx context.Context, r *Request) (wire.Encodable, error) {
		<-ctx.Done()
		return nil, Errorf(MethodNotFound, "no method %s", r.Method)
	})
	in := `{"jsonrpc":"2.0","id":"a","method":"x"}` + "\n" + `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"a"}}` + "\n"
	r, w := io.Pipe()
	c := NewConn(strings.NewReader(in), w, Options{CancelMethod: "$/cancel_request", CancelMember: "requestId"})
	go func() {
		_ = c.Serve(context.Background(), srv)
		w.Close()
	}()
	out, _ := io.ReadAll(r)
	if want := `{"jsonrpc":"2.0","id":"a","error":{"code":-32800,"message":"request cancelled"}}` + "\n"; string(out) != want {
		t.Errorf("got %s\nwant %s", out, want)
	}
}

// A request is handled after the notifications that came before it.
func TestRequestsSeeEarlierNotifications(t *testing.T) {
	var handled atomic.Int64
	release := make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, r *Request) (wire.Encodable, error) {
		if r.IsNotification() {
			<-release // the notification is slow to handle
			handled.Add(1)
			return nil, nil
		}
		return raw(strconv.FormatInt(handled.Load(), 10)), nil
	})
	in := `{"jsonrpc":"2.0","method":"update"}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ask"}` + "\n"
	r, w := io.Pipe()
	c := NewConn(strings.NewReader(in), w, Options{})
	go func() {
		_ = c.Serve(context.Background(), h)
		w.Close()
	}()
	go close(release)
	out, _ := io.ReadAll(r)
	if want := `{"jsonrpc":"2.0","id":1,"result":1}` + "\n"; string(out) != want {
		t.Errorf("got %s, want the request answered after the notification: %s", out, want)
	}
}
