package arcan_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/internal/sharedref"
	"github.com/agentproto/agentproto/pkg/arcan"
	"github.com/agentproto/agentproto/pkg/wire"
)

// lines returns the events of a JSONL file, or of an SSE file read through
// the SSE reader.
func lines(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	if strings.HasSuffix(path, ".sse") || strings.HasSuffix(path, ".txt") {
		r := arcan.NewSSEReader(f)
		for {
			ev, err := r.Next()
			if errors.Is(err, io.EOF) {
				return out
			}
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			out = append(out, ev.Data)
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			out = append(out, append([]byte(nil), sc.Bytes()...))
		}
	}
	return out
}

// roundTrip decodes one line as an AgentEvent (or a store record) and
// requires the encoding to be byte-identical: Arcan's serde output is
// reproduced exactly, field order, nulls and number formats included.
func roundTrip(t *testing.T, where string, line []byte, store bool) {
	t.Helper()
	var out []byte
	var err error
	if store {
		var r arcan.StoreRecord
		if err = wire.Unmarshal(line, &r); err == nil {
			if err = r.Validate(); err == nil {
				out, err = wire.Marshal(&r)
			}
		}
	} else {
		var ev arcan.AgentEvent
		if ev, err = arcan.UnmarshalAgentEvent(line); err == nil {
			if _, unknown := ev.(*arcan.UnknownAgentEvent); unknown {
				t.Errorf("%s: a known event decoded as unknown: %s", where, line)
			}
			if err = arcan.ValidateAgentEvent(ev); err == nil {
				out, err = arcan.MarshalAgentEvent(ev)
			}
		}
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", where, err, line)
	}
	if !bytes.Equal(out, line) {
		t.Errorf("%s: not byte-identical\n sent %s\n  got %s", where, line, out)
	}
}

func TestReferenceExamplesByteIdentical(t *testing.T) {
	dir := sharedref.Dir(t, "reference", "arcan", "examples")
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	n := 0
	for _, f := range files {
		for i, l := range lines(t, f) {
			roundTrip(t, filepath.Base(f)+":"+itoa(i+1), l, false)
			n++
		}
	}
	if n < 30 {
		t.Errorf("only %d reference events", n)
	}
}

func TestFixturesByteIdentical(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "arcan", "valid", "*"))
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		store := strings.HasSuffix(f, ".store.jsonl")
		for i, l := range lines(t, f) {
			roundTrip(t, filepath.Base(f)+":"+itoa(i+1), l, store)
		}
	}
}

// TestUnknownFieldsAndVariantsSurvive: a newer Arcan's extra fields and
// event kinds are kept, byte for byte.
func TestUnknownFieldsAndVariantsSurvive(t *testing.T) {
	for _, in := range []string{
		`{"part_type":"text_delta","run_id":"r","session_id":"s","iteration":1,"delta":"hi","new_field":{"a":[1,2.50]}}`,
		`{"part_type":"hologram","run_id":"r","frames":[1,2,3]}`,
	} {
		ev, err := arcan.UnmarshalAgentEvent([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		out, err := arcan.MarshalAgentEvent(ev)
		if err != nil || string(out) != in {
			t.Errorf("got %s, %v\nwant %s", out, err, in)
		}
	}
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
