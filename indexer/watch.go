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
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/format/glob"
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
	// When polling, the vault is seen only at a poll: a change waits for
	// the polls of at least one debounce period (and at least the next
	// poll) to find nothing new, or for the first poll 10 debounce periods
	// after it was seen.
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
// opts.Poll or when events are unavailable, by polling. The repositories of
// opts.Repos are watched too (watch_repos.go): a commit, a checkout or a
// staged file (their git directory's HEAD, refs and index) and a saved
// tracked file trigger a run, and nothing is written to them. Changes
// during a run trigger another run after it, unless the run already read
// them. While
// the newest snapshot has pending vectors, a run is retried every
// opts.PendingRetry even if nothing changes (it publishes only when it
// gets some of them embedded). A failed run (the data directory locked by
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
	src, err := watchChanges(ctx, root, ignore, opts, wopts)
	if err != nil {
		return err
	}
	if err := src.watchRepos(ctx, opts.Repos, wopts.Poll); err != nil {
		src.stop()
		return err
	}
	defer src.stop()

	failures, stalls := 0, 0
	for {
		// The run reads every change made before it starts.
		src.dirty.take()
		res, err := Run(ctx, opts)
		if ctx.Err() != nil {
			// A run that published before the context ended is still
			// reported: its snapshot exists, and a caller stopping on
			// SIGTERM must not lose the line that names it.
			if err == nil && res != nil {
				wopts.OnRun(res, nil)
			}
			return nil
		}
		wopts.OnRun(res, err)
		src.resync()
		var retry <-chan time.Time
		var indexed *format.Manifest
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
			indexed = res.Manifest
		default:
			failures, stalls = 0, 0
			indexed = res.Manifest
		}
		if !src.await(ctx, retry, indexed) {
			return nil
		}
	}
}

// hasPending reports whether a snapshot has texts without a vector.
func hasPending(m *format.Manifest) bool {
	if m == nil || m.Vectors == nil {
		return false
	}
	return m.Vectors.Chunks.Pending+m.Vectors.Edges.Pending > 0 || (m.Vectors.Code != nil && m.Vectors.Code.Pending > 0)
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

// changeSource tells Watch when the vault changed: file system events or
// polling.
type changeSource struct {
	changes  chan struct{} // one pending signal
	dirty    *changeSet    // what changed since Watch last took it
	settled  bool          // the source debounces itself (polling)
	debounce time.Duration
	root     string
	maxBytes int64
	log      *slog.Logger
	resync   func() // checks the source still sees the whole vault, after a run
	stop     func()
}

// watchChanges starts the change source: fsnotify, or polling when
// wopts.Poll is positive or fsnotify cannot watch the vault.
func watchChanges(ctx context.Context, root string, ignore *glob.Set, opts Options, wopts WatchOptions) (*changeSource, error) {
	ctx, cancel := context.WithCancel(ctx)
	src := &changeSource{changes: make(chan struct{}, 1), dirty: &changeSet{}, debounce: wopts.Debounce,
		root: root, maxBytes: opts.MaxNoteBytes, log: opts.Log, resync: func() {}}
	poll := wopts.Poll
	if poll <= 0 {
		ew, err := newEventWatcher(root, ignore, src.dirty, opts.Log)
		if err == nil {
			go ew.run(ctx, src.changes)
			src.resync = ew.requestResync
			src.stop = func() { cancel(); ew.w.Close() }
			return src, nil
		}
		opts.Log.Warn("cannot watch the vault for changes; polling instead", "every", DefaultPoll, "err", err)
		poll = DefaultPoll
	}
	sig, err := statSignature(root, ignore, opts.MaxNoteBytes)
	if err != nil {
		cancel()
		return nil, err
	}
	p := &poller{root: root, ignore: ignore, maxBytes: opts.MaxNoteBytes, log: opts.Log, last: sig,
		settle: newPollSettler(poll, wopts.Debounce), dirty: src.dirty}
	ticker := time.NewTicker(poll)
	go func() {
		defer ticker.Stop()
		p.run(ctx, ticker.C, src.changes)
	}()
	src.settled = true
	src.stop = cancel
	return src, nil
}

// await waits for a change that needs a run, or for retry; it returns
// false when ctx is done. A change needs no run when every note it names
// holds what indexed (the last run's manifest, nil after a failed run)
// recorded: the run read the change, or the note was saved unchanged.
func (src *changeSource) await(ctx context.Context, retry <-chan time.Time, indexed *format.Manifest) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-retry:
			return true
		case <-src.changes:
		}
		if !src.settled && !settle(ctx, src.changes, src.debounce) {
			return false
		}
		notes, all := src.dirty.take()
		if all || !alreadyIndexed(src.root, indexed, notes, src.maxBytes) {
			return true
		}
		src.log.Debug("changes already indexed", "notes", notes)
	}
}

// changeSet collects the notes changed since it was last taken, or that
// anything may have changed (a folder, a symlink, dropped events, a poll).
// It is safe for concurrent use.
type changeSet struct {
	mu    sync.Mutex
	notes map[string]bool // vault paths
	all   bool
}

func (c *changeSet) note(rel string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.notes == nil {
		c.notes = map[string]bool{}
	}
	c.notes[rel] = true
}

func (c *changeSet) any() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.all = true
}

// take empties the set and returns what it held.
func (c *changeSet) take() (notes []string, all bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for rel := range c.notes {
		notes = append(notes, rel)
	}
	slices.Sort(notes)
	all = c.all
	c.notes, c.all = nil, false
	return notes, all
}

// alreadyIndexed reports whether every note of notes (vault paths) is as
// m recorded it: present with the same content, or absent from both the
// vault and m. It reads only those files. A note that is a symlink, or any
// other doubt, is a change.
func alreadyIndexed(root string, m *format.Manifest, notes []string, maxBytes int64) bool {
	if m == nil {
		return false
	}
	for _, rel := range notes {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		sig, ok := m.Notes[rel]
		fi, err := os.Lstat(abs)
		if errors.Is(err, fs.ErrNotExist) {
			if ok || slices.ContainsFunc(m.Warnings, func(w format.Warning) bool { return w.File == rel }) {
				return false
			}
			continue
		}
		if err != nil || !ok || !fi.Mode().IsRegular() {
			return false
		}
		if r := readOne(vaultFile{Path: rel, Abs: abs}, maxBytes); r.Warning != nil || r.SHA256 != sig.SHA256 {
			return false
		}
	}
	return true
}

// eventWatcher turns fsnotify events into change signals. Its maps belong
// to the goroutine that runs it.
type eventWatcher struct {
	w       *fsnotify.Watcher
	root    string
	ignore  *glob.Set
	dirty   *changeSet
	log     *slog.Logger
	dirs    map[string]bool // watched folders, by absolute path
	links   map[string]bool // symlinks the indexer reads, by absolute path
	recheck chan struct{}   // a pending request to resync
}

func newEventWatcher(root string, ignore *glob.Set, dirty *changeSet, log *slog.Logger) (*eventWatcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	ew := &eventWatcher{w: w, root: root, ignore: ignore, dirty: dirty, log: log,
		dirs: map[string]bool{}, links: map[string]bool{}, recheck: make(chan struct{}, 1)}
	if _, err := ew.watchTree(root); err != nil {
		w.Close()
		return nil, err
	}
	return ew, nil
}

// watchTree watches dir and every folder below it that the indexer reads,
// each before listing it, so that a note written meanwhile shows up in the
// listing or as an event. It reports whether it found a note or a symlink
// in a folder it began to watch: one whose changes were not seen.
func (ew *eventWatcher) watchTree(dir string) (found bool, err error) {
	fresh := map[string]bool{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil // a folder that vanished or cannot be read: the run reports it
		}
		if p != ew.root && ew.skipped(p) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			ew.links[p] = true
			found = found || fresh[filepath.Dir(p)]
		case d.IsDir():
			if ew.dirs[p] {
				return nil
			}
			if err := ew.w.Add(p); err != nil {
				if p != ew.root && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission)) {
					// Renamed or removed since (its own events follow), or
					// unreadable (the run reports it).
					return filepath.SkipDir
				}
				return fmt.Errorf("watch %s: %w", p, err)
			}
			ew.dirs[p], fresh[p] = true, true
		case isNoteName(p):
			found = found || fresh[filepath.Dir(p)]
		}
		return nil
	})
	return found, err
}

// unwatch drops the watches of dir and of every folder below it, and
// forgets the symlinks there.
func (ew *eventWatcher) unwatch(dir string) {
	for p := range ew.dirs {
		if within(p, dir) {
			// An error means fsnotify or the kernel dropped the watch
			// already (the folder was deleted).
			_ = ew.w.Remove(p)
			delete(ew.dirs, p)
		}
	}
	for p := range ew.links {
		if within(p, dir) {
			delete(ew.links, p)
		}
	}
}

// requestResync asks the watcher's goroutine to check its watches; it never
// blocks.
func (ew *eventWatcher) requestResync() { notify(ew.recheck) }

// resync makes the watches match the vault's folders again, in case an
// event was missed or a watch lost: it drops the watches of folders that
// are gone (first: a watch kept under a folder's old path would absorb the
// new one) and watches every folder that is not. It reports a change when
// a watched folder or a symlink went (its event may still be queued, and
// would no longer be recognised) or when it found notes or symlinks in a
// folder that was not watched.
func (ew *eventWatcher) resync() bool {
	changed := false
	gone := func(p string) bool { _, err := os.Lstat(p); return err != nil }
	watched := map[string]bool{}
	for _, p := range ew.w.WatchList() {
		if fi, err := os.Lstat(p); err != nil || !fi.IsDir() || (p != ew.root && ew.skipped(p)) {
			_ = ew.w.Remove(p)
			changed = true
			continue
		}
		watched[p] = true
	}
	for p := range ew.dirs {
		changed = changed || (!watched[p] && gone(p))
	}
	for p := range ew.links {
		changed = changed || gone(p)
	}
	ew.dirs, ew.links = watched, map[string]bool{}
	found, err := ew.watchTree(ew.root)
	if err != nil {
		ew.log.Warn("cannot watch every folder of the vault; changes in some may be missed", "err", err)
	}
	if changed || found {
		ew.log.Debug("folders changed unseen; re-indexing")
		ew.dirty.any()
	}
	return changed || found
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
	return ew.ignore.Match(rel)
}

func (ew *eventWatcher) run(ctx context.Context, changes chan<- struct{}) {
	runEvents(ctx, ew.w, "the vault", ew.recheck, ew.resync, ew.relevant, ew.dirty, ew.log, changes)
}

// runEvents turns a file system watcher's events into change signals
// until ctx ends or the watcher closes: an event relevant says can change
// a snapshot, a resync (asked for on recheck) that found a change, and an
// overflow, which lost events (a run re-reads everything anyway). what
// names the watched tree in log lines.
func runEvents(ctx context.Context, w *fsnotify.Watcher, what string, recheck <-chan struct{}, resync func() bool,
	relevant func(fsnotify.Event) bool, dirty *changeSet, log *slog.Logger, changes chan<- struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-recheck:
			if resync() {
				notify(changes)
			}
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if relevant(ev) {
				notify(changes)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				log.Warn("file system events were dropped; re-indexing", "watching", what)
				dirty.any()
				notify(changes)
				continue
			}
			log.Warn("watching "+what, "err", err)
		}
	}
}

// relevant reports whether an event can change a snapshot, records what
// changed in ew.dirty, and keeps the watches in step with the folders.
func (ew *eventWatcher) relevant(ev fsnotify.Event) bool {
	p := ev.Name
	if ev.Op == fsnotify.Chmod || ew.skipped(p) {
		return false
	}
	if ev.Has(fsnotify.Remove | fsnotify.Rename) {
		switch {
		case ew.dirs[p]:
			// Drop the folder's watches now, before the Create of its new
			// name (the next event) watches it again. Left alone, fsnotify
			// would remove the new watch with the old one on the folder's
			// IN_MOVE_SELF (the same inode has one watch), and the folders
			// below would stay watched under their old paths, even out of
			// the vault or in .trash. Its notes went with it: a change.
			ew.unwatch(p)
			ew.dirty.any()
			return true
		case ew.links[p]:
			delete(ew.links, p)
			ew.dirty.any()
			return true
		}
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(p); err == nil {
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				// The walk follows it or reports it, whatever its name.
				ew.links[p] = true
				ew.dirty.any()
				return true
			case fi.IsDir():
				return ew.created(p)
			}
		}
	}
	if !isNoteName(p) {
		return false
	}
	if rel, err := filepath.Rel(ew.root, p); err == nil && len(ew.links) == 0 {
		ew.dirty.note(filepath.ToSlash(rel))
	} else {
		// Through a symlink the same note can have another path.
		ew.dirty.any()
	}
	return true
}

// created watches a new folder and the folders below it; it is a change
// only if they hold notes or symlinks (a new empty or attachments-only
// folder changes no snapshot).
func (ew *eventWatcher) created(dir string) bool {
	if ew.dirs[dir] {
		// A folder replaced a watched one of the same name.
		ew.unwatch(dir)
	}
	found, err := ew.watchTree(dir)
	if err != nil {
		ew.log.Warn("cannot watch a new folder; its later changes may be missed", "err", err)
		found = true // the run reads what the watch cannot see now
	}
	if found {
		ew.dirty.any()
	}
	return found
}

// poller compares the vault's stat signature at every poll.
type poller struct {
	root     string
	ignore   *glob.Set
	maxBytes int64
	log      *slog.Logger
	last     string // the signature at the last poll
	settle   pollSettler
	dirty    *changeSet
}

// run polls at every tick until ctx is done.
func (p *poller) run(ctx context.Context, ticks <-chan time.Time, changes chan<- struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
			p.poll(changes)
		}
	}
}

// poll compares the vault with the last poll, and signals changes once
// they settle.
func (p *poller) poll(changes chan<- struct{}) {
	sig, err := statSignature(p.root, p.ignore, p.maxBytes)
	if err != nil {
		p.log.Warn("polling the vault", "err", err)
		return
	}
	changed := sig != p.last
	p.last = sig
	if p.settle.poll(changed) {
		p.dirty.any()
		notify(changes)
	}
}

// pollSettler debounces changes seen by polling, counting polls since a
// poll sees the vault only at its own time: a change is reported once
// quiet polls in a row (the polls of one debounce period, at least one)
// find nothing new, or at the first poll 10 debounce periods after it was
// seen. So a burst of saves spread over several polls makes one run, as
// with file system events.
type pollSettler struct {
	quiet, limit int  // in polls
	pending      bool // a change seen, not reported yet
	calm, age    int  // polls since the last change and since the first
}

func newPollSettler(every, debounce time.Duration) pollSettler {
	polls := func(d time.Duration) int { return max(1, int((d+every-1)/every)) }
	return pollSettler{quiet: polls(debounce), limit: polls(10 * debounce)}
}

// poll records one poll, changed if it found the vault changed since the
// previous one, and reports whether to run now.
func (s *pollSettler) poll(changed bool) bool {
	if !s.pending {
		s.pending, s.calm, s.age = changed, 0, 0
		return false
	}
	s.age++
	if changed {
		s.calm = 0
	} else {
		s.calm++
	}
	if s.calm >= s.quiet || s.age >= s.limit {
		s.pending = false
		return true
	}
	return false
}

// statSignature hashes the path, size and modification time of every note
// the indexer would read, and the problems the walk found as a run
// compares them. It reads no file's content, so it is cheap enough to
// compute every few seconds.
func statSignature(root string, ignore *glob.Set, maxBytes int64) (string, error) {
	files, warnings, err := walkVault(root, ignore, maxBytes)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range files {
		h.Write([]byte(f.Path + "\x00" + strconv.FormatInt(f.Size, 10) + "\x00" + strconv.FormatInt(f.Modified.UnixNano(), 10) + "\n"))
	}
	for _, w := range warnings {
		h.Write([]byte(w.File + "\x00" + strconv.Itoa(w.Line) + "\x00" + w.Kind + "\x00" + w.Message + "\n"))
	}
	return string(h.Sum(nil)), nil
}
