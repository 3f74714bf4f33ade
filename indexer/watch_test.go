package indexer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/google/go-cmp/cmp"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/format/glob"
	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed/embedtest"
)

// watching runs Watch in the background and collects its runs.
type watching struct {
	t       *testing.T
	results chan *Result
	errs    chan error
	done    chan error
	cancel  context.CancelFunc
}

func startWatch(t *testing.T, opts Options, wopts WatchOptions) *watching {
	ctx, cancel := context.WithCancel(context.Background())
	w := &watching{t: t, results: make(chan *Result, 100), errs: make(chan error, 100), done: make(chan error, 1), cancel: cancel}
	wopts.OnRun = func(r *Result, err error) {
		if err != nil {
			w.errs <- err
			return
		}
		w.results <- r
	}
	go func() { w.done <- Watch(ctx, opts, wopts) }()
	t.Cleanup(func() { w.stop() })
	return w
}

// waitFor waits for a run whose result satisfies ok.
func (w *watching) waitFor(what string, ok func(*Result) bool) *Result {
	w.t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case r := <-w.results:
			if ok(r) {
				return r
			}
		case err := <-w.errs:
			w.t.Logf("run failed (watch retries): %v", err)
		case err := <-w.done:
			w.t.Fatalf("Watch returned while waiting for %s: %v", what, err)
		case <-timeout:
			w.t.Fatalf("no snapshot with %s within 60s", what)
		}
	}
}

func (w *watching) stop() {
	w.cancel()
	select {
	case err := <-w.done:
		if err != nil {
			w.t.Errorf("Watch returned %v after cancel, want nil", err)
		}
		w.done <- nil
	case <-time.After(30 * time.Second):
		w.t.Error("Watch did not return after cancel")
	}
}

func fileSHA(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func TestWatchPicksUpEditsAndNewFolders(t *testing.T) {
	for _, mode := range []struct {
		name string
		poll time.Duration
	}{{"events", 0}, {"poll", 100 * time.Millisecond}} {
		t.Run(mode.name, func(t *testing.T) {
			vault, data := t.TempDir(), t.TempDir()
			if _, err := vaultgen.Generate(vault, vaultgen.Config{Notes: 200, Seed: 5}); err != nil {
				t.Fatal(err)
			}
			w := startWatch(t, Options{Vault: vault, Data: data}, WatchOptions{Debounce: 50 * time.Millisecond, Poll: mode.poll})
			first := w.waitFor("the first snapshot", func(r *Result) bool { return !r.Unchanged })

			edited, err := vaultgen.Edit(vault, 9, 1)
			if err != nil || len(edited) != 1 {
				t.Fatal(edited, err)
			}
			sum := fileSHA(t, filepath.Join(vault, edited[0]))
			second := w.waitFor("the edit", func(r *Result) bool { return r.Manifest.Notes[edited[0]].SHA256 == sum })
			if second.Parent != first.ID {
				t.Errorf("edit snapshot's parent = %s, want %s", second.Parent, first.ID)
			}

			// A new folder, two deep, with a note; then an edit inside it,
			// which only a watch on the new folder (or a poll) sees.
			fresh := filepath.Join(vault, "New Folder", "Deeper", "Fresh.md")
			if err := os.MkdirAll(filepath.Dir(fresh), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(fresh, []byte("# Fresh\n\nLinks to [[Nowhere]].\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			w.waitFor("the new folder's note", func(r *Result) bool { _, ok := r.Manifest.Notes["New Folder/Deeper/Fresh.md"]; return ok })
			time.Sleep(20 * time.Millisecond) // a later mtime for the poller
			if err := os.WriteFile(fresh, []byte("# Fresh\n\nNow links to [[Somewhere]].\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sum = fileSHA(t, fresh)
			w.waitFor("the edit in the new folder", func(r *Result) bool { return r.Manifest.Notes["New Folder/Deeper/Fresh.md"].SHA256 == sum })

			// Nothing the watcher does writes to the vault.
			before := treeSignature(t, vault)
			if err := os.Remove(fresh); err != nil {
				t.Fatal(err)
			}
			before = treeSignature(t, vault)
			w.waitFor("the deletion", func(r *Result) bool { _, ok := r.Manifest.Notes["New Folder/Deeper/Fresh.md"]; return !ok })
			if after := treeSignature(t, vault); after != before {
				t.Error("the vault changed while watching")
			}
			entries, _ := snapshot.List(data)
			if len(entries) < 4 {
				t.Errorf("%d snapshots, want at least 4", len(entries))
			}
		})
	}
}

func TestWatchSkipsWhatTheIndexerSkips(t *testing.T) {
	root := writeVault(t, map[string]string{"Old/a.md": "a"})
	ignore, _ := compileIgnore([]string{"Templates/"})
	ew := startEventWatcher(t, root, ignore)
	for name, want := range map[string]bool{
		"a.md": true, "Sub/b.MD": true, "image.png": false, ".obsidian/workspace.json": false, ".trash/x.md": false,
		"Sub/.hidden.md": false, "Templates/t.md": false, "Old": true,
	} {
		ev := fsnotify.Event{Name: filepath.Join(ew.root, filepath.FromSlash(name)), Op: fsnotify.Write}
		if name == "Old" {
			ev.Op = fsnotify.Remove
		}
		if got := ew.relevant(ev); got != want {
			t.Errorf("relevant(%s) = %v, want %v", name, got, want)
		}
	}
	if ew.relevant(fsnotify.Event{Name: filepath.Join(ew.root, "a.md"), Op: fsnotify.Chmod}) {
		t.Error("a chmod alone triggered a run")
	}
}

func TestWatchRetriesWhileLocked(t *testing.T) {
	vault, data := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(vault, "a.md"), []byte("# A\n"), 0o644)
	release, err := snapshot.Lock(context.Background(), data, 0)
	if err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, Options{Vault: vault, Data: data}, WatchOptions{Debounce: 20 * time.Millisecond})
	select {
	case err := <-w.errs:
		if !errors.Is(err, snapshot.ErrLocked) {
			t.Fatalf("first run = %v, want ErrLocked", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no run")
	}
	release()
	w.waitFor("a snapshot once the lock is free", func(r *Result) bool { return !r.Unchanged })
}

func TestBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 7: time.Minute, 50: time.Minute} {
		if got := backoff(n); got != want {
			t.Errorf("backoff(%d) = %v, want %v", n, got, want)
		}
	}
}

// BenchmarkWatchEditToSnapshot measures how long a saved note takes to
// reach a new snapshot on the 10,000-note vault: the time from writing
// the note to the published snapshot holding it, debounce included.
//
//	go test -run '^$' -bench WatchEditToSnapshot -benchtime 10x ./indexer/
func BenchmarkWatchEditToSnapshot(b *testing.B) {
	src := mustBenchVault(b)
	vault := filepath.Join(b.TempDir(), "vault")
	if err := os.CopyFS(vault, os.DirFS(src)); err != nil {
		b.Fatal(err)
	}
	for _, poll := range []time.Duration{0, time.Second} {
		name := "events"
		if poll > 0 {
			name = "poll-1s"
		}
		b.Run(name, func(b *testing.B) {
			data := b.TempDir()
			results := make(chan *Result, 100)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- Watch(ctx, Options{Vault: vault, Data: data}, WatchOptions{Poll: poll, OnRun: func(r *Result, err error) {
					if err != nil {
						b.Error(err)
						return
					}
					results <- r
				}})
			}()
			<-results
			var total, worst time.Duration
			for i := range b.N {
				edited, err := vaultgen.Edit(vault, int64(i)+1000*int64(poll/time.Second), 1)
				if err != nil {
					b.Fatal(err)
				}
				saved := time.Now()
				content, err := os.ReadFile(filepath.Join(vault, edited[0]))
				if err != nil {
					b.Fatal(err)
				}
				sum := sha256.Sum256(content)
				want := hex.EncodeToString(sum[:])
				for r := range results {
					if r.Manifest.Notes[edited[0]].SHA256 == want {
						break
					}
				}
				d := time.Since(saved)
				total += d
				worst = max(worst, d)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/edit")
			b.ReportMetric(float64(worst.Milliseconds()), "max-ms")
			cancel()
			<-done
		})
	}
}

// TestWatchRetriesPendingVectors: a watch started while the model server
// is down fills the vectors in once the server is up, without any edit.
func TestWatchRetriesPendingVectors(t *testing.T) {
	vault := writeVault(t, embedVault)
	data := t.TempDir()
	srv := embedtest.NewOllama(t)
	srv.Fail(embedtest.Drop, -1)
	w := startWatch(t, Options{Vault: vault, Data: data, Stages: []Stage{stageFor(t, "ollama", srv, false)}},
		WatchOptions{PendingRetry: 10 * time.Millisecond})
	first := w.waitFor("pending vectors", func(r *Result) bool { return !r.Unchanged && hasPending(r.Manifest) })
	// While the server stays down the retries publish nothing.
	stalled := w.waitFor("a stalled retry", func(r *Result) bool { return r.Unchanged && len(r.Stalled) > 0 })
	if stalled.ID != first.ID {
		t.Fatalf("stalled retry reports %s, want the first snapshot %s", stalled.ID, first.ID)
	}
	srv.Fail(embedtest.OK, 0)
	filled := w.waitFor("every vector", func(r *Result) bool { return !r.Unchanged && !hasPending(r.Manifest) })
	if filled.Parent != first.ID {
		t.Errorf("filled snapshot's parent %s, want %s (no snapshot published while the server was down)", filled.Parent, first.ID)
	}
	if dirs := snapshotDirs(t, data); len(dirs) != 2 {
		t.Errorf("snapshots %v, want the pending one and the filled one", dirs)
	}
}

// startEventWatcher watches root (its real path: ew.root) without running
// the watcher's goroutine: tests read the events themselves (await).
func startEventWatcher(t *testing.T, root string, ignore *glob.Set) *eventWatcher {
	t.Helper()
	real, err := filepath.EvalSymlinks(root)
	must(t, err)
	if ignore == nil {
		ignore = &glob.Set{}
	}
	ew, err := newEventWatcher(real, ignore, &changeSet{}, slog.New(slog.DiscardHandler))
	must(t, err)
	t.Cleanup(func() { ew.w.Close() })
	return ew
}

// await handles events as the watcher's goroutine does until one satisfies
// stop. It returns whether that one was relevant, and the vault paths of
// the relevant events before it.
func (ew *eventWatcher) await(t *testing.T, what string, stop func(fsnotify.Event) bool) (relevant bool, before []string) {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case ev := <-ew.w.Events:
			rel := ew.relevant(ev)
			if stop(ev) {
				return rel, before
			}
			if rel {
				r, _ := filepath.Rel(ew.root, ev.Name)
				before = append(before, filepath.ToSlash(r)+" "+ev.Op.String())
			}
		case err := <-ew.w.Errors:
			t.Fatalf("waiting for %s: %v", what, err)
		case <-timeout:
			t.Fatalf("no event for %s within 60s", what)
		}
	}
}

func (ew *eventWatcher) watched(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, p := range ew.w.WatchList() {
		r, err := filepath.Rel(ew.root, p)
		must(t, err)
		out = append(out, filepath.ToSlash(r))
	}
	slices.Sort(out)
	return out
}

func named(p string, op fsnotify.Op) func(fsnotify.Event) bool {
	return func(ev fsnotify.Event) bool { return ev.Name == p && ev.Has(op) }
}

// TestEventWatcherKeepsWatchingRenamedFolders: after a folder is renamed,
// again and again, notes written in it and in its subfolders are seen
// (fsnotify used to drop the new watch along with the old one), and no
// folder stays watched under an old name.
func TestEventWatcherKeepsWatchingRenamedFolders(t *testing.T) {
	ew := startEventWatcher(t, writeVault(t, map[string]string{"Projects/a.md": "a", "Projects/Sub/b.md": "b"}), nil)
	name := "Projects"
	for i := range 6 {
		next := fmt.Sprintf("Work %d", i)
		must(t, os.Rename(filepath.Join(ew.root, name), filepath.Join(ew.root, next)))
		if rel, _ := ew.await(t, "the rename", named(filepath.Join(ew.root, next), fsnotify.Create)); !rel {
			t.Fatalf("rename %d: a folder of notes arriving is no change", i)
		}
		name = next
		for _, dir := range []string{name, name + "/Sub"} {
			note := filepath.Join(ew.root, filepath.FromSlash(dir), fmt.Sprintf("new %d.md", i))
			must(t, os.WriteFile(note, []byte("# new\n"), 0o644))
			if rel, _ := ew.await(t, "a note in "+dir, named(note, fsnotify.Create)); !rel {
				t.Fatalf("rename %d: a new note in %s is no change", i, dir)
			}
		}
		if diff := cmp.Diff([]string{".", name, name + "/Sub"}, ew.watched(t)); diff != "" {
			t.Fatalf("rename %d: watched folders (-want +got):\n%s", i, diff)
		}
	}
}

// TestEventWatcherForgetsFoldersMovedAway: a folder moved out of the vault
// or into .trash is watched no more, nor are its subfolders; edits there
// are no change to the vault.
func TestEventWatcherForgetsFoldersMovedAway(t *testing.T) {
	for _, dest := range []string{"out of the vault", "into .trash"} {
		t.Run(dest, func(t *testing.T) {
			ew := startEventWatcher(t, writeVault(t, map[string]string{
				"Projects/a.md": "a", "Projects/Sub/b.md": "b", "Projects/Sub/Deeper/c.md": "c", "Home.md": "home", ".trash/x.md": "x"}), nil)
			away := filepath.Join(t.TempDir(), "Projects")
			if dest == "into .trash" {
				away = filepath.Join(ew.root, ".trash", "Projects")
			}
			must(t, os.Rename(filepath.Join(ew.root, "Projects"), away))
			if rel, _ := ew.await(t, "the move", named(filepath.Join(ew.root, "Projects"), fsnotify.Rename)); !rel {
				t.Fatal("a folder of notes leaving is no change")
			}
			for _, p := range []string{"a.md", "Sub/b.md", "Sub/Deeper/c.md", "Sub/new.md"} {
				must(t, os.WriteFile(filepath.Join(away, filepath.FromSlash(p)), []byte("edited away"), 0o644))
			}
			must(t, os.RemoveAll(filepath.Join(away, "Sub", "Deeper")))
			// A note saved in the vault afterwards: every event of the
			// edits away, if any, comes before its own.
			home := filepath.Join(ew.root, "Home.md")
			must(t, os.WriteFile(home, []byte("home, edited"), 0o644))
			if _, before := ew.await(t, "the edit in the vault", named(home, fsnotify.Write)); len(before) > 0 {
				t.Errorf("edits to a folder moved %s are changes: %v", dest, before)
			}
			if diff := cmp.Diff([]string{"."}, ew.watched(t)); diff != "" {
				t.Errorf("watched folders (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEventWatcherNewFoldersWithoutNotes: a new folder is a change only if
// it brings notes (or symlinks); it is watched either way.
func TestEventWatcherNewFoldersWithoutNotes(t *testing.T) {
	ew := startEventWatcher(t, writeVault(t, map[string]string{"Home.md": "home"}), nil)
	outside := writeVault(t, map[string]string{
		"Pictures/cat.png": "png", "Pictures/Raw/cat.raw": "raw", "Hidden/.draft.md": "dot file",
		"Notes/Deep/n.md": "n", "Linked/Sub/pointer": "",
	})
	must(t, os.Remove(filepath.Join(outside, "Linked", "Sub", "pointer")))
	must(t, os.Symlink("../../Home.md", filepath.Join(outside, "Linked", "Sub", "pointer")))
	for _, tc := range []struct {
		name string
		want bool
	}{{"Empty", false}, {"Pictures", false}, {"Hidden", false}, {"Notes", true}, {"Linked", true}} {
		p := filepath.Join(ew.root, tc.name)
		if tc.name == "Empty" {
			must(t, os.Mkdir(p, 0o755))
		} else {
			must(t, os.Rename(filepath.Join(outside, tc.name), p))
		}
		if got, _ := ew.await(t, "folder "+tc.name, named(p, fsnotify.Create)); got != tc.want {
			t.Errorf("new folder %s: relevant = %v, want %v", tc.name, got, tc.want)
		}
	}
	note := filepath.Join(ew.root, "Pictures", "Raw", "later.md")
	must(t, os.WriteFile(note, []byte("later"), 0o644))
	if got, _ := ew.await(t, "a note in the new folder", named(note, fsnotify.Create)); !got {
		t.Error("a note written in a new folder is no change")
	}
	link := filepath.Join(ew.root, "Empty", "cards")
	must(t, os.Symlink("../Notes", link))
	if got, _ := ew.await(t, "a symlink", named(link, fsnotify.Create)); !got {
		t.Error("a new symlink to a folder is no change")
	}
	must(t, os.Remove(link))
	if got, _ := ew.await(t, "a symlink removed", named(link, fsnotify.Remove)); !got {
		t.Error("a removed symlink to a folder is no change")
	}
}

// TestEventWatcherResync: watches lost without an event (here removed
// behind the watcher's back) come back after a resync, which reports the
// folders holding notes; stale ones go.
func TestEventWatcherResync(t *testing.T) {
	ew := startEventWatcher(t, writeVault(t, map[string]string{"A/a.md": "a", "B/pic.png": "png", "C/c.md": "c"}), nil)
	for _, p := range []string{"A", "B"} {
		must(t, ew.w.Remove(filepath.Join(ew.root, p)))
	}
	if ew.resync() != true {
		t.Error("a folder of notes found unwatched: no change reported")
	}
	if _, all := ew.dirty.take(); !all {
		t.Error("resync found unwatched notes but recorded no change")
	}
	if diff := cmp.Diff([]string{".", "A", "B", "C"}, ew.watched(t)); diff != "" {
		t.Errorf("watched folders after resync (-want +got):\n%s", diff)
	}
	must(t, ew.w.Remove(filepath.Join(ew.root, "B")))
	if ew.resync() {
		t.Error("a folder without notes found unwatched is a change")
	}
	if ew.resync() {
		t.Error("a resync with every folder watched is a change")
	}
	// A folder moved away before its events are handled: the resync that
	// drops its watch reports the change the events no longer will.
	must(t, os.Rename(filepath.Join(ew.root, "C"), filepath.Join(t.TempDir(), "C")))
	if !ew.resync() {
		t.Error("a watched folder gone: no change reported")
	}
	if diff := cmp.Diff([]string{".", "A", "B"}, ew.watched(t)); diff != "" {
		t.Errorf("watched folders after a folder went (-want +got):\n%s", diff)
	}
}

// TestWatchFollowsRenamedFolders: the reviewer's case end to end. After a
// folder is renamed, a note written in it reaches a snapshot, rename after
// rename.
func TestWatchFollowsRenamedFolders(t *testing.T) {
	vault := writeVault(t, map[string]string{"Projects/a.md": "# a\n", "Projects/Sub/b.md": "# b\n"})
	w := startWatch(t, Options{Vault: vault, Data: t.TempDir()}, WatchOptions{Debounce: 20 * time.Millisecond})
	w.waitFor("the first snapshot", func(r *Result) bool { return !r.Unchanged })
	name := "Projects"
	for i := range 4 {
		next := fmt.Sprintf("Work %d", i)
		must(t, os.Rename(filepath.Join(vault, name), filepath.Join(vault, next)))
		name = next
		w.waitFor("the renamed notes", func(r *Result) bool { _, ok := r.Manifest.Notes[name+"/Sub/b.md"]; return ok })
		fresh := []string{fmt.Sprintf("%s/new %d.md", name, i), fmt.Sprintf("%s/Sub/new %d.md", name, i)}
		for _, p := range fresh {
			must(t, os.WriteFile(filepath.Join(vault, filepath.FromSlash(p)), []byte("# new note\n"), 0o644))
		}
		w.waitFor("the notes written in the renamed folder", func(r *Result) bool {
			_, ok1 := r.Manifest.Notes[fresh[0]]
			_, ok2 := r.Manifest.Notes[fresh[1]]
			return ok1 && ok2
		})
	}
}

// next returns the next run's result.
func (w *watching) next(what string) *Result {
	w.t.Helper()
	var r *Result
	w.waitFor(what, func(got *Result) bool { r = got; return true })
	return r
}

// untilNote returns the results up to the first whose note rel has the
// content of the file now.
func (w *watching) untilNote(vault, rel string) []*Result {
	w.t.Helper()
	sum := fileSHA(w.t, filepath.Join(vault, filepath.FromSlash(rel)))
	var seen []*Result
	for {
		r := w.next(rel)
		seen = append(seen, r)
		if r.Manifest.Notes[rel].SHA256 == sum {
			return seen
		}
	}
}

// noUnchanged fails for an Unchanged run among rs: a run that a change to
// the vault did not call for.
func noUnchanged(t *testing.T, rs []*Result, after string) {
	t.Helper()
	for _, r := range rs {
		if r.Unchanged {
			t.Errorf("a run after %s found nothing to do", after)
		}
	}
}

// TestWatchIgnoresFoldersMovedOut: edits to a folder moved out of the
// vault trigger no run.
func TestWatchIgnoresFoldersMovedOut(t *testing.T) {
	vault := writeVault(t, map[string]string{"Projects/a.md": "a", "Projects/Sub/b.md": "b", "Home.md": "home"})
	w := startWatch(t, Options{Vault: vault, Data: t.TempDir()}, WatchOptions{Debounce: 50 * time.Millisecond})
	w.waitFor("the first snapshot", func(r *Result) bool { return !r.Unchanged })
	away := filepath.Join(t.TempDir(), "Projects")
	must(t, os.Rename(filepath.Join(vault, "Projects"), away))
	w.waitFor("the move", func(r *Result) bool { _, ok := r.Manifest.Notes["Projects/Sub/b.md"]; return !ok })
	for _, p := range []string{"a.md", "Sub/b.md", "Sub/c.md"} {
		must(t, os.WriteFile(filepath.Join(away, filepath.FromSlash(p)), []byte("edited away"), 0o644))
	}
	// Give a wrong run time to start before the sentinel edit; on a slow
	// machine the two may fold into one run, which passes.
	time.Sleep(300 * time.Millisecond)
	must(t, os.WriteFile(filepath.Join(vault, "Home.md"), []byte("home, edited"), 0o644))
	noUnchanged(t, w.untilNote(vault, "Home.md"), "edits out of the vault")
}

// hookStage calls hook in every run that publishes.
type hookStage struct{ hook func() }

func (hookStage) Name() string                        { return "hook" }
func (s hookStage) Run(context.Context, *Build) error { s.hook(); return nil }

// TestWatchSkipsChangesAlreadyIndexed: a save that leaves a note as the
// last run read it (here during that run, after the run read it) triggers
// no run; a change made during a run after it read the note triggers one.
func TestWatchSkipsChangesAlreadyIndexed(t *testing.T) {
	vault := writeVault(t, map[string]string{"A.md": "a1", "B.md": "b1"})
	var mu sync.Mutex
	var during func()
	hook := func() {
		mu.Lock()
		defer mu.Unlock()
		if during != nil {
			during()
			during = nil
		}
	}
	w := startWatch(t, Options{Vault: vault, Data: t.TempDir(), Stages: []Stage{hookStage{hook}}}, WatchOptions{Debounce: 50 * time.Millisecond})
	w.waitFor("the first snapshot", func(r *Result) bool { return !r.Unchanged })
	write := func(rel, content string) {
		must(t, os.WriteFile(filepath.Join(vault, rel), []byte(content), 0o644))
	}
	set := func(f func()) { mu.Lock(); during = f; mu.Unlock() }

	set(func() { write("B.md", "b1") })
	write("A.md", "a2")
	w.untilNote(vault, "A.md")
	time.Sleep(300 * time.Millisecond) // as in TestWatchIgnoresFoldersMovedOut
	set(func() { write("B.md", "b2") })
	write("A.md", "a3")
	noUnchanged(t, w.untilNote(vault, "A.md"), "a save that changed nothing")
	w.untilNote(vault, "B.md")
}

func TestAlreadyIndexed(t *testing.T) {
	root := writeVault(t, map[string]string{"Same.md": "same", "Edited.md": "new", "Big.md": "0123456789", "New.md": "n"})
	m := &format.Manifest{
		Notes: map[string]format.NoteSignature{
			"Same.md": {SHA256: format.TextHash("same")}, "Edited.md": {SHA256: format.TextHash("old")},
			"Gone.md": {SHA256: format.TextHash("gone")}, "Big.md": {SHA256: format.TextHash("0123456789")},
		},
		Warnings: []format.Warning{{File: "Binary.md", Kind: format.WarnBinary}},
	}
	must(t, os.Symlink("Same.md", filepath.Join(root, "Link.md")))
	for _, tc := range []struct {
		notes []string
		want  bool
	}{
		{nil, true},
		{[]string{"Same.md"}, true},
		{[]string{"Never.md"}, true}, // created and deleted: no note before or after
		{[]string{"Same.md", "Edited.md"}, false},
		{[]string{"Gone.md"}, false},
		{[]string{"New.md"}, false},
		{[]string{"Binary.md"}, false}, // its warning goes
		{[]string{"Big.md"}, false},    // over the limit now
		{[]string{"Link.md"}, false},
	} {
		if got := alreadyIndexed(root, m, tc.notes, 5); got != tc.want {
			t.Errorf("alreadyIndexed(%v) = %v, want %v", tc.notes, got, tc.want)
		}
	}
	if alreadyIndexed(root, nil, nil, 5) {
		t.Error("no manifest (a failed run): changes already indexed")
	}
}

// TestPollSettler: a change seen at a poll waits for polls that find
// nothing new, or for the cap.
func TestPollSettler(t *testing.T) {
	for _, tc := range []struct {
		name            string
		every, debounce time.Duration
		polls           string // c: the poll found a change, q: it did not
		want            string // r: run after that poll
	}{
		{"one change", time.Second, 500 * time.Millisecond, "qqcqq", "...r."},
		{"a burst over several polls", time.Second, 500 * time.Millisecond, "ccccqq", "....r."},
		{"the cap", time.Second, 500 * time.Millisecond, "ccccccccccccq", ".....r.....r."},
		{"quiet for the debounce", 100 * time.Millisecond, 250 * time.Millisecond, "ccqqcqqqq", ".......r."},
		{"poll longer than the cap", 30 * time.Second, 500 * time.Millisecond, "cqccccc", ".r.r.r."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newPollSettler(tc.every, tc.debounce)
			var got strings.Builder
			for _, c := range tc.polls {
				if s.poll(c == 'c') {
					got.WriteByte('r')
				} else {
					got.WriteByte('.')
				}
			}
			if got.String() != tc.want {
				t.Errorf("runs %s, want %s", got.String(), tc.want)
			}
		})
	}
}

// TestPollerSettlesBursts polls a real vault by hand: saves spread over
// several polls are one change, reported at the first poll that finds
// nothing new.
func TestPollerSettlesBursts(t *testing.T) {
	root := writeVault(t, map[string]string{"Log.md": "0"})
	sig, err := statSignature(root, &glob.Set{}, DefaultMaxNoteBytes)
	must(t, err)
	p := &poller{root: root, ignore: &glob.Set{}, maxBytes: DefaultMaxNoteBytes, log: slog.New(slog.DiscardHandler), last: sig,
		settle: newPollSettler(time.Second, 500*time.Millisecond), dirty: &changeSet{}}
	changes := make(chan struct{}, 1)
	signalled := func() bool {
		select {
		case <-changes:
			return true
		default:
			return false
		}
	}
	for i := range 4 {
		// A new size each time: the signature changes whatever the
		// clock's resolution.
		must(t, os.WriteFile(filepath.Join(root, "Log.md"), []byte(strings.Repeat("x", i+2)), 0o644))
		p.poll(changes)
		if signalled() {
			t.Fatalf("a change reported at poll %d while the burst goes on", i+1)
		}
	}
	p.poll(changes)
	if !signalled() {
		t.Fatal("no change reported at the first quiet poll")
	}
	if _, all := p.dirty.take(); !all {
		t.Error("a poll recorded no change")
	}
	p.poll(changes)
	if signalled() {
		t.Error("a change reported twice")
	}
}

// TestWatchPollDebouncesBursts: under --poll, a burst of saves makes
// fewer snapshots than saves, and the last save is indexed. How polls
// settle for each poll and debounce period is TestPollSettler's, poll by
// poll; this test runs the real watcher end to end.
func TestWatchPollDebouncesBursts(t *testing.T) {
	vault := writeVault(t, map[string]string{"Log.md": "# log\n"})
	data := t.TempDir()
	// The debounce is far longer than the burst of saves below, so only a
	// machine that stalls the test for seconds between every save could
	// make a run per save: what is asserted is the settling, not speed.
	w := startWatch(t, Options{Vault: vault, Data: data}, WatchOptions{Poll: 100 * time.Millisecond, Debounce: 2 * time.Second})
	w.waitFor("the first snapshot", func(r *Result) bool { return !r.Unchanged })
	const saves = 12
	content := "# log\n"
	for i := range saves {
		content += fmt.Sprintf("- entry %d\n", i)
		must(t, os.WriteFile(filepath.Join(vault, "Log.md"), []byte(content), 0o644))
		time.Sleep(25 * time.Millisecond)
	}
	runs := w.untilNote(vault, "Log.md")
	if len(runs) >= saves {
		t.Errorf("%d saves made %d runs, want fewer", saves, len(runs))
	}
	t.Logf("%d saves, %d runs, %d snapshots", saves, len(runs), len(snapshotDirs(t, data))-1)
}

// cancelOnPublish is a log handler that cancels a context when the run
// logs that it published a snapshot, the moment a SIGTERM can arrive
// between a publish and its report.
type cancelOnPublish struct{ cancel context.CancelFunc }

func (h cancelOnPublish) Enabled(context.Context, slog.Level) bool { return true }
func (h cancelOnPublish) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "published snapshot" {
		h.cancel()
	}
	return nil
}
func (h cancelOnPublish) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h cancelOnPublish) WithGroup(string) slog.Handler      { return h }

// TestWatchReportsARunCanceledAfterPublishing cancels Watch right after
// its first run published: OnRun still gets that run, so the snapshot it
// published is reported (TestIndexWatch in cmd/vaultgraph flaked on this).
func TestWatchReportsARunCanceledAfterPublishing(t *testing.T) {
	vault, data := t.TempDir(), t.TempDir()
	if _, err := vaultgen.Generate(vault, vaultgen.Config{Notes: 20, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []*Result
	err := Watch(ctx, Options{Vault: vault, Data: data, Log: slog.New(cancelOnPublish{cancel})},
		WatchOptions{OnRun: func(r *Result, err error) {
			if err != nil {
				t.Errorf("OnRun error: %v", err)
			}
			got = append(got, r)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Unchanged || got[0].ID == "" {
		t.Fatalf("OnRun got %v, want the published run", got)
	}
	if _, err := os.Stat(got[0].Dir); err != nil {
		t.Errorf("reported snapshot: %v", err)
	}
}
