package validate

import (
	"fmt"
	"testing"
)

func TestRecentForgetsOldest(t *testing.T) {
	r := newRecent[int](10)
	for i := 0; i < 1000; i++ {
		r.put(fmt.Sprint(i), i)
		if i%3 == 0 {
			r.delete(fmt.Sprint(i - 1))
		}
	}
	if r.len() > 20 {
		t.Fatalf("%d entries kept, want at most 2*max", r.len())
	}
	for i := 990; i < 1000; i++ {
		_, ok := r.get(fmt.Sprint(i))
		deleted := (i+1)%3 == 0 && i+1 < 1000
		if ok == deleted {
			t.Errorf("key %d: present=%v, deleted=%v", i, ok, deleted)
		}
	}
	if _, ok := r.get("5"); ok {
		t.Error("an old key survived")
	}
	// Re-putting a key keeps one entry for it.
	r2 := newRecent[int](2)
	for i := 0; i < 10; i++ {
		r2.put("a", i)
		r2.put(fmt.Sprint(i), i)
	}
	if v, ok := r2.get("a"); !ok || v != 9 {
		t.Errorf("a = %d, %v", v, ok)
	}
}
