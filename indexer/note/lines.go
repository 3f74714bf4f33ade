package note

import (
	"sort"
	"strings"
)

// lineTable knows where every line of a note starts, so that any byte offset
// can be turned into the 1-based line number that warnings, links and chunks
// report.
type lineTable struct {
	text   string
	starts []int // starts[i] is the offset of line i+1
}

func newLineTable(text string) *lineTable {
	starts := make([]int, 1, 1+strings.Count(text, "\n"))
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineTable{text: text, starts: starts}
}

// count is the number of lines; a final newline does not start a new line
// unless something follows it.
func (t *lineTable) count() int {
	n := len(t.starts)
	if n > 1 && t.starts[n-1] == len(t.text) {
		n--
	}
	return n
}

// span returns the offsets of line n (1-based) without its line ending
// ("\n" or "\r\n").
func (t *lineTable) span(n int) (start, end int) {
	start = t.starts[n-1]
	end = len(t.text)
	if n < len(t.starts) {
		end = t.starts[n] - 1
	}
	if end > start && t.text[end-1] == '\r' {
		end--
	}
	return start, end
}

// lineAt returns the 1-based line holding byte offset off.
func (t *lineTable) lineAt(off int) int {
	return sort.Search(len(t.starts), func(i int) bool { return t.starts[i] > off })
}
