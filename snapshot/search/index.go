package search

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/bm25"
	"github.com/vaultgraph/vaultgraph/snapshot/vectors"
)

// ErrNoVectors is returned by Open for a snapshot built without vectors.
var ErrNoVectors = errors.New("snapshot has no vectors")

// ErrNotEmbedded is returned by a search for edges of types that are never
// embedded (format.UnembeddedEdgeTypes): it could find nothing.
var ErrNotEmbedded = errors.New("edge type not embedded")

// Options tune an Index.
type Options struct {
	// Text loads the chunks' text, returned with chunk hits. It costs about
	// the size of the vault in memory.
	Text bool
	// EfSearch overrides the beam width of graph searches (0: the one the
	// snapshot records). Larger finds more of the true nearest neighbours,
	// more slowly.
	EfSearch int
	// ExactRows: a search that would scan at most this many rows (all rows,
	// or the rows a filter allows) scans them exactly instead of asking the
	// graph. Default: 4M floats' worth, 10,922 rows at 384 dimensions, a
	// scan of about 0.4 ms: a few times slower than the graph at that size,
	// but well under a millisecond, and it never misses (the builtin
	// embedder's lexical vectors need a wide beam for the graph to find
	// them).
	ExactRows int
	// Tables, when set, are the snapshot's notes, chunks and edges as the
	// caller already read them: Open then reads none of those tables
	// itself and shares the rows' strings. They must be the snapshot's
	// own tables, in table order, and must not change while the Index is
	// open.
	Tables *Tables
}

// Tables are the rows of a snapshot's notes, chunks and edges tables.
// Chunk text is not needed (see Options.Text).
type Tables struct {
	Notes  []format.Note
	Chunks []format.Chunk
	Edges  []format.Edge
}

// Index answers vector searches over one snapshot. It memory-maps the
// snapshot's vector and graph files and holds the chunk, note and edge
// metadata that hits cite. It is safe for concurrent use; Close must not be
// called while a search runs.
type Index struct {
	snap     *snapshot.Snapshot
	embedder *format.Embedder
	opts     Options
	chunks   target
	edges    target
	notes    map[string]*noteInfo
	chunk    []chunkRow
	text     []string // chunk texts when Options.Text
	// edge is the edges table: Options.Tables' rows, shared, or read.
	edge []format.Edge
	// lexical is the BM25 index over the chunks; nil for a snapshot
	// built without the bm25 stage.
	lexical *bm25.Index
}

// target is the vectors, graph and row-to-item mapping of chunks or edges.
type target struct {
	file     *vectors.File
	graph    *vectors.Graph
	rowStart []int32 // items of row r: rowItems[rowStart[r]:rowStart[r+1]]
	rowItems []int32
	rowOf    []int32 // row of each item, -1 when it has none
	pending  int
}

type chunkRow struct {
	ID         string `parquet:"id"`
	Note       string `parquet:"note"`
	Heading    string `parquet:"heading,optional"`
	Start      int32  `parquet:"start_byte"`
	End        int32  `parquet:"end_byte"`
	Line       int32  `parquet:"line"`
	TextSHA256 string `parquet:"text_sha256"`
}

type noteRow struct {
	ID     string   `parquet:"id"`
	Path   string   `parquet:"path,optional"`
	Title  string   `parquet:"title"`
	Labels []string `parquet:"labels,list"`
	Stub   bool     `parquet:"stub"`
}

type noteInfo struct {
	noteRow
	chunks []int32 // indexes into Index.chunk
}

// Open reads the snapshot's vectors, graphs and tables. It fails with
// ErrNoVectors for a snapshot without them and with an error wrapping
// vectors.ErrCorrupt when a file is damaged.
func Open(s *snapshot.Snapshot, opts Options) (_ *Index, err error) {
	m := s.Manifest
	if m.Embedder == nil || m.Vectors == nil {
		return nil, fmt.Errorf("%w: %s was built without the embedding stage; index the vault again", ErrNoVectors, s.ID)
	}
	ix := &Index{snap: s, embedder: m.Embedder, opts: opts}
	defer func() {
		if err != nil {
			err = errors.Join(err, ix.Close())
		}
	}()
	if err := ix.loadTables(); err != nil {
		return nil, err
	}
	// The vector files, their items and the lexical index are opened side
	// by side: they are most of a swap's time after the tables.
	var g errgroup.Group
	g.Go(func() (err error) {
		if ix.chunks, err = ix.openTarget(format.ChunkVectorsFile, format.ChunkHNSWFile); err != nil {
			return err
		}
		hashes := make([]vectors.Hash, len(ix.chunk))
		for i, c := range ix.chunk {
			h, ok := vectors.ParseHash(c.TextSHA256)
			if !ok {
				return fmt.Errorf("snapshot %s: chunk %s has a malformed text_sha256", s.ID, c.ID)
			}
			hashes[i] = h
		}
		ix.chunks.mapItems(hashes)
		return nil
	})
	g.Go(func() (err error) {
		if ix.edges, err = ix.openTarget(format.EdgeVectorsFile, format.EdgeHNSWFile); err != nil {
			return err
		}
		hashes := make([]vectors.Hash, 0, len(ix.edge))
		var buf []byte
		for _, e := range ix.edge {
			if m.Vectors.EdgeEmbedded(e.Type) {
				buf = append(buf[:0], e.Sentence...)
				hashes = append(hashes, sha256.Sum256(buf))
			} else {
				hashes = append(hashes, unembedded)
			}
		}
		ix.edges.mapItems(hashes)
		return nil
	})
	g.Go(ix.openBM25)
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return ix, nil
}

// openBM25 reads the lexical index, if the snapshot has one, and checks
// that its documents are the chunks, in order.
func (ix *Index) openBM25() error {
	if ix.snap.Manifest.BM25 == nil {
		return nil
	}
	lx, err := bm25.Open(filepath.Join(ix.snap.Dir, format.BM25File))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("snapshot %s: its manifest names %s but the file is missing", ix.snap.ID, format.BM25File)
	}
	if err != nil {
		return err
	}
	ids := make([]string, len(ix.chunk))
	for i, c := range ix.chunk {
		ids[i] = c.ID
	}
	if lx.Docs() != len(ix.chunk) || lx.DocsDigest() != bm25.DocsDigest(ids) {
		return fmt.Errorf("snapshot %s: %w: %s was built for other chunks than the snapshot's", ix.snap.ID, bm25.ErrCorrupt, format.BM25File)
	}
	ix.lexical = lx
	return nil
}

// ChunkVectors and EdgeVectors return the snapshot's vector files, which
// the index mapped and checked against the manifest's embedder. They are
// the index's: callers must not close them, nor use them after Close.
func (ix *Index) ChunkVectors() *vectors.File { return ix.chunks.file }

// EdgeVectors: see ChunkVectors.
func (ix *Index) EdgeVectors() *vectors.File { return ix.edges.file }

// ChunkRows returns the row in ChunkVectors of every chunk of the
// snapshot's chunks table, in table order: -1 for a chunk whose vector is
// pending. EdgeRows is the same for the edges table, -1 also for an edge
// of a type without vectors. The slices are the index's: callers must not
// change them.
func (ix *Index) ChunkRows() []int32 { return ix.chunks.rowOf }

// EdgeRows: see ChunkRows.
func (ix *Index) EdgeRows() []int32 { return ix.edges.rowOf }

// Edges returns the snapshot's edges table, in order (EdgeHit.Item is a
// place in it). The rows are the index's: callers must not change them.
func (ix *Index) Edges() []format.Edge { return ix.edge }

// BM25 returns the snapshot's BM25 index over its chunks (documents in
// chunk order), nil when it was built without one. It is immutable and
// shared: callers must not change it.
func (ix *Index) BM25() *bm25.Index { return ix.lexical }

func (ix *Index) loadTables() error {
	var notes []noteRow
	if t := ix.opts.Tables; t != nil {
		notes = ix.shareTables(t)
		// Keep no reference to the caller's slices beyond the rows shared
		// (the chunks were 4.5 MB at 10,000 notes).
		ix.opts.Tables = nil
	} else {
		var err error
		if notes, err = ix.readTables(); err != nil {
			return err
		}
	}
	ix.notes = make(map[string]*noteInfo, len(notes))
	infos := make([]noteInfo, len(notes))
	for i, n := range notes {
		infos[i].noteRow = n
		ix.notes[n.ID] = &infos[i]
	}
	for i, c := range ix.chunk {
		if n := ix.notes[c.Note]; n != nil {
			n.chunks = append(n.chunks, int32(i))
		}
	}
	return nil
}

// readTables reads the chunk and edge rows from the snapshot's tables and
// returns its note rows.
func (ix *Index) readTables() ([]noteRow, error) {
	var err error
	if ix.chunk, err = snapshot.ReadSegments[chunkRow](ix.snap, format.ChunksTable); err != nil {
		return nil, err
	}
	if ix.opts.Text {
		contents, err := ix.snap.NoteContents()
		if err != nil {
			return nil, err
		}
		ix.text = make([]string, len(ix.chunk))
		for i, c := range ix.chunk {
			if ix.text[i], err = snapshot.ChunkText(contents, c.Note, c.Start, c.End); err != nil {
				return nil, err
			}
		}
	}
	if ix.edge, err = snapshot.ReadSegments[format.Edge](ix.snap, format.EdgesTable); err != nil {
		return nil, err
	}
	return snapshot.ReadSegments[noteRow](ix.snap, format.NotesTable)
}

// shareTables takes the chunk and edge rows of t instead of reading them,
// sharing their strings, and returns its note rows.
func (ix *Index) shareTables(t *Tables) []noteRow {
	ix.chunk = make([]chunkRow, len(t.Chunks))
	for i, c := range t.Chunks {
		ix.chunk[i] = chunkRow{ID: c.ID, Note: c.Note, Heading: c.Heading, Start: c.Start, End: c.End, Line: c.Line, TextSHA256: c.TextSHA256}
	}
	if ix.opts.Text {
		ix.text = make([]string, len(t.Chunks))
		for i, c := range t.Chunks {
			ix.text[i] = c.Text
		}
	}
	// The edge rows themselves are shared (a copy of their strings'
	// headers was 7 MB at 10,000 notes).
	ix.edge = t.Edges
	notes := make([]noteRow, len(t.Notes))
	for i, n := range t.Notes {
		notes[i] = noteRow{ID: n.ID, Path: n.Path, Title: n.Title, Labels: n.Labels, Stub: n.Stub}
	}
	return notes
}

// openTarget maps one target's files and checks them against the manifest.
func (ix *Index) openTarget(vecName, graphName string) (target, error) {
	var t target
	f, err := vectors.OpenFile(filepath.Join(ix.snap.Dir, vecName))
	if err != nil {
		return t, fmt.Errorf("snapshot %s: %w", ix.snap.ID, err)
	}
	t.file = f
	if got := f.Fingerprint(); hex.EncodeToString(got[:]) != ix.embedder.Fingerprint {
		return t, fmt.Errorf("snapshot %s: %s holds vectors of another embedder than the manifest names", ix.snap.ID, vecName)
	}
	if f.Len() > 0 && f.Dims() != ix.embedder.Dimensions {
		return t, fmt.Errorf("snapshot %s: %s has %d dimensions, the manifest says %d", ix.snap.ID, vecName, f.Dims(), ix.embedder.Dimensions)
	}
	if t.graph, err = vectors.OpenGraph(filepath.Join(ix.snap.Dir, graphName), f); err != nil {
		return t, fmt.Errorf("snapshot %s: %w", ix.snap.ID, err)
	}
	return t, nil
}

// unembedded stands for the hash of an item that has no vector by design
// (format.Vectors.EdgesWithoutVectors): not pending, never found.
var unembedded = vectors.Hash{}

// mapItems links every item (chunk or edge, by its text hash) to its row.
func (t *target) mapItems(hashes []vectors.Hash) {
	rowOf := make([]int32, len(hashes))
	counts := make([]int32, t.file.Len()+1)
	for i, h := range hashes {
		if h == unembedded {
			rowOf[i] = -1
			continue
		}
		r, ok := t.file.Find(h)
		rowOf[i] = int32(r)
		if !ok {
			t.pending++
			continue
		}
		counts[r+1]++
	}
	t.rowOf = rowOf
	for r := 1; r < len(counts); r++ {
		counts[r] += counts[r-1]
	}
	t.rowStart = counts
	t.rowItems = make([]int32, counts[len(counts)-1])
	fill := append([]int32(nil), counts[:len(counts)-1]...)
	for i, r := range rowOf {
		if r >= 0 {
			t.rowItems[fill[r]] = int32(i)
			fill[r]++
		}
	}
}

func (t *target) items(row int) []int32 {
	return t.rowItems[t.rowStart[row]:t.rowStart[row+1]]
}

// Close unmaps the snapshot's files.
func (ix *Index) Close() error {
	var errs []error
	for _, t := range []*target{&ix.chunks, &ix.edges} {
		if t.graph != nil {
			errs = append(errs, t.graph.Close())
		}
		if t.file != nil {
			errs = append(errs, t.file.Close())
		}
	}
	return errors.Join(errs...)
}

// Snapshot returns the snapshot the index serves.
func (ix *Index) Snapshot() *snapshot.Snapshot { return ix.snap }

// Embedder returns the embedder the snapshot's vectors come from; queries
// must be embedded with it.
func (ix *Index) Embedder() *format.Embedder { return ix.embedder }

// labelSet folds labels for case-insensitive matching.
func labelSet(labels []string) map[string]bool {
	if len(labels) == 0 {
		return nil
	}
	m := make(map[string]bool, len(labels))
	for _, l := range labels {
		if l = strings.TrimSpace(l); l != "" {
			m[strings.ToLower(l)] = true
		}
	}
	return m
}

func (ix *Index) noteHasLabel(id string, set map[string]bool) bool {
	n := ix.notes[id]
	if n == nil {
		return false
	}
	for _, l := range n.Labels {
		if set[strings.ToLower(l)] {
			return true
		}
	}
	return false
}
