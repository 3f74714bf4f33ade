package format

import (
	"crypto/rand"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// NewSnapshotID returns a ULID for a snapshot created at t that sorts after
// the id after (the newest existing snapshot, or ""). A clock that went
// backwards therefore never produces an id that sorts before its parent, so
// "newest" always means "highest id".
func NewSnapshotID(t time.Time, after string) string {
	ms := ulid.Timestamp(t)
	if prev, err := ulid.ParseStrict(after); err == nil && ms <= prev.Time() {
		ms = prev.Time() + 1
	}
	return ulid.MustNew(ms, rand.Reader).String()
}

// ValidSnapshotID reports whether name is a well-formed snapshot id. Readers
// use it to skip every other name in the snapshots directory, temporary
// build directories included.
func ValidSnapshotID(name string) bool {
	_, err := ulid.ParseStrict(name)
	return err == nil
}

// SnapshotTime returns the creation time encoded in a snapshot id.
func SnapshotTime(id string) (time.Time, error) {
	u, err := ulid.ParseStrict(id)
	if err != nil {
		return time.Time{}, fmt.Errorf("snapshot id %q: %w", id, err)
	}
	return ulid.Time(u.Time()), nil
}

// NoteFolder returns the vault-relative folder of a note path, "" for the
// vault root.
func NoteFolder(notePath string) string {
	dir := path.Dir(notePath)
	if dir == "." || dir == "/" {
		return ""
	}
	return dir
}

// NoteTitleFromPath returns the title a note has when its frontmatter sets
// none: its file name without the .md extension.
func NoteTitleFromPath(notePath string) string {
	base := path.Base(notePath)
	if ext := path.Ext(base); strings.EqualFold(ext, ".md") {
		base = base[:len(base)-len(ext)]
	}
	return base
}

// EdgeID is the derived id of an edge: source#type#target#n, where n is the
// edge's ordinal among edges with the same source, type and target (0 for the
// first). Authors pin a stable id with an "id" edge property instead.
func EdgeID(source, edgeType, target string, n int) string {
	return source + "#" + edgeType + "#" + target + "#" + strconv.Itoa(n)
}

// ChunkID is the id of the ordinal-th chunk (from 0) of a note.
func ChunkID(note string, ordinal int) string {
	return note + "#" + strconv.Itoa(ordinal)
}
