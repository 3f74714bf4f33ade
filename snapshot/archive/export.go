package archive

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/patch"
)

// PAX records of a delta archive's manifest entry: the id of its base
// snapshot, and the JSON list of the files it leaves out.
const (
	paxBase    = "VAULTGRAPH.base"
	paxOmitted = "VAULTGRAPH.omitted"
)

// Compression of an exported archive.
type Compression string

const (
	None Compression = "none"
	Zstd Compression = "zstd"
)

// ParseCompression accepts "none", "zstd" and "" (none).
func ParseCompression(s string) (Compression, error) {
	switch Compression(s) {
	case "", None:
		return None, nil
	case Zstd:
		return Zstd, nil
	}
	return "", fmt.Errorf("unknown compression %q: use none or zstd", s)
}

// ExportOptions configure Export.
type ExportOptions struct {
	Compression Compression
	// Base, when set, is the directory of an earlier snapshot the
	// receiving data directory has (usually the parent): the archive is a
	// delta that leaves out every file Base's manifest lists with the same
	// size and sha256 (see the package documentation).
	Base string
}

// ExportResult reports an export.
type ExportResult struct {
	ID    string
	Files int   // files including the manifest
	Bytes int64 // uncompressed bytes of the files
	// Base is the base snapshot of a delta, "" for a full archive;
	// Omitted the files left out of it, OmittedBytes their bytes.
	Base         string
	Omitted      int
	OmittedBytes int64
	// Patched counts the files of a delta sent as patches of the base's
	// file of the same name (snapshot/patch), PatchBytes the patches' bytes.
	Patched    int
	PatchBytes int64
}

// Export writes the snapshot in dir to w as an archive (see the package
// documentation). It checks the snapshot first (manifest, sizes) and
// re-hashes every file as it streams it, failing on the first file that
// differs from the manifest, so an archive Export completes is one Import
// accepts. Export does not close w. The caller keeps the snapshot from
// being removed meanwhile (snapshot.AcquireLease).
func Export(ctx context.Context, w io.Writer, dir string, opts ExportOptions) (*ExportResult, error) {
	s, err := snapshot.Open(dir, snapshot.OpenOptions{})
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, format.ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	var out io.Writer = w
	var zw *zstd.Encoder
	if opts.Compression == Zstd {
		zw, err = zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		out = zw
	}
	res := &ExportResult{ID: s.ID}
	var omit map[string]bool
	var base *snapshot.Snapshot
	if opts.Base != "" {
		if base, err = snapshot.Open(opts.Base, snapshot.OpenOptions{}); err != nil {
			return nil, fmt.Errorf("export: base: %w", err)
		}
		if base.ID == s.ID {
			return nil, fmt.Errorf("export %s: the base is the snapshot itself; export it without a base", s.ID)
		}
		res.Base, omit = base.ID, sharedFiles(s.Manifest, base.Manifest)
	}
	err = writeTar(ctx, out, s, base, raw, omit, res)
	if zw != nil {
		err = errors.Join(err, zw.Close())
	}
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", s.ID, err)
	}
	return res, nil
}

// sharedFiles are the files of m that base lists with the same size and
// sha256: what a delta on base leaves out.
func sharedFiles(m, base *format.Manifest) map[string]bool {
	out := map[string]bool{}
	for name, fi := range m.Files {
		if b, ok := base.Files[name]; ok && b == fi {
			out[name] = true
		}
	}
	return out
}

func writeTar(ctx context.Context, w io.Writer, s, base *snapshot.Snapshot, manifest []byte, omit map[string]bool, res *ExportResult) error {
	tw := tar.NewWriter(w)
	mtime := s.Manifest.Created.UTC().Truncate(time.Second)
	header := func(rel string, size int64) *tar.Header {
		return &tar.Header{Typeflag: tar.TypeReg, Name: s.ID + "/" + rel, Size: size, Mode: 0o644, ModTime: mtime}
	}
	mh := header(format.ManifestFile, int64(len(manifest)))
	if res.Base != "" {
		omitted := make([]string, 0, len(omit))
		for name := range omit {
			omitted = append(omitted, name)
		}
		sort.Strings(omitted)
		list, err := json.Marshal(omitted)
		if err != nil {
			return err
		}
		mh.Format = tar.FormatPAX
		mh.PAXRecords = map[string]string{paxBase: res.Base, paxOmitted: string(list)}
	}
	if err := tw.WriteHeader(mh); err != nil {
		return err
	}
	if _, err := tw.Write(manifest); err != nil {
		return err
	}
	res.Files, res.Bytes = 1, int64(len(manifest))
	names := make([]string, 0, len(s.Manifest.Files))
	for name := range s.Manifest.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		want := s.Manifest.Files[name]
		if omit[name] {
			res.Omitted++
			res.OmittedBytes += want.Size
			continue
		}
		path := filepath.Join(s.Dir, filepath.FromSlash(name))
		if b, ok := baseFile(base, name); ok {
			// A file of the base by that name: a patch of it when that
			// saves a tenth of the file or more.
			p, err := patch.Make(filepath.Join(base.Dir, filepath.FromSlash(name)), b.SHA256, path, want.SHA256, want.Size-want.Size/10)
			if err != nil {
				return fmt.Errorf("%w: %s: %w", snapshot.ErrInvalid, name, err)
			}
			if p != nil {
				h := header(name, int64(len(p)))
				h.Format, h.PAXRecords = tar.FormatPAX, map[string]string{paxPatch: b.SHA256}
				if err := tw.WriteHeader(h); err != nil {
					return err
				}
				if _, err := tw.Write(p); err != nil {
					return err
				}
				res.Files++
				res.Bytes += want.Size
				res.Patched++
				res.PatchBytes += int64(len(p))
				continue
			}
		}
		if err := tw.WriteHeader(header(name, want.Size)); err != nil {
			return err
		}
		if err := copyChecked(tw, path, name, want); err != nil {
			return err
		}
		res.Files++
		res.Bytes += want.Size
	}
	return tw.Close()
}

// baseFile is the base's file of that name, as its manifest lists it.
func baseFile(base *snapshot.Snapshot, name string) (format.FileInfo, bool) {
	if base == nil {
		return format.FileInfo{}, false
	}
	fi, ok := base.Manifest.Files[name]
	return fi, ok && fi.Size > 0
}

// copyChecked copies exactly want.Size bytes of the file at p to w and
// checks their sha256.
func copyChecked(w io.Writer, p, name string, want format.FileInfo) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(f, want.Size))
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if n != want.Size {
		return fmt.Errorf("%w: %s: %d bytes, manifest says %d", snapshot.ErrInvalid, name, n, want.Size)
	}
	if hex.EncodeToString(h.Sum(nil)) != want.SHA256 {
		return fmt.Errorf("%w: %s: sha256 mismatch (run vaultgraph snapshot verify)", snapshot.ErrInvalid, name)
	}
	return nil
}
