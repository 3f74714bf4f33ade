package snapshot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// GCOptions choose which snapshots GC removes.
type GCOptions struct {
	// Keep is how many of the newest snapshots are always kept. It must be
	// at least 1: the newest snapshot is never removed.
	Keep int
	// OlderThan, when positive, also keeps every snapshot created less
	// than this long before Now (by the time in its id).
	OlderThan time.Duration
	// LockWait is how long to wait for a running indexer or import.
	LockWait time.Duration
	// DryRun reports what would be removed and removes nothing.
	DryRun bool
	// Now is the time ages are measured from; time.Now() when zero.
	Now time.Time
}

// GCResult reports what GC did (or, with DryRun, would do).
type GCResult struct {
	// Removed are the snapshots removed, oldest first.
	Removed []string
	// Leased are snapshots retention would remove but a running server
	// has open; they are kept and go in a later run.
	Leased []string
	// Kept are the snapshots kept by Keep, OlderThan or because they are
	// the newest that opens.
	Kept []string
	// Leftovers are the temporary directories of interrupted runs
	// (indexer, import, gc) that were removed.
	Leftovers []string
	// StaleLeases are the snapshots, no longer in the data directory
	// (deleted by hand), whose lease files were removed.
	StaleLeases []string
	// HeldLeases are snapshots no longer in the data directory whose
	// lease files a process still holds (a server serving a snapshot
	// deleted under it); they are kept and go in a later run.
	HeldLeases []string
}

// GC removes old snapshots of dataDir. Retention keeps the newest
// opts.Keep snapshots, every snapshot younger than opts.OlderThan, and the
// newest snapshot that passes Open's checks (so a damaged newest snapshot
// never costs the good one a restarted server would fall back to). Of the
// rest it removes every one that no process holds a lease on; a leased
// snapshot is kept and reported.
//
// GC holds the data directory's Lock for the whole run: an indexer's
// temporary directory cannot be told from a crashed one's, so leftovers are
// removed only then. A snapshot is removed by taking its lease file
// exclusively (a server trying to lease it waits), renaming it to a
// temporary name, fsyncing DATA/snapshots and only then deleting the files:
// a crash mid-way leaves a temporary directory, which no reader takes for a
// snapshot and the next run removes, never a listed snapshot with missing
// files. Errors removing one snapshot do not stop the others; they are
// joined into the returned error.
//
// Last, GC removes the lease files of snapshots that are gone (deleted by
// hand) unless a process holds them, taking each one's exclusive lock
// before unlinking it, as for a removed snapshot.
func GC(ctx context.Context, dataDir string, opts GCOptions) (*GCResult, error) {
	if opts.Keep < 1 {
		return nil, fmt.Errorf("gc: keep %d snapshots? at least 1: the newest snapshot is never removed", opts.Keep)
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	release, err := Lock(ctx, dataDir, opts.LockWait)
	if err != nil {
		return nil, err
	}
	defer release()
	res := &GCResult{}
	if opts.DryRun {
		res.Leftovers, err = leftovers(dataDir)
	} else {
		res.Leftovers, err = RemoveLeftovers(dataDir)
	}
	if err != nil {
		return res, err
	}
	entries, err := List(dataDir)
	if err != nil {
		return res, err
	}
	protected := retained(entries, opts)
	var errs []error
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return res, errors.Join(append(errs, err)...)
		}
		if protected[e.ID] {
			res.Kept = append(res.Kept, e.ID)
			continue
		}
		removed, err := removeUnleased(dataDir, e.ID, opts.DryRun)
		switch {
		case err != nil:
			errs = append(errs, err)
		case removed:
			res.Removed = append(res.Removed, e.ID)
		default:
			res.Leased = append(res.Leased, e.ID)
		}
	}
	if len(res.Removed) > 0 && !opts.DryRun {
		if err := syncDir(SnapshotsDir(dataDir)); err != nil {
			errs = append(errs, err)
		}
	}
	// After the snapshots: the lease files of those just removed are gone
	// already, and with DryRun they still exist.
	res.StaleLeases, res.HeldLeases, err = sweepLeases(dataDir, opts.DryRun)
	if err != nil {
		errs = append(errs, err)
	}
	return res, errors.Join(errs...)
}

// retained returns the ids retention keeps.
func retained(entries []Entry, opts GCOptions) map[string]bool {
	keep := make(map[string]bool)
	for i := max(0, len(entries)-opts.Keep); i < len(entries); i++ {
		keep[entries[i].ID] = true
	}
	for i := len(entries) - 1; i >= 0; i-- {
		// As the readers check it: a same-size damage passes a size
		// check, and the snapshot servers fall back to must stay.
		if _, err := Open(entries[i].Dir, OpenOptions{VerifyFast: true}); err == nil {
			keep[entries[i].ID] = true
			break
		}
	}
	if opts.OlderThan > 0 {
		for _, e := range entries {
			t, err := format.SnapshotTime(e.ID)
			if err != nil || opts.Now.Sub(t) < opts.OlderThan {
				keep[e.ID] = true
			}
		}
	}
	return keep
}

// removeUnleased removes snapshot id unless a process holds its lease. It
// reports whether the snapshot was (or, with dryRun, would be) removed.
func removeUnleased(dataDir, id string, dryRun bool) (bool, error) {
	if dryRun {
		used, err := InUse(dataDir, id)
		return !used, err
	}
	if err := os.MkdirAll(filepath.Join(dataDir, format.LeasesDir), 0o755); err != nil {
		return false, fmt.Errorf("gc %s: %w", id, err)
	}
	// The lease file is created if missing so that a server starting to
	// lease the snapshot now blocks on our exclusive lock instead of
	// leasing a snapshot that is about to disappear.
	leasePath := LeasePath(dataDir, id)
	f, err := os.OpenFile(leasePath, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return false, fmt.Errorf("gc %s: %w", id, err)
	}
	defer f.Close()
	switch err := tryLock(f); {
	case errors.Is(err, errWouldBlock):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("gc %s: check lease: %w", id, err)
	}
	defer unlockFile(f)
	doomed := filepath.Join(SnapshotsDir(dataDir), format.TempPrefix+"gc-"+id)
	// Rename first: from here on no reader lists the snapshot, and a crash
	// leaves a temporary directory rather than a half-deleted snapshot.
	if err := os.Rename(Dir(dataDir, id), doomed); err != nil {
		return false, fmt.Errorf("gc %s: %w", id, err)
	}
	if err := syncDir(SnapshotsDir(dataDir)); err != nil {
		return false, fmt.Errorf("gc %s: %w", id, err)
	}
	if err := os.RemoveAll(doomed); err != nil {
		return true, fmt.Errorf("gc %s: remove %s (the next gc or index run retries): %w", id, doomed, err)
	}
	// Removed while still held: a server blocked on it gets its lock on a
	// file nobody checks any more, which AcquireLease detects; the
	// snapshot is gone, so it fails with ErrNotFound.
	if err := os.Remove(leasePath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return true, fmt.Errorf("gc %s: remove lease file: %w", id, err)
	}
	return true, nil
}

// leftovers lists the temporary directories RemoveLeftovers would remove.
func leftovers(dataDir string) ([]string, error) {
	des, err := os.ReadDir(SnapshotsDir(dataDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list leftovers: %w", err)
	}
	var out []string
	for _, de := range des {
		if strings.HasPrefix(de.Name(), format.TempPrefix) {
			out = append(out, de.Name())
		}
	}
	return out, nil
}
