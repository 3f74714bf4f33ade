package cypher

import (
	"strconv"
	"strings"
)

// pattern reads comma-separated pattern parts.
func (p *parser) pattern() []*PatternPart {
	var parts []*PatternPart
	for {
		parts = append(parts, p.patternPart())
		if !p.acceptPunct(",") {
			return parts
		}
	}
}

// patternPart reads [var =] [shortestPath(] element [)].
func (p *parser) patternPart() *PatternPart {
	p.enter()
	defer p.leave()
	part := &PatternPart{P: p.tok().pos}
	if p.isName(false) && p.peek(1).kind == tokPunct && p.peek(1).text == "=" {
		part.Var, _ = p.name("a path name", false)
		p.next()
	}
	switch {
	case p.isKw("shortestPath") && p.peek(1).text == "(":
		part.Shortest = ShortestOne
	case p.isKw("allShortestPaths") && p.peek(1).text == "(":
		part.Shortest = ShortestAll
	}
	if part.Shortest != ShortestNone {
		p.next()
		p.expectPunct("(")
		p.element(part)
		p.expectPunct(")")
		return part
	}
	p.element(part)
	return part
}

// element reads a node and the relationship-node pairs after it, or a
// parenthesised element.
func (p *parser) element(part *PatternPart) {
	if p.isPunct("(") && p.peek(1).kind == tokPunct && p.peek(1).text == "(" {
		p.enter()
		defer p.leave()
		p.next()
		p.element(part)
		p.expectPunct(")")
		return
	}
	part.Nodes = append(part.Nodes, p.node())
	for p.relAt(p.i) {
		part.Rels = append(part.Rels, p.rel())
		part.Nodes = append(part.Nodes, p.node())
	}
}

func (p *parser) node() *NodePattern {
	open := p.expectPunct("(")
	n := &NodePattern{P: open.pos}
	if p.isName(false) {
		n.Var, _ = p.name("a variable name", false)
	}
	if p.isPunct(":") {
		n.Labels = p.labelExpr(true)
	}
	switch {
	case p.isPunct("{"):
		n.Props = p.mapLit()
	case p.tok().kind == tokParam:
		t := p.next()
		n.Props = &Param{P: t.pos, Name: t.text}
	}
	if !p.isPunct(")") {
		p.fail(p.tok(), "expected ')' to close the node pattern, found %s", p.tok())
	}
	p.next()
	return n
}

// labelExpr reads :A:B (and), :A|B or :A|:B (or), :A&B (and). In
// expressions (allowOr false) '|' is left alone: it separates the parts of a
// list comprehension.
func (p *parser) labelExpr(allowOr bool) LabelExpr {
	p.expectPunct(":")
	first, _ := p.name("a label", true)
	expr := LabelExpr{{first}}
	for {
		switch {
		case p.isPunct(":") || p.isPunct("&"):
			p.next()
		case allowOr && p.isPunct("|"):
			p.next()
			p.acceptPunct(":")
			l, _ := p.name("a label", true)
			expr = append(expr, []string{l})
			continue
		default:
			return expr
		}
		l, _ := p.name("a label", true)
		expr[len(expr)-1] = append(expr[len(expr)-1], l)
	}
}

// rel reads <-[detail]-, -[detail]->, -[detail]- and the bracketless
// forms.
func (p *parser) rel() *RelPattern {
	r := &RelPattern{P: p.tok().pos}
	left := p.acceptPunct("<")
	p.expectPunct("-")
	if p.acceptPunct("[") {
		p.relDetail(r)
		p.expectPunct("]")
	}
	p.expectPunct("-")
	right := p.acceptPunct(">")
	switch {
	case left && !right:
		r.Dir = DirLeft
	case right && !left:
		r.Dir = DirRight
	default:
		r.Dir = DirBoth
	}
	return r
}

func (p *parser) relDetail(r *RelPattern) {
	if p.isName(false) {
		r.Var, _ = p.name("a variable name", false)
	}
	if p.acceptPunct(":") {
		for {
			t, _ := p.name("a relationship type", true)
			r.Types = append(r.Types, t)
			if !p.acceptPunct("|") {
				break
			}
			p.acceptPunct(":")
		}
	}
	if p.isPunct("*") {
		star := p.next()
		r.VarLength = true
		p.recursiveDetail(r, star)
	}
	switch {
	case p.isPunct("{"):
		r.Props = p.mapLit()
	case p.tok().kind == tokParam:
		t := p.next()
		r.Props = &Param{P: t.pos, Name: t.text}
	}
}

// recursiveDetail reads what follows '*': Kuzu's semantics keyword, the
// range and Kuzu's recursive filter (r, n | WHERE ...).
func (p *parser) recursiveDetail(r *RelPattern, star token) {
	switch {
	case p.acceptKw("ALL", "SHORTEST"):
		r.Semantics = SemAllShortest
	case p.acceptKw("SHORTEST"):
		r.Semantics = SemShortest
	case p.acceptKw("TRAIL"):
		r.Semantics = SemTrail
	case p.acceptKw("ACYCLIC"):
		r.Semantics = SemAcyclic
	case p.acceptKw("WALK"):
		r.Semantics = SemWalk
	case p.isKw("WSHORTEST"), p.isKw("ALL", "WSHORTEST"):
		p.failKind(KindUnsupported, p.tok(), "weighted shortest paths (WSHORTEST) are not supported")
	}
	if p.tok().kind == tokInt {
		n := p.bound()
		r.Min = &n
		if !p.isPunct("..") {
			m := n
			r.Max = &m
		}
	}
	if p.acceptPunct("..") {
		if p.tok().kind == tokInt {
			n := p.bound()
			r.Max = &n
		}
	}
	if r.Min != nil && r.Max != nil && *r.Min > *r.Max {
		p.fail(star, "the lower bound %d of a variable-length relationship is above its upper bound %d", *r.Min, *r.Max)
	}
	if p.acceptPunct("(") {
		r.FilterRel, _ = p.name("a relationship variable", false)
		p.expectPunct(",")
		r.FilterNode, _ = p.name("a node variable", false)
		p.expectPunct("|")
		p.expectKw("WHERE")
		r.Filter = p.expr()
		if p.isPunct("|") {
			p.failKind(KindUnsupported, p.tok(), "projections in a recursive filter are not supported")
		}
		p.expectPunct(")")
	}
}

func (p *parser) bound() int64 {
	t := p.next()
	n, err := strconv.ParseInt(strings.ReplaceAll(t.text, "_", ""), 10, 64)
	if err != nil || n < 0 || n > 1<<16 {
		p.fail(t, "invalid bound %s of a variable-length relationship", t.text)
	}
	return n
}
