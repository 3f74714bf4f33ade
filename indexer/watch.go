package indexer

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/vaultgraph/vaultgraph/format"
)

// Defaults of WatchOptions.
const (
	DefaultDebounce = 500 * time.Millisecond
	// DefaultPoll is the polling interval used when file system events
	// cannot be watched (inotify watches exhausted, an unsupported file
	// system) and none was asked for.
	DefaultPoll = 30 * time.Second
)

// WatchOptions configure Watch.
type WatchOptions struct {
	// Debounce is how long the vault must stay quiet after a change before
	// a run starts (DefaultDebounce when 0). A run starts at the latest
	// 10 debounce periods after the first change even if changes go on.
	Debounce time.Duration
	// Poll, when positive, compares a stat signature of the vault (path,
	// size and modification time of every note) every Poll instead of
	// watching file system events: for bind mounts and network file
	// systems that drop events.
	Poll time.Duration
	// PendingRetry is how long to wait, with the vault unchanged, before
	// retrying work the newest snapshot left pending (vectors the model
	// server could not compute); it doubles while the retries make no
	// progress, up to 16 times itself. DefaultPendingRetry when 0.
	PendingRetry time.Duration
	// OnRun is called after every run with its result or error, on
	// Watch's goroutine.
	OnRun func(*Result, error)
}

// DefaultPendingRetry is WatchOptions.PendingRetry's default: a model
// server started after the watch (or restarted) is noticed within a minute,
// and one that stays down costs a run every 16 minutes at most.
const DefaultPendingRetry = time.Minute

// Watch indexes the vault once, then again after every change, until ctx
// is done; it then returns nil. Like Run it only ever reads the vault.
// Changes are seen through fsnotify (one watch per folder, added for new
// folders as they appear, dot-folders and ignored folders skipped) or, with
// opts.Poll or when events are unavailable, by polling. Changes during a run
// trigger another run after it. While the newest snapshot has pending
// vectors, a run is retried every opts.PendingRetry even if nothing changes
// (it publishes only when it gets some of them embedded). A failed run (the data directory locked by
// another indexer, a full disk) is reported through OnRun and retried with
// backoff; it never ends the watch. Watch returns an error only when it
// cannot start: bad options or an unreadable vault.
func Watch(ctx context.Context, opts Options, wopts WatchOptions) error {
	opts = opts.withDefaults()
	vault, _, err := checkDirs(opts.Vault, opts.Data)
	if err != nil {
		return err
	}
	ignore, err := compileIgnore(opts.Ignore)
	if err != nil {
		return err
	}
	if wopts.Debounce <= 0 {
		wopts.Debounce = DefaultDebounce
	}
	if wopts.PendingRetry <= 0 {
		wopts.PendingRetry = DefaultPendingRetry
	}
	if wopts.OnRun == nil {
		wopts.OnRun = func(*Result, error) {}
	}
	root, err := filepath.EvalSymlinks(vault)
	if err != nil {
		return fmt.Errorf("open vault: %w", err)
	}
	// The change source starts before the first run, so that a change
	// made while it runs is not missed.
	changes := make(chan struct{}, 1)
	stop, err := watchChanges(ctx, root, ignore, opts, wopts.Poll, changes)
	if err != nil {
		return err
	}
	defer stop()

	var retry <-chan time.Time
	failures, stalls := 0, 0
	for {
		res, err := Run(ctx, opts)
		if ctx.Err() != nil {
			return nil
		}
		wopts.OnRun(res, err)
		retry = nil
		switch {
		case err != nil:
			failures++
			retry = time.After(backoff(failures))
		case hasPending(res.Manifest):
			failures = 0
			if len(res.Stalled) > 0 {
				stalls++
			} else {
				stalls = 0
			}
			retry = time.After(wopts.PendingRetry << min(stalls, 4))
		default:
			failures, stalls = 0, 0
		}
		select {
		case <-ctx.Done():
			return nil
		case <-retry:
			continue
		case <-changes:
		}
		if !settle(ctx, changes, wopts.Debounce) {
			return nil
		}
	}
}

// hasPending reports whether a snapshot has texts without a vector.
func hasPending(m *format.Manifest) bool {
	return m != nil && m.Vectors != nil && m.Vectors.Chunks.Pending+m.Vectors.Edges.Pending > 0
}

// backoff is the wait before retrying after n failed runs in a row: 1s,
// 2s, 4s, ... up to a minute.
func backoff(n int) time.Duration {
	return min(time.Second<<min(n-1, 6), time.Minute)
}

// settle waits until no change arrives for d, or 10*d have passed. It
// returns false when ctx is done.
func settle(ctx context.Context, changes <-chan struct{}, d time.Duration) bool {
	deadline := time.NewTimer(10 * d)
	defer deadline.Stop()
	quiet := time.NewTimer(d)
	defer quiet.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return true
		case <-quiet.C:
			return true
		case <-changes:
			quiet.Reset(d)
		}
	}
}

// notify records a change without blocking: one pending signal is enough.
func notify(changes chan<- struct{}) {
	select {
	case changes <- struct{}{}:
	default:
	}
}

// watchChanges starts the change source: fsnotify, or polling when poll is
// positive or fsnotify cannot watch the vault.
func watchChanges(ctx context.Context, root string, ignore *ignoreRules, opts Options, poll time.Duration, changes chan<- struct{}) (stop func(), err error) {
	ctx, cancel := context.WithCancel(ctx)
	if poll <= 0 {
		ew, err := newEventWatcher(root, ignore)
		if err == nil {
			go ew.run(ctx, changes, opts)
			return func() { cancel(); ew.w.Close() }, nil
		}
		opts.Log.Warn("cannot watch the vault for changes; polling instead", "every", DefaultPoll, "err", err)
		poll = DefaultPoll
	}
	sig, err := statSignature(root, ignore, opts.MaxNoteBytes)
	if err != nil {
		cancel()
		return nil, err
	}
	go pollChanges(ctx, root, ignore, opts, poll, sig, changes)
	return cancel, nil
}

// eventWatcher turns fsnotify events into change signals.
type eventWatcher struct {
	w      *fsnotify.Watcher
	root   string
	ignore *ignoreRules
	dirs   map[string]bool // watched folders, by absolute path
}

func newEventWatcher(root string, ignore *ignoreRules) (*eventWatcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	ew := &eventWatcher{w: w, root: root, ignore: ignore, dirs: map[string]bool{}}
	if err := ew.addTree(root); err != nil {
		w.Close()
		return nil, err
	}
	return ew, nil
}

// addTree watches dir and every folder below it that the indexer reads.
func (ew *eventWatcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // a folder that vanished or cannot be read: the run reports it
		}
		if !d.IsDir() {
			return nil
		}
		if p != ew.root && ew.skipped(p) {
			return filepath.SkipDir
		}
		if err := ew.w.Add(p); err != nil {
			return fmt.Errorf("watch %s: %w", p, err)
		}
		ew.dirs[p] = true
		return nil
	})
}

// skipped reports whether the indexer ignores the path: inside a
// dot-folder, a dot-file, or matched by an ignore pattern.
func (ew *eventWatcher) skipped(p string) bool {
	rel, err := filepath.Rel(ew.root, p)
	if err != nil || rel == "." {
		return err != nil
	}
	rel = filepath.ToSlash(rel)
	if strings.HasPrefix(rel, "../") {
		return true
	}
	for _, elem := range strings.Split(rel, "/") {
		if strings.HasPrefix(elem, ".") {
			return true
		}
	}
	return ew.ignore.match(rel)
}

func (ew *eventWatcher) run(ctx context.Context, changes chan<- struct{}, opts Options) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-ew.w.Events:
			if !ok {
				return
			}
			if ew.relevant(ev, opts) {
				notify(changes)
			}
		case err, ok := <-ew.w.Errors:
			if !ok {
				return
			}
			// An overflow lost events: a run re-reads everything anyway.
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				opts.Log.Warn("file system events were dropped; re-indexing")
				notify(changes)
				continue
			}
			opts.Log.Warn("watching the vault", "err", err)
		}
	}
}

// relevant reports whether an event can change a snapshot, and watches
// folders that appear.
func (ew *eventWatcher) relevant(ev fsnotify.Event, opts Options) bool {
	if ev.Op == fsnotify.Chmod || ew.skipped(ev.Name) {
		return false
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
			// Notes written into the folder before this watch existed are
			// found by the run the event triggers.
			if err := ew.addTree(ev.Name); err != nil {
				opts.Log.Warn("cannot watch a new folder; its later changes may be missed", "err", err)
			}
			return true
		}
	}
	if ew.dirs[ev.Name] && ev.Has(fsnotify.Remove|fsnotify.Rename) {
		delete(ew.dirs, ev.Name)
		return true
	}
	return isNoteName(ev.Name)
}

// pollChanges compares the vault's stat signature every interval.
func pollChanges(ctx context.Context, root string, ignore *ignoreRules, opts Options, every time.Duration, last string, changes chan<- struct{}) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		sig, err := statSignature(root, ignore, opts.MaxNoteBytes)
		if err != nil {
			opts.Log.Warn("polling the vault", "err", err)
			continue
		}
		if sig != last {
			last = sig
			notify(changes)
		}
	}
}

// statSignature hashes the path, size and modification time of every note
// the indexer would read, and the problems the walk found. It reads no
// file's content, so it is cheap enough to compute every few seconds.
func statSignature(root string, ignore *ignoreRules, maxBytes int64) (string, error) {
	files, warnings, err := walkVault(root, ignore, maxBytes)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range files {
		h.Write([]byte(f.Path + "\x00" + strconv.FormatInt(f.Size, 10) + "\x00" + strconv.FormatInt(f.Modified.UnixNano(), 10) + "\n"))
	}
	for _, w := range warnings {
		h.Write([]byte(w.File + "\x00" + w.Kind + "\n"))
	}
	return string(h.Sum(nil)), nil
}
