// Package archive ships snapshots between machines as a single stream: Export
// writes one snapshot directory as a tar archive, optionally
// zstd-compressed, and Import verifies such an archive and publishes it
// into another data directory with the guarantees of snapshot.Writer.
//
// # Archive format
//
// A POSIX tar stream (ustar, with PAX records only for names longer than
// ustar allows), optionally wrapped in zstd (or gzip, on import only):
//
//	<id>/manifest.json      first entry: the manifest exactly as published
//	<id>/<file>             every file the manifest names, in byte order of
//	                        their names, nothing else
//
// A delta (ExportOptions.Base) leaves out the files its base has unchanged
// (PAX records on the manifest's entry name the base and those files) and
// may carry a changed file as a patch of the base's file of the same name
// (snapshot/patch): an entry with a VAULTGRAPH.patch record, whose size is the
// patch's, smaller than the file's.
//
// Entries are regular files with mode 0644, owner 0:0 and the snapshot's
// creation time (to the second), so one snapshot always exports to the same
// bytes. Extracted with tar, an archive is a snapshot directory named by
// its id (see the README for copying one by hand).
//
// The manifest comes first so that Import refuses an archive it cannot
// read (an unknown format version, another snapshot under an id already
// present, more declared bytes than the disk has free) before writing
// anything, and checks every later entry as it streams by: its name must
// be one the manifest lists, once, with the listed size and sha256. An
// archive of a snapshot already present with the same manifest is checked
// the same way and reported present, writing nothing: importing one
// archive twice is not an error.
//
// # Import
//
// Import never writes outside a temporary directory of DATA/snapshots
// until the last step: entry names are checked (relative, clean, no "..",
// no backslashes, inside the snapshot's directory), only regular files are
// created, with O_EXCL, and every byte is hashed as it is written.
//
// Nothing in an archive makes Import write or read more than its manifest
// accounts for. An entry is refused on its header, before any of its bytes
// are read, unless it is a plain regular file the manifest lists, not seen
// before, of exactly the listed size; links, devices and sparse files are
// refused. The manifest itself may be at most 256 MiB, the zstd window 64
// MiB, and the tar stream after the manifest no longer than the declared
// files plus their headers (a stream of skipped metadata entries, say from
// a decompression bomb, fails once it exceeds that). The
// snapshot is published by snapshot.Writer.PublishCopy (fsync every file,
// manifest last, rename, fsync the parent) only after every file has
// arrived complete and matched its checksum; on any error, a truncated or
// corrupted stream included, the temporary directory is removed and the
// data directory is as it was. A server watching DATA/snapshots therefore
// never sees a half-copied snapshot.
package archive
