package check

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestFormatsAgreeWithV6: each format check gives jsonschema/v6's verdict
// (with format assertion on) on strings chosen to sit on either side of
// each rule.
func TestFormatsAgreeWithV6(t *testing.T) {
	probes := []string{
		"", "x", "a@b", "a@b.c", "a.b@c.d", ".a@b.c", "a.@b.c", "a..b@c.d", `"q"@x.y`, `"q\""@x.y`, "a@[1.2.3.4]", "a@[IPv6:::1]", "a@[IPv6:zz]", "a@-b.c", "a b@c.d",
		strings.Repeat("a", 65) + "@b.c", "x@" + strings.Repeat("a", 250) + ".com",
		"0f8fad5b-d9cb-469f-a165-70867728950e", "0F8FAD5B-D9CB-469F-A165-70867728950E", "0f8fad5b-d9cb-469f-a165-70867728950", "0f8fad5bd9cb469fa16570867728950e", "0f8fad5b-d9cb-469f-a165-70867728950g",
		"1.2.3.4", "255.255.255.255", "256.1.1.1", "01.2.3.4", "1.2.3", "1.2.3.4.5", "1.2.3.-4", "+1.2.3.4", "0.0.0.0",
		"::1", "2001:db8::1", "fe80::1%eth0", "::ffff:1.2.3.4", "1::2::3", "12345::1", ":",
		"example.com", "example.com.", "-a.com", "a-.com", "a_b.com", strings.Repeat("a", 63) + ".com", strings.Repeat("a", 64) + ".com", "xn--bcher-kva.example", "日本.jp",
		"http://example.com", "https://[::1]:8080/x", "http://::1/", "http://[zz]/", "mailto:x@y", "urn:isbn:123", "/relative/path", "rel", "#frag", `a\b`, "%zz", "http://a b", "?q=1",
		"^[a-z]+$", "(", "a(?=b)", "[a-", `\d{2,}`, "a{2,1}", `\p{Greek}`, "(?i)x", `\`,
	}
	checks := map[string]func(string) bool{
		"email": IsEmail, "uuid": IsUUID, "ipv4": IsIPv4, "ipv6": IsIPv6, "hostname": IsHostname, "uri": IsURI, "uri-reference": IsURIReference, "regex": IsRegex,
	}
	for format, fn := range checks {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource("f.json", map[string]any{"format": format}); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile("f.json")
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range probes {
			want := sch.Validate(p) == nil
			if got := fn(p); got != want {
				t.Errorf("%s %q: check says %v, v6 says %v", format, p, got, want)
			}
		}
	}
}

func TestUnique(t *testing.T) {
	if _, _, dup := Unique([]string{"a", "b", "c"}); dup {
		t.Error("distinct strings reported equal")
	}
	if i, j, dup := Unique([]float64{1, 2, 1.0}); !dup || i != 0 || j != 2 {
		t.Errorf("1 and 1.0: %d %d %v, want 0 2 true", i, j, dup)
	}
	if _, _, dup := Unique([]bool{}); dup {
		t.Error("an empty list has a duplicate")
	}
}

func TestUniqueJSON(t *testing.T) {
	for _, c := range []struct {
		items []string
		i, j  int
		dup   bool
	}{
		{[]string{`{"a":1,"b":[1,2]}`, `{"b":[1,2.0],"a":10e-1}`}, 0, 1, true},
		{[]string{`{"a":1}`, `{"a":"1"}`, `[1]`, `[1,1]`, `1`, `"1"`, `null`}, 0, 0, false},
		{[]string{`[0.5]`, `[5E-1]`}, 0, 1, true},
		{[]string{`"\u00e9"`, `"é"`}, 0, 1, true},
		{[]string{`-0`, `0.0`}, 0, 1, true},
		{[]string{`100`, `1e2`, `1e1000000000000000000000`}, 0, 1, true},
		{[]string{`{"a":{"b":null}}`, `{"a":{"b":false}}`, `{"a":{}}`}, 0, 0, false},
		{[]string{`1`, `2`, `{"x":1}`, `{"x":2}`, `{"x":1.0}`}, 2, 4, true},
	} {
		i, j, dup := UniqueJSON(len(c.items), func(k int) []byte { return []byte(c.items[k]) })
		if dup != c.dup || i != c.i || j != c.j {
			t.Errorf("UniqueJSON(%v) = %d, %d, %v; want %d, %d, %v", c.items, i, j, dup, c.i, c.j, c.dup)
		}
	}
}
