//go:build unix

package measure

import (
	"syscall"
	"time"
)

// CPU returns the CPU time this process has used so far, user and system,
// on every core.
func CPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
