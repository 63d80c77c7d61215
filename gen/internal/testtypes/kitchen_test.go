package testtypes_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/gen/internal/testtypes/downstream"
	"github.com/agentproto/agentproto/gen/internal/testtypes/draft7"
	"github.com/agentproto/agentproto/gen/internal/testtypes/kitchen"
	"github.com/agentproto/agentproto/gen/internal/testtypes/mapped"
	"github.com/agentproto/agentproto/pkg/acp"
	"github.com/agentproto/agentproto/pkg/wire"
)

// full has every member of Envelope, compact and in schema order, so the
// generated encoder must give back exactly these bytes.
const full = `{"id":"m1","sessionId":"s1","event":{"type":"chunk","text":"hé \"quoted\"\n","index":3},"requestId":7,"note":null,"parent":{"x":1,"y":-2},"answer":null,"tags":["a","bc"],"counts":{"a":1,"b":4294967295},"_meta":{"trace":[1,{"deep":null}]},"kind":"envelope","priority":"high","mode":"plan","at":"2026-11-22T02:12:34.000001+01:00","limits":{"port":8080,"count":4294967295,"offset":-5,"total":18446744073709551615,"delta":-9223372036854775808,"percent":100},"server":{"command":"mcp"},"wrapped":{"x":0,"y":0},"ratio":0.5,"x-extra":{"kept":true}}`

func decode(t *testing.T, in string) *kitchen.Envelope {
	t.Helper()
	var e kitchen.Envelope
	if err := wire.Unmarshal([]byte(in), &e); err != nil {
		t.Fatalf("decode %s: %v", in, err)
	}
	return &e
}

func encode(t *testing.T, v wire.Encodable) string {
	t.Helper()
	out, err := wire.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestRoundTripByteForByte(t *testing.T) {
	e := decode(t, full)
	if got := encode(t, e); got != full {
		t.Errorf("re-encoded\n%s\nwant\n%s", got, full)
	}
	if err := e.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	// encoding/json goes through the generated methods too.
	b, err := json.Marshal(e)
	if err != nil || string(b) != full {
		t.Errorf("json.Marshal = %s, %v", b, err)
	}
	var viaStd kitchen.Envelope
	if err := json.Unmarshal([]byte(full), &viaStd); err != nil {
		t.Fatal(err)
	}
	if got := encode(t, &viaStd); got != full {
		t.Errorf("after json.Unmarshal, re-encoded\n%s", got)
	}
}

func TestTypedValues(t *testing.T) {
	e := decode(t, full)
	c, ok := e.Event.(*kitchen.EventChunk)
	if !ok || c.Text != "hé \"quoted\"\n" || c.Index == nil || *c.Index != 3 {
		t.Errorf("event = %#v", e.Event)
	}
	if id, ok := e.RequestID.(kitchen.RequestIDNumber); !ok || id != 7 {
		t.Errorf("requestId = %#v", e.RequestID)
	}
	if *e.Limits.Total != 18446744073709551615 || *e.Limits.Delta != -9223372036854775808 || *e.Limits.Port != 8080 {
		t.Errorf("limits = %+v", e.Limits)
	}
	if _, ok := e.Server.(*kitchen.StdioServer); !ok {
		t.Errorf("a server without a type is the default variant, got %T", e.Server)
	}
	if raw, ok := e.Unknown.Get("x-extra"); !ok || string(raw) != `{"kept":true}` {
		t.Errorf("unknown member = %s, %v", raw, ok)
	}
	if *e.At != "2026-11-22T02:12:34.000001+01:00" {
		t.Errorf("date-time text changed: %s", *e.At)
	}
}

func TestAbsentNullAndValueStayApart(t *testing.T) {
	// Members in schema order, so the re-encoding must be identical.
	head, tail := `{"id":"m","sessionId":"s","event":{"type":"started","at":"now"}`, `,"answer":"42","kind":"envelope"}`
	cases := []struct {
		member string
		check  func(*kitchen.Envelope) bool
	}{
		{``, func(e *kitchen.Envelope) bool { return e.Note.IsAbsent() && e.Parent.IsAbsent() && e.RequestID == nil }},
		{`,"requestId":null,"note":null,"parent":null`, func(e *kitchen.Envelope) bool {
			_, isNullID := e.RequestID.(kitchen.RequestIDNull)
			return e.Note.IsNull() && e.Parent.IsNull() && isNullID
		}},
		{`,"requestId":"","note":"","parent":{"x":0,"y":0}`, func(e *kitchen.Envelope) bool {
			n, ok := e.Note.Get()
			p, pok := e.Parent.Get()
			return ok && n == "" && pok && p.X == 0 && e.RequestID == kitchen.RequestIDStr("")
		}},
	}
	for _, c := range cases {
		in := head + c.member + tail
		e := decode(t, in)
		if !c.check(e) {
			t.Errorf("%s: states not kept apart: %+v", in, e)
		}
		if got := encode(t, e); got != in {
			t.Errorf("re-encoded\n%s\nwant\n%s", got, in)
		}
	}
	// A required nullable member is written as null when nil.
	e := decode(t, `{"id":"m","sessionId":"s","event":{"type":"started","at":"now"},"answer":null,"kind":"envelope"}`)
	if e.Answer != nil {
		t.Errorf("answer = %v, want nil", *e.Answer)
	}
}

func decodeErr(t *testing.T, in string) *wire.Error {
	t.Helper()
	var e kitchen.Envelope
	err := wire.Unmarshal([]byte(in), &e)
	var we *wire.Error
	if !errors.As(err, &we) {
		t.Fatalf("decode %s: error %v, want a *wire.Error", in, err)
	}
	return we
}

func TestDecodeErrorsNamePointers(t *testing.T) {
	ok := `"id":"m","sessionId":"s","event":{"type":"started","at":"now"},"answer":null,"kind":"envelope"`
	cases := []struct {
		in, pointer, msg string
		code             wire.Code
	}{
		// Member names match case-sensitively: SessionId does not fill sessionId.
		{`{"id":"m","SessionId":"s","event":{"type":"started","at":"now"},"answer":null,"kind":"envelope"}`, "", `missing required member "sessionId"`, wire.CodeRequired},
		{`{` + ok + `,"limits":{"port":70000}}`, "/limits/port", "out of range 0 to 65535", wire.CodeRange},
		{`{` + ok + `,"limits":{"count":-1}}`, "/limits/count", "out of range", wire.CodeRange},
		{`{` + ok + `,"limits":{"offset":1.5}}`, "/limits/offset", "not an integer", wire.CodeType},
		{`{` + ok + `,"limits":{"bogus":1}}`, "/limits", `member "bogus" is not allowed here`, wire.CodeUnknown},
		{`{"id":"m","sessionId":"s","event":{"type":"started","at":"now"},"answer":null,"kind":"other"}`, "/kind", `must be "envelope"`, wire.CodeConstraint},
		{`{` + ok + `,"tags":["a",7]}`, "/tags/1", "want a string", wire.CodeType},
		{`{` + ok + `,"id":"again"}`, "/id", "appears more than once", wire.CodeDuplicate},
		{`{"id":"m","sessionId":"s","event":{"at":"now"},"answer":null,"kind":"envelope"}`, "/event", `missing the tag member "type"`, wire.CodeTag},
		{`{"id":"m","sessionId":"s","event":{"type":"started"},"answer":null,"kind":"envelope"}`, "/event", `missing required member "at"`, wire.CodeRequired},
		{`{"id":"m","sessionId":"s","event":{"type":"moved","to":{"x":1,"y":2},"extra":1},"answer":null,"kind":"envelope"}`, "/event", `member "extra" is not allowed`, wire.CodeUnknown},
		{`{` + ok + `,"requestId":true}`, "/requestId", "want null or integer or string", wire.CodeType},
		{`{` + ok + `,"note":"\ud800"}`, "/note", "lone surrogate", wire.CodeUTF8},
		{"{" + ok + ",\"note\":\"\xff\"}", "/note", "invalid UTF-8", wire.CodeUTF8},
	}
	for _, c := range cases {
		we := decodeErr(t, c.in)
		if we.Pointer != c.pointer || !strings.Contains(we.Msg, c.msg) || we.Code != c.code {
			t.Errorf("%s\n got %q %q code %d\nwant %q containing %q code %d", c.in, we.Pointer, we.Msg, we.Code, c.pointer, c.msg, c.code)
		}
	}
}

func TestValidateNamesEveryViolation(t *testing.T) {
	e := decode(t, `{"id":"","sessionId":"s","event":{"type":"exploded","shrapnel":[1,2]},"answer":null,"kind":"envelope","tags":["ok","Bad","c","d"],"priority":"urgent","mode":"custom","at":"yesterday","limits":{"percent":0},"ratio":1,"label":""}`)
	err := e.Validate()
	var es wire.Errors
	if !errors.As(err, &es) {
		t.Fatalf("Validate = %v, want wire.Errors", err)
	}
	want := map[string]string{
		"/id":             "shorter than 1",
		"/event/type":     `"exploded" is not one of chunk, moved, started, thought_chunk`,
		"/tags":           "has 4 items, want at most 3",
		"/tags/1":         "does not match the pattern",
		"/priority":       `"urgent" is not one of low, normal, high`,
		"/limits/percent": "less than the minimum 1",
		"/ratio":          "not less than 1",
		"/at":             `"yesterday" is not a valid date-time`,
		"/label":          "shorter than 1",
	}
	got := map[string]string{}
	for _, x := range es {
		got[x.Pointer] = x.Msg
	}
	for p, msg := range want {
		if !strings.Contains(got[p], msg) {
			t.Errorf("at %s: got %q, want it to contain %q", p, got[p], msg)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d violations, want %d (the open enum mode accepts any value): %v", len(got), len(want), es)
	}
}

func TestUnknownVariantsKeepEveryByte(t *testing.T) {
	in := `{"id":"m","sessionId":"s","event":{"extra":[1, 2.50 ,{"z":null}],"type":"exploded"},"answer":null,"kind":"envelope","server":{"type":"ws","url":"x"}}`
	e := decode(t, in)
	u, ok := e.Event.(*kitchen.UnknownEvent)
	if !ok || u.Tag != "exploded" || string(u.Raw) != `{"extra":[1, 2.50 ,{"z":null}],"type":"exploded"}` {
		t.Fatalf("event = %#v", e.Event)
	}
	if s, ok := e.Server.(*kitchen.UnknownServer); !ok || s.Tag != "ws" {
		t.Fatalf("server = %#v", e.Server)
	}
	if got := encode(t, e); got != in {
		t.Errorf("re-encoded\n%s\nwant\n%s", got, in)
	}
	// An open union (with a catch-all) accepts the unknown op.
	p, err := kitchen.UnmarshalPick([]byte(`{"op":"mul","n":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(*kitchen.UnknownPick); !ok {
		t.Fatalf("pick = %T", p)
	}
	if err := kitchen.ValidatePick(p); err != nil {
		t.Errorf("an open union rejects an unknown tag: %v", err)
	}
}

func TestEncodingWritesTheTag(t *testing.T) {
	answer := "yes"
	e := &kitchen.Envelope{ID: "m", SessionID: "s", Answer: &answer, Event: &kitchen.Started{At: "now"}}
	got := encode(t, e)
	want := `{"id":"m","sessionId":"s","event":{"type":"started","at":"now"},"answer":"yes","kind":"envelope"}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// A variant that carries its tag itself writes it once.
	e.Event = &kitchen.Moved{To: kitchen.Point{X: 1, Y: 2}}
	if got := encode(t, e); !strings.Contains(got, `"event":{"type":"moved","to":{"x":1,"y":2}}`) {
		t.Errorf("got %s", got)
	}
	// Variants sharing one shape are distinct types, so the tag follows the type.
	e.Event = &kitchen.ThoughtChunk{Text: "hm"}
	if got := encode(t, e); !strings.Contains(got, `"event":{"type":"thought_chunk","text":"hm"}`) {
		t.Errorf("got %s", got)
	}
}

func TestUntaggedUnions(t *testing.T) {
	cases := map[string]string{`{"radius":1}`: "*kitchen.Circle", `{"w":1,"h":2}`: "*kitchen.Rect", `{"h":2,"w":1,"radius":3}`: "*kitchen.Rect"}
	for in, want := range cases {
		s, err := kitchen.UnmarshalShape([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := typeName(s); got != want {
			t.Errorf("%s decoded as %s, want %s", in, got, want)
		}
	}
	if _, err := kitchen.UnmarshalShape([]byte(`{"w":1}`)); err == nil || !strings.Contains(err.Error(), "required members of no variant") {
		t.Errorf("err = %v", err)
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *kitchen.Circle:
		return "*kitchen.Circle"
	case *kitchen.Rect:
		return "*kitchen.Rect"
	}
	return "other"
}

func TestDraft07(t *testing.T) {
	var l draft7.Legacy
	in := `{"name":"n","child":{"age":3},"tuple":[1,2]}`
	if err := wire.Unmarshal([]byte(in), &l); err != nil {
		t.Fatal(err)
	}
	if l.Child == nil || *l.Child.Age != 3 {
		t.Errorf("child = %+v: a draft-07 $ref must win over its sibling type", l.Child)
	}
	if got := encode(t, &l); got != in {
		t.Errorf("got %s", got)
	}
}

func TestMappedTypesComeFromTheirPackage(t *testing.T) {
	var u mapped.Uses
	in := `{"point":{"x":1,"y":2},"event":{"type":"chunk","text":"hi"},"mode":"ask"}`
	if err := wire.Unmarshal([]byte(in), &u); err != nil {
		t.Fatal(err)
	}
	if _, ok := u.Event.(*kitchen.EventChunk); !ok {
		t.Errorf("event = %T, want kitchen's own type", u.Event)
	}
	if *u.Mode != kitchen.ModeAsk {
		t.Errorf("mode = %v", *u.Mode)
	}
	if got := encode(t, &u); got != in {
		t.Errorf("got %s", got)
	}
}

func TestNamesAndCollisions(t *testing.T) {
	// HTTPUrl and http_url both want the Go name HTTPURL: the second gets a suffix.
	b := kitchen.BetterName{HTTPURL: ptr("a"), HTTPURLField: ptr("b")}
	if got := encode(t, &b); got != `{"HTTPUrl":"a","http_url":"b"}` {
		t.Errorf("got %s", got)
	}
	var s kitchen.Strict
	if err := wire.Unmarshal([]byte(`{"a":"x","b":1}`), &s); err == nil {
		t.Error("a closed object accepted an unknown member")
	}
	var p kitchen.Patterned
	if err := wire.Unmarshal([]byte(`{"fixed":true,"x-a":"1"}`), &p); err != nil {
		t.Fatal(err)
	}
	if got := encode(t, &p); got != `{"fixed":true,"x-a":"1"}` {
		t.Errorf("got %s", got)
	}
}

func ptr[T any](v T) *T { return &v }

func TestUnionsByElementLiteralAndKeySets(t *testing.T) {
	inv := map[string]string{
		`["a","b"]`:                       "Names",
		`[{"name":"a"}]`:                  "Entries",
		`[{"name":"a","version":"1"}]`:    "Pairs",
		`[]`:                              "Names",
		`[{"version":"1","name":"a"},{}]`: "error",
	}
	for in, want := range inv {
		v, err := kitchen.UnmarshalInventory([]byte(in))
		got := "error"
		switch v.(type) {
		case kitchen.InventoryNames:
			got = "Names"
		case kitchen.InventoryEntries:
			got = "Entries"
		case kitchen.InventoryPairs:
			got = "Pairs"
		}
		if got != want || (want == "error") != (err != nil) {
			t.Errorf("inventory %s = %s, %v; want %s", in, got, err, want)
		}
	}
	for in, want := range map[string]string{`5`: "Whole", `-12`: "Whole", `5.0`: "Fraction", `1e3`: "Fraction", `99999999999999999999`: "Fraction"} {
		v, err := kitchen.UnmarshalAmount([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got := "Fraction"
		if _, ok := v.(kitchen.AmountWhole); ok {
			got = "Whole"
		}
		if got != want {
			t.Errorf("amount %s = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{`{"method":"m"}`: "Call", `{"id":1,"method":"m"}`: "CallWithID"} {
		v, err := kitchen.UnmarshalRPC([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got := "Call"
		if _, ok := v.(*kitchen.CallWithID); ok {
			got = "CallWithID"
		}
		if got != want {
			t.Errorf("rpc %s = %s, want %s", in, got, want)
		}
	}
}

func TestClosedObjectWithPatternProperties(t *testing.T) {
	var v kitchen.Vendored
	in := `{"optional":true,"x-vendor.acme.cost":{"usd":1}}`
	if err := wire.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	if got := encode(t, &v); got != in {
		t.Errorf("got %s", got)
	}
	for _, bad := range []string{`{"x-acme":1}`, `{"x-vendor.acme":1}`, `{"other":1}`} {
		var v kitchen.Vendored
		if err := wire.Unmarshal([]byte(bad), &v); err == nil || !strings.Contains(err.Error(), "not allowed") {
			t.Errorf("%s: err = %v, want a member that is not allowed", bad, err)
		}
	}
}

// TestOurSchemasMapToOurPackages: a downstream schema that refers to a
// published agentproto schema by $id gets pkg/acp's types, not copies.
func TestOurSchemasMapToOurPackages(t *testing.T) {
	var n downstream.Note
	in := `{"author":"a","content":{"type":"text","text":"hi"},"stop":"end_turn"}`
	if err := wire.Unmarshal([]byte(in), &n); err != nil {
		t.Fatal(err)
	}
	if c, ok := n.Content.(*acp.TextContent); !ok || c.Text != "hi" {
		t.Errorf("content = %#v, want *acp.TextContent", n.Content)
	}
	if *n.Stop != acp.StopReasonEndTurn {
		t.Errorf("stop = %v", *n.Stop)
	}
	if got := encode(t, &n); got != in {
		t.Errorf("got %s", got)
	}
}

// TestVariantsOfMappedTypes: a union whose variants only wrap types of a
// mapped package gets defined types of its own (a type of another package
// cannot be a variant here), tag included.
func TestVariantsOfMappedTypes(t *testing.T) {
	in := `{"author":"a","content":{"type":"text","text":"x"},"part":{"kind":"plan","entries":[{"content":"c","priority":"high","status":"pending"}]}}`
	var n downstream.Note
	if err := wire.Unmarshal([]byte(in), &n); err != nil {
		t.Fatal(err)
	}
	p, ok := n.Part.(*downstream.Plan)
	if !ok || len(p.Entries) != 1 {
		t.Fatalf("part = %#v", n.Part)
	}
	if got := encode(t, &n); got != in {
		t.Errorf("got %s", got)
	}
	if got := encode(t, p); got != `{"kind":"plan","entries":[{"content":"c","priority":"high","status":"pending"}]}` {
		t.Errorf("the variant on its own: %s", got)
	}
}

// TestFallbackVariant: in an untagged union whose last alternative accepts
// anything, values no other variant takes are kept raw, byte for byte.
func TestFallbackVariant(t *testing.T) {
	cases := map[string]string{`{"after":3}`: "Retry", `"later"`: "Message", `{"code":7}`: "Other", `[1, 2]`: "Other", `true`: "Other"}
	for in, want := range cases {
		v, err := kitchen.UnmarshalDetail([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got := "?"
		switch v.(type) {
		case *kitchen.Retry:
			got = "Retry"
		case kitchen.DetailMessage:
			got = "Message"
		case kitchen.DetailOther:
			got = "Other"
		}
		if got != want {
			t.Errorf("%s decoded as %s, want %s", in, got, want)
		}
		out, err := kitchen.MarshalDetail(v)
		if err != nil || string(out) != in {
			t.Errorf("%s re-encoded as %s, %v", in, out, err)
		}
	}
}
