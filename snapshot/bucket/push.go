package bucket

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/sync/errgroup"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// ErrConflict is returned when the bucket holds a different snapshot
// under the id being pushed. Snapshot ids are ULIDs, so this means the
// prefix is shared by two unrelated data directories.
var ErrConflict = errors.New("the bucket holds another snapshot under this id")

// PushOptions configure Push.
type PushOptions struct {
	// Concurrency is how many file objects are uploaded at once
	// (default 4).
	Concurrency int
	// Log receives one line per uploaded file at debug level.
	Log *slog.Logger
	// FullObjects uploads every file whole, never as a patch of the
	// parent's.
	FullObjects bool
	// MaxChain bounds the patches between a file object and any file
	// (default DefaultMaxChain); past it a file is uploaded whole.
	MaxChain int
}

// PushResult reports a push.
type PushResult struct {
	ID string
	// Present says the bucket already held this snapshot (its manifest,
	// byte for byte, and every file object it names): nothing was
	// uploaded.
	Present bool
	// Files counts the distinct file objects the snapshot needs, plus its
	// manifest; Bytes their sizes: what a copy of the snapshot weighs.
	Files int
	Bytes int64
	// Uploaded and UploadedBytes count what this push sent, the manifest
	// included; the rest was in the bucket already.
	Uploaded      int
	UploadedBytes int64
	// Repaired counts file objects that were in the bucket with the wrong
	// size and were uploaded again; RepairedManifest says the manifest
	// object was there but did not read as this snapshot's manifest (cut
	// short, edited, another id inside) and was replaced.
	Repaired         int
	RepairedManifest bool
	// Patched counts the files the bucket holds as patches of the
	// parent's file of the same name (patches/), sent now or before;
	// PatchBytes what those sent now weigh (within UploadedBytes).
	Patched    int
	PatchBytes int64
}

// Push uploads the published snapshot in dir to b: every file object the
// bucket does not hold yet (or holds with another size), then the
// manifest. Each file object is looked up first, also when the manifest
// is there already, so pushing again repairs a snapshot whose damaged
// object was deleted. It checks every file it
// uploads against the manifest first (a damaged local snapshot is
// refused: snapshot.ErrInvalid), and holds a push lock for the duration
// (ErrLocked while a gc runs on the prefix). Pushing a snapshot the
// bucket holds already uploads nothing and reports Present; pushing one
// whose earlier push was interrupted uploads only what is missing.
func Push(ctx context.Context, b Bucket, dir string, opts PushOptions) (*PushResult, error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.MaxChain <= 0 {
		opts.MaxChain = DefaultMaxChain
	}
	snap, err := snapshot.Open(dir, snapshot.OpenOptions{})
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, format.ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	m := snap.Manifest
	files := distinctFiles(m)
	var parent *snapshot.Snapshot
	if m.Parent != "" && !opts.FullObjects {
		// The parent's files are the bases of patches; without it every
		// file goes whole.
		parent, _ = snapshot.Open(filepath.Join(filepath.Dir(dir), m.Parent), snapshot.OpenOptions{})
	}
	res := &PushResult{ID: m.ID, Files: len(files) + 1, Bytes: int64(len(raw))}
	for _, f := range files {
		res.Bytes += f.Size
	}
	present, damaged, err := manifestPresent(ctx, b, m.ID, raw)
	if err != nil {
		return nil, err
	}
	lock, err := acquireLock(ctx, b, lockPush)
	if err != nil {
		return nil, err
	}
	defer lock.release()

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Concurrency)
	results := make([]uploaded, len(files))
	for i, f := range files {
		g.Go(func() error {
			u, err := pushFile(gctx, b, dir, f, parent, opts.MaxChain)
			if err == nil && u.sent {
				opts.Log.Debug("uploaded", "file", f.name, "patch", u.patched, "bytes", u.bytes)
			}
			results[i] = u
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for _, u := range results {
		if u.sent {
			res.Uploaded++
			res.UploadedBytes += u.bytes
		}
		if u.repaired {
			res.Repaired++
		}
		if u.patched {
			res.Patched++
			if u.sent {
				res.PatchBytes += u.bytes
			}
		}
	}
	if present {
		// Every object it names was checked (and put back if it was
		// missing: someone deleted a damaged one to have it pushed again).
		res.Present = res.Uploaded == 0
		return res, nil
	}
	// Last: from now on readers see the snapshot, and every object it
	// names is in the bucket.
	// A damaged manifest object is overwritten: it is not the manifest of
	// any snapshot, so nothing a reader could trust is lost.
	err = b.Put(ctx, ManifestKey(m.ID), bytes.NewReader(raw), int64(len(raw)), PutOptions{IfAbsent: !damaged, SHA256: sum(raw)})
	if errors.Is(err, ErrExists) {
		// A concurrent push of the same snapshot won.
		if present, _, err := manifestPresent(ctx, b, m.ID, raw); err != nil || present {
			return res, err
		}
		return nil, fmt.Errorf("%w: %s in %s", ErrConflict, m.ID, b)
	}
	if err != nil {
		return nil, fmt.Errorf("push manifest of %s to %s: %w", m.ID, b, err)
	}
	res.Uploaded++
	res.UploadedBytes += int64(len(raw))
	res.RepairedManifest = damaged
	return res, nil
}

// fileObject is one file of a snapshot by its content.
type fileObject struct {
	name string // the first name under which the snapshot holds it
	format.FileInfo
}

// uploaded is what pushFile did: sent bytes (a file object or a patch),
// replacing a damaged object; patched says the bucket holds the file as a
// patch.
type uploaded struct {
	sent, repaired, patched bool
	bytes                   int64
}

// distinctFiles lists the snapshot's files once per content, in name
// order.
func distinctFiles(m *format.Manifest) []fileObject {
	names := make([]string, 0, len(m.Files))
	for name := range m.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	seen := map[string]bool{}
	var out []fileObject
	for _, name := range names {
		fi := m.Files[name]
		if seen[fi.SHA256] {
			continue
		}
		seen[fi.SHA256] = true
		out = append(out, fileObject{name: name, FileInfo: fi})
	}
	return out
}

// manifestPresent reports whether b holds snapshot id with exactly the
// manifest raw. Other bytes under the key are either damaged (they do not
// read as a manifest of id with its checksum: damaged, to be replaced) or
// the manifest of another snapshot under the same id: ErrConflict.
func manifestPresent(ctx context.Context, b Bucket, id string, raw []byte) (present, damaged bool, err error) {
	if _, err := b.Head(ctx, ManifestKey(id)); errors.Is(err, ErrNotFound) {
		return false, false, nil
	} else if err != nil {
		return false, false, fmt.Errorf("push %s to %s: %w", id, b, err)
	}
	same, err := sameBytes(ctx, b, id, raw)
	if err != nil {
		return false, false, fmt.Errorf("push %s to %s: %w", id, b, err)
	}
	if same {
		return true, false, nil
	}
	_, _, err = ReadManifest(ctx, b, id)
	switch {
	case errors.Is(err, ErrCorrupt):
		return false, true, nil
	case errors.Is(err, format.ErrUnknownVersion):
		return false, false, fmt.Errorf("%w: %s in %s is a manifest of another format version (%w); push to another prefix", ErrConflict, id, b, err)
	case err != nil:
		return false, false, fmt.Errorf("push %s to %s: %w", id, b, err)
	}
	return false, false, fmt.Errorf("%w: %s in %s differs from the local one; push to another prefix", ErrConflict, id, b)
}

// pushFile uploads one file unless the bucket holds it already: as a
// file object of its size, or as the patch of the parent's file of the
// same name it would send (pushPatch). An object of the wrong size is
// damaged: it is replaced (the key is the content, so every correct body
// is the same).
func pushFile(ctx context.Context, b Bucket, dir string, f fileObject, parent *snapshot.Snapshot, maxChain int) (uploaded, error) {
	key := FileKey(f.SHA256)
	o, err := b.Head(ctx, key)
	switch {
	case err == nil && o.Size == f.Size:
		return uploaded{}, nil
	case err != nil && !errors.Is(err, ErrNotFound):
		return uploaded{}, fmt.Errorf("push %s: %w", f.name, err)
	}
	repair := err == nil
	if !repair && parent != nil && f.Size >= minPatchedFile {
		if base, ok := parent.Manifest.Files[f.name]; ok && base.SHA256 != f.SHA256 {
			u, ok, err := pushPatch(ctx, b, dir, f, filepath.Join(parent.Dir, filepath.FromSlash(f.name)), base, maxChain)
			if err != nil || ok {
				return u, err
			}
		}
	}
	file, err := os.Open(filepath.Join(dir, filepath.FromSlash(f.name)))
	if err != nil {
		return uploaded{}, fmt.Errorf("push: %w", err)
	}
	defer file.Close()
	// The local file must be what the manifest says before it is
	// published under its checksum.
	h := sha256.New()
	n, err := io.Copy(h, file)
	if err != nil {
		return uploaded{}, fmt.Errorf("push %s: %w", f.name, err)
	}
	if n != f.Size || hex.EncodeToString(h.Sum(nil)) != f.SHA256 {
		return uploaded{}, fmt.Errorf("push %s: %w: %s does not match the manifest (run vaultgraph snapshot verify)", f.name, snapshot.ErrInvalid, file.Name())
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		return uploaded{}, fmt.Errorf("push %s: %w", f.name, err)
	}
	err = b.Put(ctx, key, file, f.Size, PutOptions{IfAbsent: !repair, SHA256: f.SHA256})
	if errors.Is(err, ErrExists) {
		return uploaded{}, nil // a concurrent push uploaded the same content
	}
	if err != nil {
		return uploaded{}, fmt.Errorf("push %s as %s/%s: %w", f.name, b, key, err)
	}
	return uploaded{sent: true, repaired: repair, bytes: f.Size}, nil
}

func sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}
