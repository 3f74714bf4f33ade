package graphdb

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sync/errgroup"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// changedRows are the rows an update compares when both snapshots list
// their table segments with keys (format/segments.go): a segment with a
// key of the other side holds the same rows on both sides, so only the
// rows of the other segments can differ. Every note and edge is in exactly
// one segment of each side (an edge in its source's), so comparing those
// rows gives the delta that comparing every row gives.
type changedRows struct {
	oldNotes, notes []format.Note
	oldEdges, edges []format.Edge
	// oldIDs are the ids of every note of the parent: those of its
	// changed segments and those of the segments it shares (keepConnected
	// needs both ends of an edge).
	oldIDs map[string]bool
	// same are the new edges in shared segments (sub-slices of the rows
	// given), which an update leaves alone unless a note at their end is
	// replaced (diffSegments).
	same [][]format.Edge
}

// segmentedDelta returns the rows of notes and edges (the new snapshot's
// rows in table order, then any code nodes and edges) that differ from
// the parent's, reading only the parent's segments that tables (the new
// snapshot's Tables section) does not share. It reports false when either
// side lists no segments, or the rows do not match the segments' counts:
// then every row is compared.
func segmentedDelta(parent *snapshot.Snapshot, tables map[string][]format.TableSegment, notes []format.Note,
	edges []format.Edge) (*changedRows, bool, error) {
	pt := parent.Manifest.Tables
	if tables == nil || pt == nil {
		return nil, false, nil
	}
	newNotes, notesTail, ok := split(tables[format.NotesTable], pt[format.NotesTable], len(notes))
	if !ok {
		return nil, false, nil
	}
	newEdges, edgesTail, ok := split(tables[format.EdgesTable], pt[format.EdgesTable], len(edges))
	if !ok {
		return nil, false, nil
	}
	c := &changedRows{oldIDs: map[string]bool{}}
	// The new rows of changed segments, and past the segments the code
	// rows, which are always compared.
	for _, r := range newNotes.changed {
		c.notes = append(c.notes, notes[r.start:r.end]...)
	}
	c.notes = append(c.notes, notes[notesTail:]...)
	for _, r := range newNotes.shared {
		for _, n := range notes[r.start:r.end] {
			c.oldIDs[n.ID] = true
		}
	}
	for _, r := range newEdges.changed {
		c.edges = append(c.edges, edges[r.start:r.end]...)
	}
	c.edges = append(c.edges, edges[edgesTail:]...)
	for _, r := range newEdges.shared {
		c.same = append(c.same, edges[r.start:r.end])
	}
	var (
		oldNotes []graphNote
		code     snapshot.CodeGraph
		g        errgroup.Group
	)
	g.Go(func() (err error) {
		oldNotes, err = readFiles[graphNote](parent, newNotes.parentFiles)
		return err
	})
	g.Go(func() (err error) {
		c.oldEdges, err = readFiles[format.Edge](parent, newEdges.parentFiles)
		return err
	})
	g.Go(func() (err error) {
		code, err = parent.CodeGraph() // empty without repositories
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, false, err
	}
	c.oldNotes = make([]format.Note, 0, len(oldNotes))
	for _, r := range oldNotes {
		c.oldNotes = append(c.oldNotes, r.note())
	}
	c.oldNotes = append(c.oldNotes, CodeNodes(code.Files, code.Symbols, code.Edges)...)
	c.oldEdges = append(c.oldEdges, code.Edges...)
	for _, n := range c.oldNotes {
		c.oldIDs[n.ID] = true
	}
	return c, true, nil
}

// segmentSplit is a table's segments on the new side sorted into those the
// parent has (same key) and those it does not, as row ranges of the new
// rows, and the parent's files of the segments the new side does not have.
type segmentSplit struct {
	changed, shared []rowRange
	parentFiles     []string
}

type rowRange struct{ start, end int }

// split sorts the segments of one table. rows is the number of new rows
// given, which may exceed the segments' (code rows follow the notes);
// tail is where the segments' rows end.
func split(segs, parentSegs []format.TableSegment, rows int) (s segmentSplit, tail int, ok bool) {
	if len(segs) == 0 || len(parentSegs) == 0 {
		return s, 0, false
	}
	parentKeys := make(map[string]bool, len(parentSegs))
	for _, p := range parentSegs {
		if p.Key == "" || p.Rows < 0 {
			return s, 0, false
		}
		parentKeys[p.Key] = true
	}
	newKeys := make(map[string]bool, len(segs))
	start := 0
	for _, seg := range segs {
		if seg.Key == "" || seg.Rows < 0 {
			return s, 0, false
		}
		newKeys[seg.Key] = true
		r := rowRange{start, start + seg.Rows}
		if parentKeys[seg.Key] {
			s.shared = append(s.shared, r)
		} else {
			s.changed = append(s.changed, r)
		}
		start = r.end
	}
	if start > rows {
		return s, 0, false
	}
	for _, p := range parentSegs {
		if !newKeys[p.Key] {
			s.parentFiles = append(s.parentFiles, p.File)
		}
	}
	return s, start, true
}

// readFiles reads the parent's table files, several at once, in order.
func readFiles[T any](parent *snapshot.Snapshot, files []string) ([]T, error) {
	parts := make([][]T, len(files))
	var g errgroup.Group
	for i, f := range files {
		g.Go(func() (err error) {
			parts[i], err = snapshot.ReadTable[T](filepath.Join(parent.Dir, f))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var rows []T
	for _, p := range parts {
		rows = append(rows, p...)
	}
	return rows, nil
}

// diffSegments is diffRows over the rows of changed segments. An edge of a
// shared segment is the same on both sides, and stays as it is, unless a
// note at one of its ends is replaced (deleting the note deletes the
// edge): such edges join both sides, to be replaced with it.
func (plan *schemaPlan) diffSegments(c *changedRows, newIDs map[string]bool) (*delta, error) {
	d := &delta{edges: map[string]*edgeDelta{}}
	replaced := plan.diffNotes(d, c.oldNotes, c.notes)
	oldKept := keepConnectedTo(c.oldIDs, c.oldEdges)
	kept := keepConnectedTo(newIDs, c.edges)
	if len(replaced) > 0 {
		for _, same := range c.same {
			for _, e := range same {
				if (replaced[e.Source] || replaced[e.Target]) && newIDs[e.Source] && newIDs[e.Target] {
					if !c.oldIDs[e.Source] || !c.oldIDs[e.Target] {
						return nil, fmt.Errorf("an edge of an unchanged segment, %s, has an end the parent lacks", e.ID)
					}
					oldKept = append(oldKept, e)
					kept = append(kept, e)
				}
			}
		}
	}
	if err := plan.diffEdges(d, replaced, oldKept, kept); err != nil {
		return nil, err
	}
	return d, nil
}

// keepConnectedTo is keepConnected for the edges whose ends are among ids.
// When every edge is kept (as the indexer's always are) it returns edges
// itself, capped so that an append copies: the callers only read it.
func keepConnectedTo(ids map[string]bool, edges []format.Edge) []format.Edge {
	for i := range edges {
		if e := &edges[i]; !ids[e.Source] || !ids[e.Target] {
			kept := make([]format.Edge, i, len(edges))
			copy(kept, edges[:i])
			for _, e := range edges[i+1:] {
				if ids[e.Source] && ids[e.Target] {
					kept = append(kept, e)
				}
			}
			return kept
		}
	}
	return edges[:len(edges):len(edges)]
}
