package retrieve_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
	"github.com/vaultgraph/vaultgraph/snapshot/retrieve"
)

// benchRetriever answers over the generated 10,000-note vault (vaultgen
// seed 1) indexed with the builtin embedder and BM25, built once per test
// binary; that takes minutes, mostly building the vector graphs.
// VAULTGRAPH_BENCH_DATA names a data directory indexed from that vault
// (vaultgraph gen --notes 10000 V && vaultgraph index --vault V --data D)
// to reuse instead.
var benchRetriever = sync.OnceValues(func() (*retrieve.Retriever, error) {
	var s *snapshot.Snapshot
	if data := os.Getenv("VAULTGRAPH_BENCH_DATA"); data != "" {
		var err error
		if s, _, err = snapshot.Latest(data, snapshot.OpenOptions{}); err != nil {
			return nil, err
		}
	} else {
		dir, err := os.MkdirTemp("", "vaultgraph-retrieve-bench-")
		if err != nil {
			return nil, err
		}
		tempDirs = append(tempDirs, dir)
		vault := filepath.Join(dir, "vault")
		if _, err := vaultgen.Generate(vault, vaultgen.Config{Notes: 10000, Seed: 1}); err != nil {
			return nil, err
		}
		if s, err = indexVault(vault); err != nil {
			return nil, err
		}
	}
	return retrieve.Open(s, embed.Config{})
})

func mustBenchRetriever(tb testing.TB) *retrieve.Retriever {
	tb.Helper()
	if testing.Short() {
		tb.Skip("builds and embeds a 10,000-note vault")
	}
	r, err := benchRetriever()
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// benchQuestions asks about notes spread over the vault, by title, and one
// about its biggest hub.
func benchQuestions(tb testing.TB, r *retrieve.Retriever) (questions []string, hub string) {
	tb.Helper()
	s, err := snapshot.Open(r.SnapshotDir(), snapshot.OpenOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	g, err := linkgraph.Load(s)
	if err != nil {
		tb.Fatal(err)
	}
	best := int32(0)
	for i := range int32(g.Len()) {
		if g.Links(i).Backward > g.Links(best).Backward {
			best = i
		}
	}
	hub = g.Note(best).Title
	for i := 0; i < g.Len(); i += g.Len() / 8 {
		n := g.Note(int32(i))
		questions = append(questions, fmt.Sprintf("What is %s part of, and what does it depend on?", n.Title))
	}
	return append(questions, fmt.Sprintf("Who works on %s and what does it depend on?", hub)), hub
}

func BenchmarkRetrieve(b *testing.B) {
	r := mustBenchRetriever(b)
	questions, _ := benchQuestions(b, r)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		req  retrieve.Request
	}{
		{"depth=1", retrieve.Request{Depth: retrieve.Depth(1)}},
		{"depth=2", retrieve.Request{Depth: retrieve.Depth(2)}},
		{"depth=2/rank=ppr", retrieve.Request{Depth: retrieve.Depth(2), Rank: retrieve.RankPPR}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var times []time.Duration
			i := 0
			for b.Loop() {
				req := tc.req
				req.Question = questions[i%len(questions)]
				i++
				start := time.Now()
				if _, err := r.Retrieve(ctx, req); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns/op")
		})
	}
}

// TestRetrieveHubBounded asks about the generated vault's biggest hub at
// the deepest walk: the answer stays within its chunk budget and the
// per-note cap, whatever the hub's thousands of links. Embedding the vault
// takes minutes, so it runs only with VAULTGRAPH_BENCH_DATA set;
// TestSyntheticHubRetrieve checks the same on a small vault every time.
func TestRetrieveHubBounded(t *testing.T) {
	if os.Getenv("VAULTGRAPH_BENCH_DATA") == "" {
		t.Skip("set VAULTGRAPH_BENCH_DATA to an indexed 10,000-note vault")
	}
	r := mustBenchRetriever(t)
	questions, hub := benchQuestions(t, r)
	checkHubRetrieve(t, r, questions[len(questions)-1], hub)
}

// TestSyntheticHubRetrieve builds a vault whose hub has 1,500 typed
// backlinks from notes that all fit the question equally, and checks that
// retrieval stays within its bounds at every depth.
func TestSyntheticHubRetrieve(t *testing.T) {
	if raceEnabled {
		t.Skip("embedding 1,500 notes under the race detector takes too long; TestConcurrentRetrieve covers races")
	}
	vault := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(vault, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Hub.md", "# Hub\nThe hub project gathers every team.\n")
	for i := range 1500 {
		write(fmt.Sprintf("Team %d.md", i), fmt.Sprintf("# Team %d\nTeam %d works on the hub project.\n\n- part_of:: [[Hub]]\n- knows:: [[Team %d]]\n", i, i, (i+1)%1500))
	}
	s, err := indexVault(vault)
	if err != nil {
		t.Fatal(err)
	}
	r, err := retrieve.Open(s, embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	checkHubRetrieve(t, r, "Which teams work on the hub project?", "Hub")
}

func checkHubRetrieve(t *testing.T, r *retrieve.Retriever, question, hub string) {
	t.Helper()
	req := retrieve.Request{Question: question, Depth: retrieve.Depth(retrieve.MaxDepth), PerNodeCap: 5, MaxChunks: 30}
	for _, rank := range []string{retrieve.RankDistance, retrieve.RankPPR} {
		req.Rank = rank
		res, err := r.Retrieve(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		seeds := 0
		for _, n := range res.Notes {
			if n.Role == retrieve.RoleHit {
				seeds++
			}
		}
		// Each note adds at most PerNodeCap neighbours per hop.
		bound := seeds
		for hop, frontier := 1, seeds; hop <= retrieve.MaxDepth; hop++ {
			frontier *= req.PerNodeCap
			bound += frontier
		}
		if len(res.Chunks) > req.MaxChunks || len(res.Notes) > bound || len(res.Edges) > 2*req.MaxChunks+2*retrieve.DefaultK {
			t.Errorf("%s: %d chunks, %d notes (bound %d), %d edges", rank, len(res.Chunks), len(res.Notes), bound, len(res.Edges))
		}
		t.Logf("%s on hub %q: %d chunks, %d notes, %d edges, truncated %v, %.1f ms", rank, hub, len(res.Chunks), len(res.Notes), len(res.Edges), res.Truncated, res.ElapsedMS)
	}
}

// BenchmarkResultJSON encodes depth-1 answers over the generated vault
// with encoding/json (as the server did) and with Result.AppendJSON.
func BenchmarkResultJSON(b *testing.B) {
	r := mustBenchRetriever(b)
	questions, _ := benchQuestions(b, r)
	var results []*retrieve.Result
	for _, q := range questions {
		res, err := r.Retrieve(context.Background(), retrieve.Request{Question: q, Depth: retrieve.Depth(1)})
		if err != nil {
			b.Fatal(err)
		}
		results = append(results, res)
	}
	b.Run("encoding-json", func(b *testing.B) {
		i := 0
		for b.Loop() {
			stdJSON(b, results[i%len(results)])
			i++
		}
	})
	b.Run("AppendJSON", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, err := results[i%len(results)].AppendJSON(nil); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}
