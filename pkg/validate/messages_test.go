package validate

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// messagesOf runs the engine over path and returns what it told of each
// record, by line.
func messagesOf(t *testing.T, e *Engine, path string, withDir bool) map[int]MessageInfo {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[int]MessageInfo{}
	fo := FileOptions{Message: func(m MessageInfo) {
		m.Data = append([]byte(nil), m.Data...)
		got[m.Line] = m
	}}
	if withDir {
		d, err := os.Open(sidecar(path, ".dir"))
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		fo.Directions = d
	}
	if _, err := e.Check(context.Background(), path, f, fo, nil); err != nil {
		t.Fatal(err)
	}
	return got
}

// readDirs reads a direction sidecar as client or agent per line.
func readDirs(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		d := "agent"
		if strings.HasPrefix(sc.Text(), "c2") {
			d = "client"
		}
		out = append(out, d)
	}
	return out
}

// TestMessageInfo: on the recorded traffic of real peers, the side the
// engine tells for each message without a sidecar is the side the
// recording saw send it, and every response is paired with a request of
// the same id sent the other way.
func TestMessageInfo(t *testing.T) {
	e := testEngine(t)
	acpFiles, _ := filepath.Glob(filepath.Join(fixturesDir, "acp", "sdk", "v*", "*.jsonl"))
	arcpFiles, _ := filepath.Glob(filepath.Join(fixturesDir, "arcp", "recordings", "*", "*.jsonl"))
	if len(acpFiles) == 0 || len(arcpFiles) == 0 {
		t.Fatal("no recorded traffic under fixtures/acp/sdk or fixtures/arcp/recordings")
	}
	answered := 0
	for _, p := range append(acpFiles, arcpFiles...) {
		if _, err := os.Stat(sidecar(p, ".dir")); err != nil {
			continue
		}
		dirs := readDirs(t, sidecar(p, ".dir"))
		for _, withDir := range []bool{false, true} {
			got := messagesOf(t, e, p, withDir)
			if len(got) != len(dirs) {
				t.Fatalf("%s: told %d messages, the sidecar has %d", p, len(got), len(dirs))
			}
			for i, want := range dirs {
				m := got[i+1]
				if !m.Parsed || m.Label == "" || len(m.Data) == 0 {
					t.Errorf("%s:%d: %+v: want a parsed, labelled record", p, i+1, m)
				}
				if m.From != want && (withDir || m.From != "") {
					t.Errorf("%s:%d (sidecar %v): from %q, recorded from %q", p, i+1, withDir, m.From, want)
				}
				if m.Answers == 0 {
					continue
				}
				answered++
				req, ok := got[m.Answers]
				if !ok || req.From == m.From && m.From != "" || m.Answers >= m.Line {
					t.Errorf("%s:%d answers line %d (%+v), which is not an earlier request from the other side", p, i+1, m.Answers, req)
				}
				if strings.HasPrefix(filepath.Base(filepath.Dir(filepath.Dir(p))), "sdk") || strings.Contains(p, "/acp/") {
					var a, b struct{ ID json.RawMessage }
					json.Unmarshal(m.Data, &a)
					json.Unmarshal(req.Data, &b)
					if string(a.ID) != string(b.ID) {
						t.Errorf("%s:%d: response id %s answers line %d with id %s", p, i+1, a.ID, m.Answers, b.ID)
					}
				}
			}
		}
	}
	if answered == 0 {
		t.Error("no response was paired with its request")
	}
}

// TestMessageInfoEveryRecord: every record is told, in order, whether it
// parsed, belongs to no protocol the engine knows, or is garbage before a
// trace.
func TestMessageInfoEveryRecord(t *testing.T) {
	e := testEngine(t)
	for _, tc := range []struct {
		file   string
		n      int
		parsed []bool
	}{
		{"mcp.jsonl", 7, []bool{true, true, true, true, true, true, true}},
		{"garbage-then-trace.jsonl", 8, []bool{false, true, true, true, true, true, true, true}},
	} {
		p := filepath.Join(fixturesDir, "misc", tc.file)
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		var lines []int
		var parsed []bool
		_, err = e.Check(context.Background(), p, f, FileOptions{Message: func(m MessageInfo) {
			lines = append(lines, m.Line)
			parsed = append(parsed, m.Parsed)
		}}, nil)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range lines {
			if l != i+1 {
				t.Fatalf("%s: told lines %v, want 1 to %d in order", tc.file, lines, tc.n)
			}
		}
		if len(lines) != tc.n || fmt.Sprint(parsed) != fmt.Sprint(tc.parsed) {
			t.Errorf("%s: told %d records, parsed %v; want %d, %v", tc.file, len(lines), parsed, tc.n, tc.parsed)
		}
	}
}
