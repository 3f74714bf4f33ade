package note

import (
	"slices"
	"strings"
)

// The recognisers below read one line as CommonMark's block structure does
// (spec sections 4 and 5), as far as setext headings need: whether a line
// is blank, a thematic break, a list item, a block quote, the start of an
// HTML block or a table's delimiter row. Each takes the line after its
// indentation; lineIndent gives that indentation.

// lineIndent returns the column of line's first non-blank byte, a tab
// advancing to the next multiple of four as in CommonMark, and its byte
// offset.
func lineIndent(line string) (col, off int) {
	for off < len(line) {
		switch line[off] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return col, off
		}
		off++
	}
	return col, off
}

// isBlankLine reports whether s holds only spaces and tabs.
func isBlankLine(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' {
			return false
		}
	}
	return true
}

// setextUnderline returns the heading level a setext heading underline
// gives: 1 for a run of '=', 2 for a run of '-', each optionally followed
// by spaces and tabs; 0 for anything else ("= =", "--- -", "-->").
func setextUnderline(s string) int {
	if s == "" || (s[0] != '=' && s[0] != '-') {
		return 0
	}
	if !isBlankLine(s[runLength(s, 0):]) {
		return 0
	}
	if s[0] == '=' {
		return 1
	}
	return 2
}

// thematicBreak reports whether s is a thematic break: three or more of
// the same '-', '*' or '_', with spaces and tabs anywhere between.
func thematicBreak(s string) bool {
	if s == "" || strings.IndexByte("-*_", s[0]) < 0 {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case s[0]:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// listMarker is the start of a list item.
type listMarker struct {
	content    int    // the column where the item's content starts
	text       string // the item's text on this line, from its first non-blank byte
	code       bool   // that text is indented code (five columns or more after the marker)
	interrupts bool   // the item may interrupt a paragraph
}

// listItem recognises the marker of a list item at the start of s: '-',
// '+' or '*', or one to nine digits then '.' or ')', followed by a space, a
// tab or the end of the line. col is the column s starts at: later lines
// must reach the item's content column to belong to it. An item may
// interrupt a paragraph only if it is not empty and, when ordered, starts
// at 1.
func listItem(s string, col int) (listMarker, bool) {
	n := 0
	switch {
	case s == "":
		return listMarker{}, false
	case s[0] == '-' || s[0] == '+' || s[0] == '*':
		n = 1
	default:
		for n < len(s) && n < 10 && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || n > 9 || n >= len(s) || (s[n] != '.' && s[n] != ')') {
			return listMarker{}, false
		}
		n++
	}
	rest := s[n:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return listMarker{}, false
	}
	m := listMarker{content: col + n}
	i := 0
	for ; i < len(rest) && (rest[i] == ' ' || rest[i] == '\t'); i++ {
		if rest[i] == ' ' {
			m.content++
		} else {
			m.content += 4 - m.content%4
		}
	}
	m.text = rest[i:]
	if m.text == "" || m.content-(col+n) > 4 {
		m.code = m.text != ""
		m.content = col + n + 1 // no content yet, or indented code
	}
	ordered := n > 1
	m.interrupts = m.text != "" && (!ordered || strings.TrimLeft(s[:n-1], "0") == "1")
	return m, true
}

// blockQuote reports whether s starts a block quote line ('>'), callouts
// included.
func blockQuote(s string) bool { return s != "" && s[0] == '>' }

// htmlBlockTags are the tag names that open an HTML block of CommonMark's
// type 6, which may interrupt a paragraph and ends at a blank line
// ("source" left the list in spec 0.31 and "search" joined it; both are
// kept).
var htmlBlockTags = map[string]bool{
	"address": true, "article": true, "aside": true, "base": true, "basefont": true,
	"blockquote": true, "body": true, "caption": true, "center": true, "col": true,
	"colgroup": true, "dd": true, "details": true, "dialog": true, "dir": true,
	"div": true, "dl": true, "dt": true, "fieldset": true, "figcaption": true,
	"figure": true, "footer": true, "form": true, "frame": true, "frameset": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"head": true, "header": true, "hr": true, "html": true, "iframe": true,
	"legend": true, "li": true, "link": true, "main": true, "menu": true,
	"menuitem": true, "nav": true, "noframes": true, "ol": true, "optgroup": true,
	"option": true, "p": true, "param": true, "search": true, "section": true,
	"source": true, "summary": true, "table": true, "tbody": true, "td": true,
	"tfoot": true, "th": true, "thead": true, "title": true, "tr": true,
	"track": true, "ul": true,
}

// htmlRawTags open an HTML block of type 1, which ends at the line holding
// any of htmlRawClosers (in any case); rawHTMLCloser stands for them.
var (
	htmlRawTags    = []string{"pre", "script", "style", "textarea"}
	htmlRawClosers = []string{"</pre>", "</script>", "</style>", "</textarea>"}
)

const rawHTMLCloser = "</"

// htmlBlock recognises the start of an HTML block (spec 4.6). closer is
// what ends it ("" for a block that ends at a blank line); interrupts is
// false for type 7 (a lone complete tag), which cannot interrupt a
// paragraph. A complete tag is approximated as a line that starts with a
// tag and whose first '>' ends it, so "<a title=\"a lot" is text, as in
// the spec's example.
func htmlBlock(s string) (closer string, interrupts, ok bool) {
	switch {
	case len(s) < 2 || s[0] != '<':
		return "", false, false
	case strings.HasPrefix(s, "<!--"):
		return "-->", true, true
	case s[1] == '?':
		return "?>", true, true
	case strings.HasPrefix(s, "<![CDATA["):
		return "]]>", true, true
	case s[1] == '!' && len(s) > 2 && isASCIILetter(s[2]):
		return ">", true, true
	}
	closing := s[1] == '/'
	i := 1
	if closing {
		i = 2
	}
	j := i
	for j < len(s) && (isASCIILetter(s[j]) || s[j] >= '0' && s[j] <= '9' || s[j] == '-') {
		j++
	}
	if j == i || !isASCIILetter(s[i]) {
		return "", false, false
	}
	name, after := strings.ToLower(s[i:j]), s[j:]
	ends := after == "" || after[0] == ' ' || after[0] == '\t' || after[0] == '>'
	if !closing && ends && slices.Contains(htmlRawTags, name) {
		return rawHTMLCloser, true, true
	}
	if htmlBlockTags[name] && (ends || strings.HasPrefix(after, "/>")) {
		return "", true, true
	}
	t := strings.TrimRight(s, " \t")
	if strings.IndexByte(t, '>') == len(t)-1 {
		return "", false, true
	}
	return "", false, false
}

// htmlBlockEnds reports whether line ends an HTML block opened with
// closer.
func htmlBlockEnds(line, closer string) bool {
	if closer != rawHTMLCloser {
		return strings.Contains(line, closer)
	}
	l := strings.ToLower(line)
	for _, c := range htmlRawClosers {
		if strings.Contains(l, c) {
			return true
		}
	}
	return false
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// tableDelimiter reports whether s is the delimiter row of a GFM table
// ("|---|:--:|", "--- | ---"): cells of dashes with optional colons,
// separated by at least one '|'. The row under a paragraph's last line
// with as many cells (tableCells) makes that line a table header. A row
// without '|' ("---") is a setext underline: setext headings come first,
// as in cmark-gfm.
func tableDelimiter(s string) bool {
	if s == "" || (s[0] != '|' && s[0] != '-' && s[0] != ':') {
		return false
	}
	s = strings.TrimRight(s, " \t")
	if strings.IndexByte(s, '|') < 0 {
		return false
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "|"), "|")
	for {
		cell, rest, more := strings.Cut(s, "|")
		cell = strings.Trim(cell, " \t")
		cell = strings.TrimPrefix(strings.TrimSuffix(cell, ":"), ":")
		if cell == "" || strings.Trim(cell, "-") != "" {
			return false
		}
		if !more {
			return true
		}
		s = rest
	}
}

// tableCells counts the cells of a table row: the parts between unescaped
// '|', a leading and a trailing one left out.
func tableCells(s string) int {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "|")
	if strings.HasSuffix(s, "|") && !escaped(s, len(s)-1) {
		s = s[:len(s)-1]
	}
	n := 1
	for i := 0; i < len(s); i++ {
		if s[i] == '|' && !escaped(s, i) {
			n++
		}
	}
	return n
}
