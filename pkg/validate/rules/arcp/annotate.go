package arcp

import (
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// What an ARCP envelope shows a reader of the trace (protocol.Annotation):
// its type, its session and job, the job's lifecycle, the implementations
// the handshake names, and the job.submit a job.accepted answers.

// maxAnnotatedSubmits bounds the unanswered job.submit envelopes an annotator
// remembers.
const maxAnnotatedSubmits = 10000

var _ protocol.Annotating = (*Rules)(nil)

// Annotator returns a new annotator of one trace's ARCP envelopes.
func (*Rules) Annotator() protocol.Annotator {
	return &annotator{submits: map[string]int{}}
}

// annotator follows a trace's job submissions, for their acceptance.
type annotator struct {
	// submits holds the lines of job.submit envelopes by the trace_id
	// the runtime echoes on job.accepted.
	submits map[string]int
}

// Annotate reads an envelope (one with "arcp" and "type" members).
func (a *annotator) Annotate(m *protocol.Message) (protocol.Annotation, bool) {
	var an protocol.Annotation
	if !m.IsObject() || !m.NonNull("/arcp") || !m.NonNull("/type") {
		return an, false
	}
	typ := m.Str("/type")
	sid, job := m.Str("/session_id"), m.Str("/job_id")
	if job == "" {
		job = m.Str("/payload/job_id")
	}
	if sid != "" {
		an.Groups = append(an.Groups, "session "+sid)
	}
	if job != "" {
		an.Groups = append(an.Groups, "job "+job)
	}
	an.Brief = typ
	switch typ {
	case "session.hello", "session.open":
		if p := m.InfoName("/payload/client"); p != "" {
			an.Peer = finding.Peer{Side: "client", Name: p}
		}
	case "session.welcome", "session.accepted":
		for _, k := range []string{"runtime", "agent", "server"} {
			if p := m.InfoName("/payload/" + k); p != "" {
				an.Peer = finding.Peer{Side: "agent", Name: p}
				break
			}
		}
	case "job.submit":
		if agent := m.Str("/payload/agent"); agent != "" {
			an.Brief += ": " + protocol.Short(agent, 60)
		}
		if tid := m.Str("/trace_id"); tid != "" && len(a.submits) < maxAnnotatedSubmits {
			a.submits[tid] = m.Line
		}
	case "job.accepted":
		if tid := m.Str("/trace_id"); tid != "" && job != "" {
			if line, ok := a.submits[tid]; ok {
				delete(a.submits, tid)
				if m.Answers == 0 {
					an.Answers = line
				}
				an.Steps = append(an.Steps, protocol.Step{Kind: "job", ID: job, Group: "session " + sid, State: "job.submit", Line: line})
			}
		}
	}
	if job != "" {
		state := typ
		if k := m.Str("/payload/kind"); k != "" {
			state = k
			if ph := m.Str("/payload/body/phase"); ph != "" {
				state += " " + ph
			}
			an.Brief = typ + " " + state
		}
		an.Steps = append(an.Steps, protocol.Step{Kind: "job", ID: job, Group: "session " + sid, State: state, Line: m.Line})
	}
	return an, true
}
