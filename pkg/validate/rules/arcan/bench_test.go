package arcan_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/typed"
)

// largestValid is the largest trace of fixtures/arcan/valid: the one a
// benchmark of whole-trace checking reads.
func largestValid(b *testing.B) (string, []byte) {
	b.Helper()
	files, _ := filepath.Glob(filepath.Join(fixtures, "valid", "*.jsonl"))
	var name string
	var data []byte
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if len(d) > len(data) {
			name, data = f, d
		}
	}
	if data == nil {
		b.Fatal("no valid Arcan fixtures")
	}
	return name, data
}

// BenchmarkCheckLargest checks the largest valid Arcan trace with the
// engine (fast path, as the CLI runs it), next to the floor of decoding
// its lines with encoding/json into any: the ratio of the two is the
// cost of checking over reading.
func BenchmarkCheckLargest(b *testing.B) {
	name, data := largestValid(b)
	e, err := validate.New(validate.Options{Fast: typed.Checker{}, Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("check", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			n := 0
			if _, err := e.Check(context.Background(), name, bytes.NewReader(data), validate.FileOptions{}, func(validate.Finding) { n++ }); err != nil {
				b.Fatal(err)
			}
			if n != 0 {
				b.Fatalf("%s: %d findings in a valid trace", name, n)
			}
		}
	})
	b.Run("decode-any", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var v any
				if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
