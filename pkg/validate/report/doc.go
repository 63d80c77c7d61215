// Package report writes the findings and the summary of a validation run
// (package validate) in the output formats of cmd/validate: plain text,
// JSON Lines, GitHub Actions workflow commands, SARIF 2.1.0, JUnit XML and
// a self-contained HTML page.
//
// A Writer is told each finding as it comes (Finding), the end of each
// trace with that trace's summary (EndTrace), and the end of the run with
// its totals (End); Close then flushes the output and reports the first
// error. Memory does not grow with the number of traces: what a summary
// must list of each trace waits in a temporary file.
//
// Each format is one file of this package, with its own state and its own
// escaping. Everything written is escaped for its format, whatever
// produced the finding, so no text from a trace can end an output line,
// start a CI workflow command or reach a terminal as a control sequence.
//
// Merge joins the reports of the shards of one run, written in JSON, SARIF
// or JUnit, into the report one run would have written.
package report
