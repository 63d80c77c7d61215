package acp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentproto/agentproto/internal/suggest"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// mcpMethods are methods of the Model Context Protocol that ACP does not
// define: their presence says a JSON-RPC trace is MCP traffic.
var mcpMethods = map[string]bool{
	"notifications/initialized": true, "tools/list": true, "tools/call": true,
	"resources/list": true, "resources/read": true, "resources/templates/list": true,
	"resources/subscribe": true, "prompts/list": true, "prompts/get": true,
	"logging/setLevel": true, "completion/complete": true, "sampling/createMessage": true,
	"roots/list": true, "elicitation/create": true, "notifications/tools/list_changed": true,
	"notifications/resources/updated": true, "notifications/progress": true, "notifications/message": true,
}

// Disown looks at the first batch of a file detected as ACP (by its
// "jsonrpc" member) and says, when its requests and notifications show it
// is another JSON-RPC protocol, what it looks like: MCP (by its methods, or
// an initialize whose protocolVersion is a date), or JSON-RPC none of whose
// methods is an ACP method or a near miss of one. A batch without methods
// (only answers) or with any ACP method, extension method or misspelt ACP
// method is ACP. It returns the line of the first request and the message.
func (r *Rules) Disown(first []*protocol.Message) (int, string) {
	known := r.methodNames()
	var methods []string
	seen := map[string]bool{}
	line := 0
	var mcp, mcpM []string
	for _, msg := range first {
		o := msg.Obj()
		if o == nil {
			continue
		}
		if _, ok := o["jsonrpc"]; !ok {
			return 0, "" // an ACP record of a dialect without JSON-RPC
		}
		m, ok := o["method"].(string)
		if !ok {
			continue
		}
		if line == 0 {
			line = msg.Line
		}
		if seen[m] {
			continue // judged already
		}
		if m == "initialize" {
			if v, ok := protocol.Lookup(o, []string{"params", "protocolVersion"}).(string); ok && len(v) == 10 && strings.Count(v, "-") == 2 {
				mcp = append(mcp, fmt.Sprintf("an initialize whose protocolVersion is the date %s", protocol.Quote(v)))
				continue
			}
		}
		if strings.HasPrefix(m, "_") || slices.Contains(known, m) || suggest.Near(m, known) != "" {
			return 0, ""
		}
		if mcpMethods[m] && len(mcpM) < 3 {
			mcpM = append(mcpM, protocol.Quote(m))
		}
		seen[m] = true
		if len(methods) < 4 {
			methods = append(methods, protocol.Quote(m))
		}
	}
	if len(mcpM) > 0 {
		mcp = append(mcp, "the methods "+strings.Join(mcpM, ", "))
	}
	switch {
	case len(mcp) > 0:
		return line, fmt.Sprintf("this looks like MCP (Model Context Protocol) traffic, not the Agent Client Protocol: JSON-RPC 2.0 with %s. agentproto checks ACP, ARCP and Arcan traces, so this file is not checked further; check MCP traffic with an MCP tool, or use --protocol acp if it really is ACP", strings.Join(mcp, " and "))
	case len(methods) > 0:
		return line, fmt.Sprintf("this is JSON-RPC 2.0, but none of its methods is an ACP method (it uses %s): agentproto checks ACP, ARCP and Arcan traces, so this file is not checked further; if it is ACP of a version agentproto does not know yet, use --protocol acp to check it anyway", strings.Join(methods, ", "))
	}
	return 0, ""
}

// allMethodNames lists the methods of every ACP version (Rules.methodNames
// makes the list once).
func (r *Rules) allMethodNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range r.reg.Versions("acp") {
		if v.ACP() == nil {
			continue
		}
		for _, m := range v.ACP().Methods {
			if !seen[m.Method] {
				seen[m.Method] = true
				out = append(out, m.Method)
			}
		}
	}
	return out
}
