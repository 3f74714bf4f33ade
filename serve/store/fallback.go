package store

import (
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// Fallback is a change of the served snapshot forced by its deletion from
// disk. Garbage collection never deletes a leased snapshot, so this is an
// operator's doing, most often a rollback: deleting a bad newest snapshot.
type Fallback struct {
	// Deleted is the snapshot that was served and is gone from disk.
	Deleted string `json:"deleted"`
	// Serving is the snapshot served instead: the newest one that opens,
	// older than Deleted unless a newer one was published meanwhile; ""
	// when none opens and nothing is served.
	Serving string `json:"serving"`
	// Reason says what is gone.
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// deletedReason returns why the snapshot s no longer counts as published,
// or "" while its manifest is still there. A snapshot whose manifest is
// gone is no snapshot (snapshot.List skips it), whether its directory was
// removed, renamed away or is being removed.
func deletedReason(s *Snapshot) string {
	if s == nil || !vanished(s.Dir) {
		return ""
	}
	if _, err := os.Stat(s.Dir); errors.Is(err, fs.ErrNotExist) {
		return "its directory " + s.Dir + " was removed or renamed away"
	}
	return "its " + format.ManifestFile + " was removed from " + s.Dir
}

// fellBack records and logs that the deleted snapshot old was replaced by
// serving (nil: by nothing).
func (st *Store) fellBack(old, serving *Snapshot, reason string, rejected int) *Fallback {
	fb := &Fallback{Deleted: old.ID, Reason: reason, At: time.Now().UTC()}
	if serving != nil {
		fb.Serving = serving.ID
	}
	st.nFallbacks.Add(1)
	st.lastFallback.Store(fb)
	if serving == nil {
		st.log.Warn("the served snapshot was deleted from disk and no other snapshot opens; serving none until one is published",
			"deleted", old.ID, "reason", reason, "rejected", rejected)
	} else {
		st.log.Warn("the served snapshot was deleted from disk; serving the newest remaining snapshot that opens",
			"deleted", old.ID, "serving", serving.ID, "older", serving.ID < old.ID, "reason", reason)
	}
	return fb
}

// withdraw stops serving the current snapshot without a successor:
// Acquire returns nil from now on, and the snapshot closes once the
// readers holding it release it.
func (st *Store) withdraw() {
	if old := st.cur.Swap(nil); old != nil {
		st.retire(old)
	}
}
