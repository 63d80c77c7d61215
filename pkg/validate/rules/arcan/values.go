package arcan

import (
	"math"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/jsonpointer"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// This file reads the values of an event as serde reads them, below the
// event being read.

// uintAt reads the unsigned integer literal at ptr, from the line's root.
func uintAt(m *protocol.Message, ptr string) (uint64, bool) {
	return docUint(&m.Doc, m.Doc.Find(ptr))
}

// docUint reads node i as serde reads a u32, u64 or usize: an integer
// literal of digits alone, within 64 bits.
func docUint(d *jsonscan.Doc, i int) (uint64, bool) {
	if i < 0 || d.Type(i) != jsonscan.Number {
		return 0, false
	}
	raw := d.Raw(i)
	if len(raw) == 0 {
		return 0, false
	}
	var n uint64
	for _, c := range raw {
		if c < '0' || c > '9' || n > (math.MaxUint64-uint64(c-'0'))/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// node is the node at ptr below the event being read (s.ev): the line's
// root, or a store record's event.
func (s *state) node(m *protocol.Message, ptr string) int {
	d, at := &m.Doc, s.ev
	if !jsonpointer.Walk(ptr, func(tok string) bool {
		at = d.Child(at, tok)
		return at >= 0
	}) {
		return -1
	}
	return at
}

func (s *state) str(m *protocol.Message, ptr string) (string, bool) {
	return m.Doc.String(s.node(m, ptr))
}

func (s *state) strBytes(m *protocol.Message, ptr string) ([]byte, bool) {
	return m.Doc.StringBytes(s.node(m, ptr))
}

func (s *state) uint(m *protocol.Message, ptr string) (uint64, bool) {
	return docUint(&m.Doc, s.node(m, ptr))
}
