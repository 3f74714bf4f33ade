package bucket

import (
	"context"
	"errors"
	"fmt"
)

// GCOptions choose what GC removes.
type GCOptions struct {
	// Keep is how many of the newest snapshots are kept, at least 1.
	Keep int
	// DryRun reports what would be removed and removes nothing.
	DryRun bool
}

// GCResult reports what GC removed (or would remove).
type GCResult struct {
	// Removed are the snapshots whose manifests were removed, oldest
	// first; Kept those kept.
	Removed, Kept []string
	// Files and Bytes count the file and patch objects removed: those
	// no kept snapshot needs (the removed snapshots' own, and what
	// interrupted pushes left). A patch a kept file is made with is kept,
	// and so is everything that makes its base.
	Files int
	Bytes int64
	// StaleLocks are lock objects of crashed pushes and gcs removed.
	StaleLocks []string
}

// GC removes all but the newest opts.Keep snapshots of b, then every file
// and patch object that no kept snapshot needs (a patch is needed while a
// kept file is made with it, and so is whatever makes its base). It holds a gc lock, which no push
// or other gc may hold at the same time (ErrLocked), so that it never
// deletes a file object that a push in progress counts on. Manifests go
// first, so that no listed snapshot ever lacks a file; a kept manifest
// that does not read stops GC before it deletes any file object. GC never
// deletes an object a kept snapshot needs.
func GC(ctx context.Context, b Bucket, opts GCOptions) (*GCResult, error) {
	if opts.Keep < 1 {
		return nil, fmt.Errorf("gc %s: keep %d snapshots? at least 1: the newest snapshot is never removed", b, opts.Keep)
	}
	lock, err := acquireLock(ctx, b, lockGC)
	if err != nil {
		return nil, err
	}
	defer lock.release()
	own, err := b.Head(ctx, lock.key)
	if err != nil {
		return nil, fmt.Errorf("gc %s: %w", b, err)
	}
	ids, err := Snapshots(ctx, b)
	if err != nil {
		return nil, err
	}
	res := &GCResult{}
	cut := max(len(ids)-opts.Keep, 0)
	res.Removed, res.Kept = ids[:cut], ids[cut:]
	needed := map[string]bool{}
	for _, id := range res.Kept {
		_, m, err := ReadManifest(ctx, b, id)
		if err != nil {
			return nil, fmt.Errorf("gc %s: a kept snapshot's manifest does not read, so its files are unknown; nothing was removed: %w", b, err)
		}
		for _, fi := range m.Files {
			needed[fi.SHA256] = true
		}
	}
	if !opts.DryRun {
		for _, id := range res.Removed {
			if err := b.Delete(ctx, ManifestKey(id)); err != nil {
				return res, fmt.Errorf("gc %s: remove snapshot %s: %w", b, id, err)
			}
		}
	}
	objs, err := b.List(ctx, filesDir)
	if err != nil {
		return res, fmt.Errorf("gc %s: %w", b, err)
	}
	patches, err := b.List(ctx, patchesDir)
	if err != nil {
		return res, fmt.Errorf("gc %s: %w", b, err)
	}
	keep := chainsOf(needed, objs, patches)
	var errs []error
	for _, o := range append(objs, patches...) {
		if keep[o.Key] {
			continue
		}
		if _, ok := sumOfFileKey(o.Key); !ok {
			if _, _, ok := sumsOfPatchKey(o.Key); !ok {
				continue // not an object of the layout
			}
		}
		if !opts.DryRun {
			if err := b.Delete(ctx, o.Key); err != nil {
				errs = append(errs, fmt.Errorf("gc %s: remove %s: %w", b, o.Key, err))
				continue
			}
		}
		res.Files++
		res.Bytes += o.Size
	}
	stale, err := staleLocks(ctx, b, own.Modified, lock.key)
	if err != nil {
		errs = append(errs, fmt.Errorf("gc %s: %w", b, err))
	}
	for _, o := range stale {
		if !opts.DryRun {
			if err := b.Delete(ctx, o.Key); err != nil {
				errs = append(errs, fmt.Errorf("gc %s: remove stale lock %s: %w", b, o.Key, err))
				continue
			}
		}
		res.StaleLocks = append(res.StaleLocks, o.Key)
	}
	return res, errors.Join(errs...)
}

// chainsOf returns the keys of the objects that make the contents needed:
// a content's file object, or, when the bucket holds none, every patch of
// it and what makes each patch's base, down to file objects.
func chainsOf(needed map[string]bool, files, patches []Object) map[string]bool {
	full := map[string]string{}
	for _, o := range files {
		if s, ok := sumOfFileKey(o.Key); ok {
			full[s] = o.Key
		}
	}
	patchesOf := map[string][]string{} // target -> patch keys
	for _, o := range patches {
		if t, _, ok := sumsOfPatchKey(o.Key); ok {
			patchesOf[t] = append(patchesOf[t], o.Key)
		}
	}
	keep := map[string]bool{}
	seen := map[string]bool{}
	var mark func(sum string)
	mark = func(sum string) {
		if seen[sum] {
			return
		}
		seen[sum] = true
		if key, ok := full[sum]; ok {
			keep[key] = true
			return
		}
		for _, key := range patchesOf[sum] {
			keep[key] = true
			_, base, _ := sumsOfPatchKey(key)
			mark(base)
		}
	}
	for sum := range needed {
		mark(sum)
	}
	return keep
}
