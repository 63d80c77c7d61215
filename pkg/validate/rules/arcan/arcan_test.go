package arcan_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/expect"
	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/rules/arcan"
	"github.com/agentproto/agentproto/pkg/validate/typed"
	"github.com/agentproto/agentproto/schema/registry"
)

const fixtures = "../../../../fixtures/arcan"

// engines: the general path alone, and with the generated types' fast path.
func engines(t *testing.T) map[string]*validate.Engine {
	t.Helper()
	general, err := validate.New(validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fast, err := validate.New(validate.Options{Fast: typed.Checker{}})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*validate.Engine{"general": general, "fast": fast}
}

func check(t *testing.T, e *validate.Engine, name string, data []byte) []validate.Finding {
	t.Helper()
	var got []validate.Finding
	if _, err := e.Check(context.Background(), name, bytes.NewReader(data), validate.FileOptions{}, func(f validate.Finding) { got = append(got, f) }); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return got
}

type key = expect.Key

func readExpect(t *testing.T, path string) []key {
	t.Helper()
	keys, err := expect.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

func sortedKeys(fs []validate.Finding) []string { return expect.Findings(fs) }

// TestAcceptedFixtures: what serde accepts but Arcan never writes is valid,
// with exactly the emit-shape warnings of the .expect files, each naming
// the member, on both paths.
func TestAcceptedFixtures(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "accepted", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no accepted fixtures")
	}
	for name, e := range engines(t) {
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := check(t, e, f, data)
			var want []string
			for _, k := range readExpect(t, strings.TrimSuffix(f, ".jsonl")+".expect") {
				want = append(want, k.String())
			}
			sort.Strings(want)
			if g := sortedKeys(got); strings.Join(g, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s %s: findings\n%s\nwant\n%s", name, filepath.Base(f), strings.Join(g, "\n"), strings.Join(want, "\n"))
			}
			for _, fd := range got {
				if fd.Severity != validate.Warning || fd.Rule != arcan.RuleEmitShape {
					t.Errorf("%s %s: %s: want only emit-shape warnings", name, filepath.Base(f), fd)
				}
				if !strings.Contains(fd.Message, "Arcan") || !strings.Contains(fd.Message, `"`) {
					t.Errorf("%s %s: %s: the message names neither Arcan nor the member", name, filepath.Base(f), fd)
				}
			}
		}
	}
}

// TestIntegerLiterals: 1.0, 1e0 and -0 in an integer member are errors at
// the member, saying why, on both paths.
func TestIntegerLiterals(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "invalid", "integer-literals*.jsonl"))
	if len(files) != 2 {
		t.Fatalf("integer-literal fixtures: %v", files)
	}
	for name, e := range engines(t) {
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(data), "\n")
			want := readExpect(t, strings.TrimSuffix(f, ".jsonl")+".expect")
			got := check(t, e, f, data)
			byLine := map[int][]validate.Finding{}
			for _, fd := range got {
				byLine[fd.Line] = append(byLine[fd.Line], fd)
			}
			for _, k := range want {
				fs := byLine[k.Line]
				if len(fs) != 1 || fs[0].Rule != validate.RuleSchema || fs[0].Severity != validate.Error || fs[0].Pointer != k.Pointer {
					t.Errorf("%s %s:%d: findings %v, want one schema error at %s", name, filepath.Base(f), k.Line, fs, k.Pointer)
					continue
				}
				if !strings.Contains(fs[0].Message, "serde_json") || !strings.Contains(fs[0].Message, "float") {
					t.Errorf("%s %s:%d: %q does not say that serde reads a float", name, filepath.Base(f), k.Line, fs[0].Message)
				}
				delete(byLine, k.Line)
			}
			for l, fs := range byLine {
				t.Errorf("%s %s:%d: unexpected findings %v (%s)", name, filepath.Base(f), l, fs, lines[l-1])
			}
		}
	}
}

// TestFixtureFindings: every Arcan fixture gives exactly the findings its
// .expect file lists (line, rule, pointer), and one without an .expect file
// (what Arcan writes, in valid/) gives none, on both paths.
func TestFixtureFindings(t *testing.T) {
	var files []string
	for _, dir := range []string{"valid", "accepted", "invalid"} {
		for _, pat := range []string{"*.jsonl", "*.sse"} {
			m, _ := filepath.Glob(filepath.Join(fixtures, dir, pat))
			files = append(files, m...)
		}
	}
	if len(files) < 30 {
		t.Fatalf("only %d fixtures", len(files))
	}
	for name, e := range engines(t) {
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			exp := strings.TrimSuffix(f, filepath.Ext(f)) + ".expect"
			if _, err := os.Stat(exp); err == nil {
				for _, k := range readExpect(t, exp) {
					want = append(want, k.String())
				}
			} else if !strings.Contains(f, string(filepath.Separator)+"valid"+string(filepath.Separator)) {
				t.Errorf("%s has no .expect file", f)
			}
			sort.Strings(want)
			got := sortedKeys(check(t, e, f, data))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s %s: findings\n%s\nwant\n%s", name, f, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}

// TestEmitShapeFromSchemas derives its cases from the schemas, not from a
// list in Go: for every line of the valid fixtures, each member the
// schemas' x-always-emitted names is taken out of its object, and each
// member x-omitted-when-none names that the line has is set to null. Each
// change must give exactly one emit-shape warning, at the object (or the
// member), naming the member, and no error: Arcan's reader accepts it.
func TestEmitShapeFromSchemas(t *testing.T) {
	reg, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	v := reg.Default("arcan")
	e := engines(t)["general"]
	files, _ := filepath.Glob(filepath.Join(fixtures, "valid", "*.jsonl"))
	dropped, nulled := map[string]bool{}, map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, ".store.jsonl") {
			continue
		}
		for _, line := range readLines(t, f) {
			ev := decode(t, line)
			tag, _ := ev["part_type"].(string)
			et := v.Arcan().Event(tag)
			if et == nil {
				t.Fatalf("%s: unknown part_type %q", f, tag)
			}
			walkShape(et.Shape, ev, "", func(obj map[string]any, ptr string, s *registry.EmitShape) {
				for _, a := range s.Always {
					val, ok := obj[a.Name]
					if !ok {
						continue
					}
					delete(obj, a.Name)
					expectOne(t, e, ev, ptr, a.Name, "missing")
					obj[a.Name] = val
					dropped[tag+ptr+"/"+a.Name] = true
				}
				for _, name := range s.Omitted {
					val, ok := obj[name]
					if !ok || val == nil {
						continue
					}
					obj[name] = nil
					expectOne(t, e, ev, ptr+"/"+name, name, "null")
					obj[name] = val
					nulled[tag+ptr+"/"+name] = true
				}
			})
		}
	}
	// The fixtures reach the members that matter: final_answer, reason,
	// the tool values and patches, the usage counters, a null usage.
	if len(dropped) < 8 || len(nulled) < 2 {
		t.Errorf("only %d members dropped and %d nulled: %v %v", len(dropped), len(nulled), dropped, nulled)
	}
}

func walkShape(s *registry.EmitShape, v any, ptr string, fn func(map[string]any, string, *registry.EmitShape)) {
	if s == nil {
		return
	}
	if s.Items != nil {
		if arr, ok := v.([]any); ok {
			for i, e := range arr {
				walkShape(s.Items, e, ptr+"/"+strconv.Itoa(i), fn)
			}
		}
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	fn(obj, ptr, s)
	for _, c := range s.Members {
		if cv, ok := obj[c.Name]; ok {
			walkShape(c.Shape, cv, ptr+"/"+c.Name, fn)
		}
	}
}

func expectOne(t *testing.T, e *validate.Engine, ev map[string]any, ptr, member, what string) {
	t.Helper()
	line, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	got := check(t, e, "changed.jsonl", append(line, '\n'))
	var shape []validate.Finding
	for _, fd := range got {
		switch {
		case fd.Rule == arcan.RuleEmitShape && fd.Requirement == "arcan.shape.tag-first":
			// json.Marshal sorts the members, so the tag is seldom first.
		case fd.Rule == arcan.RuleEmitShape:
			shape = append(shape, fd)
		case fd.Severity == validate.Error && fd.Rule == validate.RuleSchema:
			t.Errorf("%s %s: %s, an error for what Arcan's reader accepts: %s", member, what, fd, line)
		}
	}
	if len(shape) != 1 || shape[0].Pointer != ptr || shape[0].Severity != validate.Warning ||
		!strings.Contains(shape[0].Message, strconv.Quote(member)) || !strings.Contains(shape[0].Message, what) {
		t.Errorf("%s %s: emit-shape findings %v, want one warning at %q naming it: %s", member, what, shape, ptr, line)
	}
}

func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			out = append(out, bytes.Clone(sc.Bytes()))
		}
	}
	return out
}

func decode(t *testing.T, line []byte) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSerdeDepth: serde_json reads 127 levels of arrays and objects and
// rejects the 128th ("recursion limit exceeded"), counting the event
// itself, and one more level in a store record.
func TestSerdeDepth(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	event := func(n int) string {
		return `{"part_type":"tool_call_requested","run_id":"r","session_id":"s","iteration":1,"call":{"call_id":"c","tool_name":"t","input":` + nest(n) + `}}`
	}
	record := func(n int) string {
		return `{"id":"i","session_id":"s","parent_id":null,"timestamp":"2026-04-14T09:30:00Z","event":` + event(n) + `}`
	}
	// The run up to the deep tool call, so that only the depth is
	// wrong with it.
	lead := []string{
		`{"part_type":"run_started","run_id":"r","session_id":"s","provider":"p","max_iterations":2}`,
		`{"part_type":"iteration_started","run_id":"r","session_id":"s","iteration":1}`,
		`{"part_type":"model_output","run_id":"r","session_id":"s","iteration":1,"stop_reason":"tool_use","directive_count":1}`,
	}
	start := strings.Join(lead, "\n")
	var records []string
	for i, ev := range lead {
		records = append(records, fmt.Sprintf(`{"id":"h%d","session_id":"s","parent_id":null,"timestamp":"2026-04-14T09:30:00Z","event":%s}`, i, ev))
	}
	storeStart := strings.Join(records, "\n")
	for name, e := range engines(t) {
		for _, c := range []struct {
			first, line string
			want        string // pointer of the json error, or "none"
		}{
			{start, event(125), "none"},
			{start, event(126), "/call/input" + strings.Repeat("/0", 125)},
			{storeStart, record(124), "none"},
			{storeStart, record(125), "/event/call/input" + strings.Repeat("/0", 124)},
		} {
			got := check(t, e, "deep.jsonl", []byte(c.first+"\n"+c.line+"\n"))
			var ptrs []string
			for _, f := range got {
				if f.Line != len(lead)+1 || f.Rule != validate.RuleJSON || f.Severity != validate.Error {
					t.Errorf("%s: unexpected %s", name, f)
					continue
				}
				ptrs = append(ptrs, f.Pointer)
			}
			switch {
			case c.want == "none" && len(ptrs) > 0:
				t.Errorf("%s: %d levels: findings at %v, want none", name, strings.Count(c.line, "["), ptrs)
			case c.want != "none" && (len(ptrs) != 1 || ptrs[0] != c.want):
				t.Errorf("%s: %d levels: findings at %v, want one at %s", name, strings.Count(c.line, "["), ptrs, c.want)
			}
		}
	}
}

// TestSortedKeysAsRead: the keys of a free-form value are compared as
// Arcan's sorted map holds them, decoded: `a"b` sorts before `a#`
// although its escaped form does not.
func TestSortedKeysAsRead(t *testing.T) {
	lead := `{"part_type":"run_started","run_id":"r","session_id":"s","provider":"p","max_iterations":2}
{"part_type":"iteration_started","run_id":"r","session_id":"s","iteration":1}
{"part_type":"model_output","run_id":"r","session_id":"s","iteration":1,"stop_reason":"tool_use","directive_count":1}
`
	call := func(input string) string {
		return lead + `{"part_type":"tool_call_requested","run_id":"r","session_id":"s","iteration":1,"call":{"call_id":"c","tool_name":"t","input":` + input + `}}` + "\n"
	}
	for name, e := range engines(t) {
		for input, want := range map[string]int{`{"a\"b":1,"a#":2}`: 0, `{"a#":1,"a\"b":2}`: 1, `{"b":{"y":1,"x":2},"a":0}`: 1, `[{"b":1,"a":2}]`: 1} {
			got := check(t, e, "keys.jsonl", []byte(call(input)))
			n := 0
			for _, f := range got {
				if f.Requirement == "arcan.shape.value-keys-sorted" {
					n++
				} else {
					t.Errorf("%s %s: unexpected %s", name, input, f)
				}
			}
			if n != want {
				t.Errorf("%s %s: %d unsorted-key warnings, want %d", name, input, n, want)
			}
		}
	}
}
