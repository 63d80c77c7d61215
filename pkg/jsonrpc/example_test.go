package jsonrpc_test

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/agentproto/agentproto/pkg/jsonrpc"
	"github.com/agentproto/agentproto/pkg/wire"
)

// text is a JSON string, as params and result.
type text string

func (t text) EncodeWire(e *wire.Encoder) { e.String(string(t)) }

func (t *text) DecodeWire(d *wire.Decoder) error {
	s, err := d.String()
	*t = text(s)
	return err
}

// Two connections joined by pipes: one serves "shout", the other calls it
// and a method nobody serves.
func ExampleConn() {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	server := jsonrpc.NewConn(ar, aw, jsonrpc.Options{})
	client := jsonrpc.NewConn(br, bw, jsonrpc.Options{})
	go func() {
		_ = server.Serve(context.Background(), jsonrpc.HandlerFunc(func(ctx context.Context, r *jsonrpc.Request) (wire.Encodable, error) {
			if r.Method != "shout" {
				return nil, jsonrpc.Errorf(jsonrpc.MethodNotFound, "no method %s", r.Method)
			}
			var in text
			if err := wire.Unmarshal(r.Params, &in); err != nil {
				return nil, jsonrpc.Errorf(jsonrpc.InvalidParams, "%v", err)
			}
			return text(in + "!"), nil
		}))
		aw.Close()
	}()
	go func() { _ = client.Serve(context.Background(), nil) }()

	var out text
	if err := client.Call(context.Background(), "shout", text("hello"), &out, nil); err != nil {
		fmt.Println(err)
	}
	fmt.Println(out)
	err := client.Call(context.Background(), "whisper", text("hello"), nil, nil)
	fmt.Println(errors.Is(err, &jsonrpc.Error{Code: jsonrpc.MethodNotFound}), err)
	bw.Close()
	<-client.Done()
	// Output:
	// hello!
	// true jsonrpc: error -32601: no method whisper
}
