// Package snapshot reads and writes snapshot directories in a data
// directory:
//
//	DATA/
//	  index.lock              held by a running indexer (Lock)
//	  snapshots/
//	    <id>/                 a published snapshot: tables, manifest.json last
//	    .tmp-<id>/            a snapshot being built (Create); never read
//	  leases/
//	    <id>.lease            share-locked by processes reading <id> (AcquireLease)
//
// Publishing is crash-safe: a snapshot is built in a temporary directory,
// every file is fsynced, manifest.json (with the size and sha256 of every
// other file) is written and fsynced last, the directory is renamed into
// place and the parent directory fsynced. A directory without a manifest is
// not a snapshot, so a run killed at any point leaves nothing a reader would
// take for one; RemoveLeftovers clears what it left.
//
// Snapshots are immutable once published. Open reads and checks one; the
// table readers return its rows. PublishCopy publishes a snapshot built
// elsewhere (an imported archive, see package archive) under its own
// manifest, with Publish's guarantees.
//
// Snapshots are removed only by GC: never the newest, never one a process
// holds a lease on (AcquireLease), and always by renaming the directory to
// a temporary name before deleting its files, so that a half-deleted
// snapshot is never listed. GC also removes the lease files of snapshots
// that are gone, unless they are held.
package snapshot
