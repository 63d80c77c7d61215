package tap

import (
	"bytes"
	"encoding/json"
)

// SidecarNames returns how a direction sidecar names the two directions
// for protocol ("acp", "arcp", or "" to decide from first, the first line
// of the traffic): ARCP's c2r and r2c (client to runtime, runtime to
// client) when protocol is arcp or first is an ARCP envelope (an object
// with "arcp" and "type"), else ACP's c2a and a2c.
func SidecarNames(protocol string, first []byte) [2]string {
	switch protocol {
	case "arcp":
		return [2]string{"c2r", "r2c"}
	case "":
		var o map[string]json.RawMessage
		if json.Unmarshal(bytes.TrimSpace(first), &o) == nil {
			_, a := o["arcp"]
			_, t := o["type"]
			if a && t {
				return [2]string{"c2r", "r2c"}
			}
		}
	}
	return [2]string{"c2a", "a2c"}
}
