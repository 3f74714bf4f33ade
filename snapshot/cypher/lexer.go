package cypher

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pos is a position in the query text: Line and Col are 1-based, Col counts
// characters (not bytes) so that editors and error messages agree.
type Pos struct {
	Line, Col int
}

type tokenKind int

const (
	tokEOF    tokenKind = iota
	tokIdent            // name or keyword, unquoted
	tokQuoted           // `backquoted name`
	tokString           // 'text' or "text", Text holds the decoded value
	tokInt              // Text holds the digits as written (0x.., 0o.. too)
	tokFloat
	tokParam // $name or $0, Text holds the name
	tokPunct // operators and punctuation, Text holds them
)

type token struct {
	kind tokenKind
	text string
	pos  Pos
	// off and end are byte offsets of the token in the source.
	off, end int
	// spaceBefore reports whitespace or a comment just before the token;
	// the parser needs it to tell "->" (a lambda arrow) from "- >".
	spaceBefore bool
}

func (t token) String() string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokString:
		return strconv.Quote(t.text)
	case tokQuoted:
		return "`" + t.text + "`"
	case tokParam:
		return "$" + t.text
	}
	return "'" + t.text + "'"
}

// maxQueryBytes bounds the text the lexer accepts; a longer query is almost
// certainly a mistake (parameters carry bulk data) and would only waste the
// parser's time.
const maxQueryBytes = 1 << 20

// lex splits src into tokens. It returns a syntax error for a character that
// starts no token, an unterminated string, comment or quoted name, an
// invalid escape or number.
func lex(src string) ([]token, error) {
	if len(src) > maxQueryBytes {
		return nil, &Error{Kind: KindSyntax, Message: "query longer than 1 MiB; pass bulk data as parameters", Line: 1, Column: 1}
	}
	if !utf8.ValidString(src) {
		return nil, &Error{Kind: KindSyntax, Message: "query is not valid UTF-8", Line: 1, Column: 1}
	}
	l := &lexer{src: src, line: 1, col: 1}
	// One token per four bytes covers typical queries (names, operators
	// and spaces alternate), so the slice is allocated once, not grown
	// through several copies (most of what a simple query allocated).
	toks := make([]token, 0, len(src)/4+8)
	for {
		space, err := l.skipSpace()
		if err != nil {
			return nil, err
		}
		t, err := l.next()
		if err != nil {
			return nil, err
		}
		t.spaceBefore = space
		toks = append(toks, t)
		if t.kind == tokEOF {
			return toks, nil
		}
	}
}

type lexer struct {
	src       string
	off       int
	line, col int
}

func (l *lexer) pos() Pos { return Pos{l.line, l.col} }

func (l *lexer) peek(n int) rune {
	off := l.off
	for i := 0; i < n; i++ {
		if off >= len(l.src) {
			return 0
		}
		_, w := utf8.DecodeRuneInString(l.src[off:])
		off += w
	}
	if off >= len(l.src) {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(l.src[off:])
	return r
}

func (l *lexer) advance() rune {
	r, w := utf8.DecodeRuneInString(l.src[l.off:])
	l.off += w
	if r == '\n' {
		l.line++
		l.col = 1
	} else {
		l.col++
	}
	return r
}

func (l *lexer) eof() bool { return l.off >= len(l.src) }

func (l *lexer) skipSpace() (bool, error) {
	skipped := false
	for !l.eof() {
		r := l.peek(0)
		switch {
		case unicode.IsSpace(r):
			l.advance()
		case r == '/' && l.peek(1) == '/':
			for !l.eof() && l.peek(0) != '\n' {
				l.advance()
			}
		case r == '/' && l.peek(1) == '*':
			start := l.pos()
			l.advance()
			l.advance()
			for {
				if l.eof() {
					return false, errorAt(KindSyntax, start, "comment is never closed (missing */)")
				}
				if l.peek(0) == '*' && l.peek(1) == '/' {
					l.advance()
					l.advance()
					break
				}
				l.advance()
			}
		default:
			return skipped, nil
		}
		skipped = true
	}
	return skipped, nil
}

// punctuation lists multi-character operators before their prefixes.
var punctuation = []string{"..", "<>", "!=", "<=", ">=", "=~", "(", ")", "[", "]", "{", "}", ",", ".", ":", ";", "|", "&", "+", "-", "*", "/", "%", "^", "=", "<", ">", "!"}

func (l *lexer) next() (token, error) {
	start, off := l.pos(), l.off
	if l.eof() {
		return token{kind: tokEOF, pos: start, off: off, end: off}, nil
	}
	r := l.peek(0)
	mk := func(kind tokenKind, text string) (token, error) {
		return token{kind: kind, text: text, pos: start, off: off, end: l.off}, nil
	}
	switch {
	case isIdentStart(r):
		for !l.eof() && isIdentPart(l.peek(0)) {
			l.advance()
		}
		return mk(tokIdent, l.src[off:l.off])
	case r == '`':
		name, err := l.quotedName()
		if err != nil {
			return token{}, err
		}
		return mk(tokQuoted, name)
	case r == '\'' || r == '"':
		s, err := l.stringLit()
		if err != nil {
			return token{}, err
		}
		return mk(tokString, s)
	case r >= '0' && r <= '9', r == '.' && isDigit(l.peek(1)):
		return l.number(start, off)
	case r == '$':
		l.advance()
		switch c := l.peek(0); {
		case isIdentStart(c) || isDigit(c):
			for !l.eof() && (isIdentPart(l.peek(0))) {
				l.advance()
			}
			return mk(tokParam, l.src[off+1:l.off])
		case c == '`':
			name, err := l.quotedName()
			if err != nil {
				return token{}, err
			}
			return mk(tokParam, name)
		}
		return token{}, errorAt(KindSyntax, start, "'$' must be followed by a parameter name")
	}
	for _, p := range punctuation {
		if strings.HasPrefix(l.src[l.off:], p) {
			for range p {
				l.advance()
			}
			return mk(tokPunct, p)
		}
	}
	return token{}, errorAt(KindSyntax, start, "unexpected character %q", r)
}

func (l *lexer) quotedName() (string, error) {
	start := l.pos()
	l.advance() // opening `
	var b strings.Builder
	for {
		if l.eof() {
			return "", errorAt(KindSyntax, start, "quoted name is never closed (missing `)")
		}
		r := l.advance()
		if r == '`' {
			// `` inside a quoted name stands for one backquote.
			if l.peek(0) == '`' {
				l.advance()
				b.WriteRune('`')
				continue
			}
			if b.Len() == 0 {
				return "", errorAt(KindSyntax, start, "empty name ``")
			}
			return b.String(), nil
		}
		b.WriteRune(r)
	}
}

func (l *lexer) stringLit() (string, error) {
	start := l.pos()
	quote := l.advance()
	var b strings.Builder
	for {
		if l.eof() {
			return "", errorAt(KindSyntax, start, "string is never closed (missing %c)", quote)
		}
		escPos := l.pos()
		r := l.advance()
		switch {
		case r == quote:
			return b.String(), nil
		case r != '\\':
			b.WriteRune(r)
			continue
		}
		if l.eof() {
			return "", errorAt(KindSyntax, start, "string is never closed (missing %c)", quote)
		}
		switch e := l.advance(); e {
		case '\\', '\'', '"':
			b.WriteRune(e)
		case 'b', 'B':
			b.WriteByte('\b')
		case 'f', 'F':
			b.WriteByte('\f')
		case 'n', 'N':
			b.WriteByte('\n')
		case 'r', 'R':
			b.WriteByte('\r')
		case 't', 'T':
			b.WriteByte('\t')
		case 'u', 'U':
			n := 4
			if e == 'U' {
				n = 8
			}
			var v rune
			for i := 0; i < n; i++ {
				d := hexValue(l.peek(0))
				if d < 0 {
					return "", errorAt(KindSyntax, escPos, "\\%c needs %d hex digits", e, n)
				}
				l.advance()
				v = v*16 + rune(d)
			}
			if !utf8.ValidRune(v) {
				return "", errorAt(KindSyntax, escPos, "\\%c escape is not a valid character", e)
			}
			b.WriteRune(v)
		default:
			return "", errorAt(KindSyntax, escPos, "unknown escape \\%c in string", e)
		}
	}
}

func (l *lexer) number(start Pos, off int) (token, error) {
	mk := func(kind tokenKind) (token, error) {
		if !l.eof() && isIdentPart(l.peek(0)) {
			return token{}, errorAt(KindSyntax, start, "invalid number %q", l.src[off:l.off]+string(l.peek(0)))
		}
		return token{kind: kind, text: l.src[off:l.off], pos: start, off: off, end: l.off}, nil
	}
	if l.peek(0) == '0' && (l.peek(1) == 'x' || l.peek(1) == 'X' || l.peek(1) == 'o' || l.peek(1) == 'O') {
		hex := l.peek(1) == 'x' || l.peek(1) == 'X'
		l.advance()
		l.advance()
		n := 0
		for !l.eof() && ((hex && hexValue(l.peek(0)) >= 0) || (!hex && l.peek(0) >= '0' && l.peek(0) <= '7')) {
			l.advance()
			n++
		}
		if n == 0 {
			return token{}, errorAt(KindSyntax, start, "invalid number %q", l.src[off:l.off])
		}
		return mk(tokInt)
	}
	kind := tokInt
	for isDigit(l.peek(0)) {
		l.advance()
	}
	// "1..3" is a range: the dot belongs to "..", not to a float.
	if l.peek(0) == '.' && isDigit(l.peek(1)) {
		kind = tokFloat
		l.advance()
		for isDigit(l.peek(0)) {
			l.advance()
		}
	}
	if e := l.peek(0); e == 'e' || e == 'E' {
		next := l.peek(1)
		if isDigit(next) || ((next == '-' || next == '+') && isDigit(l.peek(2))) {
			kind = tokFloat
			l.advance()
			if next == '-' || next == '+' {
				l.advance()
			}
			for isDigit(l.peek(0)) {
				l.advance()
			}
		}
	}
	return mk(kind)
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func isIdentStart(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Pc, r)
}

func isIdentPart(r rune) bool {
	return isIdentStart(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Sc, r)
}

func hexValue(r rune) int {
	switch {
	case r >= '0' && r <= '9':
		return int(r - '0')
	case r >= 'a' && r <= 'f':
		return int(r-'a') + 10
	case r >= 'A' && r <= 'F':
		return int(r-'A') + 10
	}
	return -1
}
