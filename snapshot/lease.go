package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// A lease marks a snapshot as open by a running process (a server), so that
// garbage collection leaves it alone. It is a shared flock(2) on
// DATA/leases/<id>.lease: any number of readers hold it at once, the kernel
// drops it when the holder exits or crashes, and InUse tests it with a
// non-blocking exclusive lock. No lock outlives its process; the files do,
// and GC removes those of snapshots that are gone (sweepLeases).
//
// A lease file is only ever unlinked by GC while it holds the file's
// exclusive lock and the snapshot is already gone. A process that opened
// the file just before and waits for its shared lock gets it on a file
// nobody checks any more; AcquireLease notices and does not return such a
// lease.

// LeasePath returns the lease file of snapshot id.
func LeasePath(dataDir, id string) string {
	return filepath.Join(dataDir, format.LeasesDir, id+format.LeaseSuffix)
}

// maxLeaseAttempts bounds how often AcquireLease starts again on a lease
// file unlinked while it waited. Each time needs a gc removing the lease
// file of a snapshot that is gone and a snapshot of that id reappearing.
const maxLeaseAttempts = 5

// AcquireLease takes a shared lease on snapshot id. Call release when the
// snapshot is closed; it is safe to call once. It blocks while a gc holds
// the lease exclusively (an instant), and returns an error wrapping
// ErrNotFound if that gc removed the snapshot meanwhile.
func AcquireLease(dataDir, id string) (release func() error, err error) {
	if !format.ValidSnapshotID(id) {
		return nil, fmt.Errorf("lease: invalid snapshot id %q", id)
	}
	if err := os.MkdirAll(filepath.Join(dataDir, format.LeasesDir), 0o755); err != nil {
		return nil, fmt.Errorf("lease: %w", err)
	}
	for range maxLeaseAttempts {
		f, err := lockLeaseFile(dataDir, id)
		if err != nil {
			return nil, err
		}
		if f != nil {
			return func() error { return errors.Join(unlockFile(f), f.Close()) }, nil
		}
		// The file was unlinked while we waited for it: by a gc, which
		// does so only for a snapshot that is gone.
		if _, err := os.Lstat(Dir(dataDir, id)); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("lease %s: %w: it was removed", id, ErrNotFound)
		}
	}
	return nil, fmt.Errorf("lease %s: its lease file was removed %d times while waiting for it", id, maxLeaseAttempts)
}

// lockLeaseFile opens (creating it if needed) and share-locks the lease
// file of id. It returns nil and no error if the file it locked is no
// longer the one at the lease path.
func lockLeaseFile(dataDir, id string) (*os.File, error) {
	p := LeasePath(dataDir, id)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lease: %w", err)
	}
	if err := lockShared(f); err != nil {
		return nil, errors.Join(fmt.Errorf("lease %s: %w", id, err), f.Close())
	}
	locked, err := f.Stat()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("lease %s: %w", id, err), f.Close())
	}
	current, err := os.Stat(p)
	if err == nil && os.SameFile(locked, current) {
		return f, nil
	}
	cerr := f.Close() // releases the lock
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, errors.Join(fmt.Errorf("lease %s: %w", id, err), cerr)
	}
	return nil, cerr
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

// sweepLeases removes the lease files of snapshots that are no longer in
// dataDir (deleted by hand, or lost to a crash between a gc's removal of
// the snapshot and of its lease file) and that no process holds. It
// reports the ids whose lease files it removed (with dryRun, would
// remove) and those it kept because a process holds them: a server still
// serving a snapshot deleted under it. Files in DATA/leases that are not
// lease files are left alone.
//
// Call it only while holding the data directory's Lock, so that no indexer
// or import publishes a snapshot meanwhile.
func sweepLeases(dataDir string, dryRun bool) (removed, held []string, err error) {
	des, err := os.ReadDir(filepath.Join(dataDir, format.LeasesDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("gc leases: %w", err)
	}
	var errs []error
	for _, de := range des {
		id, ok := strings.CutSuffix(de.Name(), format.LeaseSuffix)
		if !ok || !format.ValidSnapshotID(id) || !de.Type().IsRegular() {
			continue
		}
		gone, err := snapshotGone(dataDir, id)
		if err != nil {
			errs = append(errs, err)
		}
		if !gone {
			continue
		}
		done, isHeld, err := removeStaleLease(dataDir, id, dryRun)
		switch {
		case err != nil:
			errs = append(errs, err)
		case isHeld:
			held = append(held, id)
		case done:
			removed = append(removed, id)
		}
	}
	return removed, held, errors.Join(errs...)
}

// snapshotGone reports whether DATA/snapshots holds nothing named id. Any
// entry of that name counts as present, a directory without a manifest
// (a copy in progress) included.
func snapshotGone(dataDir, id string) (bool, error) {
	_, err := os.Lstat(Dir(dataDir, id))
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, fs.ErrNotExist):
		return true, nil
	}
	return false, fmt.Errorf("gc lease %s: %w", id, err)
}

// removeStaleLease removes the lease file of snapshot id, which is gone,
// unless a process holds it (held). With dryRun it only checks.
func removeStaleLease(dataDir, id string, dryRun bool) (removed, held bool, err error) {
	p := LeasePath(dataDir, id)
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("gc lease %s: %w", id, err)
	}
	defer f.Close()
	switch err := tryLock(f); {
	case errors.Is(err, errWouldBlock):
		return false, true, nil
	case err != nil:
		return false, false, fmt.Errorf("gc lease %s: %w", id, err)
	}
	defer unlockFile(f)
	if dryRun {
		return true, false, nil
	}
	// Checked again under the exclusive lock: a snapshot copied into
	// place by hand since keeps its lease file.
	if gone, err := snapshotGone(dataDir, id); err != nil || !gone {
		return false, false, err
	}
	// Unlinked while held, as removeUnleased does: a process blocked on
	// the file gets its lock on an unlinked file, which AcquireLease
	// detects.
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, false, fmt.Errorf("gc lease %s: %w", id, err)
	}
	return true, false, nil
}
