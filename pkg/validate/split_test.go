package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"sort"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/trace"
	"github.com/agentproto/agentproto/pkg/validate/typed"
)

// TestSplitChecksAgree pins the promise of protocol.Check.Parts: a message
// explained part by part (envelope, then payload) gets exactly the findings
// of the same message validated whole. It runs every ARCP fixture and, for
// the first lines of each, every one-member mutation (the member dropped,
// or given a value of another type), with and without the fast path.
func TestSplitChecksAgree(t *testing.T) {
	for _, fast := range []bool{false, true} {
		opts := Options{}
		if fast {
			opts.Fast = typed.Checker{}
		}
		split, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		whole.whole = true
		files, mutants, findings := 0, 0, 0
		for _, p := range traceFiles(t, fixturesDir) {
			files++
			a := checkFile(t, whole, p)
			b := checkFile(t, split, p)
			if d := cmp.Diff(a, b); d != "" {
				t.Errorf("%s (fast %v): split checks change the findings (-whole +split):\n%s", p, fast, d)
			}
			var buf bytes.Buffer
			for _, l := range firstLines(t, p, 10) {
				for _, m := range mutations(l) {
					buf.Write(m)
					buf.WriteByte('\n')
					mutants++
				}
			}
			if buf.Len() == 0 {
				continue
			}
			run := func(e *Engine) []Finding {
				var out []Finding
				if _, err := e.Check(context.Background(), p, bytes.NewReader(buf.Bytes()), FileOptions{}, func(f Finding) { out = append(out, f) }); err != nil {
					t.Fatal(err)
				}
				return out
			}
			a, b = run(whole), run(split)
			findings += len(a)
			if d := cmp.Diff(a, b); d != "" {
				t.Errorf("%s mutated (fast %v): split checks change the findings (-whole +split):\n%s", p, fast, d)
			}
		}
		if mutants < 1000 {
			t.Fatalf("only %d mutated messages from %d files: the fixtures were not found", mutants, files)
		}
		t.Logf("fast %v: %d files, %d mutated messages, %d findings, all alike", fast, files, mutants, findings)
	}
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
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
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
// known" answer (KnownChecker) lets the engine skip: the near-miss walk.
// Every fixture's first lines, with each member renamed to a near miss of
// itself, get the same near-miss warnings from the fast path as from the
// general validator, which always walks.
func TestKnownMembersHideNoNearMiss(t *testing.T) {
	general := testEngine(t)
	fast, err := New(Options{Fast: typed.Checker{}})
	if err != nil {
		t.Fatal(err)
	}
	misses := 0
	for _, p := range traceFiles(t, fixturesDir) {
		var buf bytes.Buffer
		for _, l := range firstLines(t, p, 10) {
			for _, m := range renames(l) {
				buf.Write(m)
				buf.WriteByte('\n')
			}
		}
		if buf.Len() == 0 {
			continue
		}
		run := func(e *Engine) []Finding {
			var out []Finding
			if _, err := e.Check(context.Background(), p, bytes.NewReader(buf.Bytes()), FileOptions{}, func(f Finding) {
				if f.Rule == RuleNearMiss {
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
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
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
