// Package synth generates valid synthetic traces of any length, on the fly,
// for benchmarks and for the bounded-memory check: nothing is held but the
// line being written.
package synth

import (
	"fmt"
	"io"
)

// Protocol names a generator.
type Protocol string

// The generators.
const (
	ACP   Protocol = "acp"
	ARCP  Protocol = "arcp"
	Arcan Protocol = "arcan"
)

// Reader returns a reader of a valid trace of protocol p that stops after the
// first line that reaches size bytes in total.
func Reader(p Protocol, size int64) io.Reader {
	return &reader{gen: newGen(p), limit: size}
}

// Lines returns a valid trace of protocol p with at least n lines.
func Lines(p Protocol, n int) []byte {
	g := newGen(p)
	var out []byte
	for i := 0; i < n; i++ {
		out = append(out, g.next()...)
	}
	return out
}

type reader struct {
	gen   *gen
	limit int64
	done  int64
	buf   []byte
}

func (r *reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.buf) == 0 {
			if r.done >= r.limit {
				break
			}
			r.buf = r.gen.next()
			r.done += int64(len(r.buf))
		}
		c := copy(p[n:], r.buf)
		r.buf = r.buf[c:]
		n += c
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// gen emits one line at a time, following each protocol's rules: ACP
// answers every request and announces tool calls before updating them,
// ARCP numbers events without gaps, Arcan opens and closes its runs.
type gen struct {
	p     Protocol
	queue [][]byte
	n     int // turn, job or run counter
	seq   int // ARCP event_seq
}

func newGen(p Protocol) *gen {
	g := &gen{p: p}
	switch p {
	case ACP:
		g.push(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true},"clientInfo":{"name":"bench-editor","version":"1.0.0"}}}`)
		g.push(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":true,"embeddedContext":true}},"authMethods":[],"agentInfo":{"name":"bench-agent","version":"1.0.0"}}}`)
		g.push(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/home/dev/src/app","mcpServers":[]}}`)
		g.push(`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess_bench"}}`)
	case ARCP:
		g.push(`{"arcp":"1.1","id":"msg_hello","type":"session.hello","payload":{"client":{"name":"bench","version":"1.0.0"},"auth":{"scheme":"bearer","token":"tok_bench"},"capabilities":{"encodings":["json"],"features":["heartbeat","ack","list_jobs","subscribe","progress","result_chunk","agent_versions"]}}}`)
		g.push(`{"arcp":"1.1","id":"msg_welcome","type":"session.welcome","session_id":"sess_bench","payload":{"runtime":{"name":"bench-runtime","version":"1.1.0"},"resume_token":"rt_bench","resume_window_sec":600,"capabilities":{"encodings":["json"],"features":["heartbeat","ack","list_jobs","subscribe","progress","result_chunk","agent_versions"]}}}`)
	}
	return g
}

func (g *gen) push(format string, a ...any) {
	g.queue = append(g.queue, []byte(fmt.Sprintf(format, a...)+"\n"))
}

func (g *gen) next() []byte {
	for len(g.queue) == 0 {
		g.refill()
	}
	l := g.queue[0]
	g.queue = g.queue[1:]
	return l
}

const text = "Reading the configuration loader to see where the default timeout comes from; it is set in two places."

func (g *gen) refill() {
	g.n++
	n := g.n
	switch g.p {
	case ACP:
		id := n + 1
		g.push(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"sess_bench","prompt":[{"type":"text","text":"Turn %d: find where the timeout is set."}]}}`, id, n)
		for i := 0; i < 6; i++ {
			g.push(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_bench","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"%s"}}}}`, text)
		}
		g.push(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_bench","update":{"sessionUpdate":"tool_call","toolCallId":"call_%d","title":"Read config.go","kind":"read","status":"in_progress","locations":[{"path":"/home/dev/src/app/config.go","line":42}]}}}`, n)
		g.push(`{"jsonrpc":"2.0","id":%d,"method":"fs/read_text_file","params":{"sessionId":"sess_bench","path":"/home/dev/src/app/config.go","line":1,"limit":200}}`, n)
		g.push(`{"jsonrpc":"2.0","id":%d,"result":{"content":"package app\n\nconst defaultTimeout = 30\n"}}`, n)
		g.push(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_bench","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_%d","status":"completed","content":[{"type":"content","content":{"type":"text","text":"const defaultTimeout = 30"}}]}}}`, n)
		g.push(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_bench","update":{"sessionUpdate":"plan","entries":[{"content":"Read config.go","priority":"high","status":"completed"},{"content":"Change the default","priority":"medium","status":"pending"}]}}}`)
		g.push(`{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn"}}`, id)
	case ARCP:
		job := fmt.Sprintf("job_%08d", n)
		g.push(`{"arcp":"1.1","id":"msg_s%d","type":"job.submit","session_id":"sess_bench","payload":{"agent":"code-review@1.0.0","input":{"repo":"app","pr":%d}}}`, n, n)
		g.push(`{"arcp":"1.1","id":"msg_a%d","type":"job.accepted","session_id":"sess_bench","job_id":"%s","payload":{"job_id":"%s","lease":{"fs.read":["/repo/**"]},"accepted_at":"2026-05-13T19:30:00.000Z"}}`, n, job, job)
		for i := 0; i < 8; i++ {
			g.seq++
			g.push(`{"arcp":"1.1","id":"msg_e%d_%d","type":"job.event","session_id":"sess_bench","job_id":"%s","event_seq":%d,"payload":{"kind":"log","ts":"2026-05-13T19:31:00.000Z","body":{"level":"info","message":"%s"}}}`, n, i, job, g.seq, text)
		}
		g.seq++
		g.push(`{"arcp":"1.1","id":"msg_r%d","type":"job.result","session_id":"sess_bench","job_id":"%s","event_seq":%d,"payload":{"final_status":"success","summary":"Reviewed.","result":{"comments":3}}}`, n, job, g.seq)
	case Arcan:
		run := fmt.Sprintf("6f1d2c3b-8a4e-4f10-9b7c-%012d", n)
		g.push(`{"part_type":"run_started","run_id":"%s","session_id":"bench","provider":"claude-sonnet-4-5-20250929","max_iterations":24}`, run)
		for it := 1; it <= 2; it++ {
			g.push(`{"part_type":"iteration_started","run_id":"%s","session_id":"bench","iteration":%d}`, run, it)
			g.push(`{"part_type":"model_output","run_id":"%s","session_id":"bench","iteration":%d,"stop_reason":"tool_use","directive_count":5}`, run, it)
			for i := 0; i < 4; i++ {
				g.push(`{"part_type":"text_delta","run_id":"%s","session_id":"bench","iteration":%d,"delta":"%s"}`, run, it, text)
			}
			g.push(`{"part_type":"tool_call_requested","run_id":"%s","session_id":"bench","iteration":%d,"call":{"call_id":"call-%d","tool_name":"read_file","input":{"path":"README.md"}}}`, run, it, it)
			g.push(`{"part_type":"tool_call_completed","run_id":"%s","session_id":"bench","iteration":%d,"result":{"call_id":"call-%d","tool_name":"read_file","output":{"content":"# App"}}}`, run, it, it)
		}
		g.push(`{"part_type":"run_finished","run_id":"%s","session_id":"bench","reason":"completed","total_iterations":2,"final_answer":null}`, run)
	}
}
