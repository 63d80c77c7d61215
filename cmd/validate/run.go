package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/buildinfo"
	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/trace"
	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/report"
	"github.com/agentproto/agentproto/schema/registry"
)

// checkRun is one run of validate over traces: the command line and what
// each step of the run sets up from it. Each step returns the exit status
// and true when the run ends there, having said why.
type checkRun struct {
	ctx    context.Context
	pl     plugins
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer

	o         options
	files     []string // the paths named, in their order
	formatSet bool     // --format was given
	flagRules validate.RuleControl
	eng       *validate.Engine

	// The inputs come one at a time (expand walks folders as it goes);
	// the first two are looked at before the run begins.
	sk      *skipped
	next    func() (input, bool)
	stop    func()
	pending []input

	rulesFor    *ruleFinder
	baseline    *validate.Baseline
	newBaseline *validate.BaselineWriter

	sides *sideFilter
	out   report.Writer
	tell  func(validate.Finding) // where the findings go

	total    validate.Summary
	ioFailed bool
	cfgErr   error // a config file that was wrong, which ended the run
}

// run is one invocation of validate; it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, pl plugins) int {
	if isTap(args) { // validate [flags] -- AGENT_CMD [ARGS...]: tap.go
		return runTap(ctx, args, stdin, stdout, stderr, pl)
	}
	r := &checkRun{ctx: ctx, pl: pl, stdin: stdin, stdout: stdout, stderr: stderr}
	defer r.stopInputs()
	if code, done := r.parseFlags(args); done {
		return code
	}
	for _, step := range []func() (int, bool){
		r.standalone,
		r.vetFlags,
		r.newEngine,
		r.pickInputs,
		r.readSettings,
		r.chooseOutput,
	} {
		if code, done := step(); done {
			return code
		}
	}
	r.checkAll()
	return r.finish()
}

// fail says what is wrong and ends the run with exitUsage.
func (r *checkRun) fail(format string, a ...any) (int, bool) {
	return usageError(r.stderr, format, a...), true
}

// flags registers the flags of a check run in r.o.
func (r *checkRun) flags(maxBytes *byteSizeFlag) *flag.FlagSet {
	o := &r.o
	fl := flag.NewFlagSet("validate", flag.ContinueOnError)
	// Parse errors are reported here in one line, not with the whole usage.
	fl.SetOutput(io.Discard)
	o.checkFlags.register(fl, checkMode, r.pl.protocolNames())
	fl.StringVar(&o.direction, "direction", "", "ACP direction sidecar `file` (one c2a or a2c per line of the trace) for the single TRACE")
	fl.Var(maxBytes, "max-bytes", "most read of one trace, in bytes after decompression; past it the file ends with an io finding")
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
	return fl
}

// parseFlags reads the command line; --help and --version end the run
// here, as does a flag it cannot read.
func (r *checkRun) parseFlags(args []string) (int, bool) {
	maxBytes := byteSizeFlag(trace.DefaultMaxBytes)
	fl := r.flags(&maxBytes)
	files, err := parseInterleaved(fl, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(r.stdout, fl)
			return exitOK, true
		}
		if msg, ok := tapOnlyFlag(err); ok {
			fmt.Fprintf(r.stderr, "validate: %s\n%s", msg, usageHint)
			return exitUsage, true
		}
		fmt.Fprintf(r.stderr, "validate: %s\n%s", escapeText(err.Error()), usageHint)
		return exitUsage, true
	}
	if r.o.version {
		in, _ := buildinfo.Read("validate")
		fmt.Fprintln(r.stdout, in)
		return exitOK, true
	}
	r.files = files
	r.o.maxBytes = int64(maxBytes)
	fl.Visit(func(f *flag.Flag) { r.formatSet = r.formatSet || f.Name == "format" })
	return 0, false
}

// standalone runs what checks no trace: --list-rules, --explain and
// --merge.
func (r *checkRun) standalone() (int, bool) {
	o, stdout := &r.o, r.stdout
	if o.maxLine > 1<<31-1 {
		return r.fail("--max-line %d is too large: at most 2GiB", int64(o.maxLine))
	}
	if o.rules && !o.listRules {
		return r.fail("--rules goes with --list-rules: validate --list-rules --rules")
	}
	if o.listRules && o.rules {
		if err := listRuleNames(stdout, ruleRows(r.pl, o.protocol), o.format); err != nil {
			return r.fail("--list-rules: %s", escapeText(err.Error()))
		}
		return exitOK, true
	}
	if o.listRules {
		if err := listRules(stdout, o.protocol, o.dialect, o.format); err != nil {
			return r.fail("--list-rules: %s", escapeText(err.Error()))
		}
		return exitOK, true
	}
	if o.explain != "" {
		if d, ok := r.pl.catalogue().Help().Lookup(o.explain); ok {
			explainRule(stdout, o.explain, d)
			return exitOK, true
		}
		if err := explainRow(stdout, o.explain); err != nil {
			return r.fail("--explain: %s", escapeText(err.Error()))
		}
		return exitOK, true
	}
	if o.merge {
		return runMerge(r.files, *o, r.formatSet, stdout, r.stderr, r.pl), true
	}
	return 0, false
}

// vetFlags refuses a check run's flags that do not go together, or name
// what does not exist.
func (r *checkRun) vetFlags() (int, bool) {
	o, files := &r.o, r.files
	if len(files) == 0 {
		fmt.Fprintf(r.stderr, "validate: no trace given: name one or more files or folders, or - for standard input\n%s", usageHint)
		return exitUsage, true
	}
	if _, ok := report.Lookup(o.format, r.pl.formats...); !ok {
		return r.fail("unknown --format %q: want %s", o.format, report.Names(false))
	}
	if o.maxDepth < 0 || o.maxDepth > jsonscan.MaxDepthCeiling {
		return r.fail("--max-depth %d is out of range: want 1 to %d (deeper nesting is not checked safely)", o.maxDepth, jsonscan.MaxDepthCeiling)
	}
	switch o.progress {
	case "auto", "always", "never":
	default:
		return r.fail("unknown --progress %q: want auto, always or never", o.progress)
	}
	if o.direction != "" && len(files) != 1 {
		return r.fail("--direction names the sidecar of one trace, but %d traces were given", len(files))
	}
	if o.roundtrip && r.pl.roundtrip == nil {
		return r.fail("--roundtrip is not available in this build: no typed round-trip checker is plugged in (see cmd/validate/README.md)")
	}
	stdinUses := 0
	for _, f := range files {
		if f == "-" {
			stdinUses++
		}
	}
	if stdinUses > 1 {
		return r.fail("- (standard input) may be named only once")
	}
	r.flagRules = validate.RuleControl{Disable: o.disable, Warn: o.warn}
	if err := r.flagRules.Check(); err != nil {
		return r.fail("%s", escapeText(err.Error()))
	}
	if o.baseline != "" && o.writeBaseline != "" {
		return r.fail("--baseline and --write-baseline together: to renew a baseline, write it without --baseline")
	}
	return 0, false
}

// newEngine makes the engine the flags ask for.
func (r *checkRun) newEngine() (int, bool) {
	eopts := r.o.checkFlags.engineOptions()
	eopts.MaxBytes = r.o.maxBytes
	eng, err := validate.New(r.pl.engineOptions(eopts, r.o.fast, r.o.roundtrip))
	if err != nil {
		return r.fail("%s", escapeText(strings.TrimPrefix(err.Error(), "validate: ")))
	}
	r.eng = eng
	return 0, false
}

// pickInputs starts reading the traces the paths name, of the shard, and
// looks at the first two: a run with none, or --direction with more than
// one, ends here.
func (r *checkRun) pickInputs() (int, bool) {
	o := &r.o
	r.sk = &skipped{w: r.stderr, verbose: o.verbose}
	var inputs iter.Seq[input] = expand(dedupe(r.files), r.sk.add)
	if o.shard.n > 0 {
		inputs = o.shard.filter(inputs)
	}
	r.next, r.stop = iter.Pull(inputs)
	for range 2 {
		if in, ok := r.next(); ok {
			r.pending = append(r.pending, in)
		}
	}
	if len(r.pending) == 0 && o.shard.n == 0 {
		r.sk.done()
		return r.fail("no trace among the named files: sidecars (.dir, .conn, .expect) and README or Markdown files are not traces")
	}
	if o.direction != "" && len(r.pending) != 1 {
		r.sk.done()
		if len(r.pending) == 0 {
			return r.fail("--direction names the sidecar of one trace, but this shard holds none")
		}
		return r.fail("--direction names the sidecar of one trace, but more than one trace was found")
	}
	return 0, false
}

// stopInputs ends the reading of the inputs, if it began.
func (r *checkRun) stopInputs() {
	if r.stop != nil {
		r.stop()
	}
}

// nextInput returns the next trace to check, false when there is none.
func (r *checkRun) nextInput() (input, bool) {
	if len(r.pending) > 0 {
		in := r.pending[0]
		r.pending = r.pending[1:]
		return in, true
	}
	return r.next()
}

// readSettings reads the rule settings and the baselines: a config file
// that is wrong stops the run before it begins when the first trace uses
// it.
func (r *checkRun) readSettings() (int, bool) {
	o := &r.o
	r.rulesFor = newRuleFinder(*o, r.flagRules)
	if len(r.pending) > 0 {
		if _, err := r.rulesFor.For(r.pending[0]); err != nil {
			return r.fail("%s", escapeText(err.Error()))
		}
	}
	if o.baseline != "" {
		b, err := readBaseline(o.baseline)
		if err != nil {
			return r.fail("%s", escapeText(err.Error()))
		}
		r.baseline = b
	}
	if o.writeBaseline != "" {
		dir, err := filepath.Abs(filepath.Dir(o.writeBaseline))
		if err != nil {
			return r.fail("--write-baseline: %s", escapeText(err.Error()))
		}
		r.newBaseline = validate.NewBaselineWriter(dir)
	}
	return 0, false
}

// chooseOutput makes the writer of the format asked for, and where the
// findings go: through the --side filter, and to a baseline being
// written.
func (r *checkRun) chooseOutput() (int, bool) {
	o := &r.o
	reg := r.pl.registry
	if reg == nil {
		var err error
		if reg, err = registry.Embedded(); err != nil {
			return r.fail("%s", escapeText(err.Error()))
		}
	}
	sides, err := newSideFilter(o.side, reg)
	if err != nil {
		return r.fail("%s", escapeText(err.Error()))
	}
	out := newWriter(o.format, r.stdout, report.Options{Verbose: o.verbose, NoSummary: !o.summary, Coverage: o.coverage, Rules: r.pl.catalogue()}, r.pl.formats...)
	r.sides, r.out, r.tell = sides, out, sides.wrap(out.Finding)
	if nb := r.newBaseline; nb != nil {
		// In text, the findings go to the baseline file only (a
		// terminal full of known findings teaches nothing); what could
		// not be read is still said. Other formats are for machines
		// and get every finding.
		quiet := o.format == "text"
		r.tell = sides.wrap(func(f validate.Finding) {
			nb.Add(f)
			if !quiet || f.Rule == validate.RuleIO {
				out.Finding(f)
			}
		})
	}
	return 0, false
}

// checkAll checks each trace in turn, until the inputs end, a config file
// is wrong or the run is interrupted.
func (r *checkRun) checkAll() {
	for {
		in, ok := r.nextInput()
		if !ok {
			break
		}
		rules, err := r.rulesFor.For(in)
		if err != nil {
			r.cfgErr = err
			break
		}
		r.checkInput(in, rules)
		if r.ctx.Err() != nil {
			break
		}
	}
	r.sk.done()
}

// checkInput checks one trace (or reports why it could not be read).
func (r *checkRun) checkInput(in input, rules *validate.RuleControl) {
	var sum validate.Summary
	var err error
	if in.err != nil {
		sum, err = ioFinding(in.name, in.err, r.tell)
	} else {
		sum, err = checkOne(r.ctx, r.eng, in.name, r.o, r.stdin, r.stderr, fileChecks{rules: rules, baseline: r.baseline, message: records(r.out, in.name), walked: in.walked}, r.tell)
	}
	// What the trace was read as goes to the writer, which
	// keeps it out of memory; the run keeps only counts.
	r.sides.endTrace(&sum)
	r.out.EndTrace(in.name, sum)
	sum.Detected = nil
	r.total.Merge(sum)
	if err != nil {
		r.ioFailed = true
		// The text output says it already, as an io finding:
		// on a terminal, once is enough.
		if r.o.format != "text" {
			fmt.Fprintf(r.stderr, "validate: %s\n", escapeText(err.Error()))
		}
	}
}

// finish ends the output, writes the new baseline and returns the exit
// status.
func (r *checkRun) finish() int {
	o, total, ctx := &r.o, r.total, r.ctx
	if r.cfgErr != nil {
		r.out.Close()
		code, _ := r.fail("%s", escapeText(r.cfgErr.Error()))
		return code
	}
	t := r.sides.totals
	t.Summary, t.Known, t.Incomplete = total, r.baseline.Matched(), r.ioFailed || ctx.Err() != nil
	r.out.End(t)
	if err := r.out.Close(); err != nil {
		fmt.Fprintf(r.stderr, "validate: writing output: %s\n", escapeText(err.Error()))
		return exitUsage
	}
	if nb := r.newBaseline; nb != nil && !r.ioFailed && ctx.Err() == nil {
		if err := writeBaseline(o.writeBaseline, nb); err != nil {
			code, _ := r.fail("%s", escapeText(err.Error()))
			return code
		}
		fmt.Fprintf(r.stderr, "validate: wrote %s: %s, held back from now on by --baseline %s\n", escapeText(o.writeBaseline), plural(nb.Len(), "finding"), escapeText(o.writeBaseline))
	}
	switch {
	case r.ioFailed || ctx.Err() != nil:
		return exitUsage
	case r.newBaseline != nil:
		return exitOK
	case total.Errors > 0, o.strict && total.Warnings > 0:
		return exitFindings
	}
	return exitOK
}
