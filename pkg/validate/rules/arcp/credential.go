package arcp

import (
	"strconv"
	"time"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// This file follows provisioned credentials (ARCP v1.1 §9.8): what each
// credential's constraints allow against the job's lease, which job a
// credential value was issued to, and which credentials a job was issued
// at its acceptance.

// checkCredentials: findings "models", "budget", "ttl" (a constraint
// looser than the lease), "child" (the same, for a delegated job),
// "reused" (a value issued to two jobs) and "late" (a rotation of a
// credential the acceptance did not issue).
const checkCredentials = "credentials"

func init() { knownChecks[checkCredentials] = true }

// maxCredentials bounds the credential values remembered.
const maxCredentials = 4096

// issued is the job a credential value was issued to.
type issued struct {
	job  string
	line int
}

// credentialsIssued checks the credentials of an acceptance against the
// job's lease, and against the other jobs' credentials.
// Which credentials a job holds is known when its acceptance is in a
// session whose start the trace holds (started).
func (s *state) credentialsIssued(m *protocol.Message, typ string, j *job, jobID, parent string, started bool) {
	rs := s.set.rules[checkCredentials]
	if len(rs) == 0 {
		return
	}
	var child *registry.ARCPRule
	for _, r := range rs {
		if r.Finding == "child" {
			child = r
		}
	}
	for _, r := range rs {
		switch {
		case r.Finding == "late" && r.Request == typ:
			if !started {
				continue
			}
			if j.credIDs == nil {
				j.credIDs = map[string]bool{}
			}
			for _, id := range m.Strings(r.RequestKey) {
				if len(j.credIDs) < maxStreams {
					j.credIDs[id] = true
				}
			}
		case r.Type != typ:
		case r.Finding == "reused":
			s.exercised.Rule(r.ID)
			for _, f := range m.Resolve(r.Value) {
				v, ok := f.Value.(string)
				if !ok || v == "" {
					continue
				}
				if s.credentials == nil {
					s.credentials = protocol.NewRecent[issued](maxCredentials)
				}
				k := strconv.FormatUint(sumBytes([]byte(v)), 36)
				prev, seen := s.credentials.Get(k)
				if seen && prev.job != jobID {
					m.Add(finding.Error, r.ID, protocol.Pointer(f.Loc), "this credential value was already issued to job %s (line %d): a credential belongs to one job only and is never handed to another (ARCP v1.1 §9.8.2, §14)", protocol.Quote(prev.job), prev.line)
					continue
				}
				if !seen {
					s.credentials.Put(k, issued{job: jobID, line: m.Line})
				}
			}
		case r.Finding == "models" || r.Finding == "budget" || r.Finding == "ttl":
			if j.lease == nil {
				continue
			}
			report := r
			sev := finding.Warning
			if parent != "" && child != nil {
				report, sev = child, finding.Error
			}
			for _, f := range m.Resolve(r.Value) {
				cons, ok := f.Value.(map[string]any)
				if !ok {
					continue
				}
				s.exercised.Rule(report.ID)
				if r.Finding == "budget" {
					if _, has := cons[r.Key]; has {
						j.lease.credBudget = true
					}
				}
				why := looser(r, cons, j.lease)
				if why == "" {
					continue
				}
				ptr := protocol.Pointer(append(f.Loc, r.Key))
				if report == child {
					m.Add(sev, report.ID, ptr, "a credential of delegated job %s (parent %s) is looser than the job's own lease: %s. A credential issued to a delegated job is restricted at least as tightly as the child's lease (ARCP v1.1 §9.8.2)", protocol.Quote(jobID), protocol.Quote(parent), why)
					continue
				}
				m.Add(sev, report.ID, ptr, "the credential's constraints are looser than the job's lease: %s. The runtime bakes the lease into the credential so that the upstream enforces it too (ARCP v1.1 §9.8.3 SHOULD; §9.7 for model.use)", why)
			}
		}
	}
}

// looser describes how a credential's constraint r.Key allows more than
// the lease, or "".
func looser(r *registry.ARCPRule, cons map[string]any, l *lease) string {
	v, has := cons[r.Key]
	if !has {
		return ""
	}
	switch r.Finding {
	case "models":
		pats := stringList(v)
		within, ok := l.grants[r.Key]
		if !ok || len(within) == 0 || len(pats) == 0 {
			return ""
		}
		if p := outside(pats, within); p != "" {
			return protocol.Quote(r.Key) + " pattern " + protocol.Quote(p) + " allows models outside the lease's " + quoteList(within)
		}
	case "budget":
		for cur, a := range amounts(stringList(v)) {
			if left, ok := l.budget[cur]; ok && a > left+budgetEpsilon {
				return protocol.Quote(r.Key) + " " + protocol.Quote(cur+":"+strconv.FormatFloat(a, 'f', -1, 64)) + " is above the job's budget of " + cur + " " + strconv.FormatFloat(left, 'f', -1, 64)
			}
		}
	case "ttl":
		str, ok := v.(string)
		if !ok || l.expires.IsZero() {
			return ""
		}
		t, err := time.Parse(time.RFC3339Nano, str)
		if err == nil && t.After(l.expires) {
			return protocol.Quote(r.Key) + " " + t.Format(time.RFC3339Nano) + " outlives the lease, which expires at " + l.expires.Format(time.RFC3339Nano)
		}
	}
	return ""
}

func stringList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// rotated reports the rotation of a credential the job's acceptance did
// not issue: every credential is issued by job.accepted at the latest.
func (s *state) rotated(m *protocol.Message, typ, kind string, j *job, jobID string, replay bool) {
	for _, r := range s.set.rules[checkCredentials] {
		if r.Finding != "late" || r.Type != typ || r.Kind != kind {
			continue
		}
		if j == nil || j.credIDs == nil || replay || s.lossy || !m.StringIs(r.Value, r.Want) {
			continue
		}
		s.exercised.Rule(r.ID)
		id, ok := m.String(r.Key)
		if !ok || j.credIDs[id] {
			continue
		}
		m.Add(finding.Error, r.ID, r.Key, "%s announces credential %s, which job %s's %s did not issue: every credential of a job is issued at the latest in its acceptance (ARCP v1.1 §9.8.2)", r.Want, protocol.Quote(id), protocol.Quote(jobID), r.Request)
	}
}

// leaseEnd checks how a job ends against its lease: after an operation
// attempted past the lease's expiry it ends with the expiry's error; budget
// exhaustion is better told to the agent than ending the job; and a job
// whose credential carries the budget still reports what remains.
func (s *state) leaseEnd(m *protocol.Message, entry *registry.ARCPMessage, j *job, replay bool) {
	lt := s.set.t.Leases
	if lt == nil || replay || s.lossy {
		return
	}
	code := ""
	if entry.Code != "" {
		code, _ = m.String(entry.Code)
	}
	if r := s.find(checkLease, "exhausted-end"); r != nil && code == lt.Exhausted {
		m.Add(finding.Warning, r.ID, entry.Code, "the job ends with %s: a runtime reports budget exhaustion to the agent as an error tool_result, which leaves it free to go on without spending (to return a partial result), rather than ending the job (ARCP v1.1 §9.6 SHOULD)", lt.Exhausted)
	}
	if j == nil || j.lease == nil {
		return
	}
	l := j.lease
	if r := s.find(checkLease, "expired-end"); r != nil && l.expiredOp > 0 && entry.Code == "" {
		m.Add(finding.Error, r.ID, "/type", "the job's lease expired (the operation of line %d was attempted at or after expires_at %s), and the job ends with %s: it ends with job.error, code %s and final_status \"error\" (ARCP v1.1 §9.5)", l.expiredOp, l.expires.Format(time.RFC3339Nano), m.Label, lt.Expired)
	}
	if r := s.find(checkLease, "remaining"); r != nil && l.credBudget && l.costSeen && !l.remainingSeen {
		m.Add(finding.Warning, r.ID, "/type", "the job spent budget (cost metrics) through a credential whose upstream enforces its %s, and ends without a %s metric: the runtime still reports what remains, so that clients see budget telemetry whichever layer enforces it (ARCP v1.1 §9.6 SHOULD)", lt.BudgetCapability, lt.RemainingMetric)
	}
}
