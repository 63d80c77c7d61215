package testtypes_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/gen/internal/testtypes/embed"
	"github.com/agentproto/agentproto/pkg/wire"
)

// A message whose schema is an allOf of a $ref to the envelope plus
// members of its own holds an embedded Envelope and only its own members;
// the envelope's members are reached through it.
func TestAllOfRefEmbeds(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeOf(embed.Ping{}), reflect.TypeOf(embed.Note{})} {
		f, ok := typ.FieldByName("Envelope")
		if !ok || !f.Anonymous || f.Type != reflect.TypeOf(embed.Envelope{}) {
			t.Errorf("%s does not embed Envelope: %+v", typ.Name(), f)
		}
		if typ.NumField() > 5 {
			t.Errorf("%s has %d fields: the envelope's members are repeated", typ.Name(), typ.NumField())
		}
	}
	p := embed.Ping{Envelope: embed.Envelope{V: "1", ID: "m1"}, Trace: "ab12", Payload: embed.PingPayload{Nonce: "n"}}
	// The envelope's own Type is not used: the encoder writes the const.
	p.Type = "other"
	if got, want := encode(t, &p), `{"v":"1","id":"m1","type":"ping","trace":"ab12","payload":{"nonce":"n"}}`; got != want {
		t.Errorf("encoded\n%s\nwant\n%s", got, want)
	}
	if p.ID != "m1" {
		t.Errorf("promoted ID = %q", p.ID)
	}
}

// Decoding and encoding interleave the embedded members with the type's
// own in schema order, byte for byte, unknown members last.
func TestEmbeddedRoundTrip(t *testing.T) {
	for _, in := range []string{
		`{"v":"2","id":"m1","type":"ping","trace":"ab12","seq":3,"tags":["a","b"],"payload":{"nonce":"n","x":1},"hops":2,"later":[true]}`,
		`{"v":"1","id":"m2","type":"note","payload":{"any":"thing"},"text":"hello"}`,
	} {
		var v interface {
			wire.Encodable
			wire.Decodable
			Validate() error
		}
		if strings.Contains(in, `"note"`) {
			v = new(embed.Note)
		} else {
			v = new(embed.Ping)
		}
		if err := wire.Unmarshal([]byte(in), v); err != nil {
			t.Fatalf("decode %s: %v", in, err)
		}
		if err := v.Validate(); err != nil {
			t.Errorf("Validate %s: %v", in, err)
		}
		if got := encode(t, v); got != in {
			t.Errorf("re-encoded\n%s\nwant\n%s", got, in)
		}
	}
	var p embed.Ping
	if err := wire.Unmarshal([]byte(`{"v":"2","id":"m1","type":"ping","trace":"ab12","seq":3,"payload":{"nonce":"n"}}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.Seq == nil || *p.Seq != 3 || p.Trace != "ab12" || p.Envelope.Trace != nil || p.Payload.Nonce != "n" || p.Envelope.Payload != nil {
		t.Errorf("decoded into the wrong fields: %+v", p)
	}
}

// Errors name members in schema order whether the embedded value or the
// type itself holds them.
func TestEmbeddedErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"type":"ping","payload":{"nonce":"n"}}`, `"v", "id", "trace"`},
		{`{"v":"1","id":"m","id":"n","type":"ping","trace":"ab12","payload":{"nonce":"n"}}`, `member "id" appears more than once`},
		{`{"v":"1","id":"m","type":"ping","trace":"ab12","seq":"3","payload":{"nonce":"n"}}`, `seq`},
		{`{"v":"1","id":"m","type":"pong","trace":"ab12","payload":{"nonce":"n"}}`, `type`},
	} {
		var p embed.Ping
		err := wire.Unmarshal([]byte(c.in), &p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("decode %s: %v, want an error with %s", c.in, err, c.want)
		}
	}
	var p embed.Ping
	if err := wire.Unmarshal([]byte(`{"v":"1","id":"","type":"ping","trace":"XYZ","seq":0,"tags":["a","a"],"payload":{"nonce":""},"hops":9}`), &p); err != nil {
		t.Fatal(err)
	}
	err := p.Validate()
	if err == nil {
		t.Fatal("Validate accepted an empty id, a bad trace, seq 0, repeated tags, an empty nonce and 9 hops")
	}
	msg := err.Error()
	last := -1
	for _, ptr := range []string{"/id", "/trace", "/seq", "/tags", "/payload/nonce", "/hops"} {
		i := strings.Index(msg, ptr)
		if i < 0 {
			t.Errorf("Validate does not report %s: %v", ptr, msg)
			continue
		}
		if i < last {
			t.Errorf("Validate reports %s out of schema order: %v", ptr, msg)
		}
		last = i
	}
}
