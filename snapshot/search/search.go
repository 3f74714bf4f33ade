package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/vectors"
)

// Target is what a search returns.
type Target string

const (
	// Notes returns notes, scored by their chunks.
	Notes Target = "nodes"
	// Chunks returns passages with citations.
	Chunks Target = "chunks"
	// Edges returns edges with their sentences.
	Edges Target = "edges"
)

// ParseTarget reads a --target value; "notes" is accepted for "nodes".
func ParseTarget(s string) (Target, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "nodes", "notes":
		return Notes, nil
	case "chunks":
		return Chunks, nil
	case "edges":
		return Edges, nil
	}
	return "", fmt.Errorf("unknown search target %q: use nodes, chunks or edges", s)
}

// Score says how a note's chunks make its score.
type Score string

const (
	// Best scores a note by its best chunk.
	Best Score = "best"
	// Mean scores a note by the mean of all its chunks' scores.
	Mean Score = "mean"
)

// MaxK bounds the number of results of one search.
const MaxK = 1000

// Query is one search.
type Query struct {
	Text   string
	Target Target
	// K is the number of results (default 10, at most MaxK).
	K int
	// Labels keeps notes and chunks of notes with any of these labels
	// (frontmatter type), and edges whose source or target has one.
	// Matching ignores case.
	Labels []string
	// EdgeTypes keeps edges of these types (edges only).
	EdgeTypes []string
	// Score applies to note searches (default Best). With Fused, it
	// shapes the vector ranking that is fused.
	Score Score
	// Method says which rankings Search uses (default Fused); SearchVector
	// always ranks by vectors alone.
	Method Method
}

// withDefaults fills in the defaults and checks the values.
func (q Query) withDefaults() (Query, error) {
	if q.K <= 0 {
		q.K = 10
	}
	q.K = min(q.K, MaxK)
	if q.Score == "" {
		q.Score = Best
	}
	if q.Score != Best && q.Score != Mean {
		return q, fmt.Errorf("unknown score %q: use best or mean", q.Score)
	}
	if q.Target == "" {
		q.Target = Notes
	}
	if q.Method == "" {
		q.Method = Fused
	}
	if _, err := ParseMethod(string(q.Method)); err != nil {
		return q, err
	}
	return q, nil
}

// Result is the answer to a Query.
type Result struct {
	Snapshot string `json:"snapshot"`
	Target   Target `json:"target"`
	// Method is the rankings the answer comes from: the query's, or
	// vectors when it asked for Fused and there is no BM25 index for the
	// target (edges, a snapshot built without the bm25 stage). Scores
	// are reciprocal-rank-fusion scores when it is Fused, BM25 scores for
	// BM25Only and cosine similarities for VectorsOnly.
	Method Method     `json:"method"`
	Notes  []NoteHit  `json:"notes,omitempty"`
	Chunks []ChunkHit `json:"chunks,omitempty"`
	Edges  []EdgeHit  `json:"edges,omitempty"`
	// Exact is true when the answer came from an exact scan (a selective
	// filter) rather than the graph.
	Exact bool `json:"exact"`
	// Pending counts items of the target that have no vector yet and so
	// cannot be found until the next index run embeds them.
	Pending int `json:"pending"`
	// VectorsSkipped, when set, says why a Fused search answered from
	// BM25 alone (Method is BM25Only): its query could not be embedded.
	VectorsSkipped string `json:"vectors_skipped,omitempty"`
}

// ChunkHit is a passage and where to find it.
type ChunkHit struct {
	ID      string  `json:"id"`
	Note    string  `json:"note"`
	Path    string  `json:"path"`
	Title   string  `json:"title"`
	Heading string  `json:"heading,omitempty"`
	Start   int     `json:"start"`
	End     int     `json:"end"`
	Line    int     `json:"line"`
	Score   float32 `json:"score"`
	Text    string  `json:"text,omitempty"`
	// Item is the chunk's place in the snapshot's chunks table.
	Item int `json:"-"`
}

// NoteHit is a note, its score and its best passage as the citation.
//
// The JSON names are the Typed Graph sidecar's: a client of its /search
// reads id, score, labels, title and citation {path, heading, text}.
type NoteHit struct {
	ID     string   `json:"id"`
	Path   string   `json:"path"`
	Title  string   `json:"title"`
	Labels []string `json:"labels"`
	Score  float32  `json:"score"`
	Best   ChunkHit `json:"citation"`
}

// EdgeHit is an edge and the sentence that describes it.
type EdgeHit struct {
	ID       string  `json:"id"`
	Source   string  `json:"source"`
	Target   string  `json:"target"`
	Type     string  `json:"type"`
	Sentence string  `json:"sentence"`
	Score    float32 `json:"score"`
	// Citation is where the edge is written: the source note, the heading
	// it is under and its line.
	Citation EdgeCitation `json:"citation"`
	// Item is the edge's place in the snapshot's edges table.
	Item int `json:"-"`
}

// EdgeCitation is where an edge is written.
type EdgeCitation struct {
	Path    string `json:"path"`
	Heading string `json:"heading,omitempty"`
	Line    int    `json:"line,omitempty"`
}

// Search searches for q.Text with the rankings q.Method names: it embeds
// the text with e (unless the method is BM25Only, where e may be nil) and
// fuses the vector ranking with the BM25 ranking. It fails with an error
// wrapping embed.ErrModelMismatch when e is not the embedder the
// snapshot's vectors come from, and with one wrapping ErrNoBM25 for a
// BM25Only search that has no BM25 index. When e fails to embed the text
// of a Fused search of notes or chunks (its model server is down), the
// answer is the BM25 ranking alone, with Result.VectorsSkipped saying why.
func (ix *Index) Search(ctx context.Context, q Query, e embed.Embedder) (*Result, error) {
	q, err := q.withDefaults()
	if err != nil {
		return nil, err
	}
	var vec []float32
	if q.Method != BM25Only {
		if e == nil {
			return nil, fmt.Errorf("search: method %s needs the snapshot's embedder", q.Method)
		}
		if err := embed.Check(ix.embedder, e.Info()); err != nil {
			return nil, err
		}
		vecs, err := e.Embed(ctx, embed.Query, []string{q.Text})
		if err != nil {
			if !ix.lexicalFallback(ctx, q, err) {
				return nil, fmt.Errorf("embed query: %w", err)
			}
			q.Method = BM25Only
			res, lexErr := ix.textSearch(q, nil)
			if lexErr != nil {
				return nil, lexErr
			}
			res.VectorsSkipped = fmt.Sprintf("the query could not be embedded (%v), so the vectors were not used: these hits are BM25 (exact words) alone", err)
			return res, nil
		}
		vec = vecs[0]
	}
	return ix.textSearch(q, vec)
}

// lexicalFallback reports whether a Fused search whose query could not be
// embedded (the model server is down or failing) may answer from BM25
// alone: the target has a BM25 index and the search has time left. A
// search that asked for vectors alone, ran out of time, or has an embedder
// of another model than the snapshot's (a setting to fix, not an outage)
// fails instead.
func (ix *Index) lexicalFallback(ctx context.Context, q Query, err error) bool {
	return q.Method == Fused && q.Target != Edges && ix.lexical != nil && ctx.Err() == nil &&
		!errors.Is(err, embed.ErrModelMismatch)
}

// SearchVector searches with a query vector computed by the snapshot's
// embedder, by vector similarity alone (q.Method is ignored).
func (ix *Index) SearchVector(q Query, vec []float32) (*Result, error) {
	q.Method = VectorsOnly
	q, err := q.withDefaults()
	if err != nil {
		return nil, err
	}
	res := &Result{Snapshot: ix.snap.ID, Target: q.Target, Method: VectorsOnly}
	switch q.Target {
	case Chunks:
		res.Pending = ix.chunks.pending
		res.Chunks, res.Exact, err = ix.searchChunks(q, vec)
	case Notes:
		res.Pending = ix.chunks.pending
		res.Notes, res.Exact, err = ix.searchNotes(q, vec)
	case Edges:
		if msg := ix.snap.Manifest.Vectors.Unembedded(q.EdgeTypes); msg != "" {
			return nil, fmt.Errorf("%w: %s", ErrNotEmbedded, msg)
		}
		res.Pending = ix.edges.pending
		res.Edges, res.Exact, err = ix.searchEdges(q, vec)
	default:
		return nil, fmt.Errorf("unknown search target %q", q.Target)
	}
	return res, err
}

// Filtered searches ask the graph for overFetch times the matches wanted
// divided by the share of rows the filter allows. Searches scan exactly
// when at most Options.ExactRows rows (default exactFloats/dims) would be
// scanned, or when the graph's answer comes back short.
const (
	overFetch   = 3
	exactFloats = 1 << 22
)

// kept is how many items of the rows hit keep admits, at most k: what a
// search's hit list would hold, counted without building it.
func (t *target) kept(hits []vectors.Hit, k int, keep func(item int32) bool) int {
	n := 0
	for _, h := range hits {
		for _, it := range t.items(h.Row) {
			if n < k && keep(it) {
				n++
			}
		}
	}
	return n
}

// rowsFiltered returns the rows some item of which passes keep.
func (t *target) rowsFiltered(keep func(item int32) bool) []int {
	var rows []int
	for r := range t.file.Len() {
		for _, it := range t.items(r) {
			if keep(it) {
				rows = append(rows, r)
				break
			}
		}
	}
	return rows
}

// nearestRows returns rows nearest to vec, best first, until want(hits)
// says there are enough: from the graph, over-fetching for a filter, or
// from an exact scan over allowed (nil: every row) when the filter is
// selective or the graph did not find enough. It never returns fewer
// results than an exact scan would for the same want.
func (ix *Index) nearestRows(t *target, vec []float32, k int, allowed []int, filtered bool,
	enough func(hits []vectors.Hit) bool) ([]vectors.Hit, bool, error) {
	n := t.file.Len()
	if n == 0 || (filtered && len(allowed) == 0) {
		return nil, false, nil
	}
	share := 1.0
	if filtered {
		share = float64(len(allowed)) / float64(n)
	}
	fetch := k
	if filtered {
		fetch = int(math.Ceil(float64(k) * overFetch / share))
	}
	exactRows := ix.opts.ExactRows
	if exactRows <= 0 {
		exactRows = exactFloats / max(t.file.Dims(), 1)
	}
	scan := n
	if filtered {
		scan = len(allowed)
	}
	if scan > exactRows && fetch < n/2 {
		for ; fetch <= 4*MaxK; fetch *= 4 {
			hits, err := t.graph.Search(vec, min(fetch, n), max(ix.opts.EfSearch, 0))
			if err != nil {
				return nil, false, err
			}
			if enough(hits) || len(hits) >= n {
				return hits, false, nil
			}
			if fetch >= n {
				break
			}
		}
	}
	// Few rows to scan, or the graph came back short: scan exactly, for
	// as many rows as it takes (all of them in the worst case).
	for want := max(4*k, 64); ; want *= 8 {
		hits, err := t.file.Search(vec, min(want, scan), allowed)
		if err != nil || want >= scan || enough(hits) {
			return hits, true, err
		}
	}
}

func (ix *Index) searchChunks(q Query, vec []float32) ([]ChunkHit, bool, error) {
	labels := labelSet(q.Labels)
	keep := func(it int32) bool { return labels == nil || ix.noteHasLabel(ix.chunk[it].Note, labels) }
	var allowed []int
	if labels != nil {
		allowed = ix.chunks.rowsFiltered(keep)
	}
	// count is how many hits collect returns, without building them: the
	// search asks it whether the rows found are enough.
	count := func(hits []vectors.Hit) int { return ix.chunks.kept(hits, q.K, keep) }
	collect := func(hits []vectors.Hit) []ChunkHit {
		var out []ChunkHit // nil when none is kept, as before
		if n := count(hits); n > 0 {
			out = make([]ChunkHit, 0, n)
		}
		for _, h := range hits {
			for _, it := range ix.chunks.items(h.Row) {
				if keep(it) && len(out) < q.K {
					out = append(out, ix.chunkHit(it, h.Score))
				}
			}
		}
		return out
	}
	hits, exact, err := ix.nearestRows(&ix.chunks, vec, q.K, allowed, labels != nil,
		func(h []vectors.Hit) bool { return count(h) >= q.K })
	if err != nil {
		return nil, false, err
	}
	return collect(hits), exact, nil
}

func (ix *Index) chunkHit(it int32, score float32) ChunkHit {
	c := ix.chunk[it]
	h := ChunkHit{ID: c.ID, Note: c.Note, Heading: c.Heading, Start: int(c.Start), End: int(c.End), Line: int(c.Line), Score: score, Item: int(it)}
	if n := ix.notes[c.Note]; n != nil {
		h.Path, h.Title = n.Path, n.Title
	}
	if ix.text != nil {
		h.Text = ix.text[it]
	}
	return h
}

// searchNotes finds notes by their chunks: a note scores its best chunk,
// or with Mean the mean of all its chunks, computed exactly for the notes
// the best-chunk search found (twice as many as asked for, at least 20).
func (ix *Index) searchNotes(q Query, vec []float32) ([]NoteHit, bool, error) {
	labels := labelSet(q.Labels)
	keep := func(it int32) bool { return labels == nil || ix.noteHasLabel(ix.chunk[it].Note, labels) }
	var allowed []int
	if labels != nil {
		allowed = ix.chunks.rowsFiltered(keep)
	}
	want := q.K
	if q.Score == Mean {
		want = max(2*q.K, 20)
	}
	group := func(hits []vectors.Hit) []NoteHit {
		var out []NoteHit
		seen := map[string]bool{}
		for _, h := range hits {
			for _, it := range ix.chunks.items(h.Row) {
				c := ix.chunk[it]
				if !keep(it) || seen[c.Note] {
					continue
				}
				seen[c.Note] = true
				out = append(out, ix.noteHit(c.Note, ix.chunkHit(it, h.Score)))
			}
		}
		return out
	}
	hits, exact, err := ix.nearestRows(&ix.chunks, vec, want, allowed, labels != nil,
		func(h []vectors.Hit) bool { return len(group(h)) >= want })
	if err != nil {
		return nil, false, err
	}
	notes := group(hits)
	if q.Score == Mean {
		for i := range notes {
			notes[i].Score = ix.meanScore(notes[i].ID, vec)
		}
		sort.SliceStable(notes, func(i, j int) bool { return notes[i].Score > notes[j].Score })
	}
	if len(notes) > q.K {
		notes = notes[:q.K]
	}
	return notes, exact, nil
}

func (ix *Index) noteHit(id string, best ChunkHit) NoteHit {
	h := NoteHit{ID: id, Path: best.Path, Title: best.Title, Score: best.Score, Best: best}
	if n := ix.notes[id]; n != nil {
		h.Labels = n.Labels
	}
	return h
}

// meanScore is the mean similarity of a note's chunks that have vectors.
func (ix *Index) meanScore(id string, vec []float32) float32 {
	n := ix.notes[id]
	var sum float64
	count := 0
	for _, it := range n.chunks {
		h, ok := vectors.ParseHash(ix.chunk[it].TextSHA256)
		if !ok {
			continue
		}
		if r, ok := ix.chunks.file.Find(h); ok {
			sum += float64(ix.chunks.file.Similarity(vec, r))
			count++
		}
	}
	if count == 0 {
		return 0
	}
	return float32(sum / float64(count))
}

func (ix *Index) searchEdges(q Query, vec []float32) ([]EdgeHit, bool, error) {
	labels := labelSet(q.Labels)
	types := labelSet(q.EdgeTypes)
	filtered := labels != nil || types != nil
	keep := func(it int32) bool {
		e := &ix.edge[it]
		if types != nil && !types[strings.ToLower(e.Type)] {
			return false
		}
		return labels == nil || ix.noteHasLabel(e.Source, labels) || ix.noteHasLabel(e.Target, labels)
	}
	var allowed []int
	if filtered {
		allowed = ix.edges.rowsFiltered(keep)
	}
	// count is how many hits collect returns, without building them.
	count := func(hits []vectors.Hit) int { return ix.edges.kept(hits, q.K, keep) }
	collect := func(hits []vectors.Hit) []EdgeHit {
		var out []EdgeHit // nil when none is kept, as before
		if n := count(hits); n > 0 {
			out = make([]EdgeHit, 0, n)
		}
		for _, h := range hits {
			for _, it := range ix.edges.items(h.Row) {
				if keep(it) && len(out) < q.K {
					e := &ix.edge[it]
					out = append(out, EdgeHit{ID: e.ID, Source: e.Source, Target: e.Target, Type: e.Type, Sentence: e.Sentence, Score: h.Score,
						Citation: EdgeCitation{Path: e.Source, Heading: e.Heading, Line: int(e.Line)}, Item: int(it)})
				}
			}
		}
		return out
	}
	hits, exact, err := ix.nearestRows(&ix.edges, vec, q.K, allowed, filtered,
		func(h []vectors.Hit) bool { return count(h) >= q.K })
	if err != nil {
		return nil, false, err
	}
	return collect(hits), exact, nil
}
