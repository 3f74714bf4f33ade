package note

import "strings"

// setextHeading is a heading written as a paragraph underlined with '='
// (level 1) or '-' (level 2), CommonMark's setext heading (spec 4.3).
type setextHeading struct {
	level     int
	title     string // the paragraph's lines, trimmed and joined by a space
	firstLine int    // the paragraph's first line
	underline int    // the line of '=' or '-'
}

// What the lines read so far leave open, as far as the next line is
// concerned.
const (
	// blockNone: nothing a line could continue (the start of the body, a
	// blank line, a fence, an ATX heading, a thematic break).
	blockNone = iota
	// blockParagraph: a paragraph outside any list item or block quote;
	// an underline makes it a setext heading.
	blockParagraph
	// blockContainer: a paragraph in a list item or a block quote, or a
	// table. Text lines continue it, but an underline never makes it a
	// heading: in the spec, "> Foo" or "- Foo" followed by "---" is a
	// block quote or list followed by a thematic break.
	blockContainer
	// blockHTML: an HTML block, which ends at a blank line or at its
	// closer (setextScanner.closer).
	blockHTML
	// blockCode: an indented code block; an unindented line ends it.
	blockCode
)

// setextScanner finds the setext headings of a note's body. It follows as
// much of CommonMark's block structure (and GFM's tables) as decides
// whether a line of '=' or '-' underlines a paragraph, reading each line
// beside its mask: nothing in fenced code, comments or math is a heading
// or an underline, and a line that starts with a code span, math or a
// comment starts no block. Headings inside list items and block quotes are
// not read, as ATX headings there ("- # H", "> # H") are not either.
type setextScanner struct {
	lt       *lineTable
	masked   string
	fenced   map[int]bool
	hidden   map[int]bool
	kind     int
	first    int    // the first line of the open paragraph
	list     int    // content column of the outermost open list item; -1 for none
	empty    bool   // that item has no content yet
	nested   bool   // the item's last paragraph is in a block quote or list inside it
	closer   string // what ends the open HTML block; "" for a blank line
	last     string // the last line read of the open paragraph
	headings []setextHeading
}

// findSetextHeadings returns the setext headings of the body lines
// [firstLine, lt.count()], in order.
func findSetextHeadings(lt *lineTable, m *mask, masked string, firstLine int) []setextHeading {
	s := &setextScanner{lt: lt, masked: masked, fenced: m.fenced, hidden: m.hidden, list: -1}
	for n, last := firstLine, lt.count(); n <= last; n++ {
		s.line(n)
	}
	return s.headings
}

// blockLine is a non-blank line of the body as the block structure reads
// it: from its first non-blank byte, as written and as masked (the two of
// the same length, a masked byte blank).
type blockLine struct {
	col    int    // the column the text starts at
	text   string // the line as written, from that column
	mask   string // the same bytes masked
	masked string // the whole masked line, in which body.go finds ATX headings
}

// plain reports whether the line starts with a code span, math or a
// comment: text, which starts no block.
func (l blockLine) plain() bool { return l.mask[0] == ' ' }

// unmasked reports whether nothing on the line is masked: a comment makes
// a line of '=' or '-' no underline.
func (l blockLine) unmasked() bool { return l.text == l.mask }

// line reads line n.
func (s *setextScanner) line(n int) {
	start, end := s.lt.span(n)
	ml, ol := s.masked[start:end], s.lt.text[start:end]
	if isBlankLine(ml) { // fenced lines are blank in the mask too
		switch {
		case isBlankLine(ol):
			s.blank()
			return
		case s.fenced[n]:
			if s.kind != blockHTML {
				s.kind = blockNone // a fence interrupts a paragraph
				if !s.fenced[n-1] {
					s.fence(ol)
				}
			}
			return
		case s.hidden[n]:
			s.hiddenLine(ol)
			return
		}
		// Else only code spans and inline math, which show their text.
	}
	col, off := lineIndent(ol)
	if start == 0 && strings.HasPrefix(ol, "\uFEFF") {
		col, off = lineIndent(ol[3:])
		off += 3
	}
	if off == len(ol) {
		s.blank() // a byte order mark alone
		return
	}
	l := blockLine{col: col, text: ol[off:], mask: ml[off:], masked: ml}
	switch {
	case s.kind == blockHTML:
		if s.closer != "" && htmlBlockEnds(ol, s.closer) {
			s.kind = blockNone
		}
	case s.list >= 0 && s.inList(l):
	case col >= 4:
		// An indented line continues a paragraph; else it is code.
		if s.kind != blockParagraph && s.kind != blockContainer {
			s.kind = blockCode
		}
		s.last = l.text
	default:
		s.block(n, l)
	}
}

// fence reads the line that opens a fenced code block, for the list it
// may open ("- ```") or close (a fence less indented than the item's
// content).
func (s *setextScanner) fence(ol string) {
	col, off := lineIndent(ol)
	if m, ok := listItem(ol[off:], col); ok && col < 4 {
		if s.list < 0 || col < s.list {
			s.list, s.empty, s.nested = m.content, false, false
		}
		return
	}
	if col < s.list {
		s.list = -1
	}
}

// blank reads a blank line: it ends paragraphs and most HTML blocks, and
// a list item that is still empty, but not other list items (a later line
// indented to the item's content continues it).
func (s *setextScanner) blank() {
	if s.kind != blockHTML || s.closer == "" {
		s.kind = blockNone
	}
	if s.list >= 0 && s.empty {
		s.list = -1
	}
}

// hiddenLine reads a line that comments or display math leave blank. It
// ends a paragraph as an HTML comment does in CommonMark, but not an HTML
// block; a comment opened less indented than a list item's content ends
// the list.
func (s *setextScanner) hiddenLine(ol string) {
	if s.kind == blockHTML {
		if s.closer != "" && htmlBlockEnds(ol, s.closer) {
			s.kind = blockNone
		}
		return
	}
	s.kind = blockNone
	if col, off := lineIndent(ol); s.list >= 0 && col < s.list {
		if t := ol[off:]; strings.HasPrefix(t, "%%") || strings.HasPrefix(t, "<!--") || strings.HasPrefix(t, "$$") {
			s.list = -1
		}
	}
}

// inList reads a line while a list is open and reports whether it belongs
// to the list; if not, the list is closed.
func (s *setextScanner) inList(l blockLine) bool {
	if l.col >= s.list {
		s.inItem(l)
		return true
	}
	if l.col < 4 && !l.plain() && !thematicBreak(l.text) {
		if m, ok := listItem(l.text, l.col); ok {
			s.openItem(m, l) // a sibling, or an item of an outer list
			return true
		}
	}
	if s.kind == blockContainer && !interruptsParagraph(l) {
		return true // a lazy continuation line
	}
	s.list = -1
	return false
}

// inItem reads a line indented to the content of the open list item. Its
// headings are not read; what matters is whether the line leaves a
// paragraph open that an unindented line may continue lazily.
func (s *setextScanner) inItem(l blockLine) {
	s.empty = false
	switch {
	case l.col-s.list >= 4:
		// Indented code in the item, unless it continues a paragraph.
		if s.kind != blockContainer {
			s.kind = blockNone
		}
	case isATX(l.masked):
		s.kind = blockNone
	case s.kind == blockContainer && !s.nested && !l.plain() && setextUnderline(l.text) > 0 && l.unmasked():
		s.kind = blockNone // the item's paragraph was a heading
	default:
		if m, ok := listItem(l.text, l.col); ok && !l.plain() && !thematicBreak(l.text) {
			s.kind, s.nested = m.kind(l), true
			return
		}
		if !l.plain() && blockQuote(l.text) {
			s.kind, s.nested = containerKind(l.text, l.mask), true
			return
		}
		if s.kind != blockContainer {
			s.nested = false // a paragraph of the item's own
		}
		s.kind = containerKind(l.text, l.mask)
	}
}

// block reads a line, indented less than four columns, outside any list.
func (s *setextScanner) block(n int, l blockLine) {
	para := s.kind == blockParagraph
	open := para || s.kind == blockContainer // a paragraph a line may continue
	switch {
	case isATX(l.masked):
		s.kind = blockNone
		return
	case l.plain():
	case para && setextUnderline(l.text) > 0 && l.unmasked():
		s.heading(setextUnderline(l.text), n)
		s.kind = blockNone
		return
	case para && tableDelimiter(l.text) && tableCells(l.text) == tableCells(s.last):
		s.kind = blockContainer // the paragraph's last line is a table's header
		return
	case s.startsBlock(l, para, open):
		return
	}
	if !open {
		s.kind, s.first = blockParagraph, n
	}
	s.last = l.text
}

// startsBlock reads a line that may start a block other than a paragraph:
// a thematic break, a block quote, a list item or an HTML block. para and
// open tell whether a top-level paragraph or any paragraph is open.
func (s *setextScanner) startsBlock(l blockLine, para, open bool) bool {
	if thematicBreak(l.text) {
		s.kind = blockNone
		return true
	}
	if blockQuote(l.text) {
		s.kind = containerKind(l.text, l.mask)
		return true
	}
	// A list item may always follow a container's lazy paragraph: the
	// container's line was not matched, so there is no paragraph to
	// interrupt (as in cmark). A lone HTML tag may not.
	if m, ok := listItem(l.text, l.col); ok && (m.interrupts || !para) {
		s.openItem(m, l)
		return true
	}
	if closer, interrupts, ok := htmlBlock(l.text); ok && (interrupts || !open) {
		s.kind, s.closer = blockHTML, closer
		if closer != "" && htmlBlockEnds(l.text, closer) {
			s.kind = blockNone
		}
		return true
	}
	return false
}

// openItem records a list item, outside any other, that line l starts.
func (s *setextScanner) openItem(m listMarker, l blockLine) {
	s.list, s.empty, s.kind = m.content, m.text == "", m.kind(l)
	_, nested := listItem(m.text, m.content)
	s.nested = nested || blockQuote(m.text)
}

// kind is what the first line of a list item, l, leaves open.
func (m listMarker) kind(l blockLine) int {
	if m.code {
		return blockNone
	}
	return containerKind(m.text, l.mask[len(l.mask)-len(m.text):])
}

// containerKind is what a line of a list item or block quote leaves open,
// given what it holds after its marker, as written and masked: a paragraph
// that later lines may continue lazily, or nothing (no text, indented
// code, a heading, a thematic break), after which an unindented line is
// outside the container. A block quote's content is read after its '>'
// and the one space that may follow it.
func containerKind(text, mask string) int {
	col, off := lineIndent(text)
	if off == len(text) || col >= 4 {
		return blockNone
	}
	text, mask = text[off:], mask[off:]
	switch {
	case mask[0] == ' ':
		return blockContainer // a code span, math or comment: text
	case thematicBreak(text) || isATX(mask):
		return blockNone
	case blockQuote(text):
		text, mask = text[1:], mask[1:]
		if strings.HasPrefix(text, " ") {
			text, mask = text[1:], mask[1:]
		}
		return containerKind(text, mask)
	}
	return blockContainer
}

// interruptsParagraph reports whether a line starts a block that ends a
// paragraph rather than continuing it lazily. List items and fences are
// looked at by the caller.
func interruptsParagraph(l blockLine) bool {
	if isATX(l.masked) {
		return true
	}
	if l.col >= 4 || l.plain() {
		return false
	}
	if thematicBreak(l.text) || blockQuote(l.text) {
		return true
	}
	_, interrupts, ok := htmlBlock(l.text)
	return ok && interrupts
}

// isATX reports whether a masked line is an ATX heading.
func isATX(ml string) bool {
	_, _, ok := atxHeading(ml)
	return ok
}

// heading records the setext heading underlined by line n. Its title is
// the text of the paragraph's lines, trimmed, with code spans and math as
// written; a line that starts inside a comment (or with one) is read from
// where the comment ends.
func (s *setextScanner) heading(level, n int) {
	var b strings.Builder
	for k := s.first; k < n; k++ {
		start, end := s.lt.span(k)
		if start == 0 && strings.HasPrefix(s.lt.text, "\uFEFF") {
			start += 3
		}
		line, ml := s.lt.text[start:end], s.masked[start:end]
		_, off := lineIndent(line)
		if off < len(line) && ml[off] == ' ' && line[off] != '`' && line[off] != '$' {
			_, off = lineIndent(ml)
		}
		if part := strings.TrimSpace(line[off:]); part != "" {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(part)
		}
	}
	s.headings = append(s.headings, setextHeading{level: level, title: b.String(), firstLine: s.first, underline: n})
}
