package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/measure"
	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/typed"
)

// acpTrace writes a valid ACP trace of about n lines: prompt turns with
// streamed chunks, a tool call, a file read and a plan.
func acpTrace(n int) string {
	var sb strings.Builder
	sb.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true},"clientInfo":{"name":"ed","version":"1"}}}` + "\n")
	sb.WriteString(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"ag","version":"1"},"agentCapabilities":{"loadSession":true},"authMethods":[]}}` + "\n")
	sb.WriteString(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/home/dev/src/app","mcpServers":[]}}` + "\n")
	sb.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess_bench"}}` + "\n")
	lines := 4
	for turn := 1; lines < n; turn++ {
		fmt.Fprintf(&sb, `{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"sess_bench","prompt":[{"type":"text","text":"Turn %d"}]}}`+"\n", turn+1, turn)
		for i := 0; i < 6; i++ {
			sb.WriteString(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_bench","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Reading the configuration loader to see where the default timeout comes from."}}}}` + "\n")
		}
		fmt.Fprintf(&sb, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_bench","update":{"sessionUpdate":"tool_call","toolCallId":"call_%d","title":"Read config.go","kind":"read","status":"in_progress"}}}`+"\n", turn)
		fmt.Fprintf(&sb, `{"jsonrpc":"2.0","id":%d,"method":"fs/read_text_file","params":{"sessionId":"sess_bench","path":"/home/dev/src/app/config.go"}}`+"\n", turn)
		fmt.Fprintf(&sb, `{"jsonrpc":"2.0","id":%d,"result":{"content":"package app\n"}}`+"\n", turn)
		fmt.Fprintf(&sb, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_bench","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_%d","status":"completed"}}}`+"\n", turn)
		fmt.Fprintf(&sb, `{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn"}}`+"\n", turn+1)
		lines += 12
	}
	return sb.String()
}

// BenchmarkCLIACP runs the whole command as main does (engine
// construction, reading, the generated-types fast path, output) over a
// 20,000-line ACP trace; BenchmarkCLIACPGeneral without the fast path.
func BenchmarkCLIACP(b *testing.B) {
	benchCLI(b, plugins{fast: typed.Checker{}, roundtrip: validate.RoundtripFunc(typed.Roundtrip)})
}

func BenchmarkCLIACPGeneral(b *testing.B) { benchCLI(b, plugins{}) }

func benchCLI(b *testing.B, pl plugins) {
	trace := acpTrace(20000)
	p := filepath.Join(b.TempDir(), "acp.jsonl")
	if err := os.WriteFile(p, []byte(trace), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(trace)))
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if code := run(context.Background(), []string{"--progress", "never", p}, nil, io.Discard, io.Discard, pl); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(20000*float64(b.N)/time.Since(start).Seconds(), "lines/s")
}

func TestBenchTraceValid(t *testing.T) {
	p := writeFile(t, "acp.jsonl", acpTrace(500))
	if code, out, _ := runCLI(t, "", p); code != exitOK {
		t.Fatalf("the benchmark trace is not valid:\n%s", out)
	}
}

// BenchmarkCLIACPFloor is the floor the CLI is measured against, in the
// same run and on the same 20,000 lines: encoding/json decoding each line
// into any. The target is BenchmarkCLIACP within 3x of it.
func BenchmarkCLIACPFloor(b *testing.B) {
	trace := acpTrace(20000)
	lines := strings.Split(strings.TrimSuffix(trace, "\n"), "\n")
	b.SetBytes(int64(len(trace)))
	b.ReportAllocs()
	start := time.Now()
	for range b.N {
		for _, l := range lines {
			var v any
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(lines))*float64(b.N)/time.Since(start).Seconds(), "lines/s")
}

// BenchmarkGoals measures the command as a user runs it, a built binary in
// its own process, in CPU time (user + system, all cores), against
// baselines measured in the same run:
//
//   - cpu-vs-decode: validate on the 20,000-line ACP trace over
//     encoding/json decoding each of its lines into any (goal: 1.0 or less),
//     in this process;
//   - cpu-vs-floor: the same over a program that does only that decoding
//     (testdata/floor), run as validate is, start-up and all;
//   - start-share: validate on a 2-line trace over the 20,000-line run, the
//     cost of starting (goal: 0.05 or less);
//   - small-file-share: the same for each of 100 such traces checked by one
//     run, as a CI checks a folder of them.
//
// Each of the b.N rounds runs all of them once; a ratio is the median of
// the rounds' ratios, and cli-cpu-ms and start-cpu-ms are medians too.
//
// go test ./cmd/validate -run '^$' -bench Goals -benchtime 9x
func BenchmarkGoals(b *testing.B) {
	dir := b.TempDir()
	bin, floor := filepath.Join(dir, "validate"), filepath.Join(dir, "floor")
	for out, pkg := range map[string]string{bin: ".", floor: "./testdata/floor"} {
		if msg, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			b.Fatalf("go build %s: %v\n%s", pkg, err, msg)
		}
	}
	big, small := acpTrace(20000), acpTrace(2)
	bigPath, smallPath := filepath.Join(dir, "big.jsonl"), filepath.Join(dir, "small.jsonl")
	for p, s := range map[string]string{bigPath: big, smallPath: small} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// A CI that checks many small traces names them all at once (or
	// their folder): one process, one engine, schemas compiled once.
	many := filepath.Join(dir, "many")
	if err := os.Mkdir(many, 0o755); err != nil {
		b.Fatal(err)
	}
	const smallFiles = 100
	for i := range smallFiles {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("t%03d.jsonl", i)), []byte(small), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cpu := func(name string, args ...string) time.Duration {
		cmd := exec.Command(name, args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	cli := func(path string) time.Duration { return cpu(bin, "--progress", "never", path) }
	lines := strings.Split(strings.TrimSuffix(big, "\n"), "\n")
	decode := func() time.Duration {
		before := selfCPU(b)
		for _, l := range lines {
			var v any
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				b.Fatal(err)
			}
		}
		return selfCPU(b) - before
	}
	// Each round measures every run once, one right after the other;
	// the ratios are medians over the rounds' pairs (measure.Ratio), so
	// a round that a neighbour on the machine slowed down does not move
	// them.
	var dec, prog, full, start, batch []time.Duration
	b.ResetTimer()
	for range b.N {
		dec = append(dec, decode())
		prog = append(prog, cpu(floor, bigPath))
		full = append(full, cli(bigPath))
		start = append(start, cli(smallPath))
		batch = append(batch, cli(many)/smallFiles)
	}
	b.ReportMetric(measure.Ratio(full, dec), "cpu-vs-decode")
	b.ReportMetric(measure.Ratio(full, prog), "cpu-vs-floor")
	b.ReportMetric(measure.Ratio(start, full), "start-share")
	b.ReportMetric(measure.Ratio(batch, full), "small-file-share")
	b.ReportMetric(float64(measure.Median(full))/1e6, "cli-cpu-ms")
	b.ReportMetric(float64(measure.Median(start))/1e6, "start-cpu-ms")
}

// selfCPU is the CPU time this process has used, user and system.
func selfCPU(b *testing.B) time.Duration {
	d, err := measure.CPU()
	if err != nil {
		b.Fatal(err)
	}
	return d
}
