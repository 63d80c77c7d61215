//go:build !unix

package tap

import (
	"os"
	"os/exec"
)

// ForwardedSignals lists the signals a relay should forward to its child.
func ForwardedSignals() []os.Signal { return []os.Signal{os.Interrupt} }

func setProcAttr(*exec.Cmd) {}

// exitCode is the child's exit status.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	return ps.ExitCode()
}

// BrokenPipe lists the signal a relay should catch and drop: none here.
func BrokenPipe() []os.Signal { return nil }

// signalBrokenPipe reports false: there is no such signal here.
func signalBrokenPipe(*os.Process) bool { return false }

// killGroup kills the agent p.
func killGroup(p *os.Process) { _ = p.Kill() }
