package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// Entry names one published snapshot directory.
type Entry struct {
	ID  string
	Dir string
}

// List returns the snapshots of dataDir in creation order, oldest first:
// every directory of DATA/snapshots whose name is a snapshot id and which
// holds a manifest.json. It does not check the manifests; Open does.
// A data directory without snapshots yields an empty list.
func List(dataDir string) ([]Entry, error) {
	des, err := os.ReadDir(SnapshotsDir(dataDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list snapshots: %w", err)
	}
	var out []Entry
	for _, de := range des {
		if !de.IsDir() || !format.ValidSnapshotID(de.Name()) {
			continue
		}
		dir := filepath.Join(SnapshotsDir(dataDir), de.Name())
		if _, err := os.Stat(filepath.Join(dir, format.ManifestFile)); err != nil {
			continue
		}
		out = append(out, Entry{ID: de.Name(), Dir: dir})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Resolve finds a snapshot by id, by a unique id prefix (at least 4
// characters), or "" / "latest" for the newest. It returns ErrNotFound when
// nothing matches.
func Resolve(dataDir, ref string) (Entry, error) {
	entries, err := List(dataDir)
	if err != nil {
		return Entry{}, err
	}
	if len(entries) == 0 {
		return Entry{}, fmt.Errorf("%w in %s: run vaultgraph index first", ErrNotFound, SnapshotsDir(dataDir))
	}
	if ref == "" || ref == "latest" {
		return entries[len(entries)-1], nil
	}
	var found []Entry
	for _, e := range entries {
		if e.ID == ref {
			return e, nil
		}
		if len(ref) >= 4 && strings.HasPrefix(e.ID, strings.ToUpper(ref)) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return Entry{}, fmt.Errorf("%w: %q (vaultgraph snapshot list shows the ids)", ErrNotFound, ref)
	default:
		return Entry{}, fmt.Errorf("snapshot prefix %q is ambiguous: matches %d snapshots", ref, len(found))
	}
}

// RemoveLeftovers deletes the temporary directories that interrupted runs
// left in DATA/snapshots. Call it only while holding the data directory's
// Lock: it cannot tell a crashed run's directory from a running one's.
func RemoveLeftovers(dataDir string) (removed []string, err error) {
	des, err := os.ReadDir(SnapshotsDir(dataDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("remove leftovers: %w", err)
	}
	for _, de := range des {
		if !strings.HasPrefix(de.Name(), format.TempPrefix) {
			continue
		}
		p := filepath.Join(SnapshotsDir(dataDir), de.Name())
		if rerr := os.RemoveAll(p); rerr != nil {
			err = errors.Join(err, fmt.Errorf("remove leftover %s: %w", p, rerr))
			continue
		}
		removed = append(removed, de.Name())
	}
	return removed, err
}
