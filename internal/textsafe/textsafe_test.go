package textsafe

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuoteJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "a\x01", "bel\a", "del\x7f", "c1\u0085", "rlo\u202eevil", "iso\u2066x\u2069", "ls\u2028ps\u2029", `q"b\`, "tab\tnl\nbs\bff\f", "ünïcode 日本", "nul\x00"} {
		q := QuoteJSON(s)
		if !json.Valid([]byte(q)) {
			t.Errorf("QuoteJSON(%q) = %s: not valid JSON", s, q)
			continue
		}
		var back string
		if err := json.Unmarshal([]byte(q), &back); err != nil || back != s {
			t.Errorf("QuoteJSON(%q) = %s, decodes to %q (%v)", s, q, back, err)
		}
		for _, r := range strings.Trim(q, `"`) {
			if r != '\t' && Unsafe(r) {
				t.Errorf("QuoteJSON(%q) = %s holds %U raw", s, q, r)
			}
		}
		if isASCIIPrintable(s) && q != strconv.Quote(s) {
			t.Errorf("QuoteJSON(%q) = %s, want strconv.Quote's %s for plain ASCII", s, q, strconv.Quote(s))
		}
	}
	if q := QuoteJSON("bad\xffutf8"); q != `"bad\ufffdutf8"` {
		t.Errorf("invalid UTF-8: %s", q)
	}
}

func isASCIIPrintable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ttext":              "plain\ttext",
		"\x1b[31mred":              `\x1b[31mred`,
		"line\n::error file=x::hi": `line\n::error file=x::hi`,
		"bel\a del\x7f":            `bel\x07 del\x7f`,
		"rlo\u202e lri\u2066":      `rlo\u202e lri\u2066`,
		"c1\u0085 ls\u2028":        `c1\u0085 ls\u2028`,
		"bad\xff":                  `bad\xff`,
		"ünïcode":                  "ünïcode",
	} {
		got := Escape(in)
		if got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
		if strings.ContainsAny(got, "\n\r") || !utf8.ValidString(got) {
			t.Errorf("Escape(%q) = %q holds a line break or invalid UTF-8", in, got)
		}
	}
}
