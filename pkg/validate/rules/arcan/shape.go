package arcan

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// This file holds the emit-shape checks: where an event differs from the
// bytes Arcan itself writes, which its reader accepts but a consumer
// written against Arcan's output may not.

// emitShape warns, rule emit-shape, where the object at ptr differs from
// what Arcan writes: a member it always writes is absent, or a member it
// leaves out when unset is null. Arcan's reader accepts both; a consumer
// written against Arcan's output may not. The members come from the
// schema's annotations (registry.EmitShape); store is set for a store
// record's own members.
func emitShape(m *protocol.Message, ptr string, at int, shape *registry.EmitShape, store bool) {
	if shape == nil {
		return
	}
	d := &m.Doc
	if shape.Items != nil {
		i := 0
		d.Elements(at, func(e int) bool {
			emitShape(m, ptr+"/"+strconv.Itoa(i), e, shape.Items, false)
			i++
			return true
		})
		return
	}
	if d.Type(at) != jsonscan.Object {
		return
	}
	for _, a := range shape.Always {
		if d.Member(at, a.Name) >= 0 {
			continue
		}
		how := ""
		if a.Nullable {
			how = ", as null when there is none"
		}
		row := "arcan.shape.usage-counters-written"
		switch {
		case store:
			row = "arcan.store.parent-id-written"
		case a.Value:
			row = "arcan.shape.value-members-written"
		case a.Nullable:
			row = "arcan.shape.null-options-written"
		}
		m.Breach(row, finding.Warning, RuleEmitShape, ptr, "%q is missing: Arcan always writes it%s, and a consumer written against Arcan's output may rely on it (Arcan's own reader fills it in)", a.Name, how)
	}
	for _, name := range shape.Omitted {
		if d.Type(d.Member(at, name)) == jsonscan.Null {
			m.Breach("arcan.shape.unset-optional-omitted", finding.Warning, RuleEmitShape, ptr+"/"+jsonscan.EscapePointer(name), "%q is null: Arcan leaves it out when it is unset and never writes null, so a consumer written against Arcan's output may not expect null (Arcan's own reader takes null as unset)", name)
		}
	}
	for _, name := range shape.Free {
		if v := d.Member(at, name); v >= 0 {
			if _, _, _, found := unsorted(d, v); found {
				sortedKeys(m, ptr+"/"+jsonscan.EscapePointer(name), v)
			}
		}
	}
	for _, c := range shape.Members {
		if v := d.Member(at, c.Name); v >= 0 {
			emitShape(m, ptr+"/"+jsonscan.EscapePointer(c.Name), v, c.Shape, false)
		}
	}
}

// tagFirst: Arcan writes part_type first (serde's internal tagging), then
// the variant's fields; its reader takes the tag anywhere.
func tagFirst(m *protocol.Message, base string, ev int) {
	first := true
	m.Doc.MemberBytes(ev, func(key []byte, _ int) bool {
		first = string(key) == "part_type"
		return false
	})
	if !first {
		m.Breach("arcan.shape.tag-first", finding.Warning, RuleEmitShape, base+"/part_type", "\"part_type\" is not the first member: Arcan writes the tag first, then the variant's fields, and a consumer matching Arcan's bytes may rely on it (Arcan's own reader finds the tag anywhere)")
	}
}

// unsorted finds the first object, depth first, at or under node at whose
// keys are not in ascending order, as Arcan's serde_json writes the objects
// of a free-form JSON value (sorted maps, at every depth). It returns the
// object's path below at, last token first, and the key that comes too
// late with the one before it; the path is built only for what it finds.
func unsorted(d *jsonscan.Doc, at int) (rpath []string, late, prev []byte, found bool) {
	switch d.Type(at) {
	case jsonscan.Object:
		escaped := false
		d.MemberBytes(at, func(key []byte, _ int) bool {
			escaped = escaped || bytes.IndexByte(key, '\\') >= 0
			if prev != nil && bytes.Compare(prev, key) > 0 {
				late = key
				return false
			}
			prev = key
			return true
		})
		if escaped {
			// Compare the keys as they read, not as they are written.
			prev, late = nil, nil
			d.Members(at, func(key string, _ int) bool {
				if prev != nil && string(prev) > key {
					late = []byte(key)
					return false
				}
				prev = []byte(key)
				return true
			})
		}
		if late != nil {
			return nil, late, prev, true
		}
		child := -1
		d.MemberBytes(at, func(_ []byte, v int) bool {
			rpath, late, prev, found = unsorted(d, v)
			child = v
			return !found
		})
		if found {
			d.Members(at, func(key string, v int) bool {
				if v == child {
					rpath = append(rpath, key)
					return false
				}
				return true
			})
		}
		return rpath, late, prev, found
	case jsonscan.Array:
		i := 0
		d.Elements(at, func(e int) bool {
			rpath, late, prev, found = unsorted(d, e)
			if found {
				rpath = append(rpath, strconv.Itoa(i))
			}
			i++
			return !found
		})
		return rpath, late, prev, found
	}
	return nil, nil, nil, false
}

// sortedKeys reports the first object of the free-form value at node at
// (ptr) whose keys are out of Arcan's order.
func sortedKeys(m *protocol.Message, ptr string, at int) {
	rpath, late, prev, found := unsorted(&m.Doc, at)
	if !found {
		return
	}
	for k := len(rpath) - 1; k >= 0; k-- {
		ptr += "/" + jsonscan.EscapePointer(rpath[k])
	}
	m.Breach("arcan.shape.value-keys-sorted", finding.Warning, RuleEmitShape, ptr, "key %q comes after %q: Arcan writes free-form JSON values with their object keys sorted, at every depth, and a consumer matching Arcan's bytes may rely on it", late, prev)
}

// notWritten: members Arcan never writes in an event (ToolResult's extras
// on tool_call_completed's summary), and a run's usage written although
// the run used no tokens.
func (s *state) notWritten(m *protocol.Message, base string, eff *registry.ArcanEffects) {
	d := &m.Doc
	for _, nw := range eff.NotWritten {
		at := s.node(m, nw.At)
		if at < 0 || d.Type(at) != jsonscan.Object {
			continue
		}
		for _, name := range nw.Members {
			if d.Member(at, name) >= 0 {
				m.Breach(nw.Row, finding.Warning, RuleEmitShape, base+nw.At+"/"+jsonscan.EscapePointer(name), "%q is here, but Arcan never writes it in this object; a consumer written against Arcan's output does not expect it (Arcan's own reader ignores it)", name)
			}
		}
	}
	if eff.UsageIfTokens != "" {
		at := s.node(m, eff.UsageIfTokens)
		if d.Type(at) != jsonscan.Object {
			return
		}
		in, ok1 := docUint(d, d.Member(at, "input_tokens"))
		out, ok2 := docUint(d, d.Member(at, "output_tokens"))
		if (ok1 || ok2) && in == 0 && out == 0 {
			m.Breach("arcan.shape.run-usage-only-when-tokens", finding.Warning, RuleEmitShape, base+eff.UsageIfTokens, "%q counts no input or output tokens: Arcan writes a run's usage only when the run used tokens, and leaves it out otherwise", eff.UsageIfTokens[strings.LastIndexByte(eff.UsageIfTokens, '/')+1:])
		}
	}
}
