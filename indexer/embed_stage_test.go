package indexer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/embed/embedtest"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
	"github.com/vaultgraph/vaultgraph/snapshot/vectors"
)

// embedVault has paragraphs long enough for several chunks per note.
var embedVault = map[string]string{
	"People/Alice.md": "---\ntype: Person\n---\n# Alice\nAlice leads [[Search]] and knows [[Bob]].\n\n" +
		"## Work\nShe designed the ranking pipeline and reviews every query change.\n\nleads:: [[Search]]\n",
	"People/Bob.md": "---\ntype: [Person, Engineer]\n---\n# Bob\nBob works on the crawler with [[Alice]].\n\n" +
		"## Hobbies\nBob likes climbing and long walks in the hills.\n",
	"Projects/Search.md": "---\ntype: Project\n---\n# Search\nThe search project finds notes by meaning.\n\n" +
		"## Funding\nThe project is paid for by [[Acme]].\n",
	"Companies/Acme.md": "---\ntype: Company\n---\n# Acme\nAcme funds research into search engines.\n\n" +
		"funds:: [[Search]] {amount: 250000, currency: EUR}\n",
	"Recipes/Pancakes.md": "# Pancakes\nMix flour, eggs and milk; fry in butter until golden.\n",
}

// stageFor returns an embedding stage with the embedder spec, talking to
// the fake Ollama server when spec is ollama.
func stageFor(t *testing.T, spec string, srv *embedtest.Ollama, reembed bool) *EmbedStage {
	t.Helper()
	cfg := embed.Config{Attempts: 2, RetryBase: time.Millisecond, Timeout: 2 * time.Second, BatchSize: 4,
		Getenv: func(string) string { return "" }}
	if srv != nil {
		cfg.OllamaHost = srv.URL()
	}
	e, err := embed.New(spec, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &EmbedStage{Embedder: e, Reembed: reembed}
}

func runStage(t *testing.T, vault, data string, st *EmbedStage) (*Result, error) {
	t.Helper()
	return Run(context.Background(), Options{Vault: vault, Data: data, Stages: []Stage{st}})
}

func mustRunStage(t *testing.T, vault, data string, st *EmbedStage) *Result {
	t.Helper()
	res, err := runStage(t, vault, data, st)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// distinctTexts returns the distinct texts a snapshot's chunks and edges
// embed, by hash.
func distinctTexts(t *testing.T, s *snapshot.Snapshot) map[string]string {
	t.Helper()
	chunks, err := s.Chunks()
	must(t, err)
	edges, err := s.Edges()
	must(t, err)
	out := map[string]string{}
	for _, c := range chunks {
		out[c.TextSHA256] = format.EmbedText(c.Context, c.Text)
	}
	for _, e := range edges {
		if s.Manifest.Vectors.EdgeEmbedded(e.Type) {
			out[format.TextKey(e.Sentence)] = e.Sentence
		}
	}
	return out
}

// embeddedHashes returns the text keys of the texts the server embedded,
// without their task prefix.
func embeddedHashes(srv *embedtest.Ollama) []string {
	var out []string
	for _, text := range srv.Texts() {
		out = append(out, format.TextKey(strings.TrimPrefix(text, "search_document: ")))
	}
	slices.Sort(out)
	return out
}

func newHashes(before, after map[string]string) []string {
	var out []string
	for h := range after {
		if _, ok := before[h]; !ok {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return out
}

func TestEmbedStageEmbedsOnlyChangedText(t *testing.T) {
	vault := writeVault(t, embedVault)
	data := t.TempDir()
	srv := embedtest.NewOllama(t)
	st := stageFor(t, "ollama", srv, false)

	first := mustRunStage(t, vault, data, st)
	s1 := openSnap(t, first.Dir)
	texts1 := distinctTexts(t, s1)
	if got := len(srv.Texts()); got != len(texts1) {
		t.Fatalf("first run embedded %d texts, want the %d distinct ones", got, len(texts1))
	}
	v := s1.Manifest.Vectors
	if v == nil || v.Chunks.Pending != 0 || v.Chunks.Embedded != v.Chunks.Vectors || v.Chunks.HNSWBuild != format.HNSWBuilt ||
		s1.Manifest.Embedder.Model != "nomic-embed-text:latest" || s1.Manifest.Embedder.Dimensions != embed.BuiltinDims {
		t.Fatalf("first manifest: %+v %+v", s1.Manifest.Embedder, v)
	}

	// Unchanged vault: nothing published, nothing embedded.
	srv.Reset()
	if res := mustRunStage(t, vault, data, st); !res.Unchanged || len(srv.Texts()) != 0 {
		t.Fatalf("unchanged vault: %+v, %d texts embedded", res, len(srv.Texts()))
	}

	// Edit one paragraph: only the chunks whose text changed are embedded.
	bob := filepath.Join(vault, "People/Bob.md")
	must(t, os.WriteFile(bob, []byte(strings.Replace(embedVault["People/Bob.md"], "long walks in the hills", "sailing on the lake", 1)), 0o644))
	third := mustRunStage(t, vault, data, st)
	s3 := openSnap(t, third.Dir)
	want := newHashes(texts1, distinctTexts(t, s3))
	if got := embeddedHashes(srv); len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("after editing one paragraph the server embedded %d texts, want the %d changed ones", len(got), len(want))
	}
	v = s3.Manifest.Vectors
	if v.Chunks.Embedded != len(want) || v.Chunks.Reused != v.Chunks.Vectors-len(want) || v.Chunks.HNSWBuild != format.HNSWUpdated {
		t.Errorf("after one edit: chunks %+v, want %d embedded and the graph updated", v.Chunks, len(want))
	}
	// No edge sentence changed: the edges' files are the parent's, shared.
	if v.Edges.HNSWBuild != format.HNSWShared || v.Edges.Embedded != 0 {
		t.Errorf("after one edit: edges %+v, want the parent's files shared", v.Edges)
	}
	assertShared(t, s1, s3, format.EdgeVectorsFile, format.EdgeHNSWFile)
	assertEdgeSearch(t, s3, srv, "Bob knows Alice")

	// Move a note to another folder: no text changes, nothing is embedded.
	srv.Reset()
	must(t, os.MkdirAll(filepath.Join(vault, "Archive"), 0o755))
	must(t, os.Rename(filepath.Join(vault, "Recipes/Pancakes.md"), filepath.Join(vault, "Archive/Pancakes.md")))
	moved := mustRunStage(t, vault, data, st)
	if moved.Unchanged || len(srv.Texts()) != 0 {
		t.Fatalf("moving a note: %+v, %d texts embedded, want a snapshot and none", moved, len(srv.Texts()))
	}
	if v := openSnap(t, moved.Dir).Manifest.Vectors; v.Chunks.HNSWBuild != format.HNSWShared || v.Edges.HNSWBuild != format.HNSWShared {
		t.Errorf("moving a note: chunks %s, edges %s, want both shared", v.Chunks.HNSWBuild, v.Edges.HNSWBuild)
	}
	// Renaming a note whose frontmatter sets its title changes no text either.
	must(t, os.WriteFile(filepath.Join(vault, "Archive/Pancakes.md"), []byte("---\ntitle: Pancakes\n---\n"+embedVault["Recipes/Pancakes.md"]), 0o644))
	mustRunStage(t, vault, data, st)
	srv.Reset()
	must(t, os.Rename(filepath.Join(vault, "Archive/Pancakes.md"), filepath.Join(vault, "Archive/Crêpes.md")))
	renamed := mustRunStage(t, vault, data, st)
	if renamed.Unchanged || len(srv.Texts()) != 0 {
		t.Fatalf("renaming a titled note: %d texts embedded, want none", len(srv.Texts()))
	}
	s := openSnap(t, renamed.Dir)
	if v := s.Manifest.Vectors.Chunks; v.Pending != 0 || v.Embedded != 0 || v.Vectors == 0 {
		t.Errorf("after the rename: %+v", v)
	}
	assertSearchable(t, s, srv, "climbing hills", "People/Bob.md")
}

// assertShared checks that child's files are hard links to parent's, and
// that child verifies.
func assertShared(t *testing.T, parent, child *snapshot.Snapshot, names ...string) {
	t.Helper()
	for _, name := range names {
		a, err := os.Stat(filepath.Join(parent.Dir, name))
		must(t, err)
		b, err := os.Stat(filepath.Join(child.Dir, name))
		must(t, err)
		if !os.SameFile(a, b) {
			t.Errorf("%s of %s is not %s's", name, child.ID, parent.ID)
		}
	}
	if _, problems, err := snapshot.Verify(child.Dir); err != nil || len(problems) > 0 {
		t.Errorf("verify %s: %v %v", child.ID, problems, err)
	}
}

// assertEdgeSearch checks that an edge search answers from s's edge vectors.
func assertEdgeSearch(t *testing.T, s *snapshot.Snapshot, srv *embedtest.Ollama, query string) {
	t.Helper()
	ix, err := search.Open(s, search.Options{Text: true})
	must(t, err)
	defer ix.Close()
	e, err := embed.ForSnapshot(s.Manifest.Embedder, embed.Config{Getenv: func(string) string { return "" }, OllamaHost: srv.URL()})
	must(t, err)
	res, err := ix.Search(context.Background(), search.Query{Text: query, Target: search.Edges, K: 3}, e)
	must(t, err)
	if len(res.Edges) == 0 {
		t.Fatalf("edge search %q found nothing", query)
	}
}

// assertSearchable checks that a chunk search finds a chunk of wantNote first.
func assertSearchable(t *testing.T, s *snapshot.Snapshot, srv *embedtest.Ollama, query, wantNote string) {
	t.Helper()
	ix, err := search.Open(s, search.Options{Text: true})
	must(t, err)
	defer ix.Close()
	cfg := embed.Config{Getenv: func(string) string { return "" }}
	if srv != nil {
		cfg.OllamaHost = srv.URL()
	}
	e, err := embed.ForSnapshot(s.Manifest.Embedder, cfg)
	must(t, err)
	res, err := ix.Search(context.Background(), search.Query{Text: query, Target: search.Chunks, K: 3}, e)
	must(t, err)
	if len(res.Chunks) == 0 || res.Chunks[0].Note != wantNote {
		t.Fatalf("search %q: %+v, want a chunk of %s first", query, res.Chunks, wantNote)
	}
}

func TestEmbedStageRefusesModelSwitchUnlessReembed(t *testing.T) {
	vault := writeVault(t, embedVault)
	data := t.TempDir()
	srv := embedtest.NewOllama(t)
	first := mustRunStage(t, vault, data, stageFor(t, "builtin", nil, false))

	_, err := runStage(t, vault, data, stageFor(t, "ollama", srv, false))
	if !errors.Is(err, embed.ErrModelMismatch) || !strings.Contains(err.Error(), "vaultgraph index --reembed --embedder ollama:nomic-embed-text:latest") {
		t.Fatalf("switching models: err = %v, want ErrModelMismatch with the --reembed command", err)
	}
	if entries, _ := snapshot.List(data); len(entries) != 1 || len(srv.Texts()) != 0 {
		t.Fatalf("refused switch published %d snapshots or embedded %d texts", len(entries)-1, len(srv.Texts()))
	}

	// Re-embedding while the new model's server is down publishes nothing.
	srv.Fail(embedtest.Drop, -1)
	if _, err := runStage(t, vault, data, stageFor(t, "ollama", srv, true)); err == nil || !strings.Contains(err.Error(), "nothing published") {
		t.Fatalf("reembed with the server down: err = %v", err)
	}
	srv.Fail(embedtest.OK, 0)
	srv.Reset()

	reembed := stageFor(t, "ollama", srv, true)
	res := mustRunStage(t, vault, data, reembed)
	s := openSnap(t, res.Dir)
	if res.Parent != first.ID || s.Manifest.Embedder.Provider != "ollama" {
		t.Fatalf("reembed: %+v %+v", res, s.Manifest.Embedder)
	}
	// Every vector of the new snapshot comes from the new model: the
	// server embedded every distinct text, and nothing was reused.
	texts := distinctTexts(t, s)
	v := s.Manifest.Vectors
	if len(srv.Texts()) != len(texts) || v.Chunks.Reused+v.Edges.Reused != 0 || v.Chunks.HNSWBuild != format.HNSWBuilt {
		t.Fatalf("reembed embedded %d of %d texts; %+v", len(srv.Texts()), len(texts), v)
	}
	for _, name := range []string{format.ChunkVectorsFile, format.EdgeVectorsFile} {
		f, err := vectors.OpenFile(filepath.Join(s.Dir, name))
		must(t, err)
		fp := f.Fingerprint()
		if got := vectors.Hash(fp).String(); got != s.Manifest.Embedder.Fingerprint {
			t.Errorf("%s holds vectors of %s, want the new model's", name, got)
		}
		f.Close()
	}
	// Re-embedding is done once: the same stage's next run (index --watch)
	// and a plain run with the new model are back to normal.
	srv.Reset()
	if res := mustRunStage(t, vault, data, reembed); !res.Unchanged || len(srv.Texts()) != 0 {
		t.Errorf("second run of the reembed stage: %+v", res)
	}
	if res := mustRunStage(t, vault, data, stageFor(t, "ollama", srv, false)); !res.Unchanged {
		t.Errorf("run after reembed: %+v", res)
	}
}

func TestEmbedStagePublishesWithPendingWhenServerFails(t *testing.T) {
	vault := writeVault(t, embedVault)
	data := t.TempDir()
	srv := embedtest.NewOllama(t)
	st := stageFor(t, "ollama", srv, false)
	first := mustRunStage(t, vault, data, st)
	texts1 := distinctTexts(t, openSnap(t, first.Dir))

	// The server goes down while one note is being edited.
	must(t, os.WriteFile(filepath.Join(vault, "Companies/Acme.md"),
		[]byte(strings.Replace(embedVault["Companies/Acme.md"], "research into search engines", "robotics startups", 1)), 0o644))
	srv.Fail(embedtest.Drop, -1)
	down := mustRunStage(t, vault, data, st)
	s := openSnap(t, down.Dir)
	changed := newHashes(texts1, distinctTexts(t, s))
	v := s.Manifest.Vectors
	if v.Chunks.Pending+v.Edges.Pending != len(changed) || len(changed) == 0 || v.PendingReason == "" {
		t.Fatalf("server down: pending %d+%d (%q), want the %d changed texts", v.Chunks.Pending, v.Edges.Pending, v.PendingReason, len(changed))
	}
	if v.Chunks.Reused != v.Chunks.Vectors {
		t.Errorf("server down: chunks %+v, want every vector reused", v.Chunks)
	}
	// Unchanged text stays searchable, and the search says what is pending.
	srv.Fail(embedtest.OK, 0)
	assertSearchable(t, s, srv, "climbing hills", "People/Bob.md")

	// The server is back: an unchanged vault still gets a snapshot, which
	// embeds exactly what was pending.
	srv.Reset()
	filled := mustRunStage(t, vault, data, st)
	if filled.Unchanged || filled.Parsed != 0 {
		t.Fatalf("run after recovery: %+v, want a snapshot without parsing", filled)
	}
	if got := embeddedHashes(srv); !slices.Equal(got, changed) {
		t.Fatalf("recovery embedded %d texts, want the %d pending", len(got), len(changed))
	}
	s = openSnap(t, filled.Dir)
	if v := s.Manifest.Vectors; v.Chunks.Pending+v.Edges.Pending != 0 || v.PendingReason != "" {
		t.Errorf("after recovery: %+v", v)
	}
	assertSearchable(t, s, srv, "robotics startups", "Companies/Acme.md")
	if res := mustRunStage(t, vault, data, st); !res.Unchanged {
		t.Errorf("nothing pending, vault unchanged: %+v", res)
	}
}

func TestEmbedStageFirstRunWithServerDown(t *testing.T) {
	vault := writeVault(t, embedVault)
	data := t.TempDir()
	srv := embedtest.NewOllama(t)
	srv.Fail(embedtest.Status500, -1)
	st := stageFor(t, "ollama", srv, false)
	res := mustRunStage(t, vault, data, st)
	s := openSnap(t, res.Dir)
	if v := s.Manifest.Vectors; v.Chunks.Vectors != 0 || v.Chunks.Pending != s.Manifest.Counts.Chunks || !strings.Contains(v.PendingReason, "500") {
		t.Fatalf("first run, server down: %+v", v)
	}
	ix, err := search.Open(s, search.Options{})
	must(t, err)
	q := make([]float32, embed.BuiltinDims)
	q[0] = 1
	r, err := ix.SearchVector(search.Query{Target: search.Chunks}, q)
	must(t, err)
	if len(r.Chunks) != 0 || r.Pending != s.Manifest.Counts.Chunks {
		t.Errorf("search with nothing embedded: %+v", r)
	}
	ix.Close()

	srv.Fail(embedtest.OK, 0)
	s = openSnap(t, mustRunStage(t, vault, data, st).Dir)
	if v := s.Manifest.Vectors; v.Chunks.Pending != 0 || v.Chunks.Vectors == 0 || s.Manifest.Embedder.Dimensions != embed.BuiltinDims {
		t.Fatalf("after recovery: %+v %+v", v, s.Manifest.Embedder)
	}
}

func TestEmbedStageCancelPublishesNothing(t *testing.T) {
	vault := writeVault(t, embedVault)
	data := t.TempDir()
	srv := embedtest.NewOllama(t)
	srv.Fail(embedtest.Hang, -1)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := Run(ctx, Options{Vault: vault, Data: data, Stages: []Stage{stageFor(t, "ollama", srv, false)}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if entries, _ := snapshot.List(data); len(entries) != 0 {
		t.Fatalf("a cancelled run published %v", entries)
	}
}

func TestEmbedStageBuiltinSearch(t *testing.T) {
	vault := writeVault(t, embedVault)
	data := t.TempDir()
	res := mustRunStage(t, vault, data, stageFor(t, "lexical", nil, false))
	s := openSnap(t, res.Dir)
	ix, err := search.Open(s, search.Options{Text: true})
	must(t, err)
	defer ix.Close()
	e := embed.NewBuiltin()
	ctx := context.Background()

	notes, err := ix.Search(ctx, search.Query{Text: "Acme funds", K: 3}, e)
	must(t, err)
	if len(notes.Notes) == 0 || notes.Notes[0].ID != "Companies/Acme.md" {
		t.Fatalf("notes for 'Acme funds': %+v", notes.Notes)
	}
	// Citations point at the passage in the note as read.
	all, err := s.Notes()
	must(t, err)
	content := map[string]string{}
	for _, n := range all {
		content[n.ID] = n.Content
	}
	chunks, err := ix.Search(ctx, search.Query{Text: "climbing", Target: search.Chunks, K: 10}, e)
	must(t, err)
	for _, c := range chunks.Chunks {
		if got := content[c.Note][c.Start:c.End]; got != c.Text {
			t.Errorf("chunk %s: bytes %d-%d are %q, the chunk text is %q", c.ID, c.Start, c.End, got, c.Text)
		}
	}
	people, err := ix.Search(ctx, search.Query{Text: "search project", K: 10, Labels: []string{"person"}}, e)
	must(t, err)
	if len(people.Notes) != 2 {
		t.Errorf("Person notes: %+v, want Alice and Bob", people.Notes)
	}
	edges, err := ix.Search(ctx, search.Query{Text: "money", Target: search.Edges, K: 5, EdgeTypes: []string{"funds"}}, e)
	must(t, err)
	if len(edges.Edges) != 1 || edges.Edges[0].Type != "funds" || !strings.Contains(edges.Edges[0].Sentence, "250000") {
		t.Errorf("funds edges: %+v", edges.Edges)
	}
	// A query embedder of another model is refused.
	o, _ := embed.New("ollama", embed.Config{})
	if _, err := ix.Search(ctx, search.Query{Text: "x"}, o); !errors.Is(err, embed.ErrModelMismatch) {
		t.Errorf("query with another model: err = %v", err)
	}
}

// Benchmarks on the 10,000-note generated vault (bench_test.go):
//
//	go test ./indexer -run '^$' -bench 'Embed' -benchtime 5x -timeout 60m

// BenchmarkEmbedFull indexes the vault from scratch with the builtin
// embedding stage: every chunk and edge embedded, both graphs built.
func BenchmarkEmbedFull(b *testing.B) {
	vault := mustBenchVault(b)
	for b.Loop() {
		data := b.TempDir()
		res, err := Run(context.Background(), Options{Vault: vault, Data: data, Stages: []Stage{&EmbedStage{Embedder: embed.NewBuiltin()}}})
		if err != nil {
			b.Fatal(err)
		}
		v := res.Manifest.Vectors
		b.ReportMetric(float64(v.Chunks.Vectors), "chunk-vectors")
		b.ReportMetric(float64(v.Edges.Vectors), "edge-vectors")
	}
}

// BenchmarkEmbedOneEdit edits one note of the 10,000 (one paragraph
// rewritten, vaultgen.Edit) and re-indexes with the embedding stage. It
// checks that only the changed texts were embedded, and reports the run's
// time as a fraction of a full index measured in the same process.
func BenchmarkEmbedOneEdit(b *testing.B) {
	vault := mustBenchVault(b)
	work := filepath.Join(b.TempDir(), "vault")
	if err := os.CopyFS(work, os.DirFS(vault)); err != nil {
		b.Fatal(err)
	}
	data := b.TempDir()
	opts := Options{Vault: work, Data: data, Stages: []Stage{&EmbedStage{Embedder: embed.NewBuiltin()}}}
	start := time.Now()
	res, err := Run(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	full := time.Since(start)
	prev := benchTexts(b, res.Dir)
	embedded, shared := 0, 0
	seed := int64(100)
	for b.Loop() {
		b.StopTimer()
		seed++
		if _, err := vaultgen.Edit(work, seed, 1); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := Run(context.Background(), opts)
		b.StopTimer()
		if err != nil || res.Parsed != 1 {
			b.Fatalf("res %+v, err %v", res, err)
		}
		next := benchTexts(b, res.Dir)
		v := res.Manifest.Vectors
		want := len(newHashes(prev, next))
		if got := v.Chunks.Embedded + v.Edges.Embedded; got != want {
			b.Fatalf("one edit embedded %d texts, %d are new", got, want)
		}
		if v.Chunks.HNSWBuild != format.HNSWUpdated {
			b.Errorf("chunk graph %s, want updated", v.Chunks.HNSWBuild)
		}
		embedded += want
		if v.Edges.HNSWBuild == format.HNSWShared {
			shared++
		}
		prev = next
		b.StartTimer()
	}
	perRun := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(full.Seconds(), "full-index-s")
	b.ReportMetric(float64(embedded)/float64(b.N), "embedded/op")
	b.ReportMetric(float64(shared)/float64(b.N), "edge-files-shared/op")
	b.ReportMetric(float64(perRun)/float64(full), "fraction-of-full")
}

func benchTexts(b *testing.B, dir string) map[string]string {
	s, err := snapshot.Open(dir, snapshot.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	chunks, err := s.Chunks()
	if err != nil {
		b.Fatal(err)
	}
	edges, err := s.Edges()
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range chunks {
		out[c.TextSHA256] = ""
	}
	for _, e := range edges {
		if s.Manifest.Vectors.EdgeEmbedded(e.Type) {
			out[format.TextKey(e.Sentence)] = ""
		}
	}
	return out
}

// BenchmarkEmbedSearchOpen is the server's load time of the 10,000-note
// snapshot's search index: memory-mapping and checking both vector files
// and graphs, and reading the chunk, note and edge metadata hits cite.
func BenchmarkEmbedSearchOpen(b *testing.B) {
	vault := mustBenchVault(b)
	data := b.TempDir()
	res, err := Run(context.Background(), Options{Vault: vault, Data: data, Stages: []Stage{&EmbedStage{Embedder: embed.NewBuiltin()}}})
	if err != nil {
		b.Fatal(err)
	}
	s, err := snapshot.Open(res.Dir, snapshot.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("vectors-only", func(b *testing.B) {
		for b.Loop() {
			for _, names := range [][2]string{{format.ChunkVectorsFile, format.ChunkHNSWFile}, {format.EdgeVectorsFile, format.EdgeHNSWFile}} {
				f, err := vectors.OpenFile(filepath.Join(s.Dir, names[0]))
				if err != nil {
					b.Fatal(err)
				}
				g, err := vectors.OpenGraph(filepath.Join(s.Dir, names[1]), f)
				if err != nil {
					b.Fatal(err)
				}
				g.Close()
				f.Close()
			}
		}
	})
	b.Run("search-index", func(b *testing.B) {
		for b.Loop() {
			ix, err := search.Open(s, search.Options{})
			if err != nil {
				b.Fatal(err)
			}
			ix.Close()
		}
	})
	ix, err := search.Open(s, search.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	e := embed.NewBuiltin()
	b.Run("query", func(b *testing.B) {
		for b.Loop() {
			if _, err := ix.Search(context.Background(), search.Query{Text: "project funding and roadmap", K: 10}, e); err != nil {
				b.Fatal(err)
			}
		}
	})
}
