package wire_test

import (
	"fmt"

	"github.com/agentproto/agentproto/pkg/wire"
)

// point is written by hand here the way protogen writes it: a DecodeWire
// that walks the members (handing a member's error to Recover, which in
// a collecting decoder records it and goes on), an EncodeWire that writes
// them.
type point struct {
	X, Y    int64
	Unknown wire.Members
}

func (p *point) DecodeWire(d *wire.Decoder) error {
	*p = point{}
	start := d.Offset()
	if err := d.BeginObject(); err != nil {
		return err
	}
	for {
		key, more, err := d.NextKey()
		if err != nil || !more {
			return err
		}
		switch string(key) {
		case "x":
			if p.X, err = d.Int64(); err != nil {
				if err := d.Recover(wire.At(err, "x"), start, 0); err != nil {
					return err
				}
			}
		case "y":
			if p.Y, err = d.Int64(); err != nil {
				if err := d.Recover(wire.At(err, "y"), start, 0); err != nil {
					return err
				}
			}
		default:
			raw, err := wire.DecodeRaw(d)
			if err != nil {
				return wire.At(err, string(key))
			}
			p.Unknown = append(p.Unknown, wire.Member{Key: string(key), Value: raw})
		}
	}
}

func (p *point) EncodeWire(e *wire.Encoder) {
	e.BeginObject()
	e.RawKey(`"x":`)
	e.Int64(p.X)
	e.RawKey(`"y":`)
	e.Int64(p.Y)
	p.Unknown.Encode(e)
	e.EndObject()
}

func ExampleUnmarshal() {
	var p point
	// Names match case-sensitively: "X" is not "x", so it is kept as an
	// unknown member rather than filling X.
	if err := wire.Unmarshal([]byte(`{"x":1,"y":2,"X":3,"label":"a"}`), &p); err != nil {
		fmt.Println(err)
		return
	}
	out, _ := wire.Marshal(&p)
	fmt.Println(p.X, p.Y, string(out))

	// Errors carry the JSON pointer of the offending value.
	err := wire.Unmarshal([]byte(`{"x":1,"y":"two"}`), &p)
	fmt.Println(err)
	// Output:
	// 1 2 {"x":1,"y":2,"X":3,"label":"a"}
	// /y: got a string, want an integer (at byte 11)
}

func ExampleOpt() {
	for _, o := range []wire.Opt[string]{{}, wire.Null[string](), wire.Some("")} {
		v, ok := o.Get()
		fmt.Printf("absent=%v null=%v value=%q ok=%v\n", o.IsAbsent(), o.IsNull(), v, ok)
	}
	// Output:
	// absent=true null=false value="" ok=false
	// absent=false null=true value="" ok=false
	// absent=false null=false value="" ok=true
}

// One decoder reads many lines: Reset points it at the next one without
// allocating, and Seek finds a member by its JSON pointer.
func ExampleDecoder_Reset() {
	lines := []string{
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"sess_1"}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"sess_2"}}`,
	}
	var d wire.Decoder
	for _, line := range lines {
		d.Reset([]byte(line))
		if found, err := d.Seek("/params/sessionId"); !found || err != nil {
			fmt.Println("no session id:", err)
			continue
		}
		id, err := d.String()
		fmt.Println(id, err)
	}
	// Output:
	// sess_1 <nil>
	// sess_2 <nil>
}

// A codec checks a value in place: CheckAt decodes the value at a pointer
// strictly and validates it. Here the codec is written by hand for point;
// protogen writes one for every schema type.
func ExampleCodec_CheckAt() {
	codec := wire.Codec{
		Name:     "point",
		Complete: true, // the schema has no constraint the type leaves unchecked
		Decode: func(d *wire.Decoder) (any, error) {
			p := new(point)
			return p, p.DecodeWire(d)
		},
		Check: func(c *wire.Checker, ptr string, v any) {
			if v.(*point).X < 0 {
				c.Fail(wire.Join(ptr, "x"), "x must not be negative")
			}
		},
	}
	var d wire.Decoder
	for _, line := range []string{
		`{"id":1,"at":{"x":1,"y":2}}`,
		`{"id":2,"at":{"x":1,"y":2,"z":3}}`,
		`{"id":3,"at":{"x":-1,"y":2}}`,
		`{"id":4,"at":{"x":"1","y":2}}`,
	} {
		d.Reset([]byte(line))
		valid, known := codec.CheckAt(&d, "/at")
		fmt.Println(valid, known)
	}
	// Output:
	// true true
	// true false
	// false false
	// false false
}

// ExplainAt lists every defect of the value at a pointer: the decoding
// errors (with their offsets in the input), then what Check finds in the
// members that decoded. whole says the list is every defect a schema
// validator would report. An error that names what it found and what the
// schema wants there has them in Got and Want.
func ExampleCodec_ExplainAt() {
	codec := wire.Codec{
		Name:     "point",
		Complete: true,
		Decode: func(d *wire.Decoder) (any, error) {
			p := new(point)
			return p, p.DecodeWire(d)
		},
		Check: func(c *wire.Checker, ptr string, v any) {
			p := v.(*point)
			if p.X < 0 {
				c.FailKeyword(c.Join(ptr, "x"), "minimum", "%d is less than 0", p.X)
			}
			if p.Y < 0 {
				c.FailKeyword(c.Join(ptr, "y"), "minimum", "%d is less than 0", p.Y)
			}
		},
	}
	var d wire.Decoder
	for _, line := range []string{
		`{"id":1,"at":{"x":"1","y":-2}}`,
		`{"id":2,"at":{"x":1,"y":2}}`,
		`{"id":3,"at":{"x":-1,"y":2`,
	} {
		d.Reset([]byte(line))
		errs, whole := codec.ExplainAt(&d, "/at")
		fmt.Println(len(errs), "defects, whole:", whole)
		for _, e := range errs {
			fmt.Printf("  %q %s: %s\n", e.Pointer, e.Keyword, e.Msg)
			if e.Want != nil {
				fmt.Printf("    found %s, the schema wants %v\n", e.Got, e.Want)
			}
		}
	}
	// Output:
	// 2 defects, whole: true
	//   "/x" type: got a string, want an integer
	//     found string, the schema wants [integer]
	//   "/y" minimum: -2 is less than 0
	// 0 defects, whole: true
	// 1 defects, whole: false
	//   "" : unexpected end of input in an object
}
