package note

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vaultgraph/vaultgraph/format"
)

func TestFrontmatterNoteKeys(t *testing.T) {
	type want struct {
		Title                 string
		Aliases, Tags, Labels []string
	}
	tests := []struct {
		name, in string
		want     want
	}{
		{"none", "body", want{Title: "Note"}},
		{"title", "---\ntitle: Alice Smith\n---\n", want{Title: "Alice Smith"}},
		{"numeric title", "---\ntitle: 1984\n---\n", want{Title: "1984"}},
		{"list title falls back to the file name", "---\ntitle: [a, b]\n---\n", want{Title: "Note"}},
		{"aliases list", "---\naliases: [Al, \"Smith, Jr.\"]\n---\n", want{Title: "Note", Aliases: []string{"Al", "Smith, Jr."}}},
		{"alias comma string", "---\nalias: Al, Ally , Alice\n---\n", want{Title: "Note", Aliases: []string{"Al", "Ally", "Alice"}}},
		{"tags list with hash", "---\ntags: [ai, \"#search\", ai]\n---\n", want{Title: "Note", Tags: []string{"ai", "search"}}},
		{"tags string", "---\ntags: \"#a, b c\"\n---\n", want{Title: "Note", Tags: []string{"a", "b", "c"}}},
		{"tag block list", "---\ntag:\n  - project/search\n  - Project/Search\n---\n", want{Title: "Note", Tags: []string{"project/search"}}},
		{"type list", "---\ntype: [Person, Engineer]\n---\n", want{Title: "Note", Labels: []string{"Person", "Engineer"}}},
		{"type then types, deduplicated", "---\ntypes: [Engineer, Manager]\ntype: Person\n---\n",
			want{Title: "Note", Labels: []string{"Person", "Engineer", "Manager"}}},
		{"type as link", "---\ntype: \"[[Person]]\"\ntypes: [[Engineer]]\n---\n", want{Title: "Note", Labels: []string{"Person", "Engineer"}}},
		{"keys without case", "---\nTitle: T\nTags: x\nAliases: y\nType: Z\n---\n",
			want{Title: "T", Aliases: []string{"y"}, Tags: []string{"x"}, Labels: []string{"Z"}}},
		{"empty values", "---\ntitle:\ntags:\naliases: []\ntype:\n---\n", want{Title: "Note"}},
		{"frontmatter and inline tags", "---\ntags: [b]\n---\n#a #B #c", want{Title: "Note", Tags: []string{"b", "a", "c"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.in)
			got := want{p.Title, p.Aliases, p.Tags, p.Labels}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			// type and types are properties as written besides labels
			// (n.type); nothing else is.
			for _, prop := range p.Properties {
				if k := strings.ToLower(prop.Key); k != "type" && k != "types" {
					t.Errorf("property %v, want only type and types", prop)
				}
			}
			if len(p.Warnings) != 0 {
				t.Errorf("warnings %v, want none", p.Warnings)
			}
		})
	}
}

func TestFrontmatterProperties(t *testing.T) {
	in := `---
role: engineer
quoted: "2020-09-14"
level: 3
big: 99999999999999999999
ratio: 0.5
active: yes
remote: true
joined: 2020-09-14
meeting: 2020-09-14T10:00:00+02:00
local: 2020-09-14 10:00
skills: [go, sql, 3]
address: {city: Paris, zip: 75001}
nothing:
notanumber: .nan
link-to-image: "[[photo.png]]"
url: https://example.com
---
body`
	want := []format.Property{
		prop(t, "role", format.KindString, "engineer"),
		prop(t, "quoted", format.KindString, "2020-09-14"),
		prop(t, "level", format.KindInt, 3),
		prop(t, "big", format.KindFloat, 1e20),
		prop(t, "ratio", format.KindFloat, 0.5),
		prop(t, "active", format.KindString, "yes"), // YAML 1.2: yes is a string
		prop(t, "remote", format.KindBool, true),
		prop(t, "joined", format.KindDate, "2020-09-14"),
		prop(t, "meeting", format.KindDateTime, "2020-09-14T10:00:00+02:00"),
		prop(t, "local", format.KindDateTime, "2020-09-14T10:00:00Z"),
		prop(t, "skills", format.KindList, []any{"go", "sql", 3}),
		prop(t, "address", format.KindMap, map[string]any{"city": "Paris", "zip": 75001}),
		prop(t, "nothing", format.KindNull, nil),
		prop(t, "notanumber", format.KindString, ".nan"),
		prop(t, "link-to-image", format.KindString, "[[photo.png]]"),
		prop(t, "url", format.KindString, "https://example.com"),
	}
	p := parse(t, in)
	if d := cmp.Diff(want, p.Properties); d != "" {
		t.Errorf("properties (-want +got):\n%s", d)
	}
	if len(p.Links) != 0 || len(p.Warnings) != 0 {
		t.Errorf("links %v warnings %v", p.Links, p.Warnings)
	}
	if p.BodyStart != strings.Index(in, "body") {
		t.Errorf("BodyStart = %d", p.BodyStart)
	}
}

func TestFrontmatterLinks(t *testing.T) {
	fmLink := func(typ, target string, line int32) format.Link {
		return link(format.Link{Origin: format.OriginFrontmatter, Type: typ, Target: target, Line: line})
	}
	tests := []struct {
		name, in  string
		want      []format.Link
		wantProps []format.Property
	}{
		{"quoted wikilink", "---\nworks_at: \"[[Acme]]\"\n---\n", []format.Link{fmLink("works_at", "Acme", 2)}, nil},
		{"unquoted wikilink", "---\nx: 1\nup: [[Parent]]\n---\n", []format.Link{fmLink("up", "Parent", 3)}, []format.Property{prop(t, "x", format.KindInt, 1)}},
		{"alias and anchor", "---\nup: \"[[Parent#Goals|P]]\"\n---\n",
			[]format.Link{link(format.Link{Origin: format.OriginFrontmatter, Type: "up", Target: "Parent", Anchor: "Goals", Display: "P", Line: 2})}, nil},
		{"list of links", "---\nrelated:\n  - \"[[A]]\"\n  - [[B]]\n---\n",
			[]format.Link{fmLink("related", "A", 3), fmLink("related", "B", 4)}, nil},
		{"two links in one string", "---\nrelated: \"[[A]], [[B]]\"\n---\n",
			[]format.Link{fmLink("related", "A", 2), fmLink("related", "B", 2)}, nil},
		{"mixed list keeps the rest as a property", "---\nrelated: [\"[[A]]\", plain, 3]\n---\n",
			[]format.Link{fmLink("related", "A", 2)},
			[]format.Property{prop(t, "related", format.KindList, []any{"plain", 3})}},
		{"markdown link", "---\nhome: \"[Acme](../Orgs/Acme.md)\"\n---\n",
			[]format.Link{link(format.Link{Origin: format.OriginFrontmatter, Kind: format.KindMarkdown, Type: "home", Target: "Orgs/Acme.md", Display: "Acme", Line: 2})}, nil},
		{"text around a link stays a string", "---\nnote: \"see [[A]] first\"\n---\n", nil,
			[]format.Property{prop(t, "note", format.KindString, "see [[A]] first")}},
		{"URL markdown link stays a string", "---\nsite: \"[Acme](https://acme.com)\"\n---\n", nil,
			[]format.Property{prop(t, "site", format.KindString, "[Acme](https://acme.com)")}},
		{"frontmatter links come before body links", "---\nup: \"[[P]]\"\n---\n[[B]]",
			[]format.Link{fmLink("up", "P", 2), link(format.Link{Target: "B", Line: 4})}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.in)
			diffLinks(t, p.Links, tc.want)
			if d := cmp.Diff(tc.wantProps, p.Properties); d != "" {
				t.Errorf("properties (-want +got):\n%s", d)
			}
		})
	}
}

func TestFrontmatterBlock(t *testing.T) {
	// bodyStart -1 means "where the text body starts".
	tests := []struct {
		name, in  string
		bodyStart int
		title     string
	}{
		{"dots close", "---\ntitle: T\n...\nbody", -1, "T"},
		{"trailing spaces on fences", "---  \ntitle: T\n--- \nbody", -1, "T"},
		{"CRLF", "---\r\ntitle: T\r\n---\r\nbody", -1, "T"},
		{"byte order mark", "\uFEFF---\ntitle: T\n---\nbody", -1, "T"},
		{"not on the first line", "\n---\ntitle: T\n---\n", 0, "Note"},
		{"frontmatter only", "---\ntitle: T\n---", 16, "T"},
		{"empty frontmatter", "---\n---\nbody", -1, "Note"},
		{"only comments", "---\n# nothing\n---\nbody", -1, "Note"},
		{"null document", "---\n~\n---\nbody", -1, "Note"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.in)
			if tc.bodyStart < 0 {
				tc.bodyStart = strings.Index(tc.in, "body")
			}
			if p.BodyStart != tc.bodyStart || p.Title != tc.title || len(p.Warnings) != 0 {
				t.Errorf("BodyStart %d title %q warnings %v, want %d %q none", p.BodyStart, p.Title, p.Warnings, tc.bodyStart, tc.title)
			}
		})
	}
	t.Run("unclosed frontmatter is parsed as body", func(t *testing.T) {
		p := parse(t, "---\ntitle: T\nbody [[A]]")
		diffLinks(t, p.Links, links(format.Link{Target: "A", Line: 3}))
		if p.BodyStart != 0 || p.Title != "Note" || len(p.Properties) != 0 {
			t.Errorf("BodyStart %d title %q properties %v, want 0, Note and none", p.BodyStart, p.Title, p.Properties)
		}
	})
	t.Run("links in frontmatter text are not body links", func(t *testing.T) {
		p := parse(t, "---\ndescription: about [[A]] and #tag\n---\n")
		if len(p.Links) != 0 || len(p.Tags) != 0 {
			t.Errorf("links %v tags %v", p.Links, p.Tags)
		}
	})
}

func TestFrontmatterWarnings(t *testing.T) {
	tests := []struct {
		name, in string
		kind     string
		line     int
	}{
		{"invalid YAML", "---\ntitle: T\nb: 2\n  c: 3\n---\n# H\n[[A]]", format.WarnInvalidYAML, 4},
		{"tab indentation", "---\na: 1\n\tb: 2\n---\n[[A]]", format.WarnInvalidYAML, 3},
		{"mapping in a scalar", "---\na: b: c\n---\n[[A]]", format.WarnInvalidYAML, 1},
		{"not a map", "---\n- a\n- b\n---\n[[A]]", format.WarnInvalidYAML, 2},
		{"duplicate key", "---\ntitle: T\nx: 1\nx: 2\n---\n[[A]]", format.WarnInvalidYAML, 4},
		{"never closed", "---\ntitle: T\n[[A]]", format.WarnUnclosedFrontmatter, 1},
		{"never closed, with a byte order mark", "\uFEFF---\ntitle: T\n\n[[A]]\n", format.WarnUnclosedFrontmatter, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parse(t, tc.in)
			if len(p.Warnings) != 1 || p.Warnings[0].Kind != tc.kind || p.Warnings[0].Line != tc.line || p.Warnings[0].File != testPath {
				t.Fatalf("warnings = %+v, want one %s at line %d", p.Warnings, tc.kind, tc.line)
			}
			if len(p.Links) != 1 || p.Links[0].Target != "A" {
				t.Errorf("body not parsed: links %v", p.Links)
			}
		})
	}
	t.Run("duplicate key keeps the first value", func(t *testing.T) {
		p := parse(t, "---\nx: 1\nx: 2\n---\n")
		if d := cmp.Diff([]format.Property{prop(t, "x", format.KindInt, 1)}, p.Properties); d != "" {
			t.Error(d)
		}
	})
}

// billionLaughs is a frontmatter whose aliases expand to 10^9 nodes.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString("---\ntitle: Bomb\ntags: [x]\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		b.WriteString(name + ": &" + name + " [")
		for k := range 10 {
			if k > 0 {
				b.WriteString(",")
			}
			b.WriteString("*" + prev)
		}
		b.WriteString("]\n")
		prev = name
	}
	b.WriteString("---\nbody [[A]] #tag\n")
	return b.String()
}

func TestAliasBomb(t *testing.T) {
	p := parse(t, billionLaughs())
	if len(p.Warnings) != 1 || p.Warnings[0].Kind != format.WarnYAMLAliasBomb {
		t.Fatalf("warnings = %+v, want one alias bomb", p.Warnings)
	}
	if p.Title != "Note" || p.Properties != nil || !cmp.Equal(p.Tags, []string{"tag"}) {
		t.Errorf("frontmatter values kept: title %q tags %v properties %v", p.Title, p.Tags, p.Properties)
	}
	if len(p.Links) != 1 {
		t.Errorf("body not parsed: links %v", p.Links)
	}
}

func TestYAMLAliasesWithinBudget(t *testing.T) {
	p := parse(t, "---\nbase: &b {city: Paris}\nhome: *b\nself: &s [*s]\nmerged:\n  <<: *b\n  zip: 1\n---\n")
	want := []format.Property{
		prop(t, "base", format.KindMap, map[string]any{"city": "Paris"}),
		prop(t, "home", format.KindMap, map[string]any{"city": "Paris"}),
	}
	if d := cmp.Diff(want, p.Properties[:2]); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if m, _ := format.Lookup(p.Properties, "merged"); m.JSON() != `{"city":"Paris","zip":1}` {
		t.Errorf("merged = %s", m.JSON())
	}
}
