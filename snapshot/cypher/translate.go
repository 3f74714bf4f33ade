package cypher

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// Options tune a translation.
type Options struct {
	// MaxRows, when positive, caps every final RETURN at MaxRows+1 rows
	// (lowering a larger LIMIT), so that the engine stops early and the
	// caller can still tell that rows were cut: it reads MaxRows rows and
	// reports truncation when one more exists. UNION (without ALL) is not
	// capped, because deduplication could then hide rows.
	MaxRows int
	// Schema, when it was made from the graph being translated for, saves
	// preparing the graph's names again for every query.
	Schema *Schema
}

// Schema is a graph's names prepared for translation. Make it once per
// graph with NewSchema and pass it in Options; it is never changed, so it
// is safe for concurrent use.
type Schema struct {
	g *format.Graph
	s *schema
}

// NewSchema prepares g's names for translation.
func NewSchema(g *format.Graph) *Schema {
	return &Schema{g: g, s: newSchema(g)}
}

// Translation is a query rewritten for the database.
type Translation struct {
	// Query is the text to run on Kuzu.
	Query string
	// Columns are the result columns as the user named them.
	Columns []string
	// Kinds say, for each of Columns, what the query returns there, as far
	// as the query tells: "node", "relationship" or "path" for a node,
	// relationship or path variable (even when every row holds null, as
	// OPTIONAL MATCH gives), "" when the values must tell.
	Kinds []string
	// Tree is the translated query, which Query prints: in storage names,
	// with parameters inlined. Callers may read it (package graphdb
	// answers simple shapes from it without the engine) and must not
	// change it.
	Tree *Query
	// SkipRows is how many of the engine's first rows the caller drops:
	// the SKIP of a final RETURN after ORDER BY larger than the engine
	// skips safely (see MaxOrderedSkip), which Query then reads as a
	// LIMIT raised by SkipRows and no SKIP.
	SkipRows int64
	// Notices name the labels and relationship types the query wrote that
	// the graph lacks, which match nothing (see notices.go), with the name
	// probably meant. The query still runs: they are for the caller to
	// show beside the rows.
	Notices []string
}

// Translate rewrites q, written in vault names, into a query on the
// database described by g. Parameters are inlined as literals: values are
// printed by the printer, never spliced as text, so they cannot change the
// query's structure, and an empty list or a null keeps its meaning (Kuzu
// cannot bind either). See doc.go for the rules and for where results
// differ from openCypher. Errors are *Error.
func Translate(q *Query, g *format.Graph, params map[string]any, opts Options) (*Translation, error) {
	if g == nil {
		return nil, &Error{Kind: KindUnsupported, Message: "the snapshot has no graph database"}
	}
	if err := CheckParams(params); err != nil {
		return nil, err
	}
	var sch *schema
	if opts.Schema != nil && opts.Schema.g == g {
		sch = opts.Schema.s
	} else {
		sch = newSchema(g)
	}
	t := &translator{s: sch, params: params, opts: opts, names: q.names}
	return t.run(q)
}

// Compile parses and translates in one step.
func Compile(src string, g *format.Graph, params map[string]any, opts Options) (*Translation, error) {
	q, err := Parse(src)
	if err != nil {
		return nil, err
	}
	return Translate(q, g, params, opts)
}

type translator struct {
	s      *schema
	params map[string]any
	opts   Options
	names  map[string]bool
	fresh  int
	// propPreds collects the predicates of inline property maps while a
	// MATCH is translated; nameRels tells rel to name every relationship.
	propPreds []Expr
	nameRels  bool
	// optional is set while an OPTIONAL MATCH is translated.
	optional bool
	// kinds are the column kinds of the last RETURN translated.
	kinds []string
	// skipInCaller is set while the final RETURN of a query of one part
	// is translated: a SKIP there too large for the engine goes to
	// skipRows, which the caller drops (Translation.SkipRows).
	skipInCaller bool
	skipRows     int64
	parts        int
	// notices collect Translation.Notices.
	notices []string
}

// fail aborts the translation; run recovers the *Error.
func (t *translator) fail(kind Kind, p Pos, format string, args ...any) {
	panic(bailout{err: errorAt(kind, p, format, args...)})
}

func (t *translator) run(q *Query) (tr *Translation, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			tr, err = nil, b.err
		}
	}()
	out := &Query{UnionAll: q.UnionAll}
	t.parts = len(q.Parts)
	var columns []string
	for i, part := range q.Parts {
		capRows := t.opts.MaxRows > 0 && (len(q.Parts) == 1 || allTrue(q.UnionAll))
		sq, cols := t.singleQuery(part, capRows)
		if i == 0 {
			columns = cols
		} else if !equalStrings(columns, cols) && columns != nil && cols != nil {
			t.fail(KindSyntax, firstPos(part), "all parts of a UNION must return the same columns: %s and %s", strings.Join(columns, ", "), strings.Join(cols, ", "))
		}
		out.Parts = append(out.Parts, sq)
	}
	text, err := printBounded(out, 4<<20)
	if err != nil {
		return nil, err
	}
	if strings.ContainsRune(text, 0) {
		return nil, &Error{Kind: KindUnsupported, Message: "the query contains a NUL character, which the engine cannot take"}
	}
	tr = &Translation{Query: text, Columns: columns, Tree: out, SkipRows: t.skipRows, Notices: t.notices}
	if len(t.kinds) == len(columns) {
		tr.Kinds = t.kinds
	}
	return tr, nil
}

func allTrue(bs []bool) bool {
	for _, b := range bs {
		if !b {
			return false
		}
	}
	return true
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func firstPos(sq *SingleQuery) Pos {
	if len(sq.Clauses) > 0 {
		return sq.Clauses[0].clausePos()
	}
	return Pos{}
}

// newName returns a variable name no user name can clash with.
func (t *translator) newName(prefix string) string {
	for {
		t.fresh++
		n := "_vg_" + prefix + strconv.Itoa(t.fresh)
		if !t.names[n] {
			return n
		}
	}
}

func (t *translator) singleQuery(sq *SingleQuery, capRows bool) (*SingleQuery, []string) {
	sc := newScope(nil)
	out := &SingleQuery{}
	var columns []string
	for _, c := range sq.Clauses {
		switch c := c.(type) {
		case *Match:
			out.Clauses = append(out.Clauses, t.match(c, sc))
		case *Unwind:
			e, k := t.expr(c.Expr, sc)
			if isNull(e) {
				// UNWIND null yields no rows; an untyped null would
				// reach Kuzu as type ANY.
				e = &ListLit{P: c.P}
			}
			sc.bind(c.Var, elemKind(k), false)
			out.Clauses = append(out.Clauses, &Unwind{P: c.P, Expr: e, Var: c.Var})
		case *With:
			proj, next, _ := t.projection(c.Proj, sc, false)
			if len(proj.Order) > 0 && proj.Skip == nil && proj.Limit == nil {
				// Kuzu accepts ORDER BY in WITH only before SKIP or
				// LIMIT; SKIP 0 keeps openCypher's meaning (the order
				// reaches collect() and the clauses after).
				proj.Skip = intLit(0)
			}
			w := &With{P: c.P, Proj: proj}
			if c.Where != nil {
				w.Where = t.predicate(c.Where, next)
			}
			sc = next
			out.Clauses = append(out.Clauses, w)
		case *Return:
			t.skipInCaller = t.parts == 1
			proj, _, cols := t.projection(c.Proj, sc, true)
			t.skipInCaller = false
			if capRows {
				t.capRows(proj)
			}
			columns = cols
			out.Clauses = append(out.Clauses, &Return{P: c.P, Proj: proj})
		case *CallClause:
			clauses, cols := t.call(c, sc)
			out.Clauses = append(out.Clauses, clauses...)
			if c.Standalone {
				columns = cols
				t.kinds = nil
				if capRows {
					if r, ok := out.Clauses[len(out.Clauses)-1].(*Return); ok {
						t.capRows(r.Proj)
					}
				}
			}
		}
	}
	return out, columns
}

// capRows lowers the final LIMIT to MaxRows+1.
func (t *translator) capRows(p *Projection) {
	limit := saturatingAdd(int64(t.opts.MaxRows)+1, t.skipRows)
	if l, ok := p.Limit.(*Literal); ok && l.Kind == LitInt && l.Int <= limit {
		return
	}
	if p.Limit != nil {
		if _, ok := p.Limit.(*Literal); !ok {
			// An expression: leave it; the reader still stops at MaxRows.
			return
		}
	}
	p.Limit = &Literal{Kind: LitInt, Int: limit}
}

// predicate translates a WHERE condition.
func (t *translator) predicate(e Expr, sc *scope) Expr {
	x, _ := t.expr(e, sc)
	if isNull(x) {
		return &Literal{Kind: LitBool, Bool: false}
	}
	return x
}

// and joins conditions; a false one makes the whole false.
func and(es ...Expr) Expr {
	var out Expr
	for _, e := range es {
		if e == nil {
			continue
		}
		if isFalse(e) {
			return e
		}
		if out == nil {
			out = e
		} else {
			out = &Binary{Op: "AND", L: out, R: e}
		}
	}
	return out
}

// projection translates the body of WITH or RETURN and returns the scope it
// creates and its column names.
func (t *translator) projection(p *Projection, sc *scope, final bool) (*Projection, *scope, []string) {
	out := &Projection{Distinct: p.Distinct}
	next := newScope(nil)
	var cols, kinds []string
	if final {
		defer func() { t.kinds = kinds }()
	}
	add := func(name string, e Expr, k kind, alias bool) {
		if !final && isNull(e) {
			// A null carried by WITH would reach later clauses as type
			// ANY, which crashes some Kuzu functions; a typed null does
			// not.
			e = &Cast{X: e, Type: "STRING"}
		}
		item := &ProjItem{Expr: e}
		// Kuzu wants an alias for a path even in WITH p.
		if v, ok := e.(*Var); !ok || v.Name != name || alias || k.tag == kPath {
			item.Alias = name
		}
		out.Items = append(out.Items, item)
		next.bind(name, k.settled(), false)
		cols = append(cols, name)
		if final {
			kinds = append(kinds, columnKind(k))
		}
	}
	if p.Star {
		names := sc.visible()
		if len(names) == 0 && len(p.Items) == 0 {
			t.fail(KindSyntax, Pos{}, "RETURN * or WITH * with no variables in scope")
		}
		for _, n := range names {
			e, k := t.expr(&Var{Name: n}, sc)
			add(n, e, k, false)
		}
	}
	for _, it := range p.Items {
		e, k := t.expr(it.Expr, sc)
		name := it.Alias
		if name == "" {
			if v, ok := it.Expr.(*Var); ok {
				name = v.Name
			} else if final {
				name = it.Text
			} else {
				t.fail(KindSyntax, PosOf(it.Expr), "expression %q in WITH must be aliased (add AS name)", it.Text)
			}
		}
		add(name, e, k, it.Alias != "")
	}
	seen := map[string]bool{}
	for _, c := range cols {
		if seen[c] {
			t.fail(KindSyntax, Pos{}, "column name %q is used twice; add AS to name them apart", c)
		}
		seen[c] = true
	}
	// ORDER BY sees the projected names and, as openCypher allows, the
	// variables that were in scope before the projection.
	orderScope := newScope(sc)
	for _, n := range next.order {
		orderScope.vars[n] = next.vars[n]
	}
	for _, s := range p.Order {
		// ORDER BY n.title after RETURN DISTINCT n.title (or an
		// aggregation) means the projected column; Kuzu only knows n,
		// which the projection dropped, so the key becomes the column's
		// name.
		scopeOfKey := orderScope
		if name, ok := projectedAs(s.Expr, p, cols); ok {
			if _, shadows := sc.lookup(name); !shadows {
				out.Order = append(out.Order, &SortItem{Expr: &Var{Name: name}, Desc: s.Desc})
				continue
			}
			// In Kuzu's ORDER BY a variable wins over a column of its
			// name (RETURN n.title AS l ORDER BY l sorts by the UNWIND's
			// l), so the key stays the expression, read before the
			// projection.
			if p.Distinct || aggregating(p) {
				t.fail(KindUnsupported, PosOf(s.Expr), "ORDER BY %s: its column %q has the name of a variable, which the engine sorts by instead; name the column apart (AS ...)", PrintExpr(s.Expr), name)
			}
			scopeOfKey = sc
		} else if v, ok := s.Expr.(*Var); ok {
			if i := slices.Index(cols, v.Name); i >= 0 {
				if _, shadows := sc.lookup(v.Name); shadows && !isVarNamed(p, cols, i) {
					// ORDER BY l means the column l (openCypher), which
					// Kuzu would take for the variable l: sort by the
					// column's expression.
					if p.Distinct || aggregating(p) {
						t.fail(KindUnsupported, PosOf(s.Expr), "ORDER BY %s: column %q has the name of a variable, which the engine sorts by instead; name the column apart (AS ...)", v.Name, v.Name)
					}
					out.Order = append(out.Order, &SortItem{Expr: out.Items[i].Expr, Desc: s.Desc})
					continue
				}
			}
		}
		e, _ := t.expr(s.Expr, scopeOfKey)
		out.Order = append(out.Order, &SortItem{Expr: e, Desc: s.Desc})
	}
	if p.Skip != nil {
		out.Skip, _ = t.expr(p.Skip, sc)
	}
	if p.Limit != nil {
		out.Limit, _ = t.expr(p.Limit, sc)
	}
	if out.Skip != nil && len(out.Order) > 0 {
		t.checkOrderedSkip(out, PosOf(p.Skip))
	}
	return out, next, cols
}

// isVarNamed reports whether column i of a projection is the variable of
// its name itself (RETURN l, or a variable RETURN * lists).
func isVarNamed(p *Projection, cols []string, i int) bool {
	offset := len(cols) - len(p.Items)
	if i < offset {
		return true
	}
	v, ok := p.Items[i-offset].Expr.(*Var)
	return ok && v.Name == cols[i]
}

// aggregating reports whether an item of p calls an aggregating function.
func aggregating(p *Projection) bool {
	for _, it := range p.Items {
		if hasAggregate(reflect.ValueOf(it.Expr)) {
			return true
		}
	}
	return false
}

// hasAggregate walks an expression's fields for a call of count, sum,
// avg, min, max or collect.
func hasAggregate(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return false
		}
		if f, ok := v.Interface().(*FuncCall); ok && aggregates[strings.ToLower(f.Name)] {
			return true
		}
		return hasAggregate(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && hasAggregate(v.Field(i)) {
				return true
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if hasAggregate(v.Index(i)) {
				return true
			}
		}
	}
	return false
}

// projectedAs returns the column of p whose expression is e, if any.
func projectedAs(e Expr, p *Projection, cols []string) (string, bool) {
	if _, isVar := e.(*Var); isVar {
		return "", false
	}
	text := PrintExpr(e)
	offset := len(cols) - len(p.Items)
	for i, it := range p.Items {
		if PrintExpr(it.Expr) == text {
			return cols[offset+i], true
		}
	}
	return "", false
}

// Procedures a query may CALL, in the order error messages list them. The
// db.* procedures are answered from the snapshot's schema, in vault names.
// show_functions is Kuzu's: it lists functions, which are named alike in
// every database. Kuzu's catalog procedures (show_tables, table_info,
// show_connection) list the database's tables and columns under their
// storage names (e_mentored_by_93c49ec0, p_role) and are refused, as is
// every other procedure: the translator cannot tell which of them write.
var procedures = []string{"db.labels()", "db.relationshipTypes()", "db.propertyKeys()", "show_functions()"}

// kuzuProcedures are the Kuzu procedures on the allow list, with their
// columns, so that the clauses after CALL can use them (Kuzu binds them
// all without YIELD).
var kuzuProcedures = map[string][]string{
	"show_functions": {"name", "type", "signature"},
}

// catalogProcedures are Kuzu procedures that would show storage names,
// with what to call instead.
var catalogProcedures = map[string]string{
	"show_tables":     "CALL db.labels() or CALL db.relationshipTypes()",
	"table_info":      "CALL db.propertyKeys()",
	"show_connection": "CALL db.relationshipTypes()",
}

// allowedProcedures lists the procedures a query may call, for messages:
// "a, b, c and d".
func allowedProcedures() string {
	n := len(procedures)
	return strings.Join(procedures[:n-1], ", ") + " and " + procedures[n-1]
}

func (t *translator) call(c *CallClause, sc *scope) ([]Clause, []string) {
	proc := strings.ToLower(c.Proc)
	var values []string
	var column string
	switch proc {
	case "db.labels":
		column = "label"
		for _, l := range t.s.g.Labels {
			values = append(values, l.Name)
		}
	case "db.relationshiptypes":
		column = "relationshipType"
		for _, et := range t.s.g.EdgeTypes {
			values = append(values, et.Name)
		}
	case "db.propertykeys":
		column = "propertyKey"
		values = t.s.propertyKeys()
	default:
		if _, ok := kuzuProcedures[proc]; ok {
			return t.kuzuCall(c, sc)
		}
		if instead, ok := catalogProcedures[proc]; ok {
			t.fail(KindUnsupported, c.P, "CALL %s() is not supported: it answers with the database's storage names (tables, columns), not the vault's; use %s", c.Proc, instead)
		}
		t.fail(KindReadOnly, c.P, "CALL %s is not allowed: queries are read-only and may call only %s", c.Proc, allowedProcedures())
	}
	if len(c.Args) > 0 {
		t.fail(KindSyntax, c.P, "%s() takes no arguments", c.Proc)
	}
	sort.Strings(values)
	name := column
	if len(c.Yield) > 0 {
		if len(c.Yield) != 1 || c.Yield[0].Name != column {
			t.fail(KindSyntax, c.P, "%s() yields only %s", c.Proc, column)
		}
		if c.Yield[0].Alias != "" {
			name = c.Yield[0].Alias
		}
	}
	list := &ListLit{P: c.P}
	for _, v := range values {
		list.Items = append(list.Items, &Literal{Kind: LitString, Str: v})
	}
	clauses := []Clause{&Unwind{P: c.P, Expr: list, Var: name}}
	sc.bind(name, kind{tag: kScalar, typ: "STRING"}, false)
	if c.Where != nil {
		w := t.predicate(c.Where, sc)
		clauses = append(clauses, &With{P: c.P, Proj: passThrough(sc), Where: w})
	}
	if c.Standalone {
		clauses = append(clauses, &Return{P: c.P, Proj: &Projection{Items: []*ProjItem{{Expr: &Var{Name: name}}}}})
	}
	return clauses, []string{name}
}

// kuzuCall passes a call of a Kuzu procedure on, in the form Kuzu
// accepts: its YIELD must list every column (the ones the query did not
// yield get hidden names), and it takes neither YIELD * (all columns are
// bound without YIELD) nor WHERE after YIELD (which becomes a WITH).
func (t *translator) kuzuCall(c *CallClause, sc *scope) ([]Clause, []string) {
	out := &CallClause{P: c.P, Proc: strings.ToLower(c.Proc)}
	for _, a := range c.Args {
		e, _ := t.expr(a, sc)
		out.Args = append(out.Args, e)
	}
	columns := kuzuProcedures[out.Proc]
	if len(c.Yield) == 0 {
		for _, n := range columns {
			sc.bind(n, kind{}, false)
		}
	} else {
		yielded := map[string]YieldItem{}
		for _, y := range c.Yield {
			if !slices.Contains(columns, y.Name) {
				t.fail(KindSyntax, c.P, "%s() yields %s, not %s", c.Proc, strings.Join(columns, ", "), y.Name)
			}
			yielded[y.Name] = y
		}
		for _, col := range columns {
			y, ok := yielded[col]
			switch {
			case !ok:
				y = YieldItem{Name: col, Alias: t.newName("yield")}
				sc.bind(y.Alias, kind{}, true)
			case y.Alias != "":
				sc.bind(y.Alias, kind{}, false)
			default:
				sc.bind(y.Name, kind{}, false)
			}
			out.Yield = append(out.Yield, y)
		}
	}
	clauses := []Clause{out}
	if c.Where != nil {
		w := t.predicate(c.Where, sc)
		clauses = append(clauses, &With{P: c.P, Proj: passThrough(sc), Where: w})
	}
	if !c.Standalone {
		return clauses, nil
	}
	ret := &Projection{}
	var cols []string
	for _, n := range sc.visible() {
		ret.Items = append(ret.Items, &ProjItem{Expr: &Var{Name: n}})
		cols = append(cols, n)
	}
	return append(clauses, &Return{P: c.P, Proj: ret}), cols
}

// passThrough is WITH v1, v2, ... for every visible variable.
func passThrough(sc *scope) *Projection {
	p := &Projection{}
	for _, n := range sc.visible() {
		p.Items = append(p.Items, &ProjItem{Expr: &Var{Name: n}})
	}
	return p
}

func describe(e Expr) string {
	s := PrintExpr(e)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// columnKind is Translation.Kinds' word for an expression of kind k.
func columnKind(k kind) string {
	switch k.tag {
	case kNode:
		return "node"
	case kRel:
		return "relationship"
	case kPath:
		return "path"
	}
	return ""
}
