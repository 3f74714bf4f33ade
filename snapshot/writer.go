package snapshot

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/sync/errgroup"

	"github.com/vaultgraph/vaultgraph/format"
)

// Writer builds one snapshot in a temporary directory and publishes it.
// Callers write their files under Dir, then call Publish or Abort exactly
// once. A Writer is not safe for concurrent use; hold the data directory's
// Lock while using one, since RemoveLeftovers deletes temporary directories
// of writers it does not know about.
type Writer struct {
	dataDir string
	id      string
	tmp     string
	linked  map[string]linkedFile // by relative path
	early   early                 // files sealed before Publish
}

// linkedFile is a file of the snapshot being written that is a hard link
// to a published snapshot's file, with that snapshot's record of it.
type linkedFile struct {
	src  string
	info format.FileInfo
}

// Create starts a snapshot with the given id in dataDir, creating
// DATA/snapshots if needed.
func Create(dataDir, id string) (*Writer, error) {
	if !format.ValidSnapshotID(id) {
		return nil, fmt.Errorf("create snapshot: invalid id %q", id)
	}
	snaps := SnapshotsDir(dataDir)
	if err := os.MkdirAll(snaps, 0o755); err != nil {
		return nil, fmt.Errorf("create snapshots dir: %w", err)
	}
	tmp := filepath.Join(snaps, format.TempPrefix+id)
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("create snapshot temp dir: %w", err)
	}
	return &Writer{dataDir: dataDir, id: id, tmp: tmp}, nil
}

// ID returns the id the snapshot will be published under.
func (w *Writer) ID() string { return w.id }

// Dir returns the temporary directory to write the snapshot's files into.
func (w *Writer) Dir() string { return w.tmp }

// Link makes parent's file name (a path relative to the snapshot directory,
// as the manifest lists it) a file of the snapshot being written, as a hard
// link rather than a copy: snapshots never change, so two can share an
// unchanged file, which costs neither the writing nor the disk space.
// Publish takes the file's size and sha256 from parent's manifest instead of
// reading it again (it was made durable when parent was published). It
// reports false, having written nothing, when the file system refuses hard
// links; the caller then writes the file itself. It first checks parent's
// file against its manifest record (xxh64, else sha256) and fails with a
// *DamagedError, linking nothing, when they differ. Nothing may open a linked
// file for writing: every writer in this module creates its files with
// O_EXCL, so writing over a link fails instead of changing parent.
func (w *Writer) Link(parent *Snapshot, name string) (bool, error) {
	return w.LinkAs(parent, name, name)
}

// DamagedError is Link's error for a file of the parent snapshot that does
// not match the parent's manifest: it was not linked, and the caller
// writes the file from its own data instead, or fails. It wraps
// ErrInvalid.
type DamagedError struct {
	Snapshot string // the parent's id
	File     string // the file's name in the parent
	Reason   string // as Verify reports it ("xxh64 mismatch", "missing")
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("snapshot %s is damaged: its file %s does not match its manifest (%s)", e.Snapshot, e.File, e.Reason)
}

// Unwrap makes a DamagedError match ErrInvalid.
func (e *DamagedError) Unwrap() error { return ErrInvalid }

// LinkAs is Link for a file the snapshot being written names as rather
// than name: a table segment that moved to another place in its table
// (format.SegmentFile). It is not safe for concurrent use either.
func (w *Writer) LinkAs(parent *Snapshot, name, as string) (bool, error) {
	info, ok := parent.Manifest.Files[name]
	if !ok || filepath.IsAbs(name) || !filepath.IsLocal(filepath.FromSlash(name)) {
		return false, fmt.Errorf("link %s: snapshot %s lists no such file", name, parent.ID)
	}
	if filepath.IsAbs(as) || !filepath.IsLocal(filepath.FromSlash(as)) {
		return false, fmt.Errorf("link %s as %s: not a file name inside the snapshot", name, as)
	}
	// Publish records the parent's sums for a linked file without reading
	// it, so a file damaged in the parent would be published damaged in
	// every snapshot after it: check it first (its xxh64, cheap).
	if p := checkFile(parent.Dir, name, info, verifyFast); p != nil {
		return false, &DamagedError{Snapshot: parent.ID, File: name, Reason: p.Reason}
	}
	src := filepath.Join(parent.Dir, filepath.FromSlash(name))
	dst := filepath.Join(w.tmp, filepath.FromSlash(as))
	if err := os.Link(src, dst); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) && !errors.Is(err, fs.ErrExist) && !errors.Is(err, fs.ErrNotExist) {
			return false, nil // EXDEV, EPERM, ENOTSUP, EMLINK: copy instead
		}
		return false, fmt.Errorf("link %s from snapshot %s: %w", name, parent.ID, err)
	}
	if w.linked == nil {
		w.linked = map[string]linkedFile{}
	}
	w.linked[as] = linkedFile{src: src, info: info}
	return true, nil
}

// Publish makes the snapshot visible to readers. It fsyncs every file under
// Dir, records their sizes and checksums in m.Files, writes manifest.json
// last and fsyncs it, renames the directory to its final name and fsyncs
// DATA/snapshots. m.ID and m.FormatVersion are set by Publish. On error the
// temporary directory is left for Abort or RemoveLeftovers; nothing has been
// published.
func (w *Writer) Publish(m *format.Manifest) (dir string, err error) {
	m.ID = w.id
	m.FormatVersion = format.Version
	w.early.wg.Wait()
	files, err := sealFiles(w.tmp, w.linked, &w.early)
	if err != nil {
		return "", fmt.Errorf("publish %s: %w", w.id, err)
	}
	m.Files = files
	data, err := m.Encode()
	if err != nil {
		return "", err
	}
	return w.commit(data)
}

// commit writes manifest.json (the files under Dir are already durable),
// fsyncs it and Dir, renames Dir into place and fsyncs DATA/snapshots.
func (w *Writer) commit(data []byte) (dir string, err error) {
	// The manifest is written after every other file is durable, so a
	// manifest on disk always describes complete files.
	if err := writeFileSync(filepath.Join(w.tmp, format.ManifestFile), data); err != nil {
		return "", fmt.Errorf("publish %s: %w", w.id, err)
	}
	if err := syncDir(w.tmp); err != nil {
		return "", fmt.Errorf("publish %s: %w", w.id, err)
	}
	final := Dir(w.dataDir, w.id)
	// rename(2) is atomic: readers see either no directory or a complete one.
	if err := os.Rename(w.tmp, final); err != nil {
		return "", fmt.Errorf("publish %s: %w", w.id, err)
	}
	// Without this fsync the rename itself could be lost on power failure.
	if err := syncDir(SnapshotsDir(w.dataDir)); err != nil {
		return "", fmt.Errorf("publish %s: %w", w.id, err)
	}
	return final, nil
}

// Abort removes the temporary directory of an unpublished snapshot.
func (w *Writer) Abort() error {
	w.early.wg.Wait()
	if err := os.RemoveAll(w.tmp); err != nil {
		return fmt.Errorf("abort snapshot %s: %w", w.id, err)
	}
	return nil
}

// sealFiles fsyncs every regular file and directory under root and returns
// their sizes and sha256 sums keyed by slash-separated relative path. A
// file in linked that is still the published file it links to is taken
// from that snapshot's record, unread, and one sealed early (Writer.SealEarly)
// and unchanged since from that record. Files are hashed and fsynced by
// sealWorkers goroutines at once: a snapshot has a hundred files or more
// (the tables' segments), and one fsync after the other waited on the disk
// for each (their hashing is CPU, the waits are not).
func sealFiles(root string, linked map[string]linkedFile, sealed *early) (map[string]format.FileInfo, error) {
	files := make(map[string]format.FileInfo)
	var dirs []string
	type toSeal struct {
		rel, path string
		size      int64
	}
	var seal []toSeal
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p)
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == format.ManifestFile {
			return fmt.Errorf("%s written before publish", format.ManifestFile)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", rel)
		}
		if l, ok := linked[rel]; ok && sameFile(p, l.src, l.info.Size) {
			files[rel] = l.info
			return nil
		}
		var size int64
		if fi, err := d.Info(); err == nil {
			if info, ok := sealed.sealed(rel, fi); ok {
				files[rel] = info
				return nil
			}
			size = fi.Size()
		}
		seal = append(seal, toSeal{rel, p, size})
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The largest first, so that no worker is left with one at the end.
	slices.SortFunc(seal, func(a, b toSeal) int { return cmp.Compare(b.size, a.size) })
	infos := make([]format.FileInfo, len(seal))
	var g errgroup.Group
	g.SetLimit(sealWorkers)
	for i, f := range seal {
		g.Go(func() (err error) {
			infos[i], err = hashAndSync(f.path)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i, f := range seal {
		files[f.rel] = infos[i]
	}
	for _, d := range dirs {
		if err := syncDir(d); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// sealWorkers is how many files sealFiles hashes and fsyncs at once.
const sealWorkers = 4

// sameFile reports whether a and b are one file of the given size.
func sameFile(a, b string, size int64) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb) && fa.Size() == size
}

func hashAndSync(path string) (format.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return format.FileInfo{}, err
	}
	h, x := sha256.New(), xxhash.New()
	n, err := io.Copy(io.MultiWriter(h, x), f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return format.FileInfo{}, fmt.Errorf("seal %s: %w", path, err)
	}
	return format.FileInfo{Size: n, SHA256: hex.EncodeToString(h.Sum(nil)), XXH64: hex.EncodeToString(x.Sum(nil))}, nil
}

func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}
