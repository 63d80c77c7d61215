package tap

import (
	"bytes"
	"encoding/json"
)

// sidecarNaming is how one protocol's direction sidecar names the two
// directions, and how its traffic's first line is told.
type sidecarNaming struct {
	protocol string
	names    [2]string // client to server, server to client
	// looks reports whether first, the first line of the traffic, is the
	// protocol's (nil: never decided by looking).
	looks func(first map[string]json.RawMessage) bool
}

// sidecarNamings is the one list of the protocols whose sidecars name the
// directions their own way; any other protocol's (and undecided traffic's)
// are ACP's c2a and a2c, the last entry.
func sidecarNamings() []sidecarNaming {
	return []sidecarNaming{
		{"arcp", [2]string{"c2r", "r2c"}, func(o map[string]json.RawMessage) bool {
			_, a := o["arcp"]
			_, t := o["type"]
			return a && t
		}},
		{"acp", [2]string{"c2a", "a2c"}, nil},
	}
}

// SidecarNames returns how a direction sidecar names the two directions
// for protocol ("acp", "arcp", or "" to decide from first, the first line
// of the traffic): ARCP's c2r and r2c (client to runtime, runtime to
// client) when protocol is arcp or first is an ARCP envelope (an object
// with "arcp" and "type"), else ACP's c2a and a2c.
func SidecarNames(protocol string, first []byte) [2]string {
	list := sidecarNamings()
	var o map[string]json.RawMessage
	if protocol == "" && json.Unmarshal(bytes.TrimSpace(first), &o) != nil {
		o = nil
	}
	for _, n := range list {
		if n.protocol == protocol || protocol == "" && o != nil && n.looks != nil && n.looks(o) {
			return n.names
		}
	}
	return list[len(list)-1].names
}
