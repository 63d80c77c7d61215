// Command validate checks recorded ARCP, ACP and Arcan traffic against the
// agentproto schemas and protocol rules, line by line.
//
// See README.md in this folder for the output formats and the rules, and
// run it with --help for examples.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/agentproto/agentproto/internal/buildinfo"
	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/trace"
	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/pkg/validate/report"
	"github.com/agentproto/agentproto/pkg/validate/typed"
	"github.com/agentproto/agentproto/schema/registry"
)

// Exit codes.
const (
	exitOK       = 0 // no errors (and, with --strict, no warnings)
	exitFindings = 1 // errors were found
	exitUsage    = 2 // bad flags, unreadable files
)

// plugins are the optional fast paths a build can provide, and what a
// caller adds to the built-in protocols and formats.
type plugins struct {
	fast      validate.FastChecker
	roundtrip validate.Roundtripper
	// registry and protocols, if set, are the engine's
	// (validate.Options): protocols of one's own over their registry.
	registry  *registry.Registry
	protocols []validate.Protocol
	// formats are output formats besides report's.
	formats []report.Format
}

// engineOptions returns o's engine options with what pl provides.
func (pl plugins) engineOptions(o validate.Options, fast, roundtrip bool) validate.Options {
	if fast {
		o.Fast = pl.fast
	}
	if roundtrip {
		o.Roundtrip = pl.roundtrip
	}
	o.Registry, o.Protocols = pl.registry, pl.protocols
	return o
}

func main() {
	if os.Getenv("GOGC") == "" {
		// The parsed lines are short-lived garbage and the live heap is
		// small (a few batches and the protocol state), so collecting at
		// three times the live heap rather than twice costs a little
		// memory for much less collection: on a 148 MB ACP trace, 14 %
		// less CPU for a peak of 75 MB rather than 54 MB. GOGC set in
		// the environment is obeyed as it is.
		debug.SetGCPercent(200)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	// The generated Go types: the fast path for valid messages, and the
	// round trip behind --roundtrip.
	pl := plugins{fast: typed.Checker{}, roundtrip: validate.RoundtripFunc(typed.Roundtrip)}
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, pl)
	stop()
	os.Exit(code)
}

// usage is the check's part of --help (printHelp): what it reads and how,
// and its examples.
const usage = `Checking recorded traces:
  validate [flags] TRACE|FOLDER|- ...

Each TRACE is JSON Lines (one message per line) or Server-Sent Events text
(data: frames), optionally gzip-compressed; - reads one from standard input.
A FOLDER is walked for traces (*.jsonl, *.ndjson, *.sse, each also .gz, and
files without an extension that start like a trace); sidecars (.dir, .conn,
.expect) and README files are never read as traces. The protocol is detected
per file: ARCP (messages with "arcp" and "type"), ACP (JSON-RPC with
"jsonrpc"), or Arcan AgentEvent ("part_type", bare, in SSE frames or in
session-store records), and so is the version: ACP by initialize's
protocolVersion, ARCP by the SDK whose signature the messages carry. A
sidecar NAME.dir beside NAME.jsonl gives each line's direction, one per line
(ACP: c2a or a2c; ARCP: c2r or r2c); without it the direction is inferred. A
trace that begins mid-session is recognised as such: one warning says so,
and what needs the session's start is not checked. A file whose name begins
with - is named ./-name.

Examples:
  validate session.jsonl                    check one trace; findings, then a summary
  validate traces/*.jsonl traces/*.jsonl.gz check many, compressed or not
  validate traces/ --format json            flags may follow the paths
  cat run.sse | validate -                  check an Arcan SSE stream from stdin
  validate --protocol arcp --dialect go-sdk job.jsonl
                                            skip detection; read ARCP as the Go SDK dialect
  validate --direction acp.dir acp.jsonl    ACP directions from a sidecar file
  validate --format json trace.jsonl | jq 'select(.severity=="error")'
                                            machine-readable: one JSON object per finding
  validate --format github trace.jsonl      GitHub Actions annotations (::error file=…)
{format examples}
  validate --list-rules --protocol acp --dialect v1
                                            the requirement catalogue: every MUST and SHOULD of
                                            the spec, its citation, and the rule that checks it
  validate --explain acp.prompt.cancelled-stop-reason
                                            one requirement a finding names, with an example
  validate --coverage session.jsonl         which requirements the trace exercised, violated
                                            and never reached
  validate --disable unstable --warn capability traces/
                                            turn a rule off, or its errors into warnings
                                            (also per path glob in .agentproto.json)
  validate --write-baseline known.json traces/ ; validate --baseline known.json traces/
                                            record today's findings; later fail only on new ones
  validate --strict --max-line 64MiB big.jsonl.gz
                                            warnings fail too; allow lines up to 64 MiB
  validate --roundtrip session.jsonl        also report what a decode and re-encode with
                                            the generated Go types would change
  validate --shard 2/4 --format json traces/ > shard-2.json
                                            check one of four parts of the traces, split by
                                            path (the same on every machine), as a CI matrix does
  validate --merge shard-*.json             join the shards' reports into the report and exit
                                            status one run would have given (the formats --merge
                                            names)

Memory does not grow with the number of traces: each trace's findings are
written as it ends, and what the summary needs of it waits in a temporary
file; folders are walked as they are read.
`

type options struct {
	checkFlags
	direction string
	strict    bool
	roundtrip bool
	progress  string
	maxBytes  int64

	disable, warn listFlag
	config        string
	noConfig      bool
	baseline      string
	writeBaseline string

	listRules bool
	rules     bool
	explain   string
	coverage  bool
	verbose   bool
	version   bool
	shard     shardFlag
	merge     bool
	side      listFlag
}

// listFlag is a repeatable flag whose values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// partialFlag is --partial: unset (decide from the trace), true or false.
type partialFlag protocol.Partial

func (p *partialFlag) IsBoolFlag() bool { return true }

func (p *partialFlag) String() string {
	switch protocol.Partial(*p) {
	case protocol.PartialYes:
		return "true"
	case protocol.PartialNo:
		return "false"
	}
	return "auto"
}

func (p *partialFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false, got %q", s)
	}
	*p = partialFlag(protocol.PartialNo)
	if v {
		*p = partialFlag(protocol.PartialYes)
	}
	return nil
}

// dialectHelp lists, from the registry, every name --dialect accepts.
func dialectHelp() string {
	reg, err := registry.Embedded()
	if err != nil {
		return ""
	}
	var sb strings.Builder
	sb.WriteString("\nVersions and dialects (--dialect):\n")
	for _, p := range registry.Protocols() {
		var names []string
		for _, v := range reg.Versions(p) {
			n := v.Name
			if v.Default {
				n += " (default)"
			}
			names = append(names, n)
			names = append(names, v.Dialects()...)
		}
		fmt.Fprintf(&sb, "  %-6s %s\n", p, strings.Join(names, ", "))
	}
	sb.WriteString("  ACP v1 traces are read with the stable schemas, and each unstable addition they use is one\n  warning; --dialect v1 makes those errors, --dialect v1-unstable accepts them silently.\n")
	return sb.String()
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, pl plugins) int {
	if isTap(args) { // validate [flags] -- AGENT_CMD [ARGS...]: tap.go
		return runTap(ctx, args, stdin, stdout, stderr, pl)
	}
	fl := flag.NewFlagSet("validate", flag.ContinueOnError)
	// Parse errors are reported here in one line, not with the whole usage.
	fl.SetOutput(io.Discard)
	var o options
	o.checkFlags.register(fl, checkMode, pl.protocolNames())
	fl.StringVar(&o.direction, "direction", "", "ACP direction sidecar `file` (one c2a or a2c per line of the trace) for the single TRACE")
	maxBytes := byteSizeFlag(trace.DefaultMaxBytes)
	fl.Var(&maxBytes, "max-bytes", "most read of one trace, in bytes after decompression; past it the file ends with an io finding")
	mergeLabels, mergeNames := report.Mergeable()
	fl.BoolVar(&o.strict, "strict", false, "exit 1 on warnings too")
	fl.BoolVar(&o.roundtrip, "roundtrip", false, "also decode and re-encode each schema-valid message with the generated Go types and report what changes")
	fl.StringVar(&o.progress, "progress", "auto", "progress on stderr (lines read; for a file, the share read and about how long the rest takes): auto (when stderr is a terminal), always or never")
	fl.Var(&o.disable, "disable", "drop the findings of `RULE` (repeatable, or comma-separated; deviation:* names a family)")
	fl.Var(&o.warn, "warn", "report the errors of `RULE` as warnings (repeatable, or comma-separated)")
	fl.StringVar(&o.config, "config", "", "read rule settings from this `file` instead of the .agentproto.json found by walking up from each trace")
	fl.BoolVar(&o.noConfig, "no-config", false, "read no .agentproto.json")
	fl.StringVar(&o.baseline, "baseline", "", "hold back the findings this baseline `file` knows (same file, rule, pointer and message); fail only on new ones")
	fl.StringVar(&o.writeBaseline, "write-baseline", "", "write every finding to this baseline `file` (exit 0 unless a trace could not be read); in text format the findings go only to the file")
	fl.BoolVar(&o.listRules, "list-rules", false, "print the requirement catalogue (every MUST, SHOULD and their negations of each version's spec: id, level, side, gate, citation, and the rule that checks it, if any) and exit; --protocol and --dialect narrow it, --format json prints one object per row")
	fl.BoolVar(&o.rules, "rules", false, "with --list-rules: list the rules instead (the name in a finding's brackets), each with its severity and one line of what it catches, under a heading per protocol")
	fl.StringVar(&o.explain, "explain", "", "print the catalogue row `ID` (a requirement a finding names) with its citation and an example trace that breaks it, or what a rule a finding names catches and why it is an error or a warning, and exit")
	fl.BoolVar(&o.version, "version", false, "print the module version and VCS revision this validate was built from, and exit")
	fl.BoolVar(&o.verbose, "v", false, "in the text summary, every trace's details (how its version was decided, its peers, its requirements; without -v a trace with no finding gets one line), and on stderr each file of the walked folders not read as a trace (without -v, their count)")
	fl.Var(&o.shard, "shard", "check only shard `K/N` of the traces (K from 1 to N): a stable partition by path, the same on every machine whatever the files hold or the order they are listed in; an empty shard is no error. --merge joins the shards' reports ("+mergeLabels+")")
	fl.BoolVar(&o.merge, "merge", false, "read the paths as the reports of the shards of one run (--shard, each written with --format "+mergeNames+") and write the report one run would have written, with its exit status: each merges into its own format, JSON also into any but html")
	fl.Var(&o.side, "side", "write and count only the findings that blame `SIDE` (or no side): agent or client for ACP, runtime or client for ARCP, agent or consumer for Arcan (repeatable, or comma-separated); the summary gives every side's totals. For a conformance run of one implementation, whose driver's faults are not its own")
	fl.BoolVar(&o.coverage, "coverage", false, "after the summary, list per trace the requirements it violated, exercised and never reached (text format; --format json always has them)")
	// The flag package calls Usage on every parse error; the help is
	// printed below, on standard output, only when asked for.
	fl.Usage = func() {}
	files, err := parseInterleaved(fl, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(stdout, fl)
			return exitOK
		}
		if msg, ok := tapOnlyFlag(err); ok {
			fmt.Fprintf(stderr, "validate: %s\n%s", msg, usageHint)
			return exitUsage
		}
		fmt.Fprintf(stderr, "validate: %s\n%s", escapeText(err.Error()), usageHint)
		return exitUsage
	}
	if o.version {
		in, _ := buildinfo.Read("validate")
		fmt.Fprintln(stdout, in)
		return exitOK
	}
	o.maxBytes = int64(maxBytes)
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "validate: "+format+"\n", a...)
		return exitUsage
	}
	if o.maxLine > 1<<31-1 {
		return fail("--max-line %d is too large: at most 2GiB", int64(o.maxLine))
	}
	if o.rules && !o.listRules {
		return fail("--rules goes with --list-rules: validate --list-rules --rules")
	}
	if o.listRules && o.rules {
		if err := listRuleNames(stdout, ruleRows(pl, o.protocol), o.format); err != nil {
			return fail("--list-rules: %s", escapeText(err.Error()))
		}
		return exitOK
	}
	if o.listRules {
		if err := listRules(stdout, o.protocol, o.dialect, o.format); err != nil {
			return fail("--list-rules: %s", escapeText(err.Error()))
		}
		return exitOK
	}
	if o.explain != "" {
		if d, ok := pl.catalogue().Help().Lookup(o.explain); ok {
			explainRule(stdout, o.explain, d)
			return exitOK
		}
		if err := explainRow(stdout, o.explain); err != nil {
			return fail("--explain: %s", escapeText(err.Error()))
		}
		return exitOK
	}
	if o.merge {
		formatSet := false
		fl.Visit(func(f *flag.Flag) { formatSet = formatSet || f.Name == "format" })
		return runMerge(files, o, formatSet, stdout, stderr, pl)
	}
	if len(files) == 0 {
		fmt.Fprintf(stderr, "validate: no trace given: name one or more files or folders, or - for standard input\n%s", usageHint)
		return exitUsage
	}
	if _, ok := report.Lookup(o.format, pl.formats...); !ok {
		return fail("unknown --format %q: want %s", o.format, report.Names(false))
	}
	if o.maxDepth < 0 || o.maxDepth > jsonscan.MaxDepthCeiling {
		return fail("--max-depth %d is out of range: want 1 to %d (deeper nesting is not checked safely)", o.maxDepth, jsonscan.MaxDepthCeiling)
	}
	switch o.progress {
	case "auto", "always", "never":
	default:
		return fail("unknown --progress %q: want auto, always or never", o.progress)
	}
	if o.direction != "" && len(files) != 1 {
		return fail("--direction names the sidecar of one trace, but %d traces were given", len(files))
	}
	if o.roundtrip && pl.roundtrip == nil {
		return fail("--roundtrip is not available in this build: no typed round-trip checker is plugged in (see cmd/validate/README.md)")
	}
	stdinUses := 0
	for _, f := range files {
		if f == "-" {
			stdinUses++
		}
	}
	if stdinUses > 1 {
		return fail("- (standard input) may be named only once")
	}
	flagRules := validate.RuleControl{Disable: o.disable, Warn: o.warn}
	if err := flagRules.Check(); err != nil {
		return fail("%s", escapeText(err.Error()))
	}
	if o.baseline != "" && o.writeBaseline != "" {
		return fail("--baseline and --write-baseline together: to renew a baseline, write it without --baseline")
	}
	eopts := o.checkFlags.engineOptions()
	eopts.MaxBytes = o.maxBytes
	eng, err := validate.New(pl.engineOptions(eopts, o.fast, o.roundtrip))
	if err != nil {
		return fail("%s", escapeText(strings.TrimPrefix(err.Error(), "validate: ")))
	}

	// The inputs come one at a time (expand walks folders as it goes);
	// the first two are looked at before the run begins.
	sk := &skipped{w: stderr, verbose: o.verbose}
	var inputs iter.Seq[input] = expand(dedupe(files), sk.add)
	if o.shard.n > 0 {
		inputs = o.shard.filter(inputs)
	}
	next, stop := iter.Pull(inputs)
	defer stop()
	var pending []input
	for range 2 {
		if in, ok := next(); ok {
			pending = append(pending, in)
		}
	}
	if len(pending) == 0 && o.shard.n == 0 {
		sk.done()
		return fail("no trace among the named files: sidecars (.dir, .conn, .expect) and README or Markdown files are not traces")
	}
	if o.direction != "" && len(pending) != 1 {
		sk.done()
		if len(pending) == 0 {
			return fail("--direction names the sidecar of one trace, but this shard holds none")
		}
		return fail("--direction names the sidecar of one trace, but more than one trace was found")
	}
	rulesFor := newRuleFinder(o, flagRules)
	if len(pending) > 0 {
		// A config file that is wrong stops the run before it begins
		// when the first trace uses it.
		if _, err := rulesFor.For(pending[0]); err != nil {
			return fail("%s", escapeText(err.Error()))
		}
	}
	var baseline *validate.Baseline
	if o.baseline != "" {
		if baseline, err = readBaseline(o.baseline); err != nil {
			return fail("%s", escapeText(err.Error()))
		}
	}
	var newBaseline *validate.BaselineWriter
	if o.writeBaseline != "" {
		dir, err := filepath.Abs(filepath.Dir(o.writeBaseline))
		if err != nil {
			return fail("--write-baseline: %s", escapeText(err.Error()))
		}
		newBaseline = validate.NewBaselineWriter(dir)
	}

	reg := pl.registry
	if reg == nil {
		if reg, err = registry.Embedded(); err != nil {
			return fail("%s", escapeText(err.Error()))
		}
	}
	sides, err := newSideFilter(o.side, reg)
	if err != nil {
		return fail("%s", escapeText(err.Error()))
	}
	out := newWriter(o.format, stdout, report.Options{Verbose: o.verbose, NoSummary: !o.summary, Coverage: o.coverage, Rules: pl.catalogue()}, pl.formats...)
	tell := sides.wrap(out.Finding)
	if newBaseline != nil {
		// In text, the findings go to the baseline file only (a
		// terminal full of known findings teaches nothing); what could
		// not be read is still said. Other formats are for machines
		// and get every finding.
		quiet := o.format == "text"
		tell = sides.wrap(func(f validate.Finding) {
			newBaseline.Add(f)
			if !quiet || f.Rule == validate.RuleIO {
				out.Finding(f)
			}
		})
	}
	var total validate.Summary
	ioFailed := false
	var cfgErr error
	for {
		var in input
		var ok bool
		if len(pending) > 0 {
			in, pending = pending[0], pending[1:]
		} else if in, ok = next(); !ok {
			break
		}
		rules, err := rulesFor.For(in)
		if err != nil {
			cfgErr = err
			break
		}
		var sum validate.Summary
		if in.err != nil {
			sum, err = ioFinding(in.name, in.err, tell)
		} else {
			sum, err = checkOne(ctx, eng, in.name, o, stdin, stderr, fileChecks{rules: rules, baseline: baseline, message: records(out, in.name), walked: in.walked}, tell)
		}
		// What the trace was read as goes to the writer, which
		// keeps it out of memory; the run keeps only counts.
		sides.endTrace(&sum)
		out.EndTrace(in.name, sum)
		sum.Detected = nil
		total.Merge(sum)
		if err != nil {
			ioFailed = true
			// The text output says it already, as an io finding:
			// on a terminal, once is enough.
			if o.format != "text" {
				fmt.Fprintf(stderr, "validate: %s\n", escapeText(err.Error()))
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	sk.done()
	if cfgErr != nil {
		out.Close()
		return fail("%s", escapeText(cfgErr.Error()))
	}
	t := sides.totals
	t.Summary, t.Known, t.Incomplete = total, baseline.Matched(), ioFailed || ctx.Err() != nil
	out.End(t)
	if err := out.Close(); err != nil {
		fmt.Fprintf(stderr, "validate: writing output: %s\n", escapeText(err.Error()))
		return exitUsage
	}
	if newBaseline != nil && !ioFailed && ctx.Err() == nil {
		if err := writeBaseline(o.writeBaseline, newBaseline); err != nil {
			return fail("%s", escapeText(err.Error()))
		}
		fmt.Fprintf(stderr, "validate: wrote %s: %s, held back from now on by --baseline %s\n", escapeText(o.writeBaseline), plural(newBaseline.Len(), "finding"), escapeText(o.writeBaseline))
	}
	switch {
	case ioFailed || ctx.Err() != nil:
		return exitUsage
	case newBaseline != nil:
		return exitOK
	case total.Errors > 0, o.strict && total.Warnings > 0:
		return exitFindings
	}
	return exitOK
}

// parseInterleaved parses args with fl, flags and paths in any order
// (validate t.jsonl --format json), and returns the paths in their order.
// "-" is a path (standard input); a file whose name begins with "-" is
// named as ./-name. ("--" followed by arguments is the tap's, see isTap; a
// trailing "--" ends the flags.)
func parseInterleaved(fl *flag.FlagSet, args []string) ([]string, error) {
	var paths []string
	for {
		if err := fl.Parse(args); err != nil {
			return nil, err
		}
		rest := fl.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			// The flag package stopped at "--" and consumed it.
			return append(paths, rest...), nil
		}
		for len(rest) > 0 && (rest[0] == "-" || !strings.HasPrefix(rest[0], "-")) {
			paths, rest = append(paths, rest[0]), rest[1:]
		}
		if len(rest) == 0 {
			return paths, nil
		}
		args = rest
	}
}

// usageHint ends a usage error.
const usageHint = "Run 'validate --help' for usage.\n"

// fileChecks are the per-trace settings of checkOne.
type fileChecks struct {
	rules    *validate.RuleControl
	baseline *validate.Baseline
	message  func(validate.MessageInfo) // each record, for --format html
	walked   bool                       // found in a folder: read only if still a regular file
}

// checkOne validates one named trace.
func checkOne(ctx context.Context, eng *validate.Engine, name string, o options, stdin io.Reader, stderr io.Writer, fc fileChecks, report func(validate.Finding)) (validate.Summary, error) {
	fo := validate.FileOptions{Rules: fc.rules, Baseline: fc.baseline, Message: fc.message}
	var r io.Reader = stdin
	if name != "-" {
		tr, c, err := openTrace(name, fc.walked)
		if err != nil {
			return ioFinding(name, fmt.Errorf("cannot open the trace: %w", unwrapPath(err)), report)
		}
		defer c.Close()
		r = tr
	}
	dir := o.direction
	if dir == "" && name != "-" {
		dir = findSidecar(name)
	}
	if dir != "" {
		d, err := os.Open(dir)
		if err != nil {
			return ioFinding(name, fmt.Errorf("cannot open the direction sidecar: %w", err), report)
		}
		defer d.Close()
		fo.Directions = d
	}
	prog := newProgress(o.progress, stderr, name)
	if sf, ok := r.(*sizedFile); ok {
		prog.size, prog.read = sf.size, sf.read.Load
	}
	fo.Progress = prog.update
	defer prog.done()
	return eng.Check(ctx, name, r, fo, report)
}

// ioFinding reports that the trace name could not be checked at all: an io
// finding, so that every output format says so, and the error for stderr.
func ioFinding(name string, err error, report func(validate.Finding)) (validate.Summary, error) {
	f := validate.Finding{File: name, Severity: validate.Error, Rule: validate.RuleIO, Message: err.Error()}
	sum := validate.Summary{Files: 1}
	sum.Add(f)
	report(f)
	return sum, fmt.Errorf("%s: %w", name, err)
}

// findSidecar returns NAME.dir beside NAME.jsonl (or NAME.jsonl.gz, or
// TRACE.dir beside TRACE), if it exists.
func findSidecar(name string) string {
	base := name
	cands := []string{name + ".dir"}
	for i := 0; i < 2; i++ {
		ext := filepath.Ext(base)
		if ext == "" {
			break
		}
		base = strings.TrimSuffix(base, ext)
		cands = append(cands, base+".dir")
	}
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
			return c
		}
	}
	return ""
}

// byteSizeFlag parses sizes such as 16777216, 16MiB, 16M or 512k.
type byteSizeFlag int64

// String shows the size as --help prints defaults: 16MiB, 64GiB.
func (b *byteSizeFlag) String() string {
	n := int64(*b)
	for _, u := range []struct {
		unit string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.unit
		}
	}
	return strconv.FormatInt(n, 10)
}

func (b *byteSizeFlag) Set(s string) error {
	t := strings.TrimSpace(strings.ToLower(s))
	mult := 1
	for _, u := range []struct {
		suf  string
		mult int
	}{{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10}, {"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}, {"b", 1}} {
		if strings.HasSuffix(t, u.suf) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suf)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/int64(mult) {
		return fmt.Errorf("want a positive size such as 16MiB, got %q", s)
	}
	*b = byteSizeFlag(n * int64(mult))
	return nil
}

// progress prints "NAME: N lines" on stderr, at most a few times a second,
// when stderr is a terminal; for a file of known size, also how much of it
// is read and about how long the rest will take.
type progress struct {
	w     io.Writer
	name  string
	on    bool
	start time.Time
	last  time.Time
	shown bool
	size  int64        // the file's size, 0 when unknown (standard input)
	read  func() int64 // bytes of it read so far
}

func newProgress(mode string, w io.Writer, name string) *progress {
	on := mode == "always"
	if mode == "auto" {
		if f, ok := w.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				on = true
			}
		}
	}
	now := time.Now()
	return &progress{w: w, name: escapeText(name), on: on, start: now, last: now}
}

func (p *progress) update(lines int) {
	if !p.on || time.Since(p.last) < 250*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.shown = true
	fmt.Fprintf(p.w, "\r\033[K%s", p.line(lines, p.last))
}

// line is the progress line after lines lines, at now.
func (p *progress) line(lines int, now time.Time) string {
	s := fmt.Sprintf("%s: %d lines", p.name, lines)
	if p.size <= 0 || p.read == nil {
		return s + "…"
	}
	read := min(p.read(), p.size)
	s += fmt.Sprintf(", %d%%", read*100/p.size)
	if read > 0 {
		elapsed := now.Sub(p.start)
		left := time.Duration(float64(elapsed) * float64(p.size-read) / float64(read))
		s += ", about " + left.Round(time.Second).String() + " left"
	}
	return s + "…"
}

func (p *progress) done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
