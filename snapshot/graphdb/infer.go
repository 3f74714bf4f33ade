package graphdb

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// propColumn is the inferred column of one property key.
type propColumn struct {
	key    string
	name   string // vault-level name (key, or _key when shadowed)
	column string
	typ    string // Kuzu type
	kinds  map[string]bool
	// elemKinds are the kinds of list items, for list columns.
	elemKinds map[string]bool
	conflict  bool
	count     int
	// tail is set for a key without a column of its own: its values are
	// text in the table's tail columns (format.GraphTailKeysColumn).
	tail bool
}

func (c *propColumn) manifest() format.GraphProperty {
	p := format.GraphProperty{Name: c.name, Column: c.column, Type: c.typ, Conflict: c.conflict, Tail: c.tail, Count: c.count, Kinds: []string{}}
	if c.tail {
		p.Column = ""
	}
	if c.key != c.name {
		p.Key = c.key
	}
	for k := range c.kinds {
		p.Kinds = append(p.Kinds, k)
	}
	sort.Strings(p.Kinds)
	return p
}

// observe records one value of the key.
func (c *propColumn) observe(p format.Property) {
	kind := effectiveKind(p)
	if kind == format.KindNull {
		return
	}
	c.count++
	c.kinds[kind] = true
	if kind == format.KindList {
		for _, item := range listItems(p.JSON()) {
			c.elemKinds[itemKind(item)] = true
		}
	}
}

// effectiveKind is the property's kind, except that a date or datetime
// that does not parse counts as a string, so that it cannot make a column
// typed DATE or TIMESTAMP hold a value it cannot represent.
func effectiveKind(p format.Property) string {
	switch p.Kind {
	case format.KindDate, format.KindDateTime:
		if _, ok := parseTemporal(p); !ok {
			return format.KindString
		}
	case "":
		return format.KindString
	}
	return p.Kind
}

func parseTemporal(p format.Property) (time.Time, bool) {
	var s string
	if err := json.Unmarshal([]byte(p.JSON()), &s); err != nil {
		return time.Time{}, false
	}
	if p.Kind == format.KindDate {
		t, err := time.Parse(time.DateOnly, s)
		return t, err == nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t, err = time.Parse("2006-01-02T15:04:05", s)
	}
	return t.UTC(), err == nil
}

// listItems decodes a JSON array keeping numbers as json.Number, so that
// 1 and 1.5 stay an integer and a float.
func listItems(value string) []any {
	dec := json.NewDecoder(bytes.NewReader([]byte(value)))
	dec.UseNumber()
	var items []any
	if err := dec.Decode(&items); err != nil {
		return nil
	}
	return items
}

func itemKind(v any) string {
	switch v := v.(type) {
	case nil:
		return format.KindNull
	case string:
		return format.KindString
	case bool:
		return format.KindBool
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return format.KindInt
		}
		return format.KindFloat
	case []any:
		return format.KindList
	}
	return format.KindMap
}

// resolve decides the column type from the kinds seen, by the rules in
// format/graph.go.
func (c *propColumn) resolve() {
	kinds := without(c.kinds, format.KindNull)
	elems := without(c.elemKinds, format.KindNull)
	switch {
	case len(kinds) == 2 && kinds[format.KindList] && kinds[format.KindString] &&
		(len(elems) == 0 || len(elems) == 1 && elems[format.KindString]):
		// A string beside lists of strings is a list of one.
		c.typ = "STRING[]"
	case len(kinds) == 1 && kinds[format.KindList]:
		elem, ok := scalarType(without(c.elemKinds, format.KindNull))
		if !ok {
			elem, c.conflict = "STRING", true
		}
		c.typ = elem + "[]"
	default:
		typ, ok := scalarType(kinds)
		if !ok {
			typ, c.conflict = "STRING", true
		}
		c.typ = typ
	}
}

func without(m map[string]bool, drop string) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		if k != drop {
			out[k] = true
		}
	}
	return out
}

// scalarType maps a set of kinds to one column type; ok is false when the
// kinds cannot share one.
func scalarType(kinds map[string]bool) (string, bool) {
	has := func(ks ...string) bool {
		if len(kinds) != len(ks) {
			return false
		}
		for _, k := range ks {
			if !kinds[k] {
				return false
			}
		}
		return true
	}
	switch {
	case len(kinds) == 0:
		return "STRING", true
	case has(format.KindInt):
		return "INT64", true
	case has(format.KindFloat), has(format.KindInt, format.KindFloat):
		return "DOUBLE", true
	case has(format.KindBool):
		return "BOOLEAN", true
	case has(format.KindDate):
		return "DATE", true
	case has(format.KindDateTime), has(format.KindDate, format.KindDateTime):
		return "TIMESTAMP", true
	case has(format.KindString), has(format.KindMap):
		return "STRING", true
	}
	return "", false
}

// schemaPlan is the inferred layout of the database.
type schemaPlan struct {
	noteProps []*propColumn          // sorted by key
	noteByKey map[string]*propColumn //
	edgeProps []*propColumn
	edgeByKey map[string]*propColumn
	// types maps edge types to their tables and property keys, sorted
	// by name.
	types     []*edgeType
	typeByKey map[string]*edgeType
	// tables are the relationship tables, sorted by name.
	tables []*relTable
	labels []format.GraphLabel
}

// edgeType is one edge type and its edges.
type edgeType struct {
	name string
	rel  *relTable
	keys map[string]bool
	// edges point into the rows planSchema was given, which outlive the
	// plan: a pointer each instead of a copy of every edge.
	edges []*format.Edge
}

// relTable is one relationship table: an edge type's own, or the shared
// table (format.GraphEdgeTable) of the long tail.
type relTable struct {
	table string
	types []*edgeType // sorted by name
}

// tableOf returns the relationship table that holds, or held, edges of
// a type: the type's own table, or the shared one for a type the plan
// gives none (a type of the long tail, or one whose last edge is gone; an
// update's layout check makes sure such a type had no table of its own).
func (plan *schemaPlan) tableOf(typ string) string {
	if et := plan.typeByKey[typ]; et != nil {
		return et.rel.table
	}
	return format.GraphEdgeTable
}

// tableByName returns the plan's relationship table of that name, or nil.
func (plan *schemaPlan) tableByName(name string) *relTable {
	for _, rt := range plan.tables {
		if rt.table == name {
			return rt
		}
	}
	return nil
}

// shared reports whether the table is the long tail's.
func (rt *relTable) shared() bool { return rt.table == format.GraphEdgeTable }

// edges counts the table's rows.
func (rt *relTable) edges() int {
	n := 0
	for _, et := range rt.types {
		n += len(et.edges)
	}
	return n
}

// hasKey reports whether an edge the table holds has the property key.
func (rt *relTable) hasKey(key string) bool {
	for _, et := range rt.types {
		if et.keys[key] {
			return true
		}
	}
	return false
}

// tableChoice decides which edge types get a table of their own: at most
// limit (format.DefaultTypedEdgeTables when 0, never fewer than the two
// that always exist), links_to and embeds first, then the types in keep
// (an updated database keeps the parent's tables), then by number of
// edges and name.
type tableChoice struct {
	limit int
	// minEdges is the number of edges a type needs for a table of its
	// own (links_to and embeds need none). A type of keep is held to it
	// too, so that an updated database has the tables a rebuilt one
	// would: a type that crosses it changes the layout, which rebuilds.
	minEdges int
	keep     map[string]bool
	// columns bounds the note property keys, and the edge property keys,
	// with a column of their own (format.DefaultPropertyColumns when 0):
	// the keys in keepColumns first, then by number of values and key.
	columns     int
	keepColumns map[string]bool
}

// tails marks the keys beyond the column bound as the long tail.
func (choice tableChoice) tails(cols []*propColumn) {
	limit := choice.columns
	if limit <= 0 {
		limit = format.DefaultPropertyColumns
	}
	if len(cols) <= limit {
		return
	}
	order := append([]*propColumn(nil), cols...)
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if ka, kb := choice.keepColumns[a.key], choice.keepColumns[b.key]; ka != kb {
			return ka
		}
		if a.count != b.count {
			return a.count > b.count
		}
		return a.key < b.key
	})
	for _, c := range order[limit:] {
		c.tail = true
	}
}

// hasTail reports whether a key of cols is in the long tail.
func hasTail(cols []*propColumn) bool {
	for _, c := range cols {
		if c.tail {
			return true
		}
	}
	return false
}

// planSchema infers the columns and tables for the given rows. edges must
// already be filtered to those whose ends are notes.
func planSchema(notes []format.Note, edges []format.Edge, choice tableChoice) *schemaPlan {
	plan := &schemaPlan{noteByKey: map[string]*propColumn{}, edgeByKey: map[string]*propColumn{}, typeByKey: map[string]*edgeType{}}
	labelCount := map[string]int{}
	for _, n := range notes {
		for _, l := range n.Labels {
			labelCount[l]++
		}
		for _, p := range n.Properties {
			col := plan.noteByKey[p.Key]
			if col == nil {
				col = &propColumn{key: p.Key, kinds: map[string]bool{}, elemKinds: map[string]bool{}}
				plan.noteByKey[p.Key] = col
				plan.noteProps = append(plan.noteProps, col)
			}
			col.observe(p)
		}
	}
	for _, name := range []string{format.TypeLinksTo, format.TypeEmbeds} {
		plan.edgeTable(name)
	}
	for i := range edges {
		e := &edges[i]
		et := plan.edgeTable(e.Type)
		et.edges = append(et.edges, e)
		for _, p := range edgeProperties(*e) {
			col := plan.edgeByKey[p.Key]
			if col == nil {
				col = &propColumn{key: p.Key, kinds: map[string]bool{}, elemKinds: map[string]bool{}}
				plan.edgeByKey[p.Key] = col
				plan.edgeProps = append(plan.edgeProps, col)
			}
			col.observe(p)
			et.keys[p.Key] = true
		}
	}
	for l, n := range labelCount {
		plan.labels = append(plan.labels, format.GraphLabel{Name: l, Count: n})
	}
	sort.Slice(plan.labels, func(i, j int) bool { return plan.labels[i].Name < plan.labels[j].Name })
	plan.name(choice)
	return plan
}

func (plan *schemaPlan) edgeTable(name string) *edgeType {
	if et, ok := plan.typeByKey[name]; ok {
		return et
	}
	et := &edgeType{name: name, keys: map[string]bool{}}
	plan.typeByKey[name] = et
	plan.types = append(plan.types, et)
	return et
}

// edgeProperties are an edge's properties as stored: the "id" property
// that pins the edge's own id says nothing more than the id column.
func edgeProperties(e format.Edge) []format.Property {
	var out []format.Property
	seen := map[string]bool{}
	for _, p := range e.Properties {
		if seen[p.Key] {
			continue
		}
		seen[p.Key] = true
		if p.Key == "id" && p.Text() == e.ID {
			continue
		}
		out = append(out, p)
	}
	return out
}

// own picks the edge types that get a table of their own.
func (choice tableChoice) own(types []*edgeType) map[string]bool {
	limit := choice.limit
	if limit <= 0 {
		limit = format.DefaultTypedEdgeTables
	}
	rank := func(et *edgeType) int {
		switch {
		case et.name == format.TypeLinksTo:
			return 0
		case et.name == format.TypeEmbeds:
			return 1
		case choice.keep[et.name]:
			return 2
		}
		return 3
	}
	order := append([]*edgeType(nil), types...)
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		if len(a.edges) != len(b.edges) {
			return len(a.edges) > len(b.edges)
		}
		return a.name < b.name
	})
	own := map[string]bool{}
	for i, et := range order {
		if i >= limit && rank(et) > 1 {
			break
		}
		if rank(et) > 1 && len(et.edges) < choice.minEdges {
			continue
		}
		own[et.name] = true
	}
	return own
}

// name assigns vault-level names, escaped table and column names and
// types, and the relationship tables, deterministically.
func (plan *schemaPlan) name(choice tableChoice) {
	sortCols := func(cols []*propColumn) {
		sort.Slice(cols, func(i, j int) bool { return cols[i].key < cols[j].key })
	}
	sortCols(plan.noteProps)
	sortCols(plan.edgeProps)
	sort.Slice(plan.types, func(i, j int) bool { return plan.types[i].name < plan.types[j].name })
	var keys, types []string
	for _, c := range plan.noteProps {
		keys = append(keys, c.key)
	}
	for _, c := range plan.edgeProps {
		keys = append(keys, c.key)
	}
	for _, et := range plan.types {
		types = append(types, et.name)
	}
	columns := format.EscapeGraphNames(format.GraphPropertyPrefix, keys)
	tables := format.EscapeGraphNames(format.GraphEdgeTablePrefix, types)
	own := choice.own(plan.types)
	var shared *relTable
	for _, et := range plan.types {
		switch {
		case own[et.name]:
			et.rel = &relTable{table: tables[et.name]}
			plan.tables = append(plan.tables, et.rel)
		case shared == nil:
			shared = &relTable{table: format.GraphEdgeTable}
			plan.tables = append(plan.tables, shared)
			fallthrough
		default:
			et.rel = shared
		}
		et.rel.types = append(et.rel.types, et)
	}
	sort.Slice(plan.tables, func(i, j int) bool { return plan.tables[i].table < plan.tables[j].table })
	assign := func(cols []*propColumn, byKey map[string]*propColumn, builtins []format.GraphColumn) {
		taken := func(s string) bool { _, ok := byKey[s]; return ok }
		for _, c := range cols {
			c.name = format.ShadowedName(c.key, builtins, taken)
			c.column = columns[c.key]
			c.resolve()
		}
	}
	assign(plan.noteProps, plan.noteByKey, format.NoteBuiltins)
	assign(plan.edgeProps, plan.edgeByKey, format.EdgeBuiltins)
	choice.tails(plan.noteProps)
	choice.tails(plan.edgeProps)
}

// manifest returns the Graph section for the plan.
func (plan *schemaPlan) manifest(notes, edges, skipped int) *format.Graph {
	g := &format.Graph{
		Version:       format.GraphVersion,
		Engine:        "kuzu",
		EngineVersion: EngineVersion,
		File:          format.GraphFile,
		NoteTable:     format.GraphNoteTable,
		Notes:         notes,
		Edges:         edges,
		SkippedEdges:  skipped,
		Labels:        plan.labels,
	}
	if g.Labels == nil {
		g.Labels = []format.GraphLabel{}
	}
	g.NoteProperties = []format.GraphProperty{}
	for _, c := range plan.noteProps {
		g.NoteProperties = append(g.NoteProperties, c.manifest())
	}
	g.EdgeProperties = []format.GraphProperty{}
	for _, c := range plan.edgeProps {
		g.EdgeProperties = append(g.EdgeProperties, c.manifest())
	}
	for _, et := range plan.types {
		t := format.GraphEdgeType{Name: et.name, Table: et.rel.table, Count: len(et.edges)}
		for _, c := range plan.edgeProps {
			if et.keys[c.key] {
				t.Properties = append(t.Properties, c.name)
			}
		}
		g.EdgeTypes = append(g.EdgeTypes, t)
	}
	return g
}

// valueOf converts a property to the Go value its column holds in the
// staging Parquet file.
func (c *propColumn) valueOf(p format.Property) any {
	kind := effectiveKind(p)
	if kind == format.KindNull {
		return nil
	}
	if elem, ok := strings.CutSuffix(c.typ, "[]"); ok {
		if kind == format.KindString {
			return []any{p.Text()} // a string beside lists of strings
		}
		if kind != format.KindList {
			return nil // cannot happen: a list column holds only lists, and strings beside lists of strings
		}
		items := listItems(p.JSON())
		out := make([]any, len(items))
		for i, it := range items {
			out[i] = itemValue(it, elem)
		}
		return out
	}
	switch c.typ {
	case "INT64":
		var n int64
		if json.Unmarshal([]byte(p.JSON()), &n) == nil {
			return n
		}
	case "DOUBLE":
		var f float64
		if json.Unmarshal([]byte(p.JSON()), &f) == nil {
			return f
		}
	case "BOOLEAN":
		var b bool
		if json.Unmarshal([]byte(p.JSON()), &b) == nil {
			return b
		}
	case "DATE", "TIMESTAMP":
		if t, ok := parseTemporal(p); ok {
			return t
		}
	}
	return p.Text()
}

func itemValue(v any, elem string) any {
	switch elem {
	case "INT64":
		if n, ok := v.(json.Number); ok {
			i, _ := n.Int64()
			return i
		}
	case "DOUBLE":
		if n, ok := v.(json.Number); ok {
			f, _ := n.Float64()
			return f
		}
	case "BOOLEAN":
		if b, ok := v.(bool); ok {
			return b
		}
	}
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		if v {
			return "true"
		}
		return "false"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
