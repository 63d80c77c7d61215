// Command validate checks recorded ARCP, ACP and Arcan traffic against the
// agentproto schemas and protocol rules, line by line.
//
// See README.md in this folder for the output formats and the rules, and
// run it with --help for examples.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

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
