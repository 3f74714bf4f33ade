package graphdb

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/vaultgraph/vaultgraph/format"
)

// column is one column of a staging file and of its table.
type column struct {
	name string // same in the Parquet file and the Kuzu table
	typ  string // Kuzu type
}

// parquetNode returns the Parquet type of a Kuzu column type. Strings are
// PLAIN-encoded: Kuzu 0.11.3 aborts on parquet-go's default
// DELTA_LENGTH_BYTE_ARRAY encoding (see format/doc.go). Every column is
// optional, so a null is a null and not a zero value.
func parquetNode(typ string) parquet.Node {
	if elem, ok := strings.CutSuffix(typ, "[]"); ok {
		return parquet.Optional(parquet.List(parquetNode(elem)))
	}
	switch typ {
	case "INT64":
		return parquet.Optional(parquet.Int(64))
	case "DOUBLE":
		return parquet.Optional(parquet.Leaf(parquet.DoubleType))
	case "BOOLEAN":
		return parquet.Optional(parquet.Leaf(parquet.BooleanType))
	case "DATE":
		return parquet.Optional(parquet.Date())
	case "TIMESTAMP":
		return parquet.Optional(parquet.Timestamp(parquet.Microsecond))
	}
	return parquet.Optional(parquet.Encoded(parquet.String(), &parquet.Plain))
}

// writeStaging writes rows (maps from column name to value) as a Parquet
// file with the given columns.
func writeStaging(path string, cols []column, rows []map[string]any) error {
	for _, r := range rows {
		for k, v := range r {
			r[k] = present(v)
		}
	}
	group := parquet.Group{}
	for _, c := range cols {
		group[c.name] = parquetNode(c.typ)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write staging file: %w", err)
	}
	w := parquet.NewGenericWriter[any](f, parquet.NewSchema("rows", group))
	batch := make([]any, 0, 1024)
	for i, r := range rows {
		batch = append(batch, r)
		if len(batch) == cap(batch) || i == len(rows)-1 {
			if _, err = w.Write(batch); err != nil {
				break
			}
			batch = batch[:0]
		}
	}
	if err == nil {
		err = w.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errors.Join(fmt.Errorf("write staging file %s: %w", path, err), os.Remove(path))
	}
	return nil
}

// noteColumns are the columns of the note table, in table order.
func (plan *schemaPlan) noteColumns() []column {
	var cols []column
	for _, b := range format.NoteBuiltins {
		cols = append(cols, column{b.Name, b.Type})
	}
	cols = append(cols, column{format.GraphKeysColumn, "STRING[]"})
	for _, c := range plan.noteProps {
		if !c.tail {
			cols = append(cols, column{c.column, c.typ})
		}
	}
	if hasTail(plan.noteProps) {
		cols = append(cols, tailColumns...)
	}
	return cols
}

// tailColumns hold the long tail of a table's property keys.
var tailColumns = []column{{format.GraphTailKeysColumn, "STRING[]"}, {format.GraphTailValuesColumn, "STRING[]"}}

// tailText is the text a tail column holds for a value (see format's
// Property columns).
func tailText(c *propColumn, p format.Property) (string, bool) {
	v := c.valueOf(p)
	if v == nil {
		return "", false
	}
	if items, ok := v.([]any); ok {
		elem := strings.TrimSuffix(c.typ, "[]")
		var b strings.Builder
		if elem == "STRING" {
			// Each item after the separator: the engine splits the text
			// again (its list casts keep the quotes of strings).
			for _, it := range items {
				s, ok := it.(string)
				if !ok {
					b.WriteString(format.GraphTailSeparator + format.GraphTailNullItem)
					continue
				}
				b.WriteString(format.GraphTailSeparator + "=")
				b.WriteString(strings.ReplaceAll(s, format.GraphTailSeparator, " "))
			}
			return b.String(), true
		}
		b.WriteByte('[')
		for i, it := range items {
			if i > 0 {
				b.WriteByte(',')
			}
			if it == nil {
				b.WriteString("NULL")
				continue
			}
			b.WriteString(scalarText(it, elem))
		}
		b.WriteByte(']')
		return b.String(), true
	}
	return scalarText(v, c.typ), true
}

// scalarText is the text of one value of a column of type typ.
func scalarText(v any, typ string) string {
	switch v := v.(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case time.Time:
		if typ == "DATE" {
			return v.Format(time.DateOnly)
		}
		return v.UTC().Format("2006-01-02 15:04:05.999999")
	case string:
		return v
	}
	return fmt.Sprint(v)
}

// tailRow adds the tail columns of a row; names and values are the
// row's tail properties in order.
func tailRow(row map[string]any, names, values []string) {
	if len(names) == 0 {
		return
	}
	vals := make([]any, 0, len(values)+1)
	vals = append(vals, nil)
	for _, v := range values {
		vals = append(vals, v)
	}
	row[format.GraphTailKeysColumn] = strList(names)
	row[format.GraphTailValuesColumn] = vals
}

// edgeColumns are the columns of one relationship table, in table order
// (after FROM and TO).
func (plan *schemaPlan) edgeColumns(rt *relTable) []column {
	var cols []column
	for _, b := range format.EdgeBuiltins {
		cols = append(cols, column{b.Name, b.Type})
	}
	cols = append(cols,
		column{format.GraphTypeColumn, "STRING"},
		column{format.GraphSourceColumn, "STRING"},
		column{format.GraphTargetColumn, "STRING"},
		column{format.GraphKeysColumn, "STRING[]"},
	)
	for _, c := range plan.edgeProps {
		if !c.tail && rt.hasKey(c.key) {
			cols = append(cols, column{c.column, c.typ})
		}
	}
	if hasTail(plan.edgeProps) {
		cols = append(cols, tailColumns...)
	}
	return cols
}

// noteRow is a note's row of the staging file. Stubs have no path, size or
// modification time: null, not an empty string or the zero time. The
// modification time has the precision of the notes table (milliseconds),
// so that a note's row is the same whether the indexer parsed the note or
// reused its row from the parent snapshot's table, and an updated database
// (update.go) holds what a rebuilt one would.
func (plan *schemaPlan) noteRow(n format.Note) map[string]any {
	row := map[string]any{
		"id": n.ID, "title": n.Title, "folder": n.Folder,
		"labels": strList(n.Labels), "stub": n.Stub,
	}
	// A note without tags (or aliases) has none: null, so that
	// n.tags IS NOT NULL finds the tagged notes, as in the Typed Graph
	// plugin.
	if len(n.Tags) > 0 {
		row["tags"] = strList(n.Tags)
	}
	if len(n.Aliases) > 0 {
		row["aliases"] = strList(n.Aliases)
	}
	if !n.Stub {
		row["path"], row["size"] = n.Path, n.Size
	}
	if m, ok := storedModified(n); ok {
		row["modified"] = m
	}
	// keys(n) lists what the note says, as the Typed Graph plugin does:
	// its properties in the order written (type first when written first),
	// then path and title, then tags and aliases when it has any. The
	// other built-ins (folder, stub, size, modified) are read by name.
	var keys, tailNames, tailValues []string
	seen := map[string]bool{}
	for _, p := range n.Properties {
		col := plan.noteByKey[p.Key]
		if col == nil || seen[p.Key] {
			continue
		}
		seen[p.Key] = true
		if col.tail {
			if text, ok := tailText(col, p); ok {
				tailNames, tailValues = append(tailNames, col.name), append(tailValues, text)
				keys = append(keys, col.name)
			}
			continue
		}
		if v := col.valueOf(p); v != nil {
			row[col.column] = v
			keys = append(keys, col.name)
		}
	}
	tailRow(row, tailNames, tailValues)
	if !n.Stub {
		keys = append(keys, "path")
	}
	keys = append(keys, "title")
	if len(n.Tags) > 0 {
		keys = append(keys, "tags")
	}
	if len(n.Aliases) > 0 {
		keys = append(keys, "aliases")
	}
	row[format.GraphKeysColumn] = strList(keys)
	return row
}

// graphModified is a note's modification time as the graph stores it.
func graphModified(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

// storedEdgeID is the id column of an edge's row: null when the id is the
// derived one of the edge's first row between its ends, which readers
// compute from vg_src, vg_type and vg_dst (see format's Edge ids). That is
// nearly every edge (all but 140 of the 68,760 of the generated
// 10,000-note vault), and storing the ids cost 12.6 of its graph's 43 MB.
func storedEdgeID(e format.Edge) any {
	if e.ID == format.EdgeID(e.Source, e.Type, e.Target, 0) {
		return nil
	}
	return e.ID
}

// edgeIDExpr is the Kuzu expression of the id of the relationship bound
// to v, stored or derived: what the query translator reads for id(r).
func edgeIDExpr(v string) string {
	return fmt.Sprintf("coalesce(%[1]s.id, %[1]s.%[2]s + '#' + %[1]s.%[3]s + '#' + %[1]s.%[4]s + '#0')",
		v, quote(format.GraphSourceColumn), quote(format.GraphTypeColumn), quote(format.GraphTargetColumn))
}

func (plan *schemaPlan) edgeRow(e format.Edge) map[string]any {
	row := map[string]any{
		"id": storedEdgeID(e), "sign": int64(e.Sign), "count": int64(e.Count), "line": int64(e.Line),
		"sentence": e.Sentence, "anchors": strList(e.Anchors), "origin": e.Origin, "unresolved": e.Unresolved,
		format.GraphTypeColumn: e.Type, format.GraphSourceColumn: e.Source, format.GraphTargetColumn: e.Target,
	}
	keys := []string{"sign", "count", "line", "sentence", "anchors", "origin", "unresolved"}
	if e.Heading != "" {
		row["heading"] = e.Heading
		keys = append(keys, "heading")
	}
	var tailNames, tailValues []string
	for _, p := range edgeProperties(e) {
		col := plan.edgeByKey[p.Key]
		if col.tail {
			if text, ok := tailText(col, p); ok {
				tailNames, tailValues = append(tailNames, col.name), append(tailValues, text)
				keys = append(keys, col.name)
			}
			continue
		}
		if v := col.valueOf(p); v != nil {
			row[col.column] = v
			keys = append(keys, col.name)
		}
	}
	tailRow(row, tailNames, tailValues)
	sort.Strings(keys)
	row[format.GraphKeysColumn] = strList(keys)
	return row
}

func strList(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// present marks a scalar as a value: parquet-go writes the zero value of an
// optional column (0, false, "") as null unless it is given a pointer.
func present(v any) any {
	switch v := v.(type) {
	case int64:
		return &v
	case float64:
		return &v
	case bool:
		return &v
	case string:
		return &v
	case time.Time:
		return &v
	}
	return v
}
