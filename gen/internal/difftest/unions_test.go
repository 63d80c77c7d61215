package difftest_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/gen/internal/difftest/codes"
	"github.com/agentproto/agentproto/gen/internal/difftest/optionaltag"
	"github.com/agentproto/agentproto/gen/internal/difftest/recursive"
	"github.com/agentproto/agentproto/gen/internal/difftest/scalarunion"
	"github.com/agentproto/agentproto/gen/internal/difftest/shared"
	"github.com/agentproto/agentproto/pkg/wire"
)

// TestRecursiveVariantWritesItsTagOnce: a variant that holds its own
// union, listed before the union in its schema, encodes its tag once,
// byte for byte as it came, at every level.
func TestRecursiveVariantWritesItsTagOnce(t *testing.T) {
	for _, in := range []string{`{"kind":"and","el":{"kind":"name"}}`, `{"kind":"and","el":{"kind":"and","el":{"kind":"name"}}}`} {
		v, err := recursive.UnmarshalExpr([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if _, ok := v.(*recursive.And); !ok {
			t.Errorf("%s decoded as %T", in, v)
		}
		out, err := recursive.MarshalExpr(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != in {
			t.Errorf("%s encoded as %s", in, out)
		}
	}
	var a recursive.And
	if err := wire.Unmarshal([]byte(`{"kind":"name","el":{"kind":"name"}}`), &a); err == nil {
		t.Error("And decoded a value tagged name")
	}
}

// TestOptionalTagIsTheDefaults: a variant whose tag member is optional
// and fixed (absent means its value, as MCP's form elicitation reads)
// takes values with that tag as well as without it, keeps the member as
// it came, and Validate finds nothing wrong; another tag is the Unknown
// variant and names both known tags.
func TestOptionalTagIsTheDefaults(t *testing.T) {
	for _, in := range []string{`{"message":"name?"}`, `{"mode":"form","message":"name?"}`} {
		v, err := optionaltag.UnmarshalOptionaltag([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if _, ok := v.(*optionaltag.FormParams); !ok {
			t.Errorf("%s decoded as %T, want *FormParams", in, v)
		}
		if err := optionaltag.ValidateOptionaltag(v); err != nil {
			t.Errorf("%s: %v", in, err)
		}
		if out, err := optionaltag.MarshalOptionaltag(v); err != nil || string(out) != in {
			t.Errorf("%s encoded as %s, %v", in, out, err)
		}
		w, err := optionaltag.UnmarshalInline([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if _, ok := w.(*optionaltag.InlineForm); !ok {
			t.Errorf("%s decoded as %T, want *InlineForm", in, w)
		}
		if out, err := optionaltag.MarshalInline(w); err != nil || string(out) != in {
			t.Errorf("inline: %s encoded as %s, %v", in, out, err)
		}
	}
	v, err := optionaltag.UnmarshalOptionaltag([]byte(`{"mode":"sms","message":"code?"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := v.(*optionaltag.UnknownOptionaltag); !ok {
		t.Fatalf("an unknown mode decoded as %T", v)
	}
	if err := optionaltag.ValidateOptionaltag(v); err == nil || !strings.Contains(err.Error(), `"sms" is not one of form, url`) {
		t.Errorf("Validate of an unknown mode: %v", err)
	}
}

// TestMembersBesideOneOf: the members a schema defines beside its oneOf
// belong to every variant: each variant decodes, keeps and encodes them,
// and Validate checks them (id is required and not empty).
func TestMembersBesideOneOf(t *testing.T) {
	for _, c := range []struct {
		in  string
		err string
	}{
		{`{"id":"d1","person":"ana"}`, ""},
		{`{"id":"d2","note":"urgent","group":"ops","size":3}`, ""},
		{`{"id":"","person":"ana"}`, "/id"},
		{`{"person":"ana"}`, "id"},
		{`{"group":"ops"}`, "id"},
	} {
		v, err := shared.UnmarshalDelivery([]byte(c.in))
		if err == nil {
			err = shared.ValidateDelivery(v)
		}
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want an error at %s", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if out, err := shared.MarshalDelivery(v); err != nil || string(out) != c.in {
			t.Errorf("%s encoded as %s, %v", c.in, out, err)
		}
	}
	v, err := shared.UnmarshalDelivery([]byte(`{"id":"d1","note":"n","person":"ana"}`))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := v.(*shared.DeliveryPerson)
	if !ok || p.ID != "d1" || p.Note == nil || *p.Note != "n" || p.Person != "ana" {
		t.Errorf("decoded as %#v", v)
	}
	if p != nil && len(p.Unknown) != 0 {
		t.Errorf("the shared members were kept as unknown members: %#v", p.Unknown)
	}
}

// TestIntegerTags: a union whose variants fix an integer member (A2A's
// errors, told apart by a const JSON-RPC code) is tagged by it: the code
// decides the variant, whatever the form of the number (-32601.0 is
// -32601, as for const), the tag is written back, and a code no
// variant lists is the Unknown variant, which Validate reports with the
// listed codes.
func TestIntegerTags(t *testing.T) {
	for _, c := range []struct {
		in   string
		want reflect.Type
		out  string // "" when it is in
	}{
		{`{"code":-32700,"message":"Parse error"}`, reflect.TypeFor[*codes.ParseError](), ""},
		{`{"message":"Method not found","code":-32601}`, reflect.TypeFor[*codes.MethodNotFound](), `{"code":-32601,"message":"Method not found"}`},
		{`{"code":-32601.0,"message":"m"}`, reflect.TypeFor[*codes.MethodNotFound](), `{"code":-32601,"message":"m"}`},
		{`{"code":-32001,"message":"Task not found"}`, reflect.TypeFor[*codes.TaskNotFound](), ""},
		{`{"code":-32800,"message":"Cancelled"}`, reflect.TypeFor[*codes.Cancelled](), ""},
		{`{"code":-32099,"message":"Other"}`, reflect.TypeFor[*codes.UnknownRPCError](), ""},
	} {
		v, err := codes.UnmarshalRPCError([]byte(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if g := reflect.TypeOf(v); g != c.want {
			t.Errorf("%s decoded as %v, want %v", c.in, g, c.want)
		}
		want := c.out
		if want == "" {
			want = c.in
		}
		if out, err := codes.MarshalRPCError(v); err != nil || string(out) != want {
			t.Errorf("%s encoded as %s, %v; want %s", c.in, out, err, want)
		}
	}
	v, err := codes.UnmarshalRPCError([]byte(`{"code":-32099,"message":"Other"}`))
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := v.(*codes.UnknownRPCError); !ok || u.Tag != "-32099" {
		t.Errorf("an unlisted code decoded as %#v", v)
	}
	if err := codes.ValidateRPCError(v); err == nil || !strings.Contains(err.Error(), "/code: -32099 is not one of -32800, -32700, -32601, -32001") {
		t.Errorf("Validate of an unlisted code: %v", err)
	}
	for _, in := range []string{`{"code":"-32601","message":"m"}`, `{"code":-32601.5,"message":"m"}`, `{"code":-32700,"message":7}`} {
		if _, err := codes.UnmarshalRPCError([]byte(in)); err == nil {
			t.Errorf("%s decoded", in)
		}
	}
	// Built in Go, an Unknown variant writes its code as a number.
	if out, err := codes.MarshalRPCError(&codes.UnknownRPCError{Tag: "-32099"}); err != nil || string(out) != `{"code":-32099}` {
		t.Errorf("an Unknown built in Go encoded as %s, %v", out, err)
	}
	if _, err := codes.MarshalRPCError(&codes.UnknownRPCError{Tag: "x"}); err == nil {
		t.Error("an Unknown whose code is no integer encoded")
	}
}

// TestStandardCodesByName: an integer enum names JSON-RPC's standard
// error codes (and the cancelled request's) by what they mean; other
// codes keep their digits.
func TestStandardCodesByName(t *testing.T) {
	for name, c := range map[string]codes.ErrorCode{
		"ParseError": codes.ErrorCodeParseError, "InvalidRequest": codes.ErrorCodeInvalidRequest,
		"MethodNotFound": codes.ErrorCodeMethodNotFound, "InvalidParams": codes.ErrorCodeInvalidParams,
		"InternalError": codes.ErrorCodeInternalError, "RequestCancelled": codes.ErrorCodeRequestCancelled,
		"Minus32001": codes.ErrorCodeMinus32001,
	} {
		if !c.Valid() {
			t.Errorf("%s (%d) is not valid", name, c)
		}
	}
	want := map[codes.ErrorCode]codes.ErrorCode{-32700: codes.ErrorCodeParseError, -32600: codes.ErrorCodeInvalidRequest,
		-32601: codes.ErrorCodeMethodNotFound, -32602: codes.ErrorCodeInvalidParams, -32603: codes.ErrorCodeInternalError,
		-32800: codes.ErrorCodeRequestCancelled}
	for n, c := range want {
		if n != c {
			t.Errorf("the constant for %d is %d", n, c)
		}
	}
}

// TestScalarTypeLists: a list of scalar JSON types (MCP's RequestId, a
// string or an integer) is a sealed union with a type per JSON type, as
// an anyOf of the same types is: the value decides the variant, a Go
// value is made by converting to a variant's type, and a value of a type
// the list lacks is a decode error.
func TestScalarTypeLists(t *testing.T) {
	for _, c := range []struct {
		in   string
		want scalarunion.RequestID
	}{
		{`"abc"`, scalarunion.RequestIDString("abc")},
		{`7`, scalarunion.RequestIDInteger(7)},
		{`-3`, scalarunion.RequestIDInteger(-3)},
	} {
		v, err := scalarunion.UnmarshalRequestID([]byte(c.in))
		if err != nil || v != c.want {
			t.Errorf("%s decoded as %#v, %v; want %#v", c.in, v, err, c.want)
		}
		if out, err := scalarunion.MarshalRequestID(c.want); err != nil || string(out) != c.in {
			t.Errorf("%#v encoded as %s, %v", c.want, out, err)
		}
	}
	for _, in := range []string{`1.5`, `true`, `null`, `{}`, `[]`} {
		if v, err := scalarunion.UnmarshalRequestID([]byte(in)); err == nil {
			t.Errorf("%s decoded as %#v", in, v)
		}
	}
	if v, err := scalarunion.UnmarshalMaybeID([]byte(`null`)); err != nil || v != (scalarunion.MaybeIDNull{}) {
		t.Errorf("null decoded as %#v, %v", v, err)
	}
	var p scalarunion.Progress
	if err := wire.Unmarshal([]byte(`{"progressToken":9,"requestId":"r"}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.ProgressToken != scalarunion.RequestIDInteger(9) || p.RequestID != scalarunion.RequestIDString("r") {
		t.Errorf("decoded as %#v", p)
	}
	if v, err := scalarunion.UnmarshalFlag([]byte(`2`)); err != nil || v != scalarunion.FlagNumber(2) {
		t.Errorf("2 decoded as %#v, %v", v, err)
	}
}
