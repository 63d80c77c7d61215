package validate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentproto/agentproto/pkg/validate/judge"
	"github.com/agentproto/agentproto/pkg/validate/typed"
)

// FuzzEngine feeds arbitrary traces to the whole engine: reader, parser,
// detection, dispatch, state and explanations. It must never panic or hang,
// what it reports must be well formed and in line order, and the
// generated-types fast path on the pipeline, with failing values judged
// from their parsed documents (docvalid.ValidateDoc), must report exactly
// what jsonschema/v6 alone on values built as map[string]any does, with
// every stage on one goroutine: the fuzzer's mutations of the fixtures'
// lines are the random mutations the two are compared on.
//
//	go test ./pkg/validate -run '^$' -fuzz FuzzEngine -fuzztime 5m
func FuzzEngine(f *testing.F) {
	// Seeds: the first lines of a few fixtures of each protocol.
	for _, glob := range []string{"acp/invalid/*.jsonl", "acp/valid/0[1-3]*.jsonl", "acp/v2/*/*.jsonl", "arcp/*/valid/*.jsonl", "arcp/*/invalid/*.jsonl", "arcan/invalid/*", "arcan/valid/tool-run.*", "misc/*.jsonl"} {
		files, _ := filepath.Glob(filepath.Join(fixturesDir, glob))
		for _, p := range files {
			if strings.HasSuffix(p, ".expect") || strings.HasSuffix(p, ".dir") {
				continue
			}
			b, err := os.ReadFile(p)
			if err != nil || len(b) > 200<<10 {
				continue
			}
			if len(b) > 2000 {
				b = b[:2000]
			}
			f.Add(b)
		}
	}
	f.Add([]byte("data: {\"part_type\":\"run_started\"}\n\n"))
	f.Add([]byte("\x1f\x8b\x08\x00garbage"))
	e, err := New(Options{Workers: 1})
	if err != nil {
		f.Fatal(err)
	}
	e.setJudge(judge.Options{Oracle: true})
	// The fast path on the pipeline (two workers), against the general
	// validator with every stage on one goroutine.
	fast, err := New(Options{Workers: 2, Fast: typed.Checker{}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		prev := 0
		var general []Finding
		_, err := e.Check(context.Background(), "fuzz", bytes.NewReader(in), FileOptions{}, func(fd Finding) {
			general = append(general, fd)
			if fd.Line < prev {
				t.Fatalf("finding on line %d after line %d", fd.Line, prev)
			}
			prev = fd.Line
			if !KnownRule(fd.Rule) {
				t.Fatalf("unknown rule %q", fd.Rule)
			}
			if fd.Pointer != "" && fd.Pointer[0] != '/' {
				t.Fatalf("pointer %q is not a JSON pointer", fd.Pointer)
			}
			if fd.Message == "" || fd.Severity != Error && fd.Severity != Warning {
				t.Fatalf("malformed finding %+v", fd)
			}
		})
		if err != nil && !bytes.HasPrefix(in, []byte{0x1f, 0x8b}) {
			t.Fatalf("error on an in-memory trace that is not gzip: %v", err)
		}
		// The generated-types fast path may skip work, never change a
		// finding.
		var viaFast []Finding
		fast.Check(context.Background(), "fuzz", bytes.NewReader(in), FileOptions{}, func(fd Finding) { viaFast = append(viaFast, fd) })
		if d := cmp.Diff(general, viaFast); d != "" {
			t.Fatalf("the fast path or the document validator changes the findings (-v6 +fast):\n%s", d)
		}
	})
}
