package search

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/bm25"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/vectors"
)

// fixture is the rows of a snapshot to publish with vectors.
type fixture struct {
	notes   []format.Note
	chunks  []format.Chunk
	edges   []format.Edge
	pending map[string]bool // chunk ids left without a vector
	// noLinkVectors writes the snapshot as the indexer does: no vectors
	// for plain links, recorded in the manifest.
	noLinkVectors bool
	bm25          bool // publish a BM25 index over the chunks too
}

func (fx *fixture) note(id string, labels []string, paragraphs ...string) {
	content := strings.Join(paragraphs, "\n\n")
	fx.notes = append(fx.notes, format.Note{ID: id, Path: id, Title: format.NoteTitleFromPath(id), Labels: labels, Content: content})
	off := 0
	for i, p := range paragraphs {
		ctx := "Note: " + format.NoteTitleFromPath(id)
		fx.chunks = append(fx.chunks, format.Chunk{
			ID: format.ChunkID(id, i), Note: id, Ordinal: int32(i), Start: int32(off), End: int32(off + len(p)), Line: int32(1 + 2*i),
			Context: ctx, Text: p, TextSHA256: format.TextHash(format.EmbedText(ctx, p)),
		})
		off += len(p) + 2
	}
}

func (fx *fixture) edge(source, typ, target, sentence string) {
	fx.edges = append(fx.edges, format.Edge{ID: format.EdgeID(source, typ, target, 0), Source: source, Target: target, Type: typ, Sentence: sentence})
}

// publish writes the fixture as a snapshot with builtin vectors and graphs.
func (fx *fixture) publish(t testing.TB) *snapshot.Snapshot {
	t.Helper()
	data := t.TempDir()
	w, err := snapshot.Create(data, format.NewSnapshotID(time.Now(), ""))
	must(t, err)
	must(t, snapshot.WriteTable(filepath.Join(w.Dir(), format.NotesFile), fx.notes))
	must(t, snapshot.WriteTable(filepath.Join(w.Dir(), format.ChunksFile), fx.chunks))
	must(t, snapshot.WriteTable(filepath.Join(w.Dir(), format.EdgesFile), fx.edges))
	e := embed.NewBuiltin()
	info := e.Info()
	var fp vectors.Hash
	b, _ := hex.DecodeString(info.Fingerprint)
	copy(fp[:], b)
	texts := map[vectors.Hash]string{}
	var chunkRows, edgeRows []vectors.Hash
	pending := 0
	for _, c := range fx.chunks {
		if fx.pending[c.ID] {
			pending++
			continue
		}
		h, _ := vectors.ParseHash(c.TextSHA256)
		texts[h] = format.EmbedText(c.Context, c.Text)
		chunkRows = append(chunkRows, h)
	}
	for _, ed := range fx.edges {
		if fx.noLinkVectors && ed.Type == format.TypeLinksTo {
			continue
		}
		h, _ := vectors.ParseHash(format.TextHash(ed.Sentence))
		texts[h] = ed.Sentence
		edgeRows = append(edgeRows, h)
	}
	m := &format.Manifest{Created: time.Now(), Embedder: info.Manifest(embed.BuiltinDims),
		Vectors: &format.Vectors{HNSW: vectors.DefaultParams().Manifest()}}
	for _, tg := range []struct {
		rows       []vectors.Hash
		file, hnsw string
	}{{chunkRows, format.ChunkVectorsFile, format.ChunkHNSWFile}, {edgeRows, format.EdgeVectorsFile, format.EdgeHNSWFile}} {
		rows := tg.rows
		slices.SortFunc(rows, func(a, b vectors.Hash) int { return slices.Compare(a[:], b[:]) })
		rows = slices.Compact(rows)
		list := make([]string, len(rows))
		for i, h := range rows {
			list[i] = texts[h]
		}
		vecs, err := e.Embed(context.Background(), embed.Document, list)
		must(t, err)
		path := filepath.Join(w.Dir(), tg.file)
		must(t, vectors.WriteFile(path, fp, embed.BuiltinDims, rows, func(i int) []float32 { return vecs[i] }))
		vf, err := vectors.OpenFile(path)
		must(t, err)
		g, err := vectors.Build(context.Background(), vf, vectors.DefaultParams(), 1, nil)
		must(t, err)
		must(t, g.WriteFile(filepath.Join(w.Dir(), tg.hnsw)))
		vf.Close()
	}
	m.Vectors.Chunks.Pending = pending
	if fx.noLinkVectors {
		m.Vectors.EdgesWithoutVectors = format.UnembeddedEdgeTypes
	}
	if fx.bm25 {
		bld := bm25.NewBuilder()
		for _, c := range fx.chunks {
			bld.Add(c.ID, bm25.Tokenize(c.Context+"\n"+c.Text))
		}
		m.BM25, err = bld.WriteFile(filepath.Join(w.Dir(), format.BM25File))
		must(t, err)
	}
	dir, err := w.Publish(m)
	must(t, err)
	s, err := snapshot.Open(dir, snapshot.OpenOptions{VerifyChecksums: true})
	must(t, err)
	return s
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func openIndex(t testing.TB, s *snapshot.Snapshot) *Index {
	t.Helper()
	// Exact scans only below 100 allowed rows, so that the fixtures reach
	// the graph's over-fetching path too.
	ix, err := Open(s, Options{Text: true, ExactRows: 100})
	must(t, err)
	t.Cleanup(func() { ix.Close() })
	return ix
}

var vocabulary = strings.Fields("crawler index ranking query latency recall vector graph note edge chunk label " +
	"budget invoice funding grant partner company person project meeting roadmap hiring office " +
	"climbing sailing cooking pancakes flour garden tomato bicycle piano violin chess river mountain")

func sentence(r *rand.Rand, words int) string {
	w := make([]string, words)
	for i := range w {
		w[i] = vocabulary[r.Intn(len(vocabulary))]
	}
	return strings.Join(w, " ")
}

// bigFixture has 200 notes of 8 chunks; the first 3 are labelled Rare and
// every even one Common.
func bigFixture() *fixture {
	r := rand.New(rand.NewSource(1))
	fx := &fixture{}
	for i := range 200 {
		labels := []string{"Thing"}
		if i < 3 {
			labels = []string{"Rare"}
		} else if i%2 == 0 {
			labels = []string{"Common"}
		}
		var paras []string
		for range 8 {
			paras = append(paras, sentence(r, 12))
		}
		fx.note(fmt.Sprintf("n%03d.md", i), labels, paras...)
	}
	return fx
}

// exactChunks is the brute-force answer: chunks of notes with a label,
// ranked by similarity to the query.
func exactChunks(t *testing.T, fx *fixture, query string, label string, k int) []string {
	e := embed.NewBuiltin()
	q, _ := e.Embed(context.Background(), embed.Query, []string{query})
	labels := map[string][]string{}
	for _, n := range fx.notes {
		labels[n.ID] = n.Labels
	}
	type scored struct {
		id    string
		score float32
	}
	var all []scored
	for _, c := range fx.chunks {
		if label != "" && !slices.Contains(labels[c.Note], label) {
			continue
		}
		v, _ := e.Embed(context.Background(), embed.Document, []string{format.EmbedText(c.Context, c.Text)})
		all = append(all, scored{c.ID, vectors.Dot(q[0], v[0])})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].score > all[j].score })
	var ids []string
	for _, s := range all[:min(k, len(all))] {
		ids = append(ids, s.id)
	}
	return ids
}

func TestFiltersNeverLoseResults(t *testing.T) {
	fx := bigFixture()
	ix := openIndex(t, fx.publish(t))
	e := embed.NewBuiltin()
	tests := []struct {
		name      string
		label     string
		k         int
		wantExact bool
	}{
		// 24 chunks of 1,600: the graph would rarely meet them, so the
		// search scans them exactly and returns the true top k.
		{"selective label", "Rare", 10, true},
		{"more than there are", "Rare", 50, true},
		// Half the chunks: over-fetching from the graph is enough.
		{"broad label", "Common", 10, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			query := "funding grant for the crawler project"
			res, err := ix.Search(context.Background(), Query{Text: query, Target: Chunks, K: tc.k, Labels: []string{strings.ToLower(tc.label)}}, e)
			must(t, err)
			want := exactChunks(t, fx, query, tc.label, tc.k)
			var got []string
			for _, c := range res.Chunks {
				got = append(got, c.ID)
			}
			if len(got) != len(want) {
				t.Fatalf("%d results, want %d", len(got), len(want))
			}
			if res.Exact != tc.wantExact {
				t.Errorf("Exact = %v, want %v", res.Exact, tc.wantExact)
			}
			if tc.wantExact && !slices.Equal(got, want) {
				t.Errorf("got %v\nwant %v", got, want)
			}
			overlap := 0
			for _, id := range got {
				if slices.Contains(want, id) {
					overlap++
				}
			}
			if float64(overlap) < 0.9*float64(len(want)) {
				t.Errorf("only %d of the true top %d", overlap, len(want))
			}
		})
	}
}

func TestNotesAreDistinctAndScoredByBestOrMean(t *testing.T) {
	fx := &fixture{}
	// spiky has one passage on the query and many unrelated ones; steady
	// has several passages on it, none as close as spiky's best.
	fx.note("spiky.md", nil, "pancakes recipe with flour and eggs",
		"violin piano chess", "river mountain bicycle", "garden tomato sailing", "office hiring roadmap")
	fx.note("steady.md", nil, "pancakes for breakfast", "a recipe with eggs", "flour from the mill", "pancakes recipe")
	for i := range 30 {
		fx.note(fmt.Sprintf("other%02d.md", i), nil, "crawler index ranking query latency", "vector graph note edge")
	}
	ix := openIndex(t, fx.publish(t))
	e := embed.NewBuiltin()
	ctx := context.Background()
	best, err := ix.Search(ctx, Query{Text: "pancakes recipe with flour and eggs", K: 5}, e)
	must(t, err)
	mean, err := ix.Search(ctx, Query{Text: "pancakes recipe with flour and eggs", K: 5, Score: Mean}, e)
	must(t, err)
	if best.Notes[0].ID != "spiky.md" || mean.Notes[0].ID != "steady.md" {
		t.Fatalf("best ranks %s first, mean %s; want spiky.md and steady.md", best.Notes[0].ID, mean.Notes[0].ID)
	}
	for _, res := range []*Result{best, mean} {
		seen := map[string]bool{}
		for _, n := range res.Notes {
			if seen[n.ID] {
				t.Errorf("note %s returned twice", n.ID)
			}
			seen[n.ID] = true
			if n.Best.Note != n.ID || n.Best.Path == "" {
				t.Errorf("note %s cites %+v", n.ID, n.Best)
			}
		}
		if len(res.Notes) != 5 {
			t.Errorf("%d notes, want 5", len(res.Notes))
		}
	}
}

func TestPendingChunksAreCountedNotFound(t *testing.T) {
	fx := &fixture{pending: map[string]bool{}}
	fx.note("a.md", nil, "sailing on the lake", "sailing boats and wind")
	fx.note("b.md", nil, "cooking pancakes")
	fx.pending[format.ChunkID("a.md", 1)] = true
	ix := openIndex(t, fx.publish(t))
	res, err := ix.Search(context.Background(), Query{Text: "sailing boats", Target: Chunks, K: 10}, embed.NewBuiltin())
	must(t, err)
	if res.Pending != 1 || len(res.Chunks) != 2 {
		t.Fatalf("pending %d, %d chunks; want 1 pending and the 2 others found", res.Pending, len(res.Chunks))
	}
	for _, c := range res.Chunks {
		if c.ID == format.ChunkID("a.md", 1) {
			t.Error("a pending chunk was returned")
		}
	}
}

func TestEdgeFilters(t *testing.T) {
	fx := &fixture{}
	fx.note("Acme.md", []string{"Company"}, "Acme")
	fx.note("Bob.md", []string{"Person"}, "Bob")
	fx.note("Search.md", []string{"Project"}, "Search")
	fx.edge("Acme.md", "funds", "Search.md", "Acme (Company) funds Search (Project) - amount 250000")
	fx.edge("Bob.md", "works_on", "Search.md", "Bob (Person) works on Search (Project)")
	fx.edge("Bob.md", "links_to", "Acme.md", "Bob (Person) links to Acme (Company)")
	ix := openIndex(t, fx.publish(t))
	e := embed.NewBuiltin()
	tests := []struct {
		labels, types []string
		want          []string
	}{
		{nil, []string{"funds"}, []string{"funds"}},
		{[]string{"Person"}, nil, []string{"works_on", "links_to"}},
		{[]string{"Company"}, []string{"links_to"}, []string{"links_to"}},
		{[]string{"Nobody"}, nil, nil},
	}
	for _, tc := range tests {
		res, err := ix.Search(context.Background(), Query{Text: "Search project", Target: Edges, Labels: tc.labels, EdgeTypes: tc.types}, e)
		must(t, err)
		var got []string
		for _, h := range res.Edges {
			got = append(got, h.Type)
		}
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("labels %v types %v: %v, want %v", tc.labels, tc.types, got, want)
		}
	}
}

func TestOpenRefusesDamagedOrMissingVectors(t *testing.T) {
	fx := &fixture{}
	fx.note("a.md", nil, "one", "two")
	s := fx.publish(t)
	must(t, os.Truncate(filepath.Join(s.Dir, format.ChunkVectorsFile), 100))
	if _, err := Open(s, Options{}); !errors.Is(err, vectors.ErrCorrupt) {
		t.Errorf("truncated vectors: err = %v", err)
	}
	s.Manifest.Embedder = nil
	if _, err := Open(s, Options{}); !errors.Is(err, ErrNoVectors) {
		t.Errorf("no vectors: err = %v", err)
	}
}

func TestConcurrentSearches(t *testing.T) {
	fx := bigFixture()
	ix := openIndex(t, fx.publish(t))
	e := embed.NewBuiltin()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 20 {
				q := Query{Text: vocabulary[(g*7+i)%len(vocabulary)], Target: []Target{Notes, Chunks, Edges}[i%3], K: 5}
				if i%4 == 0 {
					q.Labels = []string{"Rare"}
				}
				if _, err := ix.Search(context.Background(), q, e); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestPlainLinksWithoutVectors: in a snapshot whose plain links have no
// vectors, edge searches find typed edges only, count no link as pending,
// and a search for links_to alone says why it cannot find any.
func TestPlainLinksWithoutVectors(t *testing.T) {
	fx := &fixture{noLinkVectors: true}
	fx.note("Acme.md", []string{"Company"}, "Acme")
	fx.note("Bob.md", []string{"Person"}, "Bob")
	fx.note("Search.md", []string{"Project"}, "Search")
	fx.edge("Bob.md", "works_on", "Search.md", "Bob (Person) works on Search (Project)")
	fx.edge("Bob.md", "links_to", "Acme.md", "Bob (Person) links to Acme (Company)")
	ix := openIndex(t, fx.publish(t))
	e := embed.NewBuiltin()
	res, err := ix.Search(context.Background(), Query{Text: "Bob Acme", Target: Edges, Labels: []string{"Person"}}, e)
	must(t, err)
	if len(res.Edges) != 1 || res.Edges[0].Type != "works_on" || res.Pending != 0 {
		t.Errorf("edges %+v, pending %d; want works_on alone, nothing pending", res.Edges, res.Pending)
	}
	_, err = ix.Search(context.Background(), Query{Text: "Bob Acme", Target: Edges, EdgeTypes: []string{"Links_To"}}, e)
	if !errors.Is(err, ErrNotEmbedded) || !strings.Contains(err.Error(), "Cypher") {
		t.Errorf("links_to search: err = %v, want ErrNotEmbedded saying where links are listed", err)
	}
	if _, err := ix.Search(context.Background(), Query{Text: "Bob", Target: Edges, EdgeTypes: []string{"links_to", "works_on"}}, e); err != nil {
		t.Errorf("links_to with an embedded type: %v", err)
	}
}

// TestOpenWithTables: an index given the snapshot's rows answers every
// kind of search exactly as one that reads its tables.
func TestOpenWithTables(t *testing.T) {
	fx := bigFixture()
	fx.bm25 = true
	fx.note("Acme.md", []string{"Company"}, "Acme funds the crawler")
	fx.note("Bob.md", []string{"Person"}, "Bob works on ranking")
	fx.edge("Acme.md", "funds", "Bob.md", "Acme (Company) funds Bob (Person)")
	fx.edge("Bob.md", "works_on", "Acme.md", "Bob (Person) works on Acme (Company)")
	s := fx.publish(t)
	read := openIndex(t, s)
	notes, err := s.Notes()
	must(t, err)
	chunks, err := s.Chunks()
	must(t, err)
	edges, err := s.Edges()
	must(t, err)
	shared, err := Open(s, Options{Text: true, ExactRows: 100, Tables: &Tables{Notes: notes, Chunks: chunks, Edges: edges}})
	must(t, err)
	t.Cleanup(func() { shared.Close() })
	e := embed.NewBuiltin()
	queries := []Query{
		{Text: "crawler ranking latency", K: 10},
		{Text: "crawler ranking latency", K: 10, Target: Chunks},
		{Text: "budget invoice", K: 5, Target: Chunks, Labels: []string{"Person"}},
		{Text: "funds", K: 5, Target: Edges},
		{Text: "graph note edge", K: 8, Score: Mean},
		{Text: "recall vector", K: 10, Method: BM25Only, Target: Chunks},
	}
	for _, q := range queries {
		want, err := read.Search(context.Background(), q, e)
		must(t, err)
		got, err := shared.Search(context.Background(), q, e)
		must(t, err)
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("%+v:\nshared tables %s\nread tables   %s", q, g, w)
		}
		if len(want.Notes)+len(want.Chunks)+len(want.Edges) == 0 {
			t.Errorf("%+v found nothing; the comparison shows nothing", q)
		}
	}
}
