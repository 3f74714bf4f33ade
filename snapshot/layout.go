package snapshot

import (
	"path/filepath"

	"github.com/vaultgraph/vaultgraph/format"
)

// SnapshotsDir returns DATA/snapshots.
func SnapshotsDir(dataDir string) string {
	return filepath.Join(dataDir, format.SnapshotsDir)
}

// Dir returns the directory of the snapshot id in dataDir.
func Dir(dataDir, id string) string {
	return filepath.Join(dataDir, format.SnapshotsDir, id)
}
