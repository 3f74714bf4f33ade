package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// Repo is a repository opened for reading.
type Repo struct {
	root string
	repo *git.Repository
}

// Open opens the repository whose working tree is root. It fails with a
// message saying what to check when root is not the top of a git working
// tree.
func Open(root string) (*Repo, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("repository path: %w", err)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("open repository %s: it does not exist", abs)
	case err != nil:
		return nil, fmt.Errorf("open repository %s: %w", abs, err)
	case !fi.IsDir():
		return nil, fmt.Errorf("open repository %s: not a folder; give the top folder of a git working tree", abs)
	}
	r, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return nil, fmt.Errorf("open repository %s: not the top folder of a git working tree (no .git there)", abs)
		}
		return nil, fmt.Errorf("open repository %s: %w", abs, err)
	}
	// A bare repository has no working tree: its files would all be
	// missing, and every code link would read as broken.
	if _, err := r.Worktree(); errors.Is(err, git.ErrIsBareRepository) {
		return nil, fmt.Errorf("open repository %s: a bare repository has no working tree; give a checkout (git clone %s DIR)", abs, abs)
	}
	return &Repo{root: abs, repo: r}, nil
}

// Root is the absolute path of the working tree.
func (r *Repo) Root() string { return r.root }

// Head returns the commit HEAD names, "" in a repository without commits.
func (r *Repo) Head() (string, error) {
	ref, err := r.repo.Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	return ref.Hash().String(), nil
}

// File is one tracked file as it is in the working tree.
type File struct {
	// Path is the repository path, slash-separated.
	Path string
	// Blob is the git blob hash (hex) of the working tree's content: the
	// index's hash when the file's size and modification time are as the
	// index recorded them (git's own rule), otherwise computed from the
	// content.
	Blob string
	Size int64
	// Content is the file's bytes when they were read to compute Blob; nil
	// otherwise (call Read).
	Content []byte
}

// Skipped is a tracked file that is not read, and why.
type Skipped struct {
	Path, Reason string
}

// Tracked lists the regular files tracked in the index that exist in the
// working tree and that keep accepts, in index order (sorted by path).
// Files larger than maxBytes, symlinks and submodules are skipped and
// reported; files deleted from the working tree are left out silently, as
// git status would show them deleted.
func (r *Repo) Tracked(ctx context.Context, keep func(path string) bool, maxBytes int64) ([]File, []Skipped, error) {
	idx, err := r.repo.Storer.Index()
	if err != nil {
		return nil, nil, fmt.Errorf("read git index of %s: %w", r.root, err)
	}
	var (
		files   []File
		skipped []Skipped
		seen    = make(map[string]bool, len(idx.Entries))
	)
	for _, e := range idx.Entries {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if seen[e.Name] || (keep != nil && !keep(e.Name)) {
			continue
		}
		seen[e.Name] = true
		switch e.Mode {
		case filemode.Submodule:
			skipped = append(skipped, Skipped{e.Name, "submodule"})
			continue
		case filemode.Symlink:
			skipped = append(skipped, Skipped{e.Name, "symlink"})
			continue
		}
		f, reason, err := r.readEntry(e, maxBytes)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case reason == "deleted":
		case reason != "":
			skipped = append(skipped, Skipped{e.Name, reason})
		default:
			files = append(files, f)
		}
	}
	return files, skipped, nil
}

func (r *Repo) readEntry(e *index.Entry, maxBytes int64) (File, string, error) {
	p := filepath.Join(r.root, filepath.FromSlash(e.Name))
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return File{}, "deleted", nil
	}
	if err != nil {
		return File{}, fmt.Sprintf("unreadable: %v", err), nil
	}
	if !fi.Mode().IsRegular() {
		return File{}, "not a regular file in the working tree", nil
	}
	if fi.Size() > maxBytes {
		return File{}, fmt.Sprintf("larger than %d bytes", maxBytes), nil
	}
	f := File{Path: e.Name, Size: fi.Size()}
	if int64(e.Size) == fi.Size() && sameTime(e.ModifiedAt, fi.ModTime()) && !e.Hash.IsZero() {
		f.Blob = e.Hash.String()
		return f, "", nil
	}
	content, err := os.ReadFile(p)
	if err != nil {
		return File{}, fmt.Sprintf("unreadable: %v", err), nil
	}
	f.Content, f.Size = content, int64(len(content))
	f.Blob = BlobHash(content)
	return f, "", nil
}

func sameTime(a, b time.Time) bool { return a.Unix() == b.Unix() && a.Nanosecond() == b.Nanosecond() }

// Read returns the working tree's content of a tracked file.
func (r *Repo) Read(path string) ([]byte, error) {
	if strings.Contains(path, "..") && !filepath.IsLocal(filepath.FromSlash(path)) {
		return nil, fmt.Errorf("read %s: not a path inside the repository", path)
	}
	return os.ReadFile(filepath.Join(r.root, filepath.FromSlash(path)))
}

// BlobHash is git's object hash of a blob with content b.
func BlobHash(b []byte) string {
	return plumbing.ComputeHash(plumbing.BlobObject, b).String()
}

// GitDirs returns the folders where a commit, a checkout or staging a
// file changes HEAD, the index, packed-refs and the refs, for watchers:
// root/.git for a plain working tree; for a linked worktree (a .git file
// naming its git directory) that directory, which holds HEAD and the
// index, and the common directory it names, which holds the refs. They
// are only ever read.
func (r *Repo) GitDirs() ([]string, error) {
	dotGit := filepath.Join(r.root, ".git")
	fi, err := os.Stat(dotGit)
	if err != nil {
		return nil, fmt.Errorf("git directory of %s: %w", r.root, err)
	}
	if fi.IsDir() {
		return []string{dotGit}, nil
	}
	b, err := os.ReadFile(dotGit)
	if err != nil {
		return nil, fmt.Errorf("git directory of %s: %w", r.root, err)
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return nil, fmt.Errorf("git directory of %s: %s names no gitdir", r.root, dotGit)
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(r.root, dir)
	}
	dirs := []string{filepath.Clean(dir)}
	if c, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(dir, common)
		}
		dirs = append(dirs, filepath.Clean(common))
	}
	return dirs, nil
}

// Paths lists the tracked paths (the git index's entries, slash-separated)
// without reading the files.
func (r *Repo) Paths() ([]string, error) {
	idx, err := r.repo.Storer.Index()
	if err != nil {
		return nil, fmt.Errorf("read git index of %s: %w", r.root, err)
	}
	out := make([]string, 0, len(idx.Entries))
	for _, e := range idx.Entries {
		out = append(out, e.Name)
	}
	return out, nil
}
