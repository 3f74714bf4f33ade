package store

import (
	"context"
	"time"

	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket"
)

// Source is where a Store's snapshots come from: a local data directory
// (Local: the indexer's own, or a copy kept by rsync or snapshot import),
// or a bucket mirrored into a local cache directory (Bucket). The store
// opens, leases and memory-maps snapshots in DataDir either way; a source
// only decides how they get there. Methods are called from one goroutine
// at a time (the store's Refresh).
type Source interface {
	// DataDir is the local data directory the snapshots are opened from
	// and leased in.
	DataDir() string
	// List brings in what the source has that is new (a bucket source
	// downloads and verifies the newest snapshot into its cache) and
	// returns the local snapshots, oldest first, with the snapshots it
	// could not bring in. An error means nothing could be listed; the
	// current snapshot keeps serving.
	List(ctx context.Context) (Listing, error)
	// Events reports whether file system events in DataDir announce new
	// snapshots (a local directory); a source that fetches is polled.
	Events() bool
	// String names the source in messages: the data directory, or the
	// bucket URL. It never holds a credential.
	String() string
}

// Listing is what Source.List found.
type Listing struct {
	Entries []snapshot.Entry
	// Failed are snapshots the source could not bring in (a bucket's
	// snapshot that did not download or verify). They are never served;
	// each is tried again by the next List.
	Failed []Rejection
	// SourceErr is why the source could not be asked for anything new (a
	// bucket that did not answer: credentials, network, the store down)
	// while Entries, what the cache holds, still serve. Nil when it
	// answered.
	SourceErr error
}

// Local is the source of a local data directory.
func Local(dataDir string) Source { return localSource(dataDir) }

type localSource string

func (l localSource) DataDir() string { return string(l) }
func (l localSource) Events() bool    { return true }
func (l localSource) String() string  { return string(l) }

func (l localSource) List(context.Context) (Listing, error) {
	entries, err := snapshot.List(string(l))
	return Listing{Entries: entries}, err
}

// Bucket is the source of a bucket mirrored into a local cache directory
// (mr.Dir): each List pulls the newest snapshot of the bucket newer than
// the cache's, verifying every file against its manifest before it is
// published in the cache, and removes the cached snapshots that neither
// mr.Keep nor a lease (the served one, and those readers still hold)
// needs. A snapshot that fails to download or verify is reported in
// Listing.Failed, never served, and tried again on the next poll.
func Bucket(mr *bucket.Mirror) Source { return &bucketSource{mr: mr} }

type bucketSource struct{ mr *bucket.Mirror }

func (b *bucketSource) DataDir() string { return b.mr.Dir }
func (b *bucketSource) Events() bool    { return false }
func (b *bucketSource) String() string  { return b.mr.Bucket.String() }

func (b *bucketSource) List(ctx context.Context) (Listing, error) {
	res, syncErr := b.mr.Sync(ctx)
	var l Listing
	for _, f := range res.Failed {
		l.Failed = append(l.Failed, Rejection{ID: f.ID, Reason: f.Err.Error(), At: time.Now().UTC()})
	}
	entries, err := snapshot.List(b.mr.Dir)
	l.Entries = entries
	if err != nil {
		return l, err
	}
	if syncErr != nil && ctx.Err() == nil {
		// The bucket did not answer: serve what the cache holds (after a
		// restart too), and say why nothing newer comes.
		if b.mr.Log != nil {
			b.mr.Log.Warn("listing the bucket failed; serving from the cache, retrying on the next poll", "bucket", b.String(), "err", syncErr)
		}
		l.SourceErr = syncErr
	}
	return l, ctx.Err()
}
