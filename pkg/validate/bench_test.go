package validate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/measure"
	"github.com/agentproto/agentproto/pkg/validate/internal/synth"
	"github.com/agentproto/agentproto/pkg/validate/rules/acp"
	"github.com/agentproto/agentproto/pkg/validate/typed"
)

const benchLines = 20000

// TestSynthValid keeps the benchmarks honest: the synthetic traces they
// measure are valid, so the numbers are those of the common path.
func TestSynthValid(t *testing.T) {
	e := testEngine(t)
	for _, p := range []synth.Protocol{synth.ACP, synth.ARCP, synth.Arcan} {
		data := synth.Lines(p, 2000)
		sum, err := e.Check(context.Background(), string(p), bytes.NewReader(data), FileOptions{}, func(f Finding) {
			if f.Rule == acp.RuleUnansweredRequest && f.Severity == Warning {
				return // the trace is cut at a line count, in the middle of a turn
			}
			t.Errorf("%s: %s", p, f)
		})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Detected[0].Protocol != string(p) || sum.Messages < 2000 {
			t.Errorf("%s: read as %+v with %d messages", p, sum.Detected, sum.Messages)
		}
	}
}

func benchValidate(b *testing.B, p synth.Protocol, fast bool) {
	e := testEngine(b)
	if fast {
		var err error
		if e, err = New(Options{Fast: typed.Checker{}}); err != nil {
			b.Fatal(err)
		}
	}
	data := synth.Lines(p, benchLines)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		sum, err := e.Check(context.Background(), "bench", bytes.NewReader(data), FileOptions{}, nil)
		if err != nil || sum.Errors > 0 {
			b.Fatalf("%v, %d errors", err, sum.Errors)
		}
	}
	b.ReportMetric(float64(benchLines)*float64(b.N)/time.Since(start).Seconds(), "lines/s")
}

// benchDecode is the floor: encoding/json decoding the same lines into any.
func benchDecode(b *testing.B, p synth.Protocol) {
	data := synth.Lines(p, benchLines)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			var v any
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(benchLines)*float64(b.N)/time.Since(start).Seconds(), "lines/s")
}

func BenchmarkValidateACP(b *testing.B)         { benchValidate(b, synth.ACP, false) }
func BenchmarkValidateARCP(b *testing.B)        { benchValidate(b, synth.ARCP, false) }
func BenchmarkValidateArcan(b *testing.B)       { benchValidate(b, synth.Arcan, false) }
func BenchmarkValidateACPFast(b *testing.B)     { benchValidate(b, synth.ACP, true) }
func BenchmarkValidateARCPFast(b *testing.B)    { benchValidate(b, synth.ARCP, true) }
func BenchmarkValidateArcanFast(b *testing.B)   { benchValidate(b, synth.Arcan, true) }
func BenchmarkDecodeBaselineACP(b *testing.B)   { benchDecode(b, synth.ACP) }
func BenchmarkDecodeBaselineARCP(b *testing.B)  { benchDecode(b, synth.ARCP) }
func BenchmarkDecodeBaselineArcan(b *testing.B) { benchDecode(b, synth.Arcan) }

// BenchmarkNew measures building an engine (the compiler over the embedded
// schemas; each protocol's schemas compile on first use).
func BenchmarkNew(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := New(Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMemoryBounded streams a synthetic ACP trace of AGENTPROTO_MEMTEST_MB
// megabytes (1024 for the documented 1 GB run) through the engine, generated
// on the fly, and checks that the heap never grows past a bound that does
// not depend on the size of the trace. Off by default: it takes minutes.
//
//	AGENTPROTO_MEMTEST_MB=1024 go test -run TestMemoryBounded -v -timeout 1h ./pkg/validate
func TestMemoryBounded(t *testing.T) {
	mb := os.Getenv("AGENTPROTO_MEMTEST_MB")
	if mb == "" {
		t.Skip("set AGENTPROTO_MEMTEST_MB=1024 to stream a 1 GB synthetic trace")
	}
	var size int64
	for _, c := range mb {
		if c < '0' || c > '9' {
			t.Fatalf("AGENTPROTO_MEMTEST_MB=%q: want a number of megabytes", mb)
		}
		size = size*10 + int64(c-'0')
	}
	size <<= 20
	// As the command runs: the generated types' fast path first.
	e, err := New(Options{Fast: typed.Checker{}})
	if err != nil {
		t.Fatal(err)
	}
	// Every second: the heap in use, and the live heap right after a
	// collection (what the engine holds, garbage aside).
	var peak, peakLive uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			if i%10 == 9 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				peakLive = max(peakLive, ms.HeapAlloc)
			}
		}
	}()
	start := time.Now()
	sum, err := e.Check(context.Background(), "synthetic", synth.Reader(synth.ACP, size), FileOptions{}, func(f Finding) { t.Errorf("%s", f) })
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	t.Logf("%d MB, %d lines in %v (%.0f MB/s, %.0f lines/s); peak heap in use %d MB, peak live heap after GC %d MB", size>>20, sum.Lines, el.Round(time.Millisecond), float64(size>>20)/el.Seconds(), float64(sum.Lines)/el.Seconds(), peak>>20, peakLive>>20)
	// Batches of at most 8 MB in flight, the compiled schemas and the
	// protocol state (one entry per answered request): far below the trace.
	if peak > 256<<20 {
		t.Fatalf("peak heap %d MB: memory grows with the trace", peak>>20)
	}
}

// BenchmarkWorkers measures, in the same run, one valid ACP trace checked
// with one worker (every stage on one goroutine) and with two (the
// pipeline), with the fast path as the CLI runs it. Metrics: the two-worker
// throughput in MB/s and its ratio to one worker's (speedup; the goal is at
// least 1.7 on two cores).
func BenchmarkWorkers(b *testing.B) {
	data := synth.Lines(synth.ACP, 100000)
	engines := make([]*Engine, 2)
	for i := range engines {
		var err error
		if engines[i], err = New(Options{Fast: typed.Checker{}, Workers: i + 1}); err != nil {
			b.Fatal(err)
		}
	}
	run := func(e *Engine) time.Duration {
		start := time.Now()
		sum, err := e.Check(context.Background(), "bench", bytes.NewReader(data), FileOptions{}, nil)
		if err != nil || sum.Errors > 0 {
			b.Fatalf("%v, %d errors", err, sum.Errors)
		}
		return time.Since(start)
	}
	run(engines[1]) // compile what the trace needs
	// Medians over the rounds (each runs both once), so that a round a
	// neighbour on the machine slowed down does not move the figures.
	var one, two []time.Duration
	b.ResetTimer()
	for range b.N {
		one = append(one, run(engines[0]))
		two = append(two, run(engines[1]))
	}
	b.ReportMetric(float64(len(data))/measure.Median(two).Seconds()/1e6, "MB/s-2workers")
	b.ReportMetric(float64(len(data))/measure.Median(one).Seconds()/1e6, "MB/s-1worker")
	b.ReportMetric(measure.Ratio(one, two), "speedup")
}

// BenchmarkErrorTwinACP measures, in the same run, a valid synthetic ACP
// trace and its twin in which every message has one error (a
// sessionId that is a number), so that every line is explained; the ratio
// metric is the twin's time over the valid trace's (goal: at most 2).
func BenchmarkErrorTwinACP(b *testing.B) {
	valid := synth.Lines(synth.ACP, benchLines)
	benchErrorTwin(b, valid, bytes.ReplaceAll(valid, []byte(`"sessionId":"`), []byte(`"sessionId":7,"x":"`)), benchLines/2)
}

// BenchmarkErrorTwinACPTag is BenchmarkErrorTwinACP with another twin:
// every text block's tag misspelt ("type":"txt"), so that every line with
// a text block fails inside two unions (the session update's and the
// content block's) and the explanation names the tags allowed. Each
// text is made unique (its line number in front), as in recorded
// traffic, so that no two failing values are alike byte for byte.
func BenchmarkErrorTwinACPTag(b *testing.B) {
	lines := bytes.SplitAfter(synth.Lines(synth.ACP, benchLines), []byte("\n"))
	var valid []byte
	for i, l := range lines {
		valid = append(valid, bytes.ReplaceAll(l, []byte(`"text":"`), []byte(fmt.Sprintf(`"text":"%d `, i)))...)
	}
	invalid := bytes.ReplaceAll(valid, []byte(`"type":"text"`), []byte(`"type":"txt"`))
	benchErrorTwin(b, valid, invalid, bytes.Count(invalid, []byte(`"txt"`)))
}

// benchErrorTwin measures valid and invalid traces in paired rounds, the
// invalid one expected to give at least wantErrors errors; the ratio
// metric is the median of the rounds' invalid-over-valid times.
func benchErrorTwin(b *testing.B, valid, invalid []byte, wantErrors int) {
	e, err := New(Options{Fast: typed.Checker{}})
	if err != nil {
		b.Fatal(err)
	}
	run := func(trace []byte) (time.Duration, int) {
		start := time.Now()
		sum, err := e.Check(context.Background(), "bench", bytes.NewReader(trace), FileOptions{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start), sum.Errors
	}
	if _, n := run(valid); n != 0 {
		b.Fatalf("the valid trace has %d errors", n)
	}
	if _, n := run(invalid); n < wantErrors {
		b.Fatalf("the twin has %d errors for %d lines, want at least %d", n, benchLines, wantErrors)
	}
	var tv, ti []time.Duration
	b.ResetTimer()
	for range b.N {
		d, _ := run(valid)
		tv = append(tv, d)
		d, _ = run(invalid)
		ti = append(ti, d)
	}
	b.ReportMetric(float64(measure.Median(tv).Nanoseconds())/benchLines, "valid-ns/line")
	b.ReportMetric(float64(measure.Median(ti).Nanoseconds())/benchLines, "invalid-ns/line")
	b.ReportMetric(measure.Ratio(ti, tv), "ratio") // the median of the rounds' ratios
}
