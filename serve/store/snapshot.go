package store

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot/codecontext"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
	"github.com/vaultgraph/vaultgraph/snapshot/retrieve"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

// Snapshot is one opened snapshot and every component answering from it.
// Its fields are set by the loader and never change afterwards, so any
// number of goroutines may read them while they hold a reference (see
// Store.Acquire). Nothing of it may be used after the reference is
// released: slices returned by components may alias memory maps that are
// unmapped when the snapshot closes, so a response must be encoded into
// memory of its own before the release.
type Snapshot struct {
	// ID is the snapshot id; Dir its directory.
	ID  string
	Dir string
	// Manifest is the snapshot's manifest as verified on load.
	Manifest *format.Manifest
	// Loaded is when the store finished opening the snapshot.
	Loaded time.Time
	// LoadTime is how long opening took.
	LoadTime time.Duration

	// Notes answers lookups of notes, their edges and chunks. Always set.
	Notes *Notes
	// Search answers similarity searches and Embedder embeds their
	// queries; both nil when search is unavailable, and SearchErr (wrapping
	// ErrUnavailable) says why: the snapshot was built without vectors, or
	// this server cannot build the embedder its vectors came from.
	Search    *search.Index
	Embedder  embed.Embedder
	SearchErr error
	// Graph answers Cypher queries; nil when the snapshot has no graph
	// database or this build cannot query it, and GraphErr (wrapping
	// ErrUnavailable) says why.
	Graph    Graph
	GraphErr error
	// Links is the link graph that graph navigation walks (POST /graph).
	// Always set once loaded. LinksReused says it shares the indexes of
	// the graph served before (the same names, tags and edges).
	Links       *linkgraph.Graph
	LinksReused bool
	// Retriever answers GraphRAG questions (POST /retrieve); nil when
	// vector search is unavailable, and RetrieveErr says why.
	Retriever   *retrieve.Retriever
	RetrieveErr error
	// Code answers retrieve_context, impact_of and divergence over the
	// notes and the repositories indexed beside them; nil when the snapshot
	// holds no code, and CodeErr (wrapping ErrUnavailable) says why.
	Code    *codecontext.Index
	CodeErr error

	refs    atomic.Int64
	retired atomic.Bool // the closing guard: the store has dropped its reference
	closed  chan struct{}
	mu      sync.Mutex // guards closers while components open concurrently
	closers []namedCloser
	onClose func(s *Snapshot, err error)
}

type namedCloser struct {
	name  string
	close func() error
}

func newSnapshot(id, dir string) *Snapshot {
	s := &Snapshot{ID: id, Dir: dir, closed: make(chan struct{})}
	s.refs.Store(1) // the store's reference
	return s
}

// addCloser registers a component to close, in reverse order of
// registration, when the snapshot closes.
func (s *Snapshot) addCloser(name string, close func() error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closers = append(s.closers, namedCloser{name, close})
}

// tryRef takes a reference unless the count has reached zero, after which
// the snapshot is closing or closed and can never be revived.
func (s *Snapshot) tryRef() bool {
	for {
		n := s.refs.Load()
		if n <= 0 {
			return false
		}
		if s.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// unref drops a reference; the last one closes the snapshot, on another
// goroutine so that the request that happened to be last does not pay for
// unmapping and closing the database.
func (s *Snapshot) unref() {
	switch n := s.refs.Add(-1); {
	case n == 0:
		go s.close()
	case n < 0:
		// A release called twice would be a bug in this package: every
		// release function is guarded. Say so loudly rather than close twice.
		slog.Error("snapshot reference count below zero", "snapshot", s.ID, "refs", n)
	}
}

// retire drops the store's reference: the snapshot is no longer handed to
// new readers and closes once the readers holding it are done.
func (s *Snapshot) retire() {
	if s.retired.CompareAndSwap(false, true) {
		s.unref()
	}
}

// Retired reports whether the store has replaced (or stopped serving) this
// snapshot. Readers still holding it may finish their work on it.
func (s *Snapshot) Retired() bool { return s.retired.Load() }

// Done is closed once the snapshot has been closed.
func (s *Snapshot) Done() <-chan struct{} { return s.closed }

// close closes every component in reverse order of opening (the lease is
// registered first, so it is released last) and reports to the store.
func (s *Snapshot) close() {
	err := s.closeComponents()
	close(s.closed)
	if s.onClose != nil {
		s.onClose(s, err)
	}
}

func (s *Snapshot) closeComponents() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		c := s.closers[i]
		if err := c.close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", c.name, err))
		}
	}
	s.closers = nil
	return errors.Join(errs...)
}

// reference is one reader's hold on a snapshot; release is idempotent so
// that a deferred release after an explicit one does no harm.
type reference struct {
	s    *Snapshot
	done atomic.Bool
}

func (r *reference) release() {
	if r.done.CompareAndSwap(false, true) {
		r.s.unref()
	}
}

// Age returns how long ago the snapshot was created.
func (s *Snapshot) Age(now time.Time) time.Duration {
	if s.Manifest == nil || s.Manifest.Created.IsZero() {
		return 0
	}
	return now.Sub(s.Manifest.Created)
}
