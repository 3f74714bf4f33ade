package note

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vaultgraph/vaultgraph/format"
)

// field builds an expected typed edge from an inline field on line 1.
func field(typ, target string, props ...format.Property) format.Link {
	if len(props) == 0 {
		props = nil
	}
	return link(format.Link{Origin: format.OriginField, Type: typ, Target: target, Properties: props, Line: 1})
}

// TestTypedGraphExamples pins the edge syntax of the Typed Graph plugin,
// which vaultgraph reads exactly.
func TestTypedGraphExamples(t *testing.T) {
	negative := func(l format.Link) format.Link { l.Sign = -1; return l }
	md := func(l format.Link) format.Link { l.Kind, l.Display = format.KindMarkdown, "Bob"; return l }
	tests := []struct {
		name, in string
		want     []format.Link
	}{
		{"bool property", "depends_on:: [[Crawler]] {critical: true}",
			[]format.Link{field("depends_on", "Crawler", prop(t, "critical", format.KindBool, true))}},
		{"int property", "contributes:: [[Search]] {hours: 120}",
			[]format.Link{field("contributes", "Search", prop(t, "hours", format.KindInt, 120))}},
		{"two properties in order", "funds:: [[Search]] {amount: 250000, currency: EUR}",
			[]format.Link{field("funds", "Search", prop(t, "amount", format.KindInt, 250000), prop(t, "currency", format.KindString, "EUR"))}},
		{"markdown link target", "knows:: [Bob](/people/bob.md) {since: 2020}",
			[]format.Link{md(field("knows", "people/bob.md", prop(t, "since", format.KindInt, 2020)))}},
		{"negative sign", "-distrusts:: [[Alice]]",
			[]format.Link{negative(field("distrusts", "Alice"))}},
		{"explicit positive sign", "+trusts:: [[Carol]]",
			[]format.Link{field("trusts", "Carol")}},
		{"bracketed in prose", "Alice [leads:: [[Search]]] since spring.",
			[]format.Link{field("leads", "Search")}},
		{"list item, two targets, shared properties", "- works_at:: [[Acme]], [[Initech]] {role: engineer}",
			[]format.Link{
				field("works_at", "Acme", prop(t, "role", format.KindString, "engineer")),
				field("works_at", "Initech", prop(t, "role", format.KindString, "engineer"))}},
		{"quoted string property", `knows:: [[Alice]] {since: 2020, label: "met at conf"}`,
			[]format.Link{field("knows", "Alice", prop(t, "since", format.KindInt, 2020), prop(t, "label", format.KindString, "met at conf"))}},
		{"id is kept as a property", "knows:: [[Bob]] {id: alice-knows-bob}",
			[]format.Link{field("knows", "Bob", prop(t, "id", format.KindString, "alice-knows-bob"))}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.in)
			diffLinks(t, p.Links, tc.want)
			if len(p.Warnings) != 0 || len(p.Properties) != 0 {
				t.Errorf("warnings %v properties %v, want none", p.Warnings, p.Properties)
			}
		})
	}
}

func TestInlineFieldForms(t *testing.T) {
	tests := []struct {
		name, in string
		want     []format.Link
	}{
		{"star list item", "* up:: [[Parent]]", []format.Link{field("up", "Parent")}},
		{"plus list item", "+ up:: [[Parent]]", []format.Link{field("up", "Parent")}},
		{"numbered list item", "12. up:: [[Parent]]", []format.Link{field("up", "Parent")}},
		{"indented list item", "    - up:: [[Parent]]", []format.Link{field("up", "Parent")}},
		{"a task is no full-line field", "- [ ] up:: [[Parent]]", []format.Link{link(format.Link{Target: "Parent", Line: 1})}},
		{"a done task is no full-line field", "1. [x] up:: [[Parent]]", []format.Link{link(format.Link{Target: "Parent", Line: 1})}},
		{"bracketed field in a task", "- [ ] call [owner:: [[B]]]", []format.Link{field("owner", "B")}},
		{"checkbox without a list marker is no task", "[ ] up:: [[Parent]]", []format.Link{field("up", "Parent")}},
		{"blockquote", "> up:: [[Parent]]", []format.Link{field("up", "Parent")}},
		{"callout in list", "> - up:: [[Parent]]", []format.Link{field("up", "Parent")}},
		{"negative in list", "- -distrusts:: [[Alice]]", []format.Link{func() format.Link { l := field("distrusts", "Alice"); l.Sign = -1; return l }()}},
		{"bold key", "**depends on**:: [[Crawler]]", []format.Link{field("depends on", "Crawler")}},
		{"key with spaces and accents", "travaille à:: [[Acme]]", []format.Link{field("travaille à", "Acme")}},
		{"space before colons", "up :: [[Parent]]", []format.Link{field("up", "Parent")}},
		{"round brackets", "text (up:: [[Parent]]) more", []format.Link{field("up", "Parent")}},
		{"two bracketed fields", "[a:: [[X]]] and [b:: [[Y]] {w: 1}]",
			[]format.Link{field("a", "X"), field("b", "Y", prop(t, "w", format.KindInt, 1))}},
		{"alias and anchor kept", "up:: [[Parent#Goals|the parent]]",
			[]format.Link{func() format.Link { l := field("up", "Parent"); l.Anchor, l.Display = "Goals", "the parent"; return l }()}},
		{"embed in a field is typed", "shows:: ![[Diagram]]", []format.Link{field("shows", "Diagram")}},
		{"text around links is ignored", "source:: see [[Book]] p. 32", []format.Link{field("source", "Book")}},
		{"links inside the block are not targets", `up:: [[A]] {via: "[[B]]"}`,
			[]format.Link{field("up", "A", prop(t, "via", format.KindString, "[[B]]"))}},
		{"empty block", "up:: [[A]] {}", []format.Link{field("up", "A")}},
		{"plain links on a typed line are dropped", "up:: [[Parent]] [[Other]]",
			[]format.Link{field("up", "Parent"), field("up", "Other")}},
		{"prose links beside a bracketed edge are kept", "[[Other]] and [leads:: [[Search]]] and ![[Pic]]",
			[]format.Link{field("leads", "Search"), link(format.Link{Target: "Other", Line: 1}), link(format.Link{Target: "Pic", Type: format.TypeEmbeds, Line: 1})}},
		{"links in a property field stay plain", "[[Other]] and [rating:: 5]",
			[]format.Link{link(format.Link{Target: "Other", Line: 1})}},
		{"bracketed fields before a full-line field", "works_at:: [[A]] (since:: 2020) [mentor:: [[M]]]",
			[]format.Link{field("mentor", "M"), link(format.Link{Target: "A", Line: 1})}},
		{"typed edge with a markdown link has no bracketed field", "knows:: [Bob](/People/Bob.md) {since: 2020}",
			[]format.Link{func() format.Link {
				l := field("knows", "People/Bob.md", prop(t, "since", format.KindInt, 2020))
				l.Kind, l.Display = format.KindMarkdown, "Bob"
				return l
			}()}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			diffLinks(t, parse(t, tc.in).Links, tc.want)
		})
	}
}

func TestEdgeFieldLinesAndHeadings(t *testing.T) {
	in := "# Work\n\n- works_at:: [[Acme]]\n\nnotes [[Plain]]"
	want := []format.Link{
		link(format.Link{Origin: format.OriginField, Type: "works_at", Target: "Acme", Heading: "Work", Line: 3}),
		link(format.Link{Target: "Plain", Heading: "Work", Line: 5}),
	}
	diffLinks(t, parse(t, in).Links, want)
}

func TestMalformedEdgeProperties(t *testing.T) {
	tests := []struct{ name, in string }{
		{"bad yaml", "up:: [[A]] {since: [2020}"},
		{"not closed", "up:: [[A]] {since: 2020"},
		{"text after block", "up:: [[A]] {since: 2020} extra"},
		{"not a map", "up:: [[A]] {a, b: [}"},
		{"alias bomb", "up:: [[A]] {a: &a [x,x,x,x,x,x,x,x,x,x], b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a], c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b], d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c], e: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, "first line\n"+tc.in)
			want := []format.Link{link(format.Link{Origin: format.OriginField, Type: "up", Target: "A", Line: 2})}
			diffLinks(t, p.Links, want)
			if len(p.Warnings) != 1 || p.Warnings[0].Kind != format.WarnEdgeProperties || p.Warnings[0].Line != 2 || p.Warnings[0].File != testPath {
				t.Errorf("warnings = %+v, want one edge-properties warning at line 2", p.Warnings)
			}
		})
	}
}

func TestInlineFieldProperties(t *testing.T) {
	tests := []struct {
		name, in string
		want     []format.Property
	}{
		{"string", "status:: in progress", []format.Property{prop(t, "status", format.KindString, "in progress")}},
		{"int", "rating:: 5", []format.Property{prop(t, "rating", format.KindInt, 5)}},
		{"negative float", "delta:: -2.5", []format.Property{prop(t, "delta", format.KindFloat, -2.5)}},
		{"bool", "done:: true", []format.Property{prop(t, "done", format.KindBool, true)}},
		{"date", "due:: 2024-03-01", []format.Property{prop(t, "due", format.KindDate, "2024-03-01")}},
		{"datetime", "at:: 2024-03-01T10:30", []format.Property{prop(t, "at", format.KindDateTime, "2024-03-01T10:30:00Z")}},
		{"empty is null", "todo::", []format.Property{prop(t, "todo", format.KindNull, nil)}},
		{"words that strconv would read are strings", "x:: Inf", []format.Property{prop(t, "x", format.KindString, "Inf")}},
		{"url value", "source:: https://example.com/a", []format.Property{prop(t, "source", format.KindString, "https://example.com/a")}},
		{"attachment link is no edge", "cover:: ![[cover.png]]", []format.Property{prop(t, "cover", format.KindString, "![[cover.png]]")}},
		{"code span kept in value", "cmd:: `ls -la`", []format.Property{prop(t, "cmd", format.KindString, "`ls -la`")}},
		{"bracketed", "I rate it [rating:: 4] and (mood:: calm).",
			[]format.Property{prop(t, "rating", format.KindInt, 4), prop(t, "mood", format.KindString, "calm")}},
		{"bracketed field on a full-line field's line", "works_at:: Acme (since:: 2020)",
			[]format.Property{prop(t, "since", format.KindInt, 2020)}},
		{"bracketed field in a task", "- [ ] call Bob [due:: 2024-05-01]",
			[]format.Property{prop(t, "due", format.KindDate, "2024-05-01")}},
		{"repeated key becomes a list", "tag:: a\nother:: 1\ntag:: 2\ntag:: b",
			[]format.Property{prop(t, "tag", format.KindList, []any{"a", 2, "b"}), prop(t, "other", format.KindInt, 1)}},
		{"frontmatter first, merged with inline", "---\nstatus: draft\nz: 1\n---\nstatus:: done\nnew:: x",
			[]format.Property{
				prop(t, "status", format.KindList, []any{"draft", "done"}),
				prop(t, "z", format.KindInt, 1),
				prop(t, "new", format.KindString, "x")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.in)
			if d := cmp.Diff(tc.want, p.Properties); d != "" {
				t.Errorf("properties (-want +got):\n%s", d)
			}
			if len(p.Links) != 0 {
				t.Errorf("links = %v, want none", p.Links)
			}
		})
	}
}

func TestNotInlineFields(t *testing.T) {
	tests := []struct{ name, in string }{
		{"no space after colons", "C::D and std::vector"},
		{"url", "see http://example.com/a::b"},
		{"empty key", ":: value"},
		{"key starting with space in brackets", "[ key:: value]"},
		{"punctuation in key", "a.b:: value"},
		{"heading", "# Title:: value"},
		{"table cell", "| key:: value |"},
		{"in code", "`key:: value`"},
		{"in a fence", "```\nkey:: value\n```"},
		{"wikilink is no bracketed field", "[[key:: value]]"},
		{"only a sign", "-:: value"},
		{"task", "- [ ] key:: value"},
		{"done task", "* [x] key:: value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.in)
			if len(p.Properties) != 0 {
				t.Errorf("properties = %v, want none", p.Properties)
			}
			for _, l := range p.Links {
				if l.Origin == format.OriginField {
					t.Errorf("typed edge %+v, want none", l)
				}
			}
		})
	}
}

// TestVaultPatterns holds shapes of inline fields met in real vaults
// (Dataview's documentation vault, a personal notes collection).
func TestVaultPatterns(t *testing.T) {
	in := "---\nType: Weekly\n---\n" +
		"today:: `=link(string(dateformat(date(now), \"yyyy-MM-dd\")))`\n" +
		"prev::  [[2023-W30]]\n" +
		"    - dataCommands:: [[TABLE]], [[WHERE]], [[GROUP BY]]\n" +
		"    - tags:: \n" +
		"up:: [[parent]]\n"
	p := parse(t, in)
	at := func(l format.Link, line int32) format.Link { l.Line = line; return l }
	diffLinks(t, p.Links, []format.Link{
		at(field("prev", "2023-W30"), 5),
		at(field("dataCommands", "TABLE"), 6),
		at(field("dataCommands", "WHERE"), 6),
		at(field("dataCommands", "GROUP BY"), 6),
		at(field("up", "parent"), 8),
	})
	want := []format.Property{
		prop(t, "Type", format.KindString, "Weekly"),
		prop(t, "today", format.KindString, "`=link(string(dateformat(date(now), \"yyyy-MM-dd\")))`"),
	}
	// An empty tags:: adds no tags, and no property shadowed by the
	// built-in tags (it showed as _tags in keys(n)).
	if d := cmp.Diff(want, p.Properties); d != "" || len(p.Tags) != 0 {
		t.Errorf("tags %q, properties (-want +got):\n%s", p.Tags, d)
	}
	if d := cmp.Diff([]string{"Weekly"}, p.Labels); d != "" {
		t.Errorf("labels (-want +got):\n%s", d)
	}
}

// TestBracketedFieldsWinOverTheLine pins the reviewer's case: a line that
// reads as a full-line field but holds a bracketed field is read as Dataview
// reads it, the bracketed field only; nothing of the line is lost, as its
// link stays a plain link.
func TestBracketedFieldsWinOverTheLine(t *testing.T) {
	p := parse(t, "works_at:: [[A]] (since:: 2020)")
	diffLinks(t, p.Links, links(format.Link{Target: "A", Line: 1}))
	if d := cmp.Diff([]format.Property{prop(t, "since", format.KindInt, 2020)}, p.Properties); d != "" {
		t.Errorf("properties (-want +got):\n%s", d)
	}
}
