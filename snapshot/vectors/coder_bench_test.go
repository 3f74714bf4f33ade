package vectors

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/coder/hnsw"
)

// BenchmarkCoderHNSW20k measures github.com/coder/hnsw, the HNSW library
// chosen for this project, against this package's graph on the same 20,000
// latent vectors and queries, so that the decision to use our own graph
// can be checked again whenever a new coder/hnsw release is available:
//
//	go test ./snapshot/vectors -run '^$' -bench 'CoderHNSW20k' -benchtime 500x
//
// "coder" is Graph.Search(q, 10) with EfSearch ef; "coder-overfetch" asks
// it for ef results and keeps the 10 closest, the most a caller can do
// about its early-stopping search; "ours" is Graph.Search with the same ef.
// Both graphs have DefaultParams' M; coder/hnsw's is built with EfSearch
// 200, its construction beam.
func BenchmarkCoderHNSW20k(b *testing.B) {
	set := func() vectorSet { return latentSet(3, 20_000, 500, 384, 32) }
	for _, ef := range benchEfs(64, 256) {
		b.Run(fmt.Sprintf("coder/ef=%d", ef), func(b *testing.B) {
			benchCoder(b, coderGraph(b, set), ef, 10)
		})
		b.Run(fmt.Sprintf("coder-overfetch/ef=%d", ef), func(b *testing.B) {
			benchCoder(b, coderGraph(b, set), ef, ef)
		})
		b.Run(fmt.Sprintf("ours/ef=%d", ef), func(b *testing.B) {
			benchQueries(b, cachedIndex(b, "latent20k", 384, set), ef)
		})
	}
}

// coderIndex is a coder/hnsw graph over a vector set, with its exact
// answers.
type coderIndex struct {
	graph   *hnsw.Graph[int]
	set     vectorSet
	truth   [][]int // per query, rows of the exact 10 nearest
	build   time.Duration
	exact50 time.Duration
}

var coderIndexes = map[string]*coderIndex{}

func coderGraph(b *testing.B, set func() vectorSet) *coderIndex {
	if ci, ok := coderIndexes["latent20k"]; ok {
		return ci
	}
	s := set()
	f := writeRows(b, s.rows, 384)
	g := hnsw.NewGraph[int]()
	g.M, g.EfSearch, g.Rng = DefaultParams().M, 200, rand.New(rand.NewSource(1))
	start := time.Now()
	for i, v := range s.rows.vecs {
		g.Add(hnsw.MakeNode(i, v))
	}
	ci := &coderIndex{graph: g, set: s, build: time.Since(start)}
	var exact []time.Duration
	for _, q := range s.queries {
		t := time.Now()
		hits, err := f.Search(q, 10, nil)
		if err != nil {
			b.Fatal(err)
		}
		exact = append(exact, time.Since(t))
		var rows []int
		for _, h := range hits {
			rows = append(rows, h.Row)
		}
		ci.truth = append(ci.truth, rows)
	}
	ci.exact50 = percentile(exact, 0.5)
	coderIndexes["latent20k"] = ci
	return ci
}

// benchCoder reports coder/hnsw's recall@10 and latency, asking Search for
// fetch results with EfSearch ef and keeping the 10 closest.
func benchCoder(b *testing.B, ci *coderIndex, ef, fetch int) {
	b.Logf("coder/hnsw v0.6.1 graph of %d vectors built in %s", ci.graph.Len(), ci.build.Round(time.Millisecond))
	ci.graph.EfSearch = ef
	top := func(q []float32) []int {
		nodes := ci.graph.Search(q, fetch)
		slices.SortFunc(nodes, func(x, y hnsw.Node[int]) int {
			return -cmpFloat(Dot(x.Value, q), Dot(y.Value, q))
		})
		var rows []int
		for _, n := range nodes[:min(len(nodes), 10)] {
			rows = append(rows, n.Key)
		}
		return rows
	}
	found := 0
	for i, q := range ci.set.queries {
		for _, r := range top(q) {
			if slices.Contains(ci.truth[i], r) {
				found++
			}
		}
	}
	var lat []time.Duration
	i := 0
	for b.Loop() {
		q := ci.set.queries[i%len(ci.set.queries)]
		i++
		start := time.Now()
		top(q)
		lat = append(lat, time.Since(start))
	}
	p50 := percentile(lat, 0.5)
	b.ReportMetric(float64(found)/float64(10*len(ci.set.queries)), "recall@10")
	b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(ci.exact50)/float64(p50), "speedup-x")
}

func cmpFloat(a, b float32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
