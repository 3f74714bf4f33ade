package cypher

import (
	"sort"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// schema indexes a snapshot's format.Graph by the names queries use.
type schema struct {
	g *format.Graph
	// noteProps and edgeProps map vault-level property names to columns.
	noteProps map[string]format.GraphProperty
	edgeProps map[string]format.GraphProperty
	// propTables maps an edge property name to the tables that have it.
	propTables map[string]map[string]bool
	// tables maps an edge type to its table, tableTypes the reverse.
	tables     map[string]string
	tableTypes map[string]string
	allTables  []string
	noteCols   map[string]string // built-in name -> type
	edgeCols   map[string]string
	// labels, labelList and typeList are the graph's labels and edge
	// types, for the notices on names it lacks (notices.go).
	labels    map[string]bool
	labelList []string
	typeList  []string
}

func newSchema(g *format.Graph) *schema {
	s := &schema{
		g:          g,
		noteProps:  map[string]format.GraphProperty{},
		edgeProps:  map[string]format.GraphProperty{},
		propTables: map[string]map[string]bool{},
		tables:     map[string]string{},
		tableTypes: map[string]string{},
		noteCols:   map[string]string{},
		edgeCols:   map[string]string{},
	}
	for _, c := range format.NoteBuiltins {
		s.noteCols[c.Name] = c.Type
	}
	for _, c := range format.EdgeBuiltins {
		s.edgeCols[c.Name] = c.Type
	}
	for _, p := range g.NoteProperties {
		s.noteProps[p.Name] = p
	}
	s.labels = make(map[string]bool, len(g.Labels))
	for _, l := range g.Labels {
		s.labels[l.Name] = true
		s.labelList = append(s.labelList, l.Name)
	}
	for _, p := range g.EdgeProperties {
		s.edgeProps[p.Name] = p
	}
	seen := map[string]bool{}
	for _, t := range g.EdgeTypes {
		s.typeList = append(s.typeList, t.Name)
		s.tables[t.Name] = t.Table
		if t.Table != format.GraphEdgeTable {
			s.tableTypes[t.Table] = t.Name
		}
		if !seen[t.Table] {
			seen[t.Table] = true
			s.allTables = append(s.allTables, t.Table)
		}
		for _, p := range t.Properties {
			if s.propTables[p] == nil {
				s.propTables[p] = map[string]bool{}
			}
			s.propTables[p][t.Table] = true
		}
	}
	sort.Strings(s.allTables)
	return s
}

// tablesOf maps edge types to tables, dropping unknown types; ok is false
// when types were given and none is known (the pattern cannot match).
func (s *schema) tablesOf(types []string) (tables []string, ok bool) {
	if len(types) == 0 {
		return nil, true
	}
	seen := map[string]bool{}
	for _, t := range types {
		if tab, known := s.tables[t]; known && !seen[tab] {
			seen[tab] = true
			tables = append(tables, tab)
		}
	}
	return tables, len(tables) > 0
}

// sharedTypes returns the known types among types when one of them is
// kept in the shared table of the long tail (format.GraphEdgeTable),
// which holds other types too: the pattern must then test the
// relationship's type. It returns nil when every type has a table of its
// own, or when no type was given (any type matches).
func (s *schema) sharedTypes(types []string) []string {
	shared := false
	var known []string
	for _, t := range types {
		tab, ok := s.tables[t]
		if !ok {
			continue
		}
		known = append(known, t)
		shared = shared || tab == format.GraphEdgeTable
	}
	if !shared {
		return nil
	}
	return known
}

// noteAccess returns the expression that reads a note property or
// built-in of x: its column, or, for a key of the long tail, a lookup in
// the tail columns (see format's Property columns).
func (t *translator) noteAccess(x Expr, name string, p Pos) (Expr, kind, bool) {
	if prop, ok := t.s.noteProps[name]; ok && prop.Tail {
		return t.tailLookup(x, prop, p), kindOfType(prop.Type), true
	}
	col, k, ok := t.s.noteColumn(name)
	if !ok {
		return nil, kind{}, false
	}
	return &Prop{P: p, X: x, Key: col}, k, true
}

// edgeAccess is noteAccess for a relationship of the given tables (nil:
// any table).
func (t *translator) edgeAccess(x Expr, name string, tables []string, p Pos) (Expr, kind, bool) {
	col, k, ok := t.s.edgeColumn(name, tables)
	if !ok {
		return nil, kind{}, false
	}
	if name == "id" {
		return t.edgeID(x, p), k, true
	}
	if _, builtin := t.s.edgeCols[name]; !builtin {
		if prop := t.s.edgeProps[name]; prop.Tail {
			return t.tailLookup(x, prop, p), k, true
		}
	}
	return &Prop{P: p, X: x, Key: col}, k, true
}

// edgeID reads a relationship's id: the stored one, or, where the
// database stores none because the id is the derived one (see format's
// Edge ids), format.EdgeID(source, type, target, 0) computed from the
// internal columns.
func (t *translator) edgeID(x Expr, p Pos) Expr {
	return t.bindOnce(x, func(x Expr) Expr {
		col := func(c string) Expr { return &Prop{P: p, X: x, Key: c} }
		var derived Expr = col(format.GraphSourceColumn)
		for _, e := range []Expr{strLit("#"), col(format.GraphTypeColumn), strLit("#"), col(format.GraphTargetColumn), strLit("#0")} {
			derived = &Binary{Op: "+", L: derived, R: e}
		}
		return call("coalesce", col("id"), derived)
	})
}

// tailLookup reads a tail property of x: the value after the row's null
// at the key's position (list_position gives 0 for a key the row lacks,
// which picks the null), cast back to the property's type.
func (t *translator) tailLookup(x Expr, prop format.GraphProperty, p Pos) Expr {
	return t.bindOnce(x, func(x Expr) Expr {
		pos := call("list_position", &Prop{P: p, X: x, Key: format.GraphTailKeysColumn}, strLit(prop.Name))
		var e Expr = call("list_extract", &Prop{P: p, X: x, Key: format.GraphTailValuesColumn}, &Binary{Op: "+", L: pos, R: intLit(1)})
		switch prop.Type {
		case "STRING":
		case "STRING[]":
			// Each item is the separator, "=" and the item, or the
			// separator and the null item's mark (the engine's split drops
			// empty parts): keep those parts, the items without the "=".
			a, b := t.newName("t"), t.newName("t")
			parts := call("string_split", e, strLit(format.GraphTailSeparator))
			isNull := func(v string) Expr { return &Binary{Op: "=", L: &Var{Name: v}, R: strLit(format.GraphTailNullItem)} }
			kept := call("list_filter", parts, &Lambda{Params: []string{a}, Body: &Binary{Op: "OR", L: call("starts_with", &Var{Name: a}, strLit("=")), R: isNull(a)}})
			item := call("substring", &Var{Name: b}, intLit(2), call("size", &Var{Name: b}))
			e = call("list_transform", kept, &Lambda{Params: []string{b}, Body: &Case{Whens: []When{{Cond: isNull(b), Then: &Literal{Kind: LitNull}}}, Else: item}})
		default:
			e = &Cast{P: p, X: e, Type: prop.Type}
		}
		return e
	})
}

// tailProperty is the tail property name of a note (owner kNode) or
// relationship (kRel), if it is one.
func (s *schema) tailProperty(owner kindTag, name string) (format.GraphProperty, bool) {
	var p format.GraphProperty
	switch owner {
	case kNode:
		p = s.noteProps[name]
	case kRel:
		p = s.edgeProps[name]
	}
	return p, p.Tail
}

// hasTail reports whether the notes' (node) or the edges' property keys
// have a long tail, whose tables then have the tail columns.
func (s *schema) hasTail(node bool) bool {
	props := s.g.EdgeProperties
	if node {
		props = s.g.NoteProperties
	}
	for _, p := range props {
		if p.Tail {
			return true
		}
	}
	return false
}

// tailNames lists the names of the long tail's properties.
func (s *schema) tailNames(node bool) []string {
	props := s.g.EdgeProperties
	if node {
		props = s.g.NoteProperties
	}
	var out []string
	for _, p := range props {
		if p.Tail {
			out = append(out, p.Name)
		}
	}
	return out
}

// noteColumn returns the column and kind of a note property or built-in.
func (s *schema) noteColumn(name string) (string, kind, bool) {
	if typ, ok := s.noteCols[name]; ok {
		return name, kindOfType(typ), true
	}
	if p, ok := s.noteProps[name]; ok {
		return p.Column, kindOfType(p.Type), true
	}
	return "", kind{}, false
}

// edgeColumn returns the column and kind of an edge property or built-in
// that at least one of tables (nil: any table) has.
func (s *schema) edgeColumn(name string, tables []string) (string, kind, bool) {
	if typ, ok := s.edgeCols[name]; ok {
		return name, kindOfType(typ), true
	}
	p, ok := s.edgeProps[name]
	if !ok {
		return "", kind{}, false
	}
	if tables == nil {
		return p.Column, kindOfType(p.Type), true
	}
	for _, t := range tables {
		if s.propTables[name][t] {
			return p.Column, kindOfType(p.Type), true
		}
	}
	return "", kind{}, false
}

// allProperties lists the vault-level property names and columns of a node
// or of relationships of the given tables, in a stable order: built-ins
// (but id) first, then properties by name. Properties of the long tail
// have no column and are not listed (see tailNames).
func (s *schema) allProperties(node bool, tables []string) (names, cols []string) {
	if node {
		for _, c := range format.NoteBuiltins {
			if c.Name != "id" && c.Name != "labels" {
				names, cols = append(names, c.Name), append(cols, c.Name)
			}
		}
		for _, p := range s.g.NoteProperties {
			if !p.Tail {
				names, cols = append(names, p.Name), append(cols, p.Column)
			}
		}
		return names, cols
	}
	for _, c := range format.EdgeBuiltins {
		if c.Name != "id" {
			names, cols = append(names, c.Name), append(cols, c.Name)
		}
	}
	for _, p := range s.g.EdgeProperties {
		if _, _, ok := s.edgeColumn(p.Name, tables); ok && !p.Tail {
			names, cols = append(names, p.Name), append(cols, p.Column)
		}
	}
	return names, cols
}

// propertyKeys lists every property name queries can read, for
// db.propertyKeys().
func (s *schema) propertyKeys() []string {
	seen := map[string]bool{}
	var keys []string
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, c := range format.NoteBuiltins {
		add(c.Name)
	}
	for _, c := range format.EdgeBuiltins {
		add(c.Name)
	}
	for _, p := range s.g.NoteProperties {
		add(p.Name)
	}
	for _, p := range s.g.EdgeProperties {
		add(p.Name)
	}
	sort.Strings(keys)
	return keys
}

func kindOfType(typ string) kind {
	if elem, ok := strings.CutSuffix(typ, "[]"); ok {
		e := kindOfType(elem)
		return kind{tag: kList, elem: &e}
	}
	return kind{tag: kScalar, typ: typ}
}
