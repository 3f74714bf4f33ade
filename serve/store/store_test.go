package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// fixture is a small vault and a data directory; publish adds a note and
// indexes (tables only: these tests are about lifetimes, not components).
type fixture struct {
	t     *testing.T
	vault string
	data  string
	n     int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, vault: t.TempDir(), data: t.TempDir()}
	f.write("Home.md", "# Home\nSee [[Alice]].\n")
	f.write("People/Alice.md", "---\ntype: Person\n---\nAlice leads [[Home]].\n")
	return f
}

func (f *fixture) write(rel, content string) {
	f.t.Helper()
	p := filepath.Join(f.vault, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// publish adds one note and publishes a snapshot.
func (f *fixture) publish() *indexer.Result {
	f.t.Helper()
	f.n++
	f.write(fmt.Sprintf("Notes/N%d.md", f.n), fmt.Sprintf("Note %d links [[Home]].\n", f.n))
	res, err := indexer.Run(context.Background(), indexer.Options{Vault: f.vault, Data: f.data})
	if err != nil {
		f.t.Fatal(err)
	}
	if res.Unchanged {
		f.t.Fatal("indexer published nothing")
	}
	return res
}

func (f *fixture) store(opts Options) *Store {
	f.t.Helper()
	st, err := New(f.data, opts)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := st.Close(ctx); err != nil {
			f.t.Error(err)
		}
	})
	return st
}

func refresh(t *testing.T, st *Store) RefreshResult {
	t.Helper()
	res, err := st.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// eventually fails the test when cond does not hold within a generous
// cutoff; it is a liveness check, not a timing assertion.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func inUse(t *testing.T, data, id string) bool {
	t.Helper()
	used, err := snapshot.InUse(data, id)
	if err != nil {
		t.Fatal(err)
	}
	return used
}

func TestRefreshServesNewestAndLeasesIt(t *testing.T) {
	f := newFixture(t)
	a := f.publish()
	b := f.publish()
	st := f.store(Options{})
	res := refresh(t, st)
	if !res.Swapped || res.Current != b.ID || st.Current() != b.ID {
		t.Fatalf("Refresh = %+v, want %s", res, b.ID)
	}
	if !inUse(t, f.data, b.ID) || inUse(t, f.data, a.ID) {
		t.Errorf("leases: newest in use %v, older in use %v; want only the served one", inUse(t, f.data, b.ID), inUse(t, f.data, a.ID))
	}
	snap, release := st.Acquire()
	defer release()
	if n, ok := snap.Notes.Lookup("People/Alice"); !ok || n.Title != "Alice" {
		t.Errorf("Lookup(People/Alice) = %v, %v", n, ok)
	}
	if snap.Manifest.Counts.Notes != b.Manifest.Counts.Notes {
		t.Errorf("counts = %+v, want %+v", snap.Manifest.Counts, b.Manifest.Counts)
	}
	if !errors.Is(snap.SearchErr, ErrUnavailable) || !errors.Is(snap.GraphErr, ErrUnavailable) {
		t.Errorf("a snapshot without vectors or graph: SearchErr %v, GraphErr %v", snap.SearchErr, snap.GraphErr)
	}
	if again := refresh(t, st); again.Swapped {
		t.Errorf("second Refresh swapped: %+v", again)
	}
}

func TestReaderKeepsRetiredSnapshotOpen(t *testing.T) {
	f := newFixture(t)
	a := f.publish()
	st := f.store(Options{})
	refresh(t, st)
	held, release := st.Acquire()
	if held.ID != a.ID {
		t.Fatalf("acquired %s, want %s", held.ID, a.ID)
	}
	b := f.publish()
	refresh(t, st)
	if st.Current() != b.ID || !held.Retired() {
		t.Fatalf("current %s (want %s), old retired %v", st.Current(), b.ID, held.Retired())
	}
	select {
	case <-held.Done():
		t.Fatal("a retired snapshot closed while a reader holds it")
	default:
	}
	if !inUse(t, f.data, a.ID) {
		t.Error("the lease of a snapshot still held by a reader was released")
	}
	if _, ok := held.Notes.Lookup("Home.md"); !ok {
		t.Error("the held snapshot stopped answering")
	}
	if got := st.Stats().Open; got != 2 {
		t.Errorf("open snapshots = %d, want 2", got)
	}
	release()
	release() // harmless
	<-held.Done()
	eventually(t, "retired snapshot closes", func() bool { return st.Stats().Open == 1 })
	if inUse(t, f.data, a.ID) {
		t.Error("lease still held after the last release")
	}
	if now, rel := st.Acquire(); now.ID != b.ID {
		t.Errorf("Acquire after swap = %s", now.ID)
	} else {
		rel()
	}
}

func TestNeverSwapsToAnOlderSnapshot(t *testing.T) {
	f := newFixture(t)
	a := f.publish()
	b := f.publish()
	other := t.TempDir()
	copySnapshot(t, b.Dir, other, false)
	st, err := New(other, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	refresh(t, st)
	copySnapshot(t, a.Dir, other, false) // an older snapshot imported later
	res := refresh(t, st)
	if res.Swapped || st.Current() != b.ID {
		t.Fatalf("swapped to an older snapshot: %+v", res)
	}
	if got := st.Stats(); got.Seen != 2 || got.Fallbacks != 0 || res.Fallback != nil {
		t.Errorf("stats = %+v, fallback %+v; want 2 seen and no fallback", got, res.Fallback)
	}
}

func TestBadSnapshotIsSkippedUntilItsFilesChange(t *testing.T) {
	f := newFixture(t)
	a := f.publish()
	st := f.store(Options{})
	refresh(t, st)
	b := f.publish()
	table := filepath.Join(b.Dir, format.NotesFile)
	good, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(table, int64(len(good)/2)); err != nil {
		t.Fatal(err)
	}
	res := refresh(t, st)
	if res.Swapped || st.Current() != a.ID || len(res.Rejected) != 1 || res.Rejected[0].ID != b.ID {
		t.Fatalf("Refresh with a truncated newer snapshot = %+v", res)
	}
	if inUse(t, f.data, b.ID) {
		t.Error("a rejected snapshot's lease is still held")
	}
	for range 3 {
		if res := refresh(t, st); len(res.Rejected) != 0 {
			t.Fatalf("an unchanged bad snapshot was tried again: %+v", res)
		}
	}
	if s := st.Stats(); s.Rejected != 1 || s.LastRejection == nil || s.LastRejection.ID != b.ID {
		t.Errorf("stats = %+v", s)
	}
	// The copy completes: the file changes, so it is tried again and served.
	if err := os.WriteFile(table, good, 0o644); err != nil {
		t.Fatal(err)
	}
	if res := refresh(t, st); !res.Swapped || res.Current != b.ID {
		t.Fatalf("Refresh after the snapshot was repaired = %+v", res)
	}
	// Once it serves, the rejection is history: the counter keeps it, the
	// status no longer reports it as the reason nothing newer serves.
	if s := st.Stats(); s.Rejected != 1 || s.LastRejection != nil {
		t.Errorf("stats after the repaired snapshot serves = %+v, want Rejected 1 and no LastRejection", s)
	}
}

func TestLastRejectionGoesWithTheRejectedSnapshot(t *testing.T) {
	f := newFixture(t)
	a := f.publish()
	st := f.store(Options{})
	refresh(t, st)
	b := f.publish()
	c := f.publish()
	for _, s := range []*indexer.Result{b, c} {
		if err := os.Remove(filepath.Join(s.Dir, format.ChunksFile)); err != nil {
			t.Fatal(err)
		}
	}
	refresh(t, st)
	if s := st.Stats(); st.Current() != a.ID || s.LastRejection == nil || s.LastRejection.ID != b.ID {
		t.Fatalf("after two bad snapshots: serving %s, stats %+v; want %s served and %s last rejected", st.Current(), s, a.ID, b.ID)
	}
	// Deleting the newest bad one leaves the last reported one listed.
	if err := os.RemoveAll(c.Dir); err != nil {
		t.Fatal(err)
	}
	refresh(t, st)
	if s := st.Stats(); s.LastRejection == nil || s.LastRejection.ID != b.ID {
		t.Fatalf("stats after deleting %s = %+v, want %s still reported", c.ID, s, b.ID)
	}
	if err := os.RemoveAll(b.Dir); err != nil {
		t.Fatal(err)
	}
	refresh(t, st)
	if s := st.Stats(); s.Rejected != 2 || s.LastRejection != nil || st.Current() != a.ID {
		t.Fatalf("stats after deleting the rejected snapshot = %+v (serving %s), want Rejected 2, no LastRejection, %s served", s, st.Current(), a.ID)
	}
}

func TestVerifyRejectsAFlippedByte(t *testing.T) {
	f := newFixture(t)
	a := f.publish()
	b := f.publish()
	flipByte(t, filepath.Join(b.Dir, format.EdgesFile))
	st := f.store(Options{Verify: true})
	res := refresh(t, st)
	if st.Current() != a.ID || len(res.Rejected) != 1 || res.Rejected[0].ID != b.ID {
		t.Fatalf("Refresh = %+v, want %s served and %s rejected", res, a.ID, b.ID)
	}
}

func TestNewestBadFallsBackToTheNextNewer(t *testing.T) {
	f := newFixture(t)
	f.publish()
	st := f.store(Options{})
	refresh(t, st)
	b := f.publish()
	c := f.publish()
	if err := os.Remove(filepath.Join(c.Dir, format.ChunksFile)); err != nil {
		t.Fatal(err)
	}
	res := refresh(t, st)
	if res.Current != b.ID || len(res.Rejected) != 1 || res.Rejected[0].ID != c.ID {
		t.Fatalf("Refresh = %+v, want %s served, %s rejected", res, b.ID, c.ID)
	}
}

func TestNoSnapshotYet(t *testing.T) {
	f := newFixture(t)
	st := f.store(Options{})
	if res := refresh(t, st); res.Current != "" {
		t.Fatalf("Refresh on an empty data directory = %+v", res)
	}
	if snap, release := st.Acquire(); snap != nil {
		release()
		t.Fatal("Acquire returned a snapshot from an empty data directory")
	}
	a := f.publish()
	if res := refresh(t, st); res.Current != a.ID {
		t.Fatalf("Refresh = %+v", res)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := New(file, Options{}); err == nil {
		t.Error("New accepted a file as the data directory")
	}
}

// TestWatchAMissingDataDirectory: a server started before the first index
// run, whose data directory and its parent do not exist yet, serves the
// first snapshot published there, from file system events alone.
func TestWatchAMissingDataDirectory(t *testing.T) {
	f := newFixture(t)
	f.data = filepath.Join(f.data, "not", "yet")
	st := f.store(Options{})
	if res := refresh(t, st); res.Current != "" {
		t.Fatalf("Refresh of a missing data directory = %+v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- st.Watch(ctx, WatchOptions{Poll: -1, Debounce: 5 * time.Millisecond}) }()
	defer func() { cancel(); <-done }()
	time.Sleep(50 * time.Millisecond) // let the watch start; only makes the test meaningful, not pass
	a := f.publish()
	eventually(t, "watch serves the first snapshot", func() bool { return st.Current() == a.ID })
}

func TestCloseWaitsForReaders(t *testing.T) {
	f := newFixture(t)
	a := f.publish()
	st, err := New(f.data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	refresh(t, st)
	_, release := st.Acquire()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := st.Close(ctx); err == nil {
		t.Fatal("Close returned while a reader held a snapshot")
	}
	if snap, rel := st.Acquire(); snap != nil {
		rel()
		t.Error("Acquire after Close returned a snapshot")
	}
	if _, err := st.Refresh(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Refresh after Close: %v", err)
	}
	release()
	if err := st.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if inUse(t, f.data, a.ID) {
		t.Error("lease held after Close")
	}
}

// TestAcquireNeverSeesAClosedSnapshot publishes synthetic snapshots as fast
// as it can while readers acquire and release: no reader may ever hold a
// closed snapshot, and every snapshot closes exactly once.
func TestAcquireNeverSeesAClosedSnapshot(t *testing.T) {
	st, err := New(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var closes sync.Map // id -> *atomic.Int32
	newSnap := func(i int) *Snapshot {
		s := newSnapshot(fmt.Sprintf("S%06d", i), "")
		s.Manifest = &format.Manifest{}
		n := new(atomic.Int32)
		closes.Store(s.ID, n)
		s.addCloser("probe", func() error { n.Add(1); return nil })
		return s
	}
	st.refreshMu.Lock()
	st.publish(newSnap(0), "")
	st.refreshMu.Unlock()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var bad atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				s, release := st.Acquire()
				n, _ := closes.Load(s.ID)
				if n.(*atomic.Int32).Load() != 0 {
					bad.Add(1)
				}
				runtime.Gosched()
				if n.(*atomic.Int32).Load() != 0 {
					bad.Add(1)
				}
				release()
			}
		}()
	}
	for i := 1; i <= 2000; i++ {
		st.refreshMu.Lock()
		st.publish(newSnap(i), "")
		st.refreshMu.Unlock()
	}
	close(stop)
	wg.Wait()
	if err := st.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if bad.Load() != 0 {
		t.Fatalf("readers held a closed snapshot %d times", bad.Load())
	}
	closes.Range(func(k, v any) bool {
		if n := v.(*atomic.Int32).Load(); n != 1 {
			t.Errorf("snapshot %v closed %d times", k, n)
		}
		return true
	})
}

func TestWatchFollowsEventsAndPolls(t *testing.T) {
	tests := []struct {
		name string
		opts WatchOptions
	}{
		{"events", WatchOptions{Poll: -1}},
		{"poll only", WatchOptions{Poll: 20 * time.Millisecond, noEvents: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			st := f.store(Options{})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error)
			go func() { done <- st.Watch(ctx, tc.opts) }()
			defer func() { cancel(); <-done }()
			// The snapshots directory does not exist yet: Watch must
			// notice it being created.
			for range 3 {
				res := f.publish()
				eventually(t, "watch serves "+res.ID, func() bool { return st.Current() == res.ID })
			}
		})
	}
}

// TestWatchServesARenamedSnapshotAtOnce: a snapshot renamed into place
// (as the indexer publishes) is complete, so the watch rescans on its
// event without waiting out the debounce, here longer than the test.
func TestWatchServesARenamedSnapshotAtOnce(t *testing.T) {
	f := newFixture(t)
	f.publish()
	st := f.store(Options{})
	refresh(t, st)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- st.Watch(ctx, WatchOptions{Poll: -1, Debounce: time.Hour}) }()
	defer func() { cancel(); <-done }()
	for range 2 {
		res := f.publish()
		eventually(t, "watch serves "+res.ID+" before the debounce ends", func() bool { return st.Current() == res.ID })
	}
}

// TestWatchSeesACopyCompleting copies a snapshot into place file by file
// (as rsync or cp -r do, without a rename): the watcher must serve it once
// it is complete, with polling off, whether the manifest comes last or
// first.
func TestWatchSeesACopyCompleting(t *testing.T) {
	for _, manifestFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("manifest first %v", manifestFirst), func(t *testing.T) {
			src := newFixture(t)
			a := src.publish()
			b := src.publish()
			f := newFixture(t)
			copySnapshot(t, a.Dir, f.data, false)
			st := f.store(Options{})
			refresh(t, st)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error)
			go func() { done <- st.Watch(ctx, WatchOptions{Poll: -1, Debounce: 5 * time.Millisecond}) }()
			defer func() { cancel(); <-done }()
			time.Sleep(50 * time.Millisecond) // let the watch start; only makes the test meaningful, not pass
			copySnapshotSlowly(t, b.Dir, f.data, manifestFirst)
			eventually(t, "watch serves the copied snapshot", func() bool { return st.Current() == b.ID })
		})
	}
}

// copySnapshot copies a snapshot directory into dataDir/snapshots, through
// a temporary name and a rename unless direct.
func copySnapshot(t *testing.T, dir, dataDir string, direct bool) {
	t.Helper()
	snaps := snapshot.SnapshotsDir(dataDir)
	dst := filepath.Join(snaps, filepath.Base(dir))
	tmp := dst
	if !direct {
		tmp = filepath.Join(snaps, format.TempPrefix+filepath.Base(dir))
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range filesOf(t, dir) {
		copyFile(t, filepath.Join(dir, name), filepath.Join(tmp, name))
	}
	if tmp != dst {
		if err := os.Rename(tmp, dst); err != nil {
			t.Fatal(err)
		}
	}
}

// copySnapshotSlowly creates the directory in place and copies its files
// one by one with pauses, the manifest last or first.
func copySnapshotSlowly(t *testing.T, dir, dataDir string, manifestFirst bool) {
	t.Helper()
	dst := filepath.Join(snapshot.SnapshotsDir(dataDir), filepath.Base(dir))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	names := filesOf(t, dir)
	sort.SliceStable(names, func(i, j int) bool {
		mi, mj := names[i] == format.ManifestFile, names[j] == format.ManifestFile
		if manifestFirst {
			return mi && !mj
		}
		return !mi && mj
	})
	for _, name := range names {
		time.Sleep(20 * time.Millisecond)
		copyFile(t, filepath.Join(dir, name), filepath.Join(dst, name))
	}
}

func filesOf(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		names = append(names, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func flipByte(t *testing.T, p string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDefaultStoreRejectsAFlippedByteInEveryFile damages each file of the
// newest snapshot in turn (one byte in the middle, the size unchanged) and
// refreshes a store with the default options: it never swaps to the
// damaged snapshot and keeps serving the one before. (Without --verify
// the server checked sizes only and served 11 of 33 such corruptions.)
func TestDefaultStoreRejectsAFlippedByteInEveryFile(t *testing.T) {
	f := newFixture(t)
	f.publish()
	b := f.publish()
	for name, info := range b.Manifest.Files {
		if info.XXH64 == "" {
			t.Errorf("%s has no xxh64 in the manifest", name)
		}
	}
	st := f.store(Options{})
	if res := refresh(t, st); st.Current() != b.ID {
		t.Fatalf("Refresh = %+v, want the intact %s served", res, b.ID)
	}
	for name := range b.Manifest.Files {
		t.Run(name, func(t *testing.T) {
			c := f.publish()
			p := filepath.Join(c.Dir, filepath.FromSlash(name))
			// Unlink first: the file may be a hard link to the parent's.
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatalf("snapshot %s has no %s: %v", c.ID, name, err)
			}
			raw[len(raw)/2] ^= 0xff
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			before := st.Current()
			res := refresh(t, st)
			if st.Current() != before || len(res.Rejected) == 0 || res.Rejected[0].ID != c.ID {
				t.Fatalf("Refresh = %+v, want %s kept and %s rejected", res, before, c.ID)
			}
			if err := os.RemoveAll(c.Dir); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestRejectionLogSaysWhatIsServed: the warning for a snapshot that does
// not open names the one still served, or says that none is served yet
// (not "serving=" with an empty id).
func TestRejectionLogSaysWhatIsServed(t *testing.T) {
	f := newFixture(t)
	a := f.publish()
	if err := os.Truncate(filepath.Join(a.Dir, format.NotesFile), 10); err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	st := f.store(Options{Log: logs.logger()})
	if res := refresh(t, st); len(res.Rejected) != 1 || res.Current != "" {
		t.Fatalf("Refresh with only a bad snapshot = %+v", res)
	}
	warn := grepLog(logs.String(), "does not open")
	if !strings.Contains(warn, "no snapshot is served yet") || !strings.Contains(warn, a.ID) || strings.Contains(warn, "serving=") {
		t.Errorf("rejection log with nothing served = %q", warn)
	}

	b := f.publish()
	if res := refresh(t, st); res.Current != b.ID {
		t.Fatalf("Refresh after a good publish = %+v", res)
	}
	c := f.publish()
	if err := os.Truncate(filepath.Join(c.Dir, format.NotesFile), 10); err != nil {
		t.Fatal(err)
	}
	refresh(t, st)
	warn = grepLog(logs.String(), c.ID)
	if !strings.Contains(warn, "still serving the previous one") || !strings.Contains(warn, "serving="+b.ID) {
		t.Errorf("rejection log with %s served = %q", b.ID, warn)
	}
}
