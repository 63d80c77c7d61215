package validate

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentproto/agentproto/internal/expect"
	"github.com/agentproto/agentproto/pkg/validate/judge"
	"github.com/agentproto/agentproto/pkg/validate/typed"
)

// fixturesDir is the repository's fixtures folder, relative to this package.
const fixturesDir = "../../fixtures"

var testEngine = func() func(t testing.TB) *Engine {
	var e *Engine
	var err error
	done := false
	return func(t testing.TB) *Engine {
		t.Helper()
		if !done {
			e, err = New(Options{})
			done = true
		}
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		return e
	}
}()

// traceFiles lists the trace files below dir: everything but the .expect,
// .dir and .conn sidecars and README files.
func traceFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		switch filepath.Ext(p) {
		case ".expect", ".dir", ".conn", ".md":
			return nil
		}
		out = append(out, p)
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// sidecar returns the file beside trace with its last extension replaced.
func sidecar(trace, ext string) string {
	return strings.TrimSuffix(trace, filepath.Ext(trace)) + ext
}

func checkFile(t *testing.T, e *Engine, path string) []Finding {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var fo FileOptions
	if d, err := os.Open(sidecar(path, ".dir")); err == nil {
		defer d.Close()
		fo.Directions = d
	}
	var got []Finding
	if _, err := e.Check(context.Background(), path, f, fo, func(fd Finding) { got = append(got, fd) }); err != nil {
		t.Fatalf("Check: %v", err)
	}
	return got
}

// key is what an .expect line pins down: LINE RULE POINTER ("-" for "").
type key = expect.Key

func readExpect(t *testing.T, path string) []key {
	t.Helper()
	keys, err := expect.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return uniqKeys(keys)
}

func uniqKeys(ks []key) []key {
	if len(ks) == 0 {
		return nil
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].String() < ks[j].String() })
	out := ks[:0]
	for i, k := range ks {
		if i == 0 || k != ks[i-1] {
			out = append(out, k)
		}
	}
	return out
}

func isDialectFixture(path string) bool {
	rel, err := filepath.Rel(fixturesDir, path)
	if err != nil {
		return false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	return len(parts) >= 3 && parts[0] == "arcp" && parts[2] == "dialect" || len(parts) >= 2 && parts[0] == "arcp" && parts[1] == "dialect"
}

// TestGoldenValid checks that every trace in a valid/ folder (or a dialect/
// folder of ARCP) gives no finding but the dialect deviations.
func TestGoldenValid(t *testing.T) {
	e := testEngine(t)
	n := 0
	for _, p := range traceFiles(t, fixturesDir) {
		rel := filepath.ToSlash(p)
		if !strings.Contains(rel, "/valid/") && !isDialectFixture(p) {
			continue
		}
		if _, err := os.Stat(sidecar(p, ".expect")); err == nil {
			continue // a dialect trace with pinned findings is checked below
		}
		n++
		t.Run(strings.TrimPrefix(rel, fixturesDir+"/"), func(t *testing.T) {
			for _, f := range checkFile(t, e, p) {
				if isDialectFixture(p) && strings.HasPrefix(f.Rule, RuleDeviationPrefix) {
					continue
				}
				t.Errorf("%s", f)
			}
		})
	}
	t.Logf("%d valid fixtures", n)
}

// TestGoldenInvalid checks that every trace with an .expect file gives
// exactly the findings it lists (line, rule and pointer; messages are free).
func TestGoldenInvalid(t *testing.T) {
	e := testEngine(t)
	n := 0
	for _, p := range traceFiles(t, fixturesDir) {
		exp := sidecar(p, ".expect")
		if _, err := os.Stat(exp); err != nil {
			continue
		}
		n++
		rel := strings.TrimPrefix(filepath.ToSlash(p), fixturesDir+"/")
		t.Run(rel, func(t *testing.T) {
			want := readExpect(t, exp)
			findings := checkFile(t, e, p)
			var got []key
			for _, f := range findings {
				got = append(got, expect.OfLike(f, want))
			}
			got = uniqKeys(got)
			want = uniqKeys(want)
			if d := cmp.Diff(want, got); d != "" {
				var sb strings.Builder
				for _, f := range findings {
					sb.WriteString("\n\t" + f.String())
				}
				t.Errorf("findings differ from %s (-want +got):\n%s\nall findings:%s", exp, d, sb.String())
			}
		})
	}
	t.Logf("%d invalid fixtures", n)
}

// TestGoldenFastPathAgrees runs every fixture through the engine twice, with
// and without the generated-types fast path, and requires the same findings,
// message for message: the fast path may only skip work, never change a
// verdict.
func TestGoldenFastPathAgrees(t *testing.T) {
	general, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	general.setJudge(judge.Options{Oracle: true})
	fast, err := New(Options{Fast: typed.Checker{}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range traceFiles(t, fixturesDir) {
		n++
		a := checkFile(t, general, p)
		b := checkFile(t, fast, p)
		if d := cmp.Diff(a, b); d != "" {
			t.Errorf("%s: the fast path changes the findings (-general +fast):\n%s", p, d)
		}
	}
	t.Logf("%d fixtures agree", n)
}
