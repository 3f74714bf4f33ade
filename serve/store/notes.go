package store

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"
	"golang.org/x/text/unicode/norm"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// Notes is the in-memory index of a snapshot's notes (and stubs), their
// edges in both directions and their chunks, built once when the snapshot
// is loaded. Lookups never touch the disk. It is read-only after loading
// and safe for concurrent use.
type Notes struct {
	notes    []format.Note
	byID     map[string]int32
	edges    []format.Edge
	out, in  [][]int32 // per note: indexes into edges
	chunks   []Chunk
	chunksOf [][]int32 // per note: indexes into chunks, in ordinal order
	chunkID  map[string]int32
	// segments says where the rows of each table segment file are in the
	// slices above, by segmentKey: the next snapshot's load takes the rows
	// of a file with the same bytes from here instead of decoding it.
	segments map[segmentKey]rowRange
	// Decoded and Reused count the segment files this load decoded and
	// took from the snapshot served before.
	Decoded, Reused int
}

// segmentKey names a segment file's bytes: its table and sha256.
type segmentKey struct{ table, sha256 string }

// rowRange is a segment's rows in a table's slice: [start, end).
type rowRange struct{ start, end int }

// Chunk is a passage of a note as the server holds it: format.Chunk
// without the embedding header, which nothing served carries. Text shares
// the memory of its note's content.
type Chunk struct {
	ID      string `parquet:"id"`
	Note    string `parquet:"note"`
	Ordinal int32  `parquet:"ordinal"`
	Heading string `parquet:"heading,optional"`
	Start   int32  `parquet:"start_byte"`
	End     int32  `parquet:"end_byte"`
	Line    int32  `parquet:"line"`
	// Text is cut from the note's content when the table is loaded
	// (format.Chunk.Text: it is not a column).
	Text string `parquet:"-"`
	// TextSHA256 keys the chunk's vector (format.Chunk.TextSHA256).
	TextSHA256 string `parquet:"text_sha256"`
}

// loadNotes reads the snapshot's notes, edges and chunks tables, several
// segment files at once: the snapshot is served only once all are read. A
// segment file whose sha256 is that of a file prev (the index of the
// snapshot served before, or nil) read is not decoded again: its rows are
// prev's, shared (the manifest's sha256 of the file, which was verified
// before, says the bytes are the same; snapshots never change). An edit
// changes a few segments, so a swap decodes a few segments.
func loadNotes(s *snapshot.Snapshot, prev *Notes) (*Notes, error) {
	l := &segmentLoad{s: s, prev: prev, segments: map[segmentKey]rowRange{}}
	notes := readSegments(l, format.NotesTable, func(p *Notes) []format.Note { return p.notes })
	edges := readSegments(l, format.EdgesTable, func(p *Notes) []format.Edge { return p.edges })
	chunks := readSegments(l, format.ChunksTable, func(p *Notes) []Chunk { return p.chunks })
	if err := l.g.Wait(); err != nil {
		return nil, err
	}
	// newNotes writes into the edge and chunk rows it is given, so only
	// the notes and edges may be prev's own slices; the edges then are
	// prev's as they are (their strings already shared), not rewritten.
	noteRows, _ := notes(true)
	edgeRows, edgesShared := edges(true)
	chunkRows, _ := chunks(false)
	n, err := newNotes(noteRows, edgeRows, edgesShared, chunkRows)
	if err != nil {
		return nil, err
	}
	n.segments, n.Decoded, n.Reused = l.segments, l.decoded, l.reused
	return n, nil
}

// segmentLoad is one loadNotes: its segment files are read on g.
type segmentLoad struct {
	s               *snapshot.Snapshot
	prev            *Notes
	g               errgroup.Group
	mu              sync.Mutex
	segments        map[segmentKey]rowRange
	decoded, reused int
}

// readSegments reads table's segments on l.g, taking those prev holds from
// rowsOf(prev); the returned function, called after l.g.Wait, returns the
// table's rows and records where each segment's rows are. With share, rows
// that are all of prev's, in prev's order, are prev's slice itself (shared
// reports it), which the caller must not write into; otherwise, and
// without share, they are a slice of their own.
func readSegments[T any](l *segmentLoad, table string, rowsOf func(*Notes) []T) func(share bool) (rows []T, shared bool) {
	segs := l.s.Segments(table)
	parts := make([][]T, len(segs))
	keys := make([]segmentKey, len(segs))
	// inOrder stays true while every segment so far is prev's next one.
	inOrder := l.prev != nil
	next := 0
	for i, seg := range segs {
		keys[i] = segmentKey{table, l.s.Manifest.Files[seg.File].SHA256}
		if l.prev != nil && keys[i].sha256 != "" {
			if r, ok := l.prev.segments[keys[i]]; ok {
				if rows := rowsOf(l.prev); r.end <= len(rows) {
					parts[i] = rows[r.start:r.end:r.end]
					inOrder = inOrder && r.start == next
					next = r.end
					l.reused++
					continue
				}
			}
		}
		inOrder = false
		l.decoded++
		l.g.Go(func() (err error) {
			parts[i], err = snapshot.ReadTableByColumn[T](filepath.Join(l.s.Dir, seg.File))
			return err
		})
	}
	return func(share bool) ([]T, bool) {
		// A slice of its own when a part is prev's and not all are, or
		// without share: newNotes sets the chunks' text and the rows'
		// shared strings in place, and prev is still being read.
		shared := share && inOrder && next == len(rowsOf(l.prev))
		var rows []T
		if shared {
			rows = rowsOf(l.prev)
		} else {
			rows = slices.Concat(parts...)
		}
		start := 0
		l.mu.Lock()
		defer l.mu.Unlock()
		for i, p := range parts {
			l.segments[keys[i]] = rowRange{start, start + len(p)}
			start += len(p)
		}
		return rows, shared
	}
}

// newNotes indexes the rows, sharing strings between them: it writes into
// the edge rows unless edgesShared (prev's rows, shared already) and into
// the chunk rows.
func newNotes(notes []format.Note, edges []format.Edge, edgesShared bool, chunks []Chunk) (*Notes, error) {
	n := &Notes{
		notes:    notes,
		byID:     make(map[string]int32, len(notes)),
		edges:    edges,
		out:      make([][]int32, len(notes)),
		in:       make([][]int32, len(notes)),
		chunks:   chunks,
		chunksOf: make([][]int32, len(notes)),
		chunkID:  make(map[string]int32, len(chunks)),
	}
	for i, note := range notes {
		if _, dup := n.byID[note.ID]; dup {
			return nil, fmt.Errorf("notes table: note id %q appears twice", note.ID)
		}
		n.byID[note.ID] = int32(i)
	}
	// The table reader gives every row's strings memory of their own: an
	// edge's ends and a chunk's note share their note's id instead, and
	// edges of one type one string (9 MB less heap at 10,000 notes).
	types := map[string]string{}
	for i := range edges {
		e := &edges[i]
		// An edge whose end is not a row is a snapshot the indexer would
		// never write; keep serving the rest of it rather than refuse it.
		if src, ok := n.byID[e.Source]; ok {
			n.out[src] = append(n.out[src], int32(i))
			if !edgesShared {
				e.Source = notes[src].ID
			}
		}
		if dst, ok := n.byID[e.Target]; ok {
			n.in[dst] = append(n.in[dst], int32(i))
			if !edgesShared {
				e.Target = notes[dst].ID
			}
		}
		if edgesShared {
			continue
		}
		if t, ok := types[e.Type]; ok {
			e.Type = t
		} else {
			types[e.Type] = e.Type
		}
	}
	for i := range chunks {
		c := &chunks[i]
		n.chunkID[c.ID] = int32(i)
		owner, ok := n.byID[c.Note]
		if !ok {
			continue
		}
		n.chunksOf[owner] = append(n.chunksOf[owner], int32(i))
		c.Note = notes[owner].ID
		// A chunk's text is its note's content from Start to End (the
		// contract in format.Chunk), sharing its memory. A range outside
		// the content (a snapshot the indexer never writes) leaves it
		// empty and the rest served.
		content := notes[owner].Content
		if c.Start >= 0 && c.Start <= c.End && int(c.End) <= len(content) {
			c.Text = content[c.Start:c.End]
		}
	}
	for _, cs := range n.chunksOf {
		sort.Slice(cs, func(a, b int) bool { return chunks[cs[a]].Ordinal < chunks[cs[b]].Ordinal })
	}
	return n, nil
}

// Len returns the number of notes and stubs.
func (n *Notes) Len() int { return len(n.notes) }

// Lookup finds a note or stub by its id, which for a note is its
// vault-relative path ("Projects/Search.md"). The key is a lookup key, never
// a file system path. It also accepts the path in another Unicode
// normalisation form (macOS writes NFD) and a note path without its .md
// extension.
func (n *Notes) Lookup(key string) (*format.Note, bool) {
	candidates := []string{key, norm.NFC.String(key)}
	if !strings.HasSuffix(strings.ToLower(key), ".md") {
		candidates = append(candidates, key+".md", norm.NFC.String(key)+".md")
	}
	for _, k := range candidates {
		if i, ok := n.byID[k]; ok {
			return &n.notes[i], true
		}
	}
	return nil, false
}

// Outgoing returns the edges whose source is the note id, in table order.
func (n *Notes) Outgoing(id string) []*format.Edge { return n.edgeList(id, n.out) }

// Incoming returns the edges whose target is the note id, in table order.
func (n *Notes) Incoming(id string) []*format.Edge { return n.edgeList(id, n.in) }

func (n *Notes) edgeList(id string, index [][]int32) []*format.Edge {
	i, ok := n.byID[id]
	if !ok {
		return nil
	}
	out := make([]*format.Edge, len(index[i]))
	for k, e := range index[i] {
		out[k] = &n.edges[e]
	}
	return out
}

// Chunks returns the note's chunks in order.
func (n *Notes) Chunks(id string) []*Chunk {
	i, ok := n.byID[id]
	if !ok {
		return nil
	}
	out := make([]*Chunk, len(n.chunksOf[i]))
	for k, c := range n.chunksOf[i] {
		out[k] = &n.chunks[c]
	}
	return out
}

// Chunk returns the chunk with the given id.
func (n *Notes) Chunk(id string) (*Chunk, bool) {
	i, ok := n.chunkID[id]
	if !ok {
		return nil, false
	}
	return &n.chunks[i], true
}

// formatChunks returns the chunks as format rows for components that take
// them, sharing their strings.
func (n *Notes) formatChunks() []format.Chunk {
	out := make([]format.Chunk, len(n.chunks))
	for i, c := range n.chunks {
		out[i] = format.Chunk{ID: c.ID, Note: c.Note, Ordinal: c.Ordinal, Heading: c.Heading, Start: c.Start,
			End: c.End, Line: c.Line, Text: c.Text, TextSHA256: c.TextSHA256}
	}
	return out
}
