//go:build unix

package measure

import "testing"

func TestCPUGrows(t *testing.T) {
	before, err := CPU()
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for i := range 50_000_000 {
		x ^= i * i
	}
	after, err := CPU()
	if err != nil {
		t.Fatal(err)
	}
	if after <= before {
		t.Fatalf("CPU did not grow over a busy loop: %v then %v (%d)", before, after, x)
	}
}
