//go:build unix

package bucket

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this pid exists here.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || !errors.Is(err, syscall.ESRCH)
}
