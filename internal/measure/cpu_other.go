//go:build !unix

package measure

import (
	"errors"
	"time"
)

// CPU returns the CPU time this process has used so far; on this system
// it is not known, and CPU says so.
func CPU() (time.Duration, error) {
	return 0, errors.New("measure: this system does not report a process's CPU time")
}
