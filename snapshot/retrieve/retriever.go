package retrieve

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/bm25"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
	"github.com/vaultgraph/vaultgraph/snapshot/vectors"
)

// Sources are the components of an opened snapshot a Retriever answers
// from. The caller opened them and keeps ownership: they must stay open
// while the Retriever is used, and the Retriever never closes them.
type Sources struct {
	Snapshot *snapshot.Snapshot
	// Graph is the snapshot's link graph (linkgraph.Load).
	Graph *linkgraph.Graph
	// Search is the snapshot's vector index (search.Open) and Embedder the
	// embedder its vectors came from (embed.ForSnapshot).
	Search   *search.Index
	Embedder embed.Embedder
	// Chunks is the snapshot's chunks table with text, if the caller holds
	// it already; New reads it otherwise. The Retriever keeps referring to
	// the slice's strings.
	Chunks []format.Chunk
}

// Retriever answers questions over one snapshot. It is read-only after New
// and safe for concurrent use.
type Retriever struct {
	snap     *snapshot.Snapshot
	graph    *linkgraph.Graph
	search   *search.Index
	embedder embed.Embedder
	lexical  *bm25.Index // nil for a snapshot without the BM25 stage
	warnings []string

	chunks   []chunkInfo // the chunks table, in order
	chunksOf [][]int32   // per note index: its chunks in order
	// itemEdge maps an edge of the edges table (search.EdgeHit.Item) to
	// the link graph's edge; nil when they are the same (the graph left
	// no edge out).
	itemEdge []int32
	edgeRow  []int32 // per edge: row in edgeVecs, -1 when pending
	// typeNames are the edge types in lower case, edgeType every edge's
	// number in typeNames; rowEdges lists the edges of each row of
	// edgeVecs (edges with equal sentences share one); typedRows are the
	// rows of typed edges, sorted.
	typeNames []string
	edgeType  []int32
	rowEdges  [][]int32
	typedRows []int
	// typedAdj lists each note's edges of the walkable types of a request
	// that names none (the typed edges' types, in lower case), in the
	// order candidates examines edges: leaving the note, then arriving.
	typedAdj adjacency
	// scratch holds the per-question state that is as large as the
	// vault, handed back by finished questions.
	scratch scratchPool

	chunkVecs, edgeVecs *vectors.File
	closers             []func() error
}

type chunkInfo struct {
	id, heading, text string
	note              int32 // index in graph, -1 when unknown
	start, end, line  int32
	row               int32 // row in chunkVecs, -1 when pending
}

// chunkRow is the part of the chunks table New reads itself.
type chunkRow struct {
	ID         string `parquet:"id"`
	Note       string `parquet:"note"`
	Heading    string `parquet:"heading,optional"`
	Start      int32  `parquet:"start_byte"`
	End        int32  `parquet:"end_byte"`
	Line       int32  `parquet:"line"`
	TextSHA256 string `parquet:"text_sha256"`
}

// New builds a Retriever over src. It reads the vector files and the BM25
// index the search index opened; a snapshot without one is answered without lexical
// seeds, and every result says so. It fails when the embedder is not the
// one the vectors came from (wrapping embed.ErrModelMismatch) and when the
// BM25 index or a vector file does not belong to the snapshot's chunks.
func New(src Sources) (_ *Retriever, err error) {
	if src.Snapshot == nil || src.Graph == nil || src.Search == nil || src.Embedder == nil {
		return nil, errors.New("retrieve: Sources needs Snapshot, Graph, Search and Embedder")
	}
	s := src.Snapshot
	if err := embed.Check(s.Manifest.Embedder, src.Embedder.Info()); err != nil {
		return nil, err
	}
	r := &Retriever{snap: s, graph: src.Graph, search: src.Search, embedder: src.Embedder}
	defer func() {
		if err != nil {
			err = errors.Join(err, r.Close())
		}
	}()
	rows := src.Chunks
	if rows == nil {
		cr, err := snapshot.ReadSegments[chunkRow](s, format.ChunksTable)
		if err != nil {
			return nil, err
		}
		contents, err := s.NoteContents()
		if err != nil {
			return nil, err
		}
		rows = make([]format.Chunk, len(cr))
		for i, c := range cr {
			text, err := snapshot.ChunkText(contents, c.Note, c.Start, c.End)
			if err != nil {
				return nil, err
			}
			rows[i] = format.Chunk{ID: c.ID, Note: c.Note, Heading: c.Heading, Start: c.Start, End: c.End, Line: c.Line, Text: text, TextSHA256: c.TextSHA256}
		}
	}
	// The search index mapped the vector files and checked them against
	// the manifest's embedder: map them once (a second map held their
	// pages twice in the server's resident memory, and their residual
	// planes twice on its heap).
	r.chunkVecs, r.edgeVecs = src.Search.ChunkVectors(), src.Search.EdgeVectors()
	if err := r.indexChunks(rows); err != nil {
		return nil, err
	}
	r.indexEdges()
	r.openBM25()
	return r, nil
}

func (r *Retriever) indexChunks(rows []format.Chunk) error {
	g := r.graph
	// The search index found every chunk's vector row already: its
	// chunks are the same table, in the same order.
	vecRows := r.search.ChunkRows()
	if len(vecRows) != len(rows) {
		return fmt.Errorf("snapshot %s: the vector index holds %d chunks, the chunks table %d", r.snap.ID, len(vecRows), len(rows))
	}
	r.chunks = make([]chunkInfo, len(rows))
	r.chunksOf = make([][]int32, g.Len())
	note, n, found := "", int32(-1), false
	for i, c := range rows {
		ci := chunkInfo{id: c.ID, heading: c.Heading, text: c.Text, start: c.Start, end: c.End, line: c.Line, note: -1, row: vecRows[i]}
		// A note's chunks are next to each other in the table.
		if i == 0 || c.Note != note {
			note = c.Note
			n, found = g.Find(note)
		}
		if found {
			ci.note = n
			r.chunksOf[n] = append(r.chunksOf[n], int32(i))
		}
		r.chunks[i] = ci
	}
	return nil
}

func (r *Retriever) indexEdges() {
	g := r.graph
	// The search index found the vector row of every edge of the edges
	// table; the graph's edges are those rows in order unless it left an
	// edge out (an end that is no note, which the indexer never writes).
	vecRows := r.search.EdgeRows()
	aligned := g.Skipped() == 0 && len(vecRows) == g.EdgeCount()
	if !aligned {
		r.mapItemEdges()
	}
	r.edgeRow = make([]int32, g.EdgeCount())
	r.edgeType = make([]int32, g.EdgeCount())
	r.rowEdges = make([][]int32, r.edgeVecs.Len())
	typeOf := map[string]int32{} // by type as written
	number := map[string]int32{} // by type in lower case
	typed := make([]bool, r.edgeVecs.Len())
	vs := r.snap.Manifest.Vectors
	for e := range int32(g.EdgeCount()) {
		ed := g.Edge(e)
		t, ok := typeOf[ed.Type]
		if !ok {
			lt := strings.ToLower(ed.Type)
			if t, ok = number[lt]; !ok {
				t = int32(len(r.typeNames))
				number[lt] = t
				r.typeNames = append(r.typeNames, lt)
			}
			typeOf[ed.Type] = t
		}
		r.edgeType[e] = t
		row := -1
		if aligned {
			row = int(vecRows[e])
		} else if vs.EdgeEmbedded(ed.Type) {
			// An edge of a type without vectors (plain links) has none
			// to find.
			if i, ok := r.edgeVecs.Find(vectors.Hash(sha256.Sum256([]byte(ed.Sentence)))); ok {
				row = i
			}
		}
		r.edgeRow[e] = int32(row)
		if row >= 0 {
			r.rowEdges[row] = append(r.rowEdges[row], e)
			if ed.Typed() && !typed[row] {
				typed[row] = true
				r.typedRows = append(r.typedRows, row)
			}
		}
	}
	slices.Sort(r.typedRows)
	walkable := make([]bool, len(r.typeNames))
	for _, t := range g.TypedEdgeTypes() {
		if n, ok := number[strings.ToLower(t)]; ok {
			walkable[n] = true
		}
	}
	r.typedAdj = r.adjacencyOf(walkable)
}

// mapItemEdges maps the edges table's edges to the graph's by their ids,
// for a graph that left some out.
func (r *Retriever) mapItemEdges() {
	g := r.graph
	byID := make(map[string]int32, g.EdgeCount())
	for e := range int32(g.EdgeCount()) {
		byID[g.Edge(e).ID] = e
	}
	edges := r.search.Edges()
	r.itemEdge = make([]int32, len(edges))
	for i := range edges {
		if e, ok := byID[edges[i].ID]; ok {
			r.itemEdge[i] = e
		} else {
			r.itemEdge[i] = -1
		}
	}
}

// edgeOfItem returns the graph's edge of the edges table's edge i.
func (r *Retriever) edgeOfItem(i int) (int32, bool) {
	if r.itemEdge == nil {
		return int32(i), i >= 0 && i < r.graph.EdgeCount()
	}
	if i < 0 || i >= len(r.itemEdge) || r.itemEdge[i] < 0 {
		return -1, false
	}
	return r.itemEdge[i], true
}

// typeSet returns, by type number, whether the request's types hold it.
func (r *Retriever) typeSet(types map[string]bool) []bool {
	set := make([]bool, len(r.typeNames))
	for i, t := range r.typeNames {
		set[i] = types[t]
	}
	return set
}

// adjacency is a compressed list of the walkable edges of each note: the
// items of note i are items[start[i]:start[i+1]].
type adjacency struct {
	start []int32
	items []adjEdge
}

// adjEdge is an edge of a note's adjacency: the edge, its other end and
// its place among all the note's edges, leaving ones first.
type adjEdge struct {
	edge, other, pos int32
}

func (a *adjacency) of(n int32) []adjEdge { return a.items[a.start[n]:a.start[n+1]] }

// adjacencyOf lists, for every note, its edges whose type walkable holds.
func (r *Retriever) adjacencyOf(walkable []bool) adjacency {
	g := r.graph
	a := adjacency{start: make([]int32, g.Len()+1)}
	for u := range int32(g.Len()) {
		pos := int32(0)
		for _, e := range g.Out(u) {
			if walkable[r.edgeType[e]] {
				a.items = append(a.items, adjEdge{e, g.Edge(e).Target, pos})
			}
			pos++
		}
		for _, e := range g.In(u) {
			if walkable[r.edgeType[e]] {
				a.items = append(a.items, adjEdge{e, g.Edge(e).Source, pos})
			}
			pos++
		}
		a.start[u+1] = int32(len(a.items))
	}
	return a
}

// openBM25 takes the lexical index from the search index, which read it
// and checked that its documents are the chunks, in order.
func (r *Retriever) openBM25() {
	if r.snap.Manifest.BM25 == nil {
		r.warnings = append(r.warnings, fmt.Sprintf("snapshot %s has no BM25 index (built before the bm25 stage): "+
			"seeds come from vectors, names and edges only; index the vault again for lexical search", r.snap.ID))
		return
	}
	r.lexical = r.search.BM25()
}

// Close releases what the Retriever owns (the Sources of Open). It does
// not close the Sources given to New.
// It must not be called while a Retrieve runs.
func (r *Retriever) Close() error {
	var errs []error
	for i := len(r.closers) - 1; i >= 0; i-- {
		errs = append(errs, r.closers[i]())
	}
	r.closers = nil
	return errors.Join(errs...)
}

// Snapshot returns the id of the snapshot the retriever answers from.
func (r *Retriever) Snapshot() string { return r.snap.ID }

// SnapshotDir returns the directory of that snapshot.
func (r *Retriever) SnapshotDir() string { return r.snap.Dir }

// chunkSimilarity returns the similarity of chunk c's vector with q;
// false when it is pending or q has another dimension.
func (r *Retriever) chunkSimilarity(c int32, q []float32) (float32, bool) {
	if row := r.chunks[c].row; row >= 0 && len(q) == r.chunkVecs.Dims() {
		return r.chunkVecs.Similarity(q, int(row)), true
	}
	return 0, false
}

// prefetchChunk starts loading chunk c's vector (vectors.File.Prefetch).
func (r *Retriever) prefetchChunk(c int32) {
	if row := r.chunks[c].row; row >= 0 && r.chunkVecs != nil {
		r.chunkVecs.Prefetch(int(row))
	}
}

// prefetchEdge is prefetchChunk for edge e.
func (r *Retriever) prefetchEdge(e int32) {
	if row := r.edgeRow[e]; row >= 0 && r.edgeVecs != nil {
		r.edgeVecs.Prefetch(int(row))
	}
}

// edgeSimilarity is chunkSimilarity for edge e.
func (r *Retriever) edgeSimilarity(e int32, q []float32) (float32, bool) {
	if row := r.edgeRow[e]; row >= 0 && len(q) == r.edgeVecs.Dims() {
		return r.edgeVecs.Similarity(q, int(row)), true
	}
	return 0, false
}
