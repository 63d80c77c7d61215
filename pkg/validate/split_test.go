package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/trace"
	"github.com/agentproto/agentproto/pkg/validate/internal/synth"
	"github.com/agentproto/agentproto/pkg/validate/judge"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/pkg/validate/typed"
)

// TestVerdictsAgree holds the ways a message can be checked to one verdict,
// finding by finding, on real traffic and on what it looks like when it
// goes wrong: every fixture, and the first 10 lines of each with each
// member, at any depth, dropped or given a value of another type in turn
// (see mutations). The four ways: the general validator alone, the whole
// schema at once or split (protocol.Schemas.Split: an envelope apart from
// its payload, params apart from their update); and the fast path first,
// likewise. A fast path that vouches for a value the schema rejects hides a
// defect, and a split that changes a finding's words or order breaks the
// promise that the fast path changes nothing but time.
func TestVerdictsAgree(t *testing.T) {
	skipDifferentialIfShort(t)
	engines := map[string]*Engine{}
	for _, name := range []string{"general", "general whole", "fast", "fast whole"} {
		opts := Options{}
		if strings.HasPrefix(name, "fast") {
			opts.Fast = typed.Checker{}
		}
		e, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		// The general engines validate with jsonschema/v6 alone: the
		// reference the document validator is held to.
		e.setJudge(judge.Options{Whole: strings.HasSuffix(name, "whole"), Oracle: strings.HasPrefix(name, "general")})
		engines[name] = e
	}
	// Each pair: the reference first.
	pairs := [][2]string{{"general whole", "general"}, {"general", "fast"}, {"fast whole", "fast"}}
	files, mutants, findings := 0, 0, 0
	for _, p := range traceFiles(t, fixturesDir) {
		files++
		buf, n := varied(t, p, 10, mutations)
		mutants += n
		got := map[string][]Finding{}
		mutated := map[string][]Finding{}
		for name, e := range engines {
			got[name] = checkFile(t, e, p)
			if len(buf) == 0 {
				continue
			}
			if _, err := e.Check(context.Background(), p, bytes.NewReader(buf), FileOptions{}, func(f Finding) { mutated[name] = append(mutated[name], f) }); err != nil {
				t.Fatal(err)
			}
		}
		findings += len(mutated["general"])
		for _, pr := range pairs {
			if d := cmp.Diff(got[pr[0]], got[pr[1]]); d != "" {
				t.Errorf("%s: %s and %s disagree (-%s +%s):\n%s", p, pr[0], pr[1], pr[0], pr[1], d)
			}
			if d := cmp.Diff(mutated[pr[0]], mutated[pr[1]]); d != "" {
				t.Errorf("%s mutated: %s and %s disagree (-%s +%s):\n%s", p, pr[0], pr[1], pr[0], pr[1], d)
			}
		}
	}
	if mutants < 1000 {
		t.Fatalf("only %d mutated messages from %d files: the fixtures were not found", mutants, files)
	}
	t.Logf("%d files, %d mutated messages, %d findings, alike four ways", files, mutants, findings)
	fast := engines["fast"]
	st := fast.judge.Stats()
	judged, declined := st.DocJudged, st.DocDeclined
	t.Logf("the document validator judged %d failing values and left %d to jsonschema/v6", judged, declined)
	if judged < 1000 || declined*100 > judged {
		t.Errorf("the document validator judged %d failing values and left %d to jsonschema/v6: it does not carry the error path", judged, declined)
	}
}

// varied returns the variants vary makes of each of the first n lines of
// a trace, one per line, and how many there are.
func varied(t *testing.T, path string, n int, vary func([]byte) [][]byte) ([]byte, int) {
	t.Helper()
	var buf bytes.Buffer
	count := 0
	for _, l := range firstLines(t, path, n) {
		for _, m := range vary(l) {
			buf.Write(m)
			buf.WriteByte('\n')
			count++
		}
	}
	return buf.Bytes(), count
}

// firstLines returns up to n lines of a trace, read as the engine reads it.
func firstLines(t *testing.T, path string, n int) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := trace.NewReader(f, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for len(out) < n {
		rec, err := r.Next()
		if err != nil {
			break
		}
		if rec.Err == nil {
			out = append(out, append([]byte(nil), rec.Data...))
		}
	}
	return out
}

// mutations returns the line with each member, at any depth, dropped or
// replaced by a value of another type.
func mutations(line []byte) [][]byte {
	v, err := jsonscan.Parse(line, 0)
	if err != nil {
		return nil
	}
	var out [][]byte
	var walk func(cur any, set func(any), drop func())
	emit := func() {
		if b, err := json.Marshal(v); err == nil {
			out = append(out, b)
		}
	}
	walk = func(cur any, set func(any), drop func()) {
		if drop != nil {
			drop()
			emit()
			set(cur)
		}
		if set != nil {
			for _, other := range otherTypes(cur) {
				set(other)
				emit()
			}
			set(cur)
		}
		switch x := cur.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k], func(n any) { x[k] = n }, func() { delete(x, k) })
			}
		case []any:
			for i := range x {
				walk(x[i], func(n any) { x[i] = n }, nil)
			}
		}
	}
	walk(v, nil, nil)
	return out
}

// otherTypes are values of other JSON types than v's.
func otherTypes(v any) []any {
	switch v.(type) {
	case string:
		return []any{json.Number("42"), ""}
	case json.Number:
		return []any{"7", json.Number("-1")}
	case bool:
		return []any{"true"}
	case map[string]any:
		return []any{[]any{}, map[string]any{}}
	case []any:
		return []any{map[string]any{}}
	}
	return []any{json.Number("0")}
}

// TestKnownMembersHideNoNearMiss pins what the fast path's "every member
// known" answer (wire.Codec.CheckAt) lets the engine skip: the near-miss walk.
// Every fixture's first lines, with each member renamed to a near miss of
// itself, get the same near-miss warnings from the fast path as from the
// general validator, which always walks.
func TestKnownMembersHideNoNearMiss(t *testing.T) {
	skipDifferentialIfShort(t)
	general := testEngine(t)
	fast, err := New(Options{Fast: typed.Checker{}})
	if err != nil {
		t.Fatal(err)
	}
	misses := 0
	for _, p := range traceFiles(t, fixturesDir) {
		buf, _ := varied(t, p, 10, renames)
		if len(buf) == 0 {
			continue
		}
		run := func(e *Engine) []Finding {
			var out []Finding
			if _, err := e.Check(context.Background(), p, bytes.NewReader(buf), FileOptions{}, func(f Finding) {
				if f.Rule == RuleNearMiss || f.Rule == RuleCustomMember {
					out = append(out, f)
				}
			}); err != nil {
				t.Fatal(err)
			}
			return out
		}
		a, b := run(general), run(fast)
		misses += len(a)
		if d := cmp.Diff(a, b); d != "" {
			t.Errorf("%s renamed: the fast path changes the near-miss warnings (-general +fast):\n%s", p, d)
		}
	}
	if misses < 100 {
		t.Fatalf("only %d near-miss warnings: the renames do not exercise the walk", misses)
	}
	t.Logf("%d near-miss warnings, alike", misses)
}

// renames returns the line with each member, at any depth, renamed to a
// near miss of its name (the first letter's case flipped).
func renames(line []byte) [][]byte {
	v, err := jsonscan.Parse(line, 0)
	if err != nil {
		return nil
	}
	var out [][]byte
	var walk func(cur any)
	walk = func(cur any) {
		switch x := cur.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				if k == "" || !unicode.IsLetter(rune(k[0])) {
					continue
				}
				nk := string(unicode.SimpleFold(rune(k[0]))) + k[1:]
				if _, taken := x[nk]; taken {
					continue
				}
				val := x[k]
				delete(x, k)
				x[nk] = val
				if b, err := json.Marshal(v); err == nil {
					out = append(out, b)
				}
				delete(x, nk)
				x[k] = val
				walk(val)
			}
		case []any:
			for _, el := range x {
				walk(el)
			}
		}
	}
	walk(v)
	return out
}

// Several near misses in one object are reported in key order, on every
// run: the walk does not follow a map's iteration order.
func TestNearMissesInKeyOrder(t *testing.T) {
	trace := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"A","title":"","staus":"pending","loctions":[],"rawInptu":{}}}}` + "\n"
	e, err := New(Options{Workers: 1, Partial: protocol.PartialYes})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/params/update/loctions", "/params/update/rawInptu", "/params/update/staus"}
	for range 20 {
		var got []string
		if _, err := e.Check(context.Background(), "t", strings.NewReader(trace), FileOptions{}, func(f Finding) {
			if f.Rule == RuleNearMiss || f.Rule == RuleCustomMember {
				got = append(got, f.Pointer)
			}
		}); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("near misses (-want +got):\n%s", d)
		}
	}
}

// TestMemoAgrees holds the engine's memo of explanations (docvalid.Memo)
// to jsonschema/v6: every fixture's first lines with each string value
// changed in turn, and their one-member mutations as they are and with
// all their strings changed, so that many values share a skeleton and
// differ in strings some of which the validation reads (a tag, an enum
// value) and some not (free text). The engine with the memo must report
// what v6 alone reports, finding for finding, and the memo must have
// answered for many of them.
func TestMemoAgrees(t *testing.T) {
	skipDifferentialIfShort(t)
	oracle, fast := memoEngines(t, 0)
	lines := 0
	for _, p := range traceFiles(t, fixturesDir) {
		var buf bytes.Buffer
		for _, l := range firstLines(t, p, 4) {
			// The line with each string changed in turn, then each
			// mutation as it is and with all its strings changed.
			variants := append([][]byte{l}, restrings(l, false)...)
			for _, m := range mutations(l) {
				variants = append(variants, m)
				variants = append(variants, restrings(m, true)...)
			}
			for _, r := range variants {
				buf.Write(r)
				buf.WriteByte('\n')
				lines++
			}
		}
		if buf.Len() == 0 {
			continue
		}
		if d := cmp.Diff(findingsOf(t, oracle, p, buf.Bytes()), findingsOf(t, fast, p, buf.Bytes())); d != "" {
			t.Errorf("%s restrung: the memo changes the findings (-v6 +memo):\n%s", p, d)
		}
	}
	hits := fast.judge.Stats().MemoHits
	t.Logf("%d lines; the memo answered for %d values", lines, hits)
	if hits < 500 {
		t.Errorf("the memo answered for only %d values of %d lines: the test does not exercise it", hits, lines)
	}
}

// memoEngines are an engine that validates with jsonschema/v6 alone, the
// reference, and one with the fast path and the memo, of the given number
// of workers (0: as many as the machine has).
func memoEngines(t *testing.T, workers int) (oracle, fast *Engine) {
	t.Helper()
	oracle, err := New(Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	oracle.setJudge(judge.Options{Oracle: true})
	fast, err = New(Options{Fast: typed.Checker{}, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return oracle, fast
}

// findingsOf checks data as the file name with e.
func findingsOf(t *testing.T, e *Engine, name string, data []byte) []Finding {
	t.Helper()
	var out []Finding
	if _, err := e.Check(context.Background(), name, bytes.NewReader(data), FileOptions{}, func(f Finding) { out = append(out, f) }); err != nil {
		t.Fatal(err)
	}
	return out
}

// restrings returns the line with each string value, at any depth, given
// other contents in turn; or, if all, once with every one changed.
func restrings(line []byte, all bool) [][]byte {
	v, err := jsonscan.Parse(line, 0)
	if err != nil {
		return nil
	}
	var out [][]byte
	emit := func() {
		if b, err := json.Marshal(v); err == nil {
			out = append(out, b)
		}
	}
	var walk func(cur any, set func(any), all bool)
	walk = func(cur any, set func(any), all bool) {
		switch x := cur.(type) {
		case string:
			if set != nil {
				set(x + "x")
				if !all {
					emit()
					set(x)
				}
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k], func(n any) { x[k] = n }, all)
			}
		case []any:
			for i := range x {
				walk(x[i], func(n any) { x[i] = n }, all)
			}
		}
	}
	walk(v, nil, all)
	if all {
		emit()
	}
	return out
}

// TestMemoQuotesEachValue: values that fail alike but quote different
// contents (a number that is not an integer, an enum value, a misspelt
// tag) each get their own sentence from the memo, as from v6.
func TestMemoQuotesEachValue(t *testing.T) {
	head := string(synth.Lines(synth.ACP, 4))
	var sb strings.Builder
	sb.WriteString(head)
	for _, v := range []string{"4.5", "3.25", "1e400", "-0.5"} {
		fmt.Fprintf(&sb, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_bench","update":{"sessionUpdate":"tool_call","toolCallId":"c","title":"t","kind":"read","status":"pending","locations":[{"path":"/a","line":%s}]}}}`+"\n", v)
	}
	for _, v := range []string{"hgh", "lw", "medium", "urgent"} {
		fmt.Fprintf(&sb, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_bench","update":{"sessionUpdate":"plan","entries":[{"content":"x","priority":%q,"status":"pending"}]}}}`+"\n", v)
	}
	for _, v := range []string{"txt", "imag", "audio", "resource_lnk"} {
		fmt.Fprintf(&sb, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_bench","update":{"sessionUpdate":"agent_message_chunk","content":{"type":%q,"text":"x"}}}}`+"\n", v)
	}
	oracle, fast := memoEngines(t, 0)
	run := func(e *Engine) []Finding { return findingsOf(t, e, "t", []byte(sb.String())) }
	// Twice through the memo: the second pass is answered from it.
	want := run(oracle)
	for range 2 {
		if d := cmp.Diff(want, run(fast)); d != "" {
			t.Errorf("the memo changes the findings (-v6 +memo):\n%s", d)
		}
	}
	if len(want) < 8 {
		t.Fatalf("only %d findings: the lines do not fail", len(want))
	}
}

// TestMemoBounds: values that fail alike (a wrong protocol version) and
// differ in numbers and strings the validation only bounds (event_seq's
// minimum, an id's minLength) are answered from the memo whatever those
// contents, within the bounds and out of them, as v6 explains them.
func TestMemoBounds(t *testing.T) {
	var sb strings.Builder
	head := bytes.SplitAfter(synth.Lines(synth.ARCP, 4), []byte("\n"))[:4]
	for _, l := range head {
		sb.Write(bytes.Replace(l, []byte(`"arcp":"1.1"`), []byte(`"arcp":"1.0"`), 1))
	}
	n := 0
	for _, seq := range []string{"1", "2", "7", "123456789", "0", "-1", "2.5", "1e3"} {
		for _, id := range []string{"m", "msg_long_id", "", "é"} {
			fmt.Fprintf(&sb, `{"arcp":"1.0","id":%q,"type":"job.event","session_id":"sess_bench","job_id":"job_1","event_seq":%s,"payload":{"kind":"log","ts":"2026-05-13T19:31:00.000Z","body":{"level":"info","message":"line %d"}}}`+"\n", id, seq, n)
			n++
		}
	}
	oracle, fast := memoEngines(t, 1)
	run := func(e *Engine) []Finding { return findingsOf(t, e, "t", []byte(sb.String())) }
	want := run(oracle)
	for range 2 {
		if d := cmp.Diff(want, run(fast)); d != "" {
			t.Errorf("the memo changes the findings (-v6 +memo):\n%s", d)
		}
	}
	bounds := 0
	for _, f := range want {
		if f.Pointer == "/event_seq" || f.Pointer == "/id" {
			bounds++
		}
	}
	if bounds < 8 {
		t.Fatalf("only %d findings at event_seq or id: the lines do not fail their bounds", bounds)
	}
	// Two passes of n lines, every line failing: most are answered
	// from the memo, though no two of them hold the same numbers and ids.
	if hits := fast.judge.Stats().MemoHits; hits < n {
		t.Errorf("the memo answered for %d values of %d lines", hits, 2*n)
	}
}

// TestMemoSkips: a check whose rules drop findings a dialect's deviation
// explains better (Skip) is answered from the memo too, and the memo
// drops the same findings v6's explanation does: the Go SDK's stream (its
// deviations) and events of an unknown kind, with a wrong protocol
// version on every line.
func TestMemoSkips(t *testing.T) {
	var sb strings.Builder
	for _, l := range firstLines(t, filepath.Join(fixturesDir, "arcp", "dialects", "go-sdk", "20_long_stream.jsonl.gz"), 200) {
		sb.Write(bytes.Replace(l, []byte(`"arcp":"1.1"`), []byte(`"arcp":"1.0"`), 1))
		sb.WriteByte('\n')
	}
	// Events of a kind ARCP does not reserve: the rules report the kind,
	// and every schema finding in the payload is dropped.
	for i := range 20 {
		fmt.Fprintf(&sb, `{"arcp":"1.0","id":"m%d","type":"job.event","session_id":"sess_01M80FFK00RTYGXFDWEVKNPYRC","job_id":"job_01M80FFK015167F6BZ3B968Z6S","event_seq":%d,"payload":{"kind":"bogus","ts":"2026-11-22T02:11:00Z","body":{"n":%d}}}`+"\n", i, 100000+i, i)
	}
	oracle, fast := memoEngines(t, 1)
	run := func(e *Engine) []Finding { return findingsOf(t, e, "t", []byte(sb.String())) }
	want := run(oracle)
	if d := cmp.Diff(want, run(fast)); d != "" {
		t.Errorf("the memo changes the findings (-v6 +memo):\n%s", d)
	}
	deviations := 0
	for _, f := range want {
		if strings.HasPrefix(f.Rule, "deviation:") {
			deviations++
		}
	}
	if deviations == 0 || len(want) < 200 {
		t.Fatalf("%d findings, %d of them deviations: the lines do not exercise the dropped findings", len(want), deviations)
	}
	if hits := fast.judge.Stats().MemoHits; hits < 100 {
		t.Errorf("the memo answered for %d values of 200 lines", hits)
	}
}

// skipDifferentialIfShort skips, with -short, a test that compares the
// judge's strategies over every fixture and its mutations: it runs one
// check after another, so the race detector (make test-race runs -short)
// learns nothing from it that the golden tests on the worker pipeline do
// not show, at many times their cost.
func skipDifferentialIfShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the differential test over every fixture runs in make test")
	}
}
