package acp_test

import (
	"testing"

	"github.com/agentproto/agentproto/pkg/validate"
)

const (
	initV2  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"ed","version":"1"},"capabilities":{}}}`
	initV2R = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2,"info":{"name":"ag","version":"1"},"capabilities":{"session":{}}}}`
)

// In v2, as in v1, an error with id null answers a message whose id could
// not be read; one that answers a readable request or a notification is
// the state rule's, not the envelope's.
func TestV2NullIDAnswers(t *testing.T) {
	got, _ := check(t, validate.Options{}, initV2, initV2R,
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w"`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/list","params":{"cursor":"c"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"Invalid params"}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`)
	if r := rules(got); r != "3 error json /params; 6 error notification-answer /id; 8 error notification-answer /id" {
		t.Errorf("got %s", r)
	}
}
