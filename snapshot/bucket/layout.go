package bucket

import (
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// Key prefixes of the layout (see the package documentation).
const (
	filesDir     = "files/"
	snapshotsDir = "snapshots/"
	locksDir     = "locks/"
	manifestExt  = ".json"
)

// FileKey is the key of the file object holding the content whose hex
// sha256 is sum.
func FileKey(sum string) string { return filesDir + sum }

// ManifestKey is the key of snapshot id's manifest object.
func ManifestKey(id string) string { return snapshotsDir + id + manifestExt }

// idOfManifestKey returns the snapshot id a manifest key names, false for
// any other key.
func idOfManifestKey(key string) (string, bool) {
	name, ok := strings.CutPrefix(key, snapshotsDir)
	if !ok {
		return "", false
	}
	id, ok := strings.CutSuffix(name, manifestExt)
	if !ok || !format.ValidSnapshotID(id) {
		return "", false
	}
	return id, true
}

// sumOfFileKey returns the sha256 a file key names, false for any other
// key.
func sumOfFileKey(key string) (string, bool) {
	sum, ok := strings.CutPrefix(key, filesDir)
	if !ok || !validSum(sum) {
		return "", false
	}
	return sum, true
}

func validSum(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}
