package indexer

import (
	"testing"

	"github.com/google/go-cmp/cmp"

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
		{"markdown path with a missing folder does not fall back to the file name", md("Elsewhere/Crawler.md", "x.md"), "", false},
		{"markdown missing", md("People/Nobody.md", "x.md"), "", false},
		{"markdown bare name found vault-wide", md("Crawler.md", "People/Alice.md"), "Projects/Crawler.md", true},
		{"markdown bare name, own folder first", md("Crawler.md", "Archive/Old/x.md"), "Archive/Old/Crawler.md", true},
		{"markdown exact root path wins over own folder", md("Search.md", "Projects/x.md"), "Search.md", true},
		{"markdown path suffix", md("b/Note.md", "x.md"), "b/Note.md", true},
		{"markdown path suffix from a deeper folder", md("Old/Crawler.md", "zzzz/x.md"), "Archive/Old/Crawler.md", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := r.resolve(tc.link)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("resolve(%q from %s) = %q, %v; want %q, %v", tc.link.Target, tc.link.Source, got, ok, tc.want, tc.wantOK)
			}
		})
	}
	// The resolver remembers what a target matched: every target from
	// every source folder, in both orders, resolves through one resolver
	// as through a fresh one.
	var sources, targets []format.Link
	for _, tc := range tests {
		sources, targets = append(sources, tc.link), append(targets, tc.link)
	}
	for _, order := range []bool{false, true} {
		shared := newResolver(notes)
		for i := range targets {
			if order {
				i = len(targets) - 1 - i
			}
			for _, src := range sources {
				l := targets[i]
				l.Source = src.Source
				got, ok := shared.resolve(l)
				want, wantOK := newResolver(notes).resolve(l)
				if got != want || ok != wantOK {
					t.Errorf("resolve(%q from %s) through a used resolver = %q, %v; a fresh one says %q, %v", l.Target, l.Source, got, ok, want, wantOK)
				}
			}
		}
	}
}

func wl(target, source string) format.Link {
	return format.Link{Kind: format.KindWikilink, Target: target, Source: source}
}

func md(target, source string) format.Link {
	return format.Link{Kind: format.KindMarkdown, Target: target, Source: source}
}

// TestMarkdownLinkFromSubfolder indexes the reviewer's vault: a markdown
// link with a vault-root path written in a subfolder must reach the note at
// that path, as the wikilink beside it does, never a note of the same name
// in another folder; a missing one becomes a stub where Obsidian would
// create it.
func TestMarkdownLinkFromSubfolder(t *testing.T) {
	vault := writeVault(t, map[string]string{
		"Projects/Foo.md": "x",
		"Archive/Foo.md":  "x",
		"Daily/2024-01-01.md": "[foo](Projects/Foo.md)\n[[Projects/Foo]]\n" +
			"[gone](Projects/Missing.md)\n[up](../Projects/Gone.md)\n[here](./Here.md)\n[bare](Bare.md)\n",
	})
	s := openSnap(t, run(t, vault, t.TempDir()).Dir)
	links, err := s.Links()
	must(t, err)
	var targets []string
	for _, l := range links {
		targets = append(targets, l.Kind+" "+l.Target)
	}
	want := []string{
		"markdown Projects/Foo.md", "wikilink Projects/Foo",
		"markdown Projects/Missing.md", "markdown Projects/Gone.md", "markdown Daily/Here.md", "markdown Bare.md",
	}
	if d := cmp.Diff(want, targets); d != "" {
		t.Errorf("link targets (-want +got):\n%s", d)
	}
	edges, err := s.Edges()
	must(t, err)
	got := map[string]bool{}
	for _, e := range edges {
		got[e.Target] = e.Unresolved
	}
	wantEdges := map[string]bool{
		"Projects/Foo.md": false, "Projects/Missing.md": true, "Projects/Gone.md": true, "Daily/Here.md": true, "Bare.md": true,
	}
	if d := cmp.Diff(wantEdges, got); d != "" {
		t.Errorf("edge targets -> unresolved (-want +got):\n%s", d)
	}
	notes, err := s.Notes()
	must(t, err)
	var stubs []string
	for _, n := range notes {
		if n.Stub {
			stubs = append(stubs, n.ID+" in "+n.Folder)
		}
	}
	wantStubs := []string{"Bare.md in ", "Daily/Here.md in Daily", "Projects/Gone.md in Projects", "Projects/Missing.md in Projects"}
	if d := cmp.Diff(wantStubs, stubs); d != "" {
		t.Errorf("stubs (-want +got):\n%s", d)
	}
}
