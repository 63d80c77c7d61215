package arcan

import (
	"sort"
	"strconv"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// This file holds the nesting limit of Arcan's reader.

// serdeMaxDepth is how deeply arrays and objects may nest in a line that
// serde_json reads with its default recursion limit (128, one taken per
// level before it checks): 127 levels, the event object itself included.
const serdeMaxDepth = 127

// serdeDepth reports an event nested deeper than Arcan's reader goes:
// serde_json stops with "recursion limit exceeded". The event's own depth
// is len(loc) (a store record adds one level), and the finding points at
// the first array or object, in member order, that is one level too deep.
func serdeDepth(m *protocol.Message, ev map[string]any, loc []string) {
	if maxDepth(ev, len(loc)+1) <= serdeMaxDepth {
		return
	}
	at, _ := firstTooDeep(ev, len(loc)+1, append([]string(nil), loc...))
	m.Add(finding.Error, finding.RuleJSON, protocol.Pointer(at), "arrays and objects nest more than %d levels deep here: Arcan's reader (serde_json, with its default recursion limit) rejects the line with \"recursion limit exceeded\"", serdeMaxDepth)
}

// maxDepth is the deepest nesting of arrays and objects in v, whose own
// depth is depth when it is one; it stops counting past serdeMaxDepth.
func maxDepth(v any, depth int) int {
	deepest := depth - 1
	visit := func(c any) {
		if depth > serdeMaxDepth || deepest > serdeMaxDepth {
			return
		}
		if d := maxDepth(c, depth+1); d > deepest {
			deepest = d
		}
	}
	switch t := v.(type) {
	case map[string]any:
		deepest = depth
		for _, c := range t {
			visit(c)
		}
	case []any:
		deepest = depth
		for _, c := range t {
			visit(c)
		}
	}
	return deepest
}

// firstTooDeep returns the location of the first container, in member
// order (sorted names, then indexes), nested deeper than serdeMaxDepth.
func firstTooDeep(v any, depth int, loc []string) ([]string, bool) {
	switch t := v.(type) {
	case map[string]any:
		if depth > serdeMaxDepth {
			return loc, true
		}
		keys := make([]string, 0, len(t))
		for k, c := range t {
			switch c.(type) {
			case map[string]any, []any:
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			if at, ok := firstTooDeep(t[k], depth+1, append(loc, k)); ok {
				return at, true
			}
		}
	case []any:
		if depth > serdeMaxDepth {
			return loc, true
		}
		for i, c := range t {
			if at, ok := firstTooDeep(c, depth+1, append(loc, strconv.Itoa(i))); ok {
				return at, true
			}
		}
	}
	return nil, false
}
