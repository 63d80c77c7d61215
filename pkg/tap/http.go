package tap

import (
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

// HTTPConfig describes a relay in front of an HTTP server that streams
// Server-Sent Events (Arcan's /sessions/{id}/events/stream).
type HTTPConfig struct {
	// Upstream is the server's base URL (http or https).
	Upstream *url.URL
	// RecordDir, if set, receives one trace per SSE response, named
	// NNNN-PATH.sse in the order the streams began, written as the bytes
	// arrive.
	RecordDir string
	// Recorded, if set, is called with each trace's path when its stream
	// ends, and the error that stopped its recording, if any.
	Recorded func(path string, err error)
	// Check, if set, validates each event stream as it flows (its bytes,
	// as a later check of the recording reads them: the SSE frames' data),
	// under its recording's path, or stream-NNNN-PATH when it is not
	// recorded. Its Done is called before Recorded.
	Check *RelayCheck
}

// NewHTTPRelay returns a handler that relays each request to the upstream
// server and streams each response back unchanged, flushing every chunk as
// it arrives; an event-stream response is also written to a trace.
func NewHTTPRelay(cfg HTTPConfig) (http.Handler, error) {
	if cfg.Upstream == nil || (cfg.Upstream.Scheme != "http" && cfg.Upstream.Scheme != "https") || cfg.Upstream.Host == "" {
		return nil, fmt.Errorf("the upstream must be an http:// or https:// URL with a host")
	}
	up := *cfg.Upstream
	var seq, streams atomic.Int64
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(&up)
		},
		FlushInterval: -1,
		ModifyResponse: func(resp *http.Response) error {
			mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
			if (cfg.RecordDir == "" && cfg.Check == nil) || mt != "text/event-stream" {
				return nil
			}
			part := pathPart(resp.Request.URL.Path)
			b := &recordedBody{rc: resp.Body, done: cfg.Recorded, check: cfg.Check}
			if cfg.RecordDir != "" {
				path, files, err := createRecording(cfg.RecordDir, &seq, func(n int64) string { return fmt.Sprintf("%04d%s.sse", n, part) })
				if err != nil {
					// The stream is relayed (and checked) all the same.
					if cfg.Recorded != nil {
						cfg.Recorded(path, fmt.Errorf("creating the trace: %w", err))
					}
				} else {
					b.f, b.path = files[0], path
				}
			}
			if cfg.Check != nil {
				b.name = b.path
				if b.name == "" {
					b.name = fmt.Sprintf("stream-%04d%s", streams.Add(1), part)
				}
				b.live = cfg.Check.start(b.name, "", false)
				// The stream's lines, for the check only (the recording
				// is the bytes as they came): a line is held until its
				// end up to the backlog, which it could not pass anyway.
				b.lines = newRecorder(Config{Observer: b.live, MaxLine: backlogOf(cfg.Check.Backlog)})
			}
			resp.Body = b
			return nil
		},
	}
	return rp, nil
}

// pathPart makes a URL path safe as part of a file name.
func pathPart(p string) string {
	var sb strings.Builder
	for _, r := range p {
		if sb.Len() >= 80 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			sb.WriteRune(r)
		default:
			sb.WriteByte('_')
		}
	}
	return strings.TrimRight(sb.String(), "_.")
}

// recordedBody writes what is read of a response body to a trace file, and
// gives its lines to a live check.
type recordedBody struct {
	rc    io.ReadCloser
	f     *os.File // nil: not recorded
	path  string
	done  func(string, error)
	err   error
	once  sync.Once
	check *RelayCheck
	name  string    // the name findings carry
	live  *Live     // nil: not checked
	lines *recorder // splits the stream into lines for live
}

func (b *recordedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 && b.f != nil && b.err == nil {
		if _, werr := b.f.Write(p[:n]); werr != nil {
			b.err = fmt.Errorf("writing the trace: %w", werr)
		}
	}
	if n > 0 && b.lines != nil {
		b.lines.chunk(AgentToClient, p[:n])
	}
	return n, err
}

func (b *recordedBody) Close() error {
	err := b.rc.Close()
	b.once.Do(func() {
		if b.f != nil {
			if cerr := b.f.Close(); cerr != nil && b.err == nil {
				b.err = fmt.Errorf("closing the trace: %w", cerr)
			}
		}
		if b.live != nil {
			b.lines.finish()
			b.check.end(b.name, b.live)
		}
		if b.f != nil && b.done != nil {
			b.done(b.path, b.err)
		}
	})
	return err
}
