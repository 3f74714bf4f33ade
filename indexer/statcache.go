package indexer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/vaultgraph/vaultgraph/snapshot"
)

// The stat cache (format: statCacheMagic, then uvarints) is what the last
// run that published or confirmed a snapshot saw of each note file when it
// walked the vault: device, inode, size, modification and change times.
// A run whose parent is that snapshot takes a note whose file still shows
// all five, and whose size and modification time the parent's manifest
// records, as unchanged without opening it, the way git trusts its index:
// an edit of one note in 10,000 then reads one file, not all of them.
//
// A file changed within the same tick of the file system's clock as the
// walk that recorded it would show the same times: an entry is trusted
// only when the file's times are more than statRacyMargin older than that
// walk, so that any later write shows a later time (git's "racily clean"
// rule). A rename over the file (how editors save) changes the inode; a
// change that puts back the size and modification time still changes the
// change time, which no call can set.
//
// The file lives in the data directory beside snapshots/, not in a
// snapshot: inode numbers mean nothing on another machine, and snapshots
// are shipped. It is a cache: absent, damaged, or naming another snapshot
// than the parent, it is ignored and the run reads every note; it is
// replaced (write and rename) after each run, and never fsynced.
const (
	statCacheFile  = "index.stat"
	statCacheMagic = "vgstat2\n"
)

// statCacheTrust bounds how long the cache is trusted: a run reads every
// note when the last run that did is older than this, and starts the
// count again. Times are not a perfect witness: a write through a shared
// memory map moves them only at the first write to a clean page (on
// tmpfs, never), so a note changed that way would otherwise stay stale
// until it changed by other means. Reading every note takes a tenth of a
// second at 10,000 notes; once an hour costs nothing.
var statCacheTrust = time.Hour

// statRacyMargin: a cache entry is trusted only when its file's times are
// this much older than the walk that recorded it (FAT keeps times to 2 s).
// Tests set it to 0.
var statRacyMargin = 3 * time.Second

// fileStat is what the stat cache records of a note file; ok is false
// where the platform does not give it (statOf).
type fileStat struct {
	dev, ino           uint64
	size, mtime, ctime int64 // ns since the epoch for the times
	ok                 bool
}

// statCache is a decoded stat cache.
type statCache struct {
	snapshot string    // the snapshot whose notes the entries describe
	walked   time.Time // when the run that wrote it started its walk
	verified time.Time // when the last run that read every note started its walk
	notes    map[string]fileStat
}

// readStatCache returns the data directory's stat cache when it describes
// parent, nil otherwise.
func readStatCache(data string, parent *snapshot.Snapshot) *statCache {
	if parent == nil {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(data, statCacheFile))
	if err != nil {
		return nil
	}
	c, err := decodeStatCache(b)
	if err != nil || c.snapshot != parent.ID {
		return nil
	}
	return c
}

func decodeStatCache(b []byte) (*statCache, error) {
	rest, ok := bytes.CutPrefix(b, []byte(statCacheMagic))
	if !ok {
		return nil, errors.New("not a stat cache")
	}
	r := bytes.NewReader(rest)
	str := func() (string, error) {
		n, err := binary.ReadUvarint(r)
		if err != nil || n > uint64(r.Len()) {
			return "", errors.New("stat cache cut short")
		}
		s := make([]byte, n)
		_, err = r.Read(s)
		return string(s), err
	}
	num := func() (uint64, error) { return binary.ReadUvarint(r) }
	id, err := str()
	if err != nil {
		return nil, err
	}
	walked, err1 := num()
	verified, err2 := num()
	count, err3 := num()
	if err1 != nil || err2 != nil || err3 != nil || count > uint64(r.Len()) {
		return nil, errors.New("stat cache cut short")
	}
	c := &statCache{snapshot: id, walked: time.Unix(0, int64(walked)), verified: time.Unix(0, int64(verified)),
		notes: make(map[string]fileStat, count)}
	for range count {
		path, err := str()
		if err != nil {
			return nil, err
		}
		var v [5]uint64
		for i := range v {
			if v[i], err = num(); err != nil {
				return nil, errors.New("stat cache cut short")
			}
		}
		c.notes[path] = fileStat{dev: v[0], ino: v[1], size: int64(v[2]), mtime: int64(v[3]), ctime: int64(v[4]), ok: true}
	}
	if r.Len() != 0 {
		return nil, errors.New("stat cache has trailing bytes")
	}
	return c, nil
}

// writeStatCache records what the walk that started at walked saw of
// files, for the runs whose parent is the snapshot id, and when the last
// run that read every note started (verified). Files the platform gives
// no stat for are left out.
func writeStatCache(data, id string, walked, verified time.Time, files []vaultFile) error {
	n := 0
	for _, f := range files {
		if f.stat.ok {
			n++
		}
	}
	str := func(b []byte, s string) []byte { return append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	b := make([]byte, 0, 64+n*72)
	b = str(append(b, statCacheMagic...), id)
	b = binary.AppendUvarint(b, uint64(walked.UnixNano()))
	b = binary.AppendUvarint(b, uint64(verified.UnixNano()))
	b = binary.AppendUvarint(b, uint64(n))
	for _, f := range files {
		if !f.stat.ok {
			continue
		}
		b = str(b, f.Path)
		b = binary.AppendUvarint(b, f.stat.dev)
		b = binary.AppendUvarint(b, f.stat.ino)
		b = binary.AppendUvarint(b, uint64(f.stat.size))
		b = binary.AppendUvarint(b, uint64(f.stat.mtime))
		b = binary.AppendUvarint(b, uint64(f.stat.ctime))
	}
	tmp := filepath.Join(data, statCacheFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("write the stat cache: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(data, statCacheFile)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write the stat cache: %w", err)
	}
	return nil
}

// unchanged reports whether f can be taken as the note parent signed
// without reading it: the cache saw the same file, long enough before its
// walk, and parent recorded the same size and modification time.
func (c *statCache) unchanged(f vaultFile, parent *snapshot.Snapshot) bool {
	if c == nil || !f.stat.ok {
		return false
	}
	e, ok := c.notes[f.Path]
	if !ok || e.dev != f.stat.dev || e.ino != f.stat.ino || e.size != f.stat.size ||
		e.mtime != f.stat.mtime || e.ctime != f.stat.ctime {
		return false
	}
	limit := c.walked.Add(-statRacyMargin).UnixNano()
	if e.mtime >= limit || e.ctime >= limit {
		return false
	}
	sig, ok := parent.Manifest.Notes[f.Path]
	return ok && sig.Size == f.Size && sig.Modified.Equal(f.Modified)
}

// errReadEveryNote is wrapped by the errors of a run that must start again
// reading every note: a note the stat cache vouched for is needed after
// all (its text, by a step that reads texts of unchanged notes only when
// it cannot reuse the parent's work), or it turned out not to be the note
// the parent signed.
var errReadEveryNote = errors.New("a note left unread is needed")

// statCacheApplies reports whether a run may leave notes unread: it has a
// parent, is not --full, parses as the parent did, has no work pending on
// the parent to retry (which embeds texts of unchanged notes), and runs
// only the stages this package knows, whose use of texts it accounts for
// (Build.unread).
func statCacheApplies(parent *snapshot.Snapshot, opts Options) bool {
	if parent == nil || opts.Full || !equalOptions(parent.Manifest.Options, opts.manifestOptions()) {
		return false
	}
	for _, st := range opts.Stages {
		switch st.(type) {
		case *EmbedStage, BM25Stage, *BM25Stage, GraphStage, *GraphStage:
		default:
			return false
		}
	}
	retry, rebuild := pendingWork(parent, opts.Stages)
	return len(retry) == 0 && !rebuild
}

// keepStatCache writes the stat cache for snapshot id, logging a failure:
// without it the next run reads every note, as before.
func keepStatCache(data, id string, walked, verified time.Time, files []vaultFile, log interface {
	Warn(msg string, args ...any)
}) {
	if !slices.ContainsFunc(files, func(f vaultFile) bool { return f.stat.ok }) {
		return // the platform gives no stats: nothing to cache
	}
	if err := writeStatCache(data, id, walked, verified, files); err != nil {
		log.Warn("the next run will read every note", "err", err)
	}
}

// differs reports whether files are not exactly what the cache records.
func (c *statCache) differs(files []vaultFile) bool {
	n := 0
	for _, f := range files {
		if !f.stat.ok {
			continue
		}
		n++
		if e, ok := c.notes[f.Path]; !ok || e != f.stat {
			return true
		}
	}
	return n != len(c.notes)
}
