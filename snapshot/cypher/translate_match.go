package cypher

import "github.com/vaultgraph/vaultgraph/format"

// relBinding records a relationship pattern of one MATCH, for the
// uniqueness predicates.
type relBinding struct {
	name      string
	varLength bool
	tables    []string // nil: every table
	part      int
}

// match translates MATCH and OPTIONAL MATCH. Labels, inline property maps,
// unknown types and openCypher's rule that one MATCH never binds the same
// relationship twice become predicates in the clause's WHERE, which for
// OPTIONAL MATCH is exactly where openCypher evaluates them.
func (t *translator) match(m *Match, sc *scope) *Match {
	out := &Match{P: m.P, Optional: m.Optional}
	var preds []Expr
	var rels []relBinding
	var deferred []func()
	total := 0
	for _, part := range m.Pattern {
		total += len(part.Rels)
	}
	// Uniqueness predicates need a name for every relationship of a MATCH
	// with more than one.
	t.nameRels = total > 1
	t.optional = m.Optional
	for i, part := range m.Pattern {
		pp, ps, rb, d := t.part(part, sc, i)
		out.Pattern = append(out.Pattern, pp)
		preds = append(preds, ps...)
		rels = append(rels, rb...)
		deferred = append(deferred, d...)
	}
	// Property maps may refer to any variable of the pattern, so they are
	// translated once all are bound.
	for _, d := range deferred {
		d()
	}
	preds = append(preds, t.propPreds...)
	t.propPreds = nil
	preds = append(preds, t.uniqueness(rels, out.Pattern, sc)...)
	if m.Where != nil {
		preds = append(preds, t.predicate(m.Where, sc))
	}
	for i, p := range preds {
		// A null conjunct (an inline map with an unknown key) rejects
		// every row.
		if isNull(p) {
			preds[i] = &Literal{Kind: LitBool, Bool: false}
		}
	}
	out.Where = and(preds...)
	return out
}

// part translates one path pattern. It binds the pattern's variables in
// sc and returns the predicates its labels and types need, and closures
// that add the predicates of its property maps to t.propPreds.
func (t *translator) part(part *PatternPart, sc *scope, index int) (*PatternPart, []Expr, []relBinding, []func()) {
	out := &PatternPart{P: part.P, Var: part.Var}
	var preds []Expr
	var rels []relBinding
	var deferred []func()
	for i, n := range part.Nodes {
		if i > 0 {
			rp, ps, rb, d := t.rel(part.Rels[i-1], part, sc, index)
			out.Rels = append(out.Rels, rp)
			preds = append(preds, ps...)
			rels = append(rels, rb)
			deferred = append(deferred, d...)
		}
		np := &NodePattern{P: n.P, Var: n.Var}
		if np.Var == "" && (len(n.Labels) > 0 || n.Props != nil) {
			np.Var = t.newName("n")
			sc.bind(np.Var, nodeKind, true)
		} else if np.Var != "" {
			if k, bound := sc.lookup(np.Var); !bound {
				sc.bind(np.Var, nodeKind, false)
			} else if k.tag != kNode && k.tag != kUnknown {
				t.fail(KindSyntax, n.P, "variable `%s` is not a node", np.Var)
			}
		}
		if len(n.Labels) > 0 {
			preds = append(preds, t.labelPredicate(&Var{Name: np.Var}, n.Labels))
		}
		if n.Props != nil {
			v, props := np.Var, n.Props
			deferred = append(deferred, func() { t.propMapPredicates(&Var{Name: v}, nodeKind, props, sc) })
		}
		out.Nodes = append(out.Nodes, np)
	}
	if part.Var != "" {
		k := kind{tag: kPath}
		if t.optional && len(out.Rels) > 0 {
			k.nullVar = out.Rels[0].Var
		}
		sc.bind(part.Var, k, false)
	}
	if part.Shortest != ShortestNone {
		t.shortest(part, out)
	}
	return out, preds, rels, deferred
}

// shortest turns shortestPath(...) and allShortestPaths(...) into Kuzu's
// SHORTEST and ALL SHORTEST recursive relationships.
func (t *translator) shortest(in, out *PatternPart) {
	if len(out.Rels) != 1 || !out.Rels[0].VarLength {
		t.fail(KindUnsupported, in.P, "shortestPath() needs exactly one variable-length relationship, like shortestPath((a)-[*..10]-(b))")
	}
	r := out.Rels[0]
	if r.Semantics != SemTrail && r.Semantics != SemDefault {
		t.fail(KindSyntax, in.P, "shortestPath() cannot be combined with %s", r.Semantics)
	}
	r.Semantics = SemShortest
	if in.Shortest == ShortestAll {
		r.Semantics = SemAllShortest
	}
	if r.Min != nil && *r.Min == 0 {
		t.fail(KindUnsupported, in.P, "shortest paths of length 0 are not supported; start the range at 1")
	}
}

func (t *translator) rel(r *RelPattern, part *PatternPart, sc *scope, index int) (*RelPattern, []Expr, relBinding, []func()) {
	out := &RelPattern{P: r.P, Var: r.Var, Dir: r.Dir, VarLength: r.VarLength, Min: r.Min, Max: r.Max, Semantics: r.Semantics}
	var preds []Expr
	for _, typ := range r.Types {
		t.unknownType(typ)
	}
	tables, ok := t.s.tablesOf(r.Types)
	out.Types = tables
	if !ok {
		// No table exists for any of the types: in openCypher the pattern
		// matches nothing, so it becomes an any-type pattern that a false
		// predicate rejects.
		out.Types = nil
		preds = append(preds, &Literal{Kind: LitBool, Bool: false})
	}
	if out.VarLength && (out.Semantics == SemDefault || out.Semantics == SemWalk) {
		if out.Semantics == SemDefault && part.Shortest == ShortestNone {
			// openCypher never repeats a relationship in a path; Kuzu's
			// default (walk) does.
			out.Semantics = SemTrail
		} else {
			out.Semantics = SemDefault
		}
	}
	// Types kept in the shared table are told apart by the type column:
	// a fixed-length relationship tests it in the clause's WHERE, each
	// step of a variable-length one in its filter.
	shared := t.s.sharedTypes(r.Types)
	if out.Var == "" && ((r.Props != nil && !r.VarLength) || t.nameRels || (t.optional && part.Var != "") ||
		(shared != nil && !r.VarLength)) {
		// A path of an OPTIONAL MATCH needs a named relationship to tell
		// whether it matched (see kind.nullVar).
		out.Var = t.newName("r")
	}
	k := relKind(tables)
	if r.VarLength {
		k.tag = kVarLen
		k.optional = t.optional
	}
	if out.Var != "" {
		sc.bind(out.Var, k, out.Var != r.Var)
	}
	if shared != nil && !r.VarLength {
		preds = append(preds, typeIn(&Var{Name: out.Var}, shared))
	}
	var deferred []func()
	if r.Filter != nil || (r.VarLength && (r.Props != nil || shared != nil)) {
		out.FilterRel, out.FilterNode = r.FilterRel, r.FilterNode
		if out.FilterRel == "" {
			out.FilterRel, out.FilterNode = t.newName("e"), t.newName("m")
		}
		inner := newScope(sc)
		inner.bind(out.FilterRel, relKind(tables), true)
		inner.bind(out.FilterNode, nodeKind, true)
		filterRel, userFilter, props := out.FilterRel, r.Filter, r.Props
		deferred = append(deferred, func() {
			var f Expr
			if userFilter != nil {
				f = t.predicate(userFilter, inner)
			}
			if props != nil {
				saved := t.propPreds
				t.propPreds = nil
				t.propMapPredicates(&Var{Name: filterRel}, relKind(tables), props, inner)
				f = and(append([]Expr{f}, t.propPreds...)...)
				t.propPreds = saved
			}
			if shared != nil {
				f = and(typeIn(&Var{Name: filterRel}, shared), f)
			}
			out.Filter = f
		})
	} else if r.Props != nil {
		v, props := out.Var, r.Props
		deferred = append(deferred, func() { t.propMapPredicates(&Var{Name: v}, relKind(tables), props, sc) })
	}
	var binding relBinding
	if out.Var != "" {
		binding = relBinding{name: out.Var, varLength: r.VarLength, tables: tables, part: index}
	}
	return out, preds, binding, deferred
}

// propMapPredicates adds x.key = value for each entry of an inline property
// map to t.propPreds.
func (t *translator) propMapPredicates(x Expr, k kind, props Expr, sc *scope) {
	switch m := props.(type) {
	case *MapLit:
		for i, key := range m.Keys {
			lhs, _ := t.property(x, k, key, m.P)
			rhs, _ := t.expr(m.Values[i], sc)
			t.propPreds = append(t.propPreds, foldBinary(&Binary{P: m.P, Op: "=", L: lhs, R: rhs}))
		}
	case *Param:
		v, ok := t.params[m.Name]
		if !ok {
			t.fail(KindParameter, m.P, "parameter $%s is not set", m.Name)
		}
		mv, ok := v.(map[string]any)
		if !ok {
			t.fail(KindParameter, m.P, "parameter $%s is used as a property map but is not a map", m.Name)
		}
		lit, _ := t.literal(mv, m.P)
		t.propMapPredicates(x, k, lit, sc)
	}
}

// labelPredicate is list_contains(x.labels, 'A') AND ... for each
// conjunction, OR'ed: a note has several labels, the database's node table
// one.
func (t *translator) labelPredicate(x Expr, labels LabelExpr) Expr {
	for _, conj := range labels {
		for _, l := range conj {
			t.unknownLabel(l)
		}
	}
	if len(labels) > 1 || len(labels) == 1 && len(labels[0]) > 1 {
		if !simple(x) {
			return t.bindOnce(x, func(x Expr) Expr { return t.labelPredicate(x, labels) })
		}
	}
	var or Expr
	for _, conj := range labels {
		var a Expr
		for _, l := range conj {
			c := &FuncCall{Name: "list_contains", Args: []Expr{&Prop{X: x, Key: "labels"}, &Literal{Kind: LitString, Str: l}}}
			a = and(a, c)
		}
		if or == nil {
			or = a
		} else {
			or = &Binary{Op: "OR", L: or, R: a}
		}
	}
	return or
}

// typeIn is x.vg_type IN [types...] (= for one type): it picks the
// relationships of the types out of the shared table, and holds for
// every row of a type's own table.
func typeIn(x Expr, types []string) Expr {
	col := &Prop{X: x, Key: format.GraphTypeColumn}
	if len(types) == 1 {
		return &Binary{Op: "=", L: col, R: &Literal{Kind: LitString, Str: types[0]}}
	}
	list := &ListLit{}
	for _, typ := range types {
		list.Items = append(list.Items, &Literal{Kind: LitString, Str: typ})
	}
	return &Binary{Op: "IN", L: col, R: list}
}

// typePredicate is the label predicate of a relationship: r:T holds when
// r's type is T.
func (t *translator) typePredicate(x Expr, labels LabelExpr) Expr {
	for _, conj := range labels {
		for _, l := range conj {
			t.unknownType(l)
		}
	}
	if len(labels) > 1 || len(labels) == 1 && len(labels[0]) > 1 {
		if !simple(x) {
			return t.bindOnce(x, func(x Expr) Expr { return t.typePredicate(x, labels) })
		}
	}
	var or Expr
	for _, conj := range labels {
		var a Expr
		for _, l := range conj {
			a = and(a, &Binary{Op: "=", L: &Prop{X: x, Key: format.GraphTypeColumn}, R: &Literal{Kind: LitString, Str: l}})
		}
		if or == nil {
			or = a
		} else {
			or = &Binary{Op: "OR", L: or, R: a}
		}
	}
	return or
}

// uniqueness returns the predicates that keep one MATCH from binding a
// relationship twice, as openCypher requires and Kuzu does not: r1 <> r2
// for fixed-length pairs, NOT list_contains(rels(v), r) between a fixed and
// a variable-length one, and is_trail(p) over a path holding two
// variable-length relationships. Two variable-length relationships in
// different parts of the pattern are not checked (see doc.go).
func (t *translator) uniqueness(rels []relBinding, parts []*PatternPart, sc *scope) []Expr {
	var preds []Expr
	trailParts := map[int]bool{}
	for i := 0; i < len(rels); i++ {
		for j := i + 1; j < len(rels); j++ {
			a, b := rels[i], rels[j]
			if a.name == "" || b.name == "" || a.name == b.name || !overlap(a.tables, b.tables) {
				continue
			}
			switch {
			case !a.varLength && !b.varLength:
				preds = append(preds, &Binary{Op: "<>", L: &Var{Name: a.name}, R: &Var{Name: b.name}})
			case a.varLength && b.varLength:
				if a.part == b.part {
					trailParts[a.part] = true
				}
			default:
				v, r := a, b
				if b.varLength {
					v, r = b, a
				}
				preds = append(preds, &Unary{Op: "NOT", X: &FuncCall{Name: "list_contains", Args: []Expr{
					&FuncCall{Name: "rels", Args: []Expr{&Var{Name: v.name}}}, &Var{Name: r.name}}}})
			}
		}
	}
	for i := range parts {
		if !trailParts[i] {
			continue
		}
		if parts[i].Var == "" {
			parts[i].Var = t.newName("p")
			sc.bind(parts[i].Var, kind{tag: kPath}, true)
		}
		preds = append(preds, &FuncCall{Name: "is_trail", Args: []Expr{&Var{Name: parts[i].Var}}})
	}
	return preds
}

func overlap(a, b []string) bool {
	if a == nil || b == nil {
		return true
	}
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}
