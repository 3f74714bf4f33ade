package indexer

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/embed/embedtest"
	"github.com/vaultgraph/vaultgraph/snapshot/vectors"
)

// logBuffer collects what a run logs at warning level and above.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Reset()
}

// runLogged runs the stages and returns what the run warned about.
func runLogged(t *testing.T, vault, data string, stages ...Stage) (*Result, string) {
	t.Helper()
	var logs logBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	res, err := Run(context.Background(), Options{Vault: vault, Data: data, Stages: stages, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	return res, logs.String()
}

// snapshotDirs lists DATA/snapshots: published snapshots and any
// temporary directory left behind.
func snapshotDirs(t *testing.T, data string) []string {
	t.Helper()
	entries, err := os.ReadDir(snapshot.SnapshotsDir(data))
	must(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func pendingOf(m *format.Manifest) int { return m.Vectors.Chunks.Pending + m.Vectors.Edges.Pending }

// TestEmbedStageRetryWithoutProgressPublishesNothing is a timer firing
// while the model server is down: the first run publishes with pending
// vectors, later runs on the unchanged vault retry them and publish
// nothing until the server is back or the vault changes.
func TestEmbedStageRetryWithoutProgressPublishesNothing(t *testing.T) {
	vault := writeVault(t, embedVault)
	data := t.TempDir()
	srv := embedtest.NewOllama(t)
	st := stageFor(t, "ollama", srv, false)

	srv.Fail(embedtest.Drop, -1)
	first, _ := runLogged(t, vault, data, st)
	if first.Unchanged || pendingOf(first.Manifest) == 0 || first.Manifest.Vectors.PendingReason == "" {
		t.Fatalf("first run with the server down: %+v %+v", first, first.Manifest.Vectors)
	}
	pending := pendingOf(first.Manifest)

	// Still down, vault unchanged: the run retries, fails, publishes nothing.
	hits := srv.Hits()
	again, logs := runLogged(t, vault, data, st)
	if !again.Unchanged || again.ID != first.ID || again.Dir != first.Dir {
		t.Fatalf("retry with the server still down: %+v, want Unchanged with the first snapshot", again)
	}
	if srv.Hits() == hits {
		t.Error("the retry did not ask the server")
	}
	if dirs := snapshotDirs(t, data); len(dirs) != 1 || dirs[0] != first.ID {
		t.Fatalf("snapshots after the retry: %v, want only %s (no temporary directory left)", dirs, first.ID)
	}
	if len(again.Stalled) != 1 || again.Stalled[0].Stage != "embed" || again.Stalled[0].Pending != pending ||
		again.Stalled[0].Reason == "" {
		t.Errorf("Stalled = %+v, want the embed stage with %d pending and a reason", again.Stalled, pending)
	}
	for _, want := range []string{"level=WARN", "nothing published", "pending=" + strconv.Itoa(pending), "reason="} {
		if !strings.Contains(logs, want) {
			t.Errorf("the retry's warning lacks %q:\n%s", want, logs)
		}
	}
	if strings.Count(logs, "level=WARN") != 1 {
		t.Errorf("the retry warned %d times, want once:\n%s", strings.Count(logs, "level=WARN"), logs)
	}

	// Back up: the unchanged vault gets a snapshot with every vector.
	srv.Fail(embedtest.OK, 0)
	filled, _ := runLogged(t, vault, data, st)
	if filled.Unchanged || filled.Parent != first.ID || pendingOf(filled.Manifest) != 0 || filled.Stalled != nil {
		t.Fatalf("run after recovery: %+v %+v", filled, filled.Manifest.Vectors)
	}

	// Down again, and a note changes: that is published, with pending.
	srv.Fail(embedtest.Drop, -1)
	editNote(t, vault, "Companies/Acme.md", "research into search engines", "robotics startups")
	changed, _ := runLogged(t, vault, data, st)
	if changed.Unchanged || changed.Parent != filled.ID || pendingOf(changed.Manifest) == 0 {
		t.Fatalf("vault changed with the server down: %+v", changed)
	}
	if res, _ := runLogged(t, vault, data, st); !res.Unchanged || res.ID != changed.ID {
		t.Errorf("retry after the change, server still down: %+v", res)
	}
}

// TestEmbedStageRetryWithOtherWorkPublishes: a run that is pending for
// other reasons than the retry publishes even when the retry fails.
func TestEmbedStageRetryWithOtherWorkPublishes(t *testing.T) {
	vault := writeVault(t, embedVault)
	data := t.TempDir()
	srv := embedtest.NewOllama(t)
	srv.Fail(embedtest.Drop, -1)
	first, _ := runLogged(t, vault, data, stageFor(t, "ollama", srv, false))

	// Another stage has work: the BM25 index is missing.
	withBM25, _ := runLogged(t, vault, data, stageFor(t, "ollama", srv, false), BM25Stage{})
	if withBM25.Unchanged || withBM25.Parent != first.ID || withBM25.Manifest.BM25 == nil {
		t.Fatalf("retry plus a missing BM25 index: %+v", withBM25)
	}
	// Other graph parameters.
	st := stageFor(t, "ollama", srv, false)
	st.Params = vectors.DefaultParams()
	st.Params.M++
	params, _ := runLogged(t, vault, data, st, BM25Stage{})
	if params.Unchanged || params.Parent != withBM25.ID || params.Manifest.Vectors.HNSW != st.Params.Manifest() {
		t.Fatalf("retry plus other graph parameters: %+v", params)
	}
	if res, _ := runLogged(t, vault, data, st, BM25Stage{}); !res.Unchanged {
		t.Errorf("retry alone: %+v", res)
	}
	// --full rebuilds whatever the stages say.
	res, err := Run(context.Background(), Options{Vault: vault, Data: data, Stages: []Stage{st, BM25Stage{}}, Full: true})
	if err != nil || res.Unchanged {
		t.Errorf("--full with the server down: %+v, %v", res, err)
	}
	if n := len(snapshotDirs(t, data)); n != 4 {
		t.Errorf("%d snapshots, want 4", n)
	}
}

// TestEmbedStageRetryWithSomeProgressPublishes: embedding some of the
// pending texts is progress.
func TestEmbedStageRetryWithSomeProgressPublishes(t *testing.T) {
	vault := writeVault(t, embedVault)
	data := t.TempDir()
	srv := embedtest.NewOllama(t)
	// One request at a time, so that the first failed batch stops the run.
	e, err := embed.New("ollama", embed.Config{OllamaHost: srv.URL(), Attempts: 2, RetryBase: time.Millisecond,
		Timeout: 2 * time.Second, BatchSize: 2, Concurrency: 1, Getenv: func(string) string { return "" }})
	must(t, err)
	st := &EmbedStage{Embedder: e}
	srv.Fail(embedtest.Drop, -1)
	first, _ := runLogged(t, vault, data, st)
	before := pendingOf(first.Manifest)

	// The server answers the digest lookup and one batch, then fails.
	srv.FailAfter(2, embedtest.Status500)
	res, logs := runLogged(t, vault, data, st)
	left := pendingOf(res.Manifest)
	if res.Unchanged || left == 0 || left >= before || res.Parent != first.ID {
		t.Fatalf("partial recovery: %+v, pending %d of %d", res, left, before)
	}
	if !strings.Contains(logs, "some texts have no vector yet") {
		t.Errorf("a published snapshot with pending texts did not warn:\n%s", logs)
	}
}

func TestEmbedStagePending(t *testing.T) {
	st := stageFor(t, "builtin", nil, false)
	info := st.Embedder.Info()
	complete := func() *format.Manifest {
		return &format.Manifest{Embedder: info.Manifest(info.Dimensions), Vectors: &format.Vectors{HNSW: st.params().Manifest(),
			EdgesWithoutVectors: format.UnembeddedEdgeTypes}}
	}
	for _, tc := range []struct {
		name   string
		change func(*format.Manifest)
		want   Pending
	}{
		{"complete", func(*format.Manifest) {}, PendingNone},
		{"pending chunks", func(m *format.Manifest) { m.Vectors.Chunks.Pending = 3 }, PendingRetry},
		{"pending edges", func(m *format.Manifest) { m.Vectors.Edges.Pending = 1 }, PendingRetry},
		{"no vectors", func(m *format.Manifest) { m.Vectors = nil }, PendingRebuild},
		{"plain links embedded", func(m *format.Manifest) { m.Vectors.EdgesWithoutVectors = nil }, PendingRebuild},
		{"no embedder", func(m *format.Manifest) { m.Embedder = nil }, PendingRebuild},
		{"other model", func(m *format.Manifest) { m.Embedder.Fingerprint = strings.Repeat("0", 64) }, PendingRebuild},
		{"other graph parameters and pending", func(m *format.Manifest) {
			m.Vectors.HNSW.M++
			m.Vectors.Chunks.Pending = 3
		}, PendingRebuild},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := complete()
			tc.change(m)
			if got := st.Pending(&snapshot.Snapshot{Manifest: m}); got != tc.want {
				t.Errorf("Pending = %v, want %v", got, tc.want)
			}
		})
	}
	m := complete()
	m.Vectors.Chunks.Pending = 3
	if got := stageFor(t, "builtin", nil, true).Pending(&snapshot.Snapshot{Manifest: m}); got != PendingRebuild {
		t.Errorf("Pending with --reembed = %v, want a rebuild", got)
	}
}

func TestBuildVoid(t *testing.T) {
	stall := func(stage string) Stall { return Stall{Stage: stage, Pending: 2, Reason: "down"} }
	for _, tc := range []struct {
		name    string
		retry   []string
		stalled []Stall
		void    bool
	}{
		{"not a retry run", nil, []Stall{stall("embed")}, false},
		{"retry stalled", []string{"embed"}, []Stall{stall("embed")}, true},
		{"retry made progress", []string{"embed"}, nil, false},
		{"one of two stalled", []string{"embed", "other"}, []Stall{stall("embed")}, false},
		{"both stalled", []string{"embed", "other"}, []Stall{stall("other"), stall("embed")}, true},
		{"another stage stalled", []string{"embed"}, []Stall{stall("other")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &Build{Retry: tc.retry}
			for _, s := range tc.stalled {
				b.Stalled(s)
			}
			if got := b.void() != nil; got != tc.void {
				t.Errorf("void = %v, want %v", got, tc.void)
			}
		})
	}
}
