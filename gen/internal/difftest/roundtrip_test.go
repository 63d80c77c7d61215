package difftest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/gen/internal/difftest/bomref"
	"github.com/agentproto/agentproto/gen/internal/difftest/kinds7"
	"github.com/agentproto/agentproto/gen/internal/difftest/lint"
	"github.com/agentproto/agentproto/gen/internal/difftest/marks"
	"github.com/agentproto/agentproto/gen/internal/difftest/mixed"
	"github.com/agentproto/agentproto/gen/internal/difftest/tuple"
	"github.com/agentproto/agentproto/gen/internal/difftest/tuple7"
	"github.com/agentproto/agentproto/pkg/wire"
)

// TestExamplesRoundTrip: every example of the corpus is valid by
// jsonschema/v6, and the generated type of its schema decodes it, finds
// nothing wrong with it, and encodes it back to the same JSON value.
func TestExamplesRoundTrip(t *testing.T) {
	n := 0
	for _, cs := range corpus(t) {
		s, sch, codec := cs.subject, cs.sch, cs.codec
		for _, ex := range s.examples {
			n++
			raw, err := json.Marshal(ex)
			if err != nil {
				t.Fatal(err)
			}
			inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err := sch.Validate(inst); err != nil {
				t.Errorf("%s: the example %s is not valid by v6: %v", s.id, raw, err)
				continue
			}
			v, err := codec.DecodeBytes(raw)
			if err != nil {
				t.Errorf("%s: decode %s: %v", s.id, raw, err)
				continue
			}
			if err := codec.Validate(v); err != nil {
				t.Errorf("%s: Validate %s: %v", s.id, raw, err)
			}
			e := wire.NewEncoder(nil)
			codec.Encode(e, v)
			out := e.Bytes()
			if err := e.Err(); err != nil {
				t.Errorf("%s: encode %s: %v", s.id, raw, err)
				continue
			}
			if d := cmp.Diff(decode(t, raw), decode(t, out)); d != "" {
				t.Errorf("%s: %s re-encoded as %s (-in +out):\n%s", s.id, raw, out, d)
			}
		}
	}
	if n == 0 {
		t.Fatal("no examples")
	}
}

// TestUnionsByJSONType: a union whose alternatives differ in JSON type
// (a severity string or an options object; a boolean, a severity or an
// object; an integer or "auto"; a type list of integer and array; null,
// a union of a string and an object, or an array) is a sealed union
// decided from the value, and Validate checks the alternative the value
// took.
func TestUnionsByJSONType(t *testing.T) {
	for _, c := range []struct {
		in   string
		want reflect.Type // an alias names the type it stands for
		err  string       // "" for valid, else a substring of Validate's error
	}{
		{`{"noAccessKey":"warn"}`, reflect.TypeFor[lint.NoAccessKeyConfigurationString](), ""},
		{`{"noAccessKey":"loud"}`, reflect.TypeFor[lint.NoAccessKeyConfigurationString](), "/noAccessKey"},
		{`{"noAccessKey":{"level":"off","fix":"safe"}}`, reflect.TypeFor[*lint.RuleWithNoAccessKeyOptions](), ""},
		{`{"noAccessKey":{"level":"loud"}}`, reflect.TypeFor[*lint.RuleWithNoAccessKeyOptions](), "/noAccessKey/level"},
		{`{"md001":false}`, reflect.TypeFor[lint.MarkdownRuleBoolean](), ""},
		{`{"md001":"warning"}`, reflect.TypeFor[lint.MarkdownRuleString](), ""},
		{`{"md001":"info"}`, reflect.TypeFor[lint.MarkdownRuleString](), "/md001"},
		{`{"md001":{"severity":"error"}}`, reflect.TypeFor[*lint.MarkdownRuleWithEnabledAndSeverity](), ""},
		{`{"tabWidth":8}`, reflect.TypeFor[lint.LintConfigTabWidthInteger](), ""},
		{`{"tabWidth":"auto"}`, reflect.TypeFor[lint.LintConfigTabWidthString](), ""},
		{`{"tabWidth":"wide"}`, reflect.TypeFor[lint.LintConfigTabWidthString](), "/tabWidth"},
		{`{"tabWidth":17}`, reflect.TypeFor[lint.LintConfigTabWidthInteger](), "/tabWidth"},
		{`{"linesAbove":2}`, reflect.TypeFor[lint.LintConfigLinesAboveInteger](), ""},
		{`{"linesAbove":-2}`, reflect.TypeFor[lint.LintConfigLinesAboveInteger](), "/linesAbove"},
		{`{"linesAbove":[1,-1]}`, reflect.TypeFor[lint.LintConfigLinesAboveArray](), ""},
		{`{"linesAbove":[1,-2]}`, reflect.TypeFor[lint.LintConfigLinesAboveArray](), "/linesAbove/1"},
		{`{"group":":NODE:"}`, reflect.TypeFor[lint.ImportGroupString](), ""},
		{`{"group":"@/**"}`, reflect.TypeFor[lint.ImportGroupString](), ""},
		{`{"group":":DENO:"}`, reflect.TypeFor[lint.ImportGroupString](), "/group"},
		{`{"group":{"type":true}}`, reflect.TypeFor[*lint.ImportGroupImportMatcher](), ""},
		{`{"group":null}`, reflect.TypeFor[lint.ImportGroupNull](), ""},
		{`{"group":[":BUN:",{"source":["x"]}]}`, reflect.TypeFor[lint.ImportGroupArray](), ""},
	} {
		var v lint.LintConfig
		if err := wire.Unmarshal([]byte(c.in), &v); err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		var got any
		switch {
		case v.NoAccessKey != nil:
			got = v.NoAccessKey
		case v.Md001 != nil:
			got = v.Md001
		case v.TabWidth != nil:
			got = v.TabWidth
		case v.LinesAbove != nil:
			got = v.LinesAbove
		case v.Group != nil:
			got = v.Group
		}
		if g := reflect.TypeOf(got); g != c.want {
			t.Errorf("%s decoded as %v, want %v", c.in, g, c.want)
		}
		err := v.Validate()
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: Validate: %v", c.in, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: Validate = %v, want an error at %s", c.in, err, c.err)
		}
	}
	// A value of a JSON type no alternative has is a decode error.
	var v lint.LintConfig
	if err := wire.Unmarshal([]byte(`{"md001":7}`), &v); err == nil {
		t.Error("a number decoded as a markdown rule")
	}
	// A closed object reached through a nested union stays closed.
	if err := wire.Unmarshal([]byte(`{"group":{"h":1}}`), &v); err == nil {
		t.Error("an unknown member decoded in a closed import matcher")
	}
}

// TestMixedEnums: an enum whose values mix JSON types is a union with a
// variant per type, each checking its own values, and every value
// re-encodes exactly.
func TestMixedEnums(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []reflect.Type // the Go types of cache, status and level
		err  string         // "" for valid, else the pointer of Validate's error
	}{
		{`{"cache":"auto","status":null,"level":2}`, []reflect.Type{reflect.TypeFor[mixed.BuildConfigCacheString](), reflect.TypeFor[mixed.BuildConfigStatusNull](), reflect.TypeFor[mixed.BuildConfigLevelInteger]()}, ""},
		{`{"cache":false,"status":"success","level":"off"}`, []reflect.Type{reflect.TypeFor[mixed.BuildConfigCacheBoolean](), reflect.TypeFor[mixed.BuildConfigStatusString](), reflect.TypeFor[mixed.BuildConfigLevelString]()}, ""},
		{`{"cache":"never","status":null,"level":2}`, nil, "/cache"},
		{`{"cache":true,"status":"failure","level":2}`, nil, "/status"},
		{`{"cache":true,"status":null,"level":3}`, nil, "/level"},
		{`{"cache":true,"status":null,"devtool":true}`, nil, "/devtool"},
	} {
		var v mixed.BuildConfig
		if err := wire.Unmarshal([]byte(c.in), &v); err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if c.want != nil {
			got := []reflect.Type{reflect.TypeOf(v.Cache), reflect.TypeOf(v.Status), reflect.TypeOf(v.Level)}
			if !slices.Equal(c.want, got) {
				t.Errorf("%s: types %v, want %v", c.in, got, c.want)
			}
			if out, err := wire.Marshal(&v); err != nil || string(out) != c.in {
				t.Errorf("%s re-encoded as %s, %v", c.in, out, err)
			}
		}
		err := v.Validate()
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: Validate: %v", c.in, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: Validate = %v, want an error at %s", c.in, err, c.err)
		}
	}
	// A value of a type the enum does not list does not decode.
	var v mixed.BuildConfig
	if err := wire.Unmarshal([]byte(`{"status":1}`), &v); err == nil {
		t.Error("a number decoded as a status")
	}
}

// TestTuples: a tuple is a struct with a field per position that encodes
// as a JSON array; required positions are values, later ones absent when
// nil, and Validate and decoding report what the schema forbids.
func TestTuples(t *testing.T) {
	var r tuple.Rule
	if err := wire.Unmarshal([]byte(`[2,"always",72]`), &r); err != nil {
		t.Fatal(err)
	}
	if r.Level != 2 || r.Applicable == nil || *r.Applicable != "always" || string(r.Value) != "72" {
		t.Errorf("decoded %+v", r)
	}
	if out, err := wire.Marshal(&r); err != nil || string(out) != `[2,"always",72]` {
		t.Errorf("re-encoded as %s, %v", out, err)
	}
	// Built in Go: the array ends at the first absent position.
	if out, _ := wire.Marshal(&tuple.Rule{Level: 1}); string(out) != `[1]` {
		t.Errorf("a rule of one position encodes as %s", out)
	}
	for _, c := range []struct {
		in  string
		ptr string // the pointer of the error, from decoding or Validate
	}{
		{`[3]`, "/0"},
		{`[1,"sometimes"]`, "/1"},
		{`[1,"never",1,2]`, "/3"},
		{`[]`, ""},
		{`["2"]`, "/0"},
	} {
		var v tuple.Rule
		err := wire.Unmarshal([]byte(c.in), &v)
		if err == nil {
			err = v.Validate()
		}
		var we *wire.Error
		var es wire.Errors
		switch {
		case err == nil:
			t.Errorf("%s: accepted", c.in)
		case errors.As(err, &we):
			if we.Pointer != c.ptr {
				t.Errorf("%s: %v, want it at %q", c.in, err, c.ptr)
			}
		case errors.As(err, &es):
			if es[0].Pointer != c.ptr {
				t.Errorf("%s: %v, want it at %q", c.in, err, c.ptr)
			}
		}
	}
	bad := tuple.Rule{Level: 1, Value: json.RawMessage(`"x"`)}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "/1") {
		t.Errorf("a value after an absent position: Validate = %v", err)
	}
	// The rest of a tuple with additionalItems (draft-07) is typed.
	var b tuple7.ChangesetBump
	if err := wire.Unmarshal([]byte(`["pkg","patch","note"]`), &b); err != nil || len(b.Rest) != 1 || b.Rest[0] != "note" {
		t.Errorf("draft-07 rest: %+v, %v", b, err)
	}
	if err := wire.Unmarshal([]byte(`["pkg","patch",1]`), &b); err == nil {
		t.Error("a number in a rest of strings decoded")
	}
}

// TestAlternativesOfOneType: alternatives of one scalar type are one
// value whose Validate tries each of them: any may hold for an anyOf,
// exactly one must for a oneOf.
func TestAlternativesOfOneType(t *testing.T) {
	for _, c := range []struct {
		v  interface{ Validate() error }
		ok bool
	}{
		{ptrTo(bomref.RefOrLink("lib-a")), true},
		{ptrTo(bomref.RefOrLink("urn:cdx:3e671687-395b-41f5-a30f-a58921a69b79/1#x")), true},
		{ptrTo(bomref.RefOrLink("")), false},
		{ptrTo(bomref.DependencyScope("team")), true},
		{ptrTo(bomref.DependencyScope("application")), true},
		{ptrTo(bomref.DependencyScope("ab")), false}, // both alternatives
		{ptrTo(bomref.DependencyScope("bbbbbb")), false},
		{ptrTo(bomref.DependencyHash("ff00")), true},
		{ptrTo(bomref.DependencyHash("3e671687-395b-41f5-a30f-a58921a69b79")), true},
		{ptrTo(bomref.DependencyHash("zz")), false},
		{ptrTo(bomref.DependencyHash(strings.Repeat("f", 41))), false}, // the union's own maxLength
	} {
		if err := c.v.Validate(); (err == nil) != c.ok {
			t.Errorf("%v: Validate = %v, want ok %v", c.v, err, c.ok)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestUnionsOfUnions: an alternative that is a $ref to a union decided by
// JSON type (draft-07's "#", an object or a boolean) takes part in the
// outer union by its variants' types, and a value is the very Go value the
// inner union gives it; an alternative listing two types and a oneOf of
// one alternative per type is that oneOf; a oneOf of closed objects is
// decided by the members they allow; arrays of one and of two elements,
// the first the same, are one tuple whose second element is optional.
func TestUnionsOfUnions(t *testing.T) {
	node := func(in string) (any, error) {
		v, err := kinds7.UnmarshalNode([]byte(in))
		if err != nil {
			return nil, err
		}
		o, ok := v.(*kinds7.NodeObject)
		if !ok {
			return v, nil
		}
		if o.Items != nil {
			return o.Items, kinds7.ValidateNode(v)
		}
		for _, d := range o.Dependencies {
			return d, kinds7.ValidateNode(v)
		}
		return v, kinds7.ValidateNode(v)
	}
	config := func(in string) (any, error) {
		v, err := kinds7.UnmarshalConfig([]byte(in))
		if err != nil {
			return nil, err
		}
		return v, kinds7.ValidateConfig(v)
	}
	input := func(in string) (any, error) {
		v, err := kinds7.UnmarshalInput([]byte(in))
		if err != nil {
			return nil, err
		}
		return v, kinds7.ValidateInput(v)
	}
	reporter := func(in string) (any, error) {
		v, err := kinds7.UnmarshalReporter([]byte(in))
		if err != nil {
			return nil, err
		}
		return v, kinds7.ValidateReporter(v)
	}
	checkDecoded(t, []decodeCase{
		{node, `true`, reflect.TypeFor[kinds7.NodeBoolean](), ""},
		{node, `{"items":false}`, reflect.TypeFor[kinds7.NodeBoolean](), ""},
		{node, `{"items":{"title":"x"}}`, reflect.TypeFor[*kinds7.NodeObject](), ""},
		{node, `{"items":[true,{"title":"y"}]}`, reflect.TypeFor[kinds7.NodeObjectItemsArray](), ""},
		{node, `{"items":[]}`, reflect.TypeFor[kinds7.NodeObjectItemsArray](), "/items"},
		{node, `{"items":"x"}`, nil, "boolean or array or object"},
		{node, `{"dependencies":{"a":["b"]}}`, reflect.TypeFor[kinds7.NodeObjectDependenciesValueArray](), ""},
		{node, `{"dependencies":{"a":["b","b"]}}`, reflect.TypeFor[kinds7.NodeObjectDependenciesValueArray](), "/dependencies/a"},
		{node, `{"dependencies":{"a":{"title":"t"}}}`, reflect.TypeFor[*kinds7.NodeObject](), ""},
		{config, `{"tool":{"name":"a"}}`, reflect.TypeFor[*kinds7.ConfigWithTool](), ""},
		{config, `{"name":"a"}`, reflect.TypeFor[*kinds7.Options](), ""},
		{config, `[{"minify":true}]`, reflect.TypeFor[kinds7.ConfigArray](), ""},
		{config, `{"name":"a","tool":{}}`, nil, "tool"},
		{input, `"prod"`, reflect.TypeFor[kinds7.InputString](), ""},
		{input, `{"fileset":"x"}`, reflect.TypeFor[*kinds7.InputWithFileset](), ""},
		{input, `{"runtime":"node -v"}`, reflect.TypeFor[*kinds7.InputWithRuntime](), ""},
		{input, `{"env":"CI"}`, reflect.TypeFor[*kinds7.InputWithEnv](), ""},
		{input, `{"externalDependencies":["react"]}`, reflect.TypeFor[*kinds7.InputWithExternalDependencies](), ""},
		{input, `{"env":"CI","runtime":"x"}`, nil, "env"},
		{input, `{}`, nil, "oneOf"},
		{reporter, `"default"`, reflect.TypeFor[kinds7.ReporterString](), ""},
		{reporter, `["a"]`, reflect.TypeFor[kinds7.ReporterArray](), ""},
		{reporter, `["a",{"outFile":"o.json"}]`, reflect.TypeFor[kinds7.ReporterArray](), ""},
		{reporter, `[]`, nil, "fewer than 1 items"},
		{reporter, `["a",{},{}]`, nil, "more than 2 items"},
		{reporter, `["a",{"zz":1}]`, nil, "zz"},
	})
}

// TestValuesOfOneTypeAndMixedEnums: an anyOf of $refs to anyOfs of string
// enums is one enum with typed constants for all their values; an anyOf of
// strings one of which takes any string is a string; a oneOf of strings
// still wants exactly one alternative to hold; a $ref to an enum that
// mixes null and strings, beside an object, is decided by JSON type, each
// value the very Go value the enum's own union gives it; so is a $ref to a
// list of scalar types beside objects.
func TestValuesOfOneTypeAndMixedEnums(t *testing.T) {
	for _, c := range []struct {
		v     marks.TimeUnit
		valid bool
	}{{marks.TimeUnitUtcyearmonth, true}, {marks.TimeUnitYear, true}, {"decade", false}} {
		if c.v.Valid() != c.valid {
			t.Errorf("TimeUnit(%q).Valid() = %v, want %v", c.v, !c.valid, c.valid)
		}
	}
	decode := func(id string) func(string) (any, error) {
		codec, ok := marks.Lookup("https://example.test/diff/marks.json#/definitions/" + id)
		if !ok {
			t.Fatalf("no codec for %s", id)
		}
		return func(in string) (any, error) {
			v, err := codec.DecodeBytes([]byte(in))
			if err != nil {
				return v, err
			}
			return v, codec.Validate(v)
		}
	}
	field := func(name string) func(string) (any, error) {
		return func(in string) (any, error) {
			var m marks.MarkConfig
			if err := json.Unmarshal([]byte(`{"`+name+`":`+in+`}`), &m); err != nil {
				return nil, err
			}
			err := m.Validate()
			switch name {
			case "blend":
				return m.Blend, err
			case "fontWeight":
				return m.FontWeight, err
			case "anchor":
				return m.Anchor, err
			}
			return m.UnitOrExpr, err
		}
	}
	checkDecoded(t, []decodeCase{
		{decode("Color"), `"anything"`, reflect.TypeFor[*marks.Color](), ""},
		{decode("Color"), `3`, nil, "string"},
		{decode("TimeUnit"), `"utcmonth"`, reflect.TypeFor[*marks.TimeUnit](), ""},
		{decode("TimeUnit"), `"decade"`, nil, "decade"},
		{decode("Level"), `600`, reflect.TypeFor[*marks.Level](), ""},
		{decode("Level"), `2`, nil, "2"},
		{decode("Shape"), `"oval"`, reflect.TypeFor[*marks.Shape](), ""},
		{decode("Shape"), `"circle"`, nil, "oneOf"},
		{decode("Label"), `"x"`, nil, "oneOf"},
		{decode("Label"), `"ab"`, reflect.TypeFor[*marks.Label](), ""},
		{decode("Symbol"), `"node-1"`, nil, "anyOf"},
		{decode("Symbol"), `"node-2"`, reflect.TypeFor[*marks.Symbol](), ""},
		{field("blend"), `null`, reflect.TypeFor[marks.BlendNull](), ""},
		{field("blend"), `"screen"`, reflect.TypeFor[marks.BlendString](), ""},
		{field("blend"), `"normal"`, nil, "normal"},
		{field("blend"), `{"expr":"b"}`, reflect.TypeFor[*marks.ExprRef](), ""},
		{field("blend"), `3`, nil, "null or string or object"},
		{field("fontWeight"), `600`, reflect.TypeFor[marks.FontWeightInteger](), ""},
		{field("fontWeight"), `"bold"`, reflect.TypeFor[marks.FontWeightString](), ""},
		{field("fontWeight"), `{"expr":"w"}`, reflect.TypeFor[*marks.ExprRef](), ""},
		{field("anchor"), `null`, reflect.TypeFor[marks.TitleAnchorNull](), ""},
		{field("anchor"), `"end"`, reflect.TypeFor[marks.TitleAnchorString](), ""},
		{field("unitOrExpr"), `"team"`, reflect.TypeFor[marks.MarkConfigUnitOrExprString](), ""},
		{decode("Datum"), `"x"`, reflect.TypeFor[marks.PrimitiveValueString](), ""},
		{decode("Datum"), `null`, reflect.TypeFor[marks.PrimitiveValueNull](), ""},
		{decode("Datum"), `{"expr":"d"}`, reflect.TypeFor[*marks.ExprRef](), ""},
		{decode("Datum"), `{"month":2}`, reflect.TypeFor[*marks.DateTime](), ""},
		{decode("Datum"), `{"month":13}`, nil, "/month"},
		{decode("Datum"), `[1]`, nil, "array"},
	})
}

// decodeCase is a value, how to decode and validate it, the Go type it
// must decode to (nil: it must fail) and a substring of its error ("" for
// a valid value).
type decodeCase struct {
	decode func(string) (any, error)
	in     string
	want   reflect.Type // an alias names the type it stands for
	err    string
}

// checkDecoded decodes and validates each case's value.
func checkDecoded(t *testing.T, cases []decodeCase) {
	t.Helper()
	for _, c := range cases {
		got, err := c.decode(c.in)
		if c.want != nil {
			if g := reflect.TypeOf(got); g != c.want {
				t.Errorf("%s decoded as %v, want %v (%v)", c.in, g, c.want, err)
			}
		}
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.in, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one that names %s", c.in, err, c.err)
		}
	}
}
