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
}

// NewHTTPRelay returns a handler that relays each request to the upstream
// server and streams each response back unchanged, flushing every chunk as
// it arrives; an event-stream response is also written to a trace.
func NewHTTPRelay(cfg HTTPConfig) (http.Handler, error) {
	if cfg.Upstream == nil || (cfg.Upstream.Scheme != "http" && cfg.Upstream.Scheme != "https") || cfg.Upstream.Host == "" {
		return nil, fmt.Errorf("the upstream must be an http:// or https:// URL with a host")
	}
	up := *cfg.Upstream
	var seq atomic.Int64
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(&up)
		},
		FlushInterval: -1,
		ModifyResponse: func(resp *http.Response) error {
			mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
			if cfg.RecordDir == "" || mt != "text/event-stream" {
				return nil
			}
			part := pathPart(resp.Request.URL.Path)
			path, files, err := createRecording(cfg.RecordDir, &seq, func(n int64) string { return fmt.Sprintf("%04d%s.sse", n, part) })
			if err != nil {
				// The stream is relayed all the same.
				if cfg.Recorded != nil {
					cfg.Recorded(path, fmt.Errorf("creating the trace: %w", err))
				}
				return nil
			}
			resp.Body = &recordedBody{rc: resp.Body, f: files[0], path: path, done: cfg.Recorded}
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

// recordedBody writes what is read of a response body to a trace file.
type recordedBody struct {
	rc   io.ReadCloser
	f    *os.File
	path string
	done func(string, error)
	err  error
	once sync.Once
}

func (b *recordedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 && b.err == nil {
		if _, werr := b.f.Write(p[:n]); werr != nil {
			b.err = fmt.Errorf("writing the trace: %w", werr)
		}
	}
	return n, err
}

func (b *recordedBody) Close() error {
	err := b.rc.Close()
	b.once.Do(func() {
		if cerr := b.f.Close(); cerr != nil && b.err == nil {
			b.err = fmt.Errorf("closing the trace: %w", cerr)
		}
		if b.done != nil {
			b.done(b.path, b.err)
		}
	})
	return err
}
