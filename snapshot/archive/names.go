package archive

import (
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/vaultgraph/vaultgraph/format"
)

// maxManifestBytes bounds the manifest Import reads into memory. A
// 100,000-note vault's manifest is about 20 MB.
const maxManifestBytes = 256 << 20

// splitEntry splits a tar entry name "<id>/<rel>" into the snapshot id and
// the file's path inside the snapshot. ok is false for any name that is
// not exactly that shape with a clean, local rel; rel is "" for the
// snapshot's own directory entry.
func splitEntry(name string) (id, rel string, ok bool) {
	id, rel, _ = strings.Cut(name, "/")
	if !format.ValidSnapshotID(id) {
		return "", "", false
	}
	rel = strings.TrimSuffix(rel, "/")
	if rel == "" {
		return id, "", true
	}
	return id, rel, validRel(rel)
}

// validRel reports whether rel is a path that stays inside the directory it
// is joined to on every platform: relative, slash-separated, clean, no "."
// or ".." element, no backslash or NUL, valid UTF-8.
func validRel(rel string) bool {
	if rel == "" || len(rel) > 4096 || !utf8.ValidString(rel) || strings.ContainsAny(rel, "\\\x00") {
		return false
	}
	if path.IsAbs(rel) || path.Clean(rel) != rel {
		return false
	}
	for _, elem := range strings.Split(rel, "/") {
		if elem == "." || elem == ".." || elem == "" {
			return false
		}
	}
	return filepath.IsLocal(filepath.FromSlash(rel))
}
