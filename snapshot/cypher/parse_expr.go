package cypher

import (
	"math"
	"strconv"
	"strings"
)

// Expression grammar, loosest first:
//
//	OR, XOR, AND, NOT, comparisons (chains like a < b < c mean a < b AND
//	b < c), IN / STARTS WITH / ENDS WITH / CONTAINS / =~ / IS [NOT] NULL,
//	+ -, * / %, ^, unary + -, then an atom followed by .key, [index],
//	[from..to] and :Label.

func (p *parser) expr() Expr {
	p.enter()
	defer p.leave()
	return p.or()
}

func (p *parser) binaryLevel(op string, next func() Expr) Expr {
	l := next()
	for p.isKw(op) {
		t := p.next()
		r := next()
		l = &Binary{P: t.pos, Op: op, L: l, R: r}
	}
	return l
}

func (p *parser) or() Expr  { return p.binaryLevel("OR", p.xor) }
func (p *parser) xor() Expr { return p.binaryLevel("XOR", p.and) }
func (p *parser) and() Expr { return p.binaryLevel("AND", p.not) }

func (p *parser) not() Expr {
	if p.isKw("NOT") {
		p.enter()
		defer p.leave()
		t := p.next()
		return &Unary{P: t.pos, Op: "NOT", X: p.not()}
	}
	return p.comparison()
}

var comparisonOps = map[string]bool{"=": true, "<>": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true}

func (p *parser) comparison() Expr {
	first := p.predicate()
	var result Expr
	l := first
	for p.tok().kind == tokPunct && comparisonOps[p.tok().text] {
		t := p.next()
		op := t.text
		if op == "!=" {
			op = "<>"
		}
		r := p.predicate()
		cmp := &Binary{P: t.pos, Op: op, L: l, R: r}
		if result == nil {
			result = cmp
		} else {
			// a < b < c is a < b AND b < c. b is written twice, so it
			// must be a plain term: nested chains would double in size
			// at every level.
			if !simple(l) {
				p.failKind(KindUnsupported, t, "in a comparison chain the middle terms must be variables, literals, parameters or properties; write a < b AND b < c")
			}
			result = &Binary{P: t.pos, Op: "AND", L: result, R: cmp}
		}
		l = r
	}
	if result == nil {
		return first
	}
	return result
}

// predicate reads the string, list and null predicates, which bind tighter
// than comparisons and looser than arithmetic.
func (p *parser) predicate() Expr {
	x := p.addSub()
	for {
		t := p.tok()
		switch {
		case p.isKw("IS", "NOT", "NULL"):
			p.next()
			p.next()
			p.next()
			x = &IsNull{P: t.pos, X: x, Not: true}
		case p.isKw("IS", "NULL"):
			p.next()
			p.next()
			x = &IsNull{P: t.pos, X: x}
		case p.isKw("IN"):
			p.next()
			x = &Binary{P: t.pos, Op: "IN", L: x, R: p.addSub()}
		case p.isKw("STARTS", "WITH"):
			p.next()
			p.next()
			x = &Binary{P: t.pos, Op: "STARTS WITH", L: x, R: p.addSub()}
		case p.isKw("ENDS", "WITH"):
			p.next()
			p.next()
			x = &Binary{P: t.pos, Op: "ENDS WITH", L: x, R: p.addSub()}
		case p.isKw("CONTAINS"):
			p.next()
			x = &Binary{P: t.pos, Op: "CONTAINS", L: x, R: p.addSub()}
		case p.isPunct("=~"):
			p.next()
			x = &Binary{P: t.pos, Op: "=~", L: x, R: p.addSub()}
		default:
			return x
		}
	}
}

func (p *parser) punctLevel(ops []string, next func() Expr) Expr {
	l := next()
	for {
		t := p.tok()
		found := false
		for _, op := range ops {
			if t.kind == tokPunct && t.text == op {
				found = true
				break
			}
		}
		if !found {
			return l
		}
		p.next()
		l = &Binary{P: t.pos, Op: t.text, L: l, R: next()}
	}
}

func (p *parser) addSub() Expr { return p.punctLevel([]string{"+", "-"}, p.mulDiv) }
func (p *parser) mulDiv() Expr { return p.punctLevel([]string{"*", "/", "%"}, p.power) }
func (p *parser) power() Expr  { return p.punctLevel([]string{"^"}, p.unary) }

func (p *parser) unary() Expr {
	t := p.tok()
	if t.kind != tokPunct || (t.text != "-" && t.text != "+") {
		return p.postfix()
	}
	p.enter()
	defer p.leave()
	p.next()
	// -9223372036854775808 is a literal, though its absolute value is not
	// an int64.
	if t.text == "-" && p.tok().kind == tokInt {
		if v, ok := parseInt(p.tok().text, true); ok {
			n := p.next()
			return p.postfixOn(&Literal{P: t.pos, Kind: LitInt, Int: v}, n)
		}
	}
	return &Unary{P: t.pos, Op: t.text, X: p.unary()}
}

func (p *parser) postfix() Expr {
	start := p.tok()
	return p.postfixOn(p.atom(), start)
}

func (p *parser) postfixOn(x Expr, start token) Expr {
	for {
		t := p.tok()
		switch {
		case p.isPunct("."):
			p.next()
			if p.isPunct("*") {
				p.failKind(KindUnsupported, p.tok(), "%s.* is not supported; use properties(%s)", p.src[start.off:t.off], p.src[start.off:t.off])
			}
			key, _ := p.name("a property name", true)
			x = &Prop{P: t.pos, X: x, Key: key}
		case p.isPunct("["):
			p.enter()
			p.next()
			x = p.indexOrSlice(x, t)
			p.leave()
		case p.isPunct(":") && (p.peek(1).kind == tokIdent || p.peek(1).kind == tokQuoted):
			x = &HasLabels{P: t.pos, X: x, Labels: p.labelExpr(false)}
		default:
			return x
		}
	}
}

func (p *parser) indexOrSlice(x Expr, open token) Expr {
	if p.acceptPunct("..") {
		s := &Slice{P: open.pos, X: x}
		if !p.isPunct("]") {
			s.To = p.expr()
		}
		p.expectPunct("]")
		return s
	}
	i := p.expr()
	if p.acceptPunct("..") {
		s := &Slice{P: open.pos, X: x, From: i}
		if !p.isPunct("]") {
			s.To = p.expr()
		}
		p.expectPunct("]")
		return s
	}
	p.expectPunct("]")
	return &Index{P: open.pos, X: x, I: i}
}

func parseInt(text string, negative bool) (int64, bool) {
	text = strings.ReplaceAll(text, "_", "")
	base := 10
	switch {
	case strings.HasPrefix(text, "0x") || strings.HasPrefix(text, "0X"):
		base, text = 16, text[2:]
	case strings.HasPrefix(text, "0o") || strings.HasPrefix(text, "0O"):
		base, text = 8, text[2:]
	}
	u, err := strconv.ParseUint(text, base, 64)
	if err != nil {
		return 0, false
	}
	switch {
	case negative && u <= 1<<63:
		return int64(-u), true
	case !negative && u <= math.MaxInt64:
		return int64(u), true
	}
	return 0, false
}

func (p *parser) atom() Expr {
	t := p.tok()
	switch t.kind {
	case tokInt:
		p.next()
		v, ok := parseInt(t.text, false)
		if !ok {
			p.fail(t, "integer %s does not fit in 64 bits", t.text)
		}
		return &Literal{P: t.pos, Kind: LitInt, Int: v}
	case tokFloat:
		p.next()
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil || math.IsInf(v, 0) {
			p.fail(t, "invalid number %s", t.text)
		}
		return &Literal{P: t.pos, Kind: LitFloat, Float: v}
	case tokString:
		p.next()
		return &Literal{P: t.pos, Kind: LitString, Str: t.text}
	case tokParam:
		p.next()
		return &Param{P: t.pos, Name: t.text}
	case tokQuoted:
		return p.variableOrProjection()
	case tokPunct:
		switch t.text {
		case "(":
			if p.patternAhead(p.i) {
				part := p.patternPart()
				return &PatternPred{P: t.pos, Part: part}
			}
			p.next()
			x := p.expr()
			p.expectPunct(")")
			return x
		case "[":
			return p.listAtom()
		case "{":
			return p.mapLit()
		}
		p.fail(t, "expected an expression, found %s", t)
	case tokEOF:
		p.fail(t, "expected an expression, found end of input")
	}
	return p.keywordAtom()
}

func (p *parser) keywordAtom() Expr {
	t := p.tok()
	next := p.peek(1)
	nextIs := func(s string) bool { return next.kind == tokPunct && next.text == s }
	switch strings.ToUpper(t.text) {
	case "NULL":
		p.next()
		return &Literal{P: t.pos, Kind: LitNull}
	case "TRUE", "FALSE":
		p.next()
		return &Literal{P: t.pos, Kind: LitBool, Bool: strings.EqualFold(t.text, "true")}
	case "CASE":
		return p.caseExpr()
	case "EXISTS":
		if nextIs("{") {
			return p.subquery(false)
		}
	case "COUNT":
		if nextIs("{") {
			return p.subquery(true)
		}
	case "ALL", "ANY", "NONE", "SINGLE":
		if nextIs("(") && p.peek(3).kind == tokIdent && strings.EqualFold(p.peek(3).text, "IN") {
			return p.quantified()
		}
	case "REDUCE":
		if nextIs("(") {
			return p.reduce()
		}
	case "CAST":
		if nextIs("(") {
			return p.cast()
		}
	case "SHORTESTPATH", "ALLSHORTESTPATHS":
		if nextIs("(") {
			p.failKind(KindUnsupported, t, "%s() is supported only in MATCH (MATCH p = %s(...))", t.text, t.text)
		}
	}
	if p.isFunctionCall() {
		return p.funcCall()
	}
	if t.kind == tokIdent && reserved[strings.ToUpper(t.text)] {
		p.fail(t, "expected an expression, found %s", t)
	}
	return p.variableOrProjection()
}

// isFunctionCall reports whether the tokens ahead are name(.name)* "(".
func (p *parser) isFunctionCall() bool {
	for k := 0; ; k += 2 {
		if t := p.peek(k); t.kind != tokIdent {
			return false
		}
		n := p.peek(k + 1)
		if n.kind != tokPunct {
			return false
		}
		switch n.text {
		case "(":
			return true
		case ".":
		default:
			return false
		}
	}
}

func (p *parser) variableOrProjection() Expr {
	name, t := p.name("an expression", false)
	v := &Var{P: t.pos, Name: name}
	if !p.isPunct("{") {
		return v
	}
	return p.mapProjection(v)
}

func (p *parser) mapProjection(v *Var) Expr {
	p.enter()
	defer p.leave()
	mp := &MapProjection{P: v.P, Var: v.Name}
	p.expectPunct("{")
	for !p.isPunct("}") {
		switch {
		case p.acceptPunct("."):
			if p.acceptPunct("*") {
				mp.Items = append(mp.Items, MapProjItem{Kind: MapProjAll})
			} else {
				key, _ := p.name("a property name", true)
				mp.Items = append(mp.Items, MapProjItem{Kind: MapProjProp, Key: key})
			}
		case p.peek(1).kind == tokPunct && p.peek(1).text == ":":
			key, _ := p.name("a key", true)
			p.next()
			mp.Items = append(mp.Items, MapProjItem{Kind: MapProjLiteral, Key: key, Expr: p.expr()})
		default:
			name, t := p.name("a map projection item", false)
			mp.Items = append(mp.Items, MapProjItem{Kind: MapProjVar, Key: name, Expr: &Var{P: t.pos, Name: name}})
		}
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct("}")
	return mp
}

func (p *parser) funcCall() Expr {
	p.enter()
	defer p.leave()
	t := p.next()
	f := &FuncCall{P: t.pos, Name: t.text}
	for p.acceptPunct(".") {
		part := p.next()
		f.Name += "." + part.text
	}
	p.expectPunct("(")
	if p.isPunct("*") && p.peek(1).text == ")" && p.peek(1).kind == tokPunct {
		p.next()
		p.next()
		f.Star = true
		return f
	}
	f.Distinct = p.acceptKw("DISTINCT")
	if p.acceptPunct(")") {
		return f
	}
	for {
		f.Args = append(f.Args, p.argument())
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")")
	return f
}

// argument reads a function argument, which may be a lambda: x -> expr or
// (x, y) -> expr.
func (p *parser) argument() Expr {
	t := p.tok()
	if p.isName(false) && p.arrowAt(p.i+1) {
		name, _ := p.name("a lambda parameter", false)
		p.next()
		p.next()
		return &Lambda{P: t.pos, Params: []string{name}, Body: p.expr()}
	}
	if p.isPunct("(") {
		if j := p.closing(p.i); j > 0 && p.arrowAt(j+1) {
			p.next()
			l := &Lambda{P: t.pos}
			for {
				name, _ := p.name("a lambda parameter", false)
				l.Params = append(l.Params, name)
				if !p.acceptPunct(",") {
					break
				}
			}
			p.expectPunct(")")
			p.next()
			p.next()
			l.Body = p.expr()
			return l
		}
	}
	return p.expr()
}

// arrowAt reports whether tokens i and i+1 are "-" and ">" written
// together.
func (p *parser) arrowAt(i int) bool {
	if i+1 >= len(p.toks) {
		return false
	}
	a, b := p.toks[i], p.toks[i+1]
	return a.kind == tokPunct && a.text == "-" && b.kind == tokPunct && b.text == ">" && !b.spaceBefore
}

func (p *parser) listAtom() Expr {
	p.enter()
	defer p.leave()
	open := p.next()
	// [x IN list WHERE ... | ...]
	if p.isName(false) && p.peek(1).kind == tokIdent && strings.EqualFold(p.peek(1).text, "IN") {
		lc := &ListComp{P: open.pos}
		lc.Var, _ = p.name("a variable name", false)
		p.next()
		lc.List = p.expr()
		if p.acceptKw("WHERE") {
			lc.Where = p.expr()
		}
		if p.acceptPunct("|") {
			lc.Map = p.expr()
		}
		p.expectPunct("]")
		return lc
	}
	// [(a)-->(b) | ...] and [p = (a)-->(b) | ...]
	if (p.isPunct("(") && p.patternAhead(p.i)) || (p.isName(false) && p.peek(1).text == "=" && p.peek(2).text == "(") {
		p.failKind(KindUnsupported, open, "pattern comprehensions are not supported; use OPTIONAL MATCH with collect(), or COUNT { } and EXISTS { }")
	}
	l := &ListLit{P: open.pos}
	if p.acceptPunct("]") {
		return l
	}
	for {
		l.Items = append(l.Items, p.expr())
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct("]")
	return l
}

func (p *parser) mapLit() *MapLit {
	p.enter()
	defer p.leave()
	open := p.expectPunct("{")
	m := &MapLit{P: open.pos}
	if p.acceptPunct("}") {
		return m
	}
	for {
		var key string
		if t := p.tok(); t.kind == tokString {
			p.next()
			key = t.text
			if key == "" {
				p.fail(t, "empty key in a map")
			}
		} else {
			key, _ = p.name("a key", true)
		}
		p.expectPunct(":")
		m.Keys = append(m.Keys, key)
		m.Values = append(m.Values, p.expr())
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct("}")
	return m
}

func (p *parser) caseExpr() Expr {
	p.enter()
	defer p.leave()
	t := p.next()
	c := &Case{P: t.pos}
	if p.isKw("END") {
		p.fail(p.tok(), "expected WHEN in CASE, found %s", p.tok())
	}
	if !p.isKw("WHEN") {
		c.Subject = p.expr()
	}
	for p.acceptKw("WHEN") {
		cond := p.expr()
		p.expectKw("THEN")
		c.Whens = append(c.Whens, When{Cond: cond, Then: p.expr()})
	}
	if len(c.Whens) == 0 {
		p.fail(p.tok(), "expected WHEN in CASE, found %s", p.tok())
	}
	if p.acceptKw("ELSE") {
		c.Else = p.expr()
	}
	p.expectKw("END")
	return c
}

func (p *parser) subquery(count bool) Expr {
	p.enter()
	defer p.leave()
	t := p.next()
	p.expectPunct("{")
	s := &Subquery{P: t.pos, Count: count}
	p.acceptKw("MATCH")
	s.Pattern = p.pattern()
	if p.acceptKw("WHERE") {
		s.Where = p.expr()
	}
	if !p.isPunct("}") {
		p.failKind(KindUnsupported, p.tok(), "only MATCH pattern [WHERE ...] is supported inside %s { }", strings.ToUpper(t.text))
	}
	p.next()
	return s
}

func (p *parser) quantified() Expr {
	p.enter()
	defer p.leave()
	t := p.next()
	q := &Quantified{P: t.pos, Kind: strings.ToUpper(t.text)}
	p.expectPunct("(")
	q.Var, _ = p.name("a variable name", false)
	p.expectKw("IN")
	q.List = p.expr()
	p.expectKw("WHERE")
	q.Where = p.expr()
	p.expectPunct(")")
	return q
}

func (p *parser) reduce() Expr {
	p.enter()
	defer p.leave()
	t := p.next()
	r := &Reduce{P: t.pos}
	p.expectPunct("(")
	r.Acc, _ = p.name("an accumulator name", false)
	p.expectPunct("=")
	r.Init = p.expr()
	p.expectPunct(",")
	r.Var, _ = p.name("a variable name", false)
	p.expectKw("IN")
	r.List = p.expr()
	p.expectPunct("|")
	r.Expr = p.expr()
	p.expectPunct(")")
	return r
}

func (p *parser) cast() Expr {
	p.enter()
	defer p.leave()
	t := p.next()
	c := &Cast{P: t.pos}
	p.expectPunct("(")
	c.X = p.expr()
	p.expectKw("AS")
	typ, _ := p.name("a type name", true)
	for p.isPunct("[") && p.peek(1).text == "]" {
		p.next()
		p.next()
		typ += "[]"
	}
	c.Type = strings.ToUpper(typ)
	p.expectPunct(")")
	return c
}

// simple reports whether e is a variable, literal, parameter or a property
// of one: an expression that may be repeated without growing the query.
func simple(e Expr) bool {
	switch e := e.(type) {
	case *Var, *Literal, *Param:
		return true
	case *Prop:
		return simple(e.X)
	}
	return false
}
