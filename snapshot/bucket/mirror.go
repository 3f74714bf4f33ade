package bucket

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/vaultgraph/vaultgraph/snapshot"
)

// Mirror keeps a local data directory (a server's cache) current with the
// newest snapshot of a bucket. It is used by one goroutine at a time.
type Mirror struct {
	Bucket Bucket
	// Dir is the local data directory the snapshots are pulled into.
	Dir string
	// Keep is how many of the newest local snapshots Sync keeps besides
	// the leased ones (those a server has open); at least 1.
	Keep int
	// LockWait is how long a pull waits for the cache's lock.
	LockWait time.Duration
	// Log receives pulls, failures and garbage collection.
	Log *slog.Logger
}

// Failure is a snapshot of the bucket that could not be pulled.
type Failure struct {
	ID  string
	Err error
}

// SyncResult reports one Sync.
type SyncResult struct {
	// Remote is the newest snapshot in the bucket, "" when it holds none.
	Remote string
	// Pulled is the snapshot pulled, "" when none was.
	Pulled string
	Pull   *PullResult
	// Failed are the newer snapshots that did not pull, newest first;
	// each is tried again by the next Sync.
	Failed []Failure
	// Removed are local snapshots garbage-collected after the pull.
	Removed []string
}

// Sync pulls the newest snapshot of the bucket that is newer than every
// local one, trying the next older one when it fails (a damaged or
// half-deleted snapshot never blocks a good one behind it), then removes
// the local snapshots that neither Keep nor a lease holds (snapshot.GC). It returns an
// error only when the bucket cannot be listed or the cache cannot be
// read; failed pulls are in Failed and publish nothing.
func (mr *Mirror) Sync(ctx context.Context) (SyncResult, error) {
	log := mr.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var res SyncResult
	ids, err := Snapshots(ctx, mr.Bucket)
	if err != nil {
		return res, err
	}
	if len(ids) == 0 {
		return res, nil
	}
	res.Remote = ids[len(ids)-1]
	newest, err := newestLocal(mr.Dir)
	if err != nil {
		return res, err
	}
	for i := len(ids) - 1; i >= 0 && ids[i] > newest; i-- {
		p, err := Pull(ctx, mr.Bucket, mr.Dir, ids[i], PullOptions{LockWait: mr.LockWait, Log: log})
		if err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			log.Warn("pulling a snapshot failed; it is not served, and the next poll tries again",
				"snapshot", ids[i], "bucket", mr.Bucket.String(), "err", err)
			res.Failed = append(res.Failed, Failure{ID: ids[i], Err: err})
			continue
		}
		res.Pulled, res.Pull = p.ID, p
		log.Info("pulled snapshot", "snapshot", p.ID, "bucket", mr.Bucket.String(),
			"downloaded_bytes", p.DownloadedBytes, "linked_bytes", p.LinkedBytes, "bytes", p.Bytes)
		break
	}
	// Every time, not only after a pull: the snapshot a server swapped
	// away from stays leased until its last reader is done, and goes on
	// the next Sync after that.
	local, err := snapshot.List(mr.Dir)
	if err != nil || len(local) <= max(mr.Keep, 1) {
		return res, err
	}
	gc, err := snapshot.GC(ctx, mr.Dir, snapshot.GCOptions{Keep: max(mr.Keep, 1), LockWait: mr.LockWait})
	if gc != nil {
		res.Removed = gc.Removed
		if len(gc.Removed) > 0 {
			log.Info("removed old snapshots from the cache", "dir", mr.Dir, "snapshots", gc.Removed)
		}
	}
	if err != nil && !errors.Is(err, snapshot.ErrLocked) {
		log.Warn("removing old snapshots from the cache", "dir", mr.Dir, "err", err)
	}
	return res, nil
}
