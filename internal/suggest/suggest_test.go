package suggest

import (
	"slices"
	"strings"
	"testing"
)

func TestNearKey(t *testing.T) {
	for _, tc := range []struct {
		want string
		keys []string
		near string
	}{
		{"currentModeId", []string{"sessionUpdate", "modeId"}, "modeId"},
		{"availableCommands", []string{"sessionUpdate", "commands"}, "commands"},
		{"dims", []string{"name", "value", "dimensions"}, "dimensions"},
		{"sessionId", []string{"SessionId", "prompt"}, "SessionId"},
		{"sessionId", []string{"session_id"}, "session_id"},
		{"toolCallId", []string{"toolCallID"}, "toolCallID"},
		{"terminalId", []string{"status", "output"}, ""},
		{"title", []string{"kind", "status"}, ""},
	} {
		obj := map[string]any{}
		for _, k := range tc.keys {
			obj[k] = true
		}
		if got := NearKey(tc.want, obj); got != tc.near {
			t.Errorf("NearKey(%q, %v) = %q, want %q", tc.want, tc.keys, got, tc.near)
		}
	}
}

func TestMisspelt(t *testing.T) {
	known := []string{"sessionId", "toolCallId", "locations", "content", "kind", "title"}
	for key, want := range map[string]string{
		"locatons":   "locations",
		"sessionID":  "sessionId",
		"toolcallId": "toolCallId",
		"session_id": "sessionId",
		"contnet":    "content",
		"kinds":      "",      // too short a name to guess from
		"titles":     "title", // one letter more
		"sessionId":  "",      // known: not a miss
		"rawInput":   "",      // nothing near
	} {
		if got := Misspelt(key, known); got != want {
			t.Errorf("Misspelt(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestNearBounded(t *testing.T) {
	long := make([]byte, 1<<20)
	for i := range long {
		long[i] = 'a'
	}
	if got := Near(string(long), []string{"aaaa"}); got != "" {
		t.Errorf("a 1 MiB name got a suggestion %q; names over MaxName are never compared", got)
	}
}

func TestMeant(t *testing.T) {
	allowed := []string{"allow_once", "allow_always", "reject_once", "end_turn", "text"}
	for _, c := range []struct {
		got  string
		want []string
	}{
		{"end-turn", []string{"end_turn"}},
		{"txt", []string{"text"}},
		{"allow", []string{"allow_once", "allow_always"}},
		{"text", nil}, // allowed already
		{"zzz", nil},
		{"", nil},
		{strings.Repeat("allow", 1<<18), nil}, // past MaxName: not compared
	} {
		if got := Meant(c.got, allowed); !slices.Equal(got, c.want) {
			t.Errorf("Meant(%.20q) = %q, want %q", c.got, got, c.want)
		}
	}
}
