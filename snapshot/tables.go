package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"golang.org/x/sync/errgroup"

	"github.com/vaultgraph/vaultgraph/format"
)

// tableCodec compresses table pages at zstd's SpeedBetterCompression
// level, which every Parquet reader that reads zstd reads (the level is
// the writer's choice; the frames are the same zstd). Its fastest level
// took a third less CPU on note text, but since tables are written in
// segments an edit compresses only the segments that changed, and the
// default level with 4 MiB pages (tablePageBytes) took the tables of the
// generated 10,000-note vault from 22.5 to 19.3 MB, the help vault's from
// 20.7 to 15.6 MB (chunks' hex hashes gain most). SpeedBetterCompression
// then takes the help vault's from 15.63 to 14.55 MB (nodes 8.96 to 8.27,
// chunks 3.96 to 3.80, edges 1.49 to 1.33, links 1.01 to 0.95) and the
// 10,000-note vault's from 18.61 to 17.84 MB, for 0.3-0.4 s more CPU over
// all of a full build's tables (0.85 to 1.2 s at the help vault, 16
// segments a table, spread over the writers) and a sixteenth of that for
// an edit's one segment a table. The codec only pools encoders.
var tableCodec = &zstd.Codec{Level: zstd.SpeedBetterCompression}

// tablePageBytes is the size of a column's page before compression: zstd
// finds repeats only within a page, and text repeats across notes. 4 MiB
// instead of parquet-go's 256 KiB keeps a segment's note text in one page.
const tablePageBytes = 4 << 20

// tableOptions are the writer's options for every table. Page statistics
// (each page header's minimum and maximum) go: a column chunk is one page
// or a few (tablePageBytes), the footer has the same bounds for it, and no
// reader of ours reads either. A note's content has no bounds in the
// footer either: they were two whole notes per segment, uncompressed,
// meaningless as a filter (together 0.49 of the help vault's 8.41 MB of
// notes segments; format 7).
var tableOptions = []parquet.WriterOption{
	parquet.Compression(tableCodec), parquet.PageBufferSize(tablePageBytes),
	parquet.DataPageStatistics(false), parquet.SkipPageBounds("content"),
}

// WriteTable writes rows as a zstd-compressed Parquet file at path. The
// caller's Writer.Publish makes it durable. It is safe to call concurrently
// for different paths.
func WriteTable[T any](path string, rows []T) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	w := parquet.NewGenericWriter[T](f, tableOptions...)
	_, err = w.Write(rows)
	if err == nil {
		err = w.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errors.Join(fmt.Errorf("write table %s: %w", filepath.Base(path), err), os.Remove(path))
	}
	return nil
}

// ReadTable reads every row of the Parquet file at path. T may name a subset
// of the file's columns; only those are decoded.
func ReadTable[T any](path string) ([]T, error) {
	rows, err := readTable[T](path)
	if err != nil {
		return nil, fmt.Errorf("read table %s: %w", filepath.Base(path), err)
	}
	return rows, nil
}

// ReadTableByColumn is ReadTable decoding column by column where T and
// the file allow (decodeByColumn): a column's strings are cut from one
// string per page instead of being allocated one by one, which takes
// less time and, for rows kept in memory, less heap.
func ReadTableByColumn[T any](path string) ([]T, error) {
	rows, err := readTableInto[T](path, nil, true)
	if err != nil {
		return nil, fmt.Errorf("read table %s: %w", filepath.Base(path), err)
	}
	return rows, nil
}

// readBatch is the number of rows readTable decodes at a time. The
// reader keeps one buffer of values per row of a batch and reuses it for
// the next: parquet.ReadFile asks for every row at once, so each row's
// buffer grew from nothing, and growing them was a fifth of decoding a
// table.
const readBatch = 256

func readTable[T any](path string) ([]T, error) {
	return readTableInto[T](path, nil, false)
}

// errOtherRows is readTableInto's error for a file that holds another
// number of rows than the slice it was given.
var errOtherRows = errors.New("the file holds another number of rows")

// readTableInto is readTable decoding into into, which must have exactly
// as many rows as the file (else it fails with errOtherRows); with into
// nil it allocates them. With byColumn it decodes column by column
// (decodeByColumn) when T and the file allow.
func readTableInto[T any](path string, into []T, byColumn bool) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, err
	}
	rows := into
	if into == nil {
		rows = make([]T, pf.NumRows())
	} else if int64(len(into)) != pf.NumRows() {
		return nil, errOtherRows
	}
	if byColumn {
		if ok, err := decodeByColumn(pf, rows); ok || err != nil {
			return rows, err
		}
	}
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	n := 0
	for n < len(rows) {
		k, err := r.Read(rows[n:min(n+readBatch, len(rows))])
		n += k
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if k == 0 {
			return nil, fmt.Errorf("%d of %d rows read, then none", n, len(rows))
		}
	}
	if into != nil && n != len(into) {
		return nil, errOtherRows
	}
	return rows[:n], nil
}

// Segments returns the segments of one of the segmented tables
// (format.NotesTable, ...) in order, as the manifest's Tables section lists
// them. A manifest without that section (written by hand, or by a test)
// has one segment, the table's own file.
func (s *Snapshot) Segments(table string) []format.TableSegment {
	if segs, ok := s.Manifest.Tables[table]; ok {
		return segs
	}
	return []format.TableSegment{{File: format.SegmentFile(table, 0), Rows: -1}}
}

// ReadSegments reads every row of a segmented table: its segments, several
// at once, concatenated in order. T may name a subset of the columns.
func ReadSegments[T any](s *Snapshot, table string) ([]T, error) {
	return ReadSegmentsContext[T](context.Background(), s, table)
}

// ReadSegmentsContext is ReadSegments, stopping between segments once ctx
// is done (with its error).
func ReadSegmentsContext[T any](ctx context.Context, s *Snapshot, table string) ([]T, error) {
	return readSegments[T](ctx, s, table, false)
}

// ReadSegmentsByColumn is ReadSegmentsContext decoding column by column
// where it can: several times faster for the links, notes and chunks
// tables, whose rows an edit reads whole. The strings of a column share
// one allocation per page, so that keeping one row's string keeps its
// page's: for a caller that keeps (nearly) every row, as an edit's reuse
// of the parent's rows does.
func ReadSegmentsByColumn[T any](ctx context.Context, s *Snapshot, table string) ([]T, error) {
	return readSegments[T](ctx, s, table, true)
}

func readSegments[T any](ctx context.Context, s *Snapshot, table string, byColumn bool) ([]T, error) {
	segs := s.Segments(table)
	if rows, ok, err := readSegmentsInPlace[T](ctx, s, segs, byColumn); ok || err != nil {
		return rows, err
	}
	parts := make([][]T, len(segs))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, seg := range segs {
		g.Go(func() (err error) {
			if err := ctx.Err(); err != nil {
				return err
			}
			path := filepath.Join(s.Dir, seg.File)
			if parts[i], err = readTableInto[T](path, nil, byColumn); err != nil {
				return fmt.Errorf("read table %s: %w", filepath.Base(path), err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return slices.Concat(parts...), nil
}

// readSegmentsInPlace is ReadSegmentsContext when the manifest counts the
// rows of every segment: each segment is decoded into its place in one
// slice, instead of into one of its own that is then copied (the copy was
// a sixth of decoding the parent's links at 10,000 notes). It reports
// false when a count is missing or a file holds another number of rows,
// for the caller to read the segments as they are.
func readSegmentsInPlace[T any](ctx context.Context, s *Snapshot, segs []format.TableSegment, byColumn bool) ([]T, bool, error) {
	if len(segs) < 2 {
		return nil, false, nil
	}
	total := 0
	for _, seg := range segs {
		if seg.Rows < 0 {
			return nil, false, nil
		}
		total += seg.Rows
	}
	rows := make([]T, total)
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	start := 0
	for _, seg := range segs {
		part := rows[start : start+seg.Rows : start+seg.Rows]
		start += seg.Rows
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			path := filepath.Join(s.Dir, seg.File)
			if _, err := readTableInto(path, part, byColumn); err != nil {
				if errors.Is(err, errOtherRows) {
					return err
				}
				return fmt.Errorf("read table %s: %w", filepath.Base(path), err)
			}
			return nil
		})
	}
	switch err := g.Wait(); {
	case errors.Is(err, errOtherRows):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	return rows, true, nil
}

// Notes returns the snapshot's notes and stubs.
func (s *Snapshot) Notes() ([]format.Note, error) {
	return ReadSegments[format.Note](s, format.NotesTable)
}

// Links returns every link as written in the snapshot's notes.
func (s *Snapshot) Links() ([]format.Link, error) {
	return ReadSegments[format.Link](s, format.LinksTable)
}

// Edges returns the snapshot's resolved edges.
func (s *Snapshot) Edges() ([]format.Edge, error) {
	return ReadSegments[format.Edge](s, format.EdgesTable)
}

// Chunks returns the snapshot's chunks, each with its text cut from its
// note's content.
func (s *Snapshot) Chunks() ([]format.Chunk, error) {
	chunks, err := ReadSegments[format.Chunk](s, format.ChunksTable)
	if err != nil {
		return nil, err
	}
	contents, err := s.NoteContents()
	if err != nil {
		return nil, err
	}
	for i := range chunks {
		c := &chunks[i]
		if c.Text, err = ChunkText(contents, c.Note, c.Start, c.End); err != nil {
			return nil, err
		}
	}
	return chunks, nil
}

// noteContent is what chunk texts are cut from: a note's id and content.
type noteContent struct {
	ID      string `parquet:"id"`
	Content string `parquet:"content"`
}

// NoteContents returns the content of every note (and stub, empty) by id,
// reading only those two columns of nodes.parquet: what chunk texts are
// cut from (ChunkText).
func (s *Snapshot) NoteContents() (map[string]string, error) {
	rows, err := ReadSegments[noteContent](s, format.NotesTable)
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(rows))
	for _, r := range rows {
		m[r.ID] = r.Content
	}
	return m, nil
}

// ChunkText returns a chunk's text: bytes start to end of its note's
// content (format.Chunk.Text), sharing the content's memory. A chunk whose
// note is not a row or whose range is not inside its content is an error
// naming it: the snapshot is damaged.
func ChunkText(contents map[string]string, note string, start, end int32) (string, error) {
	content, ok := contents[note]
	if !ok {
		return "", fmt.Errorf("%s: a chunk of %q, which is not a row of %s", format.ChunksFile, note, format.NotesFile)
	}
	if start < 0 || start > end || int(end) > len(content) {
		return "", fmt.Errorf("%s: a chunk of %q has bytes %d..%d, outside the note's %d bytes", format.ChunksFile, note, start, end, len(content))
	}
	return content[start:end], nil
}

// CodeGraph is the code half of a snapshot as its tables hold it
// (format/code.go): the files and symbols of its repositories and the
// edges among them and from notes to them.
type CodeGraph struct {
	Files   []format.CodeFile
	Symbols []format.Symbol
	Edges   []format.Edge
}

// CodeGraph reads the snapshot's code files, symbols and code edges, the
// three tables at once. A snapshot indexed without repositories has no
// code tables; its CodeGraph is empty.
func (s *Snapshot) CodeGraph() (CodeGraph, error) {
	var c CodeGraph
	if len(s.Manifest.Repos) == 0 {
		return c, nil
	}
	var g errgroup.Group
	g.Go(func() (err error) {
		c.Files, err = ReadTable[format.CodeFile](filepath.Join(s.Dir, format.CodeFilesFile))
		return err
	})
	g.Go(func() (err error) {
		c.Symbols, err = ReadTable[format.Symbol](filepath.Join(s.Dir, format.SymbolsFile))
		return err
	})
	g.Go(func() (err error) {
		c.Edges, err = ReadTable[format.Edge](filepath.Join(s.Dir, format.CodeEdgesFile))
		return err
	})
	return c, g.Wait()
}
