package arcp_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentproto/agentproto/internal/measure"
	"github.com/agentproto/agentproto/pkg/validate"
)

// benchLines is how much of the recorded-shape Go SDK stream the benchmark
// reads: every event kind of the stream many times over.
const benchLines = 4000

// errorTwin returns a valid Go SDK stream and its twin in which every
// message has exactly one error (the protocol version "1.0" where only
// "1.1" is accepted), so that every line goes through the explaining path.
func errorTwin(b *testing.B) (valid, invalid []byte) {
	b.Helper()
	lines := readLinesB(b, filepath.Join(fixtures, "dialects", "go-sdk", "20_long_stream.jsonl.gz"))
	if len(lines) > benchLines {
		lines = lines[:benchLines]
	}
	for _, l := range lines {
		valid = append(append(valid, l...), '\n')
		bad := bytes.Replace(l, []byte(`"arcp":"1.1"`), []byte(`"arcp":"1.0"`), 1)
		if bytes.Equal(bad, l) {
			b.Fatalf("line without the version member: %.80s", l)
		}
		invalid = append(append(invalid, bad...), '\n')
	}
	return valid, invalid
}

func readLinesB(b *testing.B, path string) [][]byte {
	b.Helper()
	var t testing.T
	lines := readLines(&t, path)
	if t.Failed() {
		b.Fatalf("reading %s failed", path)
	}
	return lines
}

// BenchmarkErrorTwin measures, in the same run, a valid trace and the same
// trace with one error in every message. The ratio metric is the cost of
// explaining: the invalid twin's time over the valid one's (target: at most
// about 2).
func BenchmarkErrorTwin(b *testing.B) {
	valid, invalid := errorTwin(b)
	e, err := engine()
	if err != nil {
		b.Fatal(err)
	}
	run := func(trace []byte, wantErrors bool) time.Duration {
		start := time.Now()
		errs := 0
		_, err := e.Check(context.Background(), "bench", bytes.NewReader(trace), validate.FileOptions{}, func(f validate.Finding) {
			if f.Severity == validate.Error {
				errs++
			}
		})
		d := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if wantErrors != (errs > 0) {
			b.Fatalf("errors: %d, want some: %v", errs, wantErrors)
		}
		if wantErrors && errs != benchLines {
			b.Fatalf("%d errors for %d lines: want one per line", errs, benchLines)
		}
		return d
	}
	run(valid, false) // compile the schemas before timing
	run(invalid, true)
	var tv, ti []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tv = append(tv, run(valid, false))
		ti = append(ti, run(invalid, true))
	}
	// Medians over the rounds, so that a round a neighbour on the machine
	// slowed down does not move the figures.
	b.ReportMetric(float64(measure.Median(tv).Nanoseconds())/benchLines, "valid-ns/line")
	b.ReportMetric(float64(measure.Median(ti).Nanoseconds())/benchLines, "invalid-ns/line")
	b.ReportMetric(measure.Ratio(ti, tv), "ratio")
}
