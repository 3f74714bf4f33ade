package indexer

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// segmented are the notes, links, edges and chunks tables cut into the
// segments of format/segments.go: part i of each table holds the rows of
// the notes in segment i.
type segmented struct {
	notes  [][]format.Note
	links  [][]format.Link
	edges  [][]format.Edge
	chunks [][]format.Chunk
}

// segment cuts t's tables into segments. Every table's rows keep their
// order within a segment, and since the tables list rows note by note, in
// the notes table's order, the segments in order are the tables.
func segment(t *tables) segmented {
	ids := make([]string, len(t.notes))
	for i := range t.notes {
		ids[i] = t.notes[i].ID
	}
	ends := format.SegmentEnds(ids)
	s := segmented{notes: make([][]format.Note, len(ends))}
	of := make(map[string]int, len(ids))
	start := 0
	for i, end := range ends {
		s.notes[i] = t.notes[start:end:end]
		for _, id := range ids[start:end] {
			of[id] = i
		}
		start = end
	}
	// A row whose note is not a row (the indexer writes none) goes to the
	// last segment rather than nowhere.
	last := len(ends) - 1
	s.links = bySegment(t.links, len(ends), func(l *format.Link) string { return l.Source }, of, last)
	s.edges = bySegment(t.edges, len(ends), func(e *format.Edge) string { return e.Source }, of, last)
	s.chunks = bySegment(t.chunks, len(ends), func(c *format.Chunk) string { return c.Note }, of, last)
	return s
}

// bySegment puts each row into the segment of its note (of; last for a note
// that is not a row), keeping the rows' order. The rows come note by note,
// so the segment is looked up once per run of one note's rows, and every
// segment is sized before it is filled. When the rows are in segment order
// (the tables' order), the segments are sub-slices of rows.
func bySegment[T any](rows []T, n int, note func(*T) string, of map[string]int, last int) [][]T {
	segOf := make([]int32, len(rows))
	counts := make([]int, n)
	prev, seg := "", last
	sorted := true
	for k := range rows {
		id := note(&rows[k])
		if k == 0 || id != prev {
			prev, seg = id, last
			if i, ok := of[id]; ok {
				seg = i
			}
		}
		segOf[k] = int32(seg)
		counts[seg]++
		sorted = sorted && (k == 0 || segOf[k-1] <= int32(seg))
	}
	out := make([][]T, n)
	if sorted {
		// The segments' rows are runs of rows, as the tables' order
		// makes them: each segment is its run, capped, not a copy.
		start := 0
		for i, c := range counts {
			if c > 0 {
				out[i] = rows[start : start+c : start+c]
			}
			start += c
		}
		return out
	}
	for i, c := range counts {
		if c > 0 {
			out[i] = make([]T, 0, c)
		}
	}
	for k := range rows {
		out[segOf[k]] = append(out[segOf[k]], rows[k])
	}
	return out
}

// writeSegments keys every segment of the four segmented tables and
// hard-links from the parent those whose rows are a segment of the
// parent's same table (equal keys), encoding nothing. It returns the
// manifest's Tables section, and the writes of the other segments, to be
// run (writes.run) once the caller is ready: the stages read the rows and
// the keys, not the files, so the writes go on while they run.
func writeSegments(w *snapshot.Writer, parent *snapshot.Snapshot, t *tables, log *slog.Logger) (map[string][]format.TableSegment, *writes, error) {
	if parent != nil && parent.Manifest.FormatVersion != format.Version {
		// Its files have another layout (a format 6 chunks segment has a
		// context column): every segment is keyed and written once in
		// this one (and needs the text of every note left unread).
		parent = nil
	}
	s := segment(t)
	out := map[string][]format.TableSegment{
		format.NotesTable:  make([]format.TableSegment, len(s.notes)),
		format.LinksTable:  make([]format.TableSegment, len(s.notes)),
		format.EdgesTable:  make([]format.TableSegment, len(s.notes)),
		format.ChunksTable: make([]format.TableSegment, len(s.notes)),
	}
	js := make([]int, len(s.notes))
	starts := make([]int, len(s.notes)+1)
	segOf := make([]int, 0, len(t.notes))
	for i := range s.notes {
		js[i] = parentOf(t, starts[i], s.notes[i])
		starts[i+1] = starts[i] + len(s.notes[i])
		for range s.notes[i] {
			segOf = append(segOf, i)
		}
	}
	// A notes segment whose key is hashed needs the text of its notes
	// left unread.
	hashed := make([]bool, len(s.notes))
	for i := range s.notes {
		_, ok := priorKey(parent, format.NotesTable, js[i], len(s.notes[i]))
		hashed[i] = !ok
	}
	err := t.readUnread(context.Background(), runtime.GOMAXPROCS(0), func(k int) bool { return hashed[segOf[k]] })
	if err != nil {
		return nil, nil, err
	}
	var mu sync.Mutex // w's links
	ws := &writes{}
	g := errgroup.Group{}
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range s.notes {
		j := js[i]
		// A notes segment written rather than linked needs every text.
		read := func() error { return t.readUnreadIn(starts[i], starts[i+1]) }
		g.Go(func() error {
			return keySegment(w, parent, log, &mu, ws, format.NotesTable, i, j, s.notes[i], out, read)
		})
		g.Go(func() error {
			return keySegment(w, parent, log, &mu, ws, format.LinksTable, i, j, s.links[i], out, nil)
		})
		g.Go(func() error {
			return keySegment(w, parent, log, &mu, ws, format.EdgesTable, i, -1, s.edges[i], out, nil)
		})
		g.Go(func() error {
			return keySegment(w, parent, log, &mu, ws, format.ChunksTable, i, j, s.chunks[i], out, nil)
		})
	}
	return out, ws, g.Wait()
}

// writes are table files still to write, with their names.
type writes struct {
	mu    sync.Mutex
	names []string
	fns   []func() error
}

func (ws *writes) add(name string, fn func() error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.names = append(ws.names, name)
	ws.fns = append(ws.fns, fn)
}

// run writes them on every core and returns their names.
func (ws *writes) run() ([]string, error) {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, fn := range ws.fns {
		g.Go(fn)
	}
	return ws.names, g.Wait()
}

// parentOf returns the index of the parent's notes segment that holds
// exactly the rows of notes (t.notes[start:], a segment of this run), or
// -1. It holds them when it lists the same ids in the same order, each a
// stub on both sides or a note whose rows are the parent's as they were
// (tables.asParent): a stub's row is a function of its id. Then the
// notes, links and chunks segments that hold those notes' rows are the
// parent's segments j, row for row, and have their keys: they need not
// be hashed. The edges are hashed whatever this says, since resolving
// links across the vault may change them.
func parentOf(t *tables, start int, notes []format.Note) int {
	if len(notes) == 0 || len(t.parentSegs) == 0 {
		return -1
	}
	for _, p := range t.parentSegs {
		if len(p.ids) != len(notes) || p.ids[0] != notes[0].ID {
			continue
		}
		for k, n := range notes {
			asParent := start+k < len(t.asParent) && t.asParent[start+k]
			if p.ids[k] != n.ID || p.stubs[k] != n.Stub || (!n.Stub && !asParent) {
				return -1
			}
		}
		return p.index
	}
	return -1
}

// keySegment keys segment i of table and links the parent's segment
// with the same key, or adds its write to ws, and records it in
// out[table][i] (its own element). When j >= 0 the rows are those of the
// parent's segment j of table (parentOf), whose key they take if the
// parent lists one for as many rows. The write calls ready first, when
// set, which fails when the rows are not all there (text left unread).
func keySegment[T any](w *snapshot.Writer, parent *snapshot.Snapshot, log *slog.Logger, mu *sync.Mutex, ws *writes, table string, i, j int,
	rows []T, out map[string][]format.TableSegment, ready func() error) error {
	seg := format.TableSegment{File: format.SegmentFile(table, i), Rows: len(rows)}
	if from, ok := priorKey(parent, table, j, len(rows)); ok {
		seg.Key = from
	} else {
		seg.Key = snapshot.SegmentKey(table, rows)
	}
	out[table][i] = seg
	if from, ok := parentSegment(parent, table, seg.Key); ok {
		mu.Lock()
		linked, err := w.LinkAs(parent, from, seg.File)
		mu.Unlock()
		if damaged := (*snapshot.DamagedError)(nil); errors.As(err, &damaged) {
			// This run has the rows: write them rather than link the damage.
			log.Warn("not linking a damaged file of the parent snapshot; writing it from this run's rows",
				"snapshot", damaged.Snapshot, "file", damaged.File, "reason", damaged.Reason)
			err, linked = nil, false
		}
		if err != nil || linked {
			return err
		}
	}
	ws.add(seg.File, func() error {
		if ready != nil {
			if err := ready(); err != nil {
				return err
			}
		}
		return snapshot.WriteTable(filepath.Join(w.Dir(), seg.File), rows)
	})
	return nil
}

// priorKey returns the key of the parent's segment j of table when it
// lists one for that many rows.
func priorKey(parent *snapshot.Snapshot, table string, j, rows int) (string, bool) {
	if parent == nil || j < 0 || j >= len(parent.Manifest.Tables[table]) {
		return "", false
	}
	seg := parent.Manifest.Tables[table][j]
	return seg.Key, seg.Rows == rows && seg.Key != ""
}

// parentSegment returns the file of the parent's segment of table whose
// rows have the key, if any.
func parentSegment(parent *snapshot.Snapshot, table, key string) (string, bool) {
	if parent == nil {
		return "", false
	}
	for _, seg := range parent.Manifest.Tables[table] {
		if seg.Key == key {
			if _, ok := parent.Manifest.Files[seg.File]; ok {
				return seg.File, true
			}
		}
	}
	return "", false
}
