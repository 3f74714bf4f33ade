package graphdb

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
)

// Result is the answer to a query: typed columns and rows of JSON-ready
// values. Nodes, relationships and paths are *Node, *Relationship and
// *Path; dates are "2006-01-02" strings, datetimes RFC 3339 strings in UTC,
// durations Go duration strings. The same shape is returned whatever the
// query, so the REST server and the MCP tool can pass it on unchanged.
type Result struct {
	Columns []Column `json:"columns"`
	Rows    [][]any  `json:"rows"`
	// Truncated is set when the query had more rows than MaxRows; Rows
	// then holds the first MaxRows.
	Truncated bool `json:"truncated"`
	MaxRows   int  `json:"max_rows"`
	// Snapshot is the id of the snapshot queried.
	Snapshot  string  `json:"snapshot,omitempty"`
	ElapsedMS float64 `json:"elapsed_ms"`
	// Notices name the labels and relationship types the query wrote that
	// the snapshot lacks (cypher.Translation.Notices): they match nothing,
	// so the rows may be empty or a count 0 for that reason.
	Notices []string `json:"notices,omitempty"`
	// Translated is the query as sent to the engine, for debugging.
	Translated string `json:"-"`
	// Direct is set when the answer came from the copy of the notes and
	// links in memory, not from the engine (see Options.Direct).
	Direct bool `json:"-"`
}

// Column is a result column: its name as the query wrote it and the type of
// its values: string, int, float, bool, date, datetime, duration, list,
// map, node, relationship, path; "null" when every value is null, "any"
// when values differ in type.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// Kind is the Typed Graph sidecar's coarser word for the column: node,
	// relationship or path for graph values (known from the query even
	// when every row holds null), scalar for everything else.
	Kind string `json:"kind"`
}

// columnKind is Column.Kind of a column whose query-side kind is known
// ("node", "relationship", "path" or "") and whose values have type typ.
func columnKind(known, typ string) string {
	if known != "" {
		return known
	}
	switch typ {
	case "node", "relationship", "path":
		return typ
	}
	return "scalar"
}

// Node is a note (or a stub) in a result.
type Node struct {
	Kind   string   `json:"_type"` // "node"
	ID     string   `json:"id"`
	Labels []string `json:"labels"`
	// Stub is set for a link target that has no note (also
	// properties.stub).
	Stub bool `json:"stub"`
	// Properties are every property with a value, by vault name: the
	// built-in path, title, folder, tags, aliases, stub, modified, size
	// and the note's frontmatter and inline fields.
	Properties map[string]any `json:"properties"`
}

// Relationship is an edge in a result.
type Relationship struct {
	Kind string `json:"_type"` // "relationship"
	ID   string `json:"id"`
	// Type is the edge type as written in the vault.
	Type string `json:"type"`
	// Sign is -1 for a negative edge (-type:: [[X]]), else 1 (also
	// properties.sign).
	Sign int64 `json:"sign"`
	// Source and Target are the note ids of the edge's ends.
	Source     string         `json:"source"`
	Target     string         `json:"target"`
	Properties map[string]any `json:"properties"`
}

// Path is a named path in a result.
type Path struct {
	Kind          string          `json:"_type"` // "path"
	Nodes         []*Node         `json:"nodes"`
	Relationships []*Relationship `json:"relationships"`
}

// names maps the database's escaped names back to vault names.
type names struct {
	noteCols map[string]string
	edgeCols map[string]string
	tables   map[string]string
	// tailTypes are the types of the long tail's properties, by vault
	// name, notes' first (see format's Property columns).
	tailTypes map[string]string
	// messages rewrites escaped names in engine error messages.
	messages *strings.Replacer
}

func newNames(g *format.Graph) *names {
	n := &names{noteCols: map[string]string{}, edgeCols: map[string]string{}, tables: map[string]string{}, tailTypes: map[string]string{}}
	var pairs [][2]string
	for _, p := range append(slices.Clone(g.EdgeProperties), g.NoteProperties...) {
		if p.Tail {
			n.tailTypes[p.Name] = p.Type
		}
	}
	for _, p := range g.NoteProperties {
		if p.Tail {
			continue
		}
		n.noteCols[p.Column] = p.Name
		pairs = append(pairs, [2]string{p.Column, p.Name})
	}
	for _, p := range g.EdgeProperties {
		if p.Tail {
			continue
		}
		n.edgeCols[p.Column] = p.Name
		pairs = append(pairs, [2]string{p.Column, p.Name})
	}
	for _, t := range g.EdgeTypes {
		if t.Table == format.GraphEdgeTable {
			// Shared by many types: a relationship's vg_type names its
			// type, and error messages keep the table's name.
			continue
		}
		n.tables[t.Table] = t.Name
		pairs = append(pairs, [2]string{t.Table, t.Name})
	}
	// Longest first, so that p_a_1234 is not rewritten as p_a then _1234.
	sort.Slice(pairs, func(i, j int) bool { return len(pairs[i][0]) > len(pairs[j][0]) })
	var args []string
	for _, p := range pairs {
		args = append(args, p[0], p[1])
	}
	n.messages = strings.NewReplacer(args...)
	return n
}

// converter turns engine values into result values.
type converter struct {
	names *names
}

// value converts one engine value and reports its column type.
func (c *converter) value(v any) (any, string) {
	switch v := v.(type) {
	case nil:
		return nil, ""
	case bool:
		return v, "bool"
	case string:
		return v, "string"
	case int64:
		return v, "int"
	case int8, int16, int32, uint8, uint16, uint32:
		return toInt64(v), "int"
	case uint64:
		if v > math.MaxInt64 {
			return fmt.Sprint(v), "int"
		}
		return int64(v), "int"
	case *big.Int:
		// Kuzu sums 64-bit integers into 128 bits.
		if v.IsInt64() {
			return v.Int64(), "int"
		}
		return v.String(), "int"
	case float64:
		return jsonFloat(v), "float"
	case float32:
		return jsonFloat(float64(v)), "float"
	case time.Time:
		return temporal(v)
	case time.Duration:
		return v.String(), "duration"
	case []any:
		out := make([]any, len(v))
		for i, it := range v {
			out[i], _ = c.value(it)
		}
		return out, "list"
	case map[string]any:
		out := c.structValue(v)
		if out == nil {
			return nil, ""
		}
		return out, "map"
	case []kuzu.MapItem:
		return c.mapValue(v), "map"
	case kuzu.Node:
		return c.node(v), "node"
	case kuzu.Relationship:
		return c.rel(v), "relationship"
	case kuzu.RecursiveRelationship:
		return c.path(v), "path"
	case kuzu.InternalID:
		return fmt.Sprintf("%d:%d", v.TableID, v.Offset), "string"
	case fmt.Stringer:
		return v.String(), "string"
	}
	return fmt.Sprint(v), "string"
}

func toInt64(v any) int64 {
	switch v := v.(type) {
	case int8:
		return int64(v)
	case int16:
		return int64(v)
	case int32:
		return int64(v)
	case uint8:
		return int64(v)
	case uint16:
		return int64(v)
	case uint32:
		return int64(v)
	}
	return 0
}

// jsonFloat keeps NaN and infinities, which JSON cannot encode, as strings.
func jsonFloat(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return f
}

// temporal tells dates from timestamps. go-kuzu returns both as time.Time:
// dates in time.UTC, timestamps through time.Unix in time.Local. A program
// that sets time.Local to time.UTC makes the two indistinguishable; a
// midnight timestamp then reads as a date.
func temporal(t time.Time) (any, string) {
	if t.Location() == time.UTC && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format(time.DateOnly), "date"
	}
	return t.UTC().Format(time.RFC3339Nano), "datetime"
}

// structValue converts a Kuzu STRUCT. One built by properties() carries the
// cypher.PropertiesMarker field: the marker and the null fields are
// dropped, since a property without a value does not exist.
func (c *converter) structValue(m map[string]any) any {
	if marker, ok := m[cypher.ProjectionMarker].(string); ok {
		return c.projection(m, marker)
	}
	_, props := m[cypher.PropertiesMarker]
	out := make(map[string]any, len(m))
	for k, v := range m {
		if props && (k == cypher.PropertiesMarker || v == nil) {
			continue
		}
		if props && (k == format.GraphTailKeysColumn || k == format.GraphTailValuesColumn) {
			continue
		}
		out[k], _ = c.value(v)
	}
	if props {
		c.tail(out, m[format.GraphTailKeysColumn], m[format.GraphTailValuesColumn])
	}
	if props && len(out) == 0 {
		// Every note and edge has built-in properties with values, so an
		// empty map is the properties of a null node (OPTIONAL MATCH).
		return nil
	}
	return out
}

// projection converts the struct of a map projection with .* (see
// cypher.ProjectionMarker): the fields .* listed are there when they have
// a value, those an item names always, and the tail's properties where no
// item names them.
func (c *converter) projection(m map[string]any, marker string) any {
	var named []string
	_ = json.Unmarshal([]byte(marker), &named)
	out := make(map[string]any, len(m))
	exists := false // a field of .* has a value: x is not null
	for k, v := range m {
		switch {
		case k == cypher.ProjectionMarker, k == format.GraphTailKeysColumn, k == format.GraphTailValuesColumn:
		case v == nil && !slices.Contains(named, k):
		default:
			exists = exists || !slices.Contains(named, k)
			out[k], _ = c.value(v)
		}
	}
	if !exists {
		// Every note and edge has built-in properties with values: this
		// is the projection of a null node (OPTIONAL MATCH), itself null.
		return nil
	}
	tail := map[string]any{}
	c.tail(tail, m[format.GraphTailKeysColumn], m[format.GraphTailValuesColumn])
	for k, v := range tail {
		if !slices.Contains(named, k) {
			out[k] = v
		}
	}
	return out
}

func (c *converter) mapValue(items []kuzu.MapItem) any {
	out := make(map[string]any, len(items))
	for _, it := range items {
		k, ok := it.Key.(string)
		if !ok {
			k = fmt.Sprint(it.Key)
		}
		out[k], _ = c.value(it.Value)
	}
	return out
}

// tail adds the properties of a row's tail columns to props, each value
// read back from its text as the property's type.
func (c *converter) tail(props map[string]any, keys, values any) {
	ks, _ := keys.([]any)
	vs, _ := values.([]any)
	for i, k := range ks {
		name, ok := k.(string)
		if !ok || i+1 >= len(vs) {
			continue
		}
		text, ok := vs[i+1].(string)
		if !ok {
			continue
		}
		props[name], _ = c.value(tailValue(c.names.tailTypes[name], text))
	}
}

// tailValue reads a tail column's text as a value of typ.
func tailValue(typ, text string) any {
	if elem, ok := strings.CutSuffix(typ, "[]"); ok {
		if elem == "STRING" {
			parts := strings.Split(text, format.GraphTailSeparator)
			out := make([]any, 0, len(parts))
			for _, s := range parts[1:] {
				if s == format.GraphTailNullItem {
					out = append(out, nil)
					continue
				}
				out = append(out, strings.TrimPrefix(s, "="))
			}
			return out
		}
		inner := strings.TrimSuffix(strings.TrimPrefix(text, "["), "]")
		out := []any{}
		if inner != "" {
			for _, s := range strings.Split(inner, ",") {
				if s == "NULL" {
					out = append(out, nil)
					continue
				}
				out = append(out, tailValue(elem, s))
			}
		}
		return out
	}
	switch typ {
	case "INT64":
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return n
		}
	case "DOUBLE":
		if f, err := strconv.ParseFloat(text, 64); err == nil {
			return f
		}
	case "BOOLEAN":
		if b, err := strconv.ParseBool(text); err == nil {
			return b
		}
	case "DATE":
		if t, err := time.Parse(time.DateOnly, text); err == nil {
			return t
		}
	case "TIMESTAMP":
		if t, err := time.Parse("2006-01-02 15:04:05.999999", text); err == nil {
			return t.In(time.Local)
		}
	}
	return text
}

func (c *converter) node(n kuzu.Node) *Node {
	out := &Node{Kind: "node", Labels: []string{}, Properties: map[string]any{}}
	for col, v := range n.Properties {
		switch col {
		case "id":
			out.ID, _ = v.(string)
			continue
		case "labels":
			if l, ok := v.([]any); ok {
				for _, s := range l {
					if str, ok := s.(string); ok {
						out.Labels = append(out.Labels, str)
					}
				}
			}
			continue
		case format.GraphKeysColumn, format.GraphTailKeysColumn, format.GraphTailValuesColumn:
			continue
		}
		if v == nil {
			continue
		}
		name := col
		if vn, ok := c.names.noteCols[col]; ok {
			name = vn
		}
		out.Properties[name], _ = c.value(v)
		if name == "stub" {
			out.Stub, _ = v.(bool)
		}
	}
	c.tail(out.Properties, n.Properties[format.GraphTailKeysColumn], n.Properties[format.GraphTailValuesColumn])
	return out
}

func (c *converter) rel(r kuzu.Relationship) *Relationship {
	out := &Relationship{Kind: "relationship", Type: c.names.tables[r.Label], Sign: 1, Properties: map[string]any{}}
	for col, v := range r.Properties {
		switch col {
		case "id":
			out.ID, _ = v.(string)
			continue
		case format.GraphTypeColumn:
			if s, ok := v.(string); ok {
				out.Type = s
			}
			continue
		case format.GraphSourceColumn:
			out.Source, _ = v.(string)
			continue
		case format.GraphTargetColumn:
			out.Target, _ = v.(string)
			continue
		case format.GraphKeysColumn, format.GraphTailKeysColumn, format.GraphTailValuesColumn:
			continue
		}
		if v == nil {
			continue
		}
		name := col
		if vn, ok := c.names.edgeCols[col]; ok {
			name = vn
		}
		out.Properties[name], _ = c.value(v)
		if name == "sign" {
			if s, ok := out.Properties[name].(int64); ok {
				out.Sign = s
			}
		}
	}
	if out.ID == "" {
		// The database stores no id where it is the derived one.
		out.ID = format.EdgeID(out.Source, out.Type, out.Target, 0)
	}
	c.tail(out.Properties, r.Properties[format.GraphTailKeysColumn], r.Properties[format.GraphTailValuesColumn])
	return out
}

func (c *converter) path(p kuzu.RecursiveRelationship) *Path {
	out := &Path{Kind: "path", Nodes: []*Node{}, Relationships: []*Relationship{}}
	for _, n := range p.Nodes {
		out.Nodes = append(out.Nodes, c.node(n))
	}
	for _, r := range p.Relationships {
		out.Relationships = append(out.Relationships, c.rel(r))
	}
	return out
}

// columnType folds the types of one column's values.
func columnType(types []string) string {
	t := ""
	for _, typ := range types {
		switch {
		case typ == "":
		case t == "":
			t = typ
		case t != typ:
			return "any"
		}
	}
	if t == "" {
		return "null"
	}
	return t
}
