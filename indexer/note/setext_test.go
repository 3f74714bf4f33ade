package note

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/vaultgraph/vaultgraph/format"
)

// setextOf returns the setext headings Parse finds in content, one
// "level title @first-underline" per heading, joined by "; ".
func setextOf(content string) string {
	lt := newLineTable(content)
	bodyLine := 1
	if b, ok, _ := findFrontmatter(lt); ok {
		bodyLine = b.bodyLine
	}
	m := newMask(lt, bodyLine)
	var out []string
	for _, h := range findSetextHeadings(lt, m, string(m.text), bodyLine) {
		out = append(out, fmt.Sprintf("%d %s @%d-%d", h.level, h.title, h.firstLine, h.underline))
	}
	return strings.Join(out, "; ")
}

// checkSetext verifies that the setext headings of a note are in order and
// apart, and that none holds a fenced line or a line that the body reader
// takes for an ATX heading (the two would cut sections differently).
func checkSetext(text string) error {
	lt := newLineTable(text)
	bodyLine := 1
	if b, ok, _ := findFrontmatter(lt); ok {
		bodyLine = b.bodyLine
	}
	m := newMask(lt, bodyLine)
	masked := string(m.text)
	prev := bodyLine - 1
	for _, h := range findSetextHeadings(lt, m, masked, bodyLine) {
		if h.firstLine <= prev || h.underline <= h.firstLine || h.level < 1 || h.level > 2 || !utf8.ValidString(h.title) {
			return fmt.Errorf("bad setext heading %+v after line %d", h, prev)
		}
		for k := h.firstLine; k <= h.underline; k++ {
			start, end := lt.span(k)
			if m.fenced[k] || isATX(masked[start:end]) {
				return fmt.Errorf("setext heading %+v holds line %d, fenced or ATX", h, k)
			}
		}
		prev = h.underline
	}
	return nil
}

// TestSetextHeadings follows CommonMark's section 4.3 (setext headings),
// with its examples where they apply, and the blocks a paragraph can
// follow or be interrupted by.
func TestSetextHeadings(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// The underline.
		{"level 1", "Foo\n===", "1 Foo @1-2"},
		{"level 2", "Foo\n---", "2 Foo @1-2"},
		{"one =", "Foo\n=", "1 Foo @1-2"},
		{"one -", "Foo\n-", "2 Foo @1-2"},
		{"two -", "Foo\n--", "2 Foo @1-2"},
		{"long underline", "Foo\n" + strings.Repeat("-", 40), "2 Foo @1-2"},
		{"underline indented three spaces", "Foo\n   ----", "2 Foo @1-2"},
		{"trailing spaces and tabs", "Foo\n---  \t", "2 Foo @1-2"},
		{"dash and a space is an underline, not an empty list item", "Foo\n- ", "2 Foo @1-2"},
		{"underline indented four spaces continues the paragraph", "Foo\n    ---", ""},
		{"internal space =", "Foo\n= =", ""},
		{"internal space -", "Foo\n--- -", ""},
		{"*** is a thematic break", "Foo\n***", ""},
		{"___ is a thematic break", "Foo\n___", ""},
		{"- - - is a thematic break", "Foo\n- - -", ""},
		{"mixed characters", "Foo\n-=-", ""},
		{"text after the underline", "Foo\n--- bar", ""},
		{"escaped underline", "Foo\n\\---", ""},

		// The content.
		{"content indented three spaces", "   Foo\n---", "2 Foo @1-2"},
		{"several lines", "Foo\nbar\nbaz\n===", "1 Foo bar baz @1-4"},
		{"the paragraph right above belongs to the heading", "text [[X]]\nBar\n---", "2 text [[X]] Bar @1-3"},
		{"indented continuation line", "Foo\n      bar\n---", "2 Foo bar @1-3"},
		{"trailing spaces and backslash kept as written", "Foo  \n---\nFoo\\\n---", "2 Foo @1-2; 2 Foo\\ @3-4"},
		{"escaped block quote marker", "\\> foo\n---", "2 \\> foo @1-2"},
		{"link in the content", "See [[Spec]] #tag\n---", "2 See [[Spec]] #tag @1-2"},
		{"code span keeps its text", "Use `a | b`\n===", "1 Use `a | b` @1-2"},
		{"line of code spans", "`Config`\n===", "1 `Config` @1-2"},
		{"leading code span", "`go test` runs\n===", "1 `go test` runs @1-2"},
		{"text after a comment closed on the line", "%%\nc\n%% Foo\n---", "2 Foo @3-4"},
		{"leading comment", "%% c %% Foo\nbar\n---", "2 Foo bar @1-3"},
		{"leading inline math", "$x$ Foo\n---", "2 $x$ Foo @1-2"},
		{"line of inline math", "$x^2$\n---", "2 $x^2$ @1-2"},
		{"trailing comment kept as in ATX headings", "Foo %% c %%\n---", "2 Foo %% c %% @1-2"},
		{"incomplete HTML tag is text", "<a title=\"a lot\n---\nof dashes\"/>", "2 <a title=\"a lot @1-2"},
		{"content indented four spaces is code", "    Foo\n---", ""},
		{"tab-indented content is code", "\tFoo\n---", ""},
		{"blank line before the underline", "Foo\n\n---", ""},
		{"no content", "\n====", ""},

		// What a paragraph follows and what interrupts it.
		{"blank line splits paragraphs", "Foo\n\nbar\n---\nbaz", "2 bar @3-4"},
		{"thematic break then headings", "Intro\n\n---\nFoo\n---\nBar\n---\nBaz", "2 Foo @4-5; 2 Bar @6-7"},
		{"a note opening with --- opens frontmatter", "---\nFoo\n---\nBar\n---\nBaz", "2 Bar @4-5"},
		{"two thematic breaks", "---\n---", ""},
		{"=== after a blank line is text", "\n===\n---", "2 === @2-3"},
		{"after an ATX heading", "# A\nFoo\n---", "2 Foo @2-3"},
		{"an ATX heading is no content", "# Foo\n---", ""},
		{"=== after an ATX heading is text", "# Foo\n===", ""},
		{"after a fenced code block", "```\nx\n```\nFoo\n---", "2 Foo @4-5"},
		{"a fence interrupts the paragraph", "Foo\n```\nx\n```\n---", ""},
		{"a fence ends a list", "1) z\n~~~\nx\n~~~\nFoo\n   ===", "1 Foo @5-6"},
		{"a fence in a list item", "- ```\n  x\n  ```\n  Foo\n  ---", ""},
		{"after indented code", "    code\nFoo\n---", "2 Foo @2-3"},
		{"indented code", "    code\n---", ""},
		{"ordered item not starting at 1 cannot interrupt", "Foo\n2. bar\n---", "2 Foo 2. bar @1-3"},
		{"empty list item cannot interrupt", "Foo\n*\n---", "2 Foo * @1-3"},
		{"lone HTML tag cannot interrupt", "Foo\n<span>\n---", "2 Foo <span> @1-3"},
		{"block HTML tag interrupts", "Foo\n<div>\n---", ""},

		// Lists.
		{"list item", "- Foo\n---", ""},
		{"list item, long underline", "- foo\n-----", ""},
		{"ordered list item", "1. Foo\n---", ""},
		{"other bullets", "* Foo\n---\n+ Bar\n===", ""},
		{"list item interrupts a paragraph", "Foo\n- bar\n---", ""},
		{"ordered item 1 interrupts a paragraph", "Foo\n1. bar\n---", ""},
		{"lazy continuation of a list item", "- foo\nbar\n---", ""},
		{"code span line in a list item", "- a\n  `x`\nFoo\n---", ""},
		{"list item of a code span", "- `x`\nFoo\n---", ""},
		{"block quote of a code span", "> `x`\nFoo\n---", ""},
		{"list item of a comment", "- %% c %%\nFoo\n---", ""},
		{"=== continues a list item lazily", "- foo\n===", ""},
		{"heading text inside a list item", "- foo\n\n  Bar\n  ---", ""},
		{"nested list", "- a\n  - b\n    c\n    ---", ""},
		{"after a list, a blank line and unindented text", "- a\n\nFoo\n---", "2 Foo @3-4"},
		{"after a list and its thematic break", "- a\n---\nFoo\n---", "2 Foo @3-4"},
		{"after a list ended by an ATX heading", "- a\n# H\nFoo\n---", "2 Foo @3-4"},
		{"indented less than the item's content", "10. a\n\n   b\n---", "2 b @3-4"},
		{"tab after the marker", "-\tt\n--\n  ---", ""},
		{"an empty item takes no lazy line", "-\nFoo\n---", "2 Foo @2-3"},
		{"an item begins with at most one blank line", "-\n\n   Foo\n---", "2 Foo @3-4"},
		{"an item of indented code takes no lazy line", "-     code\nFoo\n---", "2 Foo @2-3"},
		{"a heading in an item ends its paragraph", "- a\n  ===\nFoo\n---", "2 Foo @3-4"},
		{"=== continues a nested block quote", "- > q\n  ===\nFoo\n---", ""},
		{"=== continues a nested list item", "- a\n  - b\n  c\n  ===\nFoo\n---", ""},
		{"a list item may follow a quote's paragraph", "> q\n2. y\nFoo\n---", ""},

		// Block quotes and callouts.
		{"block quote", "> Foo\n---", ""},
		{"lazy continuation of a block quote", "> foo\nbar\n===", ""},
		{"heading text inside a block quote", "> Foo\n> ---", ""},
		{"callout", "> [!note] Title\n> body\n---", ""},
		{"block quote interrupts a paragraph", "Foo\n> bar\n---", ""},
		{"an empty block quote takes no lazy line", ">\nFoo\n---", "2 Foo @2-3"},
		{"a lone HTML tag continues a quote's paragraph", "> q\n<span>\n--- -\n--\n===", "1 -- @4-5"},
		{"after a block quote and a blank line", "> q\n\nFoo\n---", "2 Foo @3-4"},

		// Tables.
		{"table", "| a | b |\n|---|---|\n| 1 | 2 |\n---", ""},
		{"table without outer pipes", "a | b\n--- | :-:\n1 | 2\n---", ""},
		{"table row without a delimiter row is text", "| a | b |\n---", "2 | a | b | @1-2"},
		{"a delimiter without a pipe is an underline", "| a |\n---", "2 | a | @1-2"},
		{"single-column table", "Foo\n|---|\n---", ""},
		{"header and delimiter differ in cells", "Foo\n-|-\n-", "2 Foo -|- @1-3"},
		{"escaped pipe in the header", "a \\| b | c\n--- | ---\n---", ""},
		{"table under a longer paragraph", "Intro\na | b\n--|--\n---", ""},
		{"after a table and a blank line", "| a |\n|---|\n\nFoo\n===", "1 Foo @4-5"},

		// HTML blocks.
		{"HTML block", "<div>\nFoo\n---\n</div>", ""},
		{"after an HTML block", "<div>\nx\n</div>\n\nFoo\n---", "2 Foo @5-6"},
		{"raw HTML block spans blank lines", "<pre>\n\nFoo\n---\n</pre>", ""},
		{"after a raw HTML block", "<script>\nx\n</script>\nFoo\n---", "2 Foo @4-5"},
		{"HTML comment alone", "<!-- c -->\n---", ""},

		// Code, math and comments.
		{"underline in fenced code", "Foo\n```\n---\n```", ""},
		{"heading in fenced code", "```\nFoo\n---\n```", ""},
		{"heading in tilde fence", "~~~\nFoo\n===\n~~~", ""},
		{"heading in a math block", "$$\nFoo\n===\n$$", ""},
		{"after a math block", "$$\nx\n$$\n---", ""},
		{"heading in a comment", "%%\nFoo\n---\n%%", ""},
		{"heading in an HTML comment", "<!--\nFoo\n---\n-->", ""},
		{"underline in a comment", "Foo\n%%---%%", ""},
		{"underline with a trailing comment", "Foo\n--- %% c %%", ""},
		{"comment line ends the paragraph", "Foo\n%% c %%\n---", ""},
		{"multi-line comment ends the paragraph", "Foo\n%%\nc\n%%\n===", ""},
		{"unclosed comment", "%%\nFoo\n---", ""},

		// Frontmatter.
		{"frontmatter, then a heading", "---\ntitle: T\n---\nFoo\n---", "2 Foo @4-5"},
		{"frontmatter delimiters are no underlines", "---\ntitle: T\n---\n", ""},
		{"thematic break right after frontmatter", "---\ntitle: T\n---\n---\ntext", ""},
		{"frontmatter closed by ...", "---\ntitle: T\n...\n---\nFoo\n---", "2 Foo @5-6"},
		{"unclosed frontmatter fence is a thematic break", "---\nFoo", ""},

		// Line endings and the byte order mark.
		{"CRLF", "Foo\r\n===\r\nbar\r\n", "1 Foo @1-2"},
		{"byte order mark", "\uFEFFFoo\n===", "1 Foo @1-2"},
		{"byte order mark and code span", "\uFEFF`x` y\n===", "1 `x` y @1-2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := setextOf(tc.in); got != tc.want {
				t.Errorf("setextOf(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			if err := checkSetext(tc.in); err != nil {
				t.Error(err)
			}
			parse(t, tc.in)
		})
	}
}

// TestSetextSections: setext headings set the heading path of the links
// and chunks under them, and bound chunks, as ATX headings do; their text
// and underline are in no chunk.
func TestSetextSections(t *testing.T) {
	in := "Intro [[A]].\n\nTeam\n====\nFirst para.\n\nSecond para.\n\nLeads [[L]]\nand deputies\n-----\nLead text [[Bob]].\n\nEmpty\n=====\n\nLast\n===\nEnd.\n\n---\n\nAfter a thematic break [[C]]."
	p := parse(t, in)
	want := [][2]string{
		{"", "Intro [[A]]."},
		{"Team", "First para.\n\nSecond para."},
		{"Team > Leads [[L]] and deputies", "Lead text [[Bob]]."},
		{"Last", "End.\n\n---\n\nAfter a thematic break [[C]]."},
	}
	if d := cmp.Diff(want, chunkTexts(p)); d != "" {
		t.Errorf("chunks (-want +got):\n%s", d)
	}
	var lines []int32
	for _, c := range p.Chunks {
		lines = append(lines, c.Line)
	}
	if d := cmp.Diff([]int32{1, 5, 12, 19}, lines); d != "" {
		t.Errorf("chunk lines (-want +got):\n%s", d)
	}
	if c := p.Chunks[2]; !strings.HasSuffix(c.Context, "\nSection: Team > Leads [[L]] and deputies") {
		t.Errorf("context %q", c.Context)
	}
	diffLinks(t, p.Links, links(
		format.Link{Target: "A", Line: 1},
		format.Link{Target: "L", Heading: "Team > Leads [[L]] and deputies", Line: 9},
		format.Link{Target: "Bob", Heading: "Team > Leads [[L]] and deputies", Line: 12},
		format.Link{Target: "C", Heading: "Last", Line: 23}))
}

// TestSetextLikeATX: a note with setext headings reads exactly as the same
// note with ATX headings of the same levels (the underline replaced by an
// empty line, so that line numbers agree): the same links with the same
// heading paths, the same chunks.
func TestSetextLikeATX(t *testing.T) {
	tests := []struct{ name, setext, atx string }{
		{
			"sections",
			"Intro [[A]] #t\n\nTeam [[T]]\n====\n\nFirst [[B]].\n\nLeads\n-----\nkey:: [[C]]\n\n# Other\nEnd [[D]].\n\nSub\n---\nx",
			"Intro [[A]] #t\n\n# Team [[T]]\n\n\nFirst [[B]].\n\n## Leads\n\nkey:: [[C]]\n\n# Other\nEnd [[D]].\n\n## Sub\n\nx",
		},
		{
			"deeper ATX levels close under a setext level 2",
			"# A\n### C\nc [[X]]\n\nB\n---\nb [[Y]]\n#### D\nd [[Z]]",
			"# A\n### C\nc [[X]]\n\n## B\n\nb [[Y]]\n#### D\nd [[Z]]",
		},
		{
			"frontmatter",
			"---\ntitle: T\nup: \"[[P]]\"\n---\nTitle\n=====\nBody [[Q]].",
			"---\ntitle: T\nup: \"[[P]]\"\n---\n# Title\n\nBody [[Q]].",
		},
		{
			"thematic breaks and lists stay text",
			"Foo\n\n---\n\n- item [[I]]\n---\n> quote\n---\nBar\n---\ntext",
			"Foo\n\n---\n\n- item [[I]]\n---\n> quote\n---\n## Bar\n\ntext",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, chunkChars := range []int{0, 8} {
				opts := Options{ChunkChars: chunkChars}
				s := parseWith(t, testPath, tc.setext, opts)
				a := parseWith(t, testPath, tc.atx, opts)
				diffLinks(t, s.Links, a.Links)
				if d := cmp.Diff(a.Tags, s.Tags); d != "" {
					t.Errorf("tags (-atx +setext):\n%s", d)
				}
				if d := cmp.Diff(chunkSummary(a), chunkSummary(s)); d != "" {
					t.Errorf("chunks with ChunkChars %d (-atx +setext):\n%s", chunkChars, d)
				}
			}
		})
	}
}

// chunkSummary is what a chunk says besides its offsets, which differ
// between the two ways of writing a heading.
func chunkSummary(p *Parsed) []string {
	var out []string
	for _, c := range p.Chunks {
		out = append(out, fmt.Sprintf("%d %q %q %q", c.Line, c.Heading, c.Context, c.Text))
	}
	return out
}

// TestRealisticNoteSetext: the realistic note reads the same with setext
// milestone headings as with ATX ones, but for line numbers.
func TestRealisticNoteSetext(t *testing.T) {
	in := realisticSetextNote()
	if strings.Contains(in, "## Milestone") {
		t.Fatal("milestone headings not rewritten")
	}
	s := parseWith(t, "Projects/Search Platform.md", in, Options{})
	a := parseWith(t, "Projects/Search Platform.md", realisticNote(), Options{})
	noLines := func(ls []format.Link) []format.Link {
		out := append([]format.Link(nil), ls...)
		for i := range out {
			out[i].Line = 0
		}
		return out
	}
	diffLinks(t, noLines(s.Links), noLines(a.Links))
	if d := cmp.Diff(chunkTexts(a), chunkTexts(s)); d != "" {
		t.Errorf("chunks (-atx +setext):\n%s", d)
	}
	if n := len(s.Chunks); n < 8 || s.Chunks[n-1].Heading != "Search Platform > Milestone 8" {
		t.Errorf("%d chunks, last under %q", n, s.Chunks[n-1].Heading)
	}
}
