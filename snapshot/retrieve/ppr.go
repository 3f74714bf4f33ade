package retrieve

import (
	"cmp"
	"context"
	"slices"
	"strings"
)

// PageRank parameters: the restart probability (the share of each step
// that jumps back to the seeds) and the number of power iterations, enough
// for the scores of a few thousand notes to settle to three digits.
const (
	pprRestart    = 0.15
	pprIterations = 40
)

func lower(s string) string { return strings.ToLower(s) }

// walkPPR collects the neighbourhood depth hops around the seeds (a wider
// per-note cap than walk, at most maxPPRNodes notes), ranks it by
// personalised PageRank restarting at the seeds in proportion to their
// scores, and keeps the perNode × seeds best neighbours.
func (q *question) walkPPR(ctx context.Context) {
	seeds := q.seedNotes()
	type reached struct {
		hops int
		via  int32
		fit  float64
	}
	found := map[int32]reached{}
	var order []int32
	frontier := seeds
	for hops := 1; hops <= q.p.depth && len(frontier) > 0; hops++ {
		var next []int32
		for _, u := range frontier {
			if ctx.Err() != nil {
				return
			}
			kept := 0
			for _, c := range q.candidates(u) {
				if kept == pprWidth*q.p.perNode || len(order) >= maxPPRNodes {
					break
				}
				if _, ok := found[c.note]; ok {
					continue
				}
				found[c.note] = reached{hops, c.edge, c.score}
				order = append(order, c.note)
				next = append(next, c.note)
				kept++
			}
		}
		frontier = next
	}
	nodes := append(slices.Clone(seeds), order...)
	scores := q.pagerank(nodes, len(seeds))
	ranked := make([]int, 0, len(order))
	for i := range order {
		ranked = append(ranked, len(seeds)+i)
	}
	slices.SortFunc(ranked, func(a, b int) int {
		if d := cmp.Compare(scores[b], scores[a]); d != 0 {
			return d
		}
		return cmp.Compare(nodes[a], nodes[b])
	})
	for i, m := range q.members {
		m.ppr = scores[i]
	}
	for _, i := range ranked[:min(len(ranked), q.p.perNode*max(len(seeds), 1))] {
		n := nodes[i]
		f := found[n]
		q.add(&member{note: n, role: RoleNeighbor, hops: f.hops, via: f.via, score: f.fit, ppr: scores[i]})
	}
}

// pagerank returns the personalised PageRank of nodes over the walkable
// edges among them, undirected, restarting at the first nseeds nodes in
// proportion to their seed scores.
func (q *question) pagerank(nodes []int32, nseeds int) []float64 {
	g := q.r.graph
	idx := make(map[int32]int, len(nodes))
	for i, n := range nodes {
		idx[n] = i
	}
	adj := make([][]int, len(nodes))
	for i, u := range nodes {
		for _, e := range g.Out(u) {
			ed := g.Edge(e)
			j, ok := idx[ed.Target]
			if !ok || j == i || !q.walks(e) {
				continue
			}
			adj[i] = append(adj[i], j)
			adj[j] = append(adj[j], i)
		}
	}
	restart := make([]float64, len(nodes))
	total := 0.0
	for i := range nseeds {
		restart[i] = max(q.memberOf(nodes[i]).score, 1e-9)
		total += restart[i]
	}
	for i := range nseeds {
		restart[i] /= total
	}
	rank := slices.Clone(restart)
	next := make([]float64, len(nodes))
	for range pprIterations {
		for i := range next {
			next[i] = pprRestart * restart[i]
		}
		dangling := 0.0
		for i, r := range rank {
			if len(adj[i]) == 0 {
				dangling += r
				continue
			}
			share := (1 - pprRestart) * r / float64(len(adj[i]))
			for _, j := range adj[i] {
				next[j] += share
			}
		}
		for i := range next {
			next[i] += (1 - pprRestart) * dangling * restart[i]
		}
		rank, next = next, rank
	}
	return rank
}
