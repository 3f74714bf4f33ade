package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/vaultgraph/vaultgraph/format"
)

// signature identifies the state of a snapshot directory's files by name,
// size and modification time, without reading them. A rejected snapshot is
// tried again only when its signature changes: a copy that was still being
// written when it was first seen is picked up once complete, and a damaged
// one is not re-read on every rescan.
func signature(dir string) string {
	h := sha256.New()
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		if err != nil {
			fmt.Fprintf(h, "%s error\n", rel)
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			fmt.Fprintf(h, "%s gone\n", rel)
			return nil
		}
		fmt.Fprintf(h, "%s %v %d %d\n", rel, fi.IsDir(), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}

// vanished reports whether a snapshot is no longer published, as when
// garbage collection removed it between listing and opening.
func vanished(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, format.ManifestFile))
	return errors.Is(err, fs.ErrNotExist)
}
