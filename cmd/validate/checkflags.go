package main

import (
	"flag"
	"fmt"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/trace"
	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/pkg/validate/report"
)

// checkFlags are the flags that say how traffic is read and checked and
// how findings are written: every mode takes them (a check of recorded
// traces, the tap, replay and relay), and each is defined once, in
// register, with its default and its help.
type checkFlags struct {
	format   string
	protocol string
	dialect  string
	partial  partialFlag
	maxLine  byteSizeFlag
	maxDepth int
	workers  int
	fast     bool
	summary  bool
}

// flagMode is the mode a flag set parses for: the check flags mean the
// same in each, but the live modes write findings as they come and share
// the machine with the traffic they relay.
type flagMode int

const (
	checkMode flagMode = iota // validate [flags] TRACE|FOLDER|- ...
	liveMode                  // the tap, replay and relay (flags before --)
)

// liveWorkers is the live modes' default --workers: the relay and the
// agent keep the other cores (a check of recorded traces takes them all).
const liveWorkers = 1

// register defines the check flags in fl, for mode m; protocols are the
// protocol names --protocol takes.
func (c *checkFlags) register(fl *flag.FlagSet, m flagMode, protocols []string) {
	live := m == liveMode
	formats := "output `format`: " + report.Described()
	if live {
		formats = "findings `format`: " + report.Names(true) + " (the formats written as findings come)"
	}
	fl.StringVar(&c.format, "format", "text", formats)
	fl.StringVar(&c.protocol, "protocol", "", "force the `protocol` of every trace: "+orList(protocols)+" (default: detect)")
	dialects := "see below"
	if live {
		dialects = "validate --help lists them"
	}
	fl.StringVar(&c.dialect, "dialect", "", "force the version or `dialect` a trace is read as (default: what the trace says, "+dialects+")")
	fl.Var(&c.partial, "partial", "read every trace as a capture that began mid-session (--partial), or as complete (--partial=false); default: decide from each trace")
	c.maxLine = byteSizeFlag(trace.DefaultMaxLine)
	lines := "longer lines are a finding and are skipped"
	if live {
		lines = "a longer line is relayed but stops the recording and the live checks"
	}
	fl.Var(&c.maxLine, "max-line", "longest line kept, in bytes (suffixes KiB, MiB, GiB); "+lines)
	fl.IntVar(&c.maxDepth, "max-depth", 0, fmt.Sprintf("deepest nesting of a message (default %d, at most %d)", jsonscan.DefaultMaxDepth, jsonscan.MaxDepthCeiling))
	if live {
		fl.IntVar(&c.workers, "workers", liveWorkers, "goroutines that parse and validate (the other cores are left to the relay and the agent)")
	} else {
		fl.IntVar(&c.workers, "workers", 0, "goroutines that parse and validate (default: all cores)")
	}
	fl.BoolVar(&c.summary, "summary", true, "print the summary (text format) at the end")
	fl.BoolVar(&c.fast, "fast", true, "check messages with the generated Go types first, and run the general schema validator only to explain a failure (false: the general validator for every message)")
}

// checkFlagNames are the names register defines, sorted.
func checkFlagNames() []string {
	fl := flag.NewFlagSet("", flag.ContinueOnError)
	new(checkFlags).register(fl, checkMode, nil)
	var names []string
	fl.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// engineOptions are the engine's options the check flags set.
func (c *checkFlags) engineOptions() validate.Options {
	return validate.Options{Protocol: c.protocol, Dialect: c.dialect, MaxLine: int(c.maxLine), MaxDepth: c.maxDepth, Workers: c.workers, Partial: protocol.Partial(c.partial)}
}

// protocolNames are the names of the protocols the run checks: the
// plugged-in ones, or the engine's built-in list.
func (pl plugins) protocolNames() []string {
	ps := pl.protocols
	if ps == nil {
		ps = validate.Protocols()
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return names
}
