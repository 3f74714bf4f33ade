package diff

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
)

// vault builds one side of a comparison from notes given as path ->
// signature, edges as "source type target" (target "?text" for an
// unresolved link) with the properties edgeProps has for the edge's
// index, and warnings as "file kind message".
type vault struct {
	notes     map[string]string
	edges     []string
	edgeProps map[int][]format.Property
	chunks    map[string][]string
	props     map[string][]format.Property
	labels    map[string][]string
	tags      map[string][]string
	warnings  []string
	embedder  *format.Embedder
}

func (v vault) side(id string) *side {
	s := &side{Manifest: &format.Manifest{ID: id, Embedder: v.embedder}}
	for _, p := range slices.Sorted(mapsKeys(v.notes)) {
		s.Notes = append(s.Notes, noteRow{ID: p, Path: p, Title: strings.TrimSuffix(p, ".md"), Signature: v.notes[p],
			Properties: v.props[p], Labels: v.labels[p], Tags: v.tags[p]})
	}
	for i, e := range v.edges {
		f := strings.Fields(e)
		row := edgeRow{Source: f[0], Type: f[1], Target: f[2], Sign: 1, Properties: v.edgeProps[i]}
		if p, ok := format.Lookup(row.Properties, "id"); ok {
			row.ID = p.Text()
		}
		if strings.HasPrefix(row.Target, "?") {
			row.Target, row.Unresolved = row.Target[1:], true
			s.Notes = append(s.Notes, noteRow{ID: row.Target, Stub: true})
		}
		if strings.HasPrefix(row.Type, "-") {
			row.Type, row.Sign = row.Type[1:], -1
		}
		s.Edges = append(s.Edges, row)
	}
	for note, texts := range v.chunks {
		for _, t := range texts {
			s.Chunks = append(s.Chunks, chunkRow{Note: note, Text: t})
		}
	}
	for _, w := range v.warnings {
		f := strings.SplitN(w, " ", 3)
		s.Manifest.Warnings = append(s.Manifest.Warnings, format.Warning{File: f[0], Kind: f[1], Message: f[2]})
	}
	return s
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func prop(key, kind, value string) format.Property {
	return format.PropertyFromJSON(key, kind, value)
}

func TestCompare(t *testing.T) {
	base := vault{
		notes: map[string]string{"a.md": "A", "b.md": "B", "c.md": "C"},
		edges: []string{"a.md links_to b.md", "b.md knows c.md", "c.md links_to ?Missing"},
	}
	cases := []struct {
		name   string
		before vault
		after  vault
		check  func(t *testing.T, r *Report)
		holds  []Condition
	}{
		{"identical", base, base, func(t *testing.T, r *Report) {
			if !r.Empty() || r.Summary() != "no changes" {
				t.Errorf("not empty: %+v", r)
			}
		}, nil},
		{"added and removed notes", base, vault{
			notes: map[string]string{"a.md": "A", "b.md": "B", "d.md": "D"},
			edges: []string{"a.md links_to b.md"},
		}, func(t *testing.T, r *Report) {
			eq(t, "added", r.Notes.Added, []string{"d.md"})
			eq(t, "removed", r.Notes.Removed, []string{"c.md"})
			eq(t, "edges removed", r.Edges.Removed, []Edge{{"knows", "b.md", "c.md"}})
			eq(t, "unresolved lost", r.Unresolved.Lost, []Edge{{"links_to", "c.md", "Missing"}})
			eq(t, "by type", r.Edges.ByType, []TypeCount{{"knows", 0, 1, 0}})
		}, []Condition{RemovedEdges}},
		{"rename is only a rename", base, vault{
			notes: map[string]string{"a.md": "A", "b.md": "B", "sub/c2.md": "C"},
			edges: []string{"a.md links_to b.md", "b.md knows sub/c2.md", "sub/c2.md links_to ?Missing"},
		}, func(t *testing.T, r *Report) {
			eq(t, "renamed", r.Notes.Renamed, []Rename{{"c.md", "sub/c2.md"}})
			eq(t, "added", r.Notes.Added, []string{})
			eq(t, "removed", r.Notes.Removed, []string{})
			eq(t, "edges", len(r.Edges.Added)+len(r.Edges.Removed)+len(r.Unresolved.Gained)+len(r.Unresolved.Lost), 0)
		}, nil},
		{"rename that breaks a link", base, vault{
			notes: map[string]string{"a.md": "A", "b.md": "B", "c2.md": "C"},
			edges: []string{"a.md links_to b.md", "b.md knows ?c", "c2.md links_to ?Missing"},
		}, func(t *testing.T, r *Report) {
			eq(t, "renamed", r.Notes.Renamed, []Rename{{"c.md", "c2.md"}})
			eq(t, "edges removed", r.Edges.Removed, []Edge{{"knows", "b.md", "c2.md"}})
			eq(t, "unresolved gained", r.Unresolved.Gained, []Edge{{"knows", "b.md", "c"}})
		}, []Condition{RemovedEdges, NewUnresolved}},
		{"empty notes pair up in path order", vault{notes: map[string]string{"x1.md": "E", "x2.md": "E"}},
			vault{notes: map[string]string{"y1.md": "E", "y2.md": "E", "y3.md": "E"}},
			func(t *testing.T, r *Report) {
				eq(t, "renamed", r.Notes.Renamed, []Rename{{"x1.md", "y1.md"}, {"x2.md", "y2.md"}})
				eq(t, "added", r.Notes.Added, []string{"y3.md"})
			}, nil},
		{"repeated typed edge and sign", vault{notes: base.notes, edges: []string{"a.md knows b.md", "a.md knows b.md"}},
			vault{notes: base.notes, edges: []string{"a.md knows b.md", "a.md -knows b.md"}},
			func(t *testing.T, r *Report) {
				eq(t, "added", r.Edges.Added, []Edge{{"-knows", "a.md", "b.md"}})
				eq(t, "removed", r.Edges.Removed, []Edge{{"knows", "a.md", "b.md"}})
			}, []Condition{RemovedEdges}},
		{"changed note", vault{
			notes:  map[string]string{"a.md": "A"},
			props:  map[string][]format.Property{"a.md": {prop("status", "string", `"active"`), prop("n", "int", "1"), prop("gone", "bool", "true"), prop("f", "string", `"x"`), prop("f", "string", `"y"`)}},
			labels: map[string][]string{"a.md": {"Project"}},
			tags:   map[string][]string{"a.md": {"x", "y"}},
			chunks: map[string][]string{"a.md": {"one", "two", "three"}},
		}, vault{
			notes:  map[string]string{"a.md": "A2"},
			props:  map[string][]format.Property{"a.md": {prop("status", "string", `"done"`), prop("n", "float", "1"), prop("new", "list", `["p","q"]`), prop("f", "string", `"x"`), prop("f", "string", `"y"`)}},
			labels: map[string][]string{"a.md": {"Project", "Archived"}},
			tags:   map[string][]string{"a.md": {"y"}},
			chunks: map[string][]string{"a.md": {"one", "two!", "three", "four"}},
		}, func(t *testing.T, r *Report) {
			if len(r.Notes.Changed) != 1 {
				t.Fatalf("changed = %+v", r.Notes.Changed)
			}
			c := r.Notes.Changed[0]
			eq(t, "labels", c.Labels, SetChange{Added: []string{"Archived"}, Removed: []string{}})
			eq(t, "tags", c.Tags, SetChange{Added: []string{}, Removed: []string{"x"}})
			eq(t, "properties", c.Properties, []PropertyChange{
				{Key: "gone", Change: PropertyRemoved, Before: "true"},
				{Key: "n", Change: PropertyChanged, Before: "1", After: "1"},
				{Key: "new", Change: PropertyAdded, After: `["p","q"]`},
				{Key: "status", Change: PropertyChanged, Before: "active", After: "done"},
			})
			eq(t, "chunks", c.Chunks, &ChunkChange{Before: 3, After: 4, Added: 2, Removed: 1})
			if c.Title != nil {
				t.Errorf("title changed: %+v", c.Title)
			}
		}, nil},
		{"edge property changed", vault{
			notes:     base.notes,
			edges:     []string{"a.md depends_on b.md", "a.md links_to b.md"},
			edgeProps: map[int][]format.Property{0: {prop("critical", "bool", "true"), prop("since", "int", "2020")}},
		}, vault{
			notes:     map[string]string{"a.md": "A2", "b.md": "B", "c.md": "C"},
			edges:     []string{"a.md depends_on b.md", "a.md links_to b.md"},
			edgeProps: map[int][]format.Property{0: {prop("owner", "string", `"Erin"`), prop("critical", "bool", "false")}},
		}, func(t *testing.T, r *Report) {
			eq(t, "changed", r.Edges.Changed, []EdgeChange{{Type: "depends_on", Source: "a.md", Target: "b.md", Properties: []PropertyChange{
				{Key: "critical", Change: PropertyChanged, Before: "true", After: "false"},
				{Key: "owner", Change: PropertyAdded, After: "Erin"},
				{Key: "since", Change: PropertyRemoved, Before: "2020"},
			}}})
			eq(t, "added", r.Edges.Added, []Edge{})
			eq(t, "removed", r.Edges.Removed, []Edge{})
			eq(t, "by type", r.Edges.ByType, []TypeCount{{"depends_on", 0, 0, 1}})
			eq(t, "summary", r.Summary(), "1 notes changed, 1 edges changed")
		}, []Condition{ChangedEdges}},
		{"edge properties reordered", vault{
			notes:     base.notes,
			edges:     []string{"a.md depends_on b.md"},
			edgeProps: map[int][]format.Property{0: {prop("critical", "bool", "true"), prop("since", "int", "2020")}},
		}, vault{
			notes:     base.notes,
			edges:     []string{"a.md depends_on b.md"},
			edgeProps: map[int][]format.Property{0: {prop("since", "int", "2020"), prop("critical", "bool", "true")}},
		}, func(t *testing.T, r *Report) {
			if !r.Empty() {
				t.Errorf("reordering an edge's properties is a change: %+v", r.Edges)
			}
		}, nil},
		{"repeated edges pair by properties, then id, then order", vault{
			notes: base.notes,
			edges: []string{"a.md knows b.md", "a.md knows b.md", "a.md knows b.md", "b.md knows c.md", "b.md knows c.md", "b.md knows c.md"},
			edgeProps: map[int][]format.Property{
				0: {prop("n", "int", "1")}, 1: {prop("n", "int", "2")}, 2: {prop("n", "int", "3")},
				3: {prop("id", "string", `"x"`), prop("w", "int", "1")}, 4: {prop("id", "string", `"y"`), prop("w", "int", "2")},
			},
		}, vault{
			notes: base.notes,
			// a->b: n=2 gone, n=3 and n=1 swapped: one removed, nothing changed.
			// b->c: pinned ids swap places and both change; the third edge
			// gets a property.
			edges: []string{"a.md knows b.md", "a.md knows b.md", "b.md knows c.md", "b.md knows c.md", "b.md knows c.md"},
			edgeProps: map[int][]format.Property{
				0: {prop("n", "int", "3")}, 1: {prop("n", "int", "1")},
				2: {prop("id", "string", `"y"`), prop("w", "int", "20")}, 3: {prop("id", "string", `"x"`), prop("w", "int", "10")},
				4: {prop("w", "int", "3")},
			},
		}, func(t *testing.T, r *Report) {
			eq(t, "removed", r.Edges.Removed, []Edge{{"knows", "a.md", "b.md"}})
			eq(t, "added", r.Edges.Added, []Edge{})
			var got []string
			for _, c := range r.Edges.Changed {
				for _, p := range c.Properties {
					got = append(got, c.Source+" "+p.Key+" "+p.Before+"->"+p.After)
				}
			}
			slices.Sort(got)
			eq(t, "changed", got, []string{"b.md w ->3", "b.md w 1->10", "b.md w 2->20"})
		}, []Condition{RemovedEdges, ChangedEdges}},
		{"edge property changed with a rename", vault{
			notes:     base.notes,
			edges:     []string{"b.md knows c.md"},
			edgeProps: map[int][]format.Property{0: {prop("since", "int", "2020")}},
		}, vault{
			notes:     map[string]string{"a.md": "A", "b.md": "B2", "sub/c.md": "C"},
			edges:     []string{"b.md knows sub/c.md"},
			edgeProps: map[int][]format.Property{0: {prop("since", "int", "2021")}},
		}, func(t *testing.T, r *Report) {
			eq(t, "changed", r.Edges.Changed, []EdgeChange{{Type: "knows", Source: "b.md", Target: "sub/c.md",
				Properties: []PropertyChange{{Key: "since", Change: PropertyChanged, Before: "2020", After: "2021"}}}})
			eq(t, "edges", len(r.Edges.Added)+len(r.Edges.Removed), 0)
		}, []Condition{ChangedEdges}},
		{"unresolved link property changed", vault{
			notes:     base.notes,
			edges:     []string{"a.md depends_on ?Missing"},
			edgeProps: map[int][]format.Property{0: {prop("critical", "bool", "true")}},
		}, vault{
			notes:     base.notes,
			edges:     []string{"a.md depends_on ?Missing"},
			edgeProps: map[int][]format.Property{0: {prop("critical", "bool", "false")}},
		}, func(t *testing.T, r *Report) {
			eq(t, "changed", r.Edges.Changed, []EdgeChange{{Type: "depends_on", Source: "a.md", Target: "Missing", Unresolved: true,
				Properties: []PropertyChange{{Key: "critical", Change: PropertyChanged, Before: "true", After: "false"}}}})
			eq(t, "unresolved", len(r.Unresolved.Gained)+len(r.Unresolved.Lost), 0)
		}, []Condition{ChangedEdges}},
		{"warnings gained, not moved", vault{notes: base.notes, warnings: []string{"a.md invalid-yaml bad frontmatter", "c.md binary holds NUL"}},
			vault{notes: map[string]string{"a.md": "A2", "b.md": "B", "c.md": "C"}, warnings: []string{"a.md invalid-yaml bad frontmatter", "b.md invalid-utf8 bytes replaced"}},
			func(t *testing.T, r *Report) {
				eq(t, "gained", len(r.Warnings.Gained), 1)
				eq(t, "gained file", r.Warnings.Gained[0].File, "b.md")
				eq(t, "resolved", len(r.Warnings.Resolved), 1)
			}, []Condition{NewWarnings}},
		{"model change", vault{notes: base.notes, embedder: &format.Embedder{Provider: "builtin", Model: "hash", Dimensions: 256, Fingerprint: "f1"}},
			vault{notes: base.notes, embedder: &format.Embedder{Provider: "ollama", Model: "nomic-embed-text", Dimensions: 768, Fingerprint: "f2"}},
			func(t *testing.T, r *Report) {
				if r.Embedder == nil || r.Embedder.After.Model != "nomic-embed-text" {
					t.Errorf("embedder = %+v", r.Embedder)
				}
			}, []Condition{ModelChange}},
		{"vectors added", vault{notes: base.notes}, vault{notes: base.notes, embedder: &format.Embedder{Provider: "builtin", Fingerprint: "f1"}},
			func(t *testing.T, r *Report) {
				if r.Embedder == nil || r.Embedder.Before != nil {
					t.Errorf("embedder = %+v", r.Embedder)
				}
			}, []Condition{ModelChange}},
		{"same model", vault{notes: base.notes, embedder: &format.Embedder{Provider: "builtin", Fingerprint: "f1", Dimensions: 256}},
			vault{notes: base.notes, embedder: &format.Embedder{Provider: "builtin", Fingerprint: "f1", Dimensions: 256}},
			func(t *testing.T, r *Report) {
				if r.Embedder != nil {
					t.Errorf("embedder = %+v", r.Embedder)
				}
			}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := compare(tc.before.side("A"), tc.after.side("B"))
			tc.check(t, r)
			eq(t, "failed", r.Failed(Conditions), tc.holds)
			// Every format renders, and JSON round-trips.
			for _, f := range []string{FormatText, FormatMarkdown, FormatJSON} {
				var buf bytes.Buffer
				if err := r.Render(&buf, f, 0); err != nil || buf.Len() == 0 {
					t.Errorf("render %s: %v", f, err)
				}
				if f == FormatJSON {
					var back Report
					if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
						t.Errorf("json: %v", err)
					}
				}
			}
		})
	}
}

func eq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %+v, want %+v", what, got, want)
	}
}

func TestParseConditions(t *testing.T) {
	got, err := ParseConditions([]string{"removed-edges, new-warnings", "", "model-change"})
	if err != nil || !slices.Equal(got, []Condition{RemovedEdges, NewWarnings, ModelChange}) {
		t.Errorf("ParseConditions = %v, %v", got, err)
	}
	if _, err := ParseConditions([]string{"removed-notes"}); err == nil || !strings.Contains(err.Error(), "removed-edges, new-unresolved") {
		t.Errorf("unknown condition: %v", err)
	}
}

func TestRenderShapes(t *testing.T) {
	r := compare(vault{notes: map[string]string{"a.md": "A", "b`c.md": "B"}, edges: []string{"a.md links_to b`c.md"}}.side("A"),
		vault{notes: map[string]string{"a.md": "A", "d.md": "D"}, edges: []string{"a.md links_to ?b`c", "d.md knows a.md"}}.side("B"))
	var text, md bytes.Buffer
	r.Render(&text, FormatText, 0)
	r.Render(&md, FormatMarkdown, 1)
	for _, want := range []string{
		"snapshot diff A -> B: 1 notes added, 1 notes removed, 1 edges added, 1 edges removed, 1 unresolved links gained",
		"notes added (1)\n  + d.md", "edges by type\n  knows", "+ d.md -[knows]-> a.md", "- a.md -[links_to]-> b`c.md",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	for _, want := range []string{"### vaultgraph snapshot diff", "| edges | 1 | 1 |", "<details><summary>Notes removed (1)</summary>", "`` b`c.md ``", "| `knows` | 1 | 0 |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

// TestRenderEdgeChanges checks every format shows an edge's property
// changes.
func TestRenderEdgeChanges(t *testing.T) {
	notes := map[string]string{"Projects/Search.md": "S", "Projects/Crawler.md": "C"}
	edge := []string{"Projects/Search.md depends_on Projects/Crawler.md"}
	r := compare(vault{notes: notes, edges: edge, edgeProps: map[int][]format.Property{0: {prop("critical", "bool", "true")}}}.side("A"),
		vault{notes: notes, edges: edge, edgeProps: map[int][]format.Property{0: {prop("critical", "bool", "false"), prop("owner", "string", `"Erin"`)}}}.side("B"))
	var text, md, js bytes.Buffer
	r.Render(&text, FormatText, 0)
	r.Render(&md, FormatMarkdown, 0)
	r.Render(&js, FormatJSON, 0)
	for _, want := range []string{
		"snapshot diff A -> B: 1 edges changed\n",
		"edges by type\n  depends_on               +0 -0 ~1\n",
		"edges changed (1)\n  ~ Projects/Search.md -[depends_on]-> Projects/Crawler.md\n      property critical: true -> false\n      property owner: added Erin\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	for _, want := range []string{
		"| edges | 0 | 0 |", "1 edges with changed properties.", "| type | added | removed | changed |", "| `depends_on` | 0 | 0 | 1 |",
		"<details><summary>Edges changed (1)</summary>\n\n- `Projects/Search.md` —`depends_on`→ `Projects/Crawler.md`\n  - property critical: true -> false\n  - property owner: added Erin\n",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	var back struct {
		Edges struct {
			Changed []map[string]any `json:"changed"`
		} `json:"edges"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{{"type": "depends_on", "source": "Projects/Search.md", "target": "Projects/Crawler.md", "properties": []any{
		map[string]any{"key": "critical", "change": "changed", "before": "true", "after": "false"},
		map[string]any{"key": "owner", "change": "added", "after": "Erin"},
	}}}
	eq(t, "json edges.changed", back.Edges.Changed, want)
}

func TestCode(t *testing.T) {
	for in, want := range map[string]string{"a.md": "`a.md`", "a`b": "`` a`b ``", "``x": "``` ``x ```"} {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %q, want %q", in, got, want)
		}
	}
}
