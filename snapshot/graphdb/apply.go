package graphdb

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/vaultgraph/vaultgraph/format"
)

// step is one statement of an update.
type step struct {
	what   string // for errors: "delete 3 links_to edges"
	stmt   string
	params map[string]any
	// want is the count(*) the statement must return (the rows it
	// deleted, created or set), or -1 for none (CHECKPOINT).
	want int64
}

// Variables of the update statements. Every column of a staging file is
// a variable too (LOAD FROM binds them by name): these names are neither
// built-in nor escaped column names, so they cannot clash.
const (
	varNote = "vg_n"
	varFrom = "vg_a"
	varRel  = "vg_r"
	varTo   = "vg_b"
)

// updateSteps writes the staging files of d into dir and returns the
// statements that apply it: delete the removed edges, then the removed
// notes; add the new notes, set the changed ones; add the new edges, set
// the changed ones. Every edge is deleted before the notes it hangs on
// and added after them.
//
// Rows are written to Parquet staging files exactly as Build writes them
// and read back by the engine's own reader, so an added or set row holds
// the very values a rebuilt database would. Rows are added with CREATE,
// not COPY: COPY checkpoints when it commits, and every checkpoint
// rewrites each relationship table it touches (see apply).
func (plan *schemaPlan) updateSteps(dir string, d *delta) ([]step, error) {
	var steps []step
	for _, table := range d.tables() {
		ed := d.edges[table]
		if plan.tableByName(table) == nil {
			// Cannot happen: the layouts were compared before.
			return nil, fmt.Errorf("the plan has no relationship table %s", table)
		}
		if len(ed.removed) == 0 {
			continue
		}
		steps = append(steps, step{
			what: fmt.Sprintf("delete %d edges of %s", len(ed.removed), table),
			stmt: fmt.Sprintf("MATCH ()-[%s:%s]->() WHERE %s IN $ids DELETE %s RETURN count(*)",
				varRel, quote(table), edgeIDExpr(varRel), varRel),
			params: map[string]any{"ids": stringList(ed.removed)}, want: int64(len(ed.removed)),
		})
	}
	if len(d.removedNotes) > 0 {
		steps = append(steps, step{
			what: fmt.Sprintf("delete %d notes", len(d.removedNotes)),
			stmt: fmt.Sprintf("MATCH (%s:%s) WHERE %s.id IN $ids DETACH DELETE %s RETURN count(*)",
				varNote, quote(format.GraphNoteTable), varNote, varNote),
			params: map[string]any{"ids": stringList(d.removedNotes)}, want: int64(len(d.removedNotes)),
		})
	}
	cols := plan.noteColumns()
	if len(d.addedNotes) > 0 {
		file := filepath.Join(dir, "added-notes.parquet")
		if err := writeStaging(file, cols, plan.noteRows(d.addedNotes)); err != nil {
			return nil, err
		}
		steps = append(steps, step{
			what: fmt.Sprintf("add %d notes", len(d.addedNotes)),
			stmt: fmt.Sprintf("LOAD FROM %s WITH * CREATE (%s:%s {%s}) RETURN count(*)",
				quoteString(file), varNote, quote(format.GraphNoteTable), propertyMap(cols)),
			want: int64(len(d.addedNotes)),
		})
	}
	if len(d.setNotes) > 0 {
		file := filepath.Join(dir, "set-notes.parquet")
		if err := writeStaging(file, cols, plan.noteRows(d.setNotes)); err != nil {
			return nil, err
		}
		steps = append(steps, step{
			what: fmt.Sprintf("set %d changed notes", len(d.setNotes)),
			stmt: fmt.Sprintf("LOAD FROM %s WITH * MATCH (%s:%s) WHERE %s.id = %s SET %s RETURN count(*)",
				quoteString(file), varNote, quote(format.GraphNoteTable), varNote, quote("id"), setFixedWidth(varNote, cols)),
			want: int64(len(d.setNotes)),
		})
	}
	for _, table := range d.tables() {
		s, err := plan.edgeSteps(dir, plan.tableByName(table), d.edges[table])
		if err != nil {
			return nil, err
		}
		steps = append(steps, s...)
	}
	return steps, nil
}

// edgeSteps adds the new edges of one table and sets the changed ones.
func (plan *schemaPlan) edgeSteps(dir string, rt *relTable, ed *edgeDelta) ([]step, error) {
	var steps []step
	cols := plan.edgeColumns(rt)
	if len(ed.added) > 0 {
		file := filepath.Join(dir, "added-"+rt.table+".parquet")
		if err := writeStaging(file, cols, plan.edgeRows(ed.added)); err != nil {
			return nil, err
		}
		// WITH * between the two patterns makes Kuzu look each end up on
		// its own; in one MATCH it plans a cross product of all notes.
		steps = append(steps, step{
			what: fmt.Sprintf("add %d edges to %s", len(ed.added), rt.table),
			stmt: fmt.Sprintf("LOAD FROM %s WITH * MATCH (%s:%s) WHERE %s.id = %s WITH * MATCH (%s:%s) WHERE %s.id = %s "+
				"CREATE (%s)-[%s:%s {%s}]->(%s) RETURN count(*)",
				quoteString(file), varFrom, quote(format.GraphNoteTable), varFrom, quote(format.GraphSourceColumn),
				varTo, quote(format.GraphNoteTable), varTo, quote(format.GraphTargetColumn),
				varFrom, varRel, quote(rt.table), propertyMap(cols), varTo),
			want: int64(len(ed.added)),
		})
	}
	if len(ed.set) > 0 {
		file := filepath.Join(dir, "set-"+rt.table+".parquet")
		if err := writeStaging(file, cols, plan.edgeRows(ed.set)); err != nil {
			return nil, err
		}
		steps = append(steps, step{
			what: fmt.Sprintf("set %d changed edges of %s", len(ed.set), rt.table),
			stmt: fmt.Sprintf("LOAD FROM %s WITH * MATCH (%s:%s) WHERE %s.id = %s WITH * MATCH (%s)-[%s:%s]->(%s:%s) "+
				"WHERE %s.id = %s AND %s = %s SET %s RETURN count(*)",
				quoteString(file), varFrom, quote(format.GraphNoteTable), varFrom, quote(format.GraphSourceColumn),
				varFrom, varRel, quote(rt.table), varTo, quote(format.GraphNoteTable),
				varTo, quote(format.GraphTargetColumn), edgeIDExpr(varRel), stagedEdgeIDExpr, setFixedWidth(varRel, cols)),
			want: int64(len(ed.set)),
		})
	}
	return steps, nil
}

// stagedEdgeIDExpr is edgeIDExpr of the row of a staging file that LOAD
// FROM binds: its columns are variables.
var stagedEdgeIDExpr = fmt.Sprintf("coalesce(%s, %s + '#' + %s + '#' + %s + '#0')",
	quote("id"), quote(format.GraphSourceColumn), quote(format.GraphTypeColumn), quote(format.GraphTargetColumn))

// propertyMap gives every column its value from the staging file's
// column of the same name.
func propertyMap(cols []column) string {
	props := make([]string, len(cols))
	for i, c := range cols {
		props[i] = quote(c.name) + ": " + quote(c.name)
	}
	return strings.Join(props, ", ")
}

// setFixedWidth assigns every fixed-width column from the staging file's
// column of the same name. The other columns of a set row are unchanged.
func setFixedWidth(v string, cols []column) string {
	var sets []string
	for _, c := range cols {
		if fixedWidth(c.typ) {
			sets = append(sets, v+"."+quote(c.name)+" = "+quote(c.name))
		}
	}
	return strings.Join(sets, ", ")
}

func (plan *schemaPlan) noteRows(notes []format.Note) []map[string]any {
	rows := make([]map[string]any, len(notes))
	for i, n := range notes {
		rows[i] = plan.noteRow(n)
	}
	return rows
}

func (plan *schemaPlan) edgeRows(edges []format.Edge) []map[string]any {
	rows := make([]map[string]any, len(edges))
	for i, e := range edges {
		rows[i] = plan.edgeRow(e)
	}
	return rows
}

// stringList is a list parameter of strings (go-kuzu binds []any).
func stringList(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// runStep runs one step, interrupting it when ctx is canceled, and checks
// the count it returns.
func runStep(ctx context.Context, conn *kuzu.Connection, s step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	stop := watch(ctx, conn)
	res, done, err := query(conn, s.stmt, s.params)
	stop()
	defer done()
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if err != nil {
		return fmt.Errorf("update graph: %s: %w", s.what, err)
	}
	if s.want < 0 {
		return nil
	}
	got, err := resultCount(res)
	if err != nil {
		return fmt.Errorf("update graph: %s: %w", s.what, err)
	}
	if got != s.want {
		return fmt.Errorf("update graph: %s: the engine reports %d rows", s.what, got)
	}
	return nil
}

// query runs a statement, through a prepared statement when it has
// parameters. done releases the result and the statement; call it once the
// result has been read, also after an error.
func query(conn *kuzu.Connection, stmt string, params map[string]any) (res *kuzu.QueryResult, done func(), err error) {
	var ps *kuzu.PreparedStatement
	done = func() {
		if res != nil {
			res.Close()
		}
		if ps != nil {
			ps.Close()
		}
	}
	if params == nil {
		res, err = conn.Query(stmt)
		return res, done, err
	}
	if ps, err = conn.Prepare(stmt); err != nil {
		return nil, done, err
	}
	res, err = conn.Execute(ps, params)
	return res, done, err
}
