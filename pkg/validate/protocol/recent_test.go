package protocol

import (
	"fmt"
	"testing"
)

func TestRecentForgetsOldest(t *testing.T) {
	r := NewRecent[int](10)
	for i := 0; i < 1000; i++ {
		r.Put(fmt.Sprint(i), i)
		if i%3 == 0 {
			r.Delete(fmt.Sprint(i - 1))
		}
	}
	if r.Len() > 20 {
		t.Fatalf("%d entries kept, want at most 2*max", r.Len())
	}
	for i := 990; i < 1000; i++ {
		_, ok := r.Get(fmt.Sprint(i))
		deleted := (i+1)%3 == 0 && i+1 < 1000
		if ok == deleted {
			t.Errorf("key %d: present=%v, deleted=%v", i, ok, deleted)
		}
	}
	if _, ok := r.Get("5"); ok {
		t.Error("an old key survived")
	}
	// Re-putting a key keeps one entry for it.
	r2 := NewRecent[int](2)
	for i := 0; i < 10; i++ {
		r2.Put("a", i)
		r2.Put(fmt.Sprint(i), i)
	}
	if v, ok := r2.Get("a"); !ok || v != 9 {
		t.Errorf("a = %d, %v", v, ok)
	}
}

// A key pushed out of the window is still known to have been seen: a rule
// must never call it unknown.
func TestRecentRemembersForgotten(t *testing.T) {
	r := NewRecent[bool](100)
	for i := 0; i < 10000; i++ {
		r.Put(fmt.Sprint("k", i), true)
	}
	for i := 0; i < 10000; i++ {
		k := fmt.Sprint("k", i)
		if _, live := r.Get(k); !live && !r.Forgotten(k) {
			t.Fatalf("%s was put, dropped, and is not reported as forgotten", k)
		}
	}
	wrong := 0
	for i := 0; i < 10000; i++ {
		if r.Forgotten(fmt.Sprint("never", i)) {
			wrong++
		}
	}
	if wrong > 100 {
		t.Errorf("%d of 10,000 keys never put are reported as forgotten; want under 1%%", wrong)
	}
}

func TestAt(t *testing.T) {
	v := map[string]any{"a": map[string]any{"b/c": []any{"x", map[string]any{"d": "y"}}, "e": "z"}}
	for ptr, want := range map[string]any{"/a/e": "z", "/a/b~1c/1/d": "y", "/a/b~1c/0": "x", "/a/nope": nil, "/a/e/f": nil, "/a/b~1c/9": nil, "": v} {
		if got := At(v, ptr); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("At(%q) = %v, want %v", ptr, got, want)
		}
	}
}
