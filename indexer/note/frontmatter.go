package note

import (
	"strings"
)

// frontmatterBlock is the YAML block at the top of a note.
type frontmatterBlock struct {
	yaml      string // the text between the fences
	firstLine int    // 1-based line of the opening "---"
	bodyLine  int    // 1-based line where the body starts
	bodyStart int    // byte offset where the body starts
}

// findFrontmatter returns the frontmatter block of a note: only when the
// note's first line is "---" and a later line is "---" or "...". A block
// never closed is no frontmatter: the whole note is body, as in Obsidian.
func findFrontmatter(lt *lineTable) (frontmatterBlock, bool) {
	start, end := lt.span(1)
	if fence := strings.TrimPrefix(lt.text[start:end], "\uFEFF"); strings.TrimRight(fence, " \t") != "---" {
		return frontmatterBlock{}, false
	}
	for n := 2; n <= lt.count(); n++ {
		s, e := lt.span(n)
		line := strings.TrimRight(lt.text[s:e], " \t")
		if line != "---" && line != "..." {
			continue
		}
		b := frontmatterBlock{
			yaml:      lt.text[lt.starts[1]:s],
			firstLine: 1,
			bodyLine:  n + 1,
			bodyStart: len(lt.text),
		}
		if n < len(lt.starts) {
			b.bodyStart = lt.starts[n]
		}
		return b, true
	}
	return frontmatterBlock{}, false
}
