package note

import (
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
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
// never closed is no frontmatter: the whole note is body, as in Obsidian;
// opened is then true, so that the parse can warn about it.
func findFrontmatter(lt *lineTable) (b frontmatterBlock, ok, opened bool) {
	start, end := lt.span(1)
	if fence := strings.TrimPrefix(lt.text[start:end], "\uFEFF"); strings.TrimRight(fence, " \t") != "---" {
		return frontmatterBlock{}, false, false
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
		return b, true, true
	}
	return frontmatterBlock{}, false, true
}

// unclosedFrontmatter is the warning about a note whose first line opens a
// frontmatter block that no later line closes.
func unclosedFrontmatter(notePath string) format.Warning {
	return format.Warning{File: notePath, Line: 1, Kind: format.WarnUnclosedFrontmatter,
		Message: `the frontmatter opened by "---" on line 1 is never closed (no later line is "---" or "..."): ` +
			`its keys were not read and the whole file is body text; add a closing "---" line after the keys`}
}
