//go:build unix

package tap

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/typed"
)

// roundTrips sends b.N sample lines one at a time through w and waits for
// each echo on r, and reports the 50th and 99th percentile round trip.
func roundTrips(b *testing.B, w io.Writer, r *bufio.Reader, prefix string) {
	b.Helper()
	line := []byte(sampleLine)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := w.Write(line); err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), prefix+"p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), prefix+"p99-µs")
}

// BenchmarkLatencyDirect is the baseline: one message to an echoing child
// and back, over plain pipes.
func BenchmarkLatencyDirect(b *testing.B) {
	cmd, env := childCmd(b, "echo")
	c := exec.Command(cmd[0], cmd[1:]...)
	c.Env = env
	in, err := c.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	roundTrips(b, in, bufio.NewReader(out), "")
	in.Close()
	if err := c.Wait(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLatencyTap is the same round trip through the relay, recording
// to files and validating live: each message crosses the relay twice.
// Compare its percentiles with BenchmarkLatencyDirect's.
func BenchmarkLatencyTap(b *testing.B) {
	benchTap(b, true)
}

// BenchmarkLatencyTapRecordOnly relays and records, without validation.
func BenchmarkLatencyTapRecordOnly(b *testing.B) {
	benchTap(b, false)
}

func benchTap(b *testing.B, check bool) {
	cmd, env := childCmd(b, "echo")
	cfg, closeRec := recordConfig(b)
	defer closeRec()
	var live *Live
	if check {
		live = startLive(b)
		cfg.Observer = live
	}
	// The relay's ends are OS pipes, as an editor's are.
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	cfg.Command, cfg.Env, cfg.Stdin, cfg.Stdout = cmd, env, inR, outW
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), cfg)
		done <- err
	}()
	roundTrips(b, inW, bufio.NewReader(outR), "")
	inW.Close()
	if _, err := io.Copy(io.Discard, outR); err != nil {
		b.Fatal(err)
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	if live != nil {
		if _, st, err := live.Close(); err != nil {
			b.Logf("live validation: %v (%+v)", err, st)
		}
	}
}

// BenchmarkThroughputTap has the child write b.N messages as fast as it
// can and measures them through the relay (recording to files, validating
// live) to this process: msgs/s is the relay's rate.
func BenchmarkThroughputTap(b *testing.B) {
	benchThroughput(b, true, true)
}

// BenchmarkThroughputTapRecordOnly is the same without live validation.
func BenchmarkThroughputTapRecordOnly(b *testing.B) {
	benchThroughput(b, true, false)
}

// BenchmarkThroughputDirect reads the same child over a plain pipe.
func BenchmarkThroughputDirect(b *testing.B) {
	benchThroughput(b, false, false)
}

func benchThroughput(b *testing.B, relay, check bool) {
	cmd, env := childCmd(b, itoa(b.N))
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(sampleLine)))
	b.ResetTimer()
	start := time.Now()
	done := make(chan error, 1)
	var live *Live
	if relay {
		cfg, closeRec := recordConfig(b)
		defer closeRec()
		if check {
			live = startLive(b)
			cfg.Observer = live
		}
		cfg.Command, cfg.Env, cfg.Stdout = cmd, env, outW
		go func() {
			_, err := Run(context.Background(), cfg)
			done <- err
		}()
	} else {
		c := exec.Command(cmd[0], cmd[1:]...)
		c.Env, c.Stdout = env, outW
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		go func() {
			err := c.Wait()
			outW.Close()
			done <- err
		}()
	}
	r := bufio.NewReaderSize(outR, 64<<10)
	n := 0
	for {
		_, err := r.ReadSlice('\n')
		if err != nil {
			break
		}
		n++
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	if n != b.N {
		b.Fatalf("read %d messages, want %d", n, b.N)
	}
	b.ReportMetric(float64(n)/elapsed.Seconds(), "msgs/s")
	if live != nil {
		_, st, err := live.Close()
		validated := st.Lines
		if st.StoppedAt > 0 {
			validated = st.StoppedAt - 1
		}
		b.ReportMetric(float64(validated)/float64(max(st.Lines, 1))*100, "%validated")
		_ = err
	}
}

func itoa(n int) string {
	return string(appendInt(nil, n))
}

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

// recordConfig records to a trace and sidecar in a temporary folder.
func recordConfig(b *testing.B) (Config, func()) {
	dir := b.TempDir()
	rec, err := os.Create(filepath.Join(dir, "s.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	dirs, err := os.Create(filepath.Join(dir, "s.jsonl.dir"))
	if err != nil {
		b.Fatal(err)
	}
	return Config{Record: rec, Directions: dirs}, func() { rec.Close(); dirs.Close() }
}

func startLive(b *testing.B) *Live {
	eng, err := validate.New(validate.Options{Fast: typed.Checker{}, Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	return StartLive(context.Background(), eng, "s.jsonl", "", 0, func(validate.Finding) {})
}
