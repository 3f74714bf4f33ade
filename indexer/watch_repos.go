package indexer

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/vaultgraph/vaultgraph/indexer/gitrepo"
)

// A watch sees a repository change in two places: its git directory, where
// a commit, a checkout, a reset or staging a file rewrites HEAD, a ref,
// packed-refs or the index; and the folders of its tracked files, where an
// editor saves one. Both are only ever read: inotify watches write
// nothing, and neither does go-git reading the index.

// gitDirRelevant reports whether a change to rel (a path in the git
// directory, slash-separated) can change what a run reads: HEAD (a commit
// or a checkout), the index (what is tracked, and the blobs), packed-refs
// and the refs. Lock files are written before the rename that counts.
func gitDirRelevant(rel string) bool {
	if strings.HasSuffix(rel, ".lock") {
		return false
	}
	return rel == "HEAD" || rel == "index" || rel == "packed-refs" || strings.HasPrefix(rel, "refs/")
}

// watchedRepo is one repository's part of a repoWatcher.
type watchedRepo struct {
	name, root string
	gitDirs    []string        // the git directory, and a linked worktree's common one
	tracked    map[string]bool // absolute paths of the tracked files
}

// repoWatcher turns file system events in repositories into change
// signals. Its maps belong to the goroutine that runs it.
type repoWatcher struct {
	w       *fsnotify.Watcher
	repos   []*watchedRepo
	dirs    map[string]bool // watched folders, by absolute path
	dirty   *changeSet
	log     *slog.Logger
	recheck chan struct{}
}

func newRepoWatcher(repos []Repo, dirty *changeSet, log *slog.Logger) (*repoWatcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	rw := &repoWatcher{w: w, dirs: map[string]bool{}, dirty: dirty, log: log, recheck: make(chan struct{}, 1)}
	for _, spec := range repos {
		r, err := gitrepo.Open(spec.Path)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("repository %s: %w", spec.Name, err)
		}
		root, err := filepath.EvalSymlinks(r.Root())
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("repository %s: %w", spec.Name, err)
		}
		dirs, err := r.GitDirs()
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("repository %s: %w", spec.Name, err)
		}
		wr := &watchedRepo{name: spec.Name, root: root}
		for _, d := range dirs {
			real, err := filepath.EvalSymlinks(d)
			if err != nil {
				w.Close()
				return nil, fmt.Errorf("repository %s: %w", spec.Name, err)
			}
			wr.gitDirs = append(wr.gitDirs, real)
		}
		rw.repos = append(rw.repos, wr)
	}
	if err := rw.watchAll(); err != nil {
		w.Close()
		return nil, err
	}
	return rw, nil
}

// watchAll watches the git directory and its refs of every repository, and
// the folders of the files tracked now. A folder watch that fails because
// the folder is gone is left out (the run sees the file deleted).
func (rw *repoWatcher) watchAll() error {
	for _, r := range rw.repos {
		for _, gd := range r.gitDirs {
			if err := rw.watch(gd); err != nil {
				return fmt.Errorf("repository %s: watch %s: %w", r.name, gd, err)
			}
			refs := filepath.Join(gd, "refs")
			if err := filepath.WalkDir(refs, func(p string, d fs.DirEntry, err error) error {
				if err != nil || !d.IsDir() {
					return nil
				}
				return rw.watch(p)
			}); err != nil {
				return fmt.Errorf("repository %s: watch its refs: %w", r.name, err)
			}
		}
		if err := rw.listTracked(r); err != nil {
			return err
		}
	}
	return nil
}

// listTracked reads the repository's tracked paths and watches their
// folders.
func (rw *repoWatcher) listTracked(r *watchedRepo) error {
	repo, err := gitrepo.Open(r.root)
	if err != nil {
		return fmt.Errorf("repository %s: %w", r.name, err)
	}
	paths, err := repo.Paths()
	if err != nil {
		return fmt.Errorf("repository %s: %w", r.name, err)
	}
	r.tracked = make(map[string]bool, len(paths))
	for _, p := range paths {
		abs := filepath.Join(r.root, filepath.FromSlash(p))
		r.tracked[abs] = true
		dir := filepath.Dir(abs)
		if err := rw.watch(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("repository %s: watch %s: %w", r.name, dir, err)
		}
	}
	return nil
}

func (rw *repoWatcher) watch(dir string) error {
	if rw.dirs[dir] {
		return nil
	}
	if err := rw.w.Add(dir); err != nil {
		return err
	}
	rw.dirs[dir] = true
	return nil
}

// requestResync asks the watcher's goroutine to list the tracked files
// again (after a run); it never blocks.
func (rw *repoWatcher) requestResync() { notify(rw.recheck) }

// resync lists the tracked files again and watches folders that gained
// one; watches of folders that lost theirs stay (harmless: their events
// name no tracked file).
func (rw *repoWatcher) resync() {
	for _, r := range rw.repos {
		if err := rw.listTracked(r); err != nil {
			rw.log.Warn("cannot list a repository's tracked files; saves in new folders may be missed until the next commit", "err", err)
		}
	}
}

func (rw *repoWatcher) run(ctx context.Context, changes chan<- struct{}) {
	resync := func() bool { rw.resync(); return false }
	relevant := func(ev fsnotify.Event) bool {
		if !rw.relevant(ev) {
			return false
		}
		rw.dirty.any()
		return true
	}
	runEvents(ctx, rw.w, "a repository", rw.recheck, resync, relevant, rw.dirty, rw.log, changes)
}

// relevant reports whether an event can change a snapshot: a change of
// HEAD, a ref or the index in a git directory, or of a tracked file.
func (rw *repoWatcher) relevant(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	p := ev.Name
	for _, r := range rw.repos {
		for _, gd := range r.gitDirs {
			if !within(p, gd) {
				continue
			}
			rel, err := filepath.Rel(gd, p)
			if err != nil {
				return false
			}
			rel = filepath.ToSlash(rel)
			if ev.Has(fsnotify.Create) && strings.HasPrefix(rel, "refs/") {
				if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
					// A new ref folder (a branch named feature/x): watch it.
					if err := rw.watch(p); err != nil {
						rw.log.Warn("cannot watch a new ref folder", "path", p, "err", err)
					}
				}
			}
			return gitDirRelevant(rel)
		}
		if within(p, r.root) {
			return r.tracked[p]
		}
	}
	return false
}

// repoPoller compares a stat signature of the repositories at every tick,
// for polling watches and for file systems without events.
type repoPoller struct {
	repos []Repo
	log   *slog.Logger
	dirty *changeSet
	last  string
}

func (p *repoPoller) run(ctx context.Context, ticks <-chan time.Time, changes chan<- struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
			sig, err := repoSignature(p.repos)
			if err != nil {
				p.log.Warn("polling the repositories", "err", err)
				continue
			}
			if sig != p.last {
				p.last = sig
				p.dirty.any()
				notify(changes)
			}
		}
	}
}

// repoSignature hashes what a commit, a checkout, staging a file or
// saving a tracked one changes: HEAD's commit, the size and modification
// time of the index and packed-refs, and those of every tracked file. It
// reads no file's content.
func repoSignature(repos []Repo) (string, error) {
	h := sha256.New()
	stat := func(p string) {
		if fi, err := os.Stat(p); err == nil {
			h.Write([]byte(p + "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" + strconv.FormatInt(fi.ModTime().UnixNano(), 10) + "\n"))
		} else {
			h.Write([]byte(p + "\x00-\n"))
		}
	}
	for _, spec := range repos {
		r, err := gitrepo.Open(spec.Path)
		if err != nil {
			return "", fmt.Errorf("repository %s: %w", spec.Name, err)
		}
		head, err := r.Head()
		if err != nil {
			return "", fmt.Errorf("repository %s: %w", spec.Name, err)
		}
		h.Write([]byte(spec.Name + "\x00" + head + "\n"))
		dirs, err := r.GitDirs()
		if err != nil {
			return "", fmt.Errorf("repository %s: %w", spec.Name, err)
		}
		for _, d := range dirs {
			stat(filepath.Join(d, "index"))
			stat(filepath.Join(d, "packed-refs"))
		}
		paths, err := r.Paths()
		if err != nil {
			return "", fmt.Errorf("repository %s: %w", spec.Name, err)
		}
		slices.Sort(paths)
		for _, p := range paths {
			stat(filepath.Join(r.Root(), filepath.FromSlash(p)))
		}
	}
	return string(h.Sum(nil)), nil
}

// watchRepos starts watching opts.Repos for src: by events, or by polling
// every poll when poll is positive or events are unavailable.
func (src *changeSource) watchRepos(ctx context.Context, repos []Repo, poll time.Duration) error {
	if len(repos) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	stop, resync := src.stop, src.resync
	if poll <= 0 {
		rw, err := newRepoWatcher(repos, src.dirty, src.log)
		if err == nil {
			go rw.run(ctx, src.changes)
			src.stop = func() { cancel(); rw.w.Close(); stop() }
			src.resync = func() { resync(); rw.requestResync() }
			return nil
		}
		src.log.Warn("cannot watch the repositories for changes; polling them instead", "every", DefaultPoll, "err", err)
		poll = DefaultPoll
	}
	sig, err := repoSignature(repos)
	if err != nil {
		cancel()
		return err
	}
	p := &repoPoller{repos: repos, log: src.log, dirty: src.dirty, last: sig}
	ticker := time.NewTicker(poll)
	go func() {
		defer ticker.Stop()
		p.run(ctx, ticker.C, src.changes)
	}()
	src.stop = func() { cancel(); stop() }
	return nil
}
