package main

import (
	"context"
	"fmt"
	"io"
)

// isTap reports whether args ask for the tap form, validate [flags] --
// AGENT_CMD [ARGS...]: flags, then "--", then a command.
func isTap(args []string) bool {
	for i, a := range args {
		if a == "--" {
			return i+1 < len(args)
		}
	}
	return false
}

// runTap runs the tap form of the command.
func runTap(_ context.Context, _ []string, _ io.Reader, _, stderr io.Writer, _ plugins) int {
	fmt.Fprintln(stderr, "validate: the tap form (-- AGENT_CMD) is not available in this build yet")
	return exitUsage
}
