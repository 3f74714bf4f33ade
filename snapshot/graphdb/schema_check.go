package graphdb

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/vaultgraph/vaultgraph/format"
)

// sameLayout reports how a parent's graph section differs from the one
// planned for the new rows in anything that shapes the database: the
// engine and layout, the tables, and every column's vault name, key,
// escaped name, type and conflict. Counts, label statistics and the kinds
// seen may differ: they are metadata, recomputed from the new rows.
func sameLayout(parent, plan *format.Graph) error {
	switch {
	case parent.Version != plan.Version:
		return fmt.Errorf("graph layout %d, now %d", parent.Version, plan.Version)
	case parent.Engine != plan.Engine || parent.EngineVersion != plan.EngineVersion:
		return fmt.Errorf("engine %s %s, now %s %s", parent.Engine, parent.EngineVersion, plan.Engine, plan.EngineVersion)
	case parent.File != plan.File || parent.NoteTable != plan.NoteTable:
		return fmt.Errorf("database %s with note table %s, now %s with %s", parent.File, parent.NoteTable, plan.File, plan.NoteTable)
	}
	if err := sameProperties("note", parent.NoteProperties, plan.NoteProperties); err != nil {
		return err
	}
	if err := sameProperties("edge", parent.EdgeProperties, plan.EdgeProperties); err != nil {
		return err
	}
	a, b := relTables(parent), relTables(plan)
	if ka, kb := slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b)); !slices.Equal(ka, kb) {
		return fmt.Errorf("relationship tables %s, now %s", listNames(ka), listNames(kb))
	}
	for table, ta := range a {
		tb := b[table]
		if ta.owner != tb.owner || !slices.Equal(ta.properties, tb.properties) {
			return fmt.Errorf("relationship table %s: of type %q with properties %s, now of %q with %s",
				table, ta.owner, listNames(ta.properties), tb.owner, listNames(tb.properties))
		}
	}
	return nil
}

// relTableLayout is what shapes one relationship table: the type that
// owns it (none for the shared table) and its property columns.
type relTableLayout struct {
	owner      string
	properties []string // sorted
}

// relTables derives the relationship tables of a graph from its edge
// types. Types of the long tail may come and go between a parent and an
// update: they share one table, whose columns are what must stay.
func relTables(g *format.Graph) map[string]relTableLayout {
	props := map[string]map[string]bool{}
	out := map[string]relTableLayout{}
	for _, t := range g.EdgeTypes {
		if props[t.Table] == nil {
			props[t.Table] = map[string]bool{}
		}
		for _, p := range t.Properties {
			props[t.Table][p] = true
		}
		l := out[t.Table]
		if t.Table != format.GraphEdgeTable {
			l.owner = t.Name
		}
		out[t.Table] = l
	}
	for table, l := range out {
		l.properties = slices.Sorted(maps.Keys(props[table]))
		out[table] = l
	}
	return out
}

// ownColumns lists the property keys of a graph, of notes and of edges,
// that have a column of their own.
func ownColumns(g *format.Graph) map[string]bool {
	own := map[string]bool{}
	for _, p := range append(slices.Clone(g.NoteProperties), g.EdgeProperties...) {
		if !p.Tail {
			own[propertyKey(p)] = true
		}
	}
	return own
}

// ownTables lists the edge types of a graph that have a table of their
// own.
func ownTables(g *format.Graph) map[string]bool {
	own := map[string]bool{}
	for _, t := range g.EdgeTypes {
		if t.Table != format.GraphEdgeTable {
			own[t.Name] = true
		}
	}
	return own
}

func sameProperties(what string, parent, plan []format.GraphProperty) error {
	keys := func(ps []format.GraphProperty) []string {
		var out []string
		for _, p := range ps {
			out = append(out, propertyKey(p))
		}
		return out
	}
	if a, b := keys(parent), keys(plan); !slices.Equal(a, b) {
		return fmt.Errorf("%s property keys %s, now %s", what, listNames(a), listNames(b))
	}
	for i, a := range parent {
		b := plan[i]
		if a.Name != b.Name || a.Column != b.Column || a.Type != b.Type || a.Conflict != b.Conflict || a.Tail != b.Tail {
			return fmt.Errorf("%s property %q: %s %s conflict=%v tail=%v, now %s %s conflict=%v tail=%v",
				what, propertyKey(a), a.Column, a.Type, a.Conflict, a.Tail, b.Column, b.Type, b.Conflict, b.Tail)
		}
	}
	return nil
}

func propertyKey(p format.GraphProperty) string {
	if p.Key != "" {
		return p.Key
	}
	return p.Name
}

func listNames(names []string) string { return "[" + strings.Join(names, ", ") + "]" }

// checkTables compares the tables and columns of an open database with the
// plan, so that an update never writes into a file whose layout is not the
// one the manifest will describe.
func (plan *schemaPlan) checkTables(conn *kuzu.Connection) error {
	want := map[string][]column{format.GraphNoteTable: plan.noteColumns()}
	for _, rt := range plan.tables {
		want[rt.table] = plan.edgeColumns(rt)
	}
	rows, err := queryRows(conn, "CALL show_tables() RETURN name")
	if err != nil {
		return fmt.Errorf("list tables: %w", err)
	}
	if len(rows) != len(want) {
		return fmt.Errorf("the database has %d tables, the plan %d", len(rows), len(want))
	}
	for _, r := range rows {
		name, _ := r[0].(string)
		cols, ok := want[name]
		if !ok {
			return fmt.Errorf("the database has a table %s the plan does not", name)
		}
		got, err := queryRows(conn, "CALL table_info("+quoteString(name)+") RETURN name, type")
		if err != nil {
			return fmt.Errorf("table %s: %w", name, err)
		}
		if len(got) != len(cols) {
			return fmt.Errorf("table %s has %d columns, the plan %d", name, len(got), len(cols))
		}
		for i, c := range cols {
			if got[i][0] != c.name || got[i][1] != engineTypeName(c.typ) {
				return fmt.Errorf("table %s column %d is %v %v, the plan's %s %s", name, i, got[i][0], got[i][1], c.name, c.typ)
			}
		}
	}
	return nil
}

// engineTypeName is the name table_info gives a column type.
func engineTypeName(typ string) string {
	if elem, ok := strings.CutSuffix(typ, "[]"); ok {
		return engineTypeName(elem) + "[]"
	}
	if typ == "BOOLEAN" {
		return "BOOL"
	}
	return typ
}

// queryRows runs a query without parameters and returns every row.
func queryRows(conn *kuzu.Connection, q string) ([][]any, error) {
	res, err := conn.Query(q)
	if res != nil {
		defer res.Close()
	}
	if err != nil {
		return nil, err
	}
	var rows [][]any
	for res.HasNext() {
		t, err := res.Next()
		if err != nil {
			return nil, err
		}
		row, err := t.GetAsSlice()
		t.Close()
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}
