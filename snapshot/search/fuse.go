package search

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/snapshot/bm25"
)

// Method says which rankings a text search uses.
type Method string

const (
	// Fused (the default) merges the vector ranking and the BM25 ranking
	// by reciprocal rank fusion: passages found by meaning and passages
	// found by their exact words (names, numbers, identifiers).
	Fused Method = "fused"
	// VectorsOnly ranks by vector similarity alone.
	VectorsOnly Method = "vectors"
	// BM25Only ranks by BM25 over the chunks' text, titles and aliases
	// alone; it needs no embedder.
	BM25Only Method = "bm25"
)

// ErrNoBM25 is returned for a BM25-only search of a snapshot built without
// the BM25 stage, or of edges, which have no BM25 index.
var ErrNoBM25 = errors.New("no BM25 index for this search")

// ParseMethod reads a --method value ("" is Fused).
func ParseMethod(s string) (Method, error) {
	switch m := Method(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return Fused, nil
	case Fused, VectorsOnly, BM25Only:
		return m, nil
	}
	return "", fmt.Errorf("unknown search method %q: use fused, vectors or bm25", s)
}

// rrfK is the rank offset of reciprocal rank fusion (Cormack, Clarke and
// Büttcher, 2009), as in package retrieve.
const rrfK = 60

// fuseDepth is how many candidates each ranking contributes to a fusion
// for k results.
func fuseDepth(k int) int { return min(max(3*k, 30), MaxK) }

// lexicalChunks returns the chunks the BM25 ranking puts first, at most n,
// among those keep allows; nil without a BM25 index.
func (ix *Index) lexicalChunks(text string, n int, keep func(int32) bool) []bm25.Hit {
	if ix.lexical == nil {
		return nil
	}
	scores := ix.lexical.Scores(bm25.Tokenize(text))
	if keep != nil {
		for c := range scores {
			if scores[c] > 0 && !keep(int32(c)) {
				scores[c] = 0
			}
		}
	}
	hits := bm25.Top(scores, n)
	ix.lexical.Recycle(scores)
	return hits
}

// fusedChunks merges a vector ranking and a BM25 ranking of chunks: each
// chunk scores the sum of 1/(rrfK + rank) over the rankings it is in.
func fusedChunks(vec []ChunkHit, lex []int32, hit func(c int32, score float32) ChunkHit, k int) []ChunkHit {
	score := map[string]float64{}
	byID := map[string]ChunkHit{}
	for i, h := range vec {
		score[h.ID] += 1 / float64(rrfK+i+1)
		byID[h.ID] = h
	}
	for i, c := range lex {
		h := hit(c, 0)
		score[h.ID] += 1 / float64(rrfK+i+1)
		if _, ok := byID[h.ID]; !ok {
			byID[h.ID] = h
		}
	}
	out := make([]ChunkHit, 0, len(byID))
	for id, h := range byID {
		h.Score = float32(score[id])
		out = append(out, h)
	}
	slices.SortFunc(out, func(a, b ChunkHit) int {
		if d := cmp.Compare(score[b.ID], score[a.ID]); d != 0 {
			return d
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out[:min(k, len(out))]
}

// fusedNotes merges two rankings of notes the same way; a note's citation
// is its best passage of either ranking (the vector one first).
func fusedNotes(vec, lex []NoteHit, k int) []NoteHit {
	score := map[string]float64{}
	byID := map[string]NoteHit{}
	for _, list := range [][]NoteHit{vec, lex} {
		for i, h := range list {
			score[h.ID] += 1 / float64(rrfK+i+1)
			if _, ok := byID[h.ID]; !ok {
				byID[h.ID] = h
			}
		}
	}
	out := make([]NoteHit, 0, len(byID))
	for id, h := range byID {
		h.Score = float32(score[id])
		h.Best.Score = h.Score
		out = append(out, h)
	}
	slices.SortFunc(out, func(a, b NoteHit) int {
		if d := cmp.Compare(score[b.ID], score[a.ID]); d != 0 {
			return d
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out[:min(k, len(out))]
}

// lexicalNotes groups a BM25 ranking of chunks into notes, each cited by
// its best chunk.
func (ix *Index) lexicalNotes(hits []bm25.Hit) []NoteHit {
	var out []NoteHit
	seen := map[string]bool{}
	for _, h := range hits {
		c := ix.chunk[h.Doc]
		if seen[c.Note] {
			continue
		}
		seen[c.Note] = true
		out = append(out, ix.noteHit(c.Note, ix.chunkHit(int32(h.Doc), h.Score)))
	}
	return out
}

// textSearch runs q with the rankings its method asks for; vec is nil for
// BM25Only.
func (ix *Index) textSearch(q Query, vec []float32) (*Result, error) {
	q, err := q.withDefaults()
	if err != nil {
		return nil, err
	}
	if q.Method == VectorsOnly {
		return ix.SearchVector(q, vec)
	}
	if q.Target == Edges || ix.lexical == nil {
		if q.Method == BM25Only {
			if q.Target == Edges {
				return nil, fmt.Errorf("%w: edges are searched by their sentences' vectors; use method vectors or fused", ErrNoBM25)
			}
			return nil, fmt.Errorf("%w: snapshot %s was built without the bm25 stage; index the vault again, or use method vectors", ErrNoBM25, ix.snap.ID)
		}
		res, err := ix.SearchVector(q, vec)
		if res != nil {
			res.Method = VectorsOnly
		}
		return res, err
	}
	res := &Result{Snapshot: ix.snap.ID, Target: q.Target, Method: q.Method, Pending: ix.chunks.pending}
	labels := labelSet(q.Labels)
	var keep func(int32) bool
	if labels != nil {
		keep = func(it int32) bool { return ix.noteHasLabel(ix.chunk[it].Note, labels) }
	}
	n := q.K
	if q.Method == Fused {
		n = fuseDepth(q.K)
	}
	// A note search ranks notes by their best chunks, so it reads more
	// chunks than it returns notes.
	depth := n
	if q.Target == Notes {
		depth = 4 * fuseDepth(q.K)
	}
	lex := ix.lexicalChunks(q.Text, depth, keep)
	if q.Method == BM25Only {
		res.Exact = true
		switch q.Target {
		case Chunks:
			for _, h := range lex {
				res.Chunks = append(res.Chunks, ix.chunkHit(int32(h.Doc), h.Score))
			}
		case Notes:
			notes := ix.lexicalNotes(lex)
			res.Notes = notes[:min(q.K, len(notes))]
		}
		return res, nil
	}
	vq := q
	vq.K = n
	switch q.Target {
	case Chunks:
		hits, exact, err := ix.searchChunks(vq, vec)
		if err != nil {
			return nil, err
		}
		ids := make([]int32, len(lex))
		for i, h := range lex {
			ids[i] = int32(h.Doc)
		}
		res.Exact = exact
		res.Chunks = fusedChunks(hits, ids, ix.chunkHit, q.K)
	case Notes:
		hits, exact, err := ix.searchNotes(vq, vec)
		if err != nil {
			return nil, err
		}
		res.Exact = exact
		lexNotes := ix.lexicalNotes(lex)
		res.Notes = fusedNotes(hits, lexNotes[:min(n, len(lexNotes))], q.K)
	}
	return res, nil
}
