package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/agentproto/agentproto/pkg/validate/report"
)

// runMerge is validate --merge REPORT... (report.Merge): the reports of
// the shards of a run joined into the report one run would have written,
// with the exit status it would have had. The format is the reports' own
// unless --format was given.
func runMerge(reports []string, o options, formatSet bool, stdout, stderr io.Writer, pl plugins) int {
	format := ""
	if formatSet {
		format = o.format
	}
	t, err := report.Merge(reports, format, stdout, report.Options{Verbose: o.verbose, NoSummary: !o.summary, Rules: pl.catalogue()}, pl.formats...)
	var werr *report.WriteError
	switch {
	case errors.As(err, &werr):
		fmt.Fprintf(stderr, "validate: writing output: %s\n", escapeText(werr.Err.Error()))
		return exitUsage
	case err != nil:
		fmt.Fprintf(stderr, "validate: --merge: %s\n", err)
		return exitUsage
	}
	switch {
	case t.Incomplete:
		return exitUsage
	case t.Errors > 0, o.strict && t.Warnings > 0:
		return exitFindings
	}
	return exitOK
}
