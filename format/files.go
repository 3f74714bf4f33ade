package format

// Names of the files in a snapshot directory. Readers open only these names;
// anything else in the directory is ignored but still covered by the
// manifest's checksums.
const (
	ManifestFile = "manifest.json"
	NotesFile    = "nodes.parquet"
	LinksFile    = "links.parquet"
	EdgesFile    = "edges.parquet"
	ChunksFile   = "chunks.parquet"
)

// Layout of a data directory.
const (
	// SnapshotsDir holds one directory per published snapshot.
	SnapshotsDir = "snapshots"
	// TempPrefix starts the name of a snapshot being built inside
	// SnapshotsDir. Such directories are never read and are removed by the
	// next indexer run or by garbage collection.
	TempPrefix = ".tmp-"
	// LockFile, in the data directory, is held by a running indexer.
	LockFile = "index.lock"
	// LeasesDir, in the data directory, holds one lease file per snapshot
	// that a running server has open (<id>.lease, share-locked).
	LeasesDir   = "leases"
	LeaseSuffix = ".lease"
)
