package bucket

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// PullOptions configure Pull.
type PullOptions struct {
	// LockWait is how long to wait for an indexer, import or other pull
	// holding the data directory's lock.
	LockWait time.Duration
	// Log receives one line per downloaded file at debug level.
	Log *slog.Logger
	// Concurrency is how many files are downloaded at once (default 4).
	Concurrency int
}

// PullResult reports a pull.
type PullResult struct {
	ID  string
	Dir string
	// Present says the data directory held this snapshot already, with
	// the same manifest: nothing was written.
	Present bool
	// Files and Bytes are the snapshot's files (manifest included).
	Files int
	Bytes int64
	// Downloaded and DownloadedBytes count what came from the bucket;
	// Linked and LinkedBytes the files hard-linked from a local snapshot
	// holding the same content.
	Downloaded      int
	DownloadedBytes int64
	Linked          int
	LinkedBytes     int64
	// Patched counts the downloaded files made by applying patches
	// (to a local snapshot's file, or to one made so first); their
	// DownloadedBytes are the patches'.
	Patched int
	// Newest is the newest local snapshot afterwards: a server never
	// swaps to an older snapshot than the one it serves.
	Newest string
}

// Pull downloads snapshot id ("" or "latest": the newest) of b into the
// data directory dataDir and publishes it there with the guarantees of
// snapshot.Writer.PublishCopy. Every file is hashed as it is written and
// compared with the manifest; one that does not match fails the pull
// with ErrCorrupt, naming the object to delete before pushing again. A
// file that a local snapshot already holds with the same sha256 is
// hard-linked from it instead of downloaded (and checked again all the
// same). On any error nothing is published and the temporary directory is
// removed. Pull holds the data directory's lock while it writes, like an
// indexer or an import. A snapshot already present with the same manifest
// is reported Present; one present under the id with another manifest is
// refused (snapshot.ErrExists).
func Pull(ctx context.Context, b Bucket, dataDir, id string, opts PullOptions) (res *PullResult, err error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if id, err = Resolve(ctx, b, id); err != nil {
		return nil, err
	}
	raw, m, err := ReadManifest(ctx, b, id)
	if err != nil {
		return nil, err
	}
	res = &PullResult{ID: id, Dir: snapshot.Dir(dataDir, id), Files: len(m.Files) + 1, Bytes: int64(len(raw))}
	for _, fi := range m.Files {
		res.Bytes += fi.Size
	}
	if res.Present, err = localPresent(dataDir, id, raw); err != nil || res.Present {
		if err == nil {
			res.Newest, err = newestLocal(dataDir)
		}
		return res, err
	}
	release, err := snapshot.Lock(ctx, dataDir, opts.LockWait)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, release()) }()
	if _, err := snapshot.RemoveLeftovers(dataDir); err != nil {
		return nil, err
	}
	local, err := localFiles(dataDir)
	if err != nil {
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
	names := make([]string, 0, len(m.Files))
	for name := range m.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	// Links first, on this goroutine; then the downloads, a few at a
	// time: one stream rarely fills the link to a store.
	var fetch []string
	for _, name := range names {
		want := m.Files[name]
		dst := filepath.Join(w.Dir(), filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return nil, fmt.Errorf("pull %s: %w", name, err)
		}
		if src, ok := local[want]; ok && os.Link(src, dst) == nil {
			res.Linked++
			res.LinkedBytes += want.Size
			continue
		}
		fetch = append(fetch, name)
	}
	bySum := make(map[string]string, len(local))
	for fi, path := range local {
		bySum[fi.SHA256] = path
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(opts.Concurrency, 1))
	got := make([]struct {
		bytes   int64
		patched bool
	}, len(fetch))
	for i, name := range fetch {
		want := m.Files[name]
		g.Go(func() error {
			dst := filepath.Join(w.Dir(), filepath.FromSlash(name))
			n, patched, err := materialize(gctx, b, bySum, dst, name, want.SHA256, want.Size, 0)
			if err != nil {
				return err
			}
			got[i].bytes, got[i].patched = n, patched
			opts.Log.Debug("downloaded", "file", name, "patched", patched, "bytes", n)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for _, d := range got {
		res.Downloaded++
		res.DownloadedBytes += d.bytes
		if d.patched {
			res.Patched++
		}
	}
	res.Downloaded++ // the manifest
	res.DownloadedBytes += int64(len(raw))
	if res.Dir, err = w.PublishCopy(raw); err != nil {
		return nil, err
	}
	if res.Newest, err = newestLocal(dataDir); err != nil {
		return nil, err
	}
	return res, nil
}

func sizeWord(n, want int64) string {
	if n > want {
		return "more than " + fmt.Sprint(want)
	}
	return fmt.Sprint(n)
}

// localFiles maps the content of every file of the local snapshots (as
// their manifests declare it) to one path holding it. PublishCopy checks
// a linked file again, so a damaged local file fails the pull rather than
// spreading.
func localFiles(dataDir string) (map[format.FileInfo]string, error) {
	entries, err := snapshot.List(dataDir)
	if err != nil {
		return nil, err
	}
	out := map[format.FileInfo]string{}
	for _, e := range entries {
		s, err := snapshot.Open(e.Dir, snapshot.OpenOptions{})
		if err != nil {
			continue // a damaged snapshot lends nothing
		}
		for name, fi := range s.Manifest.Files {
			if _, ok := out[fi]; !ok {
				out[fi] = filepath.Join(e.Dir, filepath.FromSlash(name))
			}
		}
	}
	return out, nil
}

// localPresent reports whether dataDir holds snapshot id with the manifest
// raw; snapshot.ErrExists when it holds something else under that id.
func localPresent(dataDir, id string, raw []byte) (bool, error) {
	dir := snapshot.Dir(dataDir, id)
	have, err := os.ReadFile(filepath.Join(dir, format.ManifestFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, serr := os.Lstat(dir); errors.Is(serr, fs.ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("%w: %s exists without a manifest; remove it and pull again", snapshot.ErrExists, dir)
	case err != nil:
		return false, fmt.Errorf("pull %s: %w", id, err)
	case !bytes.Equal(have, raw):
		return false, fmt.Errorf("%w: %s holds another snapshot with the same id; nothing was pulled", snapshot.ErrExists, dir)
	}
	return true, nil
}

func newestLocal(dataDir string) (string, error) {
	entries, err := snapshot.List(dataDir)
	if err != nil || len(entries) == 0 {
		return "", err
	}
	return entries[len(entries)-1].ID, nil
}
