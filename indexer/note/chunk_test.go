package note

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/vaultgraph/vaultgraph/format"
)

// chunkTexts returns the heading and text of each chunk.
func chunkTexts(p *Parsed) [][2]string {
	var out [][2]string
	for _, c := range p.Chunks {
		out = append(out, [2]string{c.Heading, c.Text})
	}
	return out
}

func TestChunkSections(t *testing.T) {
	in := "Intro line.\n\n# Team\n\nFirst para.\n\nSecond para.\n\n## Leads\nLead text.\n\n# Empty\n\n# Last\nEnd."
	want := [][2]string{
		{"", "Intro line."},
		{"Team", "First para.\n\nSecond para."},
		{"Team > Leads", "Lead text."},
		{"Last", "End."},
	}
	p := parse(t, in)
	if d := cmp.Diff(want, chunkTexts(p)); d != "" {
		t.Errorf("chunks (-want +got):\n%s", d)
	}
	if p.Chunks[1].Line != 5 || p.Chunks[3].Line != 15 {
		t.Errorf("lines %d %d, want 5 15", p.Chunks[1].Line, p.Chunks[3].Line)
	}
}

func TestChunkSizes(t *testing.T) {
	para := strings.Repeat("Word ", 39) + "end." // 200 runes
	var b strings.Builder
	b.WriteString("# Big\n\n")
	for range 20 {
		b.WriteString(para + "\n\n")
	}
	p := parseWith(t, testPath, b.String(), Options{ChunkChars: 1000})
	// 20 paragraphs of 200 runes with 2-rune separators: four fit in 1000.
	if len(p.Chunks) != 5 {
		t.Fatalf("%d chunks, want 5", len(p.Chunks))
	}
	for _, c := range p.Chunks {
		if n := utf8.RuneCountInString(c.Text); n < 800 {
			t.Errorf("chunk %d has %d runes, want near 1000", c.Ordinal, n)
		}
	}
}

func TestChunkSplitsLongText(t *testing.T) {
	sentences := strings.Repeat("This is one sentence of text. ", 100) // 3000 runes, one paragraph
	words := strings.Repeat("word ", 700)                              // 3500 runes, no sentence end
	huge := strings.Repeat("x", 5000)                                  // no space at all
	multi := strings.Repeat("é", 2500)                                 // two-byte runes
	for name, in := range map[string]string{"sentences": sentences, "words": words, "no spaces": huge, "multi-byte": multi} {
		t.Run(name, func(t *testing.T) {
			p := parseWith(t, testPath, in, Options{ChunkChars: 1000})
			var joined strings.Builder
			for _, c := range p.Chunks {
				joined.WriteString(c.Text)
			}
			if strings.Join(strings.Fields(joined.String()), "") != strings.Join(strings.Fields(in), "") {
				t.Errorf("chunks lost text")
			}
			if len(p.Chunks) < 3 {
				t.Errorf("%d chunks, want at least 3", len(p.Chunks))
			}
		})
	}
	t.Run("sentence boundaries", func(t *testing.T) {
		p := parseWith(t, testPath, sentences, Options{ChunkChars: 1000})
		for _, c := range p.Chunks {
			if !strings.HasSuffix(c.Text, ".") {
				t.Errorf("chunk %d does not end at a sentence: %q", c.Ordinal, c.Text[len(c.Text)-20:])
			}
		}
	})
}

func TestChunkKeepsCodeFences(t *testing.T) {
	code := "```go\nfunc a() {}\n\n\nfunc b() {}\n```"
	in := "Before.\n\n" + code + "\n\nAfter."
	p := parseWith(t, testPath, in, Options{ChunkChars: 40})
	want := [][2]string{{"", "Before."}, {"", code}, {"", "After."}}
	if d := cmp.Diff(want, chunkTexts(p)); d != "" {
		t.Errorf("chunks (-want +got):\n%s", d)
	}
	t.Run("a fence larger than the target is split at lines", func(t *testing.T) {
		big := "```\n" + strings.Repeat("line of code\n", 10) + "```"
		p := parseWith(t, testPath, big, Options{ChunkChars: 40})
		if len(p.Chunks) < 3 {
			t.Errorf("%d chunks", len(p.Chunks))
		}
		for _, c := range p.Chunks {
			if strings.Contains(c.Text, "line of\n") || strings.HasSuffix(c.Text, "line of") {
				t.Errorf("split inside a line: %q", c.Text)
			}
		}
	})
}

func TestChunkContext(t *testing.T) {
	in := "---\ntitle: Alice\ntype: Person\naliases: [Al]\ntags: [eng]\nrole: engineer\njoined: 2020-09-14\nskills: [go]\nbio: " +
		strings.Repeat("long ", 40) + "\n---\n# Team\n## Leads\nText."
	p := parse(t, in)
	if len(p.Chunks) != 1 {
		t.Fatalf("%d chunks", len(p.Chunks))
	}
	want := "Note: Alice\nLabels: Person\nAliases: Al\nTags: eng\n" +
		"Properties: role: engineer; joined: 2020-09-14; bio: " + strings.TrimSpace(strings.Repeat("long ", 16)) + "…\n" +
		"Section: Team > Leads"
	c := p.Chunks[0]
	if d := cmp.Diff(want, c.Context); d != "" {
		t.Errorf("context (-want +got):\n%s", d)
	}
	if c.TextSHA256 != format.TextKey(want+"\n\nText.") {
		t.Errorf("hash does not cover context and text")
	}
	t.Run("bare note", func(t *testing.T) {
		p := parseWith(t, "People/Bob Smith.md", "Hello.", Options{})
		if p.Chunks[0].Context != "Note: Bob Smith" {
			t.Errorf("context %q", p.Chunks[0].Context)
		}
	})
	t.Run("tag line is bounded", func(t *testing.T) {
		p := parse(t, strings.Repeat("#tag"+strings.Repeat("x", 20)+" ", 1)+strings.Repeat("#t ", 1)+manyTags(500)+"\n\ntext")
		for _, c := range p.Chunks {
			if n := utf8.RuneCountInString(c.Context); n > 2*contextLineRunes {
				t.Errorf("context has %d runes", n)
			}
		}
	})
	t.Run("properties line is bounded", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("---\n")
		for i := range 50 {
			fmt.Fprintf(&b, "key%d: %s\n", i, strings.Repeat("v", 70))
		}
		b.WriteString("---\ntext")
		p := parse(t, b.String())
		line := strings.SplitN(p.Chunks[0].Context, "Properties: ", 2)[1]
		if n := utf8.RuneCountInString(line); n > contextPropertiesRunes || n < 300 {
			t.Errorf("properties line has %d runes", n)
		}
	})
}

func TestNoChunks(t *testing.T) {
	for name, in := range map[string]string{
		"empty":               "",
		"whitespace":          " \n\n\t\n",
		"frontmatter only":    "---\ntitle: T\n---\n",
		"headings only":       "# A\n## B\n",
		"frontmatter, blanks": "---\ntitle: T\n---\n\n\n",
	} {
		t.Run(name, func(t *testing.T) {
			if p := parse(t, in); len(p.Chunks) != 0 {
				t.Errorf("chunks = %v, want none", chunkTexts(p))
			}
		})
	}
}

func TestParseIsDeterministic(t *testing.T) {
	in := realisticNote()
	first := Parse(testPath, []byte(in), Options{ChunkChars: 300})
	for range 5 {
		if d := cmp.Diff(first, Parse(testPath, []byte(in), Options{ChunkChars: 300})); d != "" {
			t.Fatalf("second parse differs:\n%s", d)
		}
	}
	if err := checkParsed(testPath, []byte(in), Options{ChunkChars: 300}, first); err != nil {
		t.Fatal(err)
	}
}

// manyTags returns n distinct inline tags.
func manyTags(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "#tag%d ", i)
	}
	return b.String()
}

func TestDefaultChunkChars(t *testing.T) {
	in := strings.Repeat("Some words here. ", 300) // 5100 runes
	p := parse(t, in)
	if len(p.Chunks) != 4 {
		t.Errorf("%d chunks with the default of %d runes, want 4", len(p.Chunks), format.DefaultChunkChars)
	}
}

// TestRuneCount: runeCount agrees with utf8.RuneCountInString on valid
// UTF-8 of every length and alignment, ASCII or not.
func TestRuneCount(t *testing.T) {
	text := strings.Repeat("plain ascii — ünïcödé 日本語 𝄞 text.\n", 8)
	for i := 0; i < len(text); i++ {
		for j := i; j <= len(text) && j <= i+70; j++ {
			s := text[i:j]
			if !utf8.ValidString(s) {
				continue
			}
			if got, want := runeCount(s), utf8.RuneCountInString(s); got != want {
				t.Fatalf("runeCount(%q) = %d, want %d", s, got, want)
			}
		}
	}
}
