package arcan_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
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
	if out := reencode(t, where, line, store); !bytes.Equal(out, line) {
		t.Errorf("%s: not byte-identical\n sent %s\n  got %s", where, line, out)
	}
}

// reencode decodes, validates and encodes one line.
func reencode(t *testing.T, where string, line []byte, store bool) []byte {
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
	return out
}

// sameJSON reports whether a and b hold the same JSON value: the same
// members (absent and null kept apart) and the same number texts, in any
// member order.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	parse := func(data []byte) any {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		return v
	}
	return reflect.DeepEqual(parse(a), parse(b))
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

// TestFixturesByteIdentical: what Arcan writes (valid/) and what only its
// reader accepts (accepted/: members left out, null for an unset Option,
// the tag not first, unknown members) both come back byte for byte, so an
// absent member stays absent and a null stays null.
func TestFixturesByteIdentical(t *testing.T) {
	for _, dir := range []string{"valid", "accepted"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "arcan", dir, "*.*"))
		n := 0
		for _, f := range files {
			if !strings.HasSuffix(f, ".jsonl") && !strings.HasSuffix(f, ".sse") {
				continue
			}
			store := strings.HasSuffix(f, ".store.jsonl")
			for i, l := range lines(t, f) {
				where := dir + "/" + filepath.Base(f) + ":" + itoa(i+1)
				n++
				if store || bytes.HasPrefix(l, []byte(`{"part_type":`)) {
					roundTrip(t, where, l, store)
					continue
				}
				// Arcan's reader finds the tag anywhere; the encoder writes
				// it first, as Arcan does, and keeps everything else.
				if out := reencode(t, where, l, store); !sameJSON(t, out, l) || !bytes.HasPrefix(out, []byte(`{"part_type":`)) {
					t.Errorf("%s: the value changed\n sent %s\n  got %s", where, l, out)
				}
			}
		}
		if n == 0 {
			t.Errorf("no fixtures in fixtures/arcan/%s", dir)
		}
	}
}

// TestIntegerLiterals: serde_json reads 1.0, 1e0 and -0 as floats and
// rejects them for Arcan's integer members, and so do the generated
// decoders, at the member's JSON pointer. Every line of the
// integer-literal fixtures that its .expect file lists fails at the listed
// pointer; the others decode.
func TestIntegerLiterals(t *testing.T) {
	for _, name := range []string{"integer-literals.jsonl", "integer-literals.store.jsonl"} {
		path := filepath.Join("..", "..", "fixtures", "arcan", "invalid", name)
		want := map[int]string{}
		exp, err := os.ReadFile(strings.TrimSuffix(path, ".jsonl") + ".expect")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(exp)), "\n") {
			var n int
			var rule, ptr string
			if _, err := fmt.Sscan(l, &n, &rule, &ptr); err != nil || rule != "schema" {
				t.Fatalf("%s: bad expectation %q", name, l)
			}
			want[n] = ptr
		}
		store := strings.HasSuffix(name, ".store.jsonl")
		bad := 0
		for i, l := range lines(t, path) {
			var err error
			if store {
				var r arcan.StoreRecord
				err = wire.Unmarshal(l, &r)
			} else {
				_, err = arcan.UnmarshalAgentEvent(l)
			}
			ptr, isBad := want[i+1]
			var we *wire.Error
			switch {
			case !isBad && err != nil:
				t.Errorf("%s:%d: %v", name, i+1, err)
			case isBad && !errors.As(err, &we):
				t.Errorf("%s:%d: decoded; want an error at %s", name, i+1, ptr)
			case isBad && (we.Pointer != ptr || we.Code != wire.CodeType):
				t.Errorf("%s:%d: error %v (code %d); want a type error at %s", name, i+1, err, we.Code, ptr)
			case isBad:
				bad++
			}
		}
		if bad < 3 {
			t.Errorf("%s: only %d rejected lines", name, bad)
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
