package arcp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentproto/agentproto/pkg/arcp"
	"github.com/agentproto/agentproto/pkg/arcp/rfc0001"
)

func traceLines(t testing.TB, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			out = append(out, append([]byte(nil), sc.Bytes()...))
		}
	}
	return out
}

func sameJSON(t *testing.T, where string, want, got []byte) {
	t.Helper()
	var a, b any
	for _, x := range []struct {
		data []byte
		v    *any
	}{{want, &a}, {got, &b}} {
		d := json.NewDecoder(bytes.NewReader(x.data))
		d.UseNumber()
		if err := d.Decode(x.v); err != nil {
			t.Fatalf("%s: %v\n%s", where, err, x.data)
		}
	}
	if diff := cmp.Diff(a, b, sameNumber); diff != "" {
		t.Errorf("%s: not the same JSON after decode and encode (-sent +re-encoded):\n%s", where, diff)
	}
}

// sameNumber compares JSON numbers by value: 1.0 and 1 are one number.
var sameNumber = cmp.Comparer(func(x, y json.Number) bool {
	a, ok1 := new(big.Rat).SetString(string(x))
	b, ok2 := new(big.Rat).SetString(string(y))
	return ok1 && ok2 && a.Cmp(b) == 0
})

// TestFixturesRoundTrip: every line of the valid and dialect traces of both
// ARCP schema sets, and of the SDKs' recorded traffic, decodes into its
// generated type and encodes back to the same JSON; the valid traces and the
// recorded traffic also pass Validate.
func TestFixturesRoundTrip(t *testing.T) {
	sets := []struct {
		glob      string
		validate  bool
		unmarshal func([]byte) (any, []byte, error)
	}{
		{"v1.1/valid/*.jsonl", true, canonical},
		{"v1.1/dialect/*.jsonl", false, canonical},
		{"recordings/*/*.jsonl", true, canonical},
		{"dialects/*/*.jsonl", true, canonical},
		{"rfc0001/valid/*.jsonl", true, rust},
	}
	for _, set := range sets {
		files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "arcp", set.glob))
		if len(files) == 0 {
			t.Fatalf("no fixtures match %s", set.glob)
		}
		for _, f := range files {
			for i, l := range traceLines(t, f) {
				where := filepath.Base(f) + ":" + strconv.Itoa(i+1)
				v, out, err := set.unmarshal(l)
				if err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				// A vendor message type is outside the protocol: it decodes
				// and re-encodes unchanged, but no generated type validates it.
				if set.validate && !bytes.Contains(l, []byte(`"type":"x-vendor.`)) {
					if err := v.(interface{ Validate() error }).Validate(); err != nil {
						t.Errorf("%s: Validate: %v", where, err)
					}
				}
				sameJSON(t, where, l, out)
			}
		}
	}
}

func canonical(line []byte) (any, []byte, error) {
	m, err := arcp.UnmarshalMessage(line)
	if err != nil {
		return nil, nil, err
	}
	out, err := arcp.MarshalMessage(m)
	return validator{func() error { return arcp.ValidateMessage(m) }}, out, err
}

func rust(line []byte) (any, []byte, error) {
	m, err := rfc0001.UnmarshalMessage(line)
	if err != nil {
		return nil, nil, err
	}
	out, err := rfc0001.MarshalMessage(m)
	return validator{func() error { return rfc0001.ValidateMessage(m) }}, out, err
}

type validator struct{ f func() error }

func (v validator) Validate() error { return v.f() }

// TestUnknownMembersAndKindsSurvive: envelope members this version does not
// know, extensions and event kinds it does not know come back unchanged.
func TestUnknownMembersAndKindsSurvive(t *testing.T) {
	for _, in := range []string{
		`{"arcp":"1.1","id":"m","type":"job.event","session_id":"s","job_id":"j","event_seq":7,"payload":{"kind":"x-vendor.acme.gpu","ts":"2026-11-22T00:00:00Z","body":{"util":0.93}},"extensions":{"x-vendor.acme.cost":{"a":1}},"hop_count":3}`,
		`{"arcp":"1.1","id":"m","type":"session.ping","session_id":"s","payload":{"nonce":"n1","sent_at":"2026-11-22T00:00:00Z"},"future_field":[1,2]}`,
	} {
		m, err := arcp.UnmarshalMessage([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		out, err := arcp.MarshalMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, in, []byte(in), out)
	}
}
