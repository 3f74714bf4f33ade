package graphdb

import (
	"strings"

	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
)

// keyed returns the text of a translated query in which every test of a
// MATCH's node on its path or title (n.path = 'x', at the top of the
// clause's WHERE) that only one note passes also tests that note's id,
// the table's primary key, so that the engine looks the note up instead of
// scanning every note. Both tests hold for exactly the same note, so the
// answer is the same. It returns "" when no test changed.
func (g *directGraph) keyed(tr *cypher.Translation) string {
	q := tr.Tree
	if q == nil {
		return ""
	}
	changed := false
	out := &cypher.Query{UnionAll: q.UnionAll}
	for _, part := range q.Parts {
		sq := &cypher.SingleQuery{}
		for _, c := range part.Clauses {
			if m, ok := c.(*cypher.Match); ok && m.Where != nil {
				if w, ok := g.keyedWhere(m); ok {
					copied := *m
					copied.Where = w
					c = &copied
					changed = true
				}
			}
			sq.Clauses = append(sq.Clauses, c)
		}
		out.Parts = append(out.Parts, sq)
	}
	if !changed {
		return ""
	}
	return cypher.Print(out)
}

// keyedWhere adds id tests to m's WHERE, reporting whether it added one.
func (g *directGraph) keyedWhere(m *cypher.Match) (cypher.Expr, bool) {
	nodes := map[string]bool{}
	for _, part := range m.Pattern {
		for _, n := range part.Nodes {
			if n.Var != "" {
				nodes[n.Var] = true
			}
		}
	}
	var ids []cypher.Expr
	var walk func(e cypher.Expr)
	walk = func(e cypher.Expr) {
		b, ok := e.(*cypher.Binary)
		if !ok {
			return
		}
		if b.Op == "AND" {
			walk(b.L)
			walk(b.R)
			return
		}
		if b.Op != "=" {
			return
		}
		l, r := b.L, b.R
		if _, ok := l.(*cypher.Literal); ok {
			l, r = r, l
		}
		p, ok := l.(*cypher.Prop)
		if !ok {
			return
		}
		v, ok := p.X.(*cypher.Var)
		if !ok || !nodes[v.Name] {
			return
		}
		s, ok := strLit(r)
		if !ok {
			return
		}
		var found []int32
		switch p.Key {
		case "path":
			found = g.byPath[s]
		case "title":
			found = g.byTitle[s]
		default:
			return
		}
		if len(found) != 1 {
			return
		}
		id, ok := g.cols["id"][found[0]].(string)
		if !ok || strings.ContainsRune(id, 0) {
			return
		}
		ids = append(ids, &cypher.Binary{Op: "=", L: &cypher.Prop{X: &cypher.Var{Name: v.Name}, Key: "id"}, R: &cypher.Literal{Kind: cypher.LitString, Str: id}})
	}
	walk(m.Where)
	if len(ids) == 0 {
		return nil, false
	}
	w := m.Where
	for _, id := range ids {
		w = &cypher.Binary{Op: "AND", L: w, R: id}
	}
	return w, true
}
