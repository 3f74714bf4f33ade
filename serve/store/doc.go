// Package store keeps the newest good snapshot of a data directory open for
// a long-running reader (the REST server, the MCP server over stdio or
// HTTP) and swaps to newer ones as the indexer publishes them.
//
// # Lifetimes
//
// A Snapshot aggregates components with different costs and owners: the
// manifest, the in-memory note index (notes, edges and chunks with their
// text), the vector index (memory-mapped vector files and HNSW graphs) with
// its query embedder, the read-only graph database (Kuzu, native memory),
// the link graph, and the GraphRAG retriever built over those (with its
// BM25 index). One loader (load.go) opens all of them, outside any lock and
// off the request path, and holds a lease (snapshot.AcquireLease) for as
// long as the snapshot is open so that garbage collection never deletes it
// underneath.
//
// Readers take a reference with Acquire and give it back with the release
// function it returns:
//
//	snap, release := st.Acquire()
//	if snap == nil { ... no snapshot yet ... }
//	defer release()
//
// Acquire takes no lock: it loads the current snapshot from an atomic
// pointer and increments its reference count unless the count has already
// dropped to zero. The store itself holds one reference on the current
// snapshot. Publishing a newer one stores the new pointer first and then
// drops the store's reference on the old one (retires it, the "closing"
// guard); the old snapshot is closed, its mmaps unmapped, its database
// closed and its lease released, by whichever release brings the count to
// zero, never while a reader holds it. There are no finalizers: mmaps and
// native database handles are not Go memory, so they are closed
// deterministically.
//
// # What is served
//
// Refresh lists DATA/snapshots and considers only ids newer than the one
// served, newest first, so that publishing or importing an older snapshot
// never rolls the server back. A snapshot that fails to open or verify is
// logged, counted and remembered with a signature of its files (names,
// sizes, modification times); it is tried again only when that signature
// changes, so a bad snapshot is never retried in a loop, and a copy that
// was still being written is picked up once it is complete. The current
// snapshot keeps serving meanwhile.
//
// The one way back to an older snapshot is deleting the served one.
// Garbage collection never deletes a leased snapshot, so a served snapshot
// whose manifest is gone (its directory removed or renamed away) was
// removed by hand, as an operator rolls back a bad snapshot. Refresh then
// falls back to the newest snapshot that opens, whatever its age, and
// logs (WARN) and counts the fallback (Stats.Fallbacks, LastFallback);
// when none opens it stops serving, and Acquire returns nil as before the
// first snapshot, rather than keep answering from deleted files that a
// restart would not find. Either way the deleted snapshot is retired like
// any replaced one: the readers holding it finish on it, and it closes
// after the last of them.
//
// Watch keeps the store current: fsnotify events on DATA/snapshots (new
// snapshots, and the served one's directory removed or renamed away),
// debounced, plus a periodic rescan, since bind mounts and network file
// systems drop events. A snapshot renamed into place with its manifest,
// as the indexer publishes, is rescanned at once.
//
// Opening a snapshot (load.go) verifies its note tables first and decodes
// them while the other files are verified; nothing is mapped or handed to
// the graph engine before its bytes are checked. With Options.TuneHeap
// (the server) the Go runtime's memory limit follows the live heap of the
// snapshots open (heap.go).
//
// # Sources
//
// Where snapshots come from is a Source (source.go): Local, a data
// directory the indexer (or an import, or a copy) publishes into, and
// Bucket, an S3 bucket (package snapshot/bucket) mirrored into a local
// cache directory. The store always opens, leases and memory-maps
// snapshots in the source's DataDir; Refresh asks the source for its list,
// and a bucket source first pulls the newest snapshot newer than the
// cache's, verifying every file against the manifest before publishing it
// in the cache, so that the store never opens a partial or damaged
// download. Snapshots a source could not bring in count as rejections
// (Stats.Rejected, LastRejection) and are tried again on the next
// Refresh. A bucket source has no file system events; Watch polls it
// every WatchOptions.Poll. A store serving several vaults takes one
// source per vault.
//
// The store never writes to a snapshot or to the vault; the only files it
// creates are lease files in DATA/leases (and, for a bucket source, the
// snapshots it pulls into the cache, which it also garbage-collects).
package store
