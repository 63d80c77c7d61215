package arcp

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// This file follows a job's lease as the table's lease members and event
// effects describe it: the effective lease an acceptance states, its
// expiry and budget, the operations the agent attempts (tool calls) and
// how they end. Clocks are the messages' own timestamps.

const checkLease = "lease" // findings "subset", "widened", "expired", "exhausted", "uncovered"

func init() { knownChecks[checkLease] = true }

// Effects of event kinds.
const (
	evOperation = "operation"
	evOutcome   = "outcome"
	evCost      = "cost"
)

// Rows the lease rule "uncovered" and "subset" name, by what they show.
const (
	reqCovered         = "arcp.lease.operations-covered"
	reqDenied          = "arcp.lease.uncovered-permission-denied"
	reqSubset          = "arcp.lease.delegated-subset"
	reqSubsetBudget    = "arcp.lease.delegated-budget-within-remaining"
	reqSubsetExpiry    = "arcp.lease.delegated-expiry-within-parent"
	maxCalls           = 256  // open operations remembered per job
	maxPattern         = 512  // longest pattern or target matched
	maxLeaseCapability = 64   // capabilities read from one lease
	budgetEpsilon      = 1e-9 // amounts are decimals read as floats
	// budgetTolerance is how far a reported counter may stand above the
	// one the metrics give: half a cent, for a runtime that rounds.
	budgetTolerance = 0.005
)

// lease is a job's effective lease as the trace showed it.
type lease struct {
	grants  map[string][]string // capability → patterns
	expires time.Time           // zero: no expiry
	budget  map[string]float64  // currency → what is left
	calls   map[string]*call    // operations without an outcome yet

	expiredOp     int  // the line of an operation attempted after expires_at, 0 if none
	spent         bool // a cost metric was applied since the counters were last stated
	costSeen      bool // a cost metric was applied
	remainingSeen bool // a remaining-budget metric was sent
	credBudget    bool // a credential of the job carries the budget
}

// call is an operation the agent attempted.
type call struct {
	line      int
	expired   bool   // attempted at or after expires_at
	exhausted string // a currency at or below zero when it was attempted
	uncovered string // the capability and target the lease does not cover
}

// readGrants reads a lease object: capability → patterns.
func readGrants(v any) (map[string][]string, bool) {
	o, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	out := make(map[string][]string, len(o))
	for c, ps := range o {
		if len(out) >= maxLeaseCapability {
			break
		}
		list, ok := ps.([]any)
		if !ok {
			continue
		}
		var pats []string
		for _, p := range list {
			if s, ok := p.(string); ok {
				pats = append(pats, s)
			}
		}
		out[c] = pats
	}
	return out, true
}

// amounts reads budget patterns (currency:decimal): currency → amount.
func amounts(pats []string) map[string]float64 {
	out := map[string]float64{}
	for _, p := range pats {
		cur, dec, ok := strings.Cut(p, ":")
		if !ok || len(dec) > 40 {
			continue
		}
		if f, err := strconv.ParseFloat(dec, 64); err == nil {
			out[cur] = f
		}
	}
	return out
}

// number reads a JSON number as a float.
func floatOf(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok || len(n) > 40 {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

// globMatch reports whether s matches pattern: "**" matches any run of
// characters, "*" any run without "/", everything else itself.
func globMatch(pattern, s string) bool {
	if len(pattern) > maxPattern || len(s) > maxPattern {
		return true // not decided: read as covered
	}
	// Iterative matching with memo over (pattern index, string index).
	type key struct{ p, i int }
	memo := map[key]bool{}
	var match func(p, i int) bool
	match = func(p, i int) bool {
		k := key{p, i}
		if v, ok := memo[k]; ok {
			return v
		}
		var r bool
		switch {
		case p == len(pattern):
			r = i == len(s)
		case strings.HasPrefix(pattern[p:], "**"):
			for j := i; j <= len(s) && !r; j++ {
				r = match(p+2, j)
			}
		case pattern[p] == '*':
			for j := i; ; j++ {
				if match(p+1, j) {
					r = true
					break
				}
				if j == len(s) || s[j] == '/' {
					break
				}
			}
		default:
			r = i < len(s) && s[i] == pattern[p] && match(p+1, i+1)
		}
		memo[k] = r
		return r
	}
	return match(0, 0)
}

// witness is a string a pattern matches: its wildcards as one ordinary
// segment.
func witness(pattern string) string {
	return strings.ReplaceAll(strings.ReplaceAll(pattern, "**", "w"), "*", "w")
}

// outside returns a pattern of pats that is shown to reach beyond every
// pattern of within, or "".
func outside(pats, within []string) string {
	for _, p := range pats {
		covered := false
		for _, q := range within {
			if p == q || globMatch(q, witness(p)) {
				covered = true
				break
			}
		}
		if !covered {
			return p
		}
	}
	return ""
}

// wider compares a lease with the one it must stay within: the first
// capability, pattern or amount that goes beyond it, described, or "".
// A budget the reference lacks restricts and is not wider.
func wider(l, ref map[string][]string, budgetCap string) string {
	caps := make([]string, 0, len(l))
	for c := range l {
		caps = append(caps, c)
	}
	sort.Strings(caps)
	for _, c := range caps {
		pats := l[c]
		if len(pats) == 0 {
			continue
		}
		rp, has := ref[c]
		if c == budgetCap {
			if !has {
				continue
			}
			ra := amounts(rp)
			for cur, a := range amounts(pats) {
				if r, ok := ra[cur]; ok && a > r+budgetEpsilon {
					return protocol.Quote(c) + " " + protocol.Quote(cur+":"+strconv.FormatFloat(a, 'f', -1, 64)) + " is above " + protocol.Quote(cur+":"+strconv.FormatFloat(r, 'f', -1, 64))
				}
			}
			continue
		}
		if !has {
			return "capability " + protocol.Quote(c) + " is not in it"
		}
		if p := outside(pats, rp); p != "" {
			return protocol.Quote(c) + " pattern " + protocol.Quote(p) + " is outside " + quoteList(rp)
		}
	}
	return ""
}

func quoteList(l []string) string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = protocol.Quote(s)
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// leaseOf reads the effective lease an acceptance or subscription states.
func (s *state) leaseOf(m *protocol.Message, entry *registry.ARCPMessage) *lease {
	lt := s.set.t.Leases
	if lt == nil || entry.Lease == "" {
		return nil
	}
	grants, ok := readGrants(m.At(entry.Lease))
	if !ok {
		return nil
	}
	l := &lease{grants: grants}
	if t, ok := timeAt(m, entry.Expires); ok {
		l.expires = t
	}
	if b, ok := m.At(entry.Budget).(map[string]any); ok && entry.Budget != "" {
		l.budget = map[string]float64{}
		for cur, v := range b {
			if f, ok := floatOf(v); ok {
				l.budget[cur] = f
			}
		}
	} else if pats := grants[lt.BudgetCapability]; len(pats) > 0 {
		l.budget = amounts(pats)
	}
	return l
}

// leaseAccepted checks an acceptance's lease against what the submit asked
// for and, for a delegated job, against the parent's, and keeps it.
func (s *state) leaseAccepted(m *protocol.Message, entry *registry.ARCPMessage, j *job, sub submit, paired bool, parent string) {
	l := s.leaseOf(m, entry)
	if l == nil {
		return
	}
	lt := s.set.t.Leases
	if r := s.find(checkLease, "widened"); r != nil && paired && sub.lease != nil {
		if why := wider(l.grants, sub.lease, lt.BudgetCapability); why != "" {
			m.Add(finding.Error, r.ID, entry.Lease, "the effective lease is wider than the submit on line %d asked for: %s. The runtime may reduce a requested lease but MUST NOT silently expand it (ARCP v1.0 §7.1; v1.1 §7.1 has job.accepted echo the effective lease)", sub.line, why)
		}
	}
	if r := s.find(checkLease, "subset"); r != nil && parent != "" {
		if pj, _ := s.jobs.Get(parent); pj != nil && pj.lease != nil {
			p := pj.lease
			if why := wider(l.grants, p.grants, lt.BudgetCapability); why != "" {
				m.Breach(reqSubset, finding.Error, r.ID, entry.Lease, "the delegated lease is not a subset of job %s's: %s. A delegated lease is a subset of the delegating lease (ARCP v1.0 §9.4, v1.1 §9.4: a request that widens authority is refused with LEASE_SUBSET_VIOLATION)", protocol.Quote(parent), why)
			} else if cur, a, left := overBudget(l, p, lt.BudgetCapability); cur != "" {
				m.Breach(reqSubsetBudget, finding.Error, r.ID, entry.Lease, "the delegated budget %s:%s exceeds what job %s has left in %s (%s): a delegated cost.budget MUST NOT exceed the parent's remaining budget (ARCP v1.1 §9.4, §10)", cur, strconv.FormatFloat(a, 'f', -1, 64), protocol.Quote(parent), cur, strconv.FormatFloat(left, 'f', -1, 64))
			} else if !p.expires.IsZero() && !l.expires.IsZero() && l.expires.After(p.expires) {
				ptr := entry.Expires
				m.Breach(reqSubsetExpiry, finding.Error, r.ID, ptr, "the delegated lease expires at %s, after job %s's lease (%s): a delegated expires_at MUST NOT exceed the parent's (ARCP v1.1 §9.4, §10)", l.expires.Format(time.RFC3339Nano), protocol.Quote(parent), p.expires.Format(time.RFC3339Nano))
			}
		}
	}
	if j.lease == nil {
		j.lease = l
	}
}

// overBudget is a currency in which a child's budget exceeds what the
// parent has left.
func overBudget(child, parent *lease, budgetCap string) (string, float64, float64) {
	if parent.budget == nil {
		return "", 0, 0
	}
	for cur, a := range amounts(child.grants[budgetCap]) {
		if left, ok := parent.budget[cur]; ok && a > left+budgetEpsilon {
			return cur, a, left
		}
	}
	return "", 0, 0
}

// leaseEvent follows an event with a lease effect: an operation is judged
// when it is attempted (expired, budget spent, outside the lease), and its
// outcome is checked against that judgement.
func (s *state) leaseEvent(m *protocol.Message, entry *registry.ARCPMessage, ev *registry.ARCPEvent, j *job, replay bool) {
	lt := s.set.t.Leases
	if lt == nil || j == nil || j.lease == nil || replay || s.lossy {
		return
	}
	l := j.lease
	switch ev.Effect {
	case evCost:
		name, _ := m.String(ev.Name)
		unit, _ := m.String(ev.Unit)
		v, ok := floatOf(m.At(ev.Value))
		if !ok || l.budget == nil {
			return
		}
		if _, budgeted := l.budget[unit]; !budgeted {
			return
		}
		switch {
		case name == lt.RemainingMetric:
			if r := s.find(checkLease, "decrement"); r != nil && l.spent && v > l.budget[unit]+budgetTolerance {
				m.Add(finding.Error, r.ID, ev.Value, "%s reports %s %s, but the cost metrics since the budget was last stated leave %s %s: the runtime lowers the counter by the value of each cost.* metric in a budgeted currency (ARCP v1.1 §9.6)", lt.RemainingMetric, unit, strconv.FormatFloat(v, 'f', -1, 64), unit, strconv.FormatFloat(l.budget[unit], 'f', -1, 64))
			}
			l.budget[unit] = v
			l.spent, l.remainingSeen = false, true
		case s.costMetric(name) && v > 0:
			l.budget[unit] -= v
			l.spent, l.costSeen = true, true
		}
	case evOperation:
		id, ok := m.String(ev.Call)
		if !ok {
			return
		}
		c := &call{line: m.Line}
		if !l.expires.IsZero() {
			if t, ok := timeAt(m, entry.Time); ok && !t.Before(l.expires) {
				c.expired = true
				if l.expiredOp == 0 {
					l.expiredOp = m.Line
				}
			}
		}
		for cur, left := range l.budget {
			if left <= 0 {
				c.exhausted = cur
			}
		}
		c.uncovered = s.uncovered(m, ev, l)
		if l.calls == nil {
			l.calls = map[string]*call{}
		}
		if len(l.calls) < maxCalls {
			l.calls[id] = c
		}
	case evOutcome:
		id, ok := m.String(ev.Call)
		if !ok {
			return
		}
		c := l.calls[id]
		if c == nil {
			return
		}
		delete(l.calls, id)
		code, failed := m.String(ev.Code)
		succeeded := !failed && m.Has(ev.Result)
		if r := s.find(checkLease, "expired"); r != nil && c.expired && succeeded {
			m.Add(finding.Error, r.ID, ev.Result, "the operation of line %d was attempted at or after the lease's expires_at (%s) and succeeds: it MUST fail with %s (ARCP v1.1 §9.5)", c.line, l.expires.Format(time.RFC3339Nano), lt.Expired)
			return
		}
		if r := s.find(checkLease, "exhausted"); r != nil && c.exhausted != "" && succeeded {
			m.Add(finding.Error, r.ID, ev.Result, "the operation of line %d was attempted with the %s budget at or below zero and succeeds: once a counter is at or below zero, an operation MUST fail with %s (ARCP v1.1 §9.6)", c.line, c.exhausted, lt.Exhausted)
			return
		}
		if r := s.find(checkLease, "uncovered"); r != nil && c.uncovered != "" {
			switch {
			case succeeded:
				m.Breach(reqCovered, finding.Error, r.ID, ev.Result, "the operation of line %d (%s) is not covered by the job's lease and succeeds: every authority-bearing operation is covered by the effective lease (ARCP v1.1 §9.1), and one that is not fails with %s (§9.3; v1.0 §9.3)", c.line, c.uncovered, lt.Denied)
			case failed && code != lt.Denied && code != lt.Expired && code != lt.Exhausted:
				m.Breach(reqDenied, finding.Error, r.ID, ev.Code, "the operation of line %d (%s) is not covered by the job's lease and fails with %s: an operation the lease does not cover fails with %s (ARCP v1.1 §9.3; v1.0 §9.3)", c.line, c.uncovered, protocol.Quote(code), lt.Denied)
			}
		}
	}
}

// costMetric reports whether a metric's name spends the budget.
func (s *state) costMetric(name string) bool {
	lt := s.set.t.Leases
	if lt.CostMetric == "" || name == lt.RemainingMetric {
		return false
	}
	if s.costRE == nil {
		re, err := regexp.Compile(lt.CostMetric)
		if err != nil {
			return false
		}
		s.costRE = re
	}
	return s.costRE.MatchString(name)
}

// uncovered describes an operation the lease shows not covered: a tool
// named like a capability the lease grants, with a target argument no
// pattern matches, or another tool that the lease's tool capability does
// not name. "" when covered or not decided.
func (s *state) uncovered(m *protocol.Message, ev *registry.ARCPEvent, l *lease) string {
	lt := s.set.t.Leases
	tool, ok := m.String(ev.Tool)
	if !ok || tool == "" {
		return ""
	}
	if args, isTarget := lt.Targets[tool]; isTarget {
		pats, granted := l.grants[tool]
		if !granted || len(pats) == 0 {
			return ""
		}
		a, _ := m.At(ev.Args).(map[string]any)
		for _, name := range args {
			target, ok := a[name].(string)
			if !ok {
				continue
			}
			for _, p := range pats {
				if globMatch(p, target) {
					return ""
				}
			}
			return protocol.Quote(tool) + " of " + protocol.Quote(target) + ", outside " + quoteList(pats)
		}
		return ""
	}
	pats, granted := l.grants[lt.ToolCapability]
	if !granted || len(pats) == 0 {
		return ""
	}
	for _, p := range pats {
		if globMatch(p, tool) {
			return ""
		}
	}
	return "tool " + protocol.Quote(tool) + ", outside " + protocol.Quote(lt.ToolCapability) + " " + quoteList(pats)
}
