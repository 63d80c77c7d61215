//go:build unix

package main

import (
	"os"
	"syscall"
)

// openNoWait opens p for reading without waiting: opening a FIFO that no
// writer holds returns at once instead of blocking until one comes.
func openNoWait(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
