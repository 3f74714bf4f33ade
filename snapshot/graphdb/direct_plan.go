package graphdb

import (
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
)

// directPlan is a translated query simple enough for the copy (see
// direct.go). planDirect accepts exactly these shapes, and leaves every
// other query to the engine:
//
//	MATCH (a) [WHERE w] [UNWIND a.labels AS x] RETURN [DISTINCT] items [ORDER BY keys] [SKIP n] [LIMIT n]
//	MATCH (a)-[r:T1|T2]->(b) [WHERE w] RETURN ... (or <-, or untyped)
//
// where w is a conjunction of v.col = literal (col one of directCols, the
// literal of the column's type), v.col STARTS WITH, ENDS WITH or CONTAINS
// a string (col a string column), list_contains(v.labels, 'L') (the
// translation of a label), r.vg_type = 'T' or r.vg_type IN [...] (the
// translation of a type kept in the shared table); items are v.col, the
// unwound x, r.vg_type (type(r)), count(*) and count(var); sort keys are result columns (or,
// without aggregation and DISTINCT, v.col); SKIP and LIMIT are integers.
type directPlan struct {
	// vars are the node variables: a, and b for a hop ("" when unnamed).
	vars []string
	hop  *directHop
	// unwind is the variable of UNWIND a.labels ("" without one).
	unwind string
	eqs    []directEq
	labels []directLabel
	// relTypes restricts the hop's vg_type (nil: any).
	relTypes []string
	// never is set when the WHERE folded to false.
	never     bool
	items     []directItem
	distinct  bool
	aggregate bool
	order     []directOrder
	skip      int64
	limit     int64 // -1: none
}

type directHop struct {
	rel    string
	tables []string
	// right is set for (a)-[r]->(b), clear for (a)<-[r]-(b).
	right bool
}

// directEq tests a column of a node: op is "=" (value a string or a
// bool), or STARTS WITH, ENDS WITH or CONTAINS (value a string).
type directEq struct {
	node  int
	col   string
	op    string
	value any
}

type directLabel struct {
	node  int
	label string
}

// Kinds of directItem.
const (
	itemCol = iota
	itemUnwound
	itemCount
	itemRelType // r.vg_type, which type(r) reads
)

type directItem struct {
	kind int
	node int
	col  string
}

// directOrder is a sort key: a result column, or an item of its own
// (extra) that is evaluated but not returned.
type directOrder struct {
	item  directItem
	col   int // result column, -1 for item
	desc  bool
	extra bool
}

// planDirect returns the plan of a translated query, or false when the
// query is not of a shape the copy answers.
func planDirect(tr *cypher.Translation, g *directGraph, noteTable string) (*directPlan, bool) {
	q := tr.Tree
	if q == nil || len(q.Parts) != 1 || tr.SkipRows > 0 {
		// (The engine's rows are cut by SkipRows; the copy leaves it.)
		return nil, false
	}
	cl := q.Parts[0].Clauses
	if len(cl) < 2 || len(cl) > 3 {
		return nil, false
	}
	m, ok := cl[0].(*cypher.Match)
	if !ok || m.Optional || len(m.Pattern) != 1 {
		return nil, false
	}
	part := m.Pattern[0]
	if part.Var != "" || part.Shortest != cypher.ShortestNone || len(part.Nodes) < 1 || len(part.Nodes) > 2 {
		return nil, false
	}
	p := &directPlan{limit: -1}
	for _, n := range part.Nodes {
		if n.Props != nil || !(len(n.Labels) == 0 || (len(n.Labels) == 1 && len(n.Labels[0]) == 1 && n.Labels[0][0] == noteTable)) {
			return nil, false
		}
		if n.Var != "" && slices.Contains(p.vars, n.Var) {
			return nil, false
		}
		p.vars = append(p.vars, n.Var)
	}
	if len(part.Rels) == 1 {
		r := part.Rels[0]
		if r.VarLength || r.Props != nil || r.Filter != nil || r.Semantics != "" || (r.Dir != cypher.DirRight && r.Dir != cypher.DirLeft) {
			return nil, false
		}
		if r.Var != "" && slices.Contains(p.vars, r.Var) {
			return nil, false
		}
		h := &directHop{rel: r.Var, right: r.Dir == cypher.DirRight}
		if len(r.Types) == 0 {
			for t := range g.tables {
				h.tables = append(h.tables, t)
			}
			slices.Sort(h.tables)
		}
		for _, t := range r.Types {
			if g.tables[t] == nil {
				return nil, false
			}
			if !slices.Contains(h.tables, t) {
				h.tables = append(h.tables, t)
			}
		}
		p.hop = h
	}
	if m.Where != nil && !p.where(m.Where) {
		return nil, false
	}
	ret, ok := cl[len(cl)-1].(*cypher.Return)
	if !ok {
		return nil, false
	}
	if len(cl) == 3 {
		u, ok := cl[1].(*cypher.Unwind)
		if !ok || p.hop != nil || u.Var == "" || slices.Contains(p.vars, u.Var) {
			return nil, false
		}
		if n, ok := p.nodeProp(u.Expr); !ok || n.col != "labels" {
			return nil, false
		}
		p.unwind = u.Var
	}
	return p, p.projection(ret.Proj, tr.Columns)
}

// node returns the index of a node variable.
func (p *directPlan) node(e cypher.Expr) (int, bool) {
	v, ok := e.(*cypher.Var)
	if !ok || v.Name == "" {
		return 0, false
	}
	i := slices.Index(p.vars, v.Name)
	return i, i >= 0
}

// nodeProp reads v.col of a node variable (col may be any column).
func (p *directPlan) nodeProp(e cypher.Expr) (directItem, bool) {
	pr, ok := e.(*cypher.Prop)
	if !ok {
		return directItem{}, false
	}
	i, ok := p.node(pr.X)
	return directItem{kind: itemCol, node: i, col: pr.Key}, ok
}

// relType reports whether e is r.vg_type of the hop's relationship.
func (p *directPlan) relType(e cypher.Expr) bool {
	pr, ok := e.(*cypher.Prop)
	if !ok || p.hop == nil || p.hop.rel == "" || pr.Key != "vg_type" {
		return false
	}
	v, ok := pr.X.(*cypher.Var)
	return ok && v.Name == p.hop.rel
}

func strLit(e cypher.Expr) (string, bool) {
	l, ok := e.(*cypher.Literal)
	if !ok || l.Kind != cypher.LitString {
		return "", false
	}
	return l.Str, true
}

// where takes a conjunction of the predicates the copy can test.
func (p *directPlan) where(e cypher.Expr) bool {
	switch e := e.(type) {
	case *cypher.Literal:
		if e.Kind != cypher.LitBool {
			return false
		}
		p.never = p.never || !e.Bool
		return true
	case *cypher.Binary:
		switch e.Op {
		case "AND":
			return p.where(e.L) && p.where(e.R)
		case "=":
			l, r := e.L, e.R
			if _, ok := l.(*cypher.Literal); ok {
				l, r = r, l
			}
			lit, ok := r.(*cypher.Literal)
			if !ok {
				return false
			}
			if p.relType(l) {
				s, ok := strLit(lit)
				return ok && p.restrictTypes([]string{s})
			}
			n, ok := p.nodeProp(l)
			if !ok {
				return false
			}
			switch n.col {
			case "id", "path", "title", "folder":
				if lit.Kind != cypher.LitString {
					return false
				}
				p.eqs = append(p.eqs, directEq{node: n.node, col: n.col, op: "=", value: lit.Str})
			case "stub":
				if lit.Kind != cypher.LitBool {
					return false
				}
				p.eqs = append(p.eqs, directEq{node: n.node, col: n.col, op: "=", value: lit.Bool})
			default:
				return false
			}
			return true
		case "STARTS WITH", "ENDS WITH", "CONTAINS":
			n, ok := p.nodeProp(e.L)
			if !ok || (n.col != "id" && n.col != "path" && n.col != "title" && n.col != "folder") {
				return false
			}
			// Kuzu 0.11.3 finds no empty string in another (x CONTAINS ''
			// is false); the engine answers tests with an empty one.
			s, ok := strLit(e.R)
			if !ok || s == "" {
				return false
			}
			p.eqs = append(p.eqs, directEq{node: n.node, col: n.col, op: e.Op, value: s})
			return true
		case "IN":
			list, ok := e.R.(*cypher.ListLit)
			if !ok || !p.relType(e.L) || len(list.Items) == 0 {
				return false
			}
			var types []string
			for _, it := range list.Items {
				s, ok := strLit(it)
				if !ok {
					return false
				}
				types = append(types, s)
			}
			return p.restrictTypes(types)
		}
	case *cypher.FuncCall:
		if !strings.EqualFold(e.Name, "list_contains") || e.Distinct || e.Star || len(e.Args) != 2 {
			return false
		}
		n, ok := p.nodeProp(e.Args[0])
		if !ok || n.col != "labels" {
			return false
		}
		s, ok := strLit(e.Args[1])
		if !ok {
			return false
		}
		p.labels = append(p.labels, directLabel{node: n.node, label: s})
		return true
	}
	return false
}

// restrictTypes intersects the hop's allowed types with types.
func (p *directPlan) restrictTypes(types []string) bool {
	if p.relTypes == nil {
		p.relTypes = slices.Clone(types)
		return true
	}
	var keep []string
	for _, t := range p.relTypes {
		if slices.Contains(types, t) {
			keep = append(keep, t)
		}
	}
	if keep == nil {
		p.never = true
		keep = []string{}
	}
	p.relTypes = keep
	return true
}

// item reads one projected expression.
func (p *directPlan) item(e cypher.Expr) (directItem, bool) {
	switch e := e.(type) {
	case *cypher.Prop:
		if p.relType(e) {
			return directItem{kind: itemRelType}, true
		}
		n, ok := p.nodeProp(e)
		return n, ok && slices.Contains(directCols, n.col)
	case *cypher.Var:
		return directItem{kind: itemUnwound}, p.unwind != "" && e.Name == p.unwind
	case *cypher.FuncCall:
		if !strings.EqualFold(e.Name, "count") || e.Distinct {
			return directItem{}, false
		}
		if e.Star {
			return directItem{kind: itemCount}, len(e.Args) == 0
		}
		if len(e.Args) != 1 {
			return directItem{}, false
		}
		// A bound variable is never null, so count(v) counts rows.
		v, ok := e.Args[0].(*cypher.Var)
		if !ok || v.Name == "" {
			return directItem{}, false
		}
		bound := slices.Contains(p.vars, v.Name) || v.Name == p.unwind || (p.hop != nil && v.Name == p.hop.rel)
		return directItem{kind: itemCount}, bound
	}
	return directItem{}, false
}

func (p *directPlan) projection(pr *cypher.Projection, columns []string) bool {
	if pr.Star || len(pr.Items) == 0 || len(pr.Items) != len(columns) {
		return false
	}
	p.distinct = pr.Distinct
	for i, it := range pr.Items {
		// A column named like a variable of the pattern or the UNWIND
		// (RETURN n.title AS n ORDER BY n) does not shadow it in the
		// engine's ORDER BY, which then sorts by the variable or refuses
		// a node: such queries are left to the engine.
		if v, ok := it.Expr.(*cypher.Var); len(pr.Order) > 0 && (!ok || v.Name != columns[i]) && p.names(columns[i]) {
			return false
		}
		d, ok := p.item(it.Expr)
		if !ok {
			return false
		}
		p.aggregate = p.aggregate || d.kind == itemCount
		p.items = append(p.items, d)
	}
	for _, s := range pr.Order {
		o := directOrder{desc: s.Desc, col: -1}
		if v, ok := s.Expr.(*cypher.Var); ok && slices.Contains(columns, v.Name) {
			o.col = slices.Index(columns, v.Name)
		} else {
			d, ok := p.item(s.Expr)
			if !ok || (d.kind != itemCol && d.kind != itemRelType) || p.aggregate || p.distinct {
				return false
			}
			o.item, o.extra = d, true
		}
		p.order = append(p.order, o)
	}
	var ok bool
	if p.skip, ok = intArg(pr.Skip, 0); !ok {
		return false
	}
	if p.limit, ok = intArg(pr.Limit, -1); !ok {
		return false
	}
	return true
}

// names reports whether name is a variable of the pattern or the UNWIND.
func (p *directPlan) names(name string) bool {
	return slices.Contains(p.vars, name) || name == p.unwind || (p.hop != nil && p.hop.rel != "" && name == p.hop.rel)
}

func intArg(e cypher.Expr, none int64) (int64, bool) {
	if e == nil {
		return none, true
	}
	l, ok := e.(*cypher.Literal)
	if !ok || l.Kind != cypher.LitInt || l.Int < 0 {
		return 0, false
	}
	return l.Int, true
}
