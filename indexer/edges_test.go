package indexer

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vaultgraph/vaultgraph/format"
)

func TestBuildGraph(t *testing.T) {
	notes := []format.Note{{ID: "A.md"}, {ID: "B.md"}, {ID: "C.md"}}
	hours := prop(t, "hours", format.KindInt, 120)
	pin := prop(t, "id", format.KindString, "a-knows-b")
	links := []format.Link{
		{Source: "A.md", Kind: format.KindWikilink, Type: format.TypeLinksTo, Origin: format.OriginBody, Target: "B", Line: 3, Sign: 1},
		{Source: "A.md", Kind: format.KindWikilink, Type: format.TypeLinksTo, Origin: format.OriginBody, Target: "b", Anchor: "Goals", Line: 4, Sign: 1},
		{Source: "A.md", Kind: format.KindMarkdown, Type: format.TypeLinksTo, Origin: format.OriginBody, Target: "B.md", Anchor: "^x1", Line: 5, Sign: 1},
		{Source: "A.md", Kind: format.KindWikilink, Type: format.TypeEmbeds, Origin: format.OriginBody, Target: "C", Line: 6, Sign: 1},
		{Source: "A.md", Kind: format.KindWikilink, Type: "contributes", Origin: format.OriginField, Target: "B", Line: 7, Sign: 1, Properties: []format.Property{hours}},
		{Source: "A.md", Kind: format.KindWikilink, Type: "contributes", Origin: format.OriginField, Target: "B", Line: 8, Sign: 1},
		{Source: "A.md", Kind: format.KindWikilink, Type: "distrusts", Origin: format.OriginField, Target: "C", Line: 9, Sign: -1},
		{Source: "A.md", Kind: format.KindWikilink, Type: "knows", Origin: format.OriginField, Target: "B", Line: 10, Sign: 1, Properties: []format.Property{pin}},
		{Source: "C.md", Kind: format.KindWikilink, Type: "knows", Origin: format.OriginField, Target: "A", Line: 2, Sign: 1, Properties: []format.Property{pin}},
		{Source: "C.md", Kind: format.KindWikilink, Type: format.TypeLinksTo, Origin: format.OriginBody, Target: "Missing Idea", Line: 3, Sign: 1},
		{Source: "B.md", Kind: format.KindWikilink, Type: format.TypeLinksTo, Origin: format.OriginBody, Target: "missing idea", Line: 3, Sign: 1},
		{Source: "B.md", Kind: format.KindWikilink, Type: "works_at", Origin: format.OriginFrontmatter, Target: "Acme", Line: 2, Sign: 1},
		// A field link and body links of one type to one target: the
		// field's edge takes ordinal 0, the body links merge into one
		// edge with the next.
		{Source: "B.md", Kind: format.KindWikilink, Type: format.TypeLinksTo, Origin: format.OriginField, Target: "C", Line: 4, Sign: 1},
		{Source: "B.md", Kind: format.KindWikilink, Type: format.TypeLinksTo, Origin: format.OriginBody, Target: "C", Line: 5, Sign: 1},
		{Source: "B.md", Kind: format.KindWikilink, Type: format.TypeLinksTo, Origin: format.OriginBody, Target: "c", Line: 6, Sign: 1},
	}
	g := buildGraph(links, newResolver(notes))
	want := []format.Edge{
		{ID: "A.md#links_to#B.md#0", Source: "A.md", Target: "B.md", Type: "links_to", Sign: 1, Count: 3, Origin: "body", Anchors: []string{"Goals", "^x1"}, Line: 3},
		{ID: "A.md#embeds#C.md#0", Source: "A.md", Target: "C.md", Type: "embeds", Sign: 1, Count: 1, Origin: "body", Line: 6},
		{ID: "A.md#contributes#B.md#0", Source: "A.md", Target: "B.md", Type: "contributes", Sign: 1, Count: 1, Origin: "field", Line: 7, Properties: []format.Property{hours}},
		{ID: "A.md#contributes#B.md#1", Source: "A.md", Target: "B.md", Type: "contributes", Sign: 1, Count: 1, Origin: "field", Line: 8},
		{ID: "A.md#distrusts#C.md#0", Source: "A.md", Target: "C.md", Type: "distrusts", Sign: -1, Count: 1, Origin: "field", Line: 9},
		{ID: "a-knows-b", Source: "A.md", Target: "B.md", Type: "knows", Sign: 1, Count: 1, Origin: "field", Line: 10, Properties: []format.Property{pin}},
		{ID: "C.md#knows#A.md#0", Source: "C.md", Target: "A.md", Type: "knows", Sign: 1, Count: 1, Origin: "field", Line: 2, Properties: []format.Property{pin}},
		{ID: "C.md#links_to#Missing Idea#0", Source: "C.md", Target: "Missing Idea", Type: "links_to", Sign: 1, Count: 1, Origin: "body", Line: 3, Unresolved: true},
		{ID: "B.md#links_to#Missing Idea#0", Source: "B.md", Target: "Missing Idea", Type: "links_to", Sign: 1, Count: 1, Origin: "body", Line: 3, Unresolved: true},
		{ID: "B.md#works_at#Acme#0", Source: "B.md", Target: "Acme", Type: "works_at", Sign: 1, Count: 1, Origin: "frontmatter", Line: 2, Unresolved: true},
		{ID: "B.md#links_to#C.md#0", Source: "B.md", Target: "C.md", Type: "links_to", Sign: 1, Count: 1, Origin: "field", Line: 4},
		{ID: "B.md#links_to#C.md#1", Source: "B.md", Target: "C.md", Type: "links_to", Sign: 1, Count: 2, Origin: "body", Line: 5},
	}
	if diff := cmp.Diff(want, g.edges); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}
	wantStubs := []string{"Missing Idea", "Acme"}
	var gotStubs []string
	for _, s := range g.stubs {
		if !s.Stub || s.Path != "" {
			t.Errorf("stub %+v not marked as a stub", s)
		}
		gotStubs = append(gotStubs, s.ID)
	}
	if diff := cmp.Diff(wantStubs, gotStubs); diff != "" {
		t.Errorf("stubs (-want +got):\n%s", diff)
	}
	if g.unresolved != 3 {
		t.Errorf("unresolved = %d, want 3", g.unresolved)
	}
	if len(g.warnings) != 1 || g.warnings[0].Kind != format.WarnDuplicateEdgeID || g.warnings[0].File != "C.md" {
		t.Errorf("warnings = %+v, want one duplicate-edge-id for C.md", g.warnings)
	}
}

func TestSentence(t *testing.T) {
	acme := &format.Note{ID: "Companies/Acme.md", Title: "Acme", Labels: []string{"Company"}}
	search := &format.Note{ID: "Projects/Search.md", Title: "Search", Labels: []string{"Project"}}
	bob := &format.Note{ID: "People/Bob.md", Title: "Bob", Labels: []string{"Person", "Engineer"}}
	mallory := &format.Note{ID: "People/Mallory.md", Title: "Mallory", Labels: []string{"Person"}}
	alice := &format.Note{ID: "People/Alice.md", Title: "Alice", Labels: []string{"Person"}}
	stub := &format.Note{ID: "Nowhere", Title: "Nowhere", Stub: true}
	plain := &format.Note{ID: "Inbox.md", Title: "Inbox"}
	tests := []struct {
		e        format.Edge
		src, dst *format.Note
		want     string
	}{
		{format.Edge{Type: "funds", Sign: 1, Properties: []format.Property{prop(t, "amount", format.KindInt, 250000), prop(t, "currency", format.KindString, "EUR")}},
			acme, search, "Acme (Company) funds Search (Project) - amount 250000, currency EUR"},
		{format.Edge{Type: "contributes", Sign: 1, Properties: []format.Property{prop(t, "hours", format.KindInt, 120)}},
			bob, search, "Bob (Person, Engineer) contributes Search (Project) - hours 120"},
		{format.Edge{Type: "distrusts", Sign: -1}, mallory, alice, "Mallory (Person) distrusts (negative) Alice (Person)"},
		{format.Edge{Type: "depends_on", Sign: 1, Properties: []format.Property{prop(t, "id", format.KindString, "x"), prop(t, "critical", format.KindBool, true)}},
			search, search, "Search (Project) depends on Search (Project) - critical true"},
		{format.Edge{Type: "links_to", Sign: 1}, plain, stub, "Inbox links to Nowhere (missing note)"},
	}
	for _, tc := range tests {
		if got := sentence(tc.e, tc.src, tc.dst); got != tc.want {
			t.Errorf("sentence = %q\nwant       %q", got, tc.want)
		}
	}
}

func prop(t *testing.T, key, kind string, v any) format.Property {
	t.Helper()
	p, err := format.NewProperty(key, kind, v)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBuildGraphSourcesApart numbers a source's edges on from its earlier
// links when another note's links come between them: the ordinal
// sequences are per source, not per run of links.
func TestBuildGraphSourcesApart(t *testing.T) {
	notes := []format.Note{{ID: "A.md"}, {ID: "B.md"}, {ID: "X.md"}}
	field := func(source string, line int32) format.Link {
		return format.Link{Source: source, Kind: format.KindWikilink, Type: "knows", Origin: format.OriginField, Target: "X", Line: line, Sign: 1}
	}
	g := buildGraph([]format.Link{field("A.md", 1), field("B.md", 1), field("A.md", 2)}, newResolver(notes))
	var ids []string
	for _, e := range g.edges {
		ids = append(ids, e.ID)
	}
	want := []string{"A.md#knows#X.md#0", "B.md#knows#X.md#0", "A.md#knows#X.md#1"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("edge ids (-want +got):\n%s", diff)
	}
}
