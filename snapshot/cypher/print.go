package cypher

import (
	"math"
	"strconv"
	"strings"
)

// Print renders a query as text that both Kuzu and Parse accept. Every name
// is backquoted, so no name can be mistaken for a keyword, and every
// operand that is not atomic is parenthesised, so the output does not
// depend on either grammar's precedence rules. Strings use only the
// escapes Kuzu understands (\\ and \'); other characters are written as
// they are.
func Print(q *Query) string {
	var w printer
	w.query(q)
	return w.String()
}

// PrintExpr renders one expression the way Print does.
func PrintExpr(e Expr) string {
	var w printer
	w.expr(e)
	return w.String()
}

type printer struct {
	strings.Builder
	// limit, when positive, stops printing once the output is longer:
	// printBounded reports it instead of building an outsized query.
	limit int
}

// errTooLarge is raised by a bounded printer.
var errTooLarge = &Error{Kind: KindUnsupported, Message: "the translated query would be longer than 4 MiB"}

// printBounded prints q, failing once the output passes limit bytes.
func printBounded(q *Query, limit int) (s string, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			s, err = "", b.err
		}
	}()
	w := printer{limit: limit}
	w.query(q)
	return w.String(), nil
}

func (w *printer) query(q *Query) {
	for i, part := range q.Parts {
		if i > 0 {
			w.WriteString(" UNION ")
			if q.UnionAll[i-1] {
				w.WriteString("ALL ")
			}
		}
		for j, c := range part.Clauses {
			if j > 0 {
				w.WriteByte(' ')
			}
			w.clause(c)
		}
	}
}

func (w *printer) clause(c Clause) {
	switch c := c.(type) {
	case *Match:
		if c.Optional {
			w.WriteString("OPTIONAL ")
		}
		w.WriteString("MATCH ")
		w.pattern(c.Pattern)
		w.where(c.Where)
	case *Unwind:
		w.WriteString("UNWIND ")
		w.expr(c.Expr)
		w.WriteString(" AS ")
		w.name(c.Var)
	case *With:
		w.WriteString("WITH ")
		w.projection(c.Proj)
		w.where(c.Where)
	case *Return:
		w.WriteString("RETURN ")
		w.projection(c.Proj)
	case *CallClause:
		w.WriteString("CALL ")
		for i, part := range strings.Split(c.Proc, ".") {
			if i > 0 {
				w.WriteByte('.')
			}
			w.name(part)
		}
		w.WriteByte('(')
		w.exprList(c.Args)
		w.WriteByte(')')
		if c.YieldStar {
			w.WriteString(" YIELD *")
		}
		for i, y := range c.Yield {
			if i == 0 {
				w.WriteString(" YIELD ")
			} else {
				w.WriteString(", ")
			}
			w.name(y.Name)
			if y.Alias != "" {
				w.WriteString(" AS ")
				w.name(y.Alias)
			}
		}
		w.where(c.Where)
	}
}

func (w *printer) where(e Expr) {
	if e != nil {
		w.WriteString(" WHERE ")
		w.expr(e)
	}
}

func (w *printer) projection(p *Projection) {
	if p.Distinct {
		w.WriteString("DISTINCT ")
	}
	if p.Star {
		w.WriteByte('*')
		if len(p.Items) > 0 {
			w.WriteString(", ")
		}
	}
	for i, it := range p.Items {
		if i > 0 {
			w.WriteString(", ")
		}
		w.expr(it.Expr)
		if it.Alias != "" {
			w.WriteString(" AS ")
			w.name(it.Alias)
		}
	}
	for i, s := range p.Order {
		if i == 0 {
			w.WriteString(" ORDER BY ")
		} else {
			w.WriteString(", ")
		}
		w.expr(s.Expr)
		if s.Desc {
			w.WriteString(" DESC")
		}
	}
	if p.Skip != nil {
		w.WriteString(" SKIP ")
		w.expr(p.Skip)
	}
	if p.Limit != nil {
		w.WriteString(" LIMIT ")
		w.expr(p.Limit)
	}
}

func (w *printer) pattern(parts []*PatternPart) {
	for i, part := range parts {
		if i > 0 {
			w.WriteString(", ")
		}
		w.part(part)
	}
}

func (w *printer) part(part *PatternPart) {
	if part.Var != "" {
		w.name(part.Var)
		w.WriteString(" = ")
	}
	switch part.Shortest {
	case ShortestOne:
		w.WriteString("shortestPath(")
	case ShortestAll:
		w.WriteString("allShortestPaths(")
	}
	for i, n := range part.Nodes {
		if i > 0 {
			w.rel(part.Rels[i-1])
		}
		w.node(n)
	}
	if part.Shortest != ShortestNone {
		w.WriteByte(')')
	}
}

func (w *printer) node(n *NodePattern) {
	w.WriteByte('(')
	if n.Var != "" {
		w.name(n.Var)
	}
	w.labels(n.Labels, "|")
	if n.Props != nil {
		w.WriteByte(' ')
		w.expr(n.Props)
	}
	w.WriteByte(')')
}

func (w *printer) labels(l LabelExpr, or string) {
	for i, conj := range l {
		if i > 0 {
			w.WriteString(or)
		}
		for _, name := range conj {
			w.WriteByte(':')
			w.name(name)
		}
	}
}

func (w *printer) rel(r *RelPattern) {
	if r.Dir == DirLeft {
		w.WriteByte('<')
	}
	w.WriteString("-[")
	if r.Var != "" {
		w.name(r.Var)
	}
	for i, t := range r.Types {
		if i == 0 {
			w.WriteByte(':')
		} else {
			w.WriteByte('|')
		}
		w.name(t)
	}
	if r.VarLength {
		w.WriteByte('*')
		if r.Semantics != SemDefault {
			w.WriteByte(' ')
			w.WriteString(r.Semantics)
		}
		if r.Min != nil || r.Max != nil {
			w.WriteByte(' ')
			if r.Min != nil {
				w.WriteString(strconv.FormatInt(*r.Min, 10))
			}
			w.WriteString("..")
			if r.Max != nil {
				w.WriteString(strconv.FormatInt(*r.Max, 10))
			}
		}
		if r.Filter != nil {
			w.WriteString(" (")
			w.name(r.FilterRel)
			w.WriteString(", ")
			w.name(r.FilterNode)
			w.WriteString(" | WHERE ")
			w.expr(r.Filter)
			w.WriteByte(')')
		}
	}
	if r.Props != nil {
		w.WriteByte(' ')
		w.expr(r.Props)
	}
	w.WriteString("]-")
	if r.Dir == DirRight {
		w.WriteByte('>')
	}
}

// name writes a backquoted name; a backquote inside is doubled.
func (w *printer) name(s string) {
	w.WriteByte('`')
	w.WriteString(strings.ReplaceAll(s, "`", "``"))
	w.WriteByte('`')
}

func (w *printer) str(s string) {
	w.WriteByte('\'')
	for _, r := range s {
		if r == '\\' || r == '\'' {
			w.WriteByte('\\')
		}
		w.WriteRune(r)
	}
	w.WriteByte('\'')
}

func (w *printer) exprList(es []Expr) {
	for i, e := range es {
		if i > 0 {
			w.WriteString(", ")
		}
		w.expr(e)
	}
}

// atomic reports whether e can stand as an operand without parentheses in
// either grammar.
func atomic(e Expr) bool {
	switch e := e.(type) {
	case *Literal:
		return !(e.Kind == LitInt && e.Int < 0) && !(e.Kind == LitFloat && (e.Float < 0 || math.Signbit(e.Float)))
	case *Param, *Var, *FuncCall, *Case, *ListLit, *MapLit, *ListComp, *Quantified, *Reduce, *Subquery, *Cast, *MapProjection:
		return true
	}
	return false
}

func (w *printer) operand(e Expr) {
	if atomic(e) {
		w.expr(e)
		return
	}
	w.WriteByte('(')
	w.expr(e)
	w.WriteByte(')')
}

func (w *printer) expr(e Expr) {
	if w.limit > 0 && w.Len() > w.limit {
		panic(bailout{err: errTooLarge})
	}
	switch e := e.(type) {
	case *Literal:
		w.literal(e)
	case *Param:
		w.WriteByte('$')
		w.name(e.Name)
	case *Var:
		w.name(e.Name)
	case *Prop:
		w.operand(e.X)
		w.WriteByte('.')
		w.name(e.Key)
	case *HasLabels:
		w.operand(e.X)
		w.labels(e.Labels, "|")
	case *Binary:
		w.operand(e.L)
		w.WriteByte(' ')
		w.WriteString(e.Op)
		w.WriteByte(' ')
		if (e.Op == "-" || e.Op == "<") && startsRelLike(e.R) {
			// "(a) - [1]" and "(a) < -[1]" would read back as the
			// relationship patterns (a)-[...] and (a)<-[...].
			w.WriteByte('(')
			w.expr(e.R)
			w.WriteByte(')')
			return
		}
		w.operand(e.R)
	case *Unary:
		w.WriteString(e.Op)
		if e.Op == "NOT" {
			w.WriteByte(' ')
		}
		if _, ok := e.X.(*Literal); ok && e.Op != "NOT" {
			// -(5), not -5: the parser reads -5 as one literal, and the
			// printed text must parse back to the same tree.
			w.WriteByte('(')
			w.expr(e.X)
			w.WriteByte(')')
			return
		}
		w.operand(e.X)
	case *IsNull:
		w.operand(e.X)
		if e.Not {
			w.WriteString(" IS NOT NULL")
		} else {
			w.WriteString(" IS NULL")
		}
	case *Index:
		w.indexBase(e.X)
		w.WriteByte('[')
		w.expr(e.I)
		w.WriteByte(']')
	case *Slice:
		w.indexBase(e.X)
		w.WriteByte('[')
		if e.From != nil {
			w.expr(e.From)
		}
		w.WriteString("..")
		if e.To != nil {
			w.expr(e.To)
		}
		w.WriteByte(']')
	case *FuncCall:
		w.WriteString(e.Name)
		w.WriteByte('(')
		switch {
		case e.Star:
			w.WriteByte('*')
		case e.Distinct:
			w.WriteString("DISTINCT ")
			fallthrough
		default:
			w.exprList(e.Args)
		}
		w.WriteByte(')')
	case *Case:
		w.WriteString("CASE")
		if e.Subject != nil {
			w.WriteByte(' ')
			w.expr(e.Subject)
		}
		for _, wh := range e.Whens {
			w.WriteString(" WHEN ")
			w.expr(wh.Cond)
			w.WriteString(" THEN ")
			w.expr(wh.Then)
		}
		if e.Else != nil {
			w.WriteString(" ELSE ")
			w.expr(e.Else)
		}
		w.WriteString(" END")
	case *ListLit:
		w.WriteByte('[')
		w.exprList(e.Items)
		w.WriteByte(']')
	case *MapLit:
		w.WriteByte('{')
		for i, k := range e.Keys {
			if i > 0 {
				w.WriteString(", ")
			}
			w.name(k)
			w.WriteString(": ")
			w.expr(e.Values[i])
		}
		w.WriteByte('}')
	case *ListComp:
		w.WriteByte('[')
		w.name(e.Var)
		w.WriteString(" IN ")
		w.expr(e.List)
		if e.Where != nil {
			w.WriteString(" WHERE ")
			w.expr(e.Where)
		}
		if e.Map != nil {
			w.WriteString(" | ")
			w.expr(e.Map)
		}
		w.WriteByte(']')
	case *Quantified:
		w.WriteString(e.Kind)
		w.WriteByte('(')
		w.name(e.Var)
		w.WriteString(" IN ")
		w.expr(e.List)
		w.WriteString(" WHERE ")
		w.expr(e.Where)
		w.WriteByte(')')
	case *Reduce:
		w.WriteString("reduce(")
		w.name(e.Acc)
		w.WriteString(" = ")
		w.expr(e.Init)
		w.WriteString(", ")
		w.name(e.Var)
		w.WriteString(" IN ")
		w.expr(e.List)
		w.WriteString(" | ")
		w.expr(e.Expr)
		w.WriteByte(')')
	case *PatternPred:
		w.part(e.Part)
	case *Subquery:
		if e.Count {
			w.WriteString("COUNT { MATCH ")
		} else {
			w.WriteString("EXISTS { MATCH ")
		}
		w.pattern(e.Pattern)
		w.where(e.Where)
		w.WriteString(" }")
	case *MapProjection:
		w.name(e.Var)
		w.WriteByte('{')
		for i, it := range e.Items {
			if i > 0 {
				w.WriteString(", ")
			}
			switch it.Kind {
			case MapProjProp:
				w.WriteByte('.')
				w.name(it.Key)
			case MapProjAll:
				w.WriteString(".*")
			case MapProjLiteral:
				w.name(it.Key)
				w.WriteString(": ")
				w.expr(it.Expr)
			case MapProjVar:
				w.name(it.Key)
			}
		}
		w.WriteByte('}')
	case *Lambda:
		if len(e.Params) == 1 {
			w.name(e.Params[0])
		} else {
			w.WriteByte('(')
			for i, p := range e.Params {
				if i > 0 {
					w.WriteString(", ")
				}
				w.name(p)
			}
			w.WriteByte(')')
		}
		w.WriteString(" -> ")
		w.expr(e.Body)
	case *Cast:
		w.WriteString("CAST(")
		w.expr(e.X)
		w.WriteString(" AS ")
		w.WriteString(e.Type)
		w.WriteByte(')')
	case *PatternComp:
		w.WriteString("[/* pattern comprehension */]")
	}
}

// indexBase writes the operand of [index]: Kuzu accepts an atom with
// property lookups or another index there.
func (w *printer) indexBase(e Expr) {
	switch e.(type) {
	case *Prop, *Index, *Slice:
		w.expr(e)
	default:
		w.operand(e)
	}
}

func (w *printer) literal(l *Literal) {
	switch l.Kind {
	case LitNull:
		w.WriteString("NULL")
	case LitBool:
		if l.Bool {
			w.WriteString("true")
		} else {
			w.WriteString("false")
		}
	case LitInt:
		w.WriteString(strconv.FormatInt(l.Int, 10))
	case LitFloat:
		w.WriteString(formatFloat(l.Float))
	case LitString:
		w.str(l.Str)
	}
}

// formatFloat writes a float so that it reads back as a float: with a
// decimal point or an exponent, and without the '+' Kuzu's grammar refuses
// in exponents.
func formatFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	s = strings.Replace(s, "e+", "e", 1)
	if !strings.ContainsAny(s, ".eEn") { // n: NaN, Inf
		s += ".0"
	}
	return s
}

// startsRelLike reports whether e prints starting with '[' or '-'.
func startsRelLike(e Expr) bool {
	var w printer
	w.limit = 64 // only the first byte matters
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(bailout); !ok {
					panic(r)
				}
			}
		}()
		w.operand(e)
	}()
	out := w.String()
	return strings.HasPrefix(out, "[") || strings.HasPrefix(out, "-")
}
