package graphdb

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// delta is what an update changes in the parent's graph. Rows are told
// apart by id: a note's is the note table's primary key, and the indexer
// gives every edge an id of its own across all types.
//
// A row whose changed columns are all fixed-width (numbers, booleans,
// dates and times: a saved note's size and modification time, an edge's
// line) is SET in place. Any other changed row is replaced, removed and
// added again: Kuzu 0.11.3 corrupts string and list data of a table once
// a SET has rewritten some (see apply in update.go). A replaced note
// takes its relationships with it (DETACH DELETE), so every edge at it is
// replaced too; an edge whose ends changed is replaced, as a relationship
// cannot move.
type delta struct {
	removedNotes []string // ids
	addedNotes   []format.Note
	setNotes     []format.Note
	edges        map[string]*edgeDelta // by relationship table
	// replacedNotes and replacedEdges count rows of the parent that are
	// both removed and added, for the log.
	replacedNotes, replacedEdges int
	// parentRows counts the parent's rows read to compare, for the log.
	parentRows int
}

// edgeDelta is what changes in one relationship table.
type edgeDelta struct {
	removed []string // ids
	added   []format.Edge
	set     []format.Edge
}

// rows counts the rows the delta deletes, adds and sets.
func (d *delta) rows() int {
	n := len(d.removedNotes) + len(d.addedNotes) + len(d.setNotes)
	for _, ed := range d.edges {
		n += len(ed.removed) + len(ed.added) + len(ed.set)
	}
	return n
}

// cost is the work of applying the delta in rows: every row removed or
// added, and a tenth of every row set in place (see DefaultUpdateLimit).
func (d *delta) cost() float64 {
	moved, set := len(d.removedNotes)+len(d.addedNotes), len(d.setNotes)
	for _, ed := range d.edges {
		moved += len(ed.removed) + len(ed.added)
		set += len(ed.set)
	}
	return float64(moved) + float64(set)/10
}

// edgeCounts sums the edge changes over all types.
func (d *delta) edgeCounts() (removed, added, set int) {
	for _, ed := range d.edges {
		removed, added, set = removed+len(ed.removed), added+len(ed.added), set+len(ed.set)
	}
	return removed, added, set
}

// tables returns the relationship tables with changes, sorted.
func (d *delta) tables() []string {
	out := make([]string, 0, len(d.edges))
	for t := range d.edges {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func (d *delta) edgeDelta(table string) *edgeDelta {
	ed := d.edges[table]
	if ed == nil {
		ed = &edgeDelta{}
		d.edges[table] = ed
	}
	return ed
}

// diffRows compares the parent's rows with the new ones, both laid out
// by plan. Both edge lists must already be filtered to the edges whose
// ends are notes (the rows the databases hold). It fails when a type has
// two edges with one id, which the indexer does not write but which would
// make an edge ambiguous.
func (plan *schemaPlan) diffRows(oldNotes []format.Note, oldEdges []format.Edge, notes []format.Note, edges []format.Edge) (*delta, error) {
	d := &delta{edges: map[string]*edgeDelta{}}
	replaced := plan.diffNotes(d, oldNotes, notes)
	if err := plan.diffEdges(d, replaced, oldEdges, edges); err != nil {
		return nil, err
	}
	return d, nil
}

// diffNotes adds the notes' changes to d and returns the ids of the notes
// it replaces.
func (plan *schemaPlan) diffNotes(d *delta, oldNotes, notes []format.Note) map[string]bool {
	oldByID := make(map[string]*format.Note, len(oldNotes))
	for i := range oldNotes {
		oldByID[oldNotes[i].ID] = &oldNotes[i]
	}
	seen := make(map[string]bool, len(notes))
	replaced := map[string]bool{}
	for _, n := range notes {
		seen[n.ID] = true
		old, ok := oldByID[n.ID]
		switch {
		case !ok:
			d.addedNotes = append(d.addedNotes, n)
		case sameNote(*old, n):
		case fixedWidthChange(plan.noteColumns(), plan.noteRow(*old), plan.noteRow(n)):
			d.setNotes = append(d.setNotes, n)
		default:
			replaced[n.ID] = true
			d.replacedNotes++
			d.removedNotes = append(d.removedNotes, n.ID)
			d.addedNotes = append(d.addedNotes, n)
		}
	}
	for _, n := range oldNotes {
		if !seen[n.ID] {
			d.removedNotes = append(d.removedNotes, n.ID)
		}
	}
	return replaced
}

// diffEdges adds the edges' changes to d. An edge at a replaced note is
// replaced too: deleting the note deletes it.
func (plan *schemaPlan) diffEdges(d *delta, replaced map[string]bool, oldEdges, edges []format.Edge) error {
	oldAt, err := edgeIndex(oldEdges)
	if err != nil {
		return fmt.Errorf("parent snapshot: %w", err)
	}
	matched := make([]bool, len(oldEdges))
	added := map[string]bool{} // ids of new edges the parent lacks
	for _, e := range edges {
		i, ok := oldAt[e.ID]
		switch {
		case ok && oldEdges[i].Type != e.Type:
			return fmt.Errorf("edge id %q is a %s edge in the parent snapshot and a %s edge now", e.ID, oldEdges[i].Type, e.Type)
		case ok && matched[i], !ok && added[e.ID]:
			return fmt.Errorf("two %s edges have the id %q", e.Type, e.ID)
		case !ok:
			added[e.ID] = true
			ed := d.edgeDelta(plan.tableOf(e.Type))
			ed.added = append(ed.added, e)
			continue
		}
		matched[i] = true
		old := &oldEdges[i]
		if sameEdge(*old, e) && !replaced[e.Source] && !replaced[e.Target] {
			continue
		}
		rt := plan.typeByKey[e.Type].rel
		ed := d.edgeDelta(rt.table)
		if sameEnds(*old, e) && !replaced[e.Source] && !replaced[e.Target] &&
			fixedWidthChange(plan.edgeColumns(rt), plan.edgeRow(*old), plan.edgeRow(e)) {
			ed.set = append(ed.set, e)
			continue
		}
		d.replacedEdges++
		ed.removed = append(ed.removed, e.ID)
		ed.added = append(ed.added, e)
	}
	for i, e := range oldEdges {
		if !matched[i] {
			ed := d.edgeDelta(plan.tableOf(e.Type))
			ed.removed = append(ed.removed, e.ID)
		}
	}
	return nil
}

func sameEnds(a, b format.Edge) bool { return a.Source == b.Source && a.Target == b.Target }

// fixedWidthChange reports whether two rows of a table differ only in
// fixed-width columns, which an update may SET.
func fixedWidthChange(cols []column, a, b map[string]any) bool {
	for _, c := range cols {
		if !fixedWidth(c.typ) && !reflect.DeepEqual(a[c.name], b[c.name]) {
			return false
		}
	}
	return true
}

// fixedWidth reports whether a column type stores its values in place,
// without string or list data.
func fixedWidth(typ string) bool {
	switch typ {
	case "INT64", "DOUBLE", "BOOLEAN", "DATE", "TIMESTAMP":
		return true
	}
	return false
}

// edgeIndex maps edge ids to their index. The indexer gives every edge an
// id of its own (derived from its ends, type and ordinal, or pinned once
// by the author); a repeated id would make an edge ambiguous.
func edgeIndex(edges []format.Edge) (map[string]int, error) {
	m := make(map[string]int, len(edges))
	for i, e := range edges {
		if j, dup := m[e.ID]; dup {
			return nil, fmt.Errorf("a %s edge and a %s edge have the id %q", edges[j].Type, e.Type, e.ID)
		}
		m[e.ID] = i
	}
	return m, nil
}

// sameNote reports whether two notes have the same row in the graph, for
// every schema: it compares every field noteRow reads.
func sameNote(a, b format.Note) bool {
	ma, oka := storedModified(a)
	mb, okb := storedModified(b)
	return a.ID == b.ID && a.Path == b.Path && a.Title == b.Title && a.Folder == b.Folder && a.Stub == b.Stub &&
		a.Size == b.Size && oka == okb && ma.Equal(mb) &&
		slices.Equal(a.Labels, b.Labels) && slices.Equal(a.Tags, b.Tags) && slices.Equal(a.Aliases, b.Aliases) &&
		format.EqualProperties(a.Properties, b.Properties)
}

// storedModified is the modification time noteRow stores, if any. A stub's
// zero time does not survive the notes table (it reads back as a date in
// 1754), and is not stored.
func storedModified(n format.Note) (time.Time, bool) {
	if n.Stub || n.Modified.IsZero() {
		return time.Time{}, false
	}
	return graphModified(n.Modified), true
}

// sameEdge reports whether two edges have the same row in the graph: it
// compares every field edgeRow reads.
func sameEdge(a, b format.Edge) bool {
	return a.ID == b.ID && a.Source == b.Source && a.Target == b.Target && a.Type == b.Type && a.Sign == b.Sign &&
		a.Count == b.Count && a.Line == b.Line && a.Heading == b.Heading && a.Sentence == b.Sentence &&
		a.Origin == b.Origin && a.Unresolved == b.Unresolved &&
		slices.Equal(a.Anchors, b.Anchors) && format.EqualProperties(a.Properties, b.Properties)
}

// graphNote is the part of a notes table row that the graph holds: reading
// only these columns skips the notes' content.
type graphNote struct {
	ID         string            `parquet:"id"`
	Path       string            `parquet:"path,optional"`
	Title      string            `parquet:"title"`
	Folder     string            `parquet:"folder"`
	Labels     []string          `parquet:"labels,list"`
	Tags       []string          `parquet:"tags,list"`
	Aliases    []string          `parquet:"aliases,list"`
	Properties []format.Property `parquet:"properties,list"`
	Stub       bool              `parquet:"stub"`
	Size       int64             `parquet:"size"`
	Modified   time.Time         `parquet:"modified,optional,timestamp(millisecond)"`
}

func (r graphNote) note() format.Note {
	return format.Note{ID: r.ID, Path: r.Path, Title: r.Title, Folder: r.Folder, Labels: r.Labels, Tags: r.Tags,
		Aliases: r.Aliases, Properties: r.Properties, Stub: r.Stub, Size: r.Size, Modified: r.Modified}
}

// parentRows reads the rows the parent snapshot's graph was built from,
// every table at once: its notes and edges and, for a parent with code,
// the code nodes and edges as Build got them (CodeNodes).
func parentRows(parent *snapshot.Snapshot) ([]format.Note, []format.Edge, error) {
	var rows []graphNote
	var edges []format.Edge
	var code snapshot.CodeGraph
	var g errgroup.Group
	g.Go(func() (err error) {
		rows, err = snapshot.ReadSegments[graphNote](parent, format.NotesTable)
		return err
	})
	g.Go(func() (err error) {
		edges, err = parent.Edges()
		return err
	})
	g.Go(func() (err error) {
		code, err = parent.CodeGraph() // empty without repositories
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	notes := make([]format.Note, len(rows))
	for i, r := range rows {
		notes[i] = r.note()
	}
	notes = append(notes, CodeNodes(code.Files, code.Symbols, code.Edges)...)
	edges = append(edges, code.Edges...)
	return notes, edges, nil
}
