package retrieve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/vaultgraph/vaultgraph/snapshot/bm25"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

// Tuning constants. They are not request parameters: they shape how the
// parameters are used, and the evaluation set (testdata/eval) measures
// them.
const (
	// rrfK is the rank offset of reciprocal rank fusion (Cormack et al.).
	rrfK = 60
	// lexicalWeight scales a chunk's BM25 score, relative to the
	// question's best, in its fit.
	lexicalWeight = 0.3
	// hitChunksPerNote bounds the chunks a seed note contributes.
	hitChunksPerNote = 2
	// maxScan bounds the edges examined at one note per hop, so that a hub
	// with thousands of links costs a bounded amount of work.
	maxScan = 4096
	// maxScored bounds the neighbours of one note whose chunks are scored.
	maxScored = 256
	// pprWidth widens the per-note cap while collecting the neighbourhood
	// that PageRank ranks; maxPPRNodes bounds it.
	pprWidth    = 4
	maxPPRNodes = 2000
)

// Retrieve answers one question. It embeds the question once, with the
// snapshot's embedder; everything else is in memory, and any number of
// Retrieve calls may run at once. It fails with an
// error wrapping ErrInvalidRequest for a request it cannot answer, and with
// the embedder's error when the question cannot be embedded.
func (r *Retriever) Retrieve(ctx context.Context, req Request) (*Result, error) {
	start := time.Now()
	p, err := req.params(r.graph.TypedEdgeTypes())
	if err != nil {
		return nil, err
	}
	var vec []float32
	var skipped string
	vecs, err := r.embedder.Embed(ctx, embed.Query, []string{p.question})
	switch {
	case err == nil && len(vecs) != 1:
		return nil, fmt.Errorf("embed question: the embedder returned %d vectors for one text", len(vecs))
	case err == nil:
		vec = vecs[0]
	case r.lexicalFallback(ctx, err):
		skipped = fmt.Sprintf("the question could not be embedded (%v), so the vectors were not used: the seeds are the BM25 ranking (exact words) and the notes the question names, and no edge is a seed by its sentence", err)
	default:
		return nil, fmt.Errorf("embed question: %w", err)
	}
	q := &question{r: r, p: p, vec: vec, walkable: r.typeSet(p.types)}
	q.typedOnly = q.defaultTypes()
	q.s = r.scratch.get(len(r.chunks), r.graph.Len())
	q.s.next()
	defer r.scratch.put(q.s)
	q.lexicalScores()
	defer r.lexical.Release(q.scored)
	if err := q.seed(); err != nil {
		return nil, err
	}
	q.setSeedRel()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.rank == RankPPR {
		q.walkPPR(ctx)
	} else {
		q.walk(ctx)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := q.assemble()
	if skipped != "" {
		res.Warnings = append(res.Warnings, skipped)
	}
	res.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
	return res, nil
}

// lexicalFallback reports whether a question that could not be embedded
// (the model server is down or failing) is answered without vectors: the
// snapshot has a BM25 index to seed from and the request has time left. An
// embedder of another model than the snapshot's is a setting to fix, not an
// outage, and fails instead.
func (r *Retriever) lexicalFallback(ctx context.Context, err error) bool {
	return r.lexical != nil && ctx.Err() == nil && !errors.Is(err, embed.ErrModelMismatch)
}

// question is the state of one Retrieve.
type question struct {
	r     *Retriever
	p     params
	vec   []float32
	terms []string
	// walkable says by type number (Retriever.typeNames) whether the
	// request walks edges of that type.
	walkable []bool
	// typedOnly is defaultTypes().
	typedOnly bool
	// scored holds the BM25 scores of the chunks, lex every chunk's and
	// lexMax the best.
	scored *bm25.Scored
	lex    []float32
	lexMax float32
	// s holds the memos of chunk fits and best chunks, and which notes
	// are members.
	s *scratch

	// chunkRRF is the fused score of chunks found by either list.
	chunkRRF map[int32]float64
	// members are the notes reached, in order: seeds first.
	members  []*member
	edgeHits []edgeHit
	pending  int
}

type member struct {
	note int32
	role string
	hops int
	via  int32 // edge a neighbour was reached by, -1 for seeds
	// score is a seed's fused score, a neighbour's fit (the better of its
	// best chunk's and its edge's); rel is the relevance handed on to its
	// neighbours: a seed's score relative to the best seed's, a
	// neighbour's fit weighted by its parent's rel.
	score float64
	rel   float64
	ppr   float64
}

type edgeHit struct {
	edge  int32
	score float64
}

func (q *question) lexicalScores() {
	if q.r.lexical == nil {
		return
	}
	q.terms = bm25.Tokenize(q.p.question)
	q.scored = q.r.lexical.Score(q.terms)
	q.lex, q.lexMax = q.scored.Scores, q.scored.Max
}

// memberOf returns the member of note n, nil when n is not one.
func (q *question) memberOf(n int32) *member {
	if q.s.memberAt[n] != q.s.gen {
		return nil
	}
	return q.members[q.s.member[n]]
}

// walks reports whether the request walks edge e.
func (q *question) walks(e int32) bool { return q.walkable[q.r.edgeType[e]] }

// chunkFit is how well chunk c fits the question (see Chunk.Score).
func (q *question) chunkFit(c int32) float64 {
	s := q.s
	if s.fitAt[c] == s.gen {
		return s.fit[c]
	}
	var f float64
	if v, ok := q.r.chunkSimilarity(c, q.vec); ok {
		f = float64(v)
	}
	if q.lexMax > 0 {
		f += lexicalWeight * float64(q.lex[c]/q.lexMax)
	}
	s.fitAt[c], s.fit[c] = s.gen, f
	return f
}

// bestChunk returns the note's best fitting chunk and its fit; -1 for a
// note without chunks.
func (q *question) bestChunk(n int32) (int32, float64) {
	s := q.s
	if s.bestAt[n] == s.gen {
		c := s.best[n]
		if c < 0 {
			return -1, 0
		}
		return c, q.chunkFit(c)
	}
	best, bestFit := int32(-1), 0.0
	// The chunks' vectors are rows spread over the file: start loading
	// them all before the first similarity waits on one.
	q.prefetchNote(n)
	for _, c := range q.r.chunksOf[n] {
		if f := q.chunkFit(c); best < 0 || f > bestFit {
			best, bestFit = c, f
		}
	}
	s.bestAt[n], s.best[n] = s.gen, best
	return best, bestFit
}

func (q *question) edgeFit(e int32) float64 {
	v, _ := q.r.edgeSimilarity(e, q.vec)
	return float64(v)
}

// seed finds the seed notes and edges: the top k notes of the fused lists
// (chunks by vector, chunks by BM25, names mentioned), then both ends of
// each of the top k typed edges by vector.
func (q *question) seed() error {
	r, p := q.r, q.p
	nc := max(4*p.k, 20)
	var vecChunks []int32
	if q.vec != nil {
		vres, err := r.search.SearchVector(search.Query{Target: search.Chunks, K: nc}, q.vec)
		if err != nil {
			return err
		}
		q.pending = vres.Pending
		for _, h := range vres.Chunks {
			if h.Item >= 0 && h.Item < len(r.chunks) {
				vecChunks = append(vecChunks, int32(h.Item))
			}
		}
	}
	var lexChunks []int32
	if r.lexical != nil {
		for _, h := range q.scored.Top(nc) {
			lexChunks = append(lexChunks, int32(h.Doc))
		}
	}
	q.chunkRRF = map[int32]float64{}
	noteScore := map[int32]float64{}
	for _, list := range [][]int32{vecChunks, lexChunks} {
		seen := map[int32]bool{}
		rank := 0
		for i, c := range list {
			q.chunkRRF[c] += 1 / float64(rrfK+i+1)
			if n := r.chunks[c].note; n >= 0 && !seen[n] {
				seen[n] = true
				noteScore[n] += 1 / float64(rrfK+rank+1)
				rank++
			}
		}
	}
	for i, n := range r.graph.Mentions(p.question) {
		noteScore[n] += 1 / float64(rrfK+i+1)
	}
	ranked := make([]int32, 0, len(noteScore))
	for n := range noteScore {
		ranked = append(ranked, n)
	}
	// A stub (a link to a missing note) that the question names has no
	// text to cite: it ranks below every note, so that it takes a seed's
	// place only when fewer than k notes were found.
	stub := func(n int32) bool { return r.graph.Note(n).Stub }
	slices.SortFunc(ranked, func(a, b int32) int {
		if sa, sb := stub(a), stub(b); sa != sb {
			if sa {
				return 1
			}
			return -1
		}
		if d := cmp.Compare(noteScore[b], noteScore[a]); d != 0 {
			return d
		}
		return cmp.Compare(a, b)
	})
	for _, n := range ranked[:min(p.k, len(ranked))] {
		q.add(&member{note: n, role: RoleHit, via: -1, score: noteScore[n]})
	}
	hits, err := q.seedEdges()
	if err != nil {
		return err
	}
	for i, h := range hits {
		q.edgeHits = append(q.edgeHits, h)
		ed := r.graph.Edge(h.edge)
		for _, n := range []int32{ed.Source, ed.Target} {
			if q.memberOf(n) == nil {
				// On the scale of the fused note scores, by the edge's rank.
				q.add(&member{note: n, role: RoleHit, via: -1, score: 1 / float64(rrfK+i+1)})
			}
		}
	}
	return nil
}

// edgeOverFetch is how many times k edges the vector graph is asked for:
// most of a vault's edges are plain links, which are not seeds.
const edgeOverFetch = 8

// seedEdges returns the k walkable edges whose sentences are most similar
// to the question: from the vector graph, over-fetching, or, when too few
// walkable edges come back, from an exact scan of the walkable edges' rows.
func (q *question) seedEdges() ([]edgeHit, error) {
	r, p := q.r, q.p
	if len(p.types) == 0 || q.vec == nil {
		return nil, nil
	}
	var hits []edgeHit
	seen := map[int32]bool{}
	collect := func(row int, score float32) {
		for _, e := range r.rowEdges[row] {
			if len(hits) < p.k && !seen[e] && q.walks(e) {
				seen[e] = true
				hits = append(hits, edgeHit{edge: e, score: float64(score)})
			}
		}
	}
	res, err := r.search.SearchVector(search.Query{Target: search.Edges, K: min(edgeOverFetch*p.k, search.MaxK)}, q.vec)
	if err != nil {
		return nil, err
	}
	for _, h := range res.Edges {
		if e, ok := r.edgeOfItem(h.Item); ok {
			collect(int(r.edgeRow[e]), h.Score)
		}
	}
	if len(hits) == p.k {
		return hits, nil
	}
	rows := r.typedRows
	if !q.typedOnly {
		rows = r.rowsOfTypes(q.walkable)
	}
	exact, err := r.edgeVecs.Search(q.vec, p.k, rows)
	if err != nil {
		return nil, err
	}
	hits, seen = hits[:0], map[int32]bool{}
	for _, h := range exact {
		collect(h.Row, h.Score)
	}
	return hits, nil
}

// defaultTypes reports whether the walkable types are the typed edges'.
// Retrieve keeps the answer in typedOnly.
func (q *question) defaultTypes() bool {
	typed := q.r.graph.TypedEdgeTypes()
	if len(q.p.types) != len(typed) {
		return false
	}
	for _, t := range typed {
		if !q.p.types[lower(t)] {
			return false
		}
	}
	return true
}

// rowsOfTypes returns the distinct rows of the edges of the given types.
func (r *Retriever) rowsOfTypes(walkable []bool) []int {
	var rows []int
	seen := map[int32]bool{}
	for e, t := range r.edgeType {
		if row := r.edgeRow[e]; row >= 0 && walkable[t] && !seen[row] {
			seen[row] = true
			rows = append(rows, int(row))
		}
	}
	slices.Sort(rows)
	return rows
}

// setSeedRel gives every seed its score relative to the best seed's.
func (q *question) setSeedRel() {
	top := 0.0
	for _, m := range q.members {
		top = max(top, m.score)
	}
	for _, m := range q.members {
		if top > 0 {
			m.rel = m.score / top
		}
	}
}

func (q *question) add(m *member) {
	q.s.memberAt[m.note], q.s.member[m.note] = q.s.gen, int32(len(q.members))
	q.members = append(q.members, m)
}

// candidate is a neighbour of a note being expanded.
type candidate struct {
	note  int32
	edge  int32
	score float64
}

// candidates returns the neighbours of u over walkable edges that are not
// members yet, each once with its best edge, best first. At most maxScan
// edges are examined; when more than maxScored neighbours qualify (a hub),
// they are first ranked by their edge's sentence alone and only the best
// maxScored have their chunks scored.
// The list is the scratch's, valid until the next call.
func (q *question) candidates(u int32) []candidate {
	g, s := q.r.graph, q.s
	s.nextCandidates()
	out := s.cands[:0]
	consider := func(e, v int32) {
		if q.memberOf(v) != nil {
			return
		}
		score := q.edgeFit(e)
		if s.candAt[v] == s.candGen {
			if i := s.cand[v]; score > out[i].score {
				out[i] = candidate{v, e, score}
			}
			return
		}
		s.candAt[v], s.cand[v] = s.candGen, int32(len(out))
		out = append(out, candidate{v, e, score})
	}
	if q.typedOnly {
		// The note's walkable edges, listed once for every request that
		// walks the typed edges: most of a hub's are plain links.
		adj := q.r.typedAdj.of(u)
		for i := range min(prefetchAhead, len(adj)) {
			q.r.prefetchEdge(adj[i].edge)
		}
		for i, a := range adj {
			if a.pos >= maxScan {
				break
			}
			if j := i + prefetchAhead; j < len(adj) {
				q.r.prefetchEdge(adj[j].edge)
			}
			consider(a.edge, a.other)
		}
	} else {
		scanned := 0
		for _, e := range g.Out(u) {
			if scanned >= maxScan {
				break
			}
			scanned++
			if q.walks(e) {
				consider(e, g.Edge(e).Target)
			}
		}
		for _, e := range g.In(u) {
			if scanned >= maxScan {
				break
			}
			scanned++
			if q.walks(e) {
				consider(e, g.Edge(e).Source)
			}
		}
	}
	if len(out) > maxScored {
		sortCandidates(out)
		out = out[:maxScored]
	}
	// The chunks' vectors are rows spread over the file: load those of
	// the candidates a few ahead while scoring one, so that the waits on
	// memory overlap.
	for i := range min(prefetchAhead, len(out)) {
		q.prefetchNote(out[i].note)
	}
	for i := range out {
		if j := i + prefetchAhead; j < len(out) {
			q.prefetchNote(out[j].note)
		}
		_, fit := q.bestChunk(out[i].note)
		out[i].score = max(out[i].score, fit)
	}
	sortCandidates(out)
	s.cands = out[:0]
	return out
}

// prefetchAhead is how many candidates ahead candidates loads chunk
// vectors.
const prefetchAhead = 4

// prefetchNote starts loading the vectors of note n's chunks whose fit is
// not known yet.
func (q *question) prefetchNote(n int32) {
	s := q.s
	if s.bestAt[n] == s.gen {
		return
	}
	for _, c := range q.r.chunksOf[n] {
		if s.fitAt[c] != s.gen {
			q.r.prefetchChunk(c)
		}
	}
}

func sortCandidates(c []candidate) {
	slices.SortFunc(c, func(a, b candidate) int {
		if d := cmp.Compare(b.score, a.score); d != 0 {
			return d
		}
		return cmp.Compare(a.note, b.note)
	})
}

// walk expands the seeds depth hops, keeping at each note its perNode best
// fitting neighbours (those that fit at all).
func (q *question) walk(ctx context.Context) {
	frontier := q.seedNotes()
	for hops := 1; hops <= q.p.depth && len(frontier) > 0; hops++ {
		var next []int32
		for _, u := range frontier {
			if ctx.Err() != nil {
				return
			}
			parent := q.memberOf(u)
			kept := 0
			for _, c := range q.candidates(u) {
				if kept == q.p.perNode || c.score <= 0 {
					break
				}
				if q.memberOf(c.note) != nil {
					continue
				}
				q.add(&member{note: c.note, role: RoleNeighbor, hops: hops, via: c.edge, score: c.score,
					rel: c.score * (0.5 + 0.5*parent.rel)})
				next = append(next, c.note)
				kept++
			}
		}
		frontier = next
	}
}

func (q *question) seedNotes() []int32 {
	var out []int32
	for _, m := range q.members {
		out = append(out, m.note)
	}
	return out
}
