package arcp_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/agentproto/agentproto/internal/expect"
	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/typed"
	"github.com/agentproto/agentproto/schema/registry"
)

// fixtures is the repository's ARCP fixture folder, relative to this package.
const fixtures = "../../../../fixtures/arcp"

var engine = sync.OnceValues(func() (*validate.Engine, error) {
	return validate.New(validate.Options{Fast: typed.Checker{}})
})

func testEngine(t testing.TB) *validate.Engine {
	t.Helper()
	e, err := engine()
	if err != nil {
		t.Fatalf("validate.New: %v", err)
	}
	return e
}

// connection is one connection's lines of a multi-connection file, with
// their directions: what a capture made on that connection holds.
type connection struct {
	name       string
	lines, dir []byte
}

// readLines reads a trace (gzip or not) into lines without their newlines.
func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

// split cuts a recorded file into its connections by the .conn sidecar,
// keeping the .dir sidecar's direction of every line.
func split(t *testing.T, path string) []connection {
	t.Helper()
	stem := strings.TrimSuffix(strings.TrimSuffix(path, ".gz"), ".jsonl")
	lines := readLines(t, path)
	conns := readLines(t, stem+".conn")
	dirs := readLines(t, stem+".dir")
	if len(conns) != len(lines) || len(dirs) != len(lines) {
		t.Fatalf("%s: %d lines, %d connection and %d direction sidecar lines", path, len(lines), len(conns), len(dirs))
	}
	by := map[string]*connection{}
	var order []string
	for i, l := range lines {
		c := string(conns[i])
		if by[c] == nil {
			by[c] = &connection{name: fmt.Sprintf("%s#conn%s", filepath.Base(stem), c)}
			order = append(order, c)
		}
		by[c].lines = append(append(by[c].lines, l...), '\n')
		by[c].dir = append(append(by[c].dir, dirs[i]...), '\n')
	}
	out := make([]connection, 0, len(order))
	for _, c := range order {
		out = append(out, *by[c])
	}
	return out
}

func check(t *testing.T, e *validate.Engine, name string, trace, dir []byte, dialect string) ([]validate.Finding, validate.Summary) {
	t.Helper()
	var got []validate.Finding
	fo := validate.FileOptions{}
	if dir != nil {
		fo.Directions = bytes.NewReader(dir)
	}
	ee := e
	if dialect != "" {
		var err error
		if ee, err = validate.New(validate.Options{Fast: typed.Checker{}, Dialect: dialect}); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := ee.Check(context.Background(), name, bytes.NewReader(trace), fo, func(f validate.Finding) { got = append(got, f) })
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return got, sum
}

// recorded lists the recorded and the written SDK traces by SDK folder.
func recorded(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, dir := range []string{"recordings", "dialects"} {
		for _, sdk := range []string{"go-sdk", "ts-sdk"} {
			for _, pat := range []string{"*.jsonl", "*.jsonl.gz"} {
				m, err := filepath.Glob(filepath.Join(fixtures, dir, sdk, pat))
				if err != nil {
					t.Fatal(err)
				}
				out[sdk] = append(out[sdk], m...)
			}
		}
	}
	if len(out["go-sdk"]) == 0 || len(out["ts-sdk"]) == 0 {
		t.Fatalf("no recorded traces under %s", fixtures)
	}
	return out
}

// wantDialect is the dialect detection must name for each SDK folder.
var wantDialect = map[string]string{"go-sdk": "go-sdk", "ts-sdk": "typescript-sdk"}

// sdkName is how deviation warnings name each SDK.
var sdkName = map[string]string{"go-sdk": "Go SDK", "ts-sdk": "TypeScript SDK"}

// TestRecordedTrafficPerConnection runs every recording and every trace
// written from the recorded facts, split per connection as a capture on one
// connection holds it, with no flags: no error, the SDK named, and every
// warning a deviation of that SDK (or a vendor message type).
func TestRecordedTrafficPerConnection(t *testing.T) {
	e := testEngine(t)
	n := 0
	for sdk, files := range recorded(t) {
		for _, f := range files {
			for _, c := range split(t, f) {
				n++
				t.Run(sdk+"/"+c.name, func(t *testing.T) {
					got, sum := check(t, e, c.name, c.lines, c.dir, "")
					for _, fd := range got {
						switch {
						case fd.Severity == validate.Error:
							t.Errorf("error on real traffic: %s", fd)
						case strings.HasPrefix(fd.Rule, validate.RuleDeviationPrefix):
							if !strings.Contains(fd.Message, sdkName[sdk]) {
								t.Errorf("the deviation does not name the %s: %s", sdkName[sdk], fd)
							}
						case fd.Rule == validate.RuleUnknownType:
						default:
							t.Errorf("a warning that is not a deviation: %s", fd)
						}
					}
					if len(sum.Detected) != 1 || sum.Detected[0].Dialect != wantDialect[sdk] {
						t.Fatalf("detected %+v, want dialect %s", sum.Detected, wantDialect[sdk])
					}
					if note := sum.Detected[0].Note; !strings.HasPrefix(note, wantDialect[sdk]+": ") {
						t.Errorf("the note %q does not give the evidence for %s", note, wantDialect[sdk])
					}
				})
			}
		}
	}
	t.Logf("%d connections", n)
}

// TestRecordedTrafficWhole runs the multi-connection files unsplit, as a
// capture of several connections interleaved would hold them: still no
// error (resumes and subscriptions are followed across connections).
func TestRecordedTrafficWhole(t *testing.T) {
	e := testEngine(t)
	for sdk, files := range recorded(t) {
		for _, f := range files {
			stem := strings.TrimSuffix(strings.TrimSuffix(f, ".gz"), ".jsonl")
			var all []byte
			for _, l := range readLines(t, f) {
				all = append(append(all, l...), '\n')
			}
			dir, err := os.ReadFile(stem + ".dir")
			if err != nil {
				t.Fatal(err)
			}
			got, sum := check(t, e, filepath.Base(f), all, dir, "")
			for _, fd := range got {
				if fd.Severity == validate.Error {
					t.Errorf("%s: %s", sdk, fd)
				}
			}
			if sum.Detected[0].Dialect != wantDialect[sdk] {
				t.Errorf("%s: detected %s, want %s", f, sum.Detected[0].Dialect, wantDialect[sdk])
			}
		}
	}
}

// TestDetectedNamesAreAccepted: every name detection can print is one
// --dialect accepts, and forcing it reads the trace the same way.
func TestDetectedNamesAreAccepted(t *testing.T) {
	reg, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	accepted := map[string]bool{}
	for _, d := range reg.DialectNames("arcp") {
		accepted[d] = true
	}
	canon := reg.Default("arcp").ARCP()
	for _, d := range canon.Deviations {
		for _, s := range d.SDKs() {
			if !accepted[s] {
				t.Errorf("deviation %s names %s, which --dialect refuses", d.ID, s)
			}
		}
	}
	for _, s := range canon.Signals {
		for _, n := range s.SDKs() {
			if !accepted[n] {
				t.Errorf("signal %s names %s, which --dialect refuses", s.ID, n)
			}
		}
	}
	for _, want := range []string{"canonical", "go-sdk", "typescript-sdk", "rust-sdk"} {
		if !accepted[want] {
			t.Errorf("--dialect refuses %s", want)
		}
	}
	e := testEngine(t)
	c := split(t, filepath.Join(fixtures, "recordings", "ts-sdk", "03_job_result_inline.jsonl"))[0]
	_, sum := check(t, e, c.name, c.lines, c.dir, "typescript-sdk")
	if sum.Errors != 0 || sum.Detected[0].Dialect != "typescript-sdk" {
		t.Errorf("forced typescript-sdk: %d errors, dialect %s", sum.Errors, sum.Detected[0].Dialect)
	}
}

func readExpect(t *testing.T, path string) []expect.Key {
	t.Helper()
	keys, err := expect.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestInvalidFixtures: every ARCP trace with an .expect file gives exactly
// the findings it lists (line, rule, pointer), among them the defects the
// sequencing rules catch.
func TestInvalidFixtures(t *testing.T) {
	e := testEngine(t)
	var files []string
	for _, g := range []string{"v1.1/invalid/*.jsonl", "v1.1/dialect/*.jsonl", "rfc0001/invalid/*.jsonl"} {
		m, err := filepath.Glob(filepath.Join(fixtures, g))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	for _, f := range files {
		t.Run(strings.TrimPrefix(f, fixtures+"/"), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want := expect.Strings(readExpect(t, strings.TrimSuffix(f, ".jsonl")+".expect"))
			// A direction sidecar, where the trace has one: messages
			// either peer sends (ping, pong) need it to tell who sent them.
			dir, err := os.ReadFile(strings.TrimSuffix(f, ".jsonl") + ".dir")
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			got, _ := check(t, e, filepath.Base(f), b, dir, "")
			if g := expect.Findings(got); strings.Join(g, "\n") != strings.Join(want, "\n") {
				t.Errorf("findings\n%s\nwant\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestTablesRulesAreChecked: every rule the v1.1 table marks checked fires
// in some invalid fixture, so no checked rule goes untested.
func TestTablesRulesAreChecked(t *testing.T) {
	reg, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	m, _ := filepath.Glob(filepath.Join(fixtures, "v1.1/invalid/*.expect"))
	for _, f := range m {
		for _, e := range readExpect(t, f) {
			seen[e.Rule] = true
		}
	}
	for _, r := range reg.Default("arcp").ARCP().Rules {
		if r.Check != "" && !seen[r.ID] {
			t.Errorf("rule %s (§%s) is checked but no v1.1 invalid fixture shows it", r.ID, r.Section)
		}
	}
}

// TestRecordedTrafficTable prints, per scenario, SDK and connection, the
// lines read, the dialect named and the warnings by deviation: the table of
// what the recorded traffic shows (go test -run TestRecordedTrafficTable -v).
func TestRecordedTrafficTable(t *testing.T) {
	e := testEngine(t)
	var sb strings.Builder
	sb.WriteString("\n| scenario | SDK | connection | lines | dialect | errors | warnings by deviation |\n|---|---|---|---|---|---|---|\n")
	rows := 0
	for _, sdk := range []string{"go-sdk", "ts-sdk"} {
		files := recorded(t)[sdk]
		sort.Slice(files, func(i, j int) bool { return filepath.Base(files[i]) < filepath.Base(files[j]) })
		for _, f := range files {
			for _, c := range split(t, f) {
				_, sum := check(t, e, c.name, c.lines, c.dir, "")
				var devs []string
				for _, r := range validate.SortedKeys(sum.ByRule) {
					if sum.ByRule[r] > 0 && r != validate.RuleSchema {
						devs = append(devs, fmt.Sprintf("%s ×%d", strings.TrimPrefix(r, validate.RuleDeviationPrefix), sum.ByRule[r]))
					}
				}
				scenario, conn, _ := strings.Cut(c.name, "#")
				fmt.Fprintf(&sb, "| %s | %s | %s | %d | %s | %d | %s |\n", scenario, sdk, conn, sum.Lines, sum.Detected[0].Dialect, sum.Errors, strings.Join(devs, ", "))
				rows++
				if sum.Errors != 0 {
					t.Errorf("%s: %d errors", c.name, sum.Errors)
				}
			}
		}
	}
	t.Log(sb.String())
	if rows == 0 {
		t.Fatal("no recorded traffic")
	}
}
