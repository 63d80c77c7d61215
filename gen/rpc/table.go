// Package rpc renders the typed surface of a JSON-RPC connection from a
// method table and the model of the schemas its params and results name:
// an interface per side (one method per request or notification the other
// side sends), a base to embed that answers "method not found", and per side
// a connection that serves its interface and calls the other side with
// typed methods. The moving parts are package pkg/jsonrpc's, written once by
// hand; the generated code only types them. cmd/protogen runs it with -rpc.
//
// The method table is the JSON of agentproto's dispatch tables
// (schema/acp/v1/dispatch.json), of which it reads:
//
//	{"methods": [{
//	  "method": "session/prompt",       // the JSON-RPC method name
//	  "kind": "request",                // or "notification"
//	  "handler": "agent",               // the side that handles it, or "both"
//	  "params": "session.prompt.params.json",  // schema files beside the table
//	  "result": "session.prompt.result.json",
//	  "capability": "/clientCapabilities/…",   // optional, for the docs
//	  "effects": {                      // all optional
//	    "cancels_request": "/params/requestId",  // the notification that cancels a request by id
//	    "starts_turn": "/params/sessionId",      // work that the next one cancels, by this member
//	    "cancels_turn": "/params/sessionId",
//	    "stop_reason": {"at": "/result/stopReason", "cancelled": "cancelled"}  // a cancelled turn's answer
//	  }}]}
//
// Other members are ignored. Exactly two sides must handle methods.
package rpc

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Table is a method table.
type Table struct {
	Methods []*Method `json:"methods"`
}

// Method is one row of a method table.
type Method struct {
	Method     string  `json:"method"`
	Kind       string  `json:"kind"`
	Handler    string  `json:"handler"`
	Params     string  `json:"params"`
	Result     string  `json:"result"`
	Capability string  `json:"capability"`
	Effects    Effects `json:"effects"`
}

// Effects are the effects of a method that the connection acts on.
type Effects struct {
	CancelsRequest string      `json:"cancels_request"`
	StartsTurn     string      `json:"starts_turn"`
	CancelsTurn    string      `json:"cancels_turn"`
	StopReason     *StopReason `json:"stop_reason"`
}

// StopReason says where the answer to a turn says why it stopped, and the
// value that says it was cancelled.
type StopReason struct {
	At        string `json:"at"`
	Cancelled string `json:"cancelled"`
}

// Method kinds and the handler of a method either side may send.
const (
	KindRequest      = "request"
	KindNotification = "notification"
	HandlerBoth      = "both"
)

// ReadTable reads and checks a method table.
func ReadTable(path string) (*Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t Table
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(t.Methods) == 0 {
		return nil, fmt.Errorf("%s: the table has no methods (want {\"methods\": [{\"method\": …, \"kind\": …, \"handler\": …, \"params\": …}]})", path)
	}
	for i, m := range t.Methods {
		at := fmt.Sprintf("%s: /methods/%d", path, i)
		switch {
		case m.Method == "":
			return nil, fmt.Errorf("%s: no method name", at)
		case m.Kind != KindRequest && m.Kind != KindNotification:
			return nil, fmt.Errorf("%s (%s): kind is %q; want request or notification", at, m.Method, m.Kind)
		case m.Handler == "":
			return nil, fmt.Errorf("%s (%s): no handler (the side that handles it, or both)", at, m.Method)
		case m.Params == "":
			return nil, fmt.Errorf("%s (%s): no params schema", at, m.Method)
		case m.Kind == KindRequest && m.Result == "":
			return nil, fmt.Errorf("%s (%s): a request needs a result schema", at, m.Method)
		case m.Kind == KindNotification && m.Result != "":
			return nil, fmt.Errorf("%s (%s): a notification has no result", at, m.Method)
		}
		for _, p := range []string{m.Effects.CancelsRequest, m.Effects.StartsTurn, m.Effects.CancelsTurn} {
			if p != "" && memberOf(p, "/params/") == "" {
				return nil, fmt.Errorf("%s (%s): %q is not a member of the params (/params/NAME)", at, m.Method, p)
			}
		}
		if s := m.Effects.StopReason; s != nil && memberOf(s.At, "/result/") == "" {
			return nil, fmt.Errorf("%s (%s): %q is not a member of the result (/result/NAME)", at, m.Method, s.At)
		}
	}
	return &t, nil
}

// memberOf returns NAME of prefix+NAME (one level, unescaped), or "".
func memberOf(pointer, prefix string) string {
	name, ok := strings.CutPrefix(pointer, prefix)
	if !ok || name == "" || strings.ContainsAny(name, "/~") {
		return ""
	}
	return name
}
