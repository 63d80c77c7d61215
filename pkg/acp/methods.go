package acp

import "github.com/agentproto/agentproto/pkg/wire"

// Kind says whether a method is called with a request (and answered with a
// response) or sent as a notification.
type Kind string

// Method kinds.
const (
	KindRequest      Kind = "request"
	KindNotification Kind = "notification"
)

// Side is a side of an ACP connection.
type Side string

// The sides. A method's Handler is the side that receives and handles it:
// the client (the editor) sends SideAgent methods, the agent sends
// SideClient methods, and either side sends SideBoth methods.
const (
	SideAgent  Side = "agent"
	SideClient Side = "client"
	SideBoth   Side = "both"
)

// Method is one row of the ACP method table.
type Method struct {
	// Name is the JSON-RPC method name, such as "session/prompt".
	Name string
	Kind Kind
	// Handler is the side that handles the method.
	Handler Side
	// ParamsSchema and ResultSchema are the $ids of the schemas of the
	// params and, for requests, of the result. Lookup turns them into Go.
	ParamsSchema string
	ResultSchema string
	// Capability, when set, is a JSON pointer into the initialize params
	// (for methods the client handles) or result (for methods the agent
	// handles) that must be true, or a present object, before the method
	// may be used.
	Capability string
}

// Params returns the codec of the method's params type.
func (m Method) Params() (wire.Codec, bool) { return Lookup(m.ParamsSchema) }

// Result returns the codec of the method's result type; notifications have
// none.
func (m Method) Result() (wire.Codec, bool) {
	if m.ResultSchema == "" {
		return wire.Codec{}, false
	}
	return Lookup(m.ResultSchema)
}

// IsExtension reports whether a method name is an extension method: names
// starting with "_" are reserved for them, and a receiver that does not
// know one ignores it (notifications) or answers "method not found".
func IsExtension(name string) bool { return len(name) > 0 && name[0] == '_' }
