// Package buildinfo says which build of an agentproto command is running:
// the version of the module the command came from and, when it was built
// from a checkout, the VCS revision and whether the tree had changes. Both
// come from the build information the Go toolchain embeds in a binary
// (runtime/debug), so a --version flag needs nothing stamped by hand.
package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Info is what a --version line says about one build.
type Info struct {
	Command  string // the command's name, such as "validate"
	Module   string // the module the command's package belongs to
	Version  string // its version: a tag, a pseudo-version, or "(devel)"
	Replace  string // where a replace directive took the module from, if one did
	Revision string // the VCS revision the binary was built from, if known
	Time     string // that revision's commit time (RFC 3339), if known
	Modified bool   // the checkout had changes that are not committed
	Go       string // the Go toolchain that built the binary
}

// Read returns the Info of the running binary, named command; ok is false
// when the binary carries no build information.
func Read(command string) (Info, bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Command: command, Version: "(unknown)"}, false
	}
	return FromBuildInfo(command, bi), true
}

// FromBuildInfo returns the Info that bi describes. The module is the one
// that holds the command's package: the main module when the command was
// built in its own module (go install ./cmd/validate), or a dependency when
// it was built as another module's tool (go tool protogen).
func FromBuildInfo(command string, bi *debug.BuildInfo) Info {
	in := Info{Command: command, Go: bi.GoVersion, Version: "(devel)"}
	mod := &bi.Main
	for _, d := range bi.Deps {
		if within(bi.Path, d.Path) && (!within(bi.Path, mod.Path) || len(d.Path) > len(mod.Path)) {
			mod = d
		}
	}
	in.Module = mod.Path
	if mod.Version != "" {
		in.Version = mod.Version
	}
	if r := mod.Replace; r != nil {
		in.Replace = r.Path
		if r.Version != "" {
			in.Replace += " " + r.Version
		}
	}
	if mod != &bi.Main {
		// The VCS settings describe the main module's checkout, which
		// is not this command's module.
		return in
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// within reports whether the package path pkg is in the module mod.
func within(pkg, mod string) bool {
	return mod != "" && (pkg == mod || strings.HasPrefix(pkg, mod+"/"))
}

// String is the --version line: the command, its module and version, where
// a replace took the module from, the revision (with "modified" when the
// checkout had changes) and its time, and the Go version. For example:
//
//	validate github.com/agentproto/agentproto (devel), revision 28829e6a1b2c (modified), 2026-11-26T19:45:32Z, go1.26.8
func (in Info) String() string {
	var sb strings.Builder
	sb.WriteString(in.Command)
	if in.Module != "" {
		sb.WriteString(" " + in.Module)
	}
	sb.WriteString(" " + in.Version)
	if in.Replace != "" {
		fmt.Fprintf(&sb, " => %s", in.Replace)
	}
	if in.Revision != "" {
		rev := in.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		fmt.Fprintf(&sb, ", revision %s", rev)
		if in.Modified {
			sb.WriteString(" (modified)")
		}
		if in.Time != "" {
			sb.WriteString(", " + in.Time)
		}
	}
	if in.Go != "" {
		sb.WriteString(", " + in.Go)
	}
	return sb.String()
}
