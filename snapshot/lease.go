package snapshot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vaultgraph/vaultgraph/format"
)

// A lease marks a snapshot as open by a running process (a server), so that
// garbage collection leaves it alone. It is a shared flock(2) on
// DATA/leases/<id>.lease: any number of readers hold it at once, the kernel
// drops it when the holder exits or crashes, and InUse tests it with a
// non-blocking exclusive lock. No stale lease can outlive its process.

// LeasePath returns the lease file of snapshot id.
func LeasePath(dataDir, id string) string {
	return filepath.Join(dataDir, format.LeasesDir, id+format.LeaseSuffix)
}

// AcquireLease takes a shared lease on snapshot id. Call release when the
// snapshot is closed; it is safe to call once.
func AcquireLease(dataDir, id string) (release func() error, err error) {
	if !format.ValidSnapshotID(id) {
		return nil, fmt.Errorf("lease: invalid snapshot id %q", id)
	}
	if err := os.MkdirAll(filepath.Join(dataDir, format.LeasesDir), 0o755); err != nil {
		return nil, fmt.Errorf("lease: %w", err)
	}
	f, err := os.OpenFile(LeasePath(dataDir, id), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lease: %w", err)
	}
	if err := lockShared(f); err != nil {
		return nil, errors.Join(fmt.Errorf("lease %s: %w", id, err), f.Close())
	}
	return func() error {
		return errors.Join(unlockFile(f), f.Close())
	}, nil
}

// InUse reports whether some process holds a lease on snapshot id.
func InUse(dataDir, id string) (bool, error) {
	f, err := os.OpenFile(LeasePath(dataDir, id), os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check lease: %w", err)
	}
	defer f.Close()
	switch err := tryLock(f); {
	case errors.Is(err, errWouldBlock):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("check lease %s: %w", id, err)
	}
	_ = unlockFile(f)
	return false, nil
}
