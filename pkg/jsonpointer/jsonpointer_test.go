package jsonpointer

import (
	"slices"
	"testing"
)

// The examples of RFC 6901, section 5, and the edges the module's readers
// once disagreed on: "/" is the empty member name, never the whole
// document, and a string without a leading "/" is no pointer.
func TestSplit(t *testing.T) {
	cases := []struct {
		ptr  string
		want []string
		ok   bool
	}{
		{"", nil, true},
		{"/", []string{""}, true},
		{"/foo", []string{"foo"}, true},
		{"/foo/0", []string{"foo", "0"}, true},
		{"/a~1b", []string{"a/b"}, true},
		{"/c%d", []string{"c%d"}, true},
		{"/e^f", []string{"e^f"}, true},
		{"/g|h", []string{"g|h"}, true},
		{"/i\\j", []string{"i\\j"}, true},
		{"/k\"l", []string{"k\"l"}, true},
		{"/ ", []string{" "}, true},
		{"/m~0n", []string{"m~n"}, true},
		{"/~01", []string{"~1"}, true},
		{"/a/", []string{"a", ""}, true},
		{"//", []string{"", ""}, true},
		{"foo", nil, false},
		{"foo/bar", nil, false},
		{"/a~", nil, false},
		{"/a~2", nil, false},
	}
	for _, c := range cases {
		got, ok := Split(c.ptr)
		if ok != c.ok || !slices.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("Split(%q) = %q, %v; want %q, %v", c.ptr, got, ok, c.want, c.ok)
		}
		if ok != Valid(c.ptr) {
			t.Errorf("Valid(%q) = %v, Split says %v", c.ptr, Valid(c.ptr), ok)
		}
		var walked []string
		all := Walk(c.ptr, func(tok string) bool { walked = append(walked, tok); return true })
		if all != c.ok || c.ok && !slices.Equal(walked, c.want) {
			t.Errorf("Walk(%q) gave %q, %v; want %q, %v", c.ptr, walked, all, c.want, c.ok)
		}
		if c.ok && Format(got) != c.ptr {
			t.Errorf("Format(Split(%q)) = %q", c.ptr, Format(got))
		}
	}
}

func TestEscapeRoundTrip(t *testing.T) {
	for _, name := range []string{"", "a", "a/b", "~", "~1", "/~0/", "~~//"} {
		if got := Unescape(Escape(name)); got != name {
			t.Errorf("Unescape(Escape(%q)) = %q", name, got)
		}
		if p := Join("", name); !Valid(p) {
			t.Errorf("Join(\"\", %q) = %q, not a pointer", name, p)
		}
		toks, _ := Split(Join("/x", name))
		if !slices.Equal(toks, []string{"x", name}) {
			t.Errorf("Split(Join(\"/x\", %q)) = %q", name, toks)
		}
	}
	if got := JoinIndex("/items", 12); got != "/items/12" {
		t.Errorf("JoinIndex = %q", got)
	}
}

func TestWalkStops(t *testing.T) {
	n := 0
	if Walk("/a/b/c", func(string) bool { n++; return n < 2 }) || n != 2 {
		t.Errorf("Walk went on after step said stop (%d steps)", n)
	}
}
