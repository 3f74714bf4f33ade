// Package bucket ships snapshots through object storage: one indexer
// pushes them into a bucket, any number of read-only servers pull the
// newest one into a local cache and serve it from there.
//
// # The Bucket interface
//
// Bucket is the small client every store implements (list, head, get,
// put, delete), after litestream's ReplicaClient and thanos's
// objstore.Bucket; package s3bucket implements it for S3 and the stores
// that speak its protocol (MinIO, Ceph RGW, Cloudflare R2, Google Cloud
// Storage's S3 interface, versitygw). Keys are relative to the bucket's
// prefix.
//
// # Layout
//
//	PREFIX/
//	  files/<sha256>          one object per distinct file content (hex sha256)
//	  patches/<sha256>/<base> or a patch making that content from content base (patches.go)
//	  snapshots/<id>.json     a snapshot's manifest.json, byte for byte, written last
//	  locks/<kind>-<ulid>.json  held by a running push or gc (see Locks)
//
// File objects are content-addressed by the sha256 the manifest already
// records, so a file that a snapshot shares with one already in the bucket
// (the hard-linked files of an incremental run, a parent's unchanged
// parts) is never uploaded again; Push looks each one up before it
// uploads it. A snapshot is its manifest object: Push writes it only
// after every file object it names is in the bucket, so a reader that
// lists snapshots/ never finds a half-uploaded snapshot, and a push killed
// at any point leaves file objects that the next push of the same
// snapshot finds and skips. Objects are created with If-None-Match: *
// where the store supports it (a store that ignores it overwrites an
// object with the same bytes, which is harmless: a file object's key is
// its content and a manifest's key its snapshot id); uploads carry their
// sha256 (x-amz-checksum-sha256), so a store that checks it refuses a
// body that does not match its key.
//
// # Readers
//
// Pull downloads a snapshot's manifest, then every file it names, each
// hashed as it is written and compared with the manifest, into a
// temporary directory of the local data directory, and publishes it with
// snapshot.Writer.PublishCopy (fsync, manifest last, rename). A file a
// local snapshot already holds with the same sha256 is hard-linked
// instead of downloaded. A download that fails or does not verify
// publishes nothing. Mirror keeps a local cache directory current with
// the newest snapshot of a bucket for a server.
//
// # Locks
//
// Concurrent pushers never conflict: every object they write is either
// content-addressed or named by a snapshot id with deterministic bytes.
// Only garbage collection deletes, and it must not delete a file object
// that a push in progress found present and is about to reference. So
// each push and each gc writes a lock object under locks/ and then lists
// them all: a gc proceeds only when it finds no other live lock, a push
// only when it finds no live gc lock. With the strong read-after-write
// consistency of S3 (and of every store named above), of two that start
// together at least one sees the other and backs off. A lock is live
// while its holder refreshes it (every LockRefresh); one not refreshed
// for LockStale, or whose holder is a process on this host that has
// exited, is stale and ignored (gc deletes it).
//
// Nothing here logs or prints a credential: they come from the store's
// own configuration (for S3, the AWS SDK's default chain).
package bucket
