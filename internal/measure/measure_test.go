package measure

import (
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{7}, 7},
		{[]time.Duration{9, 1, 5}, 5},
		{[]time.Duration{4, 100, 2, 6}, 5},
	} {
		in := append([]time.Duration(nil), c.in...)
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
		for i := range in {
			if in[i] != c.in[i] {
				t.Fatalf("Median reordered its input: %v", c.in)
			}
		}
	}
}

func TestRatio(t *testing.T) {
	// One pair slowed down tenfold on the numerator's side moves a mean
	// of ratios far; the median stays with the typical pair.
	num := []time.Duration{20, 21, 200, 19, 20}
	den := []time.Duration{10, 10, 10, 10, 10}
	if got := Ratio(num, den); got != 2.0 {
		t.Errorf("Ratio = %v, want 2", got)
	}
	if got := Ratio([]time.Duration{3, 5}, []time.Duration{1, 1}); got != 4 {
		t.Errorf("Ratio of two pairs = %v, want 4", got)
	}
	if got := Ratio([]time.Duration{1}, []time.Duration{0}); got != 0 {
		t.Errorf("Ratio with a zero denominator = %v, want 0", got)
	}
	if got := Ratio(nil, nil); got != 0 {
		t.Errorf("Ratio of nothing = %v, want 0", got)
	}
}
