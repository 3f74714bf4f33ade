package indexer

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/sync/errgroup"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer/note"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

// tables are the rows of a snapshot being built.
type tables struct {
	notes      []format.Note
	links      []format.Link
	edges      []format.Edge
	chunks     []format.Chunk
	warnings   []format.Warning
	unresolved int
	// code is the code half, nil when no repository was indexed and no
	// note links to code.
	code           *codeTables
	codeEdges      []format.Edge
	codeLinks      []format.Link
	unresolvedCode int
	parsed         int
	reused         int
	// asParent[i] is set when t.notes[i] is the parent's row as it was
	// (reused, with the size and time the parent recorded); parentSegs
	// are the parent's notes segments (reuse.segs). Together they let
	// writeSegments take a segment's key from the parent instead of
	// hashing its rows (keysFromParent).
	asParent   []bool
	parentSegs []priorSegment
	// parentChunks are the parent's chunk ids and notes in its table's
	// order (reuse.chunkIDs), for the BM25 stage.
	parentChunks []parentChunk
	// files[i] is the file of t.notes[i] (stubs have none); those left
	// unread (the stat cache vouched for them) have no text in t.notes[i]
	// or in their chunks, t.chunks[chunkStart[i]:chunkStart[i+1]], until
	// readUnread reads them.
	files      []readFile
	chunkStart []int
	maxBytes   int64
}

// priorSegment is one of the parent's notes segments: its index and the
// id and stub flag of each of its rows, in order.
type priorSegment struct {
	index int
	ids   []string
	stubs []bool
}

// noteRows are the rows one note yields on its own.
type noteRows struct {
	note     format.Note
	links    []format.Link
	chunks   []format.Chunk
	warnings []format.Warning
	// asParent: these are the parent's rows as they were, the note's size
	// and modification time included (reuse.rows).
	asParent bool
}

// assemble parses the notes that changed, reuses the rows of the others,
// and resolves every link.
func assemble(ctx context.Context, read []readFile, prev *reuse, opts Options) (*tables, error) {
	var files []readFile
	for _, r := range read {
		if r.Warning == nil {
			files = append(files, r)
		}
	}
	rows := make([]noteRows, len(files))
	reused := make([]bool, len(files))
	toParse := 0
	for i, f := range files {
		if r, ok := prev.rows(f); ok {
			rows[i], reused[i] = r, true
		} else if f.unread {
			return nil, fmt.Errorf("%w: the parent's rows of %s cannot be reused", errReadEveryNote, f.Path)
		} else {
			toParse++
		}
	}
	start := time.Now()
	meter := embed.NewMeter(opts.Progress, "parsing", "notes", toParse)
	var parsed atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Workers)
	for i, f := range files {
		if reused[i] {
			continue
		}
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			rows[i] = parseNote(f, opts)
			meter.Update(int(parsed.Add(1)))
			return nil
		})
	}
	err := g.Wait()
	meter.Done()
	if err != nil {
		return nil, err
	}
	if toParse > 0 {
		opts.Log.Info("parsed notes", "parsed", toParse, "reused", len(files)-toParse, "elapsed", time.Since(start).Round(time.Millisecond))
	}
	t := &tables{asParent: make([]bool, len(rows)), files: files, chunkStart: make([]int, len(rows)+1), maxBytes: opts.MaxNoteBytes}
	if prev != nil {
		t.parentSegs, t.parentChunks = prev.segs, prev.chunkIDs
	}
	// Sized before they are filled (the notes with room for stubs):
	// growing them was a sixth of assembling an edit.
	nLinks, nChunks := 0, 0
	for _, r := range rows {
		nLinks, nChunks = nLinks+len(r.links), nChunks+len(r.chunks)
	}
	t.notes = make([]format.Note, 0, len(rows)+len(rows)/8)
	t.links = make([]format.Link, 0, nLinks)
	t.chunks = make([]format.Chunk, 0, nChunks)
	for i, r := range rows {
		if reused[i] {
			t.reused++
		} else {
			t.parsed++
		}
		t.asParent[i] = r.asParent
		t.chunkStart[i] = len(t.chunks)
		t.notes = append(t.notes, r.note)
		t.links = append(t.links, r.links...)
		t.chunks = append(t.chunks, r.chunks...)
		t.warnings = append(t.warnings, r.warnings...)
	}
	t.chunkStart[len(rows)] = len(t.chunks)
	// Code links cite the line of their value: the notes that hold one
	// are read.
	if err := t.readUnread(ctx, opts.Workers, func(i int) bool { return hasCodeValues(&t.notes[i]) }); err != nil {
		return nil, err
	}
	t.resolve()
	return t, nil
}

func parseNote(f readFile, opts Options) noteRows {
	p := note.Parse(f.Path, f.Content, note.Options{ChunkChars: opts.ChunkChars})
	return noteRows{
		note: format.Note{
			ID:         f.Path,
			Path:       f.Path,
			Title:      p.Title,
			Folder:     format.NoteFolder(f.Path),
			Labels:     p.Labels,
			Tags:       p.Tags,
			Aliases:    p.Aliases,
			Properties: p.Properties,
			Signature:  f.SHA256,
			Size:       f.Size,
			Modified:   f.Modified.UTC(),
			BodyStart:  int32(p.BodyStart),
			Content:    p.Content,
		},
		links:    p.Links,
		chunks:   p.Chunks,
		warnings: p.Warnings,
	}
}

// resolve turns links into edges and stubs and writes each edge's sentence.
func (t *tables) resolve() {
	noteLinks := make([]format.Link, 0, len(t.links))
	for _, l := range t.links {
		if !format.IsCodeID(l.Target) {
			noteLinks = append(noteLinks, l)
		}
	}
	t.codeLinks = codeLinksOf(t.notes, t.links)
	g := buildGraph(noteLinks, newResolver(t.notes))
	slices.SortFunc(g.stubs, func(a, b format.Note) int { return strings.Compare(a.ID, b.ID) })
	t.notes = append(t.notes, g.stubs...)
	t.edges = g.edges
	t.unresolved = g.unresolved
	t.warnings = append(t.warnings, g.warnings...)
	// Each note is described once, not once per edge it ends (a sentence
	// names both ends), and an edge's source is most often the previous
	// edge's.
	desc := make(map[string]string, len(t.notes))
	for i := range t.notes {
		desc[t.notes[i].ID] = description(&t.notes[i], t.notes[i].ID)
	}
	describe := func(id string) string {
		if d, ok := desc[id]; ok {
			return d
		}
		return description(nil, id)
	}
	write := func(edges []format.Edge) {
		prevSource, sourceDesc := "", ""
		for i := range edges {
			e := &edges[i]
			if i == 0 || e.Source != prevSource {
				prevSource, sourceDesc = e.Source, describe(e.Source)
			}
			e.Sentence = sentenceOf(*e, sourceDesc, describe(e.Target))
		}
	}
	if len(t.edges) <= parallelLinks {
		write(t.edges)
		return
	}
	// Many sentences are written on every core, each its part of the edges.
	var wg sync.WaitGroup
	parts := runtime.GOMAXPROCS(0)
	size := (len(t.edges) + parts - 1) / parts
	for start := 0; start < len(t.edges); start += size {
		part := t.edges[start:min(start+size, len(t.edges))]
		wg.Go(func() { write(part) })
	}
	wg.Wait()
}

// reuse holds the parent snapshot's rows of every note, by path, without
// the note text and chunk text: those are rebuilt from the file just read,
// which is cheaper than decoding them and is the same text, since the
// signatures match.
type reuse struct {
	sigs     map[string]format.NoteSignature
	notes    map[string]format.Note
	links    map[string][]format.Link
	chunks   map[string][]format.Chunk
	warnings map[string][]format.Warning
	// segs are the parent's notes segments, when the manifest lists them
	// and they add up to the table read.
	segs []priorSegment
	// chunkIDs are the parent's chunk ids and notes in its table's order.
	chunkIDs []parentChunk
}

// noteMeta is format.Note without Content; chunkMeta is format.Chunk
// without Text (and Context, which no table holds since format 7: a
// version 5 or 6 parent's column is left unread, and Build.ChunkContext
// computes it when a stage needs it). Reading only these columns makes
// reuse several times cheaper. TestReuseRowsCoverTheFormat keeps them in
// step with format.
type noteMeta struct {
	ID         string            `parquet:"id,plain"`
	Path       string            `parquet:"path,optional,plain"`
	Title      string            `parquet:"title,plain"`
	Folder     string            `parquet:"folder,plain"`
	Labels     []string          `parquet:"labels,list,plain"`
	Tags       []string          `parquet:"tags,list,plain"`
	Aliases    []string          `parquet:"aliases,list,plain"`
	Properties []format.Property `parquet:"properties,list"`
	Stub       bool              `parquet:"stub"`
	Signature  string            `parquet:"signature,optional,plain"`
	BodyStart  int32             `parquet:"body_start"`
}

type chunkMeta struct {
	ID         string `parquet:"id,plain"`
	Note       string `parquet:"note,plain"`
	Ordinal    int32  `parquet:"ordinal"`
	Heading    string `parquet:"heading,optional,plain"`
	Start      int32  `parquet:"start_byte,delta"`
	End        int32  `parquet:"end_byte,delta"`
	Line       int32  `parquet:"line"`
	TextSHA256 string `parquet:"text_sha256,plain"`
}

// reusable loads the parent's rows when they were built with the same
// options. It returns nil (parse everything) when there is no parent, a full
// run was asked for, the parent's tables cannot be read or ctx is done
// (Run stops the reading when it finds the vault unchanged).
func reusable(ctx context.Context, parent *snapshot.Snapshot, opts Options) *reuse {
	if parent == nil || opts.Full || !equalOptions(parent.Manifest.Options, opts.manifestOptions()) {
		return nil
	}
	var (
		notes  []noteMeta
		links  []format.Link
		chunks []chunkMeta
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		notes, err = snapshot.ReadSegmentsByColumn[noteMeta](gctx, parent, format.NotesTable)
		return err
	})
	g.Go(func() (err error) {
		links, err = snapshot.ReadSegmentsByColumn[format.Link](gctx, parent, format.LinksTable)
		return err
	})
	g.Go(func() (err error) {
		chunks, err = snapshot.ReadSegmentsByColumn[chunkMeta](gctx, parent, format.ChunksTable)
		return err
	})
	if err := g.Wait(); err != nil {
		if ctx.Err() == nil {
			opts.Log.Warn("cannot reuse the parent snapshot's tables; parsing every note", "parent", parent.ID, "err", err)
		}
		return nil
	}
	r := &reuse{
		sigs:     parent.Manifest.Notes,
		notes:    make(map[string]format.Note, len(notes)),
		links:    make(map[string][]format.Link, len(notes)),
		chunks:   make(map[string][]format.Chunk, len(notes)),
		warnings: make(map[string][]format.Warning),
	}
	r.segs = parentSegments(parent, notes)
	for _, n := range notes {
		if !n.Stub {
			r.notes[n.ID] = format.Note{ID: n.ID, Path: n.Path, Title: n.Title, Folder: n.Folder, Labels: n.Labels,
				Tags: n.Tags, Aliases: n.Aliases, Properties: n.Properties, Signature: n.Signature, BodyStart: n.BodyStart}
		}
	}
	groupRuns(r.links, links, func(l *format.Link) string { return l.Source })
	r.chunkIDs = make([]parentChunk, len(chunks))
	all := make([]format.Chunk, len(chunks))
	for i, c := range chunks {
		r.chunkIDs[i] = parentChunk{ID: c.ID, Note: c.Note}
		all[i] = format.Chunk{ID: c.ID, Note: c.Note, Ordinal: c.Ordinal,
			Heading: c.Heading, Start: c.Start, End: c.End, Line: c.Line, TextSHA256: textKey(c.TextSHA256)}
	}
	groupRuns(r.chunks, all, func(c *format.Chunk) string { return c.Note })
	for _, w := range parent.Manifest.Warnings {
		if !isIndexerKind(w.Kind) {
			r.warnings[w.File] = append(r.warnings[w.File], w)
		}
	}
	return r
}

// textKey returns a parent chunk's text key as this build writes it: a
// version 5 parent holds the whole sha256, of which the key is the first
// format.TextKeyBytes bytes.
func textKey(h string) string {
	return h[:min(len(h), 2*format.TextKeyBytes)]
}

// groupRuns adds rows to by, under key(row), in order: a run of rows
// with the same key (a note's rows are one run in the parent's tables)
// becomes a sub-slice of rows, capped so that an append copies it, instead
// of a copy; a key met again after another one gets its rows appended.
func groupRuns[T any](by map[string][]T, rows []T, key func(*T) string) {
	for i := 0; i < len(rows); {
		k := key(&rows[i])
		j := i + 1
		for j < len(rows) && key(&rows[j]) == k {
			j++
		}
		if prev, ok := by[k]; ok {
			by[k] = append(prev, rows[i:j]...)
		} else {
			by[k] = rows[i:j:j]
		}
		i = j
	}
}

// rows returns the parent's rows for f when f's content is unchanged, with
// the note's content and chunk texts rebuilt from f.
func (r *reuse) rows(f readFile) (noteRows, bool) {
	if r == nil {
		return noteRows{}, false
	}
	sig, ok := r.sigs[f.Path]
	n, found := r.notes[f.Path]
	if !ok || !found || sig.SHA256 != f.SHA256 || n.Signature != f.SHA256 {
		return noteRows{}, false
	}
	n.Size, n.Modified = f.Size, f.Modified.UTC()
	parent := r.chunks[f.Path]
	chunks := make([]format.Chunk, len(parent))
	if f.unread {
		copy(chunks, parent) // the texts come with readUnread, if needed
	} else {
		n.Content = reusedText(f.Content)
		for i, c := range parent {
			if c.Start < 0 || c.End < c.Start || int(c.End) > len(n.Content) {
				return noteRows{}, false // a table that disagrees with its file: parse instead
			}
			c.Text = n.Content[c.Start:c.End] // and no Context: Build.ChunkContext
			chunks[i] = c
		}
	}
	same := sig.Size == f.Size && sig.Modified.Equal(f.Modified)
	return noteRows{note: n, links: r.links[f.Path], chunks: chunks, warnings: r.warnings[f.Path], asParent: same}, true
}

// readUnread reads, on workers goroutines, the notes left unread for which
// need holds (an index into t.notes), and puts their text in place: the
// note's content and its chunks' texts. A note that is no longer the one
// the parent signed, or cannot be read, fails with errReadEveryNote: the
// run starts again reading every note, which reports it as it should.
func (t *tables) readUnread(ctx context.Context, workers int, need func(i int) bool) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	var read []int
	for i := range t.files {
		if !t.files[i].unread || !need(i) {
			continue
		}
		read = append(read, i)
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			f := &t.files[i]
			r := readOne(f.vaultFile, t.maxBytes)
			if r.Warning != nil || r.SHA256 != f.SHA256 {
				return fmt.Errorf("%w: %s is not the note the parent snapshot signed", errReadEveryNote, f.Path)
			}
			n := &t.notes[i]
			n.Content = reusedText(r.Content)
			for k := t.chunkStart[i]; k < t.chunkStart[i+1]; k++ {
				c := &t.chunks[k]
				if c.Start < 0 || c.End < c.Start || int(c.End) > len(n.Content) {
					return fmt.Errorf("%w: the parent's chunks of %s do not fit it", errReadEveryNote, f.Path)
				}
				c.Text = n.Content[c.Start:c.End]
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for _, i := range read {
		t.files[i].unread = false
	}
	return nil
}

// readUnreadIn fails with errReadEveryNote when a note of t.notes[from:to]
// is still unread. Segments are written concurrently, so it does not read
// them: the run starts again instead (a damaged parent file, the only way
// here, is rare).
func (t *tables) readUnreadIn(from, to int) error {
	for i := from; i < min(to, len(t.files)); i++ {
		if t.files[i].unread {
			return fmt.Errorf("%w: writing the notes segment of %s", errReadEveryNote, t.files[i].Path)
		}
	}
	return nil
}

// unreadCount counts the notes still unread.
func (t *tables) unreadCount() int {
	n := 0
	for i := range t.files {
		if t.files[i].unread {
			n++
		}
	}
	return n
}

// unreadNotes returns the ids of the notes still unread, nil when none.
func (t *tables) unreadNotes() map[string]bool {
	var out map[string]bool
	for i := range t.files {
		if t.files[i].unread {
			if out == nil {
				out = make(map[string]bool, len(t.files)-i)
			}
			out[t.notes[i].ID] = true
		}
	}
	return out
}

// reusedText is note.Text(content) for a note whose rows are reused:
// valid UTF-8 (nearly every note) becomes the note's text in place, with
// no copy, since nothing writes to a file's bytes once they are read (the
// copy was 52 MB of an edit at 10,000 notes); other text is note.Text's
// copy with its invalid bytes replaced.
func reusedText(content []byte) string {
	if len(content) > 0 && utf8.Valid(content) {
		return unsafe.String(&content[0], len(content))
	}
	return note.Text(content)
}

// parentSegments cuts the parent's notes rows into its notes segments, or
// returns nil when the manifest's segments do not add up to the rows.
func parentSegments(parent *snapshot.Snapshot, notes []noteMeta) []priorSegment {
	segs := parent.Manifest.Tables[format.NotesTable]
	out := make([]priorSegment, len(segs))
	start := 0
	for i, seg := range segs {
		if seg.Rows < 0 || start+seg.Rows > len(notes) {
			return nil
		}
		p := priorSegment{index: i, ids: make([]string, seg.Rows), stubs: make([]bool, seg.Rows)}
		for k, n := range notes[start : start+seg.Rows] {
			p.ids[k], p.stubs[k] = n.ID, n.Stub
		}
		out[i] = p
		start += seg.Rows
	}
	if start != len(notes) {
		return nil
	}
	return out
}
