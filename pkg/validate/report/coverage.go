package report

import (
	"fmt"
	"io"
	"slices"
)

// combinedCoverage is what a folder of traces showed of each version's
// catalogue: per row, in how many traces it was violated and exercised.
// It holds one entry per row of each version met, not per trace.
type combinedCoverage struct {
	versions []string // "protocol dialect", in the order first met
	by       map[string]*versionCoverage
}

type versionCoverage struct {
	traces    int
	rows      []string // every checked row, in the catalogue's order
	violated  map[string]int
	exercised map[string]int
	unchecked int
}

// add folds in one trace's coverage.
func (c *combinedCoverage) add(d JSONDetected) {
	k := d.Protocol + " " + d.Dialect
	if c.by == nil {
		c.by = map[string]*versionCoverage{}
	}
	v, ok := c.by[k]
	if !ok {
		v = &versionCoverage{violated: map[string]int{}, exercised: map[string]int{}}
		c.by[k] = v
		c.versions = append(c.versions, k)
	}
	v.traces++
	cov := d.Coverage
	v.unchecked = len(cov.Unchecked)
	for _, ids := range [][]string{cov.Violated, cov.Exercised, cov.Unexercised} {
		for _, id := range ids {
			if _, seen := v.violated[id]; !seen {
				v.violated[id] = 0
				v.rows = append(v.rows, id)
			}
		}
	}
	for _, id := range cov.Violated {
		v.violated[id]++
	}
	for _, id := range cov.Exercised {
		v.exercised[id]++
	}
}

// write writes, per version, each checked row once: violated (in how many
// traces), else exercised and held (in how many), else never reached.
func (c *combinedCoverage) write(w io.Writer) error {
	for _, k := range c.versions {
		v := c.by[k]
		fmt.Fprintf(w, "\ncoverage of %d traces (%s), combined:\n", v.traces, EscapeText(k))
		rows := slices.Clone(v.rows)
		slices.Sort(rows)
		var held, never []string
		for _, id := range rows {
			switch {
			case v.violated[id] > 0:
				fmt.Fprintf(w, "  %-14s %s (in %s)\n", "violated", EscapeText(id), Plural(v.violated[id], "trace"))
			case v.exercised[id] > 0:
				held = append(held, id)
			default:
				never = append(never, id)
			}
		}
		for _, id := range held {
			fmt.Fprintf(w, "  %-14s %s (in %s)\n", "exercised", EscapeText(id), Plural(v.exercised[id], "trace"))
		}
		for _, id := range never {
			fmt.Fprintf(w, "  %-14s %s\n", "not exercised", EscapeText(id))
		}
		if _, err := fmt.Fprintf(w, "  %d rows are not checked by any rule (validate --list-rules); -v lists each trace's coverage\n", v.unchecked); err != nil {
			return err
		}
	}
	return nil
}
