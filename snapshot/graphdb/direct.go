package graphdb

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/vaultgraph/vaultgraph/format"
)

// Direct answers. A query of one of a few simple shapes (see directPlan)
// is answered from a copy of the database's notes and links held in Go
// memory, without the engine: finding a note by path in Kuzu scans every
// note (the table's key is id), and reading the titles of its neighbours
// scans the notes again for a hash join, a few milliseconds per query
// where the copy takes microseconds. The copy is read from the database
// itself, so it holds exactly the rows the engine would read.

// Modes of Options.Direct.
const (
	// DirectLazy (the default) reads the copy in the background after
	// the first query that could use it; queries use the engine until it
	// is ready.
	DirectLazy = iota
	// DirectOff never answers without the engine.
	DirectOff
	// DirectAtOpen reads the copy in Open, which then fails if it cannot.
	DirectAtOpen
)

// Bounds of the copy: a larger database answers every query in the engine.
const (
	maxDirectNotes = 1 << 20
	maxDirectEdges = 8 << 20
)

// directCols are the note columns the copy holds: the built-in scalars a
// simple query filters, returns or sorts by.
var directCols = []string{"id", "path", "title", "folder", "stub"}

// directGraph is the copy: notes by dense index (in the order of the
// engine's offsets), and each relationship table's edges by note.
type directGraph struct {
	// cols holds each of directCols' values by note; nil is null.
	cols   map[string][]any
	labels [][]string
	// byID, byPath and byTitle find notes by value.
	byID    map[string]int32
	byPath  map[string][]int32
	byTitle map[string][]int32
	// byLabel lists the notes that carry a label; labelRows counts the
	// label's entries in the notes' lists (a list may name it twice), and
	// labelOrder lists the labels in the order a scan meets them.
	byLabel    map[string][]int32
	labelRows  map[string]int
	labelOrder []string
	tables     map[string]*directTable
}

// directTable is one relationship table: out[i] and in[i] list the edges
// leaving and entering note i, in the order the engine walks them.
type directTable struct {
	out, in [][]directEdge
	// types names the vg_type values of the shared table's edges (one
	// entry, the table's own type, for a table of its own).
	types []string
}

type directEdge struct {
	note int32
	typ  int32 // index into directTable.types
}

// directState loads the copy once and hands it out.
type directState struct {
	mode    int
	once    sync.Once
	ready   chan struct{}
	graph   *directGraph // set before ready is closed; nil if it failed
	err     error        // why it failed
	loading sync.WaitGroup
}

// direct returns the copy when it is ready, starting its load (in the
// background) the first time it is asked for.
func (db *DB) direct() *directGraph {
	d := &db.directs
	if d.mode == DirectOff || db.beforeEngine != nil {
		return nil
	}
	d.once.Do(func() {
		db.mu.Lock()
		closed := db.closed
		if !closed {
			d.loading.Add(1)
		}
		db.mu.Unlock()
		if closed {
			close(d.ready)
			return
		}
		go func() {
			defer d.loading.Done()
			d.graph, d.err = db.loadDirect()
			close(d.ready)
		}()
	})
	select {
	case <-d.ready:
		return d.graph
	default:
		return nil
	}
}

// loadDirect reads the copy on a connection of its own, with one worker
// thread (so that rows come in the order of a plain scan).
func (db *DB) loadDirect() (*directGraph, error) {
	if db.graph.Notes > maxDirectNotes || db.graph.Edges > maxDirectEdges {
		return nil, fmt.Errorf("the graph is too large to copy: %d notes, %d edges", db.graph.Notes, db.graph.Edges)
	}
	conn, err := kuzu.OpenConnection(db.db)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("open graph connection: %w", err)
	}
	defer conn.Close()
	conn.SetMaxNumThreads(1)
	conn.SetTimeout(uint64(db.opts.Timeout.Milliseconds()))
	g, err := readDirect(conn, db.graph)
	if err != nil {
		return nil, fmt.Errorf("copy the graph for direct answers: %w", err)
	}
	return g, nil
}

func readDirect(conn *kuzu.Connection, fg *format.Graph) (*directGraph, error) {
	g := &directGraph{cols: map[string][]any{}, byID: map[string]int32{}, byPath: map[string][]int32{}, byTitle: map[string][]int32{}, byLabel: map[string][]int32{}, labelRows: map[string]int{}, tables: map[string]*directTable{}}
	var sel []string
	for _, c := range directCols {
		sel = append(sel, "n.`"+c+"`")
	}
	qr, err := conn.Query("MATCH (n:`" + fg.NoteTable + "`) RETURN offset(id(n)), n.labels, " + strings.Join(sel, ", ") + " ORDER BY offset(id(n))")
	if err != nil {
		return nil, err
	}
	defer qr.Close()
	// index maps an engine offset to the note's dense index.
	index := map[int64]int32{}
	for qr.HasNext() {
		t, err := qr.Next()
		if err != nil {
			return nil, err
		}
		v, err := t.GetAsSlice()
		t.Close()
		if err != nil {
			return nil, err
		}
		off, ok := v[0].(int64)
		if !ok || len(v) != 2+len(directCols) {
			return nil, fmt.Errorf("unexpected note row %v", v)
		}
		i := int32(len(g.labels))
		index[off] = i
		var labels []string
		if l, ok := v[1].([]any); ok {
			for _, x := range l {
				s, ok := x.(string)
				if !ok {
					return nil, fmt.Errorf("unexpected label %v", x)
				}
				if !slices.Contains(labels, s) {
					g.byLabel[s] = append(g.byLabel[s], i)
				}
				if g.labelRows[s] == 0 {
					g.labelOrder = append(g.labelOrder, s)
				}
				g.labelRows[s]++
				labels = append(labels, s)
			}
		} else if v[1] != nil {
			return nil, fmt.Errorf("unexpected labels %v", v[1])
		}
		g.labels = append(g.labels, labels)
		for j, c := range directCols {
			x := v[2+j]
			switch x.(type) {
			case nil, string, bool:
			default:
				return nil, fmt.Errorf("unexpected %s value %v", c, x)
			}
			g.cols[c] = append(g.cols[c], x)
		}
		if id, ok := v[2].(string); ok {
			g.byID[id] = i
		}
		if p, ok := v[3].(string); ok {
			g.byPath[p] = append(g.byPath[p], i)
		}
		if s, ok := v[4].(string); ok {
			g.byTitle[s] = append(g.byTitle[s], i)
		}
	}
	n := len(g.labels)
	seen := map[string]bool{}
	for _, et := range fg.EdgeTypes {
		if seen[et.Table] {
			continue
		}
		seen[et.Table] = true
		tab := &directTable{out: make([][]directEdge, n), in: make([][]directEdge, n)}
		// A table of its own holds one type; the copy checks that its
		// rows say so, and reads every row's type otherwise.
		shared := et.Table == format.GraphEdgeTable
		if !shared {
			one, err := oneType(conn, et.Table, et.Name)
			if err != nil {
				return nil, err
			}
			if one {
				tab.types = []string{et.Name}
			}
			shared = !one
		}
		for _, forward := range []bool{true, false} {
			if err := readEdges(conn, et.Table, shared, forward, index, tab); err != nil {
				return nil, err
			}
		}
		g.tables[et.Table] = tab
	}
	return g, nil
}

// oneType reports whether every edge of a table has the type name.
func oneType(conn *kuzu.Connection, table, name string) (bool, error) {
	qr, err := conn.Query("MATCH ()-[r:`" + table + "`]->() RETURN count(*), count(r.`" + format.GraphTypeColumn + "`), list_sort(collect(DISTINCT r.`" + format.GraphTypeColumn + "`))")
	if err != nil {
		return false, err
	}
	defer qr.Close()
	if !qr.HasNext() {
		return false, nil
	}
	t, err := qr.Next()
	if err != nil {
		return false, err
	}
	v, err := t.GetAsSlice()
	t.Close()
	if err != nil || len(v) != 3 {
		return false, err
	}
	types, _ := v[2].([]any)
	return v[0] == v[1] && (len(types) == 0 || (len(types) == 1 && types[0] == name)), nil
}

// readEdges reads the ends of a table's edges as two lists of offsets (one
// string each, which go-kuzu converts far faster than a row per edge),
// walking from the source (forward) or from the target.
func readEdges(conn *kuzu.Connection, table string, shared, forward bool, index map[int64]int32, tab *directTable) error {
	pattern := "(a)-[r:`" + table + "`]->(b)"
	if !forward {
		pattern = "(b)<-[r:`" + table + "`]-(a)"
	}
	q := "MATCH " + pattern + " RETURN list_to_string(' ', collect(offset(id(a)))), list_to_string(' ', collect(offset(id(b))))"
	if shared {
		q += ", collect(r.`" + format.GraphTypeColumn + "`)"
	}
	qr, err := conn.Query(q)
	if err != nil {
		return err
	}
	defer qr.Close()
	if !qr.HasNext() {
		return nil
	}
	t, err := qr.Next()
	if err != nil {
		return err
	}
	v, err := t.GetAsSlice()
	t.Close()
	if err != nil {
		return err
	}
	srcs, err := offsets(v[0], index)
	if err != nil {
		return err
	}
	dsts, err := offsets(v[1], index)
	if err != nil {
		return err
	}
	if len(srcs) != len(dsts) {
		return fmt.Errorf("%s: %d sources, %d targets", table, len(srcs), len(dsts))
	}
	types := make([]int32, len(srcs))
	if shared {
		list, _ := v[2].([]any)
		if len(list) != len(srcs) {
			return fmt.Errorf("%s: %d types for %d edges", table, len(list), len(srcs))
		}
		known := map[string]int32{}
		for i, x := range list {
			s, ok := x.(string)
			if !ok {
				return fmt.Errorf("%s: unexpected type %v", table, x)
			}
			k, ok := known[s]
			if !ok {
				k = int32(len(tab.types))
				known[s] = k
				tab.types = append(tab.types, s)
			}
			types[i] = k
		}
	}
	for i := range srcs {
		if forward {
			tab.out[srcs[i]] = append(tab.out[srcs[i]], directEdge{note: dsts[i], typ: types[i]})
		} else {
			tab.in[dsts[i]] = append(tab.in[dsts[i]], directEdge{note: srcs[i], typ: types[i]})
		}
	}
	return nil
}

// offsets parses a list_to_string of offsets into dense indexes.
func offsets(v any, index map[int64]int32) ([]int32, error) {
	s, ok := v.(string)
	if !ok {
		if v == nil {
			return nil, nil
		}
		return nil, fmt.Errorf("unexpected offsets %T", v)
	}
	fields := strings.Fields(s)
	out := make([]int32, len(fields))
	for i, f := range fields {
		off, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, err
		}
		j, ok := index[off]
		if !ok {
			return nil, fmt.Errorf("edge end %d is not a note", off)
		}
		out[i] = j
	}
	return out, nil
}

// waitDirect starts the copy's load and waits for it, for DirectAtOpen.
func (db *DB) waitDirect(ctx context.Context) error {
	db.direct()
	select {
	case <-db.directs.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	if db.directs.graph == nil && db.directs.err == nil {
		return ErrClosed
	}
	return db.directs.err
}
