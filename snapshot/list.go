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

// minPrefix is the shortest id prefix Resolve accepts: shorter ones would
// match nearly every snapshot (ids start with their creation time).
const minPrefix = 4

// ErrAmbiguous is wrapped by Resolve's error for an id prefix that several
// snapshots share.
var ErrAmbiguous = errors.New("ambiguous snapshot id prefix")

// Resolve finds a snapshot by id, by a unique id prefix (at least 4
// characters, any case), or "" / "latest" for the newest. It returns
// ErrNotFound when nothing matches (a shorter prefix never does) and
// ErrAmbiguous for a prefix of several ids.
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
	var found []string
	var match Entry
	for _, e := range entries {
		if e.ID == ref {
			return e, nil
		}
		if len(ref) >= minPrefix && strings.HasPrefix(e.ID, strings.ToUpper(ref)) {
			found = append(found, e.ID)
			match = e
		}
	}
	switch {
	case len(found) == 1:
		return match, nil
	case len(found) > 1:
		shown := found[:min(len(found), 3)]
		more := ""
		if len(found) > len(shown) {
			more = ", ..."
		}
		return Entry{}, fmt.Errorf("%w: %q matches %d snapshots (%s%s); give more of the id", ErrAmbiguous, ref, len(found), strings.Join(shown, ", "), more)
	case len(ref) < minPrefix:
		return Entry{}, fmt.Errorf("%w: %q: an id prefix needs at least %d characters (vaultgraph snapshot list shows the ids)", ErrNotFound, ref, minPrefix)
	}
	return Entry{}, fmt.Errorf("%w: %q (vaultgraph snapshot list shows the ids)", ErrNotFound, ref)
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
