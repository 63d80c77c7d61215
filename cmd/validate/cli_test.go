package main

import (
	"regexp"
	"testing"
)

// TestVersionFlag: --version prints one line naming the command, its
// module and version, and exits 0 without reading any trace (even one
// that is named).
func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version"}, {"--version", "no-such-trace.jsonl"}} {
		code, out, errs := runCLI(t, "", args...)
		if code != exitOK || errs != "" {
			t.Fatalf("%q: exit %d, stderr %q", args, code, errs)
		}
		if !regexp.MustCompile(`^validate github\.com/agentproto/agentproto \S+.*, go1\.\d+.*\n$`).MatchString(out) {
			t.Errorf("%q: %q, want validate, the module, its version and the Go version on one line", args, out)
		}
	}
}
