package arcp

import (
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// This file pairs the requests of a session with their answers.

// answers follows one request/answer pair of a session: a request of type
// r.Request is outstanding under its key until an answer of type r.Type
// names it; an answer that names none is reported in a session whose start
// is in the trace.
func (s *state) answers(m *protocol.Message, r *registry.ARCPRule, ss *session, typ string, started bool) {
	key := func(ptr string) (string, bool) {
		if ptr == "" {
			return "", true
		}
		return m.String(ptr)
	}
	p := ss.pending[r.ID]
	if typ == r.Request {
		if k, ok := key(r.RequestKey); ok {
			if p == nil {
				p = protocol.NewRecent[int](maxPending)
				ss.pending[r.ID] = p
			}
			n, _ := p.Get(k)
			p.Put(k, n+1)
			a := ss.asked[r.ID]
			if a == nil {
				a = protocol.NewRecent[int](maxPending)
				ss.asked[r.ID] = a
			}
			a.Put(k, m.Line)
		}
	}
	if typ != r.Type {
		return
	}
	k, ok := key(r.Key)
	if !ok {
		return
	}
	if p != nil {
		if n, _ := p.Get(k); n > 0 {
			if a := ss.asked[r.ID]; a != nil {
				m.Answers, _ = a.Get(k)
			}
			if n == 1 {
				p.Delete(k)
			} else {
				p.Put(k, n-1)
			}
			return
		}
		if p.Forgotten(k) {
			return
		}
	}
	if !started {
		return
	}
	ptr := r.Key
	if ptr == "" {
		m.Add(finding.Error, r.ID, "/type", "%s answers no %s of this session: it is sent only in reply to one", typ, r.Request)
		return
	}
	m.Add(finding.Error, r.ID, ptr, "%s names %s, but no %s of this session with that %s is waiting for an answer", typ, protocol.Quote(k), r.Request, r.RequestKey)
}
