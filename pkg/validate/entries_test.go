package validate

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/judge"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/pkg/validate/typed"
	"github.com/agentproto/agentproto/schema/registry"
)

// The entries of an array line, as the engine hands them to rules that
// read batches: a toy protocol whose messages carry "toy", whose rules read
// an array as a batch (or not, or know nothing of batches), and report a
// finding on each member "bad" and on each entry that is not an object.

type toyRules struct {
	// batches: the handler is a protocol.Batcher that reads arrays as
	// batches; plain: it is no Batcher at all.
	batches, plain bool
	seen           *[]toyLine
}

// toyLine is what a toy handler was given for one line.
type toyLine struct {
	line    int
	array   bool
	entries []string // each entry's bytes
	types   []jsonscan.Type
	lines   []int // each entry's line
	total   int
}

func (toyRules) Name() string { return "toy" }
func (toyRules) Identify(o map[string]any) bool {
	_, ok := o["toy"]
	return ok
}
func (toyRules) Dialects() []string   { return nil }
func (toyRules) Directions() []string { return nil }
func (r toyRules) Start([]*protocol.Message, protocol.Start) (protocol.Handler, error) {
	h := &toyHandler{seen: r.seen}
	if r.plain {
		return h, nil
	}
	return &toyBatcher{toyHandler: h, batches: r.batches}, nil
}

type toyHandler struct{ seen *[]toyLine }

func (h *toyHandler) Step(m *protocol.Message) {
	*h.seen = append(*h.seen, toyLine{line: m.Line, array: m.Doc.Type(m.Doc.Root()) == jsonscan.Array})
	toyStep(m)
}

func toyStep(m *protocol.Message) {
	m.Label = "toy"
	if !m.IsObject() {
		m.Add(Error, "toy", "", "not an object: %s", m.Data)
		return
	}
	if m.Has("/bad") {
		m.Add(Error, "toy", "/bad", "bad")
	}
}

func (h *toyHandler) Lost(*protocol.Message) {}
func (h *toyHandler) Finish(int) []Finding   { return nil }
func (h *toyHandler) Dialect() string        { return "toy" }
func (h *toyHandler) Note() string           { return "" }

func toyDocs() []protocol.RuleDoc { return nil }

func toyProtocolOf(r toyRules) func(*registry.Registry, *protocol.Schemas) protocol.Rules {
	return func(*registry.Registry, *protocol.Schemas) protocol.Rules { return r }
}

type toyBatcher struct {
	*toyHandler
	batches bool
}

func (h *toyBatcher) StepLine(m *protocol.Message, entries []*protocol.Message, total int) bool {
	if entries == nil {
		h.toyHandler.Step(m)
		return false
	}
	l := toyLine{line: m.Line, array: true, total: total}
	for _, e := range entries {
		l.entries = append(l.entries, string(e.Data))
		l.types = append(l.types, e.Doc.Type(e.Doc.Root()))
		l.lines = append(l.lines, e.Line)
	}
	*h.seen = append(*h.seen, l)
	m.Label = "batch"
	if !h.batches {
		m.Add(Error, "toy", "", "no batches here")
		return false
	}
	if total == 0 {
		m.Add(Error, "toy", "", "an empty batch")
	}
	for _, e := range entries {
		toyStep(e)
	}
	return true
}

// toyCheck checks a trace with the toy protocol and returns its findings
// as "LINE POINTER" and what the handler saw.
func toyCheck(t *testing.T, r toyRules, workers int, trace string) ([]string, []toyLine, Summary) {
	t.Helper()
	var seen []toyLine
	r.seen = &seen
	e, err := New(Options{Workers: workers, Protocols: []Protocol{{Name: "toy", Rules: toyProtocolOf(r), Docs: toyDocs}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	sum, err := e.Check(context.Background(), "toy", strings.NewReader(trace), FileOptions{}, func(f Finding) {
		got = append(got, fmt.Sprintf("%d %s %s", f.Line, f.Rule, f.Pointer))
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, seen, sum
}

// Each entry of a batch is a message of its own, on the line of the
// batch, its findings' pointers rooted at the line's array; an entry that
// is an array is one entry (batches do not nest), and entries that are
// not objects are entries all the same, their bytes as the line has them.
func TestBatchEntriesPointersAndLines(t *testing.T) {
	trace := strings.Join([]string{
		`{"toy":1}`,
		``,
		`[{"toy":1},{"toy":1,"bad":true},7,[{"bad":1},{"bad":2}],"s\"q",null, {"bad":{"x":[1]}} ]`,
		`[]`,
		`{"toy":1,"bad":1}`,
	}, "\n") + "\n"
	for _, workers := range []int{1, 4} {
		got, seen, sum := toyCheck(t, toyRules{batches: true}, workers, trace)
		want := []string{"3 toy /1/bad", "3 toy /2", "3 toy /3", "3 toy /4", "3 toy /5", "3 toy /6/bad", "4 toy ", "5 toy /bad"}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("workers %d: findings (-want +got):\n%s", workers, d)
		}
		wantSeen := []toyLine{
			{line: 1},
			{line: 3, array: true, total: 7,
				entries: []string{`{"toy":1}`, `{"toy":1,"bad":true}`, `7`, `[{"bad":1},{"bad":2}]`, `"s\"q"`, `null`, `{"bad":{"x":[1]}}`},
				types:   []jsonscan.Type{jsonscan.Object, jsonscan.Object, jsonscan.Number, jsonscan.Array, jsonscan.String, jsonscan.Null, jsonscan.Object},
				lines:   []int{3, 3, 3, 3, 3, 3, 3}},
			{line: 4, array: true},
			{line: 5},
		}
		if d := cmp.Diff(wantSeen, seen, cmp.AllowUnexported(toyLine{})); d != "" {
			t.Errorf("workers %d: the handler saw (-want +got):\n%s", workers, d)
		}
		if sum.Messages != 4 || sum.ByType["toy batch"] != 2 || sum.ByType["toy toy"] != 2+7 {
			t.Errorf("workers %d: summary counts %d records, by type %v", workers, sum.Messages, sum.ByType)
		}
	}
}

// A line the rules do not read as a batch is one message: its entries'
// findings are not reported, and a protocol that knows nothing of batches
// is given the whole line, as before.
func TestBatchEntriesNotABatch(t *testing.T) {
	trace := `[{"toy":1,"bad":1},{"toy":1}]` + "\n" + `{"toy":1}` + "\n"
	got, seen, _ := toyCheck(t, toyRules{}, 1, trace)
	if d := cmp.Diff([]string{"1 toy "}, got); d != "" {
		t.Errorf("refused batch: findings (-want +got):\n%s", d)
	}
	if len(seen) != 2 || len(seen[0].entries) != 2 {
		t.Errorf("refused batch: the handler saw %+v", seen)
	}
	got, seen, _ = toyCheck(t, toyRules{plain: true}, 1, trace)
	if d := cmp.Diff([]string{"1 toy "}, got); d != "" {
		t.Errorf("no Batcher: findings (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]toyLine{{line: 1, array: true}, {line: 2}}, seen, cmp.AllowUnexported(toyLine{})); d != "" {
		t.Errorf("no Batcher: the handler saw (-want +got):\n%s", d)
	}
}

// A trace that begins with a batch is detected from the batch's entries.
func TestBatchEntriesDetection(t *testing.T) {
	got, seen, sum := toyCheck(t, toyRules{batches: true}, 1, `[{"toy":1},{"toy":1,"bad":1}]`+"\n")
	if d := cmp.Diff([]string{"1 toy /1/bad"}, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	if len(seen) != 1 || sum.Detected[0].Protocol != "toy" {
		t.Errorf("detected %+v; the handler saw %+v", sum.Detected, seen)
	}
}

// A huge batch: the rules are given the first protocol.MaxEntries entries
// and the array's length, and the line's findings are capped as any
// line's are.
func TestBatchEntriesHuge(t *testing.T) {
	const n = 5000
	var sb strings.Builder
	sb.WriteString(`{"toy":1}` + "\n[")
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"bad":1}`)
	}
	sb.WriteString("]\n")
	for _, workers := range []int{1, 3} {
		got, seen, _ := toyCheck(t, toyRules{batches: true}, workers, sb.String())
		if len(seen) != 2 || seen[1].total != n || len(seen[1].entries) != protocol.MaxEntries {
			t.Fatalf("workers %d: the handler was given %d entries of %d", workers, len(seen[1].entries), seen[1].total)
		}
		if len(got) != maxPerLine+1 || got[0] != "2 toy /0/bad" || got[maxPerLine-1] != fmt.Sprintf("2 toy /%d/bad", maxPerLine-1) || got[maxPerLine] != "2 too-many " {
			t.Errorf("workers %d: %d findings: %v", workers, len(got), got)
		}
	}
}

// A trace of many array lines of tiny entries is read in batches that hold
// few of them, so that the entries' messages stay bounded in memory.
func TestReadCostOfArrays(t *testing.T) {
	for _, c := range []struct {
		line string
		cost int
	}{
		{`{"a":[1,2]}`, 11},
		{`[1,2]`, 5 * arrayWeight},
		{" \t[1]", 5 * arrayWeight},
		{`"[1]"`, 5},
		{``, 0},
	} {
		if got := readCost([]byte(c.line)); got != c.cost {
			t.Errorf("readCost(%q) = %d, want %d", c.line, got, c.cost)
		}
	}
}

// Batches of every shape (entries of the v2 fixtures, scalars, nested and
// empty arrays, answers with id null), random but repeatable, in v2, v1 and
// handshake-less traces, through the whole engine as FuzzEngine runs it: no
// panic, findings well formed and in line order, and the fast path on the
// pipeline reporting exactly what the general validator on one goroutine
// does.
func TestBatchesOfEveryShape(t *testing.T) {
	general, err := New(Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	general.setJudge(judge.Options{Oracle: true})
	fast, err := New(Options{Workers: 2, Fast: typed.Checker{}})
	if err != nil {
		t.Fatal(err)
	}
	var pool []string // messages of the v2 fixtures, entries of batches too
	for _, p := range traceFiles(t, fixturesDir+"/acp/v2") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if v, err := jsonscan.Parse([]byte(l), 0); err == nil {
				if a, ok := v.([]any); ok {
					for _, el := range a {
						b, _ := json.Marshal(el)
						pool = append(pool, string(b))
					}
					continue
				}
			}
			pool = append(pool, l)
		}
	}
	if len(pool) < 50 {
		t.Fatalf("only %d messages to build batches of", len(pool))
	}
	odd := []string{`1`, `"x"`, `null`, `true`, `{}`, `[]`, `[[]]`, `{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`,
		`{"jsonrpc":"2.0","id":null,"result":{}}`, `{"jsonrpc":"2.0","id":1.5,"method":"session/list","params":{}}`, `{"jsonrpc":"2.0","id":7,"result":{"sessions":[]}}`}
	rng := rand.New(rand.NewPCG(1, 2))
	var entry func(depth int) string
	entry = func(depth int) string {
		switch n := rng.IntN(10); {
		case n < 6:
			return pool[rng.IntN(len(pool))]
		case n < 9 || depth > 3:
			return odd[rng.IntN(len(odd))]
		default:
			return batchOf(rng.IntN(4), func() string { return entry(depth + 1) })
		}
	}
	inits := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"e","version":"1"},"capabilities":{}}}` + "\n" +
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2,"info":{"name":"a","version":"1"},"capabilities":{"session":{}}}}`,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"ed","version":"1"}}}`,
		``,
	}
	for i := range 300 {
		var sb strings.Builder
		if in := inits[i%len(inits)]; in != "" {
			sb.WriteString(in + "\n")
		}
		for range 1 + rng.IntN(8) {
			if rng.IntN(3) == 0 {
				sb.WriteString(entry(0))
			} else {
				sb.WriteString(batchOf(rng.IntN(6), func() string { return entry(0) }))
			}
			sb.WriteByte('\n')
		}
		trace := sb.String()
		var a []Finding
		prev := 0
		_, err := general.Check(context.Background(), "shape", strings.NewReader(trace), FileOptions{}, func(f Finding) {
			a = append(a, f)
			if f.Line < prev || !KnownRule(f.Rule) || f.Message == "" || f.Pointer != "" && f.Pointer[0] != '/' {
				t.Errorf("trace %d: malformed or out of order: %s", i, f)
			}
			prev = f.Line
		})
		if err != nil {
			t.Fatalf("trace %d: %v", i, err)
		}
		var b []Finding
		fast.Check(context.Background(), "shape", strings.NewReader(trace), FileOptions{}, func(f Finding) { b = append(b, f) })
		if d := cmp.Diff(a, b); d != "" {
			t.Fatalf("trace %d: the fast path changes the findings (-general +fast):\n%s\ntrace:\n%s", i, d, trace)
		}
	}
}

// batchOf is a JSON array of n values that next makes.
func batchOf(n int, next func() string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = next()
	}
	return "[" + strings.Join(parts, ",") + "]"
}
