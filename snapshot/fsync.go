package snapshot

import (
	"errors"
	"fmt"
	"os"
)

// syncDir fsyncs a directory so that the entries created, renamed or removed
// in it survive a power loss, not only the files' contents.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open dir for sync: %w", err)
	}
	if err := d.Sync(); err != nil {
		return errors.Join(fmt.Errorf("sync dir %s: %w", dir, err), d.Close())
	}
	return d.Close()
}

// syncFile fsyncs a file's contents.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open for sync: %w", err)
	}
	if err := f.Sync(); err != nil {
		return errors.Join(fmt.Errorf("sync %s: %w", path, err), f.Close())
	}
	return f.Close()
}
