package note

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/vaultgraph/vaultgraph/format"
)

// testPath is the note path most tests parse under: a folder, so that
// relative markdown links have something to resolve against.
const testPath = "Folder/Note.md"

// parse parses content as testPath with default options and checks the
// invariants every parse must hold.
func parse(t *testing.T, content string) *Parsed {
	t.Helper()
	return parseWith(t, testPath, content, Options{})
}

func parseWith(t *testing.T, notePath, content string, opts Options) *Parsed {
	t.Helper()
	p := Parse(notePath, []byte(content), opts)
	if err := checkParsed(notePath, []byte(content), opts, p); err != nil {
		t.Fatalf("invariant broken: %v", err)
	}
	return p
}

// checkParsed verifies what must hold for any input: chunk offsets index the
// content exactly, chunks are trimmed, bounded and in order, every link is
// complete, every string is valid UTF-8 and every property value is JSON.
func checkParsed(notePath string, content []byte, opts Options, p *Parsed) error {
	if p == nil {
		return fmt.Errorf("nil result")
	}
	if utf8.Valid(content) && p.Content != string(content) {
		return fmt.Errorf("valid content was changed")
	}
	if p.BodyStart < 0 || p.BodyStart > len(p.Content) {
		return fmt.Errorf("BodyStart %d out of range", p.BodyStart)
	}
	if err := checkChunks(notePath, opts, p); err != nil {
		return err
	}
	for i, l := range p.Links {
		if err := checkLink(notePath, l); err != nil {
			return fmt.Errorf("link %d %+v: %w", i, l, err)
		}
	}
	for _, pr := range p.Properties {
		if err := checkProperty(pr); err != nil {
			return err
		}
	}
	strs := append([]string{p.Content, p.Title}, p.Aliases...)
	strs = append(append(strs, p.Tags...), p.Labels...)
	for _, w := range p.Warnings {
		strs = append(strs, w.Message, w.Kind, w.File)
	}
	for _, s := range strs {
		if !utf8.ValidString(s) {
			return fmt.Errorf("invalid UTF-8 in %q", s)
		}
	}
	for _, s := range append(append([]string(nil), p.Tags...), p.Labels...) {
		if s == "" {
			return fmt.Errorf("empty tag or label")
		}
	}
	return nil
}

func checkChunks(notePath string, opts Options, p *Parsed) error {
	target := opts.ChunkChars
	if target <= 0 {
		target = format.DefaultChunkChars
	}
	prevEnd := int32(0)
	for i, c := range p.Chunks {
		switch {
		case c.Start < prevEnd || c.End <= c.Start || int(c.End) > len(p.Content):
			return fmt.Errorf("chunk %d: bad offsets [%d,%d) after %d", i, c.Start, c.End, prevEnd)
		case p.Content[c.Start:c.End] != c.Text:
			return fmt.Errorf("chunk %d: Text != Content[Start:End]", i)
		case strings.TrimSpace(c.Text) != c.Text || c.Text == "":
			return fmt.Errorf("chunk %d: text not trimmed: %q", i, c.Text)
		case int(c.Start) < p.BodyStart:
			return fmt.Errorf("chunk %d starts in the frontmatter", i)
		case utf8.RuneCountInString(c.Text) > target:
			return fmt.Errorf("chunk %d has %d runes, target %d", i, utf8.RuneCountInString(c.Text), target)
		case c.Ordinal != int32(i) || c.ID != format.ChunkID(notePath, i) || c.Note != notePath:
			return fmt.Errorf("chunk %d: bad id %q ordinal %d note %q", i, c.ID, c.Ordinal, c.Note)
		case int(c.Line) != 1+strings.Count(p.Content[:c.Start], "\n"):
			return fmt.Errorf("chunk %d: line %d, want %d", i, c.Line, 1+strings.Count(p.Content[:c.Start], "\n"))
		case c.TextSHA256 != format.TextKey(format.EmbedText(c.Context, c.Text)):
			return fmt.Errorf("chunk %d: bad hash", i)
		case !utf8.ValidString(c.Text) || !utf8.ValidString(c.Context) || !utf8.ValidString(c.Heading):
			return fmt.Errorf("chunk %d: invalid UTF-8", i)
		}
		prevEnd = c.End
	}
	return nil
}

func checkLink(notePath string, l format.Link) error {
	switch {
	case l.Target == "" || l.Type == "":
		return fmt.Errorf("empty target or type")
	case l.Source != notePath:
		return fmt.Errorf("source %q", l.Source)
	case l.Sign != 1 && l.Sign != -1:
		return fmt.Errorf("sign %d", l.Sign)
	case l.Kind != format.KindWikilink && l.Kind != format.KindMarkdown:
		return fmt.Errorf("kind %q", l.Kind)
	case l.Origin != format.OriginBody && l.Origin != format.OriginField && l.Origin != format.OriginFrontmatter:
		return fmt.Errorf("origin %q", l.Origin)
	case l.Line < 1:
		return fmt.Errorf("line %d", l.Line)
	case l.Kind == format.KindMarkdown && !strings.HasSuffix(strings.ToLower(l.Target), ".md"):
		return fmt.Errorf("markdown target without .md")
	}
	for _, s := range []string{l.Target, l.Type, l.Anchor, l.Display, l.Heading} {
		if !utf8.ValidString(s) {
			return fmt.Errorf("invalid UTF-8 %q", s)
		}
	}
	for _, p := range l.Properties {
		if err := checkProperty(p); err != nil {
			return err
		}
	}
	return nil
}

func checkProperty(p format.Property) error {
	if !json.Valid([]byte(p.JSON())) || !utf8.ValidString(p.Key) {
		return fmt.Errorf("property %q: value %q is not JSON", p.Key, p.JSON())
	}
	if _, err := p.Decode(); err != nil {
		return err
	}
	return nil
}

// link fills in the fields most expected links share: source testPath, a
// wikilink, links_to, from the body, sign +1.
func link(l format.Link) format.Link {
	if l.Source == "" {
		l.Source = testPath
	}
	if l.Kind == "" {
		l.Kind = format.KindWikilink
	}
	if l.Type == "" {
		l.Type = format.TypeLinksTo
	}
	if l.Origin == "" {
		l.Origin = format.OriginBody
	}
	if l.Sign == 0 {
		l.Sign = 1
	}
	return l
}

func links(ls ...format.Link) []format.Link {
	if len(ls) == 0 {
		return nil
	}
	out := make([]format.Link, len(ls))
	for i, l := range ls {
		out[i] = link(l)
	}
	return out
}

// prop builds an expected property.
func prop(t *testing.T, key, kind string, v any) format.Property {
	t.Helper()
	p, err := format.NewProperty(key, kind, v)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func diffLinks(t *testing.T, got, want []format.Link) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("links (-want +got):\n%s", d)
	}
}
