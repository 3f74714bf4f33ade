package indexer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/format/glob"
)

// vaultFile is one note file found in the vault.
type vaultFile struct {
	Path     string // vault-relative, slash-separated: the note's id
	Abs      string // where to read it (possibly through a symlink)
	Size     int64
	Modified time.Time
	stat     fileStat // for the stat cache
}

// walker lists the notes of a vault. It skips dot-folders (.obsidian,
// .trash, .git, ...) and ignored paths, follows symlinks only while they
// stay inside the vault, and records a warning for every file it cannot
// take instead of failing.
type walker struct {
	root     string // real path of the vault root
	ignore   *glob.Set
	maxBytes int64
	files    []vaultFile
	warnings []format.Warning
	visited  map[string]string // real dir path -> vault path first seen at
	links    []link            // symlinks found, followed once the folders are walked
}

// link is a symlink found in a folder: abs is where it lies (its folder's
// real path joined with its name), rel its vault path.
type link struct{ abs, rel string }

func walkVault(root string, ignore *glob.Set, maxBytes int64) ([]vaultFile, []format.Warning, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, nil, fmt.Errorf("open vault: %w", err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, nil, fmt.Errorf("open vault: %w", err)
	}
	if !fi.IsDir() {
		return nil, nil, fmt.Errorf("open vault: %s is not a folder", root)
	}
	w := &walker{root: real, ignore: ignore, maxBytes: maxBytes, visited: map[string]string{}}
	if err := w.dir(real, ""); err != nil {
		return nil, nil, err
	}
	// Symlinks are followed only once every real folder is walked, so that
	// a folder reached both by its own path and through a symlink is
	// indexed at its own path whatever the names sort like. Following a
	// link may find more links; they queue behind it.
	for i := 0; i < len(w.links); i++ {
		w.symlink(w.links[i].abs, w.links[i].rel)
	}
	sort.Slice(w.files, func(i, j int) bool { return w.files[i].Path < w.files[j].Path })
	w.warnings = append(w.warnings, caseConflicts(w.files)...)
	return w.files, w.warnings, nil
}

// dir lists one folder; abs is its real path (the walk only ever descends
// through resolved paths), rel its vault path. Symlinks in it are queued
// in w.links, not followed yet. A folder already walked is skipped: below
// a symlinked folder the walk can meet a folder it has indexed elsewhere.
func (w *walker) dir(abs, rel string) error {
	if first, seen := w.visited[abs]; seen {
		w.warn(rel, format.WarnSymlinkLoop, fmt.Sprintf("reached again through a symlink; the folder is indexed as %s; skipped", folderName(first)))
		return nil
	}
	w.visited[abs] = rel
	entries, err := os.ReadDir(abs)
	if err != nil {
		if rel == "" {
			return fmt.Errorf("read vault: %w", err)
		}
		w.warn(rel, format.WarnUnreadable, fmt.Sprintf("folder not indexed: %v", err))
		return nil
	}
	for _, de := range entries {
		name := de.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		childRel := path.Join(rel, name)
		if w.ignore.Match(childRel) {
			continue
		}
		if !utf8.ValidString(name) {
			// A note's path is its id in every table and query, and
			// the graph engine refuses strings that are not UTF-8.
			w.warn(strings.ToValidUTF8(childRel, "\uFFFD"), format.WarnInvalidName,
				"the name is not valid UTF-8; not indexed (rename it)")
			continue
		}
		if err := w.entry(filepath.Join(abs, name), childRel, de); err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) entry(abs, rel string, de fs.DirEntry) error {
	switch {
	case de.Type()&fs.ModeSymlink != 0:
		w.links = append(w.links, link{abs: abs, rel: rel})
	case de.IsDir():
		return w.dir(abs, rel)
	case de.Type().IsRegular() && isNoteName(rel):
		fi, err := de.Info()
		if err != nil {
			w.warn(rel, format.WarnUnreadable, err.Error())
			return nil
		}
		w.file(abs, rel, fi)
	}
	return nil
}

// symlink follows a link only when its target is inside the vault, and
// never into a folder already walked: a folder the walk reached by its own
// path (or through an earlier link) is indexed there only, and a link to a
// folder that contains it would be a cycle.
func (w *walker) symlink(abs, rel string) {
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) || strings.Contains(err.Error(), "too many links") {
			w.warn(rel, format.WarnSymlinkLoop, "symlink loops back on itself; skipped")
		} else if isNoteName(rel) {
			w.warn(rel, format.WarnUnreadable, fmt.Sprintf("broken symlink: %v", err))
		}
		return
	}
	if !within(target, w.root) {
		w.warn(rel, format.WarnSymlinkOutside, "symlink points outside the vault; skipped")
		return
	}
	fi, err := os.Stat(target)
	if err != nil {
		w.warn(rel, format.WarnUnreadable, err.Error())
		return
	}
	if fi.Mode().IsRegular() && isNoteName(rel) {
		w.file(target, rel, fi)
	}
	if !fi.IsDir() {
		return
	}
	// format has one kind for both a cycle and a duplicate; the message
	// tells them apart.
	first, seen := w.visited[target]
	switch {
	case seen && within(filepath.Dir(abs), target):
		w.warn(rel, format.WarnSymlinkLoop, fmt.Sprintf("symlink to %s, a folder that contains it (a cycle); skipped", folderName(first)))
	case seen:
		w.warn(rel, format.WarnSymlinkLoop, fmt.Sprintf("symlink to %s, a folder already in the vault; skipped (its notes are indexed there)", folderName(first)))
	default:
		_ = w.dir(target, rel) // dir fails only on the vault root, which is seen
	}
}

// within reports whether p is dir or below it; both are clean real paths.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// folderName names a folder by its vault path in a warning.
func folderName(rel string) string {
	if rel == "" {
		return "the vault root"
	}
	return strconv.Quote(rel)
}

func (w *walker) file(abs, rel string, fi fs.FileInfo) {
	if fi.Size() > w.maxBytes {
		w.warn(rel, format.WarnTooLarge, tooLarge(w.maxBytes))
		return
	}
	w.files = append(w.files, vaultFile{Path: rel, Abs: abs, Size: fi.Size(), Modified: fi.ModTime(), stat: statOf(fi)})
}

// tooLarge is the message of a too-large warning. It names the limit, not
// the file's size: a note that stays over the limit (a growing log) keeps
// the same warning, so it publishes no snapshot and raises no new warning.
// The walk and the read (for a file that grew in between) say the same.
func tooLarge(maxBytes int64) string {
	return fmt.Sprintf("over the %d-byte limit; not indexed (raise --max-note-bytes)", maxBytes)
}

func (w *walker) warn(rel, kind, msg string) {
	w.warnings = append(w.warnings, format.Warning{File: rel, Kind: kind, Message: msg})
}

func isNoteName(rel string) bool {
	return strings.EqualFold(path.Ext(rel), ".md")
}

// caseConflicts reports paths that differ only by case: they are distinct
// notes here but one file on case-insensitive systems, and links to them
// resolve to the exact-case match first.
func caseConflicts(files []vaultFile) []format.Warning {
	seen := make(map[string]string, len(files))
	var out []format.Warning
	for _, f := range files {
		k := strings.ToLower(f.Path)
		if first, ok := seen[k]; ok {
			out = append(out, format.Warning{File: f.Path, Kind: format.WarnPathConflict,
				Message: fmt.Sprintf("differs from %q only by case; links resolve to the exact-case match first", first)})
			continue
		}
		seen[k] = f.Path
	}
	return out
}
