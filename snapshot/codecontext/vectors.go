package codecontext

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
	"github.com/vaultgraph/vaultgraph/snapshot/vectors"
)

// Sources are what Open adds to the lexical indexes: the vectors that seed
// the walk by meaning, for questions whose words are not the code's.
type Sources struct {
	// Embedder embeds questions: the snapshot's embedder (the one
	// embed.ForSnapshot builds). Nil: lexical seeds only.
	Embedder embed.Embedder
	// Notes is the snapshot's vector index (search.Open); its note
	// rankings seed notes by meaning, with a model embedder (not the
	// builtin ones, see Open). Nil: notes are seeded by BM25 alone.
	// The caller keeps it open while the Index is used.
	Notes *search.Index
}

// codeVectors are the snapshot's code chunk vectors (format.CodeVectorsFile)
// and their graph, memory-mapped, and the code nodes of every row.
type codeVectors struct {
	file  *vectors.File
	graph *vectors.Graph
	nodes [][]int32 // row -> the files and symbols whose chunk has its text
}

// VectorSeeds bounds the vector hits of each kind (code, notes) that
// seed the walk.
const VectorSeeds = 8

// VectorShare is the least share of the best vector hit's similarity
// (of code, or of notes) that another needs to seed the walk. It is
// higher than SeedShare because similarities are compressed: the static
// embedder's cosines between a question and unrelated code are well above
// zero (0.4 against a best of 0.55 on the podcast fixture), and only the
// hits near the best are about the question.
const VectorShare = 0.9

// VectorWeight scales the seeds of vector hits against lexical ones: a
// question's own words, where the code or a note has them, say more than
// a similarity of averaged word vectors, which ranks every note of a small
// vault within a few hundredths of the best.
const VectorWeight = 0.5

// exactCodeRows: code vector files of at most this many rows are scanned
// exactly (about a millisecond at 100 dimensions) rather than searched
// through the graph.
const exactCodeRows = 20000

// Open is Load plus vector seeds from src: the snapshot's code vectors
// (written by the indexer's embed stage since format version 3's code
// vectors) and note vectors, when the snapshot has them and src.Embedder
// is the snapshot's embedder. A snapshot without code vectors, or an
// embedder of another model, is answered from the lexical seeds alone;
// damaged vector files are an error. Close unmaps what Open mapped.
func Open(s *snapshot.Snapshot, src Sources) (_ *Index, err error) {
	ix, chunks, err := load(s)
	if err != nil {
		return nil, err
	}
	m := s.Manifest
	if src.Embedder == nil || m.Embedder == nil || m.Vectors == nil {
		return ix, nil
	}
	if err := embed.Check(m.Embedder, src.Embedder.Info()); err != nil {
		return ix, nil
	}
	ix.embedder = src.Embedder
	if k := src.Embedder.Info().Kind; k != format.EmbedderLexical && k != format.EmbedderStatic {
		// The builtin embedders' note similarities do not separate the
		// notes a question is about from the others: for a flask question
		// the demo vault's unrelated notes reach 0.51, and for the podcast
		// paraphrase the gotcha it is about scores 0.30, below a note on
		// the cron (0.33). Their code vectors do (a function's words are
		// its own), so code is always seeded by its vectors, notes only
		// with a model's.
		ix.notesVec = src.Notes
	}
	if m.Vectors.Code == nil {
		return ix, nil
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, ix.Close())
		}
	}()
	cv := &codeVectors{}
	ix.codeVec = cv
	if cv.file, err = vectors.OpenFile(filepath.Join(s.Dir, format.CodeVectorsFile)); err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", s.ID, err)
	}
	if cv.graph, err = vectors.OpenGraph(filepath.Join(s.Dir, format.CodeHNSWFile), cv.file); err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", s.ID, err)
	}
	cv.nodes = make([][]int32, cv.file.Len())
	for _, c := range chunks {
		n, ok := ix.byID[c.ID]
		if !ok {
			continue
		}
		h, _ := vectors.ParseHash(format.TextHash(format.CodeEmbedText(c)))
		if r, ok := cv.file.Find(h); ok {
			cv.nodes[r] = append(cv.nodes[r], n)
		}
	}
	return ix, nil
}

// Close unmaps the code vectors Open mapped; it is a no-op for an Index
// from Load. It must not be called while a request uses the Index.
func (ix *Index) Close() error {
	cv := ix.codeVec
	if cv == nil {
		return nil
	}
	ix.codeVec = nil
	var errs []error
	if cv.graph != nil {
		errs = append(errs, cv.graph.Close())
	}
	if cv.file != nil {
		errs = append(errs, cv.file.Close())
	}
	return errors.Join(errs...)
}

// vectorHits ranks code nodes and notes by the similarity of their
// vectors to the question's, best first, at most VectorSeeds of each. It
// returns nothing for an Index without vectors, and an error only when
// the question cannot be embedded.
func (ix *Index) vectorHits(ctx context.Context, question string) (code, notes map[int32]float64, err error) {
	if ix.embedder == nil {
		return nil, nil, nil
	}
	vecs, err := ix.embedder.Embed(ctx, embed.Query, []string{question})
	if err != nil {
		return nil, nil, fmt.Errorf("embed the question: %w", err)
	}
	q := vecs[0]
	if cv := ix.codeVec; cv != nil && cv.file.Len() > 0 {
		var hits []vectors.Hit
		if cv.file.Len() <= exactCodeRows {
			hits, err = cv.file.Search(q, 4*VectorSeeds, nil)
		} else {
			hits, err = cv.graph.Search(q, 4*VectorSeeds, 0)
		}
		if err != nil {
			return nil, nil, err
		}
		code = map[int32]float64{}
		for _, h := range hits {
			for _, n := range cv.nodes[h.Row] {
				if _, seen := code[n]; !seen && len(code) < VectorSeeds {
					code[n] = float64(h.Score)
				}
			}
		}
	}
	if ix.notesVec != nil {
		res, err := ix.notesVec.SearchVector(search.Query{Target: search.Notes, K: VectorSeeds}, q)
		if err != nil {
			return nil, nil, err
		}
		notes = map[int32]float64{}
		for _, h := range res.Notes {
			if n, ok := ix.byID[h.ID]; ok && ix.nodes[n].kind == KindNote {
				notes[n] = float64(h.Score)
			}
		}
	}
	return code, notes, nil
}

// shares returns the nodes of scores within share of the best, at most
// limit, each with its score over the best's.
func shares(scores map[int32]float64, share float64, limit int) map[int32]float64 {
	type hit struct {
		n int32
		s float64
	}
	var hits []hit
	for n, s := range scores {
		if s > 0 {
			hits = append(hits, hit{n, s})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].s != hits[j].s {
			return hits[i].s > hits[j].s
		}
		return hits[i].n < hits[j].n
	})
	out := map[int32]float64{}
	for _, h := range hits {
		if len(out) == limit || h.s < share*hits[0].s {
			break
		}
		out[h.n] = h.s / hits[0].s
	}
	return out
}
