package validate

import (
	"bufio"
	"context"
	"encoding/json"
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
