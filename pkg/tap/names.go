package tap

import (
	"bytes"
	"encoding/json"

	"github.com/agentproto/agentproto/schema/registry"
)

// SidecarNames returns how a direction sidecar names the two directions
// (client to peer, peer to client) for protocol, or for "" as decided from
// first, the first line of the traffic. The tokens are the registry's
// (schema/versions.json): the protocol's own; for undecided traffic, those
// of the protocol whose marks the first line carries (ARCP's c2r and r2c
// for an object with "arcp" and "type"); else ACP's c2a and a2c.
func SidecarNames(protocol string, first []byte) [2]string {
	reg, err := registry.Embedded()
	if err != nil {
		return [2]string{"c2a", "a2c"} // the embedded versions.json is tested to load
	}
	var has func(string) bool
	if protocol == "" {
		var o map[string]json.RawMessage
		if json.Unmarshal(bytes.TrimSpace(first), &o) == nil && o != nil {
			has = func(m string) bool { _, ok := o[m]; return ok }
		}
	}
	return reg.Sidecar(protocol, has)
}
