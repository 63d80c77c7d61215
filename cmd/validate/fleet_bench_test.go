//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fleetLines are the one-line traces of a generated fleet, taken in turn:
// one with a warning only, and three with errors, one per protocol, so that
// every output format has findings, suites and detected traces to write.
var fleetLines = []string{
	`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"ed","version":"1"}}}`,
	`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`,
	`{"arcp":"1.1","id":"m1","type":"session.hello","payload":{}}`,
	`{"part_type":"run_started","run_id":"r1"}`,
}

// fleetPerFolder is how many traces a folder of a generated fleet holds.
const fleetPerFolder = 1000

// writeFleet writes n one-line traces below dir, fleetPerFolder to a
// folder, unless a complete fleet of n is there already (it says so in
// dir/.complete), so that a fleet of a million is written once.
func writeFleet(tb testing.TB, dir string, n int) {
	mark := filepath.Join(dir, ".complete")
	if b, err := os.ReadFile(mark); err == nil && string(b) == strconv.Itoa(n) {
		return
	}
	for i := 0; i < n; i++ {
		sub := filepath.Join(dir, fmt.Sprintf("d%04d", i/fleetPerFolder))
		if i%fleetPerFolder == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				tb.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("t%07d.jsonl", i)), []byte(fleetLines[i%len(fleetLines)]+"\n"), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(mark, []byte(strconv.Itoa(n)), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkFleet runs the command, as a child process, over generated
// folders of one-line traces in every output format, and reports the
// child's peak resident memory (peak-MB, the kernel's high-water mark of
// the process) and its speed (files/s). A fleet is large, so the benchmark
// runs only when AGENTPROTO_FLEET names its sizes; AGENTPROTO_FLEET_DIR
// keeps the fleets between runs (they are written once):
//
//	AGENTPROTO_FLEET=100000,1000000 AGENTPROTO_FLEET_DIR=/tmp/fleet \
//	  go test ./cmd/validate -run '^$' -bench '^BenchmarkFleet$' -benchtime 1x -timeout 4h
//
// (make bench-fleet). The goal: a peak under 200 MB in every format,
// and the same, within 20 %, for a million traces as for 100,000.
func BenchmarkFleet(b *testing.B) {
	sizes := os.Getenv("AGENTPROTO_FLEET")
	if sizes == "" {
		b.Skip("set AGENTPROTO_FLEET to the fleet sizes, such as 100000,1000000")
	}
	base := os.Getenv("AGENTPROTO_FLEET_DIR")
	if base == "" {
		base = b.TempDir()
	}
	bin := filepath.Join(b.TempDir(), "validate")
	if msg, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, msg)
	}
	formats := []string{"text", "json", "github", "sarif", "junit", "html"}
	if f := os.Getenv("AGENTPROTO_FLEET_FORMATS"); f != "" {
		formats = strings.Split(f, ",")
	}
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			b.Fatalf("AGENTPROTO_FLEET: %q is not a number of traces", s)
		}
		dir := filepath.Join(base, fmt.Sprintf("fleet-%d", n))
		writeFleet(b, dir, n)
		for _, format := range formats {
			b.Run(fmt.Sprintf("files=%d/format=%s", n, format), func(b *testing.B) {
				var peak int64
				var took time.Duration
				for range b.N {
					p, d := runFleet(b, bin, dir, format)
					peak, took = max(peak, p), took+d
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
				b.ReportMetric(float64(n)*float64(b.N)/took.Seconds(), "files/s")
			})
		}
	}
}

// runFleet checks dir in format, its output to /dev/null, and returns the
// child's peak resident memory in bytes and how long it took.
func runFleet(b *testing.B, bin, dir, format string) (int64, time.Duration) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "--progress", "never", "--format", format, dir)
	cmd.Stdout, cmd.Stderr = null, &stderr
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start)
	if code := cmd.ProcessState.ExitCode(); code != exitFindings {
		b.Fatalf("validate --format %s %s: exit %d (%v), want %d\n%s", format, dir, code, err, exitFindings, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		b.Fatal("this system does not report a child's peak memory")
	}
	return ru.Maxrss << 10, took // Linux counts it in KiB
}
