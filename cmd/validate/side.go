package main

import (
	"fmt"
	"slices"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/report"
	"github.com/agentproto/agentproto/schema/registry"
)

// --side: a conformance run checks one implementation, and its driver's
// faults (a client's deliberate probes of an agent) are not the
// implementation's. With --side, only the findings that blame one of the
// sides named (or no side at all) are written and counted, in the output
// and in the exit status; every run's summary gives the totals per side.

// sideFilter counts each finding by side and passes on those of the sides
// kept.
type sideFilter struct {
	keep []string // empty: every side
	// totals counts every finding by side, those dropped included.
	totals report.Totals
	// dropped are the current trace's findings that were not passed on.
	dropped validate.Summary
}

// sideNames are the sides the registry's requirements bind, besides
// "either": what --side takes.
func sideNames(reg *registry.Registry) []string {
	var out []string
	for _, p := range registry.Protocols() {
		for _, q := range reg.AllRequirements(p) {
			if q.Side != "" && q.Side != "either" && !slices.Contains(out, q.Side) {
				out = append(out, q.Side)
			}
		}
	}
	slices.Sort(out)
	return out
}

// newSideFilter checks the sides named by --side against reg's.
func newSideFilter(sides []string, reg *registry.Registry) (*sideFilter, error) {
	known := sideNames(reg)
	for _, s := range sides {
		if !slices.Contains(known, s) {
			return nil, fmt.Errorf("unknown --side %q: want %s (the sides the protocols' requirements name)", s, orList(known))
		}
	}
	return &sideFilter{keep: sides, totals: report.Totals{Sides: sides}}, nil
}

// wrap returns tell, told only the findings of the sides kept.
func (s *sideFilter) wrap(tell func(validate.Finding)) func(validate.Finding) {
	return func(f validate.Finding) {
		s.totals.AddSide(f)
		if !s.totals.Counted(f.Side) {
			s.dropped.Add(f)
			return
		}
		tell(f)
	}
}

// endTrace takes the findings not passed on out of the counts of the
// trace's summary.
func (s *sideFilter) endTrace(sum *validate.Summary) {
	sum.Errors -= s.dropped.Errors
	sum.Warnings -= s.dropped.Warnings
	for rule, n := range s.dropped.ByRule {
		if sum.ByRule[rule] -= n; sum.ByRule[rule] <= 0 {
			delete(sum.ByRule, rule)
		}
	}
	s.dropped = validate.Summary{}
}
