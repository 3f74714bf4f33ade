package cypher

import (
	"fmt"
	"strings"
)

// Parse parses an openCypher read query. Errors are *Error: KindSyntax with
// the line and column of the first token that does not fit the grammar,
// KindReadOnly for a clause that writes or has side effects, KindUnsupported
// for openCypher the database cannot run. Parse never panics and runs in
// time linear in the length of the query.
func Parse(src string) (q *Query, err error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks}
	names := map[string]bool{}
	for _, t := range toks {
		if t.kind == tokIdent || t.kind == tokQuoted || t.kind == tokParam {
			names[t.text] = true
		}
	}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			if b.err.Kind == KindSyntax {
				if h := p.hint(p.index(b.at)); h != "" {
					b.err.Message += "; " + h
				}
			}
			q, err = nil, b.err
		}
	}()
	q = p.query()
	q.names = names
	return q, nil
}

// bailout carries a parse error, and the token it is at, up the recursive
// descent; Parse recovers it and nothing else, so a bug still crashes tests
// and fuzzing loudly.
type bailout struct {
	err *Error
	at  token
}

type parser struct {
	src     string
	toks    []token
	i       int
	depth   int
	closers map[int]int
}

// maxDepth bounds nesting so that a hostile query cannot exhaust the stack.
const maxDepth = 200

func (p *parser) tok() token { return p.toks[p.i] }

func (p *parser) peek(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) fail(t token, format string, args ...any) {
	panic(bailout{errorAt(KindSyntax, t.pos, format, args...), t})
}

func (p *parser) failKind(kind Kind, t token, format string, args ...any) {
	panic(bailout{errorAt(kind, t.pos, format, args...), t})
}

// index returns the index of t in the token list, or -1.
func (p *parser) index(t token) int {
	for i, u := range p.toks {
		if u.off == t.off && u.kind == t.kind {
			return i
		}
	}
	return -1
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail(p.tok(), "query is nested too deeply")
	}
}

func (p *parser) leave() { p.depth-- }

// isKw reports whether the next tokens are the given keywords.
func (p *parser) isKw(words ...string) bool {
	for i, w := range words {
		t := p.peek(i)
		if t.kind != tokIdent || !strings.EqualFold(t.text, w) {
			return false
		}
	}
	return true
}

func (p *parser) acceptKw(words ...string) bool {
	if !p.isKw(words...) {
		return false
	}
	for range words {
		p.next()
	}
	return true
}

func (p *parser) expectKw(words ...string) {
	if !p.acceptKw(words...) {
		p.fail(p.tok(), "expected %s, found %s", strings.Join(words, " "), p.tok())
	}
}

func (p *parser) isPunct(s string) bool {
	t := p.tok()
	return t.kind == tokPunct && t.text == s
}

func (p *parser) acceptPunct(s string) bool {
	if p.isPunct(s) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expectPunct(s string) token {
	if !p.isPunct(s) {
		p.fail(p.tok(), "expected '%s', found %s", s, p.tok())
	}
	return p.next()
}

// reserved words cannot be unquoted variable names: they would make the
// clause structure ambiguous.
var reserved = map[string]bool{
	"MATCH": true, "OPTIONAL": true, "RETURN": true, "WITH": true, "UNWIND": true, "WHERE": true,
	"ORDER": true, "BY": true, "SKIP": true, "LIMIT": true, "UNION": true, "AS": true, "AND": true,
	"OR": true, "XOR": true, "NOT": true, "IN": true, "IS": true, "DISTINCT": true, "CREATE": true,
	"MERGE": true, "SET": true, "DELETE": true, "DETACH": true, "REMOVE": true, "CALL": true,
	"YIELD": true, "CASE": true, "WHEN": true, "THEN": true, "ELSE": true, "END": true, "ASC": true,
	"DESC": true, "ASCENDING": true, "DESCENDING": true, "STARTS": true, "ENDS": true,
	"CONTAINS": true, "NULL": true, "TRUE": true, "FALSE": true,
}

// name reads a symbolic name: an unquoted identifier (keywords allowed
// when allowKeyword, for labels and property keys) or a `quoted` one.
func (p *parser) name(what string, allowKeyword bool) (string, token) {
	t := p.tok()
	switch {
	case t.kind == tokQuoted:
		p.next()
		return t.text, t
	case t.kind == tokIdent && (allowKeyword || !reserved[strings.ToUpper(t.text)]):
		p.next()
		return t.text, t
	}
	p.fail(t, "expected %s, found %s", what, t)
	return "", t
}

func (p *parser) isName(allowKeyword bool) bool {
	t := p.tok()
	return t.kind == tokQuoted || (t.kind == tokIdent && (allowKeyword || !reserved[strings.ToUpper(t.text)]))
}

// writeClauses start statements that change the database or the session.
var writeClauses = map[string]string{
	"CREATE": "CREATE", "MERGE": "MERGE", "SET": "SET", "DELETE": "DELETE", "DETACH": "DETACH DELETE",
	"REMOVE": "REMOVE", "FOREACH": "FOREACH", "LOAD": "LOAD", "COPY": "COPY", "INSTALL": "INSTALL",
	"UNINSTALL": "UNINSTALL", "ATTACH": "ATTACH", "EXPORT": "EXPORT DATABASE", "IMPORT": "IMPORT DATABASE",
	"DROP": "DROP", "ALTER": "ALTER", "CHECKPOINT": "CHECKPOINT", "USE": "USE", "UPDATE": "UPDATE",
	"FORCE": "FORCE INSTALL", "BEGIN": "BEGIN TRANSACTION", "COMMIT": "COMMIT", "ROLLBACK": "ROLLBACK",
	"TRUNCATE": "TRUNCATE",
}

func (p *parser) refuseWrite() {
	t := p.tok()
	if t.kind != tokIdent {
		return
	}
	if what, ok := writeClauses[strings.ToUpper(t.text)]; ok {
		p.failKind(KindReadOnly, t, "%s is not allowed: the graph is read-only (use MATCH ... RETURN)", what)
	}
	if p.isKw("EXPLAIN") || p.isKw("PROFILE") {
		p.failKind(KindUnsupported, t, "%s is not supported", strings.ToUpper(t.text))
	}
}

func (p *parser) query() *Query {
	q := &Query{}
	q.Parts = append(q.Parts, p.singleQuery())
	for p.isKw("UNION") {
		p.next()
		all := p.acceptKw("ALL")
		q.UnionAll = append(q.UnionAll, all)
		q.Parts = append(q.Parts, p.singleQuery())
	}
	if p.acceptPunct(";") && p.tok().kind != tokEOF {
		p.failKind(KindUnsupported, p.tok(), "only one statement per query")
	}
	if t := p.tok(); t.kind != tokEOF {
		p.fail(t, "unexpected %s after the end of the query", t)
	}
	return q
}

func (p *parser) singleQuery() *SingleQuery {
	sq := &SingleQuery{}
	for {
		p.refuseWrite()
		t := p.tok()
		switch {
		case p.isKw("MATCH"), p.isKw("OPTIONAL"):
			sq.Clauses = append(sq.Clauses, p.match())
		case p.isKw("UNWIND"):
			sq.Clauses = append(sq.Clauses, p.unwind())
		case p.isKw("WITH"):
			sq.Clauses = append(sq.Clauses, p.with())
		case p.isKw("CALL"):
			sq.Clauses = append(sq.Clauses, p.call())
		case p.isKw("RETURN"):
			sq.Clauses = append(sq.Clauses, p.ret())
			if p.tok().kind == tokEOF || p.isKw("UNION") || p.isPunct(";") {
				return sq
			}
			p.fail(p.tok(), "RETURN must be the last clause, found %s after it", p.tok())
		case t.kind == tokEOF || p.isKw("UNION") || p.isPunct(";"):
			if len(sq.Clauses) == 1 {
				if c, ok := sq.Clauses[0].(*CallClause); ok {
					c.Standalone = true
					return sq
				}
			}
			if len(sq.Clauses) == 0 {
				p.fail(t, "expected a query (MATCH ... RETURN ...), found %s", t)
			}
			p.fail(t, "a query must end with RETURN, found %s", t)
		default:
			p.fail(t, "expected a clause (MATCH, OPTIONAL MATCH, UNWIND, WITH, CALL or RETURN), found %s", t)
		}
	}
}

func (p *parser) match() *Match {
	m := &Match{P: p.tok().pos}
	if p.acceptKw("OPTIONAL") {
		m.Optional = true
	}
	p.expectKw("MATCH")
	m.Pattern = p.pattern()
	if p.acceptKw("WHERE") {
		m.Where = p.expr()
	}
	return m
}

func (p *parser) unwind() *Unwind {
	u := &Unwind{P: p.next().pos}
	u.Expr = p.expr()
	p.expectKw("AS")
	u.Var, _ = p.name("a variable name", false)
	return u
}

func (p *parser) with() *With {
	w := &With{P: p.next().pos}
	w.Proj = p.projection()
	if p.acceptKw("WHERE") {
		w.Where = p.expr()
	}
	return w
}

func (p *parser) ret() *Return {
	r := &Return{P: p.next().pos}
	r.Proj = p.projection()
	return r
}

func (p *parser) projection() *Projection {
	pr := &Projection{}
	pr.Distinct = p.acceptKw("DISTINCT")
	if p.acceptPunct("*") {
		pr.Star = true
		if !p.acceptPunct(",") {
			return p.projectionTail(pr)
		}
	}
	for {
		start := p.tok()
		e := p.expr()
		item := &ProjItem{Expr: e, Text: strings.TrimSpace(p.src[start.off:p.toks[p.i-1].end])}
		if p.acceptKw("AS") {
			item.Alias, _ = p.name("a column name after AS", true)
		}
		pr.Items = append(pr.Items, item)
		if !p.acceptPunct(",") {
			break
		}
	}
	return p.projectionTail(pr)
}

func (p *parser) projectionTail(pr *Projection) *Projection {
	if p.acceptKw("ORDER") {
		p.expectKw("BY")
		for {
			s := &SortItem{Expr: p.expr()}
			switch {
			case p.acceptKw("DESC"), p.acceptKw("DESCENDING"):
				s.Desc = true
			case p.acceptKw("ASC"), p.acceptKw("ASCENDING"):
			}
			pr.Order = append(pr.Order, s)
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	if p.acceptKw("SKIP") || p.acceptKw("OFFSET") {
		pr.Skip = p.expr()
	}
	if p.acceptKw("LIMIT") {
		pr.Limit = p.expr()
	}
	return pr
}

func (p *parser) call() *CallClause {
	c := &CallClause{P: p.next().pos}
	if p.isPunct("{") {
		p.failKind(KindUnsupported, p.tok(), "CALL { subquery } is not supported; use WITH and OPTIONAL MATCH")
	}
	// The name is kept as one dotted string, so a part may not hold a
	// dot itself (`a.b`): it would print as two parts.
	part := func() string {
		s, t := p.name("a procedure name", true)
		if strings.Contains(s, ".") {
			p.fail(t, "a procedure name part cannot contain '.'")
		}
		return s
	}
	name := part()
	for p.isPunct(".") {
		p.next()
		name += "." + part()
	}
	if p.isPunct("=") {
		p.failKind(KindReadOnly, p.tok(), "CALL %s = ... changes a setting and is not allowed", name)
	}
	c.Proc = name
	if p.acceptPunct("(") {
		if !p.acceptPunct(")") {
			for {
				c.Args = append(c.Args, p.expr())
				if !p.acceptPunct(",") {
					break
				}
			}
			p.expectPunct(")")
		}
	}
	if p.acceptKw("YIELD") {
		if p.acceptPunct("*") {
			c.YieldStar = true
		} else {
			for {
				var y YieldItem
				y.Name, _ = p.name("a yielded column", true)
				if p.acceptKw("AS") {
					y.Alias, _ = p.name("a variable name", false)
				}
				c.Yield = append(c.Yield, y)
				if !p.acceptPunct(",") {
					break
				}
			}
		}
		if p.acceptKw("WHERE") {
			c.Where = p.expr()
		}
	}
	return c
}

// closing returns the index of the token that closes the bracket at token
// i ("(", "[" or "{"), or -1 when it is never closed. The parser decides
// between a parenthesised expression and a path pattern by looking past the
// closing parenthesis, which keeps parsing linear: no alternative is ever
// parsed twice.
func (p *parser) closing(i int) int {
	if p.closers == nil {
		p.closers = make(map[int]int)
		var stack []int
		for j, t := range p.toks {
			if t.kind != tokPunct {
				continue
			}
			switch t.text {
			case "(", "[", "{":
				stack = append(stack, j)
			case ")", "]", "}":
				if n := len(stack); n > 0 && pairs(p.toks[stack[n-1]].text, t.text) {
					p.closers[stack[n-1]] = j
					stack = stack[:n-1]
				}
			}
		}
	}
	if j, ok := p.closers[i]; ok {
		return j
	}
	return -1
}

func pairs(open, close string) bool {
	return open+close == "()" || open+close == "[]" || open+close == "{}"
}

// relAt reports whether the tokens at i start a relationship pattern:
// -[, --, <-[ or <--.
func (p *parser) relAt(i int) bool {
	at := func(k int, s string) bool {
		if i+k >= len(p.toks) {
			return false
		}
		t := p.toks[i+k]
		return t.kind == tokPunct && t.text == s
	}
	switch {
	case at(0, "-"):
		return at(1, "[") || at(1, "-")
	case at(0, "<"):
		return at(1, "-") && (at(2, "[") || at(2, "-"))
	}
	return false
}

// patternAhead reports whether the "(" at token i opens a path pattern
// (a node pattern followed by a relationship) rather than an expression.
func (p *parser) patternAhead(i int) bool {
	j := p.closing(i)
	return j > 0 && p.relAt(j+1)
}

func (p *parser) String() string { return fmt.Sprintf("parser at %v", p.tok()) }
