package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentproto/agentproto/pkg/wire"
)

// The error codes JSON-RPC 2.0 defines, and the one ACP and LSP use for a
// request its sender cancelled.
const (
	ParseError       int64 = -32700
	InvalidRequest   int64 = -32600
	MethodNotFound   int64 = -32601
	InvalidParams    int64 = -32602
	InternalError    int64 = -32603
	RequestCancelled int64 = -32800
)

// Error is a JSON-RPC error object: the answer to a request that failed.
// A handler returns one to choose the code; Call returns the peer's.
type Error struct {
	Code    int64
	Message string
	// Data is the raw JSON of the data member, nil when absent.
	Data json.RawMessage
}

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string {
	return fmt.Sprintf("jsonrpc: error %d: %s", e.Code, e.Message)
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, &jsonrpc.Error{Code: jsonrpc.MethodNotFound}) tests a code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// EncodeWire writes the error object.
func (e *Error) EncodeWire(enc *wire.Encoder) {
	enc.BeginObject()
	enc.RawKey(`"code":`)
	enc.Int64(e.Code)
	enc.RawKey(`"message":`)
	enc.String(e.Message)
	if e.Data != nil {
		enc.RawKey(`"data":`)
		enc.Raw(e.Data)
	}
	enc.EndObject()
}

// DecodeWire reads an error object: code and message are required, other
// members are ignored.
func (e *Error) DecodeWire(d *wire.Decoder) error {
	if err := d.BeginObject(); err != nil {
		return err
	}
	var code, msg bool
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return err
		}
		if !more {
			break
		}
		switch string(key) {
		case "code":
			if e.Code, err = d.Int64(); err != nil {
				return wire.At(err, "code")
			}
			code = true
		case "message":
			if e.Message, err = d.String(); err != nil {
				return wire.At(err, "message")
			}
			msg = true
		case "data":
			if e.Data, err = wire.DecodeRaw(d); err != nil {
				return wire.At(err, "data")
			}
		default:
			if err := d.Skip(); err != nil {
				return err
			}
		}
	}
	if !code || !msg {
		return errors.New("an error object needs code and message")
	}
	return nil
}

type kind uint8

const (
	kindUnparsed kind = iota // not JSON
	kindInvalid              // JSON, but no JSON-RPC envelope
	kindRequest
	kindNotification
	kindResponse
)

// message is one parsed line; the slices share its memory.
type message struct {
	kind   kind
	id     []byte
	method string
	params []byte
	result []byte
	err    *Error
}

// parseMessage reads one JSON-RPC 2.0 message. Members the envelope does not
// define are ignored, as JSON-RPC asks of a receiver. On error, kind says
// how far the message was understood (kindRequest: its id can be
// answered).
func parseMessage(line []byte) (message, error) {
	var m message
	d := wire.NewDecoder(line)
	if err := d.BeginObject(); err != nil {
		if d.Kind() == wire.KindArray {
			return m, errors.New("batches are not supported: send one message per line")
		}
		return m, err
	}
	var version, hasMethod, hasResult, hasError, hasID bool
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return message{}, err
		}
		if !more {
			break
		}
		switch string(key) {
		case "jsonrpc":
			v, err := d.String()
			if err != nil || v != "2.0" {
				return message{kind: kindInvalid}, errors.New(`"jsonrpc" must be "2.0"`)
			}
			version = true
		case "id":
			if m.id, err = d.Raw(); err != nil {
				return message{}, err
			}
			hasID = true
		case "method":
			if m.method, err = d.String(); err != nil {
				return message{kind: kindInvalid}, wire.At(err, "method")
			}
			hasMethod = true
		case "params":
			if m.params, err = d.Raw(); err != nil {
				return message{}, err
			}
		case "result":
			if m.result, err = d.Raw(); err != nil {
				return message{}, err
			}
			hasResult = true
		case "error":
			e := new(Error)
			if err := e.DecodeWire(d); err != nil {
				return message{kind: kindInvalid}, wire.At(err, "error")
			}
			m.err = e
			hasError = true
		default:
			if err := d.Skip(); err != nil {
				return message{}, err
			}
		}
	}
	if err := d.End(); err != nil {
		return message{}, err
	}
	switch {
	case hasMethod && hasID:
		m.kind = kindRequest
	case hasMethod:
		m.kind = kindNotification
	default:
		m.kind = kindResponse
	}
	switch {
	case !version:
		return message{kind: kindInvalid}, errors.New(`the message has no "jsonrpc":"2.0"`)
	case hasID && !validID(m.id):
		return message{kind: kindInvalid}, errors.New("an id must be a string, a number or null")
	case m.kind == kindResponse && !hasID:
		return m, errors.New("a message needs a method (a request or notification) or an id (an answer)")
	case m.kind == kindResponse && hasResult == hasError:
		return m, errors.New("an answer has exactly one of result and error")
	case m.kind != kindResponse && (hasResult || hasError):
		return m, errors.New("a request or notification has no result or error")
	}
	return m, nil
}

func validID(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// memberRaw returns the raw value of the member name of the object params.
func memberRaw(params []byte, name string) ([]byte, error) {
	d := wire.NewDecoder(params)
	if err := d.BeginObject(); err != nil {
		return nil, err
	}
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return nil, err
		}
		if !more {
			return nil, fmt.Errorf("the params have no %q", name)
		}
		if string(key) == name {
			return d.Raw()
		}
		if err := d.Skip(); err != nil {
			return nil, err
		}
	}
}
