package acp

import (
	"errors"
	"fmt"

	"github.com/agentproto/agentproto/pkg/wire"
)

// Message is one line of an ACP stream: exactly one of Request,
// Notification and Response is set. Params and results stay raw JSON until
// DecodeParams or DecodeResult gives them their method's type, because
// their type depends on the method (and, for a result, on the request it
// answers).
type Message struct {
	Request      *Request
	Notification *Notification
	Response     *Response
}

// DecodeMessage decodes one JSON-RPC message strictly (member names match
// case-sensitively; malformed JSON, invalid UTF-8 and duplicate members are
// errors). A message with "method" and "id" is a request, with "method"
// alone a notification, and any other a response.
func DecodeMessage(line []byte) (Message, error) {
	buf := append([]byte(nil), line...)
	d := wire.NewDecoder(buf)
	keys, err := d.PeekKeys([]string{"method", "id"})
	if err != nil {
		return Message{}, err
	}
	var m Message
	var v wire.Decodable
	switch {
	case keys == 3:
		m.Request = new(Request)
		v = m.Request
	case keys&1 != 0:
		m.Notification = new(Notification)
		v = m.Notification
	default:
		m.Response = new(Response)
		v = m.Response
	}
	if err := v.DecodeWire(d); err != nil {
		return Message{}, err
	}
	return m, d.End()
}

// EncodeWire encodes the message.
func (m *Message) EncodeWire(e *wire.Encoder) {
	switch {
	case m.Request != nil:
		m.Request.EncodeWire(e)
	case m.Notification != nil:
		m.Notification.EncodeWire(e)
	case m.Response != nil:
		m.Response.EncodeWire(e)
	default:
		e.Null()
	}
}

// MarshalJSON encodes the message.
func (m Message) MarshalJSON() ([]byte, error) { return wire.Marshal(&m) }

// Method is the method of a request or notification, "" for a response.
func (m Message) Method() string {
	switch {
	case m.Request != nil:
		return m.Request.Method
	case m.Notification != nil:
		return m.Notification.Method
	}
	return ""
}

// ErrNoSchema is returned by DecodeParams and DecodeResult for methods the
// table does not know: extension methods and unknown names.
var ErrNoSchema = errors.New("acp: the method has no schema in the method table")

// DecodeParams decodes the params of a request or notification into the
// generated type of its method, such as *PromptRequest for "session/prompt"
// or *SessionNotification for "session/update". The value is not validated;
// call Validate on it (or ValidateValue) for the schema's constraints.
func DecodeParams(method string, params []byte) (any, error) {
	m, ok := LookupMethod(method)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoSchema, method)
	}
	c, ok := m.Params()
	if !ok {
		return nil, fmt.Errorf("acp: no Go type for the params of %q (schema %s)", method, m.ParamsSchema)
	}
	return c.DecodeBytes(params)
}

// DecodeResult decodes the result of a response into the generated type of
// the method of the request it answers.
func DecodeResult(method string, result []byte) (any, error) {
	m, ok := LookupMethod(method)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoSchema, method)
	}
	c, ok := m.Result()
	if !ok {
		return nil, fmt.Errorf("acp: %q is a notification and has no result", method)
	}
	return c.DecodeBytes(result)
}

// DecodeNotification decodes a notification line in one pass, with its
// params straight into params (for example a *SessionNotification for
// "session/update"), and returns the method. It is the fast path for a
// receiver that knows what it expects; members of the envelope other than
// jsonrpc, method and params are an error here (DecodeMessage keeps them).
func DecodeNotification(line []byte, params wire.Decodable) (string, error) {
	buf := append([]byte(nil), line...)
	d := wire.NewDecoder(buf)
	if err := d.BeginObject(); err != nil {
		return "", err
	}
	var method string
	var seen [3]bool
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return "", err
		}
		if !more {
			break
		}
		i := -1
		switch string(key) {
		case "jsonrpc":
			i = 0
			v, err := d.String()
			if err != nil {
				return "", wire.At(err, "jsonrpc")
			}
			if v != "2.0" {
				return "", wire.At(wire.ConstError(d.Offset(), `"2.0"`), "jsonrpc")
			}
		case "method":
			i = 1
			if method, err = d.String(); err != nil {
				return "", wire.At(err, "method")
			}
		case "params":
			i = 2
			if err := params.DecodeWire(d); err != nil {
				return "", wire.At(err, "params")
			}
		default:
			return "", wire.UnknownError(d.Offset(), string(key), "jsonrpc", "method", "params")
		}
		if seen[i] {
			return "", wire.DuplicateError(d.Offset(), string(key))
		}
		seen[i] = true
	}
	if !seen[0] || !seen[1] || !seen[2] {
		var missing []string
		for i, name := range []string{"jsonrpc", "method", "params"} {
			if !seen[i] {
				missing = append(missing, name)
			}
		}
		return "", wire.RequiredError(0, missing...)
	}
	return method, d.End()
}

// EncodeNotification writes a notification with the given params.
func EncodeNotification(e *wire.Encoder, method string, params wire.Encodable) {
	e.BeginObject()
	e.RawKey(`"jsonrpc":`)
	e.RawValue(`"2.0"`)
	e.RawKey(`"method":`)
	e.String(method)
	e.RawKey(`"params":`)
	params.EncodeWire(e)
	e.EndObject()
}
