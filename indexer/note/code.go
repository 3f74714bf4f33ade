package note

import (
	"strings"
	"unsafe"
)

// mask is a copy of a note's text in which everything that Obsidian does not
// read as markup is blanked: fenced code blocks, inline code spans, %%
// comments, HTML comments and math ($$ and $). Blanking replaces bytes by spaces and
// keeps newlines, so offsets and line numbers in the mask are those of the
// note, and links, tags and fields can be looked for in it without ever
// matching inside code. Blanked ranges always start and end at ASCII
// delimiters or line ends, so the mask stays valid UTF-8.
type mask struct {
	text []byte
	// fenced marks (by 1-based line number) the lines of fenced code
	// blocks, fences included: chunking keeps them together (nil when
	// there is none).
	fenced map[int]bool
	// hidden marks the non-blank lines that comments or display math leave
	// blank (nil when there is none). Unlike code spans and inline math,
	// which show their text, these hide it: such a line holds no paragraph
	// text (setext.go).
	hidden map[int]bool
}

// masker carries the state that spans lines: an open fence, comment or
// math block.
type masker struct {
	fenceChar byte
	fenceLen  int
	fenceDone bool // the open fence was closed on the current line
	closer    string
	hid       bool // a comment or display math was blanked on the current line
}

// newMask blanks the body lines [firstLine, lt.count()] of lt's text.
func newMask(lt *lineTable, firstLine int) *mask {
	m := &mask{text: []byte(lt.text)}
	if strings.HasPrefix(lt.text, "\uFEFF") {
		blank(m.text, 0, 3) // a byte order mark would hide a first-line heading
	}
	var st masker
	for n := firstLine; n <= lt.count(); n++ {
		start, end := lt.span(n)
		line := lt.text[start:end]
		if st.fenceLen > 0 || (st.closer == "" && st.openFence(line)) {
			if m.fenced == nil {
				m.fenced = make(map[int]bool)
			}
			m.fenced[n] = true
			blank(m.text, start, end)
			if !st.fenceDone {
				st.closeFence(line)
			}
			st.fenceDone = false
			continue
		}
		st.hid = false
		st.maskInline(m.text, start, line)
		if st.hid && blankBytes(m.text[start:end]) {
			if m.hidden == nil {
				m.hidden = make(map[int]bool)
			}
			m.hidden[n] = true
		}
	}
	return m
}

// String returns the masked text without copying it: nothing writes
// m.text once newMask has returned.
func (m *mask) String() string { return unsafe.String(unsafe.SliceData(m.text), len(m.text)) }

// blankBytes reports whether b holds only spaces and tabs.
func blankBytes(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// blank replaces text[start:end] by spaces, keeping newlines.
func blank(text []byte, start, end int) {
	for i := start; i < end; i++ {
		if text[i] != '\n' {
			text[i] = ' '
		}
	}
}

// fenceLine strips what may precede a fence: indentation (fences inside list
// items are indented), blockquote markers and one list marker.
func fenceLine(line string) string {
	s := strings.TrimLeft(line, " \t")
	for strings.HasPrefix(s, ">") {
		s = strings.TrimLeft(s[1:], " \t")
	}
	if len(s) >= 2 && strings.IndexByte("-*+", s[0]) >= 0 && (s[1] == ' ' || s[1] == '\t') {
		s = strings.TrimLeft(s[2:], " \t")
	}
	return s
}

// openFence reports whether line opens a fenced code block and records its
// fence. A backtick fence whose info string holds a backtick is inline code,
// as in CommonMark.
func (st *masker) openFence(line string) bool {
	s := fenceLine(line)
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return false
	}
	n := runLength(s, 0)
	if n < 3 || (s[0] == '`' && strings.IndexByte(s[n:], '`') >= 0) {
		return false
	}
	st.fenceChar, st.fenceLen, st.fenceDone = s[0], n, true
	return true
}

// closeFence ends the open fence if line is a fence of the same character at
// least as long, with nothing after it.
func (st *masker) closeFence(line string) {
	s := fenceLine(line)
	if s == "" || s[0] != st.fenceChar {
		return
	}
	n := runLength(s, 0)
	if n >= st.fenceLen && strings.TrimSpace(s[n:]) == "" {
		st.fenceLen = 0
	}
}

// runLength counts the bytes equal to s[i] from i.
func runLength(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == s[i] {
		n++
	}
	return n
}
