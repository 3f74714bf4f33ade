package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// checkVault: the vault is a readable folder of notes, and neither it nor
// the data directory lies inside the other.
func (st *state) checkVault(context.Context) Check {
	c := Check{Name: "vault"}
	vault, data := st.cfg.Vault, st.cfg.Data
	if vault == "" {
		c.Status, c.Summary = Info, "no vault named and no snapshot records one"
		c.Fix = "pass --vault DIR to check the vault too"
		return c
	}
	fi, err := os.Stat(vault)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail(c, fmt.Sprintf("%s does not exist", vault),
			"mount or restore it, or index the vault's new place with --vault")
	case err != nil:
		return fail(c, fmt.Sprintf("%s cannot be read: %v", vault, err), "check its permissions")
	case !fi.IsDir():
		return fail(c, fmt.Sprintf("%s is not a folder", vault), "pass the vault's root folder as --vault")
	}
	if inside(data, vault) {
		return fail(c, fmt.Sprintf("the data directory %s is inside the vault %s", data, vault),
			"move the data directory out of the vault (vaultgraph never writes to a vault)")
	}
	if inside(vault, data) {
		return fail(c, fmt.Sprintf("the vault %s is inside the data directory %s", vault, data),
			"keep the vault and the data directory apart")
	}
	if looksLikeData(vault) {
		return fail(c, fmt.Sprintf("%s holds %s/ or %s: it is a data directory, not a vault", vault, format.SnapshotsDir, format.LockFile),
			"--vault and --data may be swapped")
	}
	notes, err := countNotes(vault)
	if err != nil {
		return fail(c, fmt.Sprintf("%s cannot be read: %v", vault, err), "check its permissions")
	}
	if notes == 0 {
		c.Status, c.Summary = Warn, fmt.Sprintf("%s holds no Markdown notes", vault)
		c.Fix = "check that --vault names the vault's root folder"
		return c
	}
	c.Status, c.Summary = OK, fmt.Sprintf("%s: %d notes, readable, apart from the data directory", vault, notes)
	if st.newest != nil && st.newest.VaultRoot != "" && !samePath(st.newest.VaultRoot, vault) {
		c.Status = Warn
		c.Details = append(c.Details, fmt.Sprintf("the newest snapshot was built from %s, not %s", st.newest.VaultRoot, vault))
		c.Fix = "one data directory per vault: give this vault a data directory of its own"
	}
	return c
}

// checkData: the data directory exists (or can be created) and may be
// written, and holds no notes of its own.
func (st *state) checkData(context.Context) Check {
	c := Check{Name: "data"}
	data := st.cfg.Data
	fi, err := os.Stat(data)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		parent := existingParent(data)
		if werr := unix.Access(parent, unix.W_OK); werr != nil {
			return fail(c, fmt.Sprintf("%s does not exist and %s cannot be written (%v)", data, parent, werr),
				"create it, or pass a --data directory you may write")
		}
		c.Status, c.Summary = Info, fmt.Sprintf("%s does not exist yet; the first index run creates it", data)
		c.Fix = "run vaultgraph index --vault VAULT --data " + data
		return c
	case err != nil:
		return fail(c, fmt.Sprintf("%s cannot be read: %v", data, err), "check its permissions")
	case !fi.IsDir():
		return fail(c, fmt.Sprintf("%s is not a folder", data), "pass a folder as --data")
	}
	if err := unix.Access(data, unix.W_OK); err != nil {
		return fail(c, fmt.Sprintf("%s cannot be written: %v", data, err),
			"the indexer needs to write here: fix its permissions or mount, or move it")
	}
	// The folders the indexer and the servers write in: a data directory
	// restored from a backup or copied as another user often has them
	// with the wrong owner while its top is right (review5 F15).
	for _, sub := range []string{snapshot.SnapshotsDir(data), filepath.Join(data, format.LeasesDir)} {
		if _, err := os.Stat(sub); err != nil {
			continue
		}
		if err := unix.Access(sub, unix.W_OK); err != nil {
			return fail(c, fmt.Sprintf("%s cannot be written: %v", sub, err),
				"the indexer and the servers write here: fix its owner or permissions (chown -R the data directory to the user the indexer runs as)")
		}
	}
	if n := notesOutsideSnapshots(data); n > 0 {
		return fail(c, fmt.Sprintf("%s holds %d Markdown notes: it looks like a vault", data, n),
			"--vault and --data may be swapped")
	}
	c.Status, c.Summary = OK, fmt.Sprintf("%s is writable, %s", data, plural(len(st.entries), "snapshot"))
	return c
}

func fail(c Check, summary, fix string) Check {
	c.Status, c.Summary, c.Fix = Fail, summary, fix
	return c
}

// inside reports whether path is dir or below it, symlinks resolved.
func inside(path, dir string) bool {
	path, dir = realPath(path), realPath(dir)
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

func samePath(a, b string) bool { return realPath(a) == realPath(b) }

// realPath resolves symlinks of the longest existing prefix of p.
func realPath(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, base := filepath.Split(p)
	if dir == "" || filepath.Clean(dir) == p {
		return p
	}
	return filepath.Join(realPath(filepath.Clean(dir)), base)
}

func existingParent(p string) string {
	for {
		if _, err := os.Stat(p); err == nil {
			return p
		}
		next := filepath.Dir(p)
		if next == p {
			return p
		}
		p = next
	}
}

// looksLikeData reports whether dir holds what a data directory holds.
func looksLikeData(dir string) bool {
	for _, name := range []string{format.SnapshotsDir, format.LockFile} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// countNotes counts the Markdown files below vault, skipping hidden
// folders as the indexer does.
func countNotes(vault string) (int, error) { return countMarkdown(vault, nil) }

// notesOutsideSnapshots counts the Markdown files of a data directory
// outside what vaultgraph keeps there.
func notesOutsideSnapshots(data string) int {
	n, _ := countMarkdown(data, []string{format.SnapshotsDir, "leases"})
	return n
}

// countMarkdown counts the Markdown files below root, skipping hidden
// folders and the top-level folders named in skip.
func countMarkdown(root string, skip []string) (int, error) {
	n := 0
	vault := root
	err := filepath.WalkDir(vault, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == vault {
				return err
			}
			return nil
		}
		if d.IsDir() && p != vault && (strings.HasPrefix(d.Name(), ".") ||
			(filepath.Dir(p) == vault && slices.Contains(skip, d.Name()))) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".md") {
			n++
		}
		return nil
	})
	return n, err
}

// plural writes n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
