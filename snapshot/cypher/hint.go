package cypher

import (
	"fmt"
	"strings"
)

// Hints on syntax errors. Most syntax errors in queries written against a
// vault are names that needed backquotes: vault names keep the author's
// spaces and punctuation ([r:mentored by], (:Research Paper), n.first
// name, [r:depends-on]), people quote them as strings ([r:'mentored by']),
// or a word of the vault is a Cypher keyword ((order:Project)). The parser
// fails at the token after the first word, which says nothing about the
// fix, so Parse adds a hint to the message of a syntax error that looks
// like one of these. The hint is part of Message, so that every surface
// (the CLI, the REST API, the MCP tool) shows it.

// hint returns how to fix the syntax error at token i, or "" when the error
// does not look like a name that needed backquotes.
func (p *parser) hint(i int) string {
	if i <= 0 || i >= len(p.toks) {
		return ""
	}
	for _, h := range []func(int) string{p.spacedName, p.joinedName, p.quotedName, p.keywordName} {
		if s := h(i); s != "" {
			return s
		}
	}
	return ""
}

// spacedName: toks[i] is a word that follows the first word of a name on
// the same line, as in [r:mentored by] or n.first name.
func (p *parser) spacedName(i int) string {
	t, first := p.toks[i], p.toks[i-1]
	if t.kind != tokIdent || first.kind != tokIdent || !p.spacesBetween(i-1, i) || strings.EqualFold(t.text, "WHERE") {
		return ""
	}
	// The failing word may be a keyword (mentored by); the words after it
	// belong to the name until a keyword or anything but a word.
	last := i
	for last+1 < len(p.toks) && p.toks[last+1].kind == tokIdent && !reserved[strings.ToUpper(p.toks[last+1].text)] && p.spacesBetween(last, last+1) {
		last++
	}
	return p.backquote(i-1, last)
}

// joinedName: toks[i] is punctuation or a number written against the
// first word of a label or relationship type, as in [r:depends-on] or
// (n:v1.2).
func (p *parser) joinedName(i int) string {
	t, first := p.toks[i], p.toks[i-1]
	if t.spaceBefore || first.kind != tokIdent || i < 2 || !p.isSep(i-2, ":", "|", "&") {
		return ""
	}
	switch t.kind {
	case tokPunct:
		if strings.ContainsAny(t.text, "()[]{}:|,*$") {
			return ""
		}
	case tokInt, tokFloat:
	default:
		return ""
	}
	last := i
	for last+1 < len(p.toks) {
		n := p.toks[last+1]
		if n.spaceBefore || n.kind == tokEOF || n.kind == tokPunct && strings.ContainsAny(n.text, "()[]{}:|,*$") {
			break
		}
		last++
	}
	if p.toks[last].kind == tokPunct {
		return "" // a name does not end in punctuation: more likely a typo
	}
	return p.backquote(i-1, last)
}

// quotedName: toks[i] is a string where a name belongs, as in
// [r:'mentored by'] or n.'title'.
func (p *parser) quotedName(i int) string {
	t := p.toks[i]
	if t.kind != tokString || !p.isSep(i-1, ":", "|", "&", ".") {
		return ""
	}
	return "names are written in backquotes, not quotes: " + p.example(i, quoteName(t.text))
}

// keywordName: toks[i] is a keyword used as a variable, as in
// (order:Project), UNWIND list AS order, or a variable that WITH ... AS
// order bound.
func (p *parser) keywordName(i int) string {
	t := p.toks[i]
	if t.kind != tokIdent || !reserved[strings.ToUpper(t.text)] {
		return ""
	}
	next := p.toks[min(i+1, len(p.toks)-1)]
	variable := p.isSep(i-1, "(", "[") && next.kind == tokPunct && strings.Contains(":)]{", next.text) ||
		p.toks[i-1].kind == tokIdent && strings.EqualFold(p.toks[i-1].text, "AS")
	for j := 1; !variable && j+1 < i; j++ {
		variable = strings.EqualFold(p.toks[j-1].text, "AS") && p.toks[j-1].kind == tokIdent &&
			p.toks[j].kind == tokIdent && strings.EqualFold(p.toks[j].text, t.text)
	}
	if !variable {
		return ""
	}
	return fmt.Sprintf("%s is a keyword: to use it as a variable, backquote it (%s) or choose another name", strings.ToUpper(t.text), quoteName(t.text))
}

// backquote suggests writing the words of tokens first..last, as written,
// as one backquoted name when they stand where a name belongs.
func (p *parser) backquote(first, last int) string {
	if first < 1 || !p.isSep(first-1, ":", "|", "&", ".", "{", ",") {
		return ""
	}
	if p.isSep(first-1, ",", "{") && !p.isSep(last+1, ":") {
		return "" // a map key is followed by ':'
	}
	if open := p.opener(first); open >= 0 {
		// In a pattern the bracket must close after the words: in
		// (p:Person RETURN p the ')' is missing, not backquotes.
		if p.closing(open) <= last {
			return ""
		}
	} else if clauseWords[strings.ToUpper(p.toks[last].text)] {
		return ""
	}
	text := p.src[p.toks[first].off:p.toks[last].end]
	return fmt.Sprintf("if %q is one name, backquote it: %s", text, p.example(first, quoteName(text)))
}

// clauseWords start a clause; after a property or a label in an
// expression (n.title LIMIT 3) they are not part of a name.
var clauseWords = map[string]bool{
	"MATCH": true, "OPTIONAL": true, "RETURN": true, "WITH": true, "UNWIND": true, "WHERE": true, "ORDER": true,
	"SKIP": true, "LIMIT": true, "UNION": true, "CALL": true, "YIELD": true,
}

// opener returns the index of the bracket that opens the node or
// relationship pattern whose label or type starts at token first, or -1
// when first is not a label or type in a pattern.
func (p *parser) opener(first int) int {
	if !p.isSep(first-1, ":", "|", "&") {
		return -1
	}
	// Walk back over the variable, labels or types and their separators.
	for k := first - 2; k >= 0 && first-k < 64; k-- {
		switch t := p.toks[k]; {
		case p.isSep(k, "(", "["):
			return k
		case t.kind == tokIdent || t.kind == tokQuoted || p.isSep(k, ":", "|", "&"):
			continue
		}
		break
	}
	return -1
}

// example writes the pattern or expression around the name that starts at
// token first with name in its place: [r:`mentored by`],
// (a:`Research Paper`), n.`first name`, {`first name`: …}.
func (p *parser) example(first int, name string) string {
	sep := p.toks[first-1]
	switch sep.text {
	case "{", ",":
		return "{" + name + ": …}"
	}
	if open := p.opener(first); open >= 0 {
		closer := ")"
		if p.toks[open].text == "[" {
			closer = "]"
		}
		return p.src[p.toks[open].off:sep.end] + name + closer
	}
	// n.key, or n:Label in an expression.
	if first >= 2 && (p.toks[first-2].kind == tokIdent || p.toks[first-2].kind == tokQuoted) {
		return p.src[p.toks[first-2].off:sep.end] + name
	}
	return sep.text + name
}

// isSep reports whether token i is one of the punctuation marks given.
func (p *parser) isSep(i int, marks ...string) bool {
	if i < 0 || i >= len(p.toks) || p.toks[i].kind != tokPunct {
		return false
	}
	for _, m := range marks {
		if p.toks[i].text == m {
			return true
		}
	}
	return false
}

// spacesBetween reports whether tokens a and b are separated by spaces or
// tabs only: a name does not continue over a line break or a comment.
func (p *parser) spacesBetween(a, b int) bool {
	gap := p.src[p.toks[a].end:p.toks[b].off]
	return gap != "" && strings.Trim(gap, " \t") == ""
}

// quoteName backquotes a name, doubling backquotes inside it.
func quoteName(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}
