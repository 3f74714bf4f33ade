package indexer

import (
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
)

func TestResolve(t *testing.T) {
	notes := []format.Note{
		{ID: "Search.md"},
		{ID: "Projects/Search.md"},
		{ID: "Projects/Crawler.md"},
		{ID: "Archive/Old/Crawler.md"},
		{ID: "zzzz/Note.md"},
		{ID: "a/b/Note.md"},
		{ID: "b/Note.md"},
		{ID: "People/Alice.md", Aliases: []string{"Al", "Alice Liddell"}},
		{ID: "People/Bob Smith.md"},
		{ID: "Topics/Über Ranking.md"},
		{ID: "Missing.md", Stub: true},
	}
	r := newResolver(notes)
	tests := []struct {
		name   string
		link   format.Link
		want   string
		wantOK bool
	}{
		{"exact root path wins over same folder", wl("Search", "Projects/Index.md"), "Search.md", true},
		{"path with folder", wl("Projects/Search", "Other.md"), "Projects/Search.md", true},
		{"bare name, unique", wl("Crawler", "Other.md"), "Projects/Crawler.md", true},
		{"case-insensitive", wl("crawler", "Other.md"), "Projects/Crawler.md", true},
		{"own folder wins", wl("Crawler", "Archive/Old/Notes.md"), "Archive/Old/Crawler.md", true},
		{"ancestor folder counts for nothing", wl("Note", "zzzz/deep/x.md"), "b/Note.md", true},
		{"shortest path string, not fewest elements", wl("Note", "elsewhere.md"), "b/Note.md", true},
		{"partial path suffix", wl("b/Note", "x.md"), "b/Note.md", true},
		{"alias", wl("Al", "x.md"), "People/Alice.md", true},
		{"alias case-insensitive", wl("alice liddell", "x.md"), "People/Alice.md", true},
		{"relative ./", wl("./Bob Smith", "People/Alice.md"), "People/Bob Smith.md", true},
		{"relative ../", wl("../Projects/Crawler", "People/Alice.md"), "Projects/Crawler.md", true},
		{"leading slash is the vault root", wl("/Search", "Projects/x.md"), "Search.md", true},
		{"NFD link to NFC file name", wl("Über Ranking", "x.md"), "Topics/Über Ranking.md", true},
		{"with .md", wl("Crawler.md", "x.md"), "Projects/Crawler.md", true},
		{"missing", wl("Nowhere", "x.md"), "", false},
		{"stubs are not targets", wl("Missing", "x.md"), "", false},
		{"escaping the vault", wl("../../x", "People/Alice.md"), "", false},
		{"markdown exact path", md("People/Bob Smith.md", "x.md"), "People/Bob Smith.md", true},
		{"markdown path case-insensitive", md("people/bob smith.md", "x.md"), "People/Bob Smith.md", true},
		{"markdown falls back to the file name", md("Elsewhere/Crawler.md", "x.md"), "Projects/Crawler.md", true},
		{"markdown missing", md("People/Nobody.md", "x.md"), "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := r.resolve(tc.link)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("resolve(%q from %s) = %q, %v; want %q, %v", tc.link.Target, tc.link.Source, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func wl(target, source string) format.Link {
	return format.Link{Kind: format.KindWikilink, Target: target, Source: source}
}

func md(target, source string) format.Link {
	return format.Link{Kind: format.KindMarkdown, Target: target, Source: source}
}
