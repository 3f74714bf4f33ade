package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// WatchOptions configure Watch.
type WatchOptions struct {
	// Poll is the interval of the full rescan that backs up file system
	// events, which bind mounts and network file systems drop (default
	// DefaultPoll; negative: events only).
	Poll time.Duration
	// Debounce is how long Watch waits after the last event before it
	// rescans, so that a burst of events costs one rescan (default
	// DefaultDebounce).
	Debounce time.Duration

	// noEvents disables fsnotify, as on file systems that drop events
	// (tests of the polling fallback).
	noEvents bool
}

// Defaults of WatchOptions.
const (
	DefaultPoll     = time.Minute
	DefaultDebounce = 100 * time.Millisecond
)

// Watch keeps the store current until ctx ends or the store is closed,
// then returns nil. It rescans on fsnotify events in DATA/snapshots (a
// snapshot renamed into place; a snapshot directory being copied in, whose
// manifest arrives last; the served snapshot's directory removed or
// renamed away, so that Refresh falls back), debounced, and every Poll
// regardless. When file system events are unavailable it polls only.
// Errors are logged, never fatal: the current snapshot keeps serving.
func (st *Store) Watch(ctx context.Context, opts WatchOptions) error {
	if opts.Poll == 0 {
		opts.Poll = DefaultPoll
	}
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	w := newDirWatch(st, !opts.noEvents && st.src.Events())
	defer w.close()
	w.ensure()

	var pollC <-chan time.Time
	if opts.Poll > 0 {
		t := time.NewTicker(opts.Poll)
		defer t.Stop()
		pollC = t.C
	}
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	defer debounce.Stop()

	refresh := func(why string) bool {
		if _, err := st.Refresh(ctx); err != nil {
			if errors.Is(err, ErrClosed) || ctx.Err() != nil {
				return false
			}
			st.log.Warn("rescanning snapshots", "trigger", why, "err", err)
		}
		w.ensure()
		return true
	}
	// Catch up once the watches are in place: a snapshot published between
	// the store's first scan and the watches being added made no event
	// this watcher could see.
	if !refresh("start") {
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-st.ctx.Done():
			return nil
		case ev := <-w.events():
			switch w.relevant(ev) {
			case complete:
				// A snapshot renamed into place, manifest and all: nothing
				// more is coming for it, so do not wait out the debounce.
				debounce.Stop()
				if !refresh("event") {
					return nil
				}
			case relevant:
				debounce.Reset(opts.Debounce)
			}
		case err := <-w.errors():
			// An overflowed queue lost events: rescan to be sure.
			st.log.Warn("file system events", "err", err)
			debounce.Reset(opts.Debounce)
		case <-debounce.C:
			if !refresh("event") {
				return nil
			}
		case <-pollC:
			if !refresh("poll") {
				return nil
			}
		}
	}
}

// dirWatch is the fsnotify side of Watch. Its methods run on Watch's
// goroutine only.
type dirWatch struct {
	st      *Store
	w       *fsnotify.Watcher // nil when events are unavailable
	snaps   string
	partial map[string]bool // snapshot directories watched until their manifest appears
	// ancestor is the folder above DATA watched while DATA does not exist.
	ancestor string
}

func newDirWatch(st *Store, events bool) *dirWatch {
	d := &dirWatch{st: st, snaps: snapshot.SnapshotsDir(st.dataDir), partial: map[string]bool{}}
	if !events {
		return d
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		st.log.Warn("file system events unavailable; polling only", "err", err)
		return d
	}
	d.w = w
	return d
}

func (d *dirWatch) close() {
	if d.w != nil {
		_ = d.w.Close()
	}
}

func (d *dirWatch) events() <-chan fsnotify.Event {
	if d.w == nil {
		return nil
	}
	return d.w.Events
}

func (d *dirWatch) errors() <-chan error {
	if d.w == nil {
		return nil
	}
	return d.w.Errors
}

// ensure (re)establishes the watches: DATA/snapshots when it exists, else
// DATA, else the nearest folder above DATA that exists, so that the
// creation of each is noticed; and stops watching snapshot
// directories that were copied in once they are served, superseded or
// gone. Adding a watch that exists is a no-op.
func (d *dirWatch) ensure() {
	if d.w == nil {
		return
	}
	if err := d.w.Add(d.snaps); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			d.st.log.Warn("watching snapshots directory; polling only until it works", "dir", d.snaps, "err", err)
		}
		if err := d.w.Add(d.st.dataDir); err != nil {
			d.watchAncestor()
		}
	}
	current := d.st.Current()
	for dir := range d.partial {
		if filepath.Base(dir) <= current || !exists(dir) {
			_ = d.w.Remove(dir)
			delete(d.partial, dir)
		}
	}
}

// watchAncestor watches the nearest existing folder above DATA, for a
// data directory that does not exist yet.
func (d *dirWatch) watchAncestor() {
	for dir := filepath.Dir(d.st.dataDir); ; dir = filepath.Dir(dir) {
		if d.w.Add(dir) == nil {
			d.ancestor = dir
			return
		}
		if filepath.Dir(dir) == dir {
			return
		}
	}
}

// relevant reports whether ev may mean a new snapshot is complete or the
// served one is gone, and whether a newer snapshot is complete already. A new snapshot directory is watched itself until it
// is served, superseded or gone: one renamed into place is complete
// already, but one being copied in (rsync, cp -r) completes later, and its
// completion must be noticed without waiting for the next poll. The served
// snapshot's directory is not watched itself: rm -rf ends with its Remove
// in DATA/snapshots, and mv with a Rename there. A served snapshot whose
// manifest alone is deleted is noticed by the next poll.
func (d *dirWatch) relevant(ev fsnotify.Event) eventKind {
	dir, name := filepath.Dir(ev.Name), filepath.Base(ev.Name)
	gone := ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
	switch {
	case ev.Name == d.snaps:
		// DATA/snapshots itself was created (watching DATA), or removed or
		// renamed away, served snapshot and all.
		d.ensure()
		return relevantIf(ev.Has(fsnotify.Create) || gone)
	case dir == d.snaps && gone && name == d.st.Current():
		return relevant
	case dir == d.snaps && format.ValidSnapshotID(name) && ev.Has(fsnotify.Create):
		if name <= d.st.Current() {
			return relevant
		}
		if !d.partial[ev.Name] && d.w.Add(ev.Name) == nil {
			d.partial[ev.Name] = true
		}
		// The indexer renames a finished snapshot into place: its
		// manifest, written last, is there from the first event on. (A
		// copy that wrote its manifest early is rescanned again as the
		// rest arrives, through the watch just added.)
		if exists(filepath.Join(ev.Name, format.ManifestFile)) {
			return complete
		}
		return relevant
	case d.partial[dir]:
		return relevantIf(ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write) || ev.Has(fsnotify.Rename))
	case d.ancestor != "" && dir == d.ancestor && ev.Has(fsnotify.Create) &&
		(ev.Name == d.st.dataDir || strings.HasPrefix(d.st.dataDir, ev.Name+string(filepath.Separator))):
		// A folder on the way to a data directory that did not exist.
		d.ensure()
		return relevant
	}
	return irrelevant
}

// eventKind is what a file system event means for the watch.
type eventKind int

const (
	// irrelevant events change nothing served.
	irrelevant eventKind = iota
	// relevant events may mean a new snapshot is complete (or the served
	// one gone): rescan once they settle (WatchOptions.Debounce).
	relevant
	// complete events are a newer snapshot that is complete already:
	// rescan now.
	complete
)

func relevantIf(b bool) eventKind {
	if b {
		return relevant
	}
	return irrelevant
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
