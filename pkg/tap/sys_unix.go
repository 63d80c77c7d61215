//go:build unix

package tap

import (
	"os"
	"os/exec"
	"syscall"
)

// ForwardedSignals lists the signals a relay should forward to its child:
// those that ask a process to stop, reload or report.
func ForwardedSignals() []os.Signal {
	return []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH}
}

// setProcAttr puts the child in a process group of its own, so a signal
// sent to the relay's group (Ctrl-C in a terminal) reaches it once, by
// forwarding, not twice.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// exitCode is the child's status as a shell reports it.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// BrokenPipe lists the signal a relay should catch (and drop) so that a
// client that closes its end makes writes fail with an error the relay
// handles, instead of ending the relay before its child.
func BrokenPipe() []os.Signal { return []os.Signal{syscall.SIGPIPE} }

// signalBrokenPipe sends the agent p, and the processes it started in its
// process group, the signal a write to a pipe nobody reads brings, and
// reports whether it could.
func signalBrokenPipe(p *os.Process) bool { return syscall.Kill(-p.Pid, syscall.SIGPIPE) == nil }

// killGroup kills the agent p and the processes it started in its
// process group.
func killGroup(p *os.Process) {
	if syscall.Kill(-p.Pid, syscall.SIGKILL) != nil {
		_ = p.Kill()
	}
}
