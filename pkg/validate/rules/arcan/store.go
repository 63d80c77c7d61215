package arcan

import (
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// This file holds the checks of session-store records.

// storeSequence: the latest store numbers a session branch's records 1, 2,
// 3, …; a record whose sequence is not one more than its branch's previous
// record's is out of step (a record from an older store has none).
func (s *state) storeSequence(m *protocol.Message) {
	st := &s.t.v.Arcan().Store
	if st.Sequence == "" {
		return
	}
	seq, ok := uintAt(m, st.Sequence)
	if !ok {
		return
	}
	s.exercised.Row(RowStoreSequence)
	session, branch := keyBytes(m, st.Session), keyBytes(m, st.Branch)
	s.key = append(append(append(s.key[:0], session...), 0), branch...)
	prev, ok := s.seqs.GetBytes(s.key)
	if !ok {
		prev = new(uint64)
		s.seqs.Put(string(s.key), prev)
	} else if seq != *prev+1 && !s.lossy {
		m.Breach(RowStoreSequence, finding.Warning, RuleStoreSequence, st.Sequence, "sequence %d after sequence %d in session %q, branch %q: the store numbers a branch's records one after another, so this one would be %d", seq, *prev, session, branch, *prev+1)
	}
	*prev = seq
}

// keyBytes is the string at ptr as bytes, decoded if it has escapes.
func keyBytes(m *protocol.Message, ptr string) []byte {
	if b, ok := m.StringBytes(ptr); ok {
		return b
	}
	if s, ok := m.String(ptr); ok {
		return []byte(s)
	}
	return nil
}
