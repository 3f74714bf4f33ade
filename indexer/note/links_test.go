package note

import (
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
)

func TestWikilinks(t *testing.T) {
	tests := []struct {
		name, in string
		want     []format.Link
	}{
		{"plain", "see [[Target]]", links(format.Link{Target: "Target", Line: 1})},
		{"alias", "[[Target|shown text]]", links(format.Link{Target: "Target", Display: "shown text", Line: 1})},
		{"heading", "[[Target#Goals]]", links(format.Link{Target: "Target", Anchor: "Goals", Line: 1})},
		{"block", "[[Target#^b1c2]]", links(format.Link{Target: "Target", Anchor: "^b1c2", Line: 1})},
		{"heading and alias", "[[Target#Goals|the goals]]", links(format.Link{Target: "Target", Anchor: "Goals", Display: "the goals", Line: 1})},
		{"nested heading", "[[Target#A#B]]", links(format.Link{Target: "Target", Anchor: "A#B", Line: 1})},
		{"path", "[[people/Bob Smith]]", links(format.Link{Target: "people/Bob Smith", Line: 1})},
		{"md extension stripped", "[[Target.md]] [[Other.MD#x]]", links(
			format.Link{Target: "Target", Line: 1},
			format.Link{Target: "Other", Anchor: "x", Line: 1})},
		{"dots in names are not extensions", "[[Dr. Smith]] [[v1.2]] [[modulePB.js]]", links(
			format.Link{Target: "Dr. Smith", Line: 1},
			format.Link{Target: "v1.2", Line: 1},
			format.Link{Target: "modulePB.js", Line: 1})},
		{"embed", "![[Target]]", links(format.Link{Target: "Target", Type: format.TypeEmbeds, Line: 1})},
		{"embed heading", "![[Target#Intro]]", links(format.Link{Target: "Target", Anchor: "Intro", Type: format.TypeEmbeds, Line: 1})},
		{"escaped pipe in table", "| a | [[Target\\|alias]] |", links(format.Link{Target: "Target", Display: "alias", Line: 1})},
		{"spaces trimmed", "[[ Target | alias ]]", links(format.Link{Target: "Target", Display: "alias", Line: 1})},
		{"one per occurrence", "[[A]] and [[A]]\n\n[[A]]", links(
			format.Link{Target: "A", Line: 1}, format.Link{Target: "A", Line: 1}, format.Link{Target: "A", Line: 3})},
		{"innermost wins", "[[broken [[Real]]", links(format.Link{Target: "Real", Line: 1})},
		{"footnote holding a link", "text^[[[Markdown Syntax]]]", links(format.Link{Target: "Markdown Syntax", Line: 1})},
		{"non-ASCII", "[[Café ☕|ok]] ![[日本語]]", links(
			format.Link{Target: "Café ☕", Display: "ok", Line: 1},
			format.Link{Target: "日本語", Type: format.TypeEmbeds, Line: 1})},
		{"inside a list and a quote", "- item [[A]]\n> quoted [[B]]", links(
			format.Link{Target: "A", Line: 1}, format.Link{Target: "B", Line: 2})},
		{"self link skipped", "[[#Heading]] [[#^block]] [[|x]]", nil},
		{"image skipped", "![[image.png]] ![[Photo.JPG|300]]", nil},
		{"pdf and canvas skipped", "[[file.pdf]] [[board.canvas]] [[clip.mp4]]", nil},
		{"empty", "[[]] [[ ]]", nil},
		{"unclosed", "[[Target] and [[Other", nil},
		{"multi-line is no link", "[[Tar\nget]]", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			diffLinks(t, parse(t, tc.in).Links, tc.want)
		})
	}
}

func TestMarkdownLinks(t *testing.T) {
	md := func(target, anchor, display string) format.Link {
		return link(format.Link{Kind: format.KindMarkdown, Target: target, Anchor: anchor, Display: display, Line: 1})
	}
	tests := []struct {
		name, in string
		want     []format.Link
	}{
		{"name alone starts at the vault root", "[Bob](Bob.md)", []format.Link{md("Bob.md", "", "Bob")}},
		{"no extension gets .md", "[Bob](Bob)", []format.Link{md("Bob.md", "", "Bob")}},
		{"folder path starts at the vault root", "[x](Projects/Foo.md)", []format.Link{md("Projects/Foo.md", "", "x")}},
		{"dot slash", "[x](./sub/Bob.md)", []format.Link{md("Folder/sub/Bob.md", "", "x")}},
		{"dot dot", "[x](../people/Bob%20Smith.md)", []format.Link{md("people/Bob Smith.md", "", "x")}},
		{"dot segments inside are cleaned", "[x](a/./b/../Bob.md)", []format.Link{md("a/Bob.md", "", "x")}},
		{"vault root", "[Bob](/people/bob.md)", []format.Link{md("people/bob.md", "", "Bob")}},
		{"angle brackets with spaces", "[x](<../people/Bob Smith.md>)", []format.Link{md("people/Bob Smith.md", "", "x")}},
		{"angle brackets and a title", `[x](<My Note.md> "t")`, []format.Link{md("My Note.md", "", "x")}},
		{"title ignored", `[x](Bob.md "Bob's page")`, []format.Link{md("Bob.md", "", "x")}},
		{"single-quoted title", `[x](Bob.md 'page')`, []format.Link{md("Bob.md", "", "x")}},
		{"title in parentheses", "[x](Bob.md (page))", []format.Link{md("Bob.md", "", "x")}},
		{"spaces around the destination", "[x](  Bob.md  )", []format.Link{md("Bob.md", "", "x")}},
		{"anchor", "[x](Bob.md#Early%20life)", []format.Link{md("Bob.md", "Early life", "x")}},
		{"embed", "![alt](Bob.md)", []format.Link{link(format.Link{Kind: format.KindMarkdown, Type: format.TypeEmbeds, Target: "Bob.md", Display: "alt", Line: 1})}},
		{"parentheses in path", "[x](Notes%20(old).md)", []format.Link{md("Notes (old).md", "", "x")}},
		{"escaped parentheses in path", `[x](Note\(1\).md)`, []format.Link{md("Note(1).md", "", "x")}},
		{"invalid escape kept", "[x](100%.md)", []format.Link{md("100%.md", "", "x")}},
		{"bad UTF-8 escape replaced", "[x](a%FF.md)", []format.Link{md("a\uFFFD.md", "", "x")}},
		{"nested brackets in text", "[see [this]](Bob.md)", []format.Link{md("Bob.md", "", "see [this]")}},
		{"https", "[site](https://example.com/a.md)", nil},
		{"mailto and obsidian and file", "[m](mailto:a@b.c) [o](obsidian://open?vault=x) [f](file:///x.md)", nil},
		{"protocol-relative", "[x](//example.com/a)", nil},
		{"pure anchor", "[x](#Heading)", nil},
		{"directory", "[x](people/)", nil},
		{"image", "![pic](pic.png) [doc](paper.pdf)", nil},
		{"escapes the vault", "[x](../../outside.md)", nil},
		{"empty destination", "[x]()", nil},
		{"reference definition", "[ref]: Bob.md\n[text][ref]", nil},
		{"escaped bracket", `\[x](Bob.md)`, nil},
		{"space in the destination is no link", "[n](My Note.md)", nil},
		{"space in a relative destination is no link", "[q](../Note (1).md)", nil},
		{"text after a title is no link", `[x](Bob.md "t" more)`, nil},
		{"unclosed title is no link", `[x](Bob.md "t)`, nil},
		{"unclosed angle brackets are no link", "[x](<My Note.md)", nil},
		{"text after angle brackets is no link", "[x](<a.md>b)", nil},
		{"what is no link is still read", "[see [[A]]](My Note.md)", links(format.Link{Target: "A", Line: 1})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			diffLinks(t, parse(t, tc.in).Links, tc.want)
		})
	}
}

// TestNothingCountsInCode checks that no link, tag or field is read inside
// code, comments or math.
func TestNothingCountsInCode(t *testing.T) {
	tests := []struct{ name, in string }{
		{"backtick fence", "```\n[[A]] #tag\nk:: [[B]]\n```"},
		{"tilde fence", "~~~md\n[[A]] #tag\n~~~"},
		{"longer fence needs longer close", "````\n```\n[[A]]\n```\n#tag\n````"},
		{"indented fence in a list", "- item\n  ```\n  [[A]] #tag\n  ```"},
		{"fence in a blockquote", "> ```\n> [[A]] #tag\n> ```"},
		{"unclosed fence runs to the end", "```\n[[A]]\n\n#tag"},
		{"inline code", "`[[A]]` and `#tag` and ``code with ` [[B]]``"},
		{"inline field in code", "`key:: [[A]]`"},
		{"obsidian comment", "%% [[A]] #tag %%"},
		{"multi-line comment", "%%\n[[A]]\n#tag\n%%"},
		{"html comment", "<!-- [[A]]\n#tag -->"},
		{"math block", "$$\n[[A]] #tag\n$$"},
		{"inline display math", "$$x [[A]] #tag$$"},
		{"inline math", "Euler $[[B]]$ and $x #t$"},
		{"inline math with escaped dollars", `$a \$ [[A]] #t$`},
		{"inline math closed before a non-digit", "$x [[A]]$, and $y #t$."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.in)
			if len(p.Links) != 0 || len(p.Tags) != 0 || len(p.Properties) != 0 {
				t.Errorf("links %v tags %v properties %v, want none", p.Links, p.Tags, p.Properties)
			}
		})
	}
}

func TestCodeDoesNotHideTheRest(t *testing.T) {
	tests := []struct{ name, in string }{
		{"after a fence", "```\ncode\n```\n[[A]]"},
		{"after inline code", "`code` [[A]]"},
		{"unmatched backtick", "it`s [[A]]"},
		{"escaped backtick", "\\`[[A]]\\`"},
		{"after a comment", "%% hidden %% [[A]]"},
		{"after a multi-line comment", "%%\nhidden\n%%\n[[A]]"},
		{"info string with backtick is not a fence", "```a`\n[[A]]"},
		{"dollars in prose", "costs $$$ today [[A]]"},
		{"prices", "costs $5 and $10 for [[A]]"},
		{"opening dollar before a space", "$ [[A]] x$"},
		{"closing dollar after a space", "$x [[A]] $"},
		{"closing dollar before a digit", "$x [[A]]$1"},
		{"escaped opening dollar", `\$x [[A]]$`},
		{"math does not span lines", "$x\n[[A]]$"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.in)
			if len(p.Links) != 1 || p.Links[0].Target != "A" {
				t.Errorf("links = %+v, want one to A", p.Links)
			}
		})
	}
}

func TestLinkHeadingsAndLines(t *testing.T) {
	in := "[[Top]]\n# Team\n[[A]]\n## Leads\n\n[[B]]\n# Other ##\n[[C]]\n### Deep\n[[D]]\n## `code` heading\n[[E]]"
	want := links(
		format.Link{Target: "Top", Line: 1},
		format.Link{Target: "A", Heading: "Team", Line: 3},
		format.Link{Target: "B", Heading: "Team > Leads", Line: 6},
		format.Link{Target: "C", Heading: "Other", Line: 8},
		format.Link{Target: "D", Heading: "Other > Deep", Line: 10},
		format.Link{Target: "E", Heading: "Other > `code` heading", Line: 12},
	)
	diffLinks(t, parse(t, in).Links, want)
}

func TestHeadingsNotInCode(t *testing.T) {
	in := "# Real\n```\n# Not a heading\n```\n#tag is no heading\n[[A]]"
	p := parse(t, in)
	diffLinks(t, p.Links, links(format.Link{Target: "A", Heading: "Real", Line: 6}))
}
