package retrieve

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
)

// assemble picks the chunks within the budget and the edges between the
// notes they come from. The budget goes first to one chunk per seed, then
// to one per neighbour, then to the seeds' further matching chunks, so
// that second passages of seeds never crowd out the neighbours.
func (q *question) assemble() *Result {
	r := q.r
	res := &Result{Snapshot: r.snap.ID, Question: q.p.question, Notice: Notice, Rank: q.p.rank, Depth: q.p.depth,
		Chunks: []Chunk{}, Edges: []Edge{}, Notes: []Note{}}
	if e := r.snap.Manifest.Embedder; e != nil {
		res.Embedder, res.EmbedderKind = e.Spec(), e.Kind
	}
	res.Warnings = append(res.Warnings, r.warnings...)
	if q.pending > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d chunks have no vector yet (their embedding is pending) and are found by BM25 only", q.pending))
	}
	// Seeds keep their rank; neighbours go by distance, then fit, or by
	// PageRank.
	nb := q.members[q.seedCount():]
	if q.p.rank == RankPPR {
		slices.SortStableFunc(nb, func(a, b *member) int { return cmp.Compare(b.ppr, a.ppr) })
	} else {
		slices.SortStableFunc(nb, func(a, b *member) int {
			if d := cmp.Compare(a.hops, b.hops); d != 0 {
				return d
			}
			return cmp.Compare(b.rel, a.rel)
		})
	}

	picked := map[int32][]int32{} // note -> chunks, in pick order
	budget := q.p.maxChunks
	take := func(m *member, c int32) bool {
		if budget == 0 {
			res.Truncated = true
			return false
		}
		budget--
		picked[m.note] = append(picked[m.note], c)
		return true
	}
	for _, m := range q.members {
		if m.role != RoleHit {
			continue
		}
		if c := q.hitChunks(m.note); len(c) > 0 {
			take(m, c[0])
		} else if c, _ := q.bestChunk(m.note); c >= 0 {
			take(m, c)
		}
	}
	for _, m := range q.members {
		if m.role == RoleNeighbor {
			if c, _ := q.bestChunk(m.note); c >= 0 {
				take(m, c)
			}
		}
	}
	for _, m := range q.members {
		if m.role != RoleHit {
			continue
		}
		if c := q.hitChunks(m.note); len(c) > 1 {
			for _, extra := range c[1:] {
				if !take(m, extra) {
					break
				}
			}
		}
	}

	returned := map[int32]bool{}
	for _, m := range q.members {
		chunks := picked[m.note]
		if len(chunks) == 0 {
			if len(r.chunksOf[m.note]) > 0 {
				continue // cut by the budget
			}
			// A stub or an empty note costs no budget; it is returned when
			// the note it was reached from is.
			if m.via >= 0 {
				if ed := r.graph.Edge(m.via); !returned[ed.Source] && !returned[ed.Target] {
					continue
				}
			}
		}
		returned[m.note] = true
		n := r.graph.Note(m.note)
		res.Notes = append(res.Notes, Note{Path: n.Name(), Title: n.Title, Labels: n.Labels, Stub: n.Stub, Role: m.role, Hops: m.hops, Chunks: len(chunks)})
		slices.SortFunc(chunks, func(a, b int32) int { return cmp.Compare(q.chunkFit(b), q.chunkFit(a)) })
		for _, c := range chunks {
			res.Chunks = append(res.Chunks, q.chunk(m, c))
		}
	}
	res.Edges = q.edges(returned, &res.Truncated)
	return res
}

func (q *question) seedCount() int {
	n := 0
	for n < len(q.members) && q.members[n].role == RoleHit {
		n++
	}
	return n
}

// hitChunks returns the note's chunks found by the fused lists, best fused
// score first, at most hitChunksPerNote.
func (q *question) hitChunks(n int32) []int32 {
	var out []int32
	for _, c := range q.r.chunksOf[n] {
		if q.chunkRRF[c] > 0 {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b int32) int {
		if d := cmp.Compare(q.chunkRRF[b], q.chunkRRF[a]); d != 0 {
			return d
		}
		return cmp.Compare(a, b)
	})
	return out[:min(len(out), hitChunksPerNote)]
}

func (q *question) chunk(m *member, c int32) Chunk {
	r := q.r
	ci := &r.chunks[c]
	n := r.graph.Note(m.note)
	ch := Chunk{ID: ci.id, Node: n.ID, Path: n.Name(), Title: n.Title, Heading: ci.heading, Line: int(ci.line),
		Start: int(ci.start), End: int(ci.end), Text: ci.text, Score: round(q.chunkFit(c)), PPR: round(m.ppr), Role: m.role, Hops: m.hops}
	if m.via >= 0 {
		ch.Via = r.graph.Edge(m.via).Sentence
	}
	return ch
}

// edges returns the seed edges, then the edges by which neighbours were
// reached, then the other walkable edges between returned notes by how well
// their sentences fit the question; at most twice MaxChunks in all (never
// fewer than the seed and walk edges).
func (q *question) edges(returned map[int32]bool, truncated *bool) []Edge {
	g := q.r.graph
	out := []Edge{}
	listed := map[int32]bool{}
	for _, h := range q.edgeHits {
		listed[h.edge] = true
		out = append(out, q.edge(h.edge, RoleHit, h.score))
	}
	for _, m := range q.members {
		if m.via >= 0 && returned[m.note] && !listed[m.via] {
			listed[m.via] = true
			out = append(out, q.edge(m.via, RoleConnecting, 0))
		}
	}
	var rest []int32
	for _, m := range q.members {
		if !returned[m.note] {
			continue
		}
		for _, e := range g.Out(m.note) {
			ed := g.Edge(e)
			if !listed[e] && returned[ed.Target] && q.walks(e) {
				listed[e] = true
				rest = append(rest, e)
			}
		}
	}
	slices.SortStableFunc(rest, func(a, b int32) int { return cmp.Compare(q.edgeFit(b), q.edgeFit(a)) })
	limit := max(2*q.p.maxChunks, len(out))
	if len(out)+len(rest) > limit {
		*truncated = true
		rest = rest[:limit-len(out)]
	}
	for _, e := range rest {
		out = append(out, q.edge(e, RoleConnecting, 0))
	}
	return out
}

func (q *question) edge(e int32, role string, score float64) Edge {
	g := q.r.graph
	ed := g.Edge(e)
	props := linkgraph.Properties(ed.Properties)
	if props == nil {
		props = linkgraph.Properties{}
	}
	return Edge{ID: ed.ID, Source: g.Note(ed.Source).Name(), Target: g.Note(ed.Target).Name(), Type: ed.Type, Sign: int(ed.Sign),
		Properties: props, Sentence: ed.Sentence, Role: role, Score: round(score)}
}

// round keeps four decimals: scores are not more precise than that, and
// shorter numbers read better in JSON.
func round(f float64) float64 {
	const scale = 1e4
	if f < 0 {
		return -float64(int64(-f*scale+0.5)) / scale
	}
	return float64(int64(f*scale+0.5)) / scale
}
