package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

// ErrClosed is returned by Refresh after Close.
var ErrClosed = errors.New("snapshot store is closed")

// Options configure a Store. The zero value checks sizes only and uses the
// defaults of the embedding, search and graph packages.
type Options struct {
	// Verify recomputes the sha256 of every file of a snapshot before
	// serving it. Without it the store still never swaps to a snapshot
	// whose bytes differ from its manifest: it recomputes every file's
	// xxh64 (the sha256 of files that have none), several files at once,
	// while the current snapshot keeps serving. Either reads the whole
	// snapshot once per swap.
	Verify bool
	// Embed configures the query embedder of remote models (hosts, keys).
	Embed embed.Config
	// Search tunes vector searches (EfSearch).
	Search search.Options
	// GraphDB sizes the graph database of each open snapshot: buffer pool,
	// threads, connections, default timeout and row cap.
	GraphDB graphdb.Options
	// OpenGraph replaces the default opener (GraphOpenerWith(GraphDB)).
	OpenGraph GraphOpener
	// Log receives swaps, rejections and closes (discarded when nil).
	Log *slog.Logger
	// TuneHeap keeps the Go heap near what the open snapshots hold, by
	// setting the runtime's soft memory limit after every swap (see
	// heapTuner; GOMEMLIMIT in the environment wins). It changes
	// process-wide state: for servers, not for libraries embedding a
	// store.
	TuneHeap bool
}

// Store serves the newest good snapshot of a data directory. Acquire is
// safe for concurrent use and lock-free; Refresh, Watch and Close may be
// called from any goroutine and serialise among themselves.
type Store struct {
	src     Source
	dataDir string
	opts    Options
	log     *slog.Logger
	cur     atomic.Pointer[Snapshot]

	// refreshMu serialises Refresh and Close. Readers never take it.
	refreshMu sync.Mutex
	rejected  map[string]rejection // by snapshot id
	seen      map[string]bool

	closing atomic.Bool
	ctx     context.Context // canceled by Close, to stop a load in progress
	cancel  context.CancelFunc
	open    sync.WaitGroup // snapshots loaded and not yet closed

	nSeen, nRejected, nSwaps, nOpen, nFallbacks atomic.Int64
	lastRejection                               atomic.Pointer[Rejection]
	lastFallback                                atomic.Pointer[Fallback]
	nSourceErrors                               atomic.Int64
	sourceErr                                   atomic.Pointer[SourceError]
}

// SourceError is a source that stopped answering (a bucket whose
// credentials expired, or that is unreachable): the server keeps serving
// what it has, and says since when nothing newer could come.
type SourceError struct {
	Reason string `json:"reason"`
	// Since is the first failed poll of this run of failures, At the
	// latest; Failures counts them.
	Since    time.Time `json:"since"`
	At       time.Time `json:"at"`
	Failures int64     `json:"failures"`
}

// rejection remembers a snapshot that failed, with the signature of its
// files when it was tried.
type rejection struct {
	signature string
	Rejection
}

// Rejection is a snapshot that was not served and why.
type Rejection struct {
	ID     string    `json:"id"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// New returns a store for dataDir serving nothing yet; call Refresh to open
// the newest snapshot and Watch to follow new ones. dataDir may hold no
// snapshot yet, or not exist yet: a server (an agent's MCP server, a
// service) may start before the first index run, and serves once it
// publishes. A path that exists must be a directory.
func New(dataDir string, opts Options) (*Store, error) {
	return NewFrom(Local(dataDir), opts)
}

// NewFrom returns a store serving the snapshots of src (see Source), as
// New does for a local data directory.
func NewFrom(src Source, opts Options) (*Store, error) {
	dataDir := src.DataDir()
	fi, err := os.Stat(dataDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("data directory: %w", err)
	case !fi.IsDir():
		return nil, fmt.Errorf("data directory %s is not a directory", dataDir)
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if opts.TuneHeap {
		tuner.register()
	}
	return &Store{
		src: src, dataDir: dataDir, opts: opts, log: opts.Log,
		rejected: map[string]rejection{}, seen: map[string]bool{},
		ctx: ctx, cancel: cancel,
	}, nil
}

// DataDir returns the data directory the store serves (for a bucket, the
// local cache).
func (st *Store) DataDir() string { return st.dataDir }

// Source names where the snapshots come from: the data directory, or the
// bucket URL.
func (st *Store) Source() string { return st.src.String() }

// Acquire returns the current snapshot with a reference held on it, and
// the function that releases the reference; call it exactly once when done
// (calling it again is harmless). The snapshot stays open, whatever swaps
// happen meanwhile, until it is released. Acquire returns nil and a no-op
// release when no snapshot is served yet (or after Close). It never blocks.
func (st *Store) Acquire() (*Snapshot, func()) {
	for {
		s := st.cur.Load()
		if s == nil {
			return nil, func() {}
		}
		if s.tryRef() {
			r := &reference{s: s}
			return s, r.release
		}
		// s drained to zero after being retired, so cur already holds its
		// successor (or nil after Close): load again.
	}
}

// Current returns the id of the snapshot being served, "" when none.
func (st *Store) Current() string {
	if s := st.cur.Load(); s != nil {
		return s.ID
	}
	return ""
}

// RefreshResult reports one Refresh.
type RefreshResult struct {
	Previous string `json:"previous"`
	// Current is the snapshot served after the Refresh, "" when none.
	Current string `json:"current"`
	// Swapped reports that Current was opened by this Refresh and replaced
	// Previous (or nothing).
	Swapped  bool        `json:"swapped"`
	Rejected []Rejection `json:"rejected"`
	// Fallback is set when Previous was found deleted from disk, and says
	// what is served instead.
	Fallback *Fallback `json:"fallback,omitempty"`
}

// Refresh looks for snapshots newer than the one served and swaps to the
// newest one that opens. Newer snapshots that fail are logged, counted and
// skipped; each is tried again only once its files change. Refresh never
// swaps to an older snapshot, with one exception: when the served
// snapshot has been deleted from disk (its manifest is gone), Refresh
// falls back to the newest snapshot that opens, older or not, or stops
// serving when none does, rather than answer from deleted files; it logs,
// counts and reports (RefreshResult.Fallback, Stats.LastFallback) the
// fallback. Refresh returns an error only when the snapshots directory
// cannot be listed, ctx ends or the store is closed; the current snapshot
// keeps serving in those cases.
func (st *Store) Refresh(ctx context.Context) (RefreshResult, error) {
	return st.refresh(ctx, false)
}

// Retry is Refresh that also tries again the snapshots rejected before,
// changed or not: the operator's way out when a snapshot failed for a
// reason outside it (memory, permissions) that has since been fixed.
func (st *Store) Retry(ctx context.Context) (RefreshResult, error) {
	return st.refresh(ctx, true)
}

func (st *Store) refresh(ctx context.Context, retry bool) (RefreshResult, error) {
	st.refreshMu.Lock()
	defer st.refreshMu.Unlock()
	if retry {
		clear(st.rejected)
	}
	res := RefreshResult{Previous: st.Current(), Rejected: []Rejection{}}
	res.Current = res.Previous
	if st.closing.Load() {
		return res, ErrClosed
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(st.ctx, cancel)()

	listing, err := st.src.List(ctx)
	if err != nil {
		return res, err
	}
	st.noteSourceErr(listing.SourceErr)
	entries := listing.Entries
	for _, r := range listing.Failed {
		res.Rejected = append(res.Rejected, st.rejectFetch(r))
	}
	st.forget(entries, listing.Failed)
	// Only newer snapshots are candidates, so that importing an older one
	// never rolls the server back; but once the served snapshot is deleted
	// by hand (garbage collection never deletes a leased one), every
	// snapshot left is.
	cur := st.cur.Load()
	deleted := deletedReason(cur)
	floor := res.Previous
	if deleted != "" {
		floor = ""
	}
	// Loading decodes whole tables: once the new snapshot serves (or was
	// rejected), return the garbage to the system rather than keep it
	// resident until the heap next grows; a tuned heap also gets its limit.
	// Not before publishing: a full collection would delay the swap.
	loaded := false
	defer func() {
		switch {
		case !loaded:
		case st.opts.TuneHeap:
			tuner.settle()
		default:
			releaseMemory()
		}
	}()
	for i := len(entries) - 1; i >= 0 && entries[i].ID > floor; i-- {
		e := entries[i]
		sig := signature(e.Dir)
		if r, ok := st.rejected[e.ID]; ok && r.signature == sig {
			continue
		}
		loaded = true
		s, err := st.load(ctx, e)
		if ctx.Err() != nil {
			if s != nil {
				err = s.closeComponents()
			}
			return res, errors.Join(ctx.Err(), err)
		}
		if err != nil {
			if vanished(e.Dir) {
				st.log.Debug("snapshot disappeared while opening it", "snapshot", e.ID)
				continue
			}
			r := st.reject(e.ID, sig, err)
			res.Rejected = append(res.Rejected, r)
			continue
		}
		if deleted != "" {
			res.Fallback = st.fellBack(cur, s, deleted, len(res.Rejected))
		}
		st.publish(s, res.Previous)
		res.Current, res.Swapped = s.ID, true
		break
	}
	if deleted != "" && !res.Swapped {
		res.Fallback = st.fellBack(cur, nil, deleted, len(res.Rejected))
		st.withdraw()
		res.Current = ""
	}
	return res, nil
}

// forget counts newly seen snapshots and drops rejections of snapshots that
// are gone: the remembered ones, and the last one reported once it is no
// longer listed. A snapshot the source failed to fetch is still listed.
func (st *Store) forget(entries []snapshot.Entry, failed []Rejection) {
	listed := make(map[string]bool, len(entries)+len(failed))
	for _, e := range entries {
		listed[e.ID] = true
		if !st.seen[e.ID] {
			st.seen[e.ID] = true
			st.nSeen.Add(1)
		}
	}
	for _, r := range failed {
		listed[r.ID] = true
	}
	for id := range st.rejected {
		if !listed[id] {
			delete(st.rejected, id)
		}
	}
	if r := st.lastRejection.Load(); r != nil && !listed[r.ID] {
		st.lastRejection.CompareAndSwap(r, nil)
	}
}

// settled drops the last rejection once a snapshot at least as new as the
// rejected one serves: the trouble it reported is behind the server.
func (st *Store) settled(id string) {
	if r := st.lastRejection.Load(); r != nil && r.ID <= id {
		st.lastRejection.CompareAndSwap(r, nil)
	}
}

func (st *Store) reject(id, sig string, err error) Rejection {
	r := Rejection{ID: id, Reason: err.Error(), At: time.Now().UTC()}
	st.rejected[id] = rejection{signature: sig, Rejection: r}
	st.nRejected.Add(1)
	st.lastRejection.Store(&r)
	if cur := st.Current(); cur != "" {
		st.log.Warn("skipping a snapshot that does not open; still serving the previous one",
			"snapshot", id, "serving", cur, "err", err)
	} else {
		st.log.Warn("skipping a snapshot that does not open; no snapshot is served yet",
			"snapshot", id, "err", err)
	}
	return r
}

// rejectFetch counts a snapshot the source could not bring in. The
// source tries it again on its next List, so it is not remembered here.
func (st *Store) rejectFetch(r Rejection) Rejection {
	st.nRejected.Add(1)
	st.lastRejection.Store(&r)
	return r
}

// publish makes s the current snapshot and retires the previous one, which
// closes when its last reader releases it. The pointer is stored before
// the old snapshot is retired, so Acquire never finds a drained snapshot
// without a successor.
func (st *Store) publish(s *Snapshot, previous string) {
	st.open.Add(1)
	st.nOpen.Add(1)
	s.onClose = st.closed
	st.settled(s.ID) // first, so that whoever sees s served sees it settled
	old := st.cur.Swap(s)
	if old != nil {
		st.nSwaps.Add(1)
		st.retire(old)
	}
	st.log.Info("serving snapshot", "snapshot", s.ID, "previous", previous,
		"notes", s.Manifest.Counts.Notes, "load_ms", s.LoadTime.Milliseconds(),
		"search", s.SearchErr == nil, "cypher", s.GraphErr == nil)
}

// retire drops the store's reference to a snapshot it no longer serves;
// a tuned heap counts it as retired until it closes (closed).
func (st *Store) retire(old *Snapshot) {
	if st.opts.TuneHeap {
		tuner.retiring()
	}
	old.retire()
}

// closed is called once per published snapshot, after its last release.
func (st *Store) closed(s *Snapshot, err error) {
	if err != nil {
		st.log.Warn("closing a retired snapshot", "snapshot", s.ID, "err", err)
	} else {
		st.log.Debug("closed retired snapshot", "snapshot", s.ID)
	}
	// A snapshot holds hundreds of megabytes for a large vault, and swaps
	// are minutes apart: hand its memory back to the system now, so that
	// the resident size follows the snapshot served instead of the peak
	// of the last swap (and lower the memory limit to match).
	if st.opts.TuneHeap {
		tuner.retiredClosed()
		tuner.settle()
	} else {
		releaseMemory()
	}
	st.nOpen.Add(-1)
	st.open.Done()
}

// Close stops serving: Acquire returns nil from now on, a load in progress
// is abandoned, and Close waits (until ctx ends) for every snapshot to be
// released by its readers and closed.
func (st *Store) Close(ctx context.Context) error {
	if st.closing.Swap(true) {
		return st.wait(ctx)
	}
	if st.opts.TuneHeap {
		defer tuner.unregister()
	}
	st.cancel()
	st.refreshMu.Lock()
	st.withdraw()
	st.refreshMu.Unlock()
	return st.wait(ctx)
}

func (st *Store) wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { st.open.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("close snapshot store: %d snapshots still in use: %w", st.nOpen.Load(), ctx.Err())
	}
}

// Stats are the store's counters since it was created.
type Stats struct {
	// Current is the id served, "" when none.
	Current string
	// Seen counts distinct snapshot ids found in the data directory;
	// Rejected counts failed attempts to open one (each bad snapshot once
	// per change of its files); Swaps counts replacements of the served
	// snapshot by another one (a newer one, or the one served after a
	// fallback); Fallbacks counts the times the served snapshot was found
	// deleted from disk and replaced by the newest one that opens or by
	// none.
	Seen, Rejected, Swaps, Fallbacks int64
	// Open counts snapshots open: the current one and retired ones still
	// held by readers.
	Open int64
	// LastRejection is the most recent rejection while it still matters:
	// nil when none, and once a snapshot at least as new as the rejected
	// one serves or the rejected one is no longer listed (Rejected keeps
	// counting it).
	LastRejection *Rejection
	// LastFallback is the most recent fallback, nil when none.
	LastFallback *Fallback
	// SourceErrors counts polls whose source did not answer; SourceError
	// is the current run of them, nil once the source answers again.
	SourceErrors int64
	SourceError  *SourceError
}

// noteSourceErr records a poll's source error, or clears the record when
// the source answered.
func (st *Store) noteSourceErr(err error) {
	if err == nil {
		st.sourceErr.Store(nil)
		return
	}
	st.nSourceErrors.Add(1)
	now := time.Now().UTC()
	e := &SourceError{Reason: err.Error(), Since: now, At: now, Failures: 1}
	if prev := st.sourceErr.Load(); prev != nil {
		e.Since, e.Failures = prev.Since, prev.Failures+1
	}
	st.sourceErr.Store(e)
}

// Stats returns the store's counters.
func (st *Store) Stats() Stats {
	return Stats{
		Current: st.Current(), Seen: st.nSeen.Load(), Rejected: st.nRejected.Load(),
		Swaps: st.nSwaps.Load(), Fallbacks: st.nFallbacks.Load(), Open: st.nOpen.Load(),
		LastRejection: st.lastRejection.Load(), LastFallback: st.lastFallback.Load(),
		SourceErrors: st.nSourceErrors.Load(), SourceError: st.sourceErr.Load(),
	}
}
