package graphdb_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

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
// includes translation and result conversion).
func BenchmarkQuery10k(b *testing.B) {
	snap := benchSnapshot(b)
	db, err := graphdb.Open(snap.Dir, graphdb.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
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
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := db.Query(ctx, q.query, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
