package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/report"
)

// helpModes opens --help: what the command does in each of its four modes,
// with one example each.
const helpModes = `validate checks agent-protocol traffic (ACP, ARCP, Arcan AgentEvent) line by
line, in recorded traces or live while an agent runs, and names for each
finding the file, line, JSON pointer, rule and fix.

Usage:
  validate [flags] TRACE|FOLDER|- ...              check recorded traces (- is standard input)
  validate [flags] -- AGENT_CMD [ARGS...]          tap: run an ACP agent and check it live
  validate --replay TRACE [flags] -- AGENT_CMD...  replay a recording against an agent
  validate --listen ADDR --upstream URL [flags]    relay: check a network server's traffic
  validate --merge [flags] REPORT...               join the reports of a run's shards (--shard K/N)
  validate --list-rules | --explain ID | --version

A check takes its flags before or after the paths; the tap, replay and relay
take theirs before --.

Modes, one example each:
  check   validate traces/
            every trace below traces/: findings, then a summary; exit 1 on an error
  tap     validate --record /tmp/s.jsonl --findings /tmp/s.findings -- my-agent --acp
            launch this in place of "my-agent --acp" (say, as an editor's agent
            command): stdin and stdout pass through byte for byte, the session is
            recorded as it flows, findings go to the file (default: stderr), and
            the agent's exit status is this command's
  replay  validate --replay /tmp/s.jsonl -- my-agent --acp
            play the recording's client side against the agent again, answer its
            requests as recorded, and exit 1 when it now errs or answers in another
            shape: any recorded session becomes a regression test
  relay   validate --listen 127.0.0.1:8080 --upstream ws://127.0.0.1:9000/arcp --record rec/
            a WebSocket relay in front of an ARCP runtime (with an http:// upstream,
            an HTTP relay in front of a server that streams SSE, such as an Arcan
            daemon), one trace per connection or event stream in rec/, each
            checked as it flows; runs until interrupted, then prints the summary
`

// helpCheckGroups are the check's flags in the groups --help shows them
// in; a flag of no group is shown under "Other flags".
var helpCheckGroups = []struct {
	title string
	names []string
}{
	{"Output", []string{"format", "summary", "v", "coverage", "strict", "progress"}},
	{"Reading traces", []string{"protocol", "dialect", "direction", "partial", "max-line", "max-bytes", "max-depth"}},
	{"Rules and baselines", []string{"disable", "warn", "side", "config", "no-config", "baseline", "write-baseline"}},
	{"The requirement catalogue", []string{"list-rules", "rules", "explain"}},
	{"Checking", []string{"workers", "fast", "roundtrip"}},
	{"Fleets of traces (a CI matrix)", []string{"shard", "merge"}},
	{"Other flags", nil},
}

// helpLiveFlags are the tap's own flags, in the order --help shows them;
// a flag of the tap that is neither here nor a check flag is shown after
// them.
var helpLiveFlags = []string{"record", "findings", "check", "fail-on-error", "replay", "timeout", "listen", "upstream", "backlog"}

// formatExamples are the examples of the output formats that give one,
// laid out as usage's.
func formatExamples() string {
	var sb strings.Builder
	for _, f := range report.Formats() {
		if f.Example == "" {
			continue
		}
		fmt.Fprintf(&sb, "  %s\n", f.Example)
		sb.WriteString(wrap(strings.Repeat(" ", 44), f.Help+": "+f.Use, 88))
	}
	return sb.String()
}

// printHelp writes --help: the modes, the check's examples and details,
// every flag of the check by group, the tap's, replay's and relay's own
// flags, the dialects and the exit status.
func printHelp(w io.Writer, fl *flag.FlagSet) {
	fmt.Fprint(w, helpModes)
	fmt.Fprint(w, "\n"+strings.Replace(usage, "{format examples}\n", formatExamples(), 1))
	shown := map[string]bool{}
	for _, g := range helpCheckGroups {
		var flags []*flag.Flag
		fl.VisitAll(func(f *flag.Flag) {
			if (g.names == nil && !shown[f.Name]) || slices.Contains(g.names, f.Name) {
				flags = append(flags, f)
			}
		})
		if len(flags) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", g.title)
		printFlags(w, flags, g.names)
		if slices.Contains(g.names, "disable") {
			fmt.Fprint(w, ruleNamesHelp())
		}
		for _, f := range flags {
			shown[f.Name] = true
		}
	}
	fmt.Fprint(w, "\nTap, replay and relay flags (before --):\n")
	printFlags(w, tapOwnFlags(), helpLiveFlags)
	var shared []string
	for _, name := range checkFlagNames() {
		shared = append(shared, "--"+name)
	}
	fmt.Fprint(w, wrap("  ", fmt.Sprintf("They also take the check's %s; there --format is %s (the formats written as findings come), and --workers defaults to %d (the other cores are left to the relay and the agent).", strings.Join(shared, ", "), report.Names(true), liveWorkers), 80))
	fmt.Fprint(w, dialectHelp())
	fmt.Fprint(w, helpExit)
}

// helpExit ends --help.
const helpExit = `
Exit status:
  check   0 no errors (warnings allowed unless --strict), 1 errors found, 2 usage
          or I/O error (a path that cannot be read is also an io finding in every
          format); with --merge, the status one run over every shard's traces
          would have had
  tap     the agent's (128+N when signal N ended it), or 1 with --fail-on-error
          when the findings include an error; 127 when the agent cannot be
          found, 126 when it cannot be started, 2 for bad flags
  replay  0 when the agent's traffic has no error and matches the recording's
          shape, 1 otherwise
  relay   0 when interrupted, 2 for bad flags or when it cannot listen
`

// wrap breaks text into lines of at most width columns, each beginning
// with indent.
func wrap(indent, text string, width int) string {
	var sb strings.Builder
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			sb.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	sb.WriteString(line + "\n")
	return sb.String()
}

// ruleNamesHelp lists the rule names --disable, --warn and .agentproto.json
// take, from the engine's list.
func ruleNamesHelp() string {
	var sb strings.Builder
	sb.WriteString("  Rules:")
	col := len("  Rules:")
	for _, r := range append(validate.Rules(), validate.RuleDeviationPrefix+"ID (deviation:* for all)") {
		if col+1+len(r) > 78 {
			sb.WriteString("\n        ")
			col = 8
		}
		sb.WriteString(" " + r)
		col += 1 + len(r)
	}
	sb.WriteString("\n")
	return sb.String()
}

// printFlags writes flags as the flag package's PrintDefaults does, in the
// order of names (flags not in names last, by name).
func printFlags(w io.Writer, flags []*flag.Flag, names []string) {
	order := func(f *flag.Flag) int {
		if i := slices.Index(names, f.Name); i >= 0 {
			return i
		}
		return len(names)
	}
	slices.SortStableFunc(flags, func(a, b *flag.Flag) int { return order(a) - order(b) })
	for _, f := range flags {
		one := flag.NewFlagSet("", flag.ContinueOnError)
		one.Var(f.Value, f.Name, f.Usage)
		one.Lookup(f.Name).DefValue = f.DefValue
		var buf strings.Builder
		one.SetOutput(&buf)
		one.PrintDefaults()
		fmt.Fprint(w, longFlag(buf.String()))
	}
}

// longFlag rewrites the first line of a flag's PrintDefaults help as the
// rest of the help writes flags (--name), and names a byte size (the
// flag package says "value" for a type it does not know) as a size.
func longFlag(help string) string {
	first, rest, _ := strings.Cut(help, "\n")
	if name, usage, short := strings.Cut(first, "\t"); short && len(strings.TrimPrefix(name, "  -")) == 1 {
		// A one-letter boolean (-v): the flag package puts its usage on
		// the same line; the help writes it as -v, on a line of its own.
		return name + "\n    \t" + usage + "\n" + rest
	}
	if strings.HasPrefix(first, "  -") {
		first = "  --" + strings.TrimPrefix(first, "  -")
	}
	if strings.HasSuffix(first, " value") {
		first = strings.TrimSuffix(first, " value") + " size"
	}
	return first + "\n" + rest
}

// tapOwnFlags returns the flags the tap, replay and relay have and the
// check has not, in the order of helpLiveFlags.
func tapOwnFlags() []*flag.Flag {
	fl := flag.NewFlagSet("validate", flag.ContinueOnError)
	new(tapOptions).registerOwn(fl)
	var flags []*flag.Flag
	fl.VisitAll(func(f *flag.Flag) { flags = append(flags, f) })
	return flags
}

// tapOnlyFlag explains a parse error of a check that names one of the
// tap's own flags (validate --record x.jsonl): it belongs before --,
// before an agent command. ok is false for any other error.
func tapOnlyFlag(err error) (msg string, ok bool) {
	name, found := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !found {
		return "", false
	}
	for _, f := range tapOwnFlags() {
		if f.Name == name {
			return fmt.Sprintf("--%s is a flag of the tap, replay and relay, not of a check of recorded traces: validate [flags] -- AGENT_CMD [ARGS...], or validate --listen ADDR --upstream URL [flags]", name), true
		}
	}
	return "", false
}
