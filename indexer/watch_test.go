package indexer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

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
	root := t.TempDir()
	ignore, _ := compileIgnore([]string{"Templates/"})
	ew := &eventWatcher{root: root, ignore: ignore, dirs: map[string]bool{filepath.Join(root, "Old"): true}}
	opts := Options{}.withDefaults()
	for name, want := range map[string]bool{
		"a.md": true, "Sub/b.MD": true, "image.png": false, ".obsidian/workspace.json": false, ".trash/x.md": false,
		"Sub/.hidden.md": false, "Templates/t.md": false, "Old": true,
	} {
		ev := fsnotify.Event{Name: filepath.Join(root, filepath.FromSlash(name)), Op: fsnotify.Write}
		if name == "Old" {
			ev.Op = fsnotify.Remove
		}
		if got := ew.relevant(ev, opts); got != want {
			t.Errorf("relevant(%s) = %v, want %v", name, got, want)
		}
	}
	if ew.relevant(fsnotify.Event{Name: filepath.Join(root, "a.md"), Op: fsnotify.Chmod}, opts) {
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
