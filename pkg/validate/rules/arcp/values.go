package arcp

import (
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// Small helpers over sets of names and JSON pointers.

// mapKeys lists a map's keys, in no order.
func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// parent is the pointer to the object holding ptr's member.
func parent(ptr string) string {
	toks := protocol.SplitPointer(ptr)
	if len(toks) == 0 {
		return ""
	}
	return protocol.Pointer(toks[:len(toks)-1])
}

// stringSet turns a list of strings into a set.
func stringSet(l []any) map[string]bool {
	out := make(map[string]bool, len(l))
	for _, f := range l {
		if fs, ok := f.(string); ok {
			out[fs] = true
		}
	}
	return out
}

// memberName names the member at loc for a message whose pointer already
// says where it is: "lease_constraints" rather than the pointer again.
func memberName(loc []string) string {
	if len(loc) == 0 {
		return "the message"
	}
	return protocol.Quote(loc[len(loc)-1])
}
