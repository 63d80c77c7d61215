package difftest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/gen/internal/difftest/account"
	"github.com/agentproto/agentproto/gen/internal/difftest/bomref"
	"github.com/agentproto/agentproto/gen/internal/difftest/catalog"
	"github.com/agentproto/agentproto/gen/internal/difftest/codes"
	"github.com/agentproto/agentproto/gen/internal/difftest/config"
	"github.com/agentproto/agentproto/gen/internal/difftest/defaulttag"
	"github.com/agentproto/agentproto/gen/internal/difftest/draft04"
	"github.com/agentproto/agentproto/gen/internal/difftest/kinds7"
	"github.com/agentproto/agentproto/gen/internal/difftest/lint"
	"github.com/agentproto/agentproto/gen/internal/difftest/marks"
	"github.com/agentproto/agentproto/gen/internal/difftest/metrics"
	"github.com/agentproto/agentproto/gen/internal/difftest/mixed"
	"github.com/agentproto/agentproto/gen/internal/difftest/nestedtag"
	"github.com/agentproto/agentproto/gen/internal/difftest/opentag"
	"github.com/agentproto/agentproto/gen/internal/difftest/optionaltag"
	"github.com/agentproto/agentproto/gen/internal/difftest/recursive"
	"github.com/agentproto/agentproto/gen/internal/difftest/scalarunion"
	"github.com/agentproto/agentproto/gen/internal/difftest/shapes"
	"github.com/agentproto/agentproto/gen/internal/difftest/shared"
	"github.com/agentproto/agentproto/gen/internal/difftest/tuple"
	"github.com/agentproto/agentproto/gen/internal/difftest/tuple7"
	"github.com/agentproto/agentproto/gen/internal/difftest/webhook"
	"github.com/agentproto/agentproto/pkg/wire"
)

var lookups = map[string]func(string) (wire.Codec, bool){
	"account": account.Lookup, "catalog": catalog.Lookup, "config": config.Lookup, "metrics": metrics.Lookup,
	"shapes": shapes.Lookup, "webhook": webhook.Lookup, "lint": lint.Lookup, "bomref": bomref.Lookup, "mixed": mixed.Lookup, "tuple": tuple.Lookup, "tuple7": tuple7.Lookup,
	"draft04": draft04.Lookup, "defaulttag": defaulttag.Lookup, "nestedtag": nestedtag.Lookup,
	"kinds7": kinds7.Lookup, "opentag": opentag.Lookup, "marks": marks.Lookup,
	"recursive": recursive.Lookup, "optionaltag": optionaltag.Lookup,
	"shared": shared.Lookup, "codes": codes.Lookup,
	"scalarunion": scalarunion.Lookup,
}

// subject is one schema of the corpus with examples: a root or a $defs
// entry.
type subject struct {
	id       string // $id with pointer fragment
	examples []any
}

func decode(t testing.TB, data []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// docID returns the $id of a corpus document (its "id", in draft-04).
func docID(doc map[string]any) string {
	if id, ok := doc["$id"].(string); ok {
		return id
	}
	id, _ := doc["id"].(string)
	return id
}

func subjects(t testing.TB, doc map[string]any) []subject {
	id := docID(doc)
	var out []subject
	if ex, ok := doc["examples"].([]any); ok {
		out = append(out, subject{id: id + "#", examples: ex})
	}
	defsKey := "$defs"
	if _, ok := doc["definitions"]; ok {
		defsKey = "definitions"
	}
	defs, _ := doc[defsKey].(map[string]any)
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if ex, ok := defs[n].(map[string]any)["examples"].([]any); ok {
			out = append(out, subject{id: id + "#/" + defsKey + "/" + n, examples: ex})
		}
	}
	return out
}

// corpusCase is one subject of the differential corpus (a root or a $defs
// entry with examples), its schema compiled by jsonschema/v6 asserting
// formats, and the codec of its generated type.
type corpusCase struct {
	subject
	sch   *jsonschema.Schema
	codec wire.Codec
}

// corpus reads every schema of testdata/differential and returns its
// subjects, failing the test when a file, a schema or a generated type is
// missing.
func corpus(t testing.TB) []corpusCase {
	t.Helper()
	files, err := filepath.Glob("../../testdata/differential/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	var out []corpusCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc := decode(t, data).(map[string]any)
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		res, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(docID(doc), res); err != nil {
			t.Fatal(err)
		}
		lookup := lookups[strings.TrimSuffix(filepath.Base(f), ".json")]
		for _, s := range subjects(t, doc) {
			sch, err := c.Compile(s.id)
			if err != nil {
				t.Fatalf("%s: %v", s.id, err)
			}
			codec, ok := lookup(s.id)
			if !ok {
				t.Fatalf("no generated type for %s", s.id)
			}
			out = append(out, corpusCase{s, sch, codec})
		}
	}
	return out
}

// strings that break one format or another, or pass all of them.
var probes = []any{
	nil, true, json.Number("0"), json.Number("-1"), json.Number("1.5"), json.Number("3"), json.Number("600"),
	"", "x", "ab", "free", "team", "fast", "circle", "rect", "not-a-uuid", "0f8fad5b-d9cb-469f-a165-70867728950", "0f8fad5b-d9cb-469f-a165-70867728950g",
	"a@", "@b", "a..b@c.d", "a@b", "\"q\"@x.y", "1.2.3.4", "256.1.1.1", "01.2.3.4", "::1", "fe80::1%eth0", "1.2.3",
	"exa mple.com", "-a.com", "a-.com", strings.Repeat("a", 64) + ".com", "http://[::1]/", "http://::1/", `a\b`, "%zz",
	"mailto:x@y", "2024-13-01T00:00:00Z", "2024-02-29T23:59:60Z", "node-1", "Node", "9abc", "toolong-string",
	[]any{}, []any{"x"}, []any{"x", "x"}, []any{json.Number("1"), json.Number("1.0")}, map[string]any{},
}

// mutations returns v changed in one place at a time: every member and
// element replaced by each probe, removed, or joined by a new member or a
// repeated element.
func mutations(v any) []any {
	out := append([]any(nil), probes...)
	switch x := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		with := func(k string, val any, del bool) map[string]any {
			c := make(map[string]any, len(x)+1)
			for kk, vv := range x {
				c[kk] = vv
			}
			if del {
				delete(c, k)
			} else {
				c[k] = val
			}
			return c
		}
		for _, k := range keys {
			out = append(out, with(k, nil, true))
			for _, m := range mutations(x[k]) {
				out = append(out, with(k, m, false))
			}
		}
		for _, k := range []string{"zz", "x-new", "n-new", "plan", "seats", "mode", "paths", "user", "password", "phone", "email", "kind", "r", "w", "h"} {
			if _, ok := x[k]; ok {
				continue
			}
			for _, p := range []any{json.Number("1"), json.Number("1.5"), "s", "toolong-string", nil, map[string]any{}, "fast", "team"} {
				out = append(out, with(k, p, false))
			}
		}
	case []any:
		if len(x) > 0 {
			out = append(out, append(append([]any(nil), x...), x[0]), x[1:])
		}
		for i := range x {
			for _, m := range mutations(x[i]) {
				c := append([]any(nil), x...)
				c[i] = m
				out = append(out, c)
			}
		}
	}
	return out
}

// distinctValues encodes the examples and their mutations, each distinct
// value once, in order.
func distinctValues(t *testing.T, examples []any) [][]byte {
	t.Helper()
	seen := map[string]bool{}
	var out [][]byte
	for _, ex := range examples {
		for _, v := range append([]any{ex}, mutations(ex)...) {
			raw, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if !seen[string(raw)] {
				seen[string(raw)] = true
				out = append(out, raw)
			}
		}
	}
	return out
}

// TestGeneratedAgreesWithV6: over the corpus's examples and their
// mutations, a strict decode plus Validate never vouches (Codec.Proves) for
// a value that jsonschema/v6, asserting formats, rejects.
func TestGeneratedAgreesWithV6(t *testing.T) {
	var schemas, values, vouched, rejectedByV6, falseErrors, disagreements, unvouched int
	for _, cs := range corpus(t) {
		s, sch, codec := cs.subject, cs.sch, cs.codec
		schemas++
		for _, raw := range distinctValues(t, s.examples) {
			values++
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			v6ok := sch.Validate(inst) == nil
			if !v6ok {
				rejectedByV6++
			}
			got, err := codec.DecodeBytes(raw)
			fastOK := err == nil
			if fastOK {
				var ck wire.Checker
				codec.Check(&ck, "", got)
				fastOK = ck.Err() == nil
			}
			if fastOK && !v6ok && !codec.Proves(got) {
				// Accepted by a type that says it does not check
				// everything: the validator asks v6 about these.
				unvouched++
			}
			if fastOK && codec.Proves(got) {
				vouched++
				if !v6ok {
					disagreements++
					t.Errorf("%s: decode and Validate vouch for %s, which v6 rejects", s.id, raw)
				}
			}
			if !fastOK && v6ok {
				falseErrors++
				if os.Getenv("DIFFTEST_SHOW") != "" {
					t.Logf("%s: v6 accepts %s, decode+Validate reject it", s.id, raw)
				}
			}
		}
	}
	t.Logf("corpus: %d schemas, %d distinct values (examples and mutations), %d rejected by v6; the generated code vouched for %d; disagreements %d; values v6 accepts that decode+Validate reject: %d; values v6 rejects that decode+Validate accept without vouching (types that report what they do not check): %d",
		schemas, values, rejectedByV6, vouched, disagreements, falseErrors, unvouched)
	if vouched == 0 {
		t.Error("the generated code vouched for nothing: the test proves nothing")
	}
}

// TestOverlappingVariantsByTrial: an object with the required members of
// two open variants of an untagged oneOf is the one it is valid as, the
// way a schema validator reads oneOf, not the first one the decoder tries.
func TestOverlappingVariantsByTrial(t *testing.T) {
	for in, want := range map[string]string{
		`{"email":1,"phone":"123"}`:     "*shapes.ByPhone",
		`{"email":"a@b.c","phone":7}`:   "*shapes.ByEmail",
		`{"email":"a@b.c","phone":"1"}`: "*shapes.ByEmail",
	} {
		v, err := shapes.UnmarshalContact([]byte(in))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := fmt.Sprintf("%T", v); got != want {
			t.Errorf("%s decoded as %s, want %s", in, got, want)
		}
	}
	// Both variants take it: oneOf allows one, and Validate says so.
	both, err := shapes.UnmarshalContact([]byte(`{"email":"a@b.c","phone":"1"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := shapes.ValidateContact(both); err == nil || !strings.Contains(err.Error(), "fits both ByEmail and ByPhone") {
		t.Errorf("Validate of an object that fits both variants of a oneOf: %v", err)
	}
	_, err = shapes.UnmarshalContact([]byte(`{"email":1,"phone":2}`))
	var we *wire.Error
	if !errors.As(err, &we) || we.Pointer != "/email" || we.Offset != 9 {
		t.Errorf("an object that is neither variant: %v, want the first variant's error at /email, byte 9", err)
	}
}

// TestMemberValueSchemas: Validate checks the members an object's
// properties do not name against additionalProperties and
// patternProperties, and counts members for minProperties.
func TestMemberValueSchemas(t *testing.T) {
	for _, c := range []struct {
		id, in, want string // want is the pointer of the one error, "-" for none
	}{
		{"#/$defs/Sample", `{"at":1,"cpu":0.5}`, "-"},
		{"#/$defs/Sample", `{"at":1,"cpu":"high"}`, "/cpu"},
		{"#/$defs/Labels", `{"x-team":"core","n-shard":3}`, "-"},
		{"#/$defs/Labels", `{"x-team":"far too long"}`, "/x-team"},
		{"#/$defs/Labels", `{"n-shard":"3"}`, "/n-shard"},
		{"#/$defs/Labels", `{}`, ""},
		{"#/$defs/OpenLabels", `{"n-a":1,"other":"any"}`, "-"},
		{"#/$defs/OpenLabels", `{"n-a":-1}`, "/n-a"},
	} {
		codec, ok := metrics.Lookup("https://example.test/diff/metrics.json" + c.id)
		if !ok {
			t.Fatalf("no codec for %s", c.id)
		}
		v, err := codec.DecodeBytes([]byte(c.in))
		if err != nil {
			t.Errorf("%s %s: %v", c.id, c.in, err)
			continue
		}
		err = codec.Validate(v)
		var es wire.Errors
		switch {
		case c.want == "-" && err != nil:
			t.Errorf("%s %s: %v", c.id, c.in, err)
		case c.want != "-" && (!errors.As(err, &es) || len(es) != 1 || es[0].Pointer != c.want):
			t.Errorf("%s %s: %v, want one error at %s", c.id, c.in, err, c.want)
		}
	}
}
