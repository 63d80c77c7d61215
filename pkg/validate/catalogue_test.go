package validate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// checkedRows are the catalogue rows some rule of proto checks.
func checkedRows(proto string) map[string]bool {
	out := map[string]bool{}
	for _, d := range validate.RuleDocs(proto) {
		for _, id := range d.Requirements {
			out[id] = true
		}
	}
	return out
}

// TestRuleRowsExist: every row a rule says it checks is in a catalogue of
// its protocol, so findings never name a row a user cannot look up.
func TestRuleRowsExist(t *testing.T) {
	reg, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.CatalogueErr(); err != nil {
		t.Fatal(err)
	}
	for _, proto := range registry.Protocols() {
		have := map[string]bool{}
		for _, q := range reg.AllRequirements(proto) {
			have[q.ID] = true
		}
		for id := range checkedRows(proto) {
			if !have[id] {
				t.Errorf("%s: a rule cites %s, which no catalogue of %s has", proto, id, proto)
			}
		}
	}
}

// TestCatalogueExamples runs the example of every checked ACP row through
// the engine, read as the row's version: the row's requirement must be
// reported on the example's last line, which is the one that breaks it, and
// blamed on the side that sent it.
func TestCatalogueExamples(t *testing.T) {
	reg, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	e, err := validate.New(validate.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, d := range validate.RuleDocs("acp") {
		rows[d.Name] = append(rows[d.Name], d.Requirements...)
	}
	// A row of the unstable additions is read as its version, as
	// --dialect names it.
	engines := map[string]*validate.Engine{"": e}
	for _, v := range []string{"v1-unstable", "v2-unstable"} {
		if engines[v], err = validate.New(validate.Options{Workers: 1, Dialect: v}); err != nil {
			t.Fatal(err)
		}
	}
	tried := 0
	docs := validate.RuleDocs("acp")
	for _, q := range reg.AllRequirements("acp") {
		if !slices.ContainsFunc(docs, func(d protocol.RuleDoc) bool { return d.Checks(q.ID, q.Version) }) {
			continue
		}
		if len(q.Example) == 0 || q.Observe == registry.ObserveNone || !slices.Contains(exampleVersions, q.Version) {
			continue
		}
		if skipExample(q) {
			continue
		}
		tried++
		var trace, dirs bytes.Buffer
		for _, ex := range q.Example {
			trace.Write(compact(t, ex.Message))
			trace.WriteByte('\n')
			dir := "c2a"
			if ex.From == "agent" {
				dir = "a2c"
			}
			dirs.WriteString(dir + "\n")
		}
		last := len(q.Example)
		from := q.Example[last-1].From
		var got []validate.Finding
		ev := engines[q.Version]
		if ev == nil {
			ev = e
		}
		_, err := ev.Check(context.Background(), q.Version+"/"+q.ID, bytes.NewReader(trace.Bytes()),
			validate.FileOptions{Directions: bytes.NewReader(dirs.Bytes())}, func(f validate.Finding) { got = append(got, f) })
		if err != nil {
			t.Errorf("%s (%s): %v", q.ID, q.Version, err)
			continue
		}
		// The row itself, or a finding of a rule that checks it (a
		// general row whose breach a more precise row names).
		if !slices.ContainsFunc(got, func(f validate.Finding) bool {
			return f.Line == last && f.Side == from && (f.Requirement == q.ID || slices.Contains(rows[f.Rule], q.ID))
		}) {
			var lines []string
			for _, f := range got {
				lines = append(lines, f.String())
			}
			t.Errorf("%s (%s): want it reported on line %d, blaming the %s; got:\n\t%s\ntrace:\n%s", q.ID, q.Version, last, from, strings.Join(lines, "\n\t"), trace.String())
		}
	}
	if tried < 10 {
		t.Errorf("only %d examples tried", tried)
	}
}

// exampleVersions are the ACP versions whose method tables carry the
// effects the behaviour checks read.
var exampleVersions = []string{"v1", "v1-unstable", "v2", "v2-unstable"}

// skipExample: rows whose examples cannot stand as a trace on their own.
func skipExample(q *registry.Requirement) bool {
	switch q.ID {
	case "acp.transport.utf8", "acp.transport.agent-stdout-only-acp", "acp.transport.client-stdin-only-acp", "acp.transport.no-embedded-newline":
		// Invalid bytes and log lines cannot be written as the JSON
		// values an example holds; the fixtures of the json rule have
		// them.
		return true
	case "acp.init.omitted-unsupported":
		// v2's example calls session/new without the agent's session
		// capability, which v2's method table does not gate; its gated
		// methods are checked (session/delete).
		return q.Version == "v2"
	}
	return false
}

func compact(t *testing.T, raw []byte) []byte {
	var b bytes.Buffer
	if err := jsonCompact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jsonCompact(dst *bytes.Buffer, src []byte) error { return json.Compact(dst, src) }

// TestValidTracesExerciseCheckedRows: every row a rule checks in ACP v1
// and v2 is exercised, and held, by at least one valid trace: the official
// SDK's traffic, the hand-written valid fixtures, and the conformance kit's
// conforming agents as recorded through the tap.
func TestValidTracesExerciseCheckedRows(t *testing.T) {
	e, err := validate.New(validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, dir := range []string{"../../fixtures/acp/valid", "../../fixtures/acp/sdk/v1", "../../fixtures/acp/sdk/v1-unstable", "../../fixtures/acp/tck/v1/valid", "../../fixtures/acp/v2/valid", "../../fixtures/acp/tck/v2/valid"} {
		fs, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		files = append(files, fs...)
	}
	if len(files) < 20 {
		t.Fatalf("only %d valid traces", len(files))
	}
	exercised := map[string]bool{}
	checked := map[string]bool{}
	for _, f := range files {
		fo := validate.FileOptions{}
		if dir, err := os.Open(strings.TrimSuffix(f, ".jsonl") + ".dir"); err == nil {
			defer dir.Close()
			fo.Directions = dir
		}
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := e.Check(context.Background(), f, in, fo, func(fd validate.Finding) {
			if fd.Severity == validate.Error {
				t.Errorf("%s", fd)
			}
		})
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range sum.Detected {
			if d.Coverage == nil {
				t.Fatalf("%s: no coverage", f)
			}
			for _, id := range d.Coverage.Exercised {
				exercised[id] = true
			}
			for _, l := range [][]string{d.Coverage.Exercised, d.Coverage.Unexercised, d.Coverage.Violated} {
				for _, id := range l {
					checked[id] = true
				}
			}
		}
	}
	var missing []string
	for id := range checked {
		if !exercised[id] && !onlyInBreach[id] {
			missing = append(missing, id)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 || len(checked) < 40 {
		t.Errorf("%d checked rows; no valid trace exercises %v", len(checked), missing)
	}
}

// onlyInBreach are the rows whose situation no valid trace reaches: an
// empty batch and an invalid entry in a batch are breaches of the sender,
// and work still running when a trace ends is the finding of its own row.
var onlyInBreach = map[string]bool{
	"acp.jsonrpc.batch-empty-single-answer":  true,
	"acp.jsonrpc.batch-invalid-entry-answer": true,
	"acp.turn.idle-when-ready":               true,
}

// TestLiveEqualsOffline: a trace checked live, a line at a time as the tap
// sees it (the first batch holding only the initialize request), gets the
// findings its recording gets, even when initialize's answer changes the
// version the trace is read as.
func TestLiveEqualsOffline(t *testing.T) {
	e, err := validate.New(validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	traces := map[string]string{
		// The client asks for a version that does not exist, the agent
		// answers 2 with a body of v1's shape.
		"downgrade": strings.Join([]string{
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":65535,"clientCapabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2,"agentCapabilities":{},"authMethods":[]}}`,
			`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
		}, "\n") + "\n",
		// A v2 client, a v1 agent.
		"v1-agent": strings.Join([]string{
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"capabilities":{},"info":{"name":"c","version":"1"}}}`,
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"ag","version":"1"},"agentCapabilities":{},"authMethods":[]}}`,
			`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
		}, "\n") + "\n",
	}
	for name, tr := range traces {
		var offline []string
		_, err := e.Check(context.Background(), name, strings.NewReader(tr), validate.FileOptions{}, func(f validate.Finding) { offline = append(offline, f.String()) })
		if err != nil {
			t.Fatal(err)
		}
		pr, pw := io.Pipe()
		go func() {
			first, rest, _ := strings.Cut(tr, "\n")
			pw.Write([]byte(first + "\n"))
			time.Sleep(60 * time.Millisecond) // past the idle time: the first batch is the request alone
			pw.Write([]byte(rest))
			pw.Close()
		}()
		var live []string
		_, err = e.Check(context.Background(), name, pr, validate.FileOptions{Idle: 10 * time.Millisecond}, func(f validate.Finding) { live = append(live, f.String()) })
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(live, offline) {
			t.Errorf("%s: live\n\t%s\noffline\n\t%s", name, strings.Join(live, "\n\t"), strings.Join(offline, "\n\t"))
		}
		if name == "downgrade" && len(offline) == 0 {
			t.Errorf("%s: the answer of v1's shape for version 2 gets no finding", name)
		}
	}
}
