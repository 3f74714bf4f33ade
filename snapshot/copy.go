package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"

	"github.com/vaultgraph/vaultgraph/format"
)

// ErrExists is returned when a snapshot with the same id is already in the
// data directory. Snapshots are immutable: an id is never published twice.
var ErrExists = errors.New("snapshot already exists")

// PublishCopy publishes a snapshot that was built elsewhere (an imported
// archive) under the manifest it was published with there, byte for byte,
// so that fields this build does not know survive the copy. The files under
// Dir must be exactly the ones the manifest names, with its sizes and
// checksums: PublishCopy fsyncs and re-hashes every file and publishes
// nothing when one is missing, differs or is not in the manifest. The
// manifest must be that of snapshot w.ID() and in a format version this
// build reads (an error wrapping format.ErrUnknownVersion otherwise).
//
// The durability steps are Publish's: every file fsynced, manifest.json
// written and fsynced last, the directory renamed into place and
// DATA/snapshots fsynced. On error nothing has been published and the
// temporary directory is left for Abort.
func (w *Writer) PublishCopy(manifest []byte) (dir string, err error) {
	m, err := format.DecodeManifest(manifest)
	if err != nil {
		return "", fmt.Errorf("publish %s: %w", w.id, err)
	}
	if m.ID != w.id {
		return "", fmt.Errorf("publish %s: the manifest is that of snapshot %s", w.id, m.ID)
	}
	files, err := sealFiles(w.tmp, nil, nil) // a copy is checked in full
	if err != nil {
		return "", fmt.Errorf("publish %s: %w", w.id, err)
	}
	if problems := compareFiles(m.Files, files); len(problems) > 0 {
		return "", fmt.Errorf("publish %s: %w: %s", w.id, ErrInvalid, problems[0])
	}
	// rename(2) onto an empty directory would replace it; an id already
	// present, even as an interrupted copy, is refused instead.
	if _, err := os.Lstat(Dir(w.dataDir, w.id)); err == nil {
		return "", fmt.Errorf("%w: %s", ErrExists, Dir(w.dataDir, w.id))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("publish %s: %w", w.id, err)
	}
	return w.commit(manifest)
}

// compareFiles lists every difference between the files a manifest names
// and the files found.
func compareFiles(want, got map[string]format.FileInfo) []Problem {
	var problems []Problem
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		g, ok := got[name]
		switch {
		case !ok:
			problems = append(problems, Problem{name, "missing"})
		case g.Size != want[name].Size:
			problems = append(problems, Problem{name, fmt.Sprintf("size %d, manifest says %d", g.Size, want[name].Size)})
		case g.SHA256 != want[name].SHA256:
			problems = append(problems, Problem{name, "sha256 mismatch"})
		}
	}
	extra := make([]string, 0)
	for name := range got {
		if _, ok := want[name]; !ok {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		problems = append(problems, Problem{name, "not in manifest"})
	}
	return problems
}
