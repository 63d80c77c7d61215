// Package measure holds what the project's benchmarks share: the CPU time
// this process has used, and medians of repeated measurements, so that a
// ratio reported on a shared, noisy machine follows the typical run rather
// than the one that a neighbour slowed down.
package measure

import (
	"slices"
	"time"
)

// Median returns the median of ds (the mean of the middle two for an even
// count); 0 for none.
func Median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Ratio returns the median of num[i]/den[i] over the pairs: each pair is
// measured one right after the other, so both halves share the machine's
// load of that moment. It is 0 when there are no pairs or a den is 0.
func Ratio(num, den []time.Duration) float64 {
	n := min(len(num), len(den))
	if n == 0 {
		return 0
	}
	rs := make([]float64, n)
	for i := range n {
		if den[i] <= 0 {
			return 0
		}
		rs[i] = float64(num[i]) / float64(den[i])
	}
	slices.Sort(rs)
	if n%2 == 1 {
		return rs[n/2]
	}
	return (rs[n/2-1] + rs[n/2]) / 2
}
