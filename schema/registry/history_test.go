package registry

import (
	"strings"
	"testing"
)

// TestHistoryAnswersByPlace: the embedded history is looked up as the
// validator looks it up, by the $ids of the types a member was judged
// against, in a version and in its unstable extension alike.
func TestHistoryAnswersByPlace(t *testing.T) {
	reg, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"v1", "v1-unstable"} {
		v := reg.Lookup("acp", name)
		h, err := reg.History(v)
		if err != nil || h == nil {
			t.Fatalf("%s: no history: %v", name, err)
		}
		newResult := v.IDPrefix() + "session.new.result.json"
		m, ok := h.Member([]string{newResult}, "models", nil)
		if !ok || m.First != "v0.4.1" || m.Last != "v0.13.4" || !strings.Contains(m.Successor, `category "model"`) {
			t.Errorf("%s: models of session/new: %+v, %v", name, m, ok)
		}
		if _, ok := h.Member([]string{newResult}, "acmeTheme", nil); ok {
			t.Errorf("%s: a member no release defined is in the history", name)
		}
		authMethod := v.IDPrefix() + "common.json#/$defs/AuthMethod"
		agent := v.IDPrefix() + "common.json#/$defs/AuthMethodAgent"
		if m, ok := h.Member([]string{authMethod, agent}, "vars", map[string]any{"type": "env_var"}); !ok || !m.Unstable || len(m.When) != 2 {
			t.Errorf("%s: vars of an env_var auth method: %+v, %v", name, m, ok)
		}
		if _, ok := h.Member([]string{authMethod, agent}, "vars", map[string]any{"id": "x"}); ok {
			t.Errorf("%s: vars of an auth method of the default kind is called retired", name)
		}
		if hm, ok := h.Method("session/set_model"); !ok || hm.Side != "agent" {
			t.Errorf("%s: session/set_model: %+v, %v", name, hm, ok)
		}
		if _, ok := h.Method("session/new"); ok {
			t.Errorf("%s: a current method is retired", name)
		}
	}
	if h, err := reg.History(reg.Lookup("acp", "vtcode")); h != nil || err != nil {
		t.Errorf("a dialect without a history table has one: %v, %v", h, err)
	}
}

func TestSpanReleases(t *testing.T) {
	for _, c := range []struct {
		s    Span
		want string
	}{
		{Span{First: "v0.4.1", FirstDate: "2025-09-22", Last: "v0.13.4", LastDate: "2026-05-27"}, "releases v0.4.1 to v0.13.4 (2025-09-22 to 2026-05-27)"},
		{Span{First: "v0.10.6", FirstDate: "2026-01-01", Last: "v0.10.6", LastDate: "2026-01-01", Unstable: true}, "the unstable schema of release v0.10.6 (2026-01-01)"},
	} {
		if got := c.s.Releases(); got != c.want {
			t.Errorf("Releases() = %q, want %q", got, c.want)
		}
	}
}
