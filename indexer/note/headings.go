package note

import (
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// atxHeading recognises an ATX heading ("## Title ##") in a masked line:
// up to three spaces, one to six '#', then a space or the end of the line.
// "#tag" is not a heading. It returns the level and the offset where the
// title starts; the title is read from the unmasked line by headingTitle, so
// that code spans in headings keep their text.
func atxHeading(line string) (level, titleStart int, ok bool) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	n := 0
	for i+n < len(line) && line[i+n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return 0, 0, false
	}
	i += n
	if i < len(line) && line[i] != ' ' && line[i] != '\t' {
		return 0, 0, false
	}
	return n, i, true
}

// headingTitle trims a heading's text and its optional closing sequence of
// '#' (which must follow a space).
func headingTitle(s string) string {
	s = strings.TrimSpace(s)
	if t := strings.TrimRight(s, "#"); t != s && (t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t")) {
		s = strings.TrimSpace(t)
	}
	return s
}

// headingPath is the stack of headings above the current line.
type headingPath struct {
	levels []int
	titles []string
	joined string
}

// enter records a heading: it closes every open heading of the same or a
// deeper level. An empty heading ("#" alone) changes nothing.
func (h *headingPath) enter(level int, title string) {
	if title == "" {
		return
	}
	k := len(h.levels)
	for k > 0 && h.levels[k-1] >= level {
		k--
	}
	h.levels = append(h.levels[:k], level)
	h.titles = append(h.titles[:k], title)
	h.joined = strings.Join(h.titles, format.HeadingSeparator)
}

// String returns the heading path joined with format.HeadingSeparator.
func (h *headingPath) String() string { return h.joined }
