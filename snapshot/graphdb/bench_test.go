package graphdb_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// Benchmarks run on a generated 10,000-note vault (vaultgen seed 1):
//
//	go test ./snapshot/graphdb/ -run XXX -bench . -benchtime 20x
//
// Generating and indexing it once takes a few seconds and is not timed.
// BenchmarkUpdate10k edits that vault after the shared snapshot was taken;
// the other benchmarks only read the snapshot.

var (
	benchOnce sync.Once
	benchSnap *snapshot.Snapshot
	benchErr  error
	benchTmp  string
)

func benchSnapshot(b *testing.B) *snapshot.Snapshot {
	benchOnce.Do(func() {
		benchTmp, benchErr = os.MkdirTemp("", "vaultgraph-bench-")
		if benchErr != nil {
			return
		}
		vault := filepath.Join(benchTmp, "vault")
		if _, benchErr = vaultgen.Generate(vault, vaultgen.Config{Notes: 10000, Seed: 1}); benchErr != nil {
			return
		}
		var res *indexer.Result
		res, benchErr = indexer.Run(context.Background(), indexer.Options{
			Vault: vault, Data: filepath.Join(benchTmp, "data"),
			Stages: []indexer.Stage{indexer.GraphStage{}},
		})
		if benchErr != nil {
			return
		}
		benchSnap, benchErr = snapshot.Open(res.Dir, snapshot.OpenOptions{})
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchSnap
}

func cleanupBench() {
	if benchTmp != "" {
		os.RemoveAll(benchTmp)
	}
}

// BenchmarkBuild10k measures building the graph database from a
// snapshot's rows: inference, staging files, COPY, and the read-only
// check.
func BenchmarkBuild10k(b *testing.B) {
	snap := benchSnapshot(b)
	notes, err := snap.Notes()
	if err != nil {
		b.Fatal(err)
	}
	edges, err := snap.Edges()
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d notes and stubs, %d edges", len(notes), len(edges))
	b.ResetTimer()
	for b.Loop() {
		dir := b.TempDir()
		if _, err := graphdb.Build(context.Background(), dir, notes, edges, graphdb.BuildOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if fi, err := os.Stat(filepath.Join(dir, format.GraphFile)); err == nil {
			b.ReportMetric(float64(fi.Size())/(1<<20), "MiB")
		}
		os.RemoveAll(dir)
		b.StartTimer()
	}
}

// BenchmarkQuery10k measures typical queries on an open database (each
// includes translation and result conversion): engine/ with every query
// in Kuzu (graphdb.DirectOff), direct/ with the copy that answers simple
// ones (graphdb.DirectAtOpen; the others still run in Kuzu).
func BenchmarkQuery10k(b *testing.B) {
	snap := benchSnapshot(b)
	db, err := graphdb.Open(snap.Dir, graphdb.Options{Direct: graphdb.DirectOff})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	direct, err := graphdb.Open(snap.Dir, graphdb.Options{Direct: graphdb.DirectAtOpen})
	if err != nil {
		b.Fatal(err)
	}
	defer direct.Close()
	ctx := context.Background()
	pick := func(q string) any {
		res, err := db.Query(ctx, q, nil)
		if err != nil || len(res.Rows) == 0 {
			b.Fatalf("%s: %v %v", q, err, res)
		}
		return res.Rows[0][0]
	}
	person := pick("MATCH (p:Person)-[:works_at]->(:Company) RETURN p.id ORDER BY p.id LIMIT 1")
	hub := pick("MATCH (n)<-[r:links_to]-() RETURN n.id, count(r) AS c ORDER BY c DESC, n.id LIMIT 1")
	far := pick("MATCH (n) WHERE NOT n.stub RETURN n.id ORDER BY n.id DESC LIMIT 1")
	hitsRes, err := db.Query(ctx, "MATCH (n) WHERE NOT n.stub RETURN n.id ORDER BY n.path SKIP 100 LIMIT 20", nil)
	if err != nil {
		b.Fatal(err)
	}
	var hits []any
	for _, r := range hitsRes.Rows {
		hits = append(hits, r[0])
	}
	params := map[string]any{"id": person, "hub": hub, "far": far, "hits": hits}
	for _, q := range []struct{ name, query string }{
		{"count_label", "MATCH (n:Person) RETURN count(*)"},
		{"note_by_id", "MATCH (n) WHERE n.id = $id RETURN n"},
		{"neighbours", "MATCH (n)-[r]-(m) WHERE n.id = $id RETURN type(r), m.id"},
		{"hits_expand", "MATCH (h)-[r]-(m) WHERE h.id IN $hits AND type(r) <> 'links_to' RETURN h.id, type(r), m.title LIMIT 200"},
		{"two_hop_typed", "MATCH (a:Person)-[:works_at]->(c:Company)<-[:works_at]-(b:Person) WHERE a.id = $id RETURN DISTINCT b.id"},
		{"var_length_1_3", "MATCH (a)-[:links_to*1..3]->(b) WHERE a.id = $id RETURN count(DISTINCT b)"},
		{"hub_backlinks", "MATCH (h)<-[:links_to]-(x) WHERE h.id = $hub RETURN x.id ORDER BY x.id LIMIT 100"},
		{"shortest_path", "MATCH p = shortestPath((a)-[*..6]-(b)) WHERE a.id = $id AND b.id = $far RETURN length(p)"},
		{"labels_histogram", "MATCH (n) UNWIND labels(n) AS l RETURN l, count(*) AS c ORDER BY c DESC, l"},
		{"property_filter", "MATCH (n) WHERE n.priority >= 3 AND n.status IS NOT NULL RETURN n.id, n.priority ORDER BY n.priority DESC, n.id LIMIT 50"},
		{"one_hop_by_path", "MATCH (a)-[:links_to]->(b) WHERE a.path = $id RETURN b.title, b.path ORDER BY b.title LIMIT 20"},
		{"typed_prefix", "MATCH (p:Person)-[:authored]->(x) WHERE x.title STARTS WITH 'Ol' RETURN p.title, x.title LIMIT 20"},
		// bench.sh's mixed load: a sort over every edge.
		{"sort_every_edge", "MATCH (a)-[e]->(b) RETURN a.title, b.title ORDER BY b.title DESC, a.title SKIP 2500 LIMIT 20"},
	} {
		for _, on := range []struct {
			name string
			db   *graphdb.DB
		}{{"engine", db}, {"direct", direct}} {
			b.Run(on.name+"/"+q.name, func(b *testing.B) {
				for b.Loop() {
					if _, err := on.db.Query(ctx, q.query, params); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkUpdate10k measures updating the 10,000-note snapshot's graph
// against building the same rows from scratch:
//
//   - saved=N: vaultgen.Edit rewrote a paragraph in N notes (1, then 10,
//     100 and 1000 more). A saved note has a new size and modification
//     time, fixed-width columns that the update sets in place.
//   - retitled=N: N notes got a new title, a string column, so each is
//     replaced together with every edge at it: the costliest change per
//     note, which the update limit is chosen for.
//   - touched=all: every note has a new modification time (a sync tool,
//     a checkout), fixed-width values set in place.
//
// The cost metric is what UpdateOptions.Limit bounds: rows removed and
// added, plus a tenth of the rows set, over all rows.
func BenchmarkUpdate10k(b *testing.B) {
	parent := benchSnapshot(b)
	ctx := context.Background()
	notes, err := parent.Notes()
	if err != nil {
		b.Fatal(err)
	}
	edges, err := parent.Edges()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			dir := b.TempDir()
			if _, err := graphdb.Build(ctx, dir, notes, edges, graphdb.BuildOptions{}); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			os.RemoveAll(dir)
			b.StartTimer()
		}
	})
	for _, n := range []int{1, 10, 100, 1000} {
		retitled := slices.Clone(notes)
		for i := 0; i < n; i++ {
			k := i * len(notes) / n
			retitled[k].Title += " (retitled)"
		}
		b.Run(fmt.Sprintf("retitled=%d", n), func(b *testing.B) { benchUpdate(b, parent, retitled, edges) })
	}
	touched := slices.Clone(notes)
	for i := range touched {
		if !touched[i].Stub {
			touched[i].Modified = touched[i].Modified.Add(time.Second)
		}
	}
	b.Run("touched=all", func(b *testing.B) { benchUpdate(b, parent, touched, edges) })
	vault := filepath.Join(benchTmp, "vault")
	data := filepath.Join(benchTmp, "data")
	saved := 0
	for i, n := range []int{1, 10, 100, 1000} {
		if _, err := vaultgen.Edit(vault, int64(100+i), n); err != nil {
			b.Fatal(err)
		}
		saved += n
		// A run without stages writes the new rows; the parent stays the
		// snapshot with the graph.
		res, err := indexer.Run(ctx, indexer.Options{Vault: vault, Data: data})
		if err != nil {
			b.Fatal(err)
		}
		snap, err := snapshot.Open(res.Dir, snapshot.OpenOptions{})
		if err != nil {
			b.Fatal(err)
		}
		notes, err := snap.Notes()
		if err != nil {
			b.Fatal(err)
		}
		edges, err := snap.Edges()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("saved=%d", saved), func(b *testing.B) { benchUpdate(b, parent, notes, edges) })
	}
}

func benchUpdate(b *testing.B, parent *snapshot.Snapshot, notes []format.Note, edges []format.Edge) {
	rec := &recorder{}
	opts := graphdb.UpdateOptions{BuildOptions: graphdb.BuildOptions{Log: slog.New(rec)}, Limit: 100}
	for b.Loop() {
		dir := b.TempDir()
		g, err := graphdb.Update(context.Background(), dir, parent, notes, edges, opts)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(dir)
		cost := float64(rec.int("notes_removed")+rec.int("notes_added")+rec.int("edges_removed")+rec.int("edges_added")) +
			float64(rec.int("notes_set")+rec.int("edges_set"))/10
		b.ReportMetric(100*cost/float64(g.Notes+g.Edges), "cost%")
		b.StartTimer()
	}
}

// recorder keeps the integer attributes of the last log record.
type recorder struct{ attrs map[string]int64 }

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.attrs = map[string]int64{}
	rec.Attrs(func(a slog.Attr) bool {
		if a.Value.Kind() == slog.KindInt64 {
			r.attrs[a.Key] = a.Value.Int64()
		}
		return true
	})
	return nil
}
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recorder) WithGroup(string) slog.Handler      { return r }
func (r *recorder) int(key string) int                 { return int(r.attrs[key]) }

// manyTypes is a vault of one note with one inline field per edge type
// ("k0:: [[t3]]"), linking to 100 target notes, beside a background of
// 1,000 notes linked in a ring, so that the typed tables have rows too.
func manyTypes(types int) ([]format.Note, []format.Edge) {
	var notes []format.Note
	var edges []format.Edge
	note := func(id string) {
		notes = append(notes, format.Note{ID: id, Path: id + ".md", Title: id, Labels: []string{"Note"}, Size: 1, Modified: time.Unix(1700000000, 0)})
	}
	note("hub")
	for i := 0; i < 100; i++ {
		note(fmt.Sprintf("t%d", i))
	}
	for i := 0; i < 1000; i++ {
		note(fmt.Sprintf("n%d", i))
	}
	for i := 0; i < 1000; i++ {
		edges = append(edges, format.Edge{ID: fmt.Sprintf("l%d", i), Source: fmt.Sprintf("n%d", i), Target: fmt.Sprintf("n%d", (i+1)%1000),
			Type: format.TypeLinksTo, Sign: 1, Count: 1, Origin: "body"})
	}
	for i := 0; i < types; i++ {
		edges = append(edges, format.Edge{ID: fmt.Sprintf("k%d", i), Source: "hub", Target: fmt.Sprintf("t%d", i%100),
			Type: fmt.Sprintf("k%d", i), Sign: 1, Count: 1, Line: int32(i + 1), Origin: "inline"})
	}
	return notes, edges
}

// BenchmarkBuildTypes measures building a graph whose one note has
// types distinct edge types (issue 12: one relationship table per type
// made this quadratic):
//
//	go test ./snapshot/graphdb/ -run XXX -bench BuildTypes -benchtime 1x
func BenchmarkBuildTypes(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 2000, 20000} {
		notes, edges := manyTypes(n)
		b.Run(fmt.Sprintf("types=%d", n), func(b *testing.B) {
			for b.Loop() {
				dir := b.TempDir()
				if _, err := graphdb.Build(context.Background(), dir, notes, edges, graphdb.BuildOptions{}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				os.RemoveAll(dir)
				b.StartTimer()
			}
		})
	}
}

// BenchmarkBuildTypedTables measures the bound on typed tables: the
// 1,000-type vault of BenchmarkBuildTypes built with at most n types in
// tables of their own, the others in the shared one.
//
//	go test ./snapshot/graphdb/ -run XXX -bench BuildTypedTables -benchtime 1x
func BenchmarkBuildTypedTables(b *testing.B) {
	notes, edges := manyTypes(1000)
	for _, n := range []int{2, 8, 32, 64, 128} {
		b.Run(fmt.Sprintf("tables=%d", n), func(b *testing.B) {
			for b.Loop() {
				dir := b.TempDir()
				if _, err := graphdb.Build(context.Background(), dir, notes, edges, graphdb.BuildOptions{TypedTables: n}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				os.RemoveAll(dir)
				b.StartTimer()
			}
		})
	}
}
