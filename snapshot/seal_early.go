package snapshot

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// early is what a Writer sealed before Publish (SealEarly).
type early struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	files map[string]earlyFile // by relative path
}

// earlyFile is a file sealed early, with the size and modification time
// it had when it was read.
type earlyFile struct {
	info     format.FileInfo
	size     int64
	modified time.Time
}

// SealEarly starts hashing and fsyncing the named files of Dir (paths
// relative to it, slash-separated) in the background, so that Publish
// need not: the tables while the stages still compute, a stage's files
// once it has returned. Files linked from a parent (Link) are skipped:
// Publish takes them from the parent's record. The caller promises that
// the files are complete and that nothing writes them again; Publish
// seals again a file whose size or modification time has changed since,
// or that failed to seal. Like Link, SealEarly is not safe for concurrent
// use; Publish and Abort wait for the files it is sealing.
func (w *Writer) SealEarly(rels ...string) {
	rels = slices.DeleteFunc(slices.Clone(rels), func(rel string) bool {
		_, ok := w.linked[rel]
		return ok
	})
	if len(rels) == 0 {
		return
	}
	w.early.wg.Add(1)
	go func() {
		defer w.early.wg.Done()
		for _, rel := range rels {
			path := filepath.Join(w.tmp, filepath.FromSlash(rel))
			before, err := os.Stat(path)
			if err != nil || !before.Mode().IsRegular() {
				continue
			}
			info, err := hashAndSync(path)
			if err != nil {
				continue // Publish seals it and reports the error
			}
			w.early.mu.Lock()
			if w.early.files == nil {
				w.early.files = map[string]earlyFile{}
			}
			w.early.files[rel] = earlyFile{info: info, size: before.Size(), modified: before.ModTime()}
			w.early.mu.Unlock()
		}
	}()
}

// sealed returns what SealEarly recorded of rel if the file at path is
// still as it was then; it must be called after the background seals
// have ended.
func (e *early) sealed(rel string, fi os.FileInfo) (format.FileInfo, bool) {
	if e == nil {
		return format.FileInfo{}, false
	}
	f, ok := e.files[rel]
	if !ok || fi.Size() != f.size || fi.Size() != f.info.Size || !fi.ModTime().Equal(f.modified) {
		return format.FileInfo{}, false
	}
	return f.info, true
}
