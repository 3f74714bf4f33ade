package graphdb

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// punchHole frees the disk blocks of n bytes of f from off, keeping its
// size. A file system without holes keeps them: not an error.
func punchHole(f *os.File, off, n int64) error {
	err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, n)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("free zero pages of %s: %w", f.Name(), err)
	}
	return nil
}
