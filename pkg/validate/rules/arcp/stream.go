package arcp

import (
	"fmt"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// This file follows results streamed in result_chunk events, and the
// terminal message that ends a streamed result.

// chunk follows one result_chunk: indexes 0, 1, 2… per result id, nothing
// after the chunk with more: false.
func (s *state) chunk(m *protocol.Message, r *registry.ARCPRule, j *job, started bool) {
	rid, ok := m.String(r.Result)
	if !ok {
		return
	}
	idx, ok := protocol.IntValue(m.At(r.Index))
	if !ok {
		return
	}
	more, _ := m.At(r.More).(bool)
	if j.streams == nil {
		j.streams = map[string]*stream{}
	}
	st := j.streams[rid]
	gap := s.find(checkChunks, "gap")
	switch {
	case st == nil:
		if len(j.streams) >= maxStreams {
			return
		}
		st = &stream{}
		j.streams[rid] = st
		// The first chunk seen is 0, unless the trace joined the
		// stream late (a subscription, a resume, a cut capture).
		if idx != 0 && gap != nil && started && j.acceptedNow && !s.lossy {
			m.Add(finding.Error, gap.ID, r.Index, "chunk_seq %d is the first chunk of result %s, which starts at 0: chunks 0 to %d are missing", idx, protocol.Quote(rid), idx-1)
		}
	case st.closed:
		if after := s.find(checkChunks, "after-last"); after != nil {
			m.Add(finding.Error, after.ID, r.Result, "a chunk of result %s after its last chunk (more: false): the result was complete", protocol.Quote(rid))
		}
	case idx != st.next && gap != nil && !s.lossy:
		what := fmt.Sprintf("chunk %d is missing", st.next)
		if idx > st.next+1 {
			what = fmt.Sprintf("chunks %d to %d are missing", st.next, idx-1)
		} else if idx < st.next {
			what = fmt.Sprintf("chunk %d was already sent", idx)
		}
		m.Add(finding.Error, gap.ID, r.Index, "chunk_seq %d of result %s where %d comes next: %s; chunks are numbered 0, 1, 2… in order", idx, protocol.Quote(rid), st.next, what)
	}
	st.next = idx + 1
	if !more {
		st.closed = true
	}
}

// streamResult checks a terminal message of a job that streamed its
// result: it carries the streamed result's id, the stream is complete, and
// no inline result is mixed in.
func (s *state) streamResult(m *protocol.Message, j *job, typ string, replay bool) {
	if len(j.streams) == 0 || replay {
		return
	}
	var rs []*registry.ARCPRule
	for _, r := range s.each(checkStreamResult) {
		if r.Type == typ {
			rs = append(rs, r)
		}
	}
	get := func(f string) *registry.ARCPRule {
		for _, r := range rs {
			if r.Finding == f {
				return r
			}
		}
		return nil
	}
	if r := get("inline"); r != nil {
		for _, p := range r.Inline {
			if m.At(p) != nil {
				m.Add(finding.Error, r.ID, p, "an inline result after result_chunk events: a job streams its result or sends it inline, never both")
				return
			}
		}
	}
	var ptr string
	for _, r := range rs {
		ptr = r.Result
	}
	if ptr == "" {
		return
	}
	rid, has := m.String(ptr)
	if !has {
		if r := get("missing"); r != nil {
			m.Add(finding.Error, r.ID, parent(ptr), "%s ends a result streamed in result_chunk events, so it must carry %s", typ, ptr)
		}
		return
	}
	st := j.streams[rid]
	if st == nil {
		if r := get("unknown"); r != nil && len(j.streams) < maxStreams {
			m.Add(finding.Error, r.ID, ptr, "result_id %s is not the id of this job's result_chunk events (%s): it must reference the streamed result", protocol.Quote(rid), sortedSet(streamIDs(j)))
		}
		return
	}
	if r := get("open"); r != nil && !st.closed && !s.lossy {
		m.Add(finding.Error, r.ID, ptr, "result %s is referenced before its last chunk (more: false) was sent: chunk %d was the last, and more chunks were announced", protocol.Quote(rid), st.next-1)
	}
}

func streamIDs(j *job) []string { return mapKeys(j.streams) }
