package store

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// logBuffer collects the store's logs, written from any goroutine.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, nil))
}

// deletions are the ways an operator takes the served snapshot away.
var deletions = []struct {
	name   string
	reason string // in Fallback.Reason
	delete func(t *testing.T, dir string)
}{
	{"removed", "removed or renamed away", func(t *testing.T, dir string) {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}},
	{"renamed away", "removed or renamed away", func(t *testing.T, dir string) {
		// Out of DATA/snapshots, on the same file system.
		if err := os.Rename(dir, filepath.Join(filepath.Dir(filepath.Dir(dir)), "rolled-back-"+filepath.Base(dir))); err != nil {
			t.Fatal(err)
		}
	}},
	{"manifest removed", format.ManifestFile + " was removed", func(t *testing.T, dir string) {
		if err := os.Remove(filepath.Join(dir, format.ManifestFile)); err != nil {
			t.Fatal(err)
		}
	}},
}

// TestDeletedSnapshotFallsBack deletes the served newest snapshot while a
// reader holds it: Refresh serves the previous one, says why, and the
// reader finishes on the deleted one, which closes after it.
func TestDeletedSnapshotFallsBack(t *testing.T) {
	for _, tc := range deletions {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.publish()
			b := f.publish()
			c := f.publish()
			logs := &logBuffer{}
			st := f.store(Options{Log: logs.logger()})
			refresh(t, st)
			held, release := st.Acquire()
			if held.ID != c.ID {
				t.Fatalf("acquired %s, want %s", held.ID, c.ID)
			}
			tc.delete(t, c.Dir)

			res := refresh(t, st)
			if res.Current != b.ID || !res.Swapped || res.Previous != c.ID || st.Current() != b.ID {
				t.Fatalf("Refresh after the served snapshot was deleted = %+v, want %s served", res, b.ID)
			}
			fb := res.Fallback
			if fb == nil || fb.Deleted != c.ID || fb.Serving != b.ID || !strings.Contains(fb.Reason, tc.reason) {
				t.Fatalf("fallback = %+v, want %s -> %s because %q", fb, c.ID, b.ID, tc.reason)
			}
			if s := st.Stats(); s.Fallbacks != 1 || s.Swaps != 1 || s.LastFallback == nil || *s.LastFallback != *fb {
				t.Errorf("stats = %+v", s)
			}
			if !inUse(t, f.data, b.ID) {
				t.Error("the snapshot fallen back to is not leased")
			}
			warn := grepLog(logs.String(), "deleted from disk")
			if !strings.Contains(warn, "level=WARN") || !strings.Contains(warn, c.ID) || !strings.Contains(warn, b.ID) {
				t.Errorf("fallback log = %q, want a WARN naming %s and %s", warn, c.ID, b.ID)
			}

			// The request that held the deleted snapshot completes on it.
			if !held.Retired() {
				t.Error("the deleted snapshot was not retired")
			}
			select {
			case <-held.Done():
				t.Fatal("the deleted snapshot closed while a reader holds it")
			default:
			}
			if _, ok := held.Notes.Lookup("Home.md"); !ok {
				t.Error("the held snapshot stopped answering")
			}
			release()
			<-held.Done()
			eventually(t, "the deleted snapshot closes", func() bool { return st.Stats().Open == 1 })
			if inUse(t, f.data, c.ID) {
				t.Error("the deleted snapshot's lease is still held after its last release")
			}

			// Back to the rule: only a newer snapshot replaces b.
			if again := refresh(t, st); again.Swapped || again.Fallback != nil || again.Current != b.ID {
				t.Errorf("second Refresh = %+v", again)
			}
			d := f.publish()
			if res := refresh(t, st); res.Current != d.ID || res.Fallback != nil {
				t.Errorf("Refresh after a new publish = %+v", res)
			}
		})
	}
}

// TestDeletedSnapshotFallsBackPastABadOne: the newest snapshot left does
// not open, so the fallback goes one further.
func TestDeletedSnapshotFallsBackPastABadOne(t *testing.T) {
	f := newFixture(t)
	a := f.publish()
	b := f.publish()
	c := f.publish()
	st := f.store(Options{})
	refresh(t, st)
	if err := os.Remove(filepath.Join(b.Dir, format.ChunksFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(c.Dir); err != nil {
		t.Fatal(err)
	}
	res := refresh(t, st)
	if res.Current != a.ID || len(res.Rejected) != 1 || res.Rejected[0].ID != b.ID ||
		res.Fallback == nil || res.Fallback.Serving != a.ID {
		t.Fatalf("Refresh = %+v (fallback %+v), want %s served, %s rejected", res, res.Fallback, a.ID, b.ID)
	}
}

// TestDeletingEverySnapshotStopsServing: with no snapshot left, the store
// serves none, as before the first one, while a reader holding the deleted
// one finishes on it; the next snapshot published is served.
func TestDeletingEverySnapshotStopsServing(t *testing.T) {
	f := newFixture(t)
	a := f.publish()
	logs := &logBuffer{}
	st := f.store(Options{Log: logs.logger()})
	refresh(t, st)
	held, release := st.Acquire()
	if err := os.RemoveAll(a.Dir); err != nil {
		t.Fatal(err)
	}

	res := refresh(t, st)
	if res.Current != "" || res.Swapped || res.Previous != a.ID || st.Current() != "" {
		t.Fatalf("Refresh with every snapshot deleted = %+v", res)
	}
	if fb := res.Fallback; fb == nil || fb.Deleted != a.ID || fb.Serving != "" {
		t.Fatalf("fallback = %+v, want %s -> none", fb, a.ID)
	}
	if snap, rel := st.Acquire(); snap != nil {
		rel()
		t.Fatalf("Acquire returned %s, deleted and no longer served", snap.ID)
	}
	if !strings.Contains(grepLog(logs.String(), "no other snapshot opens"), a.ID) {
		t.Errorf("logs = %s", logs)
	}
	select {
	case <-held.Done():
		t.Fatal("the deleted snapshot closed while a reader holds it")
	default:
	}
	if _, ok := held.Notes.Lookup("Home.md"); !ok || !inUse(t, f.data, a.ID) {
		t.Error("the held snapshot stopped answering or lost its lease")
	}
	release()
	<-held.Done()
	eventually(t, "the deleted snapshot closes", func() bool { return st.Stats().Open == 0 })
	if inUse(t, f.data, a.ID) {
		t.Error("lease still held after the last release")
	}

	if again := refresh(t, st); again.Fallback != nil || again.Current != "" {
		t.Errorf("second Refresh = %+v", again)
	}
	if s := st.Stats(); s.Fallbacks != 1 || s.Swaps != 0 || s.LastFallback == nil {
		t.Errorf("stats = %+v", s)
	}
	b := f.publish()
	if res := refresh(t, st); !res.Swapped || res.Current != b.ID || res.Fallback != nil {
		t.Errorf("Refresh after a new publish = %+v", res)
	}
}

// TestWatchFallsBackOnDeletion follows deletions with file system events
// alone (no polling): the served snapshot removed, then renamed away,
// then a new one published; an older snapshot imported while a newer one
// is served is still never swapped to.
func TestWatchFallsBackOnDeletion(t *testing.T) {
	f := newFixture(t)
	a := f.publish()
	b := f.publish()
	backup := t.TempDir()
	copySnapshot(t, b.Dir, backup, false)
	st := f.store(Options{})
	refresh(t, st)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- st.Watch(ctx, WatchOptions{Poll: -1, Debounce: 5 * time.Millisecond}) }()
	defer func() { cancel(); <-done }()
	time.Sleep(50 * time.Millisecond) // let the watch start; only makes the test meaningful, not pass

	if err := os.RemoveAll(b.Dir); err != nil {
		t.Fatal(err)
	}
	eventually(t, "watch falls back to "+a.ID, func() bool { return st.Current() == a.ID })
	if err := os.Rename(a.Dir, filepath.Join(f.data, "rolled-back")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "watch stops serving", func() bool { return st.Current() == "" })
	if snap, release := st.Acquire(); snap != nil {
		release()
		t.Fatalf("Acquire returned %s with no snapshot left", snap.ID)
	}
	if s := st.Stats(); s.Fallbacks != 2 || s.LastFallback == nil || s.LastFallback.Deleted != a.ID || s.LastFallback.Serving != "" {
		t.Errorf("stats = %+v", s)
	}

	c := f.publish()
	eventually(t, "watch serves "+c.ID, func() bool { return st.Current() == c.ID })
	swaps := st.Stats().Swaps
	copySnapshot(t, filepath.Join(backup, "snapshots", b.ID), f.data, false) // older than c
	d := f.publish()
	eventually(t, "watch serves "+d.ID, func() bool { return st.Current() == d.ID })
	if got := st.Stats().Swaps; got != swaps+1 {
		t.Errorf("swaps while an older snapshot was imported and a newer one published = %d, want 1", got-swaps)
	}
}

func grepLog(logs, sub string) string {
	var out []string
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
