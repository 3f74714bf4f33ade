package linkgraph_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
)

// benchGraph is the link graph of the generated 10,000-note vault
// (vaultgen seed 1) the README's figures use, built once per test binary.
// VAULTGRAPH_BENCH_DATA names a data directory indexed from that vault to
// reuse instead (vaultgraph gen --notes 10000 V && vaultgraph index --vault
// V --data D).
var benchGraph = sync.OnceValues(func() (*linkgraph.Graph, error) {
	data := os.Getenv("VAULTGRAPH_BENCH_DATA")
	if data == "" {
		dir, err := os.MkdirTemp("", "vaultgraph-linkgraph-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		vault, data2 := filepath.Join(dir, "vault"), filepath.Join(dir, "data")
		if _, err := vaultgen.Generate(vault, vaultgen.Config{Notes: 10000, Seed: 1}); err != nil {
			return nil, err
		}
		if _, err := indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: data2}); err != nil {
			return nil, err
		}
		data = data2
	}
	s, _, err := snapshot.Latest(data, snapshot.OpenOptions{})
	if err != nil {
		return nil, err
	}
	return linkgraph.Load(s)
})

func mustBenchGraph(tb testing.TB) *linkgraph.Graph {
	tb.Helper()
	if testing.Short() {
		tb.Skip("builds a 10,000-note vault")
	}
	g, err := benchGraph()
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// landmarks are the notes the benchmarks start from: the note with the most
// backlinks (the hub), a note of median degree, and the two ends of a
// longest shortest path found from that note.
type landmarks struct {
	hub, typical, far1, far2 string
	hubBacklinks, distance   int
}

func findLandmarks(g *linkgraph.Graph) landmarks {
	type deg struct {
		i    int32
		in   int
		both int
	}
	var ds []deg
	for i := range int32(g.Len()) {
		if n := g.Note(i); !n.Stub {
			l := g.Links(i)
			ds = append(ds, deg{i, l.Backward, l.Total})
		}
	}
	slices.SortFunc(ds, func(a, b deg) int { return b.in - a.in })
	lm := landmarks{hub: g.Note(ds[0].i).Path, hubBacklinks: ds[0].in}
	slices.SortFunc(ds, func(a, b deg) int { return a.both - b.both })
	lm.typical = g.Note(ds[len(ds)/2].i).Path
	// Two sweeps of breadth-first search find a long shortest path.
	lm.far1, _ = farthest(g, lm.typical)
	lm.far2, lm.distance = farthest(g, lm.far1)
	return lm
}

func farthest(g *linkgraph.Graph, from string) (string, int) {
	src, _ := g.Find(from)
	dist := map[int32]int{src: 0}
	queue := []int32{src}
	last := src
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		last = u
		for _, list := range [][]int32{g.Out(u), g.In(u)} {
			for _, e := range list {
				ed := g.Edge(e)
				v := ed.Target
				if v == u {
					v = ed.Source
				}
				if _, ok := dist[v]; !ok && !g.Note(v).Stub {
					dist[v] = dist[u] + 1
					queue = append(queue, v)
				}
			}
		}
	}
	return g.Note(last).Path, dist[last]
}

// loop runs f under the benchmark loop and reports the median time of one
// call besides the mean that ns/op gives.
func loop(b *testing.B, f func() error) {
	b.Helper()
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns/op")
}

func BenchmarkTraverseDepth3(b *testing.B) {
	g := mustBenchGraph(b)
	lm := findLandmarks(g)
	ctx := context.Background()
	for _, tc := range []struct {
		name, source string
		maxNodes     int
	}{
		{"typical/maxNodes=50", lm.typical, 0},
		{"typical/maxNodes=10000", lm.typical, linkgraph.MaxNodesLimit},
		{"hub/maxNodes=50", lm.hub, 0},
		{"hub/maxNodes=10000", lm.hub, linkgraph.MaxNodesLimit},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var nodes int
			loop(b, func() error {
				resp, err := g.Traverse(ctx, linkgraph.Request{SourcePath: tc.source, MaxDepth: 3, MaxNodes: tc.maxNodes})
				if err == nil {
					nodes = len(resp.Nodes)
				}
				return err
			})
			b.ReportMetric(float64(nodes), "nodes")
		})
	}
}

func BenchmarkShortestPath(b *testing.B) {
	g := mustBenchGraph(b)
	lm := findLandmarks(g)
	b.Logf("between %s and %s, %d hops apart", lm.far1, lm.far2, lm.distance)
	ctx := context.Background()
	loop(b, func() error {
		resp, err := g.Path(ctx, linkgraph.Request{SourcePath: lm.far1, TargetPath: lm.far2})
		if err == nil && len(resp.Paths) != 1 {
			err = fmt.Errorf("no path: %s", resp.Message)
		}
		return err
	})
	b.ReportMetric(float64(lm.distance), "hops")
}

func BenchmarkAllPaths(b *testing.B) {
	g := mustBenchGraph(b)
	lm := findLandmarks(g)
	ctx := context.Background()
	loop(b, func() error {
		_, err := g.Path(ctx, linkgraph.Request{SourcePath: lm.far1, TargetPath: lm.far2, All: true, MaxDepth: lm.distance + 1, MaxPaths: 10})
		return err
	})
}

func BenchmarkStatistics(b *testing.B) {
	g := mustBenchGraph(b)
	lm := findLandmarks(g)
	ctx := context.Background()
	b.Run("hub", func(b *testing.B) {
		loop(b, func() error {
			_, err := g.Statistics(ctx, linkgraph.Request{SourcePath: lm.hub})
			return err
		})
	})
	b.Run("vault", func(b *testing.B) {
		loop(b, func() error {
			_, err := g.Statistics(ctx, linkgraph.Request{})
			return err
		})
	})
}

func BenchmarkBacklinksHub(b *testing.B) {
	g := mustBenchGraph(b)
	lm := findLandmarks(g)
	ctx := context.Background()
	loop(b, func() error {
		_, err := g.Backlinks(ctx, linkgraph.Request{SourcePath: lm.hub})
		return err
	})
}

// BenchmarkLoad builds the graph from the snapshot's tables: the cost a
// server pays once per snapshot.
func BenchmarkLoad(b *testing.B) {
	mustBenchGraph(b)
	data := os.Getenv("VAULTGRAPH_BENCH_DATA")
	if data == "" {
		b.Skip("set VAULTGRAPH_BENCH_DATA to a data directory to measure loading")
	}
	s, _, err := snapshot.Latest(data, snapshot.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	loop(b, func() error {
		_, err := linkgraph.Load(s)
		return err
	})
}

// TestHubBounds checks on the generated vault's biggest hub (thousands of
// backlinks) that every query stays within its bounds: notes, edges, list
// limits, and the time bound of the all-paths search.
func TestHubBounds(t *testing.T) {
	if raceEnabled && os.Getenv("VAULTGRAPH_BENCH_DATA") == "" {
		t.Skip("indexing 10,000 notes under the race detector takes minutes; TestSyntheticHubBounds covers the bounds")
	}
	g := mustBenchGraph(t)
	lm := findLandmarks(g)
	if lm.hubBacklinks < 1000 {
		t.Fatalf("hub %s has only %d backlinks", lm.hub, lm.hubBacklinks)
	}
	t.Logf("hub %s: %d backlinks", lm.hub, lm.hubBacklinks)
	checkHubBounds(t, g, lm.hub, lm.typical)
}

// checkHubBounds runs every action from a hub with small bounds and checks
// that none is exceeded and that each says it stopped early.
func checkHubBounds(t *testing.T, g *linkgraph.Graph, hub, other string) {
	t.Helper()
	ctx := context.Background()
	resp, err := g.Traverse(ctx, linkgraph.Request{SourcePath: hub, MaxDepth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Nodes) != linkgraph.DefaultMaxNodes || !resp.Truncated || resp.Stopped != "maxNodes" || len(resp.Edges) > linkgraph.DefaultMaxEdges {
		t.Errorf("traverse: %d nodes, %d edges, stopped %q", len(resp.Nodes), len(resp.Edges), resp.Stopped)
	}
	resp, err = g.Traverse(ctx, linkgraph.Request{SourcePath: hub, MaxDepth: 3, MaxNodes: 2000, MaxEdges: 100, FollowTags: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Nodes) > 2000 || len(resp.Edges) != 100 || !resp.Truncated {
		t.Errorf("traverse 2000/100: %d nodes, %d edges, stopped %q", len(resp.Nodes), len(resp.Edges), resp.Stopped)
	}
	for _, action := range []string{linkgraph.ActionBacklinks, linkgraph.ActionNeighbors} {
		resp, err = g.Do(ctx, linkgraph.Request{Action: action, SourcePath: hub, MaxNodes: 20})
		if err != nil {
			t.Fatal(err)
		}
		listed := len(resp.Nodes)
		if action == linkgraph.ActionNeighbors {
			listed-- // the source
		}
		if listed != 20 || !resp.Truncated || resp.GraphStats.TotalNodes < 1000 || len(resp.Edges) > 4*20 {
			t.Errorf("%s: %d listed of %d, %d edges, truncated %v", action, listed, resp.GraphStats.TotalNodes, len(resp.Edges), resp.Truncated)
		}
	}
	// All paths through a hub explode combinatorially: the search must
	// stop at its bound and say so (one that ignored its bounds would run
	// until go test's own deadline).
	resp, err = g.Path(ctx, linkgraph.Request{SourcePath: other, TargetPath: hub, All: true, MaxDepth: 6, MaxPaths: linkgraph.MaxPathsLimit, TimeoutMS: 100})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Truncated || (resp.Stopped != "timeout" && resp.Stopped != "maxPaths") || len(resp.Paths) > linkgraph.MaxPathsLimit {
		t.Errorf("all paths: %d paths, stopped %q", len(resp.Paths), resp.Stopped)
	}
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := g.Path(ctx, linkgraph.Request{SourcePath: other, TargetPath: hub, All: true, MaxDepth: 6, MaxPaths: linkgraph.MaxPathsLimit}); err == nil {
		t.Error("a canceled all-paths search returned no error")
	}
}
