package archive

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/patch"
)

// ErrCorrupt is wrapped by every error about an archive that is not a
// complete, intact snapshot archive: truncated, altered, with entries the
// manifest does not list or declares another size for, names that leave
// the snapshot's directory, links, devices or sparse files, or more data
// than the manifest accounts for.
var ErrCorrupt = errors.New("corrupt snapshot archive")

// ErrNoSpace is returned by Import, before it writes anything, when the
// files the archive's manifest declares do not fit in the free space of
// the data directory's file system.
var ErrNoSpace = errors.New("not enough free space for the snapshot")

// ImportOptions configure Import.
type ImportOptions struct {
	// LockWait is how long to wait for a running indexer (or another
	// import) holding the data directory's lock.
	LockWait time.Duration
}

// ImportResult reports an import.
type ImportResult struct {
	ID    string
	Dir   string
	Files int   // files including the manifest
	Bytes int64 // uncompressed bytes of the files
	// Compression is what the archive was wrapped in: none, zstd or gzip.
	Compression string
	// Newest is the newest snapshot of the data directory after the
	// import. When it is not ID, servers keep serving it: they never swap
	// to an older snapshot.
	Newest string
	// Leftovers are temporary directories of interrupted runs removed
	// while the lock was held.
	Leftovers []string
	// Base is the base snapshot of a delta archive, "" for a full one.
	Base string
	// Taken counts the files of a delta taken from its base instead of
	// the archive.
	Taken int
	// Present says that dataDir already held this very snapshot (a
	// manifest byte for byte the archive's): Import checked the archive
	// and wrote nothing.
	Present bool
}

var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// Import reads an archive written by Export from r and publishes its
// snapshot in dataDir. It refuses, before writing anything, an archive
// whose manifest is not its first entry, whose format version this build
// cannot read (an error wrapping format.ErrUnknownVersion), whose id is
// already in dataDir for another snapshot or a damaged copy
// (snapshot.ErrExists) or whose declared files do not fit in the free
// space there (ErrNoSpace). An archive of a snapshot dataDir already
// holds, with the same manifest, is not an error: Import reads it to its
// end, checking every file as it would for an import, writes nothing and
// reports it Present, so that importing the same archive twice succeeds
// twice. Otherwise it streams every file
// into a temporary directory, checking each entry's header against the
// manifest before writing a byte of it and hashing the bytes as they
// arrive, and publishes with snapshot.Writer.PublishCopy. Any other
// problem with the archive wraps ErrCorrupt. On every error nothing is
// published and the temporary directory is removed.
//
// What Import writes is bounded by the manifest whatever the archive
// holds: at most the declared size of each declared file, once. What it
// reads is bounded too: past the manifest, no more tar data than the
// declared files and their headers need (see streamAllowance), so a
// decompression bomb ends with an error, and the zstd decoder's window is
// capped at maxZstdWindow.
//
// Import holds the data directory's lock while it writes, like an indexer,
// so the two never clear each other's temporary directories.
func Import(ctx context.Context, r io.Reader, dataDir string, opts ImportOptions) (res *ImportResult, err error) {
	src, compression, closeSrc, err := decompress(r)
	if err != nil {
		return nil, err
	}
	defer closeSrc()
	stream := &boundedReader{r: &ctxReader{ctx: ctx, r: src}}
	tr := tar.NewReader(stream)
	id, raw, m, d, err := readManifest(tr, stream)
	if err != nil {
		return nil, err
	}
	total, err := declaredTotal(m)
	if err != nil {
		return nil, err
	}
	res = &ImportResult{ID: id, Compression: compression}
	var omitted map[string]bool
	if d != nil {
		total -= d.bytes // what the archive carries
		res.Base, omitted, res.Taken = d.base, d.omitted, len(d.omitted)
	}
	present, err := checkPresent(dataDir, id, raw)
	if err != nil {
		return nil, err
	}
	if present {
		return checkArchive(tr, stream, dataDir, raw, m, total, omitted, presentBase(dataDir, id, m, d), res)
	}
	var base *snapshot.Snapshot
	if d != nil {
		if base, err = openBase(dataDir, id, m, d); err != nil {
			return nil, err
		}
	}
	release, err := snapshot.Lock(ctx, dataDir, opts.LockWait)
	if err != nil {
		return nil, err
	}
	defer release()
	if res.Leftovers, err = snapshot.RemoveLeftovers(dataDir); err != nil {
		return nil, err
	}
	// Another import may have published it meanwhile.
	if present, err = checkPresent(dataDir, id, raw); err != nil {
		return nil, err
	}
	if present {
		return checkArchive(tr, stream, dataDir, raw, m, total, omitted, presentBase(dataDir, id, m, d), res)
	}
	// After RemoveLeftovers, which may have freed space.
	if err := checkSpace(dataDir, id, total+int64(len(raw))); err != nil {
		return nil, err
	}
	w, err := snapshot.Create(dataDir, id)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, w.Abort())
		}
	}()
	dir := w.Dir()
	if base != nil {
		if err := takeFromBase(w, base, omitted, m); err != nil {
			return nil, err
		}
	}
	allowFiles(stream, m, total)
	if err := extract(tr, id, m, omitted, base, res, func(r io.Reader, rel string, want format.FileInfo) error {
		return writeChecked(r, dir, rel, want)
	}); err != nil {
		return nil, err
	}
	res.Files++
	res.Bytes += int64(len(raw))
	if res.Dir, err = w.PublishCopy(raw); err != nil {
		return nil, err
	}
	if res.Newest, err = newest(dataDir); err != nil {
		return nil, err
	}
	return res, nil
}

// checkArchive ends the import of a snapshot dataDir already holds: it
// checks the rest of the archive as an import would, writing nothing, and
// reports the snapshot Present. Reading the archive to its end also lets
// a writer at the other end of a pipe (export | import) finish without a
// broken pipe.
func checkArchive(tr *tar.Reader, stream *boundedReader, dataDir string, raw []byte, m *format.Manifest, total int64,
	omitted map[string]bool, base *snapshot.Snapshot, res *ImportResult) (*ImportResult, error) {
	allowFiles(stream, m, total)
	if err := extract(tr, res.ID, m, omitted, base, res, checkOnly); err != nil {
		return nil, err
	}
	res.Files++
	res.Bytes += int64(len(raw))
	res.Present = true
	res.Dir = snapshot.Dir(dataDir, res.ID)
	var err error
	if res.Newest, err = newest(dataDir); err != nil {
		return nil, err
	}
	return res, nil
}

// newest is the id of the newest snapshot in dataDir.
func newest(dataDir string) (string, error) {
	entries, err := snapshot.List(dataDir)
	if err != nil {
		return "", err
	}
	if len(entries) == 0 {
		return "", nil
	}
	return entries[len(entries)-1].ID, nil
}

// maxZstdWindow caps the memory the zstd decoder may use for its window
// (history buffer). Export writes 8 MiB windows; the zstd command's levels
// up to 19 use at most 8 MiB, --long 128 MiB.
const maxZstdWindow = 64 << 20

// decompress detects zstd and gzip by their magic numbers.
func decompress(r io.Reader) (io.Reader, string, func(), error) {
	br := bufio.NewReaderSize(r, 64<<10)
	magic, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(magic, zstdMagic):
		// MaxMemory too: it defaults to 64 GiB, and a frame declaring a
		// single segment sizes its window by the frame's content size.
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxWindow(maxZstdWindow), zstd.WithDecoderMaxMemory(maxZstdWindow))
		if err != nil {
			return nil, "", nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		return zstdReader{zr}, "zstd", zr.Close, nil
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, "", nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		return zr, "gzip", func() { zr.Close() }, nil
	}
	return br, "none", func() {}, nil
}

// zstdReader says in words what a window over maxZstdWindow means.
type zstdReader struct{ d *zstd.Decoder }

func (z zstdReader) Read(p []byte) (int, error) {
	n, err := z.d.Read(p)
	if errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		err = fmt.Errorf("%w: the zstd stream needs a window over the %d MiB import allows (compressed with zstd --long?): recompress it without --long, or export it again: %w",
			ErrCorrupt, maxZstdWindow>>20, err)
	}
	return n, err
}

// readManifest reads the archive up to and including its manifest, which
// must come within streamSlack bytes and be at most maxManifestBytes.
func readManifest(tr *tar.Reader, stream *boundedReader) (id string, raw []byte, m *format.Manifest, d *delta, err error) {
	notFound := func(read int64) error {
		return fmt.Errorf("%w: no %s in the first %d bytes: not a snapshot archive (write archives with vaultgraph snapshot export)", ErrCorrupt, format.ManifestFile, read)
	}
	stream.allow(streamSlack, notFound)
	for {
		hdr, err := next(tr)
		if errors.Is(err, io.EOF) {
			return "", nil, nil, nil, fmt.Errorf("%w: no %s: the archive is empty or not a snapshot archive", ErrCorrupt, format.ManifestFile)
		}
		if err != nil {
			return "", nil, nil, nil, err
		}
		if hdr.Typeflag == tar.TypeDir || hdr.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		id, rel, ok := splitEntry(hdr.Name)
		if !ok || rel != format.ManifestFile || notRegular(hdr) != "" {
			return "", nil, nil, nil, fmt.Errorf("%w: the first file is %q, want <id>/%s: write archives with vaultgraph snapshot export", ErrCorrupt, hdr.Name, format.ManifestFile)
		}
		if hdr.Size > maxManifestBytes {
			return "", nil, nil, nil, fmt.Errorf("%w: %s is %d bytes, over the %d-byte limit", ErrCorrupt, hdr.Name, hdr.Size, maxManifestBytes)
		}
		stream.allow(blockPadded(hdr.Size), notFound)
		raw, err := io.ReadAll(tr)
		if err != nil {
			return "", nil, nil, nil, fmt.Errorf("%w: read %s: %w", ErrCorrupt, hdr.Name, err)
		}
		m, err := format.DecodeManifest(raw)
		if errors.Is(err, format.ErrUnknownVersion) {
			return "", nil, nil, nil, fmt.Errorf("cannot import snapshot %s: %w; nothing was imported", id, err)
		}
		if err != nil {
			return "", nil, nil, nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		if m.ID != id {
			return "", nil, nil, nil, fmt.Errorf("%w: %s holds the manifest of snapshot %s", ErrCorrupt, hdr.Name, m.ID)
		}
		for name, fi := range m.Files {
			if !validRel(name) || name == format.ManifestFile || fi.Size < 0 {
				return "", nil, nil, nil, fmt.Errorf("%w: the manifest lists an invalid file %q", ErrCorrupt, name)
			}
		}
		d, err := readDelta(hdr, m)
		if err != nil {
			return "", nil, nil, nil, err
		}
		return id, raw, m, d, nil
	}
}

// delta is what the manifest entry of a delta archive (ExportOptions.Base)
// says: the base snapshot and the files taken from it.
type delta struct {
	base    string
	omitted map[string]bool
	bytes   int64 // of the omitted files
}

// readDelta reads the delta records of the manifest's entry: nil for a
// full archive.
func readDelta(hdr *tar.Header, m *format.Manifest) (*delta, error) {
	base, ok := hdr.PAXRecords[paxBase]
	if !ok {
		return nil, nil
	}
	if !format.ValidSnapshotID(base) || base == m.ID {
		return nil, fmt.Errorf("%w: the archive names %q as its base, not a snapshot id", ErrCorrupt, base)
	}
	var names []string
	if err := json.Unmarshal([]byte(hdr.PAXRecords[paxOmitted]), &names); err != nil {
		return nil, fmt.Errorf("%w: the list of files the delta leaves out does not read: %w", ErrCorrupt, err)
	}
	d := &delta{base: base, omitted: make(map[string]bool, len(names))}
	for _, name := range names {
		fi, listed := m.Files[name]
		if !listed || d.omitted[name] {
			return nil, fmt.Errorf("%w: the delta leaves out %q, which the manifest does not list once", ErrCorrupt, name)
		}
		d.omitted[name] = true
		d.bytes += fi.Size
	}
	return d, nil
}

// extract hands every file entry after the manifest to write (which
// checks its bytes: writeChecked, checkOnly). Each entry's header is
// checked against the manifest before any of its bytes are read: a
// regular file, declared, not seen before, of the declared size.
//
// An entry with a paxPatch record is a patch of base's file of the same
// name (snapshot/patch), which base's manifest must list with the sha256 the
// record names; write gets the bytes the patch makes. Without a base (a
// snapshot already present whose base is gone) a patch is only read.
func extract(tr *tar.Reader, id string, m *format.Manifest, omitted map[string]bool, base *snapshot.Snapshot, res *ImportResult,
	write func(r io.Reader, rel string, want format.FileInfo) error) error {
	seen := make(map[string]bool, len(m.Files))
	for {
		hdr, err := next(tr)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		entryID, rel, ok := splitEntry(hdr.Name)
		if !ok || entryID != id {
			return fmt.Errorf("%w: entry %q is not a file of snapshot %s", ErrCorrupt, hdr.Name, id)
		}
		if hdr.Typeflag == tar.TypeDir {
			continue
		}
		if what := notRegular(hdr); what != "" {
			return fmt.Errorf("%w: entry %q is not a regular file (%s)", ErrCorrupt, hdr.Name, what)
		}
		want, listed := m.Files[rel]
		patchOf, patch := hdr.PAXRecords[paxPatch]
		switch {
		case !listed:
			return fmt.Errorf("%w: %s (%d bytes) is not in the manifest", ErrCorrupt, rel, hdr.Size)
		case seen[rel]:
			return fmt.Errorf("%w: %s appears twice", ErrCorrupt, rel)
		case omitted[rel]:
			return fmt.Errorf("%w: %s is in the archive, which says it is taken from the base snapshot", ErrCorrupt, rel)
		case patch && omitted == nil:
			return fmt.Errorf("%w: %s is a patch in an archive that is not a delta", ErrCorrupt, rel)
		case patch && hdr.Size >= want.Size:
			return fmt.Errorf("%w: %s is a patch of %d bytes for a file of %d", ErrCorrupt, rel, hdr.Size, want.Size)
		case !patch && hdr.Size != want.Size:
			return fmt.Errorf("%w: %s is %d bytes in the archive, the manifest declares %d", ErrCorrupt, rel, hdr.Size, want.Size)
		}
		seen[rel] = true
		var err2 error
		switch {
		case !patch:
			err2 = write(tr, rel, want)
		case base == nil:
			// Only a snapshot already present, whose base is gone, is
			// checked without one: its patches cannot be applied.
			_, err2 = io.Copy(io.Discard, tr)
		default:
			err2 = writePatched(tr, base, rel, patchOf, want, write)
		}
		if err2 != nil {
			return err2
		}
		res.Files++
		res.Bytes += want.Size
	}
	if len(seen)+len(omitted) < len(m.Files) {
		var missing []string
		for name := range m.Files {
			if !seen[name] && !omitted[name] {
				missing = append(missing, name)
			}
		}
		sort.Strings(missing)
		return fmt.Errorf("%w: truncated: %d of %d files missing (first: %s)", ErrCorrupt, len(missing), len(m.Files), missing[0])
	}
	return nil
}

// writePatched hands write the bytes the patch read from r makes of
// base's file rel, which base's manifest must list with the sha256 sum.
func writePatched(r io.Reader, base *snapshot.Snapshot, rel, sum string, want format.FileInfo,
	write func(r io.Reader, rel string, want format.FileInfo) error) error {
	if base == nil {
		return fmt.Errorf("%w: %s is a patch of the base snapshot's file, and there is no base", ErrMissingBase, rel)
	}
	if fi, ok := base.Manifest.Files[rel]; !ok || fi.SHA256 != sum {
		return fmt.Errorf("%w: %s is a patch of a file that snapshot %s does not have; export it without --base; nothing was imported",
			ErrMissingBase, rel, base.ID)
	}
	bf, err := os.Open(filepath.Join(base.Dir, filepath.FromSlash(rel)))
	if err != nil {
		return fmt.Errorf("import %s from snapshot %s: %w", rel, base.ID, err)
	}
	defer bf.Close()
	fi, err := bf.Stat()
	if err != nil {
		return fmt.Errorf("import %s from snapshot %s: %w", rel, base.ID, err)
	}
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := patch.Apply(pw, r, bf, fi.Size(), want.Size)
		if errors.Is(err, patch.ErrCorrupt) {
			err = fmt.Errorf("%w: %s: %w", ErrCorrupt, rel, err)
		}
		pw.CloseWithError(err)
	}()
	err = write(pr, rel, want)
	pr.CloseWithError(errors.New("import: the patched file was read to its end")) // unblock the patcher
	<-done
	return err
}

// presentBase is the base of a delta archive of a snapshot dataDir already
// holds, to check its patches against; nil when it is not a delta or the
// base is not there (its patches are then only read).
func presentBase(dataDir, id string, m *format.Manifest, d *delta) *snapshot.Snapshot {
	if d == nil {
		return nil
	}
	base, err := openBase(dataDir, id, m, d)
	if err != nil {
		return nil
	}
	return base
}

// writeChecked creates dir/rel, never overwriting, and fills it from r
// with at most want.Size bytes, checking size and sha256. The caller has
// checked rel with validRel, and dir is a fresh directory holding only
// what writeChecked created, so no symlink can redirect the write.
func writeChecked(r io.Reader, dir, rel string, want format.FileInfo) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrCorrupt, rel, err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%w: %s appears twice", ErrCorrupt, rel)
	}
	if err != nil {
		return fmt.Errorf("import %s: %w", rel, err)
	}
	err = copyVerified(f, r, rel, want)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("import %s: %w", rel, cerr)
	}
	return err
}

// checkOnly reads a file's bytes from r and checks them as writeChecked
// does, writing them nowhere.
func checkOnly(r io.Reader, rel string, want format.FileInfo) error {
	return copyVerified(io.Discard, r, rel, want)
}

// copyVerified copies at most want.Size bytes from r to w and checks their
// size and sha256.
func copyVerified(w io.Writer, r io.Reader, rel string, want format.FileInfo) error {
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(r, want.Size))
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: truncated in %s", ErrCorrupt, rel)
	case errors.Is(err, ErrCorrupt):
		return fmt.Errorf("in %s: %w", rel, err)
	case err != nil:
		return fmt.Errorf("import %s: %w", rel, err)
	case n != want.Size:
		return fmt.Errorf("%w: truncated in %s", ErrCorrupt, rel)
	case hex.EncodeToString(h.Sum(nil)) != want.SHA256:
		return fmt.Errorf("%w: %s: sha256 mismatch (the archive was damaged in transit)", ErrCorrupt, rel)
	}
	return nil
}

// next returns the next tar header; a truncated or malformed stream wraps
// ErrCorrupt, the end of the archive is io.EOF.
func next(tr *tar.Reader) (*tar.Header, error) {
	hdr, err := tr.Next()
	switch {
	case errors.Is(err, io.EOF):
		return nil, io.EOF
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), errors.Is(err, ErrCorrupt):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return hdr, nil
}

// notRegular says what an entry is when it is not a plain regular file
// (a link, a device, a sparse file), and "" when it is one. Export writes
// only plain regular files.
func notRegular(hdr *tar.Header) string {
	switch hdr.Typeflag {
	case tar.TypeReg, tar.TypeRegA: //nolint:staticcheck // old tars
	case tar.TypeSymlink:
		return fmt.Sprintf("a symbolic link to %q", hdr.Linkname)
	case tar.TypeLink:
		return fmt.Sprintf("a hard link to %q", hdr.Linkname)
	case tar.TypeChar, tar.TypeBlock:
		return "a device"
	case tar.TypeFifo:
		return "a named pipe"
	case tar.TypeGNUSparse:
		return "a sparse file"
	default:
		return fmt.Sprintf("type %q", hdr.Typeflag)
	}
	// A PAX sparse file is a regular entry whose holes the tar reader
	// fills in: more bytes than the archive holds.
	for k := range hdr.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return "a sparse file"
		}
	}
	return ""
}

// checkSpace refuses a snapshot of need bytes that the file system of
// dataDir has no room for, so that an archive declaring more than fits
// fails before it fills the disk. Where free space cannot be known, the
// write fails when the disk is full instead, and Import cleans up then.
func checkSpace(dataDir, id string, need int64) error {
	free, ok := freeBytes(dataDir)
	if !ok || uint64(need) <= free {
		return nil
	}
	return fmt.Errorf("%w: snapshot %s needs %d bytes, %s has %d bytes free; nothing was imported", ErrNoSpace, id, need, dataDir, free)
}

// checkPresent reports whether dataDir already holds the snapshot whose
// manifest is raw: true when the snapshot there has that manifest byte for
// byte (the manifest lists every file's size and sha256, so the snapshots
// are the same) and its files are there with those sizes; false when there
// is nothing of that id. Anything else of that id, another snapshot, a
// directory without a manifest (an interrupted copy) or a damaged copy, is
// refused with snapshot.ErrExists.
func checkPresent(dataDir, id string, raw []byte) (bool, error) {
	dir := snapshot.Dir(dataDir, id)
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("import: %w", err)
	}
	have, err := os.ReadFile(filepath.Join(dir, format.ManifestFile))
	if err == nil && bytes.Equal(have, raw) {
		// Presence and sizes: a truncated copy is not this snapshot.
		if _, err := snapshot.Open(dir, snapshot.OpenOptions{}); err != nil {
			return false, fmt.Errorf("%w: %s already holds %s, with this manifest, but it does not open: %w; remove it and import again; nothing was imported",
				snapshot.ErrExists, snapshot.SnapshotsDir(dataDir), id, err)
		}
		return true, nil
	}
	what := "another snapshot with the same id"
	if err != nil {
		what = fmt.Sprintf("a directory of that name whose manifest does not read (%v)", err)
	}
	return false, fmt.Errorf("%w: %s already holds %s, %s; nothing was imported", snapshot.ErrExists, snapshot.SnapshotsDir(dataDir), id, what)
}

// ctxReader stops a long import when ctx is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// ErrMissingBase is returned by Import for a delta archive whose base
// snapshot the data directory does not have (or has damaged): nothing is
// imported, and the message names the base.
var ErrMissingBase = errors.New("the base snapshot of the delta is missing")

// openBase opens the base snapshot of a delta in dataDir and checks that
// it holds every file the delta leaves out, as the manifest records it.
func openBase(dataDir, id string, m *format.Manifest, d *delta) (*snapshot.Snapshot, error) {
	dir := snapshot.Dir(dataDir, d.base)
	_, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: the archive holds snapshot %s as a delta on snapshot %s, which %s does not have: "+
			"import %s first, or export %s without --base; nothing was imported", ErrMissingBase, id, d.base,
			snapshot.SnapshotsDir(dataDir), d.base, id)
	}
	base, err := snapshot.Open(dir, snapshot.OpenOptions{})
	if err != nil {
		return nil, fmt.Errorf("%w: the archive holds snapshot %s as a delta on snapshot %s, which does not open here: %w; nothing was imported",
			ErrMissingBase, id, d.base, err)
	}
	names := make([]string, 0, len(d.omitted))
	for name := range d.omitted {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if fi, ok := base.Manifest.Files[name]; !ok || fi != m.Files[name] {
			return nil, fmt.Errorf("%w: the delta of snapshot %s takes %s from snapshot %s, whose copy here has another one; "+
				"export %s without --base; nothing was imported", ErrMissingBase, id, name, d.base, id)
		}
	}
	return base, nil
}

// damagedBase is the error for a file a delta leaves out whose copy in
// the base snapshot here does not match the base's manifest.
func damagedBase(id, base, name string, err error) error {
	return fmt.Errorf("the delta of snapshot %s takes %s from base snapshot %s, which is damaged here (%w); "+
		"run vaultgraph snapshot verify, then export %s without --base or repair %s; nothing was imported", id, name, base, err, id, base)
}

// takeFromBase puts the files a delta leaves out into the snapshot being
// written: hard links to the base's files, or copies where the file
// system has no hard links. PublishCopy hashes them with the rest.
func takeFromBase(w *snapshot.Writer, base *snapshot.Snapshot, omitted map[string]bool, m *format.Manifest) error {
	for name := range omitted {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(w.Dir(), filepath.FromSlash(name))), 0o755); err != nil {
			return fmt.Errorf("import %s: %w", name, err)
		}
		ok, err := w.Link(base, name)
		if damaged := (*snapshot.DamagedError)(nil); errors.As(err, &damaged) {
			return damagedBase(m.ID, base.ID, name, err)
		}
		if err != nil {
			return err
		}
		if ok {
			continue
		}
		f, err := os.Open(filepath.Join(base.Dir, filepath.FromSlash(name)))
		if err != nil {
			return fmt.Errorf("import %s from snapshot %s: %w", name, base.ID, err)
		}
		err = writeChecked(f, w.Dir(), name, m.Files[name])
		f.Close()
		if errors.Is(err, ErrCorrupt) {
			return damagedBase(m.ID, base.ID, name, err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
