package tap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/coder/websocket"
)

// WSConfig describes a relay in front of a WebSocket server (an ARCP
// runtime's wss://HOST/arcp endpoint).
type WSConfig struct {
	// Upstream is the server's WebSocket URL (ws or wss).
	Upstream *url.URL
	// RecordDir, if set, receives one trace per connection, NNNN.jsonl
	// with its NNNN.jsonl.dir sidecar (c2r, r2c), one text frame a line,
	// written as the frames pass.
	RecordDir string
	// MaxMessage bounds a frame (0: 64 MiB); a longer one ends the
	// connection with status 1009, as the server itself would.
	MaxMessage int64
	// MaxHeld bounds the bytes of text frames held for the recordings, for
	// all connections together (0: 4 × MaxMessage). Frames are relayed as
	// they are read, never held for the relay; a frame that would pass
	// the bound is relayed all the same, but its connection's recording
	// stops there, with an error saying so.
	MaxHeld int64
	// Recorded, if set, is called with each trace's path when its
	// connection ends, and the error that stopped its recording, if any.
	Recorded func(path string, err error)
	// Check, if set, validates each connection as it flows (ARCP, one
	// text frame a line, with the sidecar's directions), under its
	// recording's path, or connection-NNNN when it is not recorded. Its
	// Done is called before Recorded.
	Check *RelayCheck
}

// NewWSRelay returns a handler that accepts WebSocket clients and relays
// each connection to the upstream server: every frame passes unchanged,
// in both directions, with its type; the subprotocol the server chooses is
// the one the client gets; a close on either side is passed on with its
// status and reason.
func NewWSRelay(cfg WSConfig) (http.Handler, error) {
	if cfg.Upstream == nil || (cfg.Upstream.Scheme != "ws" && cfg.Upstream.Scheme != "wss") || cfg.Upstream.Host == "" {
		return nil, fmt.Errorf("the upstream must be a ws:// or wss:// URL with a host")
	}
	limit := cfg.MaxMessage
	if limit <= 0 {
		limit = 64 << 20
	}
	up := cfg.Upstream.String()
	budget := cfg.MaxHeld
	if budget <= 0 {
		budget = 4 * limit
	}
	held := &byteBudget{left: budget, total: budget}
	var seq, conns atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var subs []string
		for _, v := range r.Header.Values("Sec-WebSocket-Protocol") {
			for _, p := range strings.Split(v, ",") {
				if p = strings.TrimSpace(p); p != "" {
					subs = append(subs, p)
				}
			}
		}
		hdr := http.Header{}
		for k, vs := range r.Header {
			switch ck := http.CanonicalHeaderKey(k); {
			case strings.HasPrefix(ck, "Sec-Websocket-"), ck == "Connection", ck == "Upgrade", ck == "Host", ck == "Content-Length":
			default:
				hdr[ck] = vs
			}
		}
		target := up
		if r.URL.RawQuery != "" && cfg.Upstream.RawQuery == "" {
			target += "?" + r.URL.RawQuery
		}
		server, resp, err := websocket.Dial(r.Context(), target, &websocket.DialOptions{Subprotocols: subs, HTTPHeader: hdr})
		if err != nil {
			status := http.StatusBadGateway
			if resp != nil && resp.StatusCode >= 400 {
				status = resp.StatusCode
			}
			http.Error(w, "the upstream WebSocket server refused the connection", status)
			return
		}
		var acceptSubs []string
		if p := server.Subprotocol(); p != "" {
			acceptSubs = []string{p}
		}
		client, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: acceptSubs})
		if err != nil {
			_ = server.Close(websocket.StatusGoingAway, "the client's handshake failed")
			return
		}
		client.SetReadLimit(limit)
		server.SetReadLimit(limit)

		rcfg := Config{Protocol: "arcp"}
		var path string
		var files []*os.File
		if cfg.RecordDir != "" {
			var ferr error
			path, files, ferr = createRecording(cfg.RecordDir, &seq, func(n int64) string { return fmt.Sprintf("%04d.jsonl", n) }, ".dir")
			if ferr == nil {
				rcfg.Record, rcfg.Directions = files[0], files[1]
			} else {
				if cfg.Recorded != nil {
					cfg.Recorded(path, fmt.Errorf("creating the trace: %w", ferr))
				}
				path = ""
			}
		}
		var live *Live
		name := path
		if cfg.Check != nil {
			if name == "" {
				name = fmt.Sprintf("connection-%04d", conns.Add(1))
			}
			live = cfg.Check.start(name, "arcp", true)
			rcfg.Observer = live
		}
		rec := newRecorder(rcfg)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		cuts := make(chan bool, 2)
		go func() { cuts <- wsPump(ctx, client, server, ClientToAgent, rec, held) }()
		go func() { cuts <- wsPump(ctx, server, client, AgentToClient, rec, held) }()
		// A side that closed says what it closes with, and the other
		// side's last frames before its answer belong to the trace: both
		// directions are waited for. A side that was cut will say
		// nothing more, and closing the other may wait for an answer
		// (up to the library's close timeout): the trace ends at once.
		running := 1
		if cut := <-cuts; !cut {
			<-cuts
			running = 0
		}
		res := rec.finish()
		for _, f := range files {
			if cerr := f.Close(); cerr != nil && res.RecordErr == nil {
				res.RecordErr = cerr
			}
		}
		if live != nil {
			cfg.Check.end(name, live)
		}
		if path != "" && cfg.Recorded != nil {
			cfg.Recorded(path, res.RecordErr)
		}
		for ; running > 0; running-- {
			<-cuts
		}
	}), nil
}

// wsPump relays src's frames to dst until src ends, then closes dst with
// src's close status (or 1001, going away, when src failed without one).
// It reports whether a side was cut: src failed without a close status,
// or dst failed.
// A frame is passed on piece by piece as it is read, so the relay itself
// holds no frame whole; a text frame is also collected for the recording,
// within the budget held, and recorded before its last piece is sent, so
// the recording keeps its causal order.
func wsPump(ctx context.Context, src, dst *websocket.Conn, d Direction, rec *recorder, held *byteBudget) (cut bool) {
	buf := make([]byte, 32<<10)
	for {
		typ, r, err := src.Reader(ctx)
		if err != nil {
			return closeLike(src, dst, err)
		}
		w, err := dst.Writer(ctx, typ)
		if err != nil {
			_ = src.Close(websocket.StatusGoingAway, "the other side has gone")
			return true
		}
		// Each byte held may be copied up to four times on its way to
		// the recording (the frame, its compacted form, the line, the
		// recorder's batch): the budget counts them all.
		const copies = 4
		keep := typ == websocket.MessageText && rec.wanted()
		var frame []byte
		var taken int64
		for {
			n, rerr := r.Read(buf)
			if n > 0 {
				if keep {
					if held.take(copies * int64(n)) {
						taken += copies * int64(n)
						frame = append(frame, buf[:n]...)
					} else {
						keep, frame = false, nil
						from := "client"
						if d == AgentToClient {
							from = "server"
						}
						rec.lose(d, fmt.Errorf("a frame from the %s did not fit in the %d MiB the relay holds for recordings and checks, all connections together: recording and live check stopped; the frame was relayed", from, held.limit()>>20))
					}
				}
				if _, werr := w.Write(buf[:n]); werr != nil {
					held.give(taken)
					_ = src.Close(websocket.StatusGoingAway, "the other side has gone")
					return true
				}
			}
			if rerr == io.EOF {
				break
			}
			if rerr != nil {
				held.give(taken)
				return closeLike(src, dst, rerr)
			}
		}
		if keep {
			rec.chunk(d, frameLine(frame))
		}
		frame = nil
		held.give(taken)
		if err := w.Close(); err != nil {
			_ = src.Close(websocket.StatusGoingAway, "the other side has gone")
			return true
		}
	}
}

// closeLike closes dst as src ended: with src's close status and reason,
// or 1001 (going away) when src failed without one. It reports whether
// src was cut (it gave no close status). dst is closed on a goroutine of
// its own when src was cut: closing waits for dst's answer, and the
// trace need not.
func closeLike(src, dst *websocket.Conn, err error) (cut bool) {
	code, reason := websocket.CloseStatus(err), ""
	var ce websocket.CloseError
	if asCloseError(err, &ce) {
		reason = ce.Reason
	}
	if code == -1 {
		go func() { _ = dst.Close(websocket.StatusGoingAway, "the other side has gone") }()
		return true
	}
	_ = dst.Close(code, reason)
	return false
}

// byteBudget is a count of bytes shared by the connections of a relay:
// take never waits (a connection that cannot have more gives up what it
// wanted them for), so no two connections can wait on each other.
type byteBudget struct {
	mu    sync.Mutex
	left  int64
	total int64 // the bound, fixed
}

func (b *byteBudget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

func (b *byteBudget) give(n int64) {
	b.mu.Lock()
	b.left += n
	b.mu.Unlock()
}

func (b *byteBudget) limit() int64 { return b.total }

// frameLine is a text frame as one trace line: a frame that holds line
// breaks (pretty-printed JSON) is compacted so that it stays one line.
func frameLine(data []byte) []byte {
	if bytes.ContainsAny(data, "\r\n") {
		var buf bytes.Buffer
		if json.Compact(&buf, data) == nil {
			data = buf.Bytes()
		}
	}
	out := make([]byte, len(data)+1)
	for i, c := range data {
		if c == '\n' {
			c = ' '
		}
		out[i] = c
	}
	out[len(data)] = '\n'
	return out
}

func asCloseError(err error, ce *websocket.CloseError) bool {
	return errors.As(err, ce)
}
